"""Small builders for tests: a round from card names; a camera showing one picture."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from companion.engine import Card, DeckCard, Edition, Round, TweakKind
from companion.engine.setup import Deal


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def make_round(
    hands: list[str],
    table: str,
    deck: str = "",
    pile: str = "",
    dealer: int = -1,
    held: dict[int, str] | None = None,
    edition: Edition = Edition.CLASSIC,
) -> Round:
    """A round in any position: hands and table as card names, deck as 'red-1/9 ...' top first.

    ``dealer=-1`` makes seat 0 the first to play. ``held`` gives T! cards already won by a seat.
    """
    players = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay")[: len(hands)]
    deal = Deal(
        tuple(cards(h) for h in hands),
        cards(table),
        tuple(DeckCard.parse(t) for t in deck.split()),
        tuple(TweakKind.parse(t) for t in pile.split()),
    )
    rnd = Round(players, dealer % len(players), deal, edition)
    for seat, kinds in (held or {}).items():
        rnd.tweaks_held[seat].extend(TweakKind.parse(k) for k in kinds.split())
    return rnd


@contextmanager
def camera_showing(app: Any, image: Any) -> Iterator[Any]:
    """The app's camera: the real ``CameraService`` over a still source (what picamera2 would
    give) showing ``image``, running and seen "ok" for the block, stopped after it."""
    from companion.web.camera import CameraService
    from companion.web.vision import vision_of

    class Still:
        def read(self):
            time.sleep(0.01)
            return image

        def close(self):
            pass

    camera = CameraService("picamera", opener=lambda spec: Still(), retry=0.05).start()
    vision_of(app).camera = camera
    try:
        deadline = time.monotonic() + 5
        while camera.state != "ok" and time.monotonic() < deadline:
            time.sleep(0.02)
        yield camera
    finally:
        camera.stop()
