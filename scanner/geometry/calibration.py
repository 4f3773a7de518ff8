"""Zones without a mat: a saved calibration names polygons of the frame (image pixels).

The file is JSON: ``{"version": 1, "size": [w, h], "zones": {"deck": [[x, y], ...], ...}}``.
Frames of another size are scaled to the calibration's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scanner.core import ScannerError

CALIBRATION_VERSION = 1


class CalibrationError(ScannerError, ValueError):
    pass


@dataclass
class Calibration:
    size: tuple[int, int]
    zones: dict[str, np.ndarray]

    def zone_of(self, corners: np.ndarray, frame_size: tuple[int, int]) -> str | None:
        centre = np.asarray(corners, np.float32).reshape(4, 2).mean(axis=0)
        centre = centre * np.array([self.size[0] / frame_size[0], self.size[1] / frame_size[1]], np.float32)
        for name, polygon in self.zones.items():
            if cv2.pointPolygonTest(polygon, (float(centre[0]), float(centre[1])), False) >= 0:
                return name
        return "table"

    def save(self, path: Path) -> None:
        data = {
            "version": CALIBRATION_VERSION,
            "size": list(self.size),
            "zones": {k: v.tolist() for k, v in self.zones.items()},
        }
        path.write_text(json.dumps(data, indent=1) + "\n")


def load_calibration(path: Path) -> Calibration:
    try:
        data = json.loads(Path(path).read_text())
    except OSError as err:
        raise CalibrationError(f"{path}: cannot read ({err.strerror})") from None
    except json.JSONDecodeError as err:
        raise CalibrationError(f"{path}: not JSON (line {err.lineno}, column {err.colno})") from None
    if not isinstance(data, dict) or data.get("version") != CALIBRATION_VERSION:
        raise CalibrationError(f"{path}: not a version {CALIBRATION_VERSION} calibration")
    size = data.get("size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise CalibrationError(f"{path}: 'size' must be [width, height] in pixels")
    zones = {}
    for name, points in (data.get("zones") or {}).items():
        try:
            polygon = np.asarray(points, np.float32).reshape(-1, 2)
        except ValueError:
            raise CalibrationError(f"{path}: zone {name!r} must be a list of [x, y] points") from None
        if len(polygon) < 3:
            raise CalibrationError(f"{path}: zone {name!r} needs at least 3 points")
        zones[name] = polygon
    return Calibration((size[0], size[1]), zones)
