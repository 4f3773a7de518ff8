"""What the dashboard's picture work keeps between requests, in one object per app
(``app.extensions["tweak_vision"]``): the camera and its referee when one is attached, the scanner
(loaded once, again after a calibration or an enrolment), the pictures made for phones, the won
piles counted, the enrolment in progress, and the one thread all picture work runs on."""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
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
        # cards just read (their images and outlines' areas); confirmed crops by label, and areas
        self.enrolment: dict = {"last": [], "last_areas": [], "crops": {}, "areas": []}
        self._scanner: Any = _UNLOADED

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
            except (FileNotFoundError, ImportError, ValueError) as err:  # (ValueError: a finder it cannot use)
                log.warning("camera view without recognition: %s", err)
                self._scanner = None
        return self._scanner

    @property
    def scanner_loaded(self) -> Any:
        """The scanner if it has been loaded (None otherwise): for looking, without loading it."""
        return None if self._scanner is _UNLOADED else self._scanner

    def forget_scanner(self) -> None:
        """A new calibration or deck profile: the next scan loads the scanner again."""
        self._scanner = _UNLOADED


def vision_of(app: Flask | None = None) -> Vision:
    return (app or current_app).extensions["tweak_vision"]
