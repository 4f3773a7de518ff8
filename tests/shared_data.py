"""Where the data shared beside the project lies (never committed: ``../shared``), for the tests
that measure on it; they skip, naming the folder, when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


def shared_folder(*parts: str) -> Path:
    """``../shared/<parts>``, or the calling test is skipped with the missing folder's name."""
    folder = SHARED.joinpath(*parts)
    if not folder.exists():
        pytest.skip(f"{folder} is absent (data shared beside the project, not part of it)")
    return folder
