"""The cards a deck profile was learned from, kept beside it (``deck-profile.cards/<label>/1.png``):
flat card images (``adapt.card_image``), as the enrolment wizard confirmed them. A profile holds
only what was learned, not the cards, so without them a later *Save* (more cards, a second read of
a card, a new model that needs the deck learned again) could only learn from the new reads and
would lose the earlier ones.

>>> import tempfile
>>> tmp = tempfile.TemporaryDirectory()
>>> folder = kept_folder(Path(tmp.name) / "deck-profile.json")
>>> card = np.full((280, 200, 3), 200, np.uint8)
>>> [p.name for p in keep_cards(folder, {"red-5": [card, card]})]
['1.png', '2.png']
>>> [str(p.relative_to(folder)) for p in keep_cards(folder, {"red-5": [card], "back-8": [card]})]
['red-5/3.png', 'back-8/1.png']
>>> {label: len(cards) for label, cards in kept_cards(folder).items()}
{'red-5': 3, 'back-8': 1}
>>> forget_cards(folder, "red-5")
3
>>> kept_counts(folder)
{'back-8': 1}
>>> tmp.cleanup()
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

from scanner.labels import LABELS
from scanner.read.profile import ProfileError

SUFFIX = ".png"  # lossless: the cards are learned again from these exact pixels


def kept_folder(profile: Path | str) -> Path:
    """Where the cards of the profile at ``profile`` are kept: beside it, ``<name>.cards``."""
    path = Path(profile)
    return path.with_name(path.stem + ".cards")


def _numbered(sub: Path) -> list[Path]:
    return sorted((p for p in sub.glob("*" + SUFFIX) if p.stem.isdigit()), key=lambda p: int(p.stem))


def _label_folders(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    subs = sorted(p for p in folder.iterdir() if p.is_dir())
    for sub in subs:
        if sub.name not in LABELS:
            raise ProfileError(f"{sub}: {sub.name!r} is not a card label (kept cards are <label>/<n>.png)")
    return subs


def kept_counts(folder: Path) -> dict[str, int]:
    """How many cards are kept of each label (labels in DESIGN.md's order)."""
    counts = {sub.name: len(_numbered(sub)) for sub in _label_folders(Path(folder))}
    return {label: counts[label] for label in LABELS if counts.get(label)}


def kept_cards(folder: Path) -> dict[str, list[np.ndarray]]:
    """The kept card images by label; an unreadable one is an error naming it (not skipped: the
    profile learned from it, and learning again without it would read its card differently)."""
    import cv2

    out: dict[str, list[np.ndarray]] = {}
    for sub in _label_folders(Path(folder)):
        for path in _numbered(sub):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise ProfileError(f"{path}: cannot be read as an image (forget {sub.name}'s cards, or delete it)")
            out.setdefault(sub.name, []).append(image)
    return {label: out[label] for label in LABELS if label in out}


def keep_cards(folder: Path, cards_by_label: dict[str, list[np.ndarray]]) -> list[Path]:
    """Add card images to the kept ones, numbered after those already there; the files written.
    Each is written to a temporary name first, so a card kept is whole or absent, and a failed
    write removes those this call wrote: all are kept or none."""
    for label in cards_by_label:
        if label not in LABELS:
            raise ProfileError(f"{label!r} is not a card label")
    written: list[Path] = []
    try:
        _write(Path(folder), cards_by_label, written)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return written


def _write(folder: Path, cards_by_label: dict[str, list[np.ndarray]], written: list[Path]) -> None:
    import cv2

    for label, cards in cards_by_label.items():
        sub = folder / label
        sub.mkdir(parents=True, exist_ok=True)
        taken = _numbered(sub)
        number = int(taken[-1].stem) if taken else 0
        for card in cards:
            number += 1
            part = sub / f".{number}{SUFFIX}.part"
            ok, encoded = cv2.imencode(SUFFIX, card)
            if not ok:
                raise ProfileError(f"{label}: a card image could not be encoded")
            part.write_bytes(encoded.tobytes())
            os.replace(part, sub / f"{number}{SUFFIX}")
            written.append(sub / f"{number}{SUFFIX}")


def replace_cards(folder: Path, cards_by_label: dict[str, list[np.ndarray]]) -> dict[str, int]:
    """Keep exactly these cards (``tweak enrol``: a profile learned afresh from a folder of
    photos), written beside the old ones first, which are removed only once all are written; how
    many of each label are kept."""
    folder = Path(folder)
    fresh = folder.with_name(folder.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    keep_cards(fresh, cards_by_label)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(fresh, folder)
    return kept_counts(folder)


def forget_cards(folder: Path, label: str) -> int:
    """Remove the kept cards of ``label``; how many there were."""
    if label not in LABELS:
        raise ProfileError(f"{label!r} is not a card label")
    sub = Path(folder) / label
    if not sub.is_dir():
        return 0
    count = len(_numbered(sub))
    shutil.rmtree(sub)
    return count
