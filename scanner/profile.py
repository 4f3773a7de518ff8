"""Deck profiles (``tweak enrol``): recognition adapted to a physical deck.

Not built yet: the option is accepted so that the command line is stable, and a profile given
today is refused with a clear message instead of being ignored.
"""

from __future__ import annotations

from pathlib import Path


class ProfileError(Exception):
    pass


def load_profile(path: Path):
    raise ProfileError(f"{path}: deck profiles (tweak enrol) are not available in this version")
