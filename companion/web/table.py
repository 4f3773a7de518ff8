"""The camera referee on the dashboard: frames from the camera -> still table views -> moves.

A background thread takes the camera's latest picture a few times a second. The tracker checks
motion first on a small copy (a hand over the table costs no recognition time); once the table
has been still long enough the scanner reads it and the seating turns the readings into a
:class:`~companion.referee.view.TableView`, which the match service hands to the round's
:class:`~companion.referee.infer.Referee` (companion.referee: the same move inference as
``tweak referee``). Only matches set up "refereed from the camera" are followed.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Iterable

log = logging.getLogger(__name__)


class TableReferee:
    """Follows the newest camera match's round from frames; one per app."""

    def __init__(
        self,
        service: Any,
        scanner: Callable[[], Any],
        zones: Callable[[], Any] = lambda: None,
        still_seconds: float = 0.2,
        settle_seconds: float = 5.0,
    ) -> None:
        self.service = service
        self.scanner = scanner  # called once per frame read: the scanner may be loaded late
        self.zones = zones  # the saved calibration (its "centre" zone), if any
        self.still_seconds = still_seconds
        self.settle_seconds = settle_seconds  # a last card lying this long was a discard (R5.1)
        self._following: tuple[int, int] | None = None  # (match, round number)
        self._follower: Any = None  # the round's companion.referee.follow.TableFollower
        self.views = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self, now: float, frame: Any) -> list:
        """One frame; the referee's events when it completed a still view of the table."""
        from companion.referee.follow import TableFollower

        match_id = self.service.camera_match()
        scanner = self.scanner()
        if match_id is None or scanner is None:
            self._following = None
            return []
        live = self.service.get(match_id)
        following = (match_id, live.waiting["round"])
        if following != self._following:  # a new match or round: start afresh
            self._following = following
            self._follower = TableFollower(
                len(live.match.players), self.zones(), self.still_seconds, self.settle_seconds
            )
        still = self._follower.step(now, frame, scanner)
        if still is None:
            return []
        if still.settled:
            return self.service.settle(match_id)
        self.views += 1
        return self.service.see(match_id, still.view)

    def feed(self, frames: Iterable[tuple[float, Any]]) -> list:
        """Every frame of ``frames`` in turn (a video, the virtual table), then the end of the
        pictures: all the events."""
        events = []
        for now, frame in frames:
            events += self.step(now, frame)
        if self._following is not None:
            events += self.service.settle(self._following[0], ended=True)
        return events

    # -- the live thread -----------------------------------------------------------------------

    def start(self, camera: Any, fps: float = 10.0) -> TableReferee:
        self._thread = threading.Thread(target=self._run, args=(camera, fps), name="table-referee", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self, camera: Any, fps: float) -> None:
        last = None
        while not self._stop.wait(1 / fps):
            frame = camera.latest()
            if frame is None or frame is last:
                continue
            last = frame
            try:
                self.step(time.monotonic(), frame)
            except Exception:  # never take the dashboard down: log it, keep following
                log.exception("camera referee: a frame could not be refereed")


class VirtualRoundCamera:
    """A camera for trying the camera referee without one (``tweak serve --camera virtual-round``):
    when a camera match has a round in play, bots play that round (its players, dealer and colours)
    on the virtual table, filmed as ``tweak referee virtual:SEED`` films it, a hand passing between
    still moments; before and after, the empty table. Read at the camera service's pace."""

    live = False  # paced by the camera service, like a video
    STILL_FRAMES = 8  # still frames per moment: the dashboard reads the newest picture, not each one

    def __init__(self, service: Any, seed: int = 0) -> None:
        self.service = service
        self.seed = seed
        self.name = f"virtual-round:{seed}"
        self._following: tuple[int, int] | None = None
        self._frames: Any = None
        self._last: Any = None

    def read(self) -> Any:
        import numpy as np

        from companion.engine.cards import Colour
        from companion.referee.virtual import frames, play_round

        match_id = self.service.camera_match()
        live = self.service.get(match_id) if match_id is not None else None
        following = None if live is None else (match_id, live.waiting["round"])
        if following != self._following:
            self._following, self._frames = following, None
            if live is not None:
                waiting = live.waiting
                players = list(live.match.players)
                virtual = play_round(
                    players,
                    players.index(waiting["dealer"]),
                    self.seed * 1000 + match_id * 50 + waiting["round"],
                    live.match.edition,
                    [Colour(c) for c in waiting["colours"]],
                )
                self._frames = frames(virtual, still_frames=self.STILL_FRAMES)
        if self._frames is not None:
            frame = next(self._frames, None)
            if frame is not None:
                self._last = frame.image
                return frame.image
            return self._last  # the round is over: the table stays as it was left
        if self._last is None or following is None:
            self._last = np.full((720, 1280, 3), (60, 90, 120), np.uint8)  # the empty table
        return self._last

    def close(self) -> None:
        pass
