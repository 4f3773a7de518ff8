"""The referee's live loop: frames -> scanner -> tracker -> table views -> moves and questions."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from companion.engine.cards import Colour, Edition

from .infer import Answer, Event, Referee
from .view import Seating


@dataclass
class Timed:
    """An event with when it was decided: ``still_to_verdict_ms`` counts from the first still frame."""

    event: Event
    frame_time: float
    still_to_verdict_ms: float

    def as_json(self) -> dict[str, Any]:
        return {
            **self.event.as_json(),
            "time": round(self.frame_time, 2),
            "latency_ms": round(self.still_to_verdict_ms, 1),
        }


def referee_frames(
    frames: Iterable[tuple[float, np.ndarray]],
    scanner: Any,
    players: Sequence[str],
    dealer: int,
    colours: Sequence[Colour] | None = None,
    edition: Edition = Edition.CLASSIC,
    answer: Answer | None = None,
    still_seconds: float = 0.2,
    zones: Any = None,
    referee: Referee | None = None,
) -> Iterator[Timed]:
    """Referee a round from ``(time, frame)`` pairs: every event as it is decided.

    A frame is scanned only while the table is still (motion is checked first, on a small copy):
    a hand over the table costs no recognition time.
    """
    from scanner.track import Tracker

    tracker = Tracker(still_seconds=still_seconds)
    # the caller may keep the referee to act on its events between frames (a move tapped in)
    referee = referee or Referee(players, dealer, colours, edition, answer)
    seating: Seating | None = None
    for now, frame in frames:
        if seating is None:
            seating = Seating(len(players), (frame.shape[1], frame.shape[0]), zones)
        started = time.perf_counter()
        if tracker.is_moving(frame):
            tracker.update(now, frame, None, motion_checked=True)
            continue
        scan = scanner.scan(frame)
        state = tracker.update(now, frame, scan, motion_checked=True)
        if state is None:
            continue
        view = seating.view(now, state.cards, getattr(scanner, "doubt_below", None))
        events = referee.see(view)
        spent = (time.perf_counter() - started) * 1000
        waited = (now - tracker.still_since) * 1000 if tracker.still_since is not None else 0.0
        for event in events:
            yield Timed(event, now, waited + spent)
    for event in referee.finish():
        yield Timed(event, -1.0, 0.0)
    yield Timed(Event("record", {"lines": referee.seen.record_lines() if referee.seen else []}), -1.0, 0.0)
