"""The camera view on the dashboard: what the camera sees, with the recognised cards outlined.

With no camera the virtual table photographs the match's current state (``scanner.synth``) and
the real scanner reads that photo, so the outlines and labels are the scanner's own readings.
"""

from __future__ import annotations

import threading
from typing import Any

from .service import LiveMatch

_lock = threading.Lock()


def table_state(live: LiveMatch):
    from scanner.synth.table import TableState

    rnd = live.match.current
    if rnd is None:
        return None
    deck_back = rnd.deck[rnd.deck_pos].back if rnd.deck_left else None
    return TableState(
        players=len(rnd.players),
        table=[c.name for c in rnd.table],
        deck_back=deck_back,
        tweak_pile=rnd.tweak_pile_left,
        tweak_cards=[[f"tweak-{k.value}" for k in rnd.tweaks_won(p)] for p in range(len(rnd.players))],
        won=[len(w) for w in rnd.won],
    )


def camera_jpeg(live: LiveMatch, scanner: Any, cache: dict) -> bytes | None:
    """A JPEG of the (virtual) camera view with the scanner's readings drawn on it."""
    import cv2
    import numpy as np

    from scanner.synth.cards import REFERENCE_STYLE
    from scanner.synth.table import render_state

    key = (live.id, live.version)
    with _lock:
        if key in cache:
            return cache[key]
        state = table_state(live)
        if state is None:
            return None
        frame = render_state(state, live.seed, upright=True, style=REFERENCE_STYLE).image
        if scanner is not None:
            result = scanner.scan(frame)
            for card in result.cards:
                good = card.confidence >= 0.9
                colour = (80, 220, 80) if good else (0, 170, 255)
                pts = card.corners.astype(np.int32)
                cv2.polylines(frame, [pts], True, colour, 3, cv2.LINE_AA)
                x, y = pts.min(axis=0)
                text = f"{card.label} {card.confidence:.2f}"
                cv2.putText(
                    frame, text, (int(x), max(14, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA
                )
                cv2.putText(
                    frame, text, (int(x), max(14, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA
                )
            if result.target is not None:
                cv2.putText(
                    frame,
                    f"target {result.target}",
                    (16, 40),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    1.2,
                    (255, 255, 255),
                    3,
                    cv2.LINE_AA,
                )
        ok, data = cv2.imencode(
            ".jpg", cv2.resize(frame, (960, 540), interpolation=cv2.INTER_AREA), [cv2.IMWRITE_JPEG_QUALITY, 80]
        )
        cache.clear()  # one picture per match version is plenty
        cache[key] = data.tobytes()
        return cache[key]
