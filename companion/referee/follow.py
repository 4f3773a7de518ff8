"""The one path from camera frames to the referee's input, shared by ``tweak referee`` and the
dashboard's camera referee: motion first (on a small copy: a hand over the table costs no
recognition), the scanner once the table is still, the tracker's vote over still frames, then the
seating, which turns the readings into a :class:`~companion.referee.view.TableView`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .view import Seating, TableView


@dataclass
class Still:
    """What one frame gave: a still view of the table for the referee (``view``), or the news that
    the table has lain still ``settle_seconds`` (``settled``, once a still moment)."""

    view: TableView | None
    settled: bool = False
    waited_ms: float = 0.0  # from the first still frame to this one


class TableFollower:
    """Frames of one round -> still table views. ``zones``: the calibration's zones, if any."""

    def __init__(
        self, players: int, zones: Any = None, still_seconds: float = 0.2, settle_seconds: float | None = None
    ) -> None:
        from scanner.track import Tracker

        self.players = players
        self.zones = zones
        self.tracker = Tracker(still_seconds=still_seconds)
        self.settle_seconds = settle_seconds  # None: never report a settled table
        self._seating: Seating | None = None
        self._settled: float | None = None

    def step(self, now: float, frame: np.ndarray, scanner: Any) -> Still | None:
        """One frame, read with ``scanner`` (it may change between frames: a new calibration or
        deck profile); None while the table moves or the tracker is not yet sure of it."""
        if self._seating is None:
            self._seating = Seating(self.players, (frame.shape[1], frame.shape[0]), self.zones)
        tracker = self.tracker
        if tracker.is_moving(frame):
            tracker.update(now, frame, None, motion_checked=True)
            return None
        # (faint: an outline the deck's reader takes for none of its cards is kept, read too faintly
        # to name; in the centre it is a card laid that the camera cannot read, and the move is asked)
        state = tracker.update(now, frame, scanner.scan(frame, faint=True), motion_checked=True)
        still = tracker.still_since
        waited = (now - still) * 1000 if still is not None else 0.0
        if state is None:
            if (
                self.settle_seconds is not None
                and still is not None
                and now - still >= self.settle_seconds
                and self._settled != still
            ):
                self._settled = still  # once per still moment
                return Still(None, settled=True, waited_ms=waited)
            return None
        # a deck profile doubts its readings under its own bar (Scanner.doubt_below)
        view = self._seating.view(now, state.cards, getattr(scanner, "doubt_below", None), state.target)
        return Still(view, waited_ms=waited)
