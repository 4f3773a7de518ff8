"""What every stage of the scanner shares: where the shipped models live, and the base of the
scanner's errors (a caller can catch any scanner problem with one ``except ScannerError``)."""

from __future__ import annotations

from pathlib import Path

#: the shipped ONNX networks, their metadata and model cards
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


class ScannerError(Exception):
    """A scanner problem worth a clear message: a bad model, camera, calibration or profile."""
