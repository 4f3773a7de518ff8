"""The virtual table: with no camera, bots play a match live so a newcomer sees a refereed game."""

from __future__ import annotations

import logging
import threading

from .service import MatchService

log = logging.getLogger(__name__)
DEMO_PLAYERS = ["Ana", "Ben", "Cai", "Dee"]


class VirtualTable:
    """A daemon thread that makes one bot move every ``interval`` seconds on the demo match."""

    def __init__(self, service: MatchService, interval: float = 2.0, pause: float = 10.0) -> None:
        self.service = service
        self.interval = interval
        self.pause = pause  # after a match is won, before the next one starts
        self._stop = threading.Event()
        self.match_id = self._find_or_create()
        self._thread = threading.Thread(target=self._run, name="virtual-table", daemon=True)

    def _find_or_create(self) -> int:
        for row in self.service.storage.matches():
            if row.autoplay and not self.service.get(row.id).match.is_over():
                return row.id  # resume the demo match after a restart
        return self.service.create_match(DEMO_PLAYERS, name="Virtual table", autoplay=True)

    def start(self) -> VirtualTable:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if not self.service.bot_move(self.match_id):
                    if self._stop.wait(self.pause):
                        return
                    self.match_id = self._find_or_create()
            except Exception:  # the demo must never take the dashboard down
                log.exception("virtual table move failed")
