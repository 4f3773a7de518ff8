"""Frame sources behind one interface: picamera2 on a Raspberry Pi, OpenCV ``VideoCapture``
(USB camera, video file, network stream), a folder of images, and the virtual table.

Every source gives BGR ``uint8`` frames (picamera2's ``RGB888`` arrays are already B, G, R).
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Any, Iterator, Protocol

import numpy as np

from scanner.core import ScannerError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


class CameraError(ScannerError, RuntimeError):
    """A camera that cannot be opened or read, with what to do about it."""


class FrameSource(Protocol):
    name: str

    def read(self) -> np.ndarray | None:
        """The next frame, or None when the source has ended."""
        ...

    def close(self) -> None: ...


class PiCamera:
    """picamera2 (Raspberry Pi camera modules). Imported only when chosen.

    ``lock()`` freezes focus, exposure and white balance at their current values, after a
    calibration, so the scanner sees the table the same way all game long.
    """

    name = "picamera2"

    live = True  # frames come in real time (a file or a folder is read as fast as it can be)

    def __init__(self, size: tuple[int, int] = (1280, 720), camera: int = 0, module: Any = None) -> None:
        if module is None:
            try:
                module = importlib.import_module("picamera2")
            except ModuleNotFoundError:
                raise CameraError(
                    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` "
                    "and create the virtual environment with --system-site-packages (hardware/install-pi.sh "
                    "does both); elsewhere use a USB camera (--camera 0) or the virtual table"
                ) from None
        try:
            self.cam = module.Picamera2(camera)
        except (IndexError, RuntimeError) as err:
            raise CameraError(f"no Raspberry Pi camera {camera}: {err} (is the ribbon cable seated?)") from None
        config = self.cam.create_video_configuration(main={"size": size, "format": "RGB888"}, buffer_count=4)
        self.cam.configure(config)
        # continuous autofocus and automatic exposure / white balance until lock()
        self.cam.set_controls({"AfMode": 2, "AeEnable": True, "AwbEnable": True})
        self.cam.start()

    def read(self) -> np.ndarray | None:
        return self.cam.capture_array("main")

    def lock(self) -> dict[str, Any]:
        """Fix focus, exposure and white balance at the values the camera settled on."""
        meta = self.cam.capture_metadata()
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False, "AfMode": 0}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"):
            if key in meta:
                controls[key] = meta[key]
        self.cam.set_controls(controls)
        return controls

    def close(self) -> None:
        self.cam.stop()
        self.cam.close()


class VideoSource:
    """OpenCV VideoCapture: a USB camera index, a video file or a network stream URL."""

    def __init__(self, spec: str | int, size: tuple[int, int] | None = None) -> None:
        import cv2

        self.name = f"video:{spec}"
        self.cap = cv2.VideoCapture(spec)
        if not self.cap.isOpened():
            raise CameraError(f"cannot open {spec!r} with OpenCV (camera index, video file or stream URL)")
        if size and isinstance(spec, int):
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> np.ndarray | None:
        ok, frame = self.cap.read()
        return frame if ok else None

    def close(self) -> None:
        self.cap.release()


class FolderSource:
    """The images of a folder, in name order."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.name = f"folder:{self.folder}"
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise CameraError(f"{self.folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._next = 0

    def read(self) -> np.ndarray | None:
        import cv2

        while self._next < len(self.paths):
            path = self.paths[self._next]
            self._next += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is not None:
                return frame
        return None

    def close(self) -> None:
        pass


class VirtualTableSource:
    """Rendered frames of tables (``virtual:SEED``): the same seed gives the same frames."""

    def __init__(self, seed: int, frames: int | None = None, harsh: bool = False) -> None:
        self.name = f"virtual:{seed}"
        self.seed = seed
        self.frames = frames
        self.harsh = harsh
        self._count = 0

    def read(self) -> np.ndarray | None:
        from scanner.synth.table import render_table

        if self.frames is not None and self._count >= self.frames:
            return None
        frame = render_table(self.seed * 1000 + self._count, harsh=self.harsh).image
        self._count += 1
        return frame

    def close(self) -> None:
        pass


def open_source(spec: str | None) -> FrameSource:
    """``picamera`` / ``picamera:N``, a camera index (``0``), a video file or URL, a folder of
    images, or ``virtual:SEED`` (the default when no camera is configured)."""
    if spec is None or spec == "virtual":
        return VirtualTableSource(0)
    if spec.startswith("virtual:"):
        try:
            return VirtualTableSource(int(spec.split(":", 1)[1]))
        except ValueError:
            raise CameraError(f"{spec!r}: write virtual:SEED with a whole-number seed") from None
    if spec == "picamera" or spec.startswith("picamera:"):
        index = int(spec.split(":", 1)[1]) if ":" in spec else 0
        return PiCamera(camera=index)
    if spec.isdigit():
        return VideoSource(int(spec))
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path)
    if "://" in spec or path.exists():
        return VideoSource(spec)
    raise CameraError(f"no camera or file {spec!r} (picamera, a camera index, a video, a folder, virtual:SEED)")


def frames(source: FrameSource, limit: int | None = None, fps: float | None = None) -> Iterator[np.ndarray]:
    """Iterate a source's frames (optionally paced at ``fps``)."""
    count = 0
    while limit is None or count < limit:
        started = time.monotonic()
        frame = source.read()
        if frame is None:
            return
        count += 1
        yield frame
        if fps:
            time.sleep(max(0.0, 1 / fps - (time.monotonic() - started)))
