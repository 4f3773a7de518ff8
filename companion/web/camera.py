"""The camera view on the dashboard: what the camera sees, with the recognised cards outlined.

With no camera the virtual table photographs the match's current state (``scanner.synth``) and
the real scanner reads that photo, so the outlines and labels are the scanner's own readings.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

from .live import LiveMatch

log = logging.getLogger(__name__)
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

    from scanner.synth.cards import REFERENCE_STYLE
    from scanner.synth.table import render_state

    if live.camera:  # a real table: its pictures come from the camera (/api/camera.jpg)
        return None
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
            frame = draw_readings(frame, result)
            if result.target is not None:
                _draw_target(frame, result.target)
        ok, data = cv2.imencode(
            ".jpg", cv2.resize(frame, (960, 540), interpolation=cv2.INTER_AREA), [cv2.IMWRITE_JPEG_QUALITY, 80]
        )
        cache.clear()  # one picture per match version is plenty
        cache[key] = data.tobytes()
        return cache[key]


def _draw_target(frame: Any, target: int) -> None:
    """The target the scanner read, as a target sign and its number: no word to translate (the
    picture is shared by phones in every language)."""
    import cv2

    for radius, colour in ((22, (255, 255, 255)), (14, (40, 40, 200)), (6, (255, 255, 255))):
        cv2.circle(frame, (38, 34), radius, colour, -1, cv2.LINE_AA)
    cv2.putText(frame, str(target), (70, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (255, 255, 255), 3, cv2.LINE_AA)


class CameraService:
    """The real camera, read in a background thread. It never takes the dashboard down: a camera
    missing, unplugged or failing only changes ``status()`` (the dashboard then says so and the
    referee enters moves by tapping), and the camera is opened again every ``retry`` seconds.
    """

    def __init__(self, spec: str, opener: Any = None, retry: float = 3.0, fps: float = 10.0) -> None:
        from scanner.capture.camera import open_source

        self.spec = spec
        self.opener = opener or open_source
        self.retry = retry
        self.fps = fps  # a file, a folder or the virtual table is read at this pace (a camera sets its own)
        self.state = "starting"  # starting | ok | missing | lost
        self.message = f"opening {spec}"
        self.since = time.time()
        self.frames = 0
        self.reconnects = 0
        self._source: Any = None
        self._frame: Any = None
        self._frame_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> CameraService:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _set(self, state: str, message: str) -> None:
        if state != self.state:
            self.since = time.time()
            log.info("camera %s: %s", state, message)
        self.state, self.message = state, message

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._source = self.opener(self.spec)
            except Exception as err:  # a missing module, device or file: say so, try again later
                self._set("missing", str(err))
                self._stop.wait(self.retry)
                continue
            if self.frames:
                self.reconnects += 1
            paced = not getattr(self._source, "live", False)
            try:
                while not self._stop.is_set():
                    if paced and self._stop.wait(1 / self.fps):
                        break
                    frame = self._source.read()
                    if frame is None:
                        raise OSError("the camera stopped sending pictures")
                    with self._frame_lock:
                        self._frame = frame
                    self.frames += 1
                    self._set("ok", f"{frame.shape[1]}x{frame.shape[0]}")
            except Exception as err:
                self._set("lost", str(err) or type(err).__name__)
            finally:
                with contextlib.suppress(Exception):  # closing a broken camera may fail too
                    self._source.close()
                self._source = None
            self._stop.wait(self.retry)

    def latest(self):
        with self._frame_lock:
            return None if self._frame is None or self.state != "ok" else self._frame.copy()

    def lock(self) -> dict[str, Any]:
        """Freeze focus, exposure and white balance where the camera supports it (picamera2)."""
        source = self._source
        if source is None or not hasattr(source, "lock"):
            return {}
        return source.lock()

    def status(self) -> dict[str, Any]:
        return {
            "source": self.spec,
            "state": self.state,
            "message": self.message,
            "since": round(self.since, 1),
            "frames": self.frames,
            "reconnects": self.reconnects,
        }


def draw_readings(frame, result, mat=None):
    """Outline the scanner's readings (and the mat's zones) on a copy of ``frame``."""
    import cv2
    import numpy as np

    out = frame.copy()
    for card in result.cards:
        colour = (80, 220, 80) if card.confidence >= 0.9 else (0, 170, 255)
        pts = card.corners.astype(np.int32)
        cv2.polylines(out, [pts], True, colour, 3, cv2.LINE_AA)
        x, y = pts.min(axis=0)
        text = f"{card.label} {card.confidence:.2f}"
        cv2.putText(out, text, (int(x), max(14, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3)
        cv2.putText(out, text, (int(x), max(14, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
    if mat is not None:
        for polygon in mat_zone_polygons(mat).values():
            cv2.polylines(out, [polygon.astype(np.int32)], True, (255, 200, 0), 2, cv2.LINE_AA)
    return out


def mat_zone_polygons(mat) -> dict[str, Any]:
    """The mat's deck, T! pile and centre boxes as polygons in frame pixels."""
    import cv2
    import numpy as np

    to_frame = np.linalg.inv(mat.to_mat)
    zones = {}
    for name, box in (
        ("deck", mat.layout.deck_box),
        ("tweak_pile", mat.layout.tweak_pile_box),
        ("centre", mat.layout.centre_box),
    ):
        x0, y0, x1, y1 = box
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64).reshape(-1, 1, 2)
        zones[name] = cv2.perspectiveTransform(corners, to_frame).reshape(-1, 2).astype(np.float32)
    return zones
