"""What the dashboard's picture work keeps between requests, in one object per app
(``app.extensions["tweak_vision"]``): the camera and its referee when one is attached, the scanner
(loaded once, again after a calibration or an enrolment), the pictures made for phones, the won
piles counted, the enrolment in progress, and the one thread all picture work runs on."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, TypeVar

from flask import Flask, current_app

log = logging.getLogger(__name__)
T = TypeVar("T")
_UNLOADED = object()


class Vision:
    def __init__(self, config: Any) -> None:
        self.config = config  # the app's: CALIBRATION and PROFILE, the saved calibration and deck profile
        # one thread for all picture work (render, scan, draw, encode): the server's threads are
        # many (one a live phone), and OpenCV keeps ~6 MB for each thread that draws
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="vision")
        self.camera: Any = None  # the real camera (camera.CameraService), when one is attached
        self.table: Any = None  # its referee (table.TableReferee)
        self.profile_error: str | None = None  # why the saved profile could not be used
        self.camera_pictures: dict = {}  # (match, version) -> the virtual camera's JPEG
        self.pile_scores: dict = {}  # (match, player) -> the won pile counted so far
        self.pile_pictures: dict = {}  # (match, player) -> the last pile picture's JPEG
        # cards just read (their images, outlines' areas, shares burnt white and shapes); confirmed
        # crops by label, and their areas, shares burnt white and shapes
        self.enrolment: dict = {
            "last": [],
            "last_areas": [],
            "last_burnt": [],
            "last_aspects": [],
            "crops": {},
            "areas": [],
            "burnt": [],
            "aspects": [],
        }
        self._scanner: Any = _UNLOADED
        self.relearning: threading.Thread | None = None  # a stale profile learned again (``_relearn``)

    def run(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Picture work, on the one vision thread."""
        return self._worker.submit(work, *args, **kwargs).result()

    def scanner(self) -> Any:
        """The scanner with the shipped models, the saved calibration and deck profile, loaded
        once; None when the models are missing."""
        if self._scanner is _UNLOADED:
            try:
                from scanner.read.profile import ProfileError
                from scanner.scan import load_scanner

                calibration, profile = self.config["CALIBRATION"], self.config["PROFILE"]
                saved = calibration if os.path.exists(calibration) else None
                self.profile_error = None
                try:
                    self._scanner = load_scanner(profile if os.path.exists(profile) else None, calibration=saved)
                except ProfileError as err:  # a stale profile: the enrolment page says so; scan without it
                    self.profile_error = str(err)
                    self._scanner = load_scanner(calibration=saved)
                    self._relearn(self._scanner)
            except (FileNotFoundError, ImportError, ValueError) as err:  # (ValueError: a finder it cannot use)
                log.warning("camera view without recognition: %s", err)
                self._scanner = None
            if self._scanner is not None:
                # the text networks (T! names, backs' targets) loaded now, not at the first card
                # they are asked for: no pause of the camera mid-round, and the server's memory
                # the same from its first picture (about 60 MiB more; said in the log if missing)
                _ = self._scanner.words
        return self._scanner

    def _relearn(self, scanner: Any) -> None:
        """A profile made for another model or reader (a software update) whose cards are all kept
        beside it (``scanner.read.kept``) is learned again from them with this model, in the background
        (a minute or so; scans go on without it meanwhile), and used once saved. Not where the
        profile cannot be read, lacks kept cards for some of its labels (the referee then decides,
        in the wizard), or is saved again meanwhile."""
        if self.relearning is not None:  # (once a process)
            return
        from scanner.read.kept import kept_cards, kept_folder
        from scanner.read.profile import ProfileError, enrol_cards, load_profile

        path = Path(self.config["PROFILE"])
        try:
            old = load_profile(path)
            cards = kept_cards(kept_folder(path))
            stamp = path.stat().st_mtime_ns
        except (ProfileError, OSError):
            return
        if not cards or set(old.photos) - set(cards):
            return
        try:
            old.check_model(scanner.classifier)
            return  # (another fault than the model's)
        except ProfileError:
            pass

        def learn() -> None:
            try:
                profile = enrol_cards(
                    scanner.classifier, cards, deck=old.deck, aspect=old.aspect, second=scanner.any_deck
                )
                if path.stat().st_mtime_ns == stamp:  # (not saved by the wizard meanwhile)
                    profile.save(path)
                    log.info("the deck profile was learned again for this model from %s", kept_folder(path))
                    self.forget_scanner()
            except Exception:  # (a background thread: said in the log, the old profile stays unused)
                log.exception("the deck profile could not be learned again")

        self.profile_error = (
            "the deck profile was made for another version of the scanner: learning it again from its kept cards"
        )
        self.relearning = threading.Thread(target=learn, name="relearn-profile", daemon=True)
        self.relearning.start()

    @property
    def scanner_loaded(self) -> Any:
        """The scanner if it has been loaded (None otherwise): for looking, without loading it."""
        return None if self._scanner is _UNLOADED else self._scanner

    def forget_scanner(self) -> None:
        """A new calibration or deck profile: the next scan loads the scanner again."""
        self._scanner = _UNLOADED


def vision_of(app: Flask | None = None) -> Vision:
    return (app or current_app).extensions["tweak_vision"]
