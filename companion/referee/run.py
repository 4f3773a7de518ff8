"""The referee's live loop: frames -> scanner -> tracker -> table views -> moves and questions."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from companion.engine.cards import Colour, Edition

from .follow import TableFollower
from .infer import Answer, Event, Referee


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
    follower = TableFollower(len(players), zones, still_seconds)
    # the caller may keep the referee to act on its events between frames (a move tapped in)
    referee = referee or Referee(players, dealer, colours, edition, answer)
    for now, frame in frames:
        started = time.perf_counter()
        still = follower.step(now, frame, scanner)
        if still is None or still.view is None:
            continue
        events = referee.see(still.view)
        spent = (time.perf_counter() - started) * 1000
        for event in events:
            yield Timed(event, now, still.waited_ms + spent)
    for event in referee.finish():
        yield Timed(event, -1.0, 0.0)
    yield Timed(Event("record", {"lines": referee.seen.record_lines() if referee.seen else []}), -1.0, 0.0)
