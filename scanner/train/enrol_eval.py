"""Evaluation of deck enrolment on the art style kept out of training.

A "deck" is one held-out style (``random_style(heldout=True)``), fixed. Its enrolment photos are
renders of one card lying anywhere on a table at any angle; its test set is crops of every card of
rendered table scenes in the same style (corners a few pixels off, as the detector gives them).
Accuracy is measured zero-shot (the shipped model alone) and with profiles from 1 and 3 photos
per label; enrolment itself is timed through ``tweak enrol``'s code on a folder of photos.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scanner.geometry.crops import card_crop, rotate_corners
from scanner.labels import LABELS

MAX_OCCLUDED = 0.25


def card_photo(label: str, style: Any, seed: int, zoom: float = 1.0) -> np.ndarray:
    """One card on a table, anywhere, at any angle, in everyday light (an enrolment photo);
    ``zoom``: the camera that many times nearer, the card that many times nearer the photo's middle
    (in the photo's share) than at the mount's height, as a person taking it close keeps it whole."""
    return card_photo_and_corners(label, style, seed, zoom)[0]


def card_photo_and_corners(label: str, style: Any, seed: int, zoom: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``card_photo``, and the card's true corners in it."""
    from dataclasses import replace

    from scanner.synth.table import PlacedCard, Scene, draw_scene, random_conditions

    rng = random.Random(seed)
    scene = Scene((1000.0, 580.0))
    x, y = rng.uniform(250, 750), rng.uniform(150, 430)
    centre = (500 + (x - 500) / zoom**2, 290 + (y - 290) / zoom**2)  # (the view is 1 / zoom as wide)
    scene.cards.append(PlacedCard(label, centre, rng.uniform(0, 360), "centre"))
    cond = random_conditions(rng, harsh=False)
    rendered = draw_scene(scene, replace(cond, zoom=zoom) if zoom != 1.0 else cond, style, rng, seed)
    return rendered.image, np.array(rendered.truth["cards"][0]["corners"], np.float32)


def enrol_photos(
    style: Any,
    folder: Path,
    finder: Any = None,
    deck: int = 1,
    retakes: int = 2,
    shots: int = 1,
    zoom: float = 1.0,
    heed_advice: bool = True,
) -> int:
    """One photo of each label of ``style``'s deck in ``folder``/<label>/0.jpg, taken as a user
    would: a photo enrolment refuses (``card_outlines``: no card, two cards, no edge showing) is
    taken again elsewhere on the table in other light, up to ``retakes`` times, as the refusal
    asks; then, unless ``heed_advice`` is False, so is a photo ``tweak enrol`` advises against
    among the deck's (``photo_advice``: the card burnt white by glare beyond the deck's usual),
    with the takes left. The last is kept whatever it shows. ``shots`` > 1: as many photos of each
    card, each elsewhere in other light (<label>/1.jpg, ...; those are kept as taken). ``zoom``:
    each photo taken that many times nearer than the mount's height (``card_photo``). Returns the
    photos taken again."""
    from scanner.read.profile import burnt_beyond_usual, burnt_share, card_outlines

    jpeg = [cv2.IMWRITE_JPEG_QUALITY, 92]

    def seed(k: int, attempt: int) -> int:
        return 7_000_000 + 100 * deck + k + RETAKE_SEEDS * attempt

    def take(k: int, label: str, first: int) -> tuple[int, bytes, float | None]:
        """The first photo enrolment does not refuse from take ``first`` on (or the last take), and
        its card's burnt share as stored (None: refused)."""
        for attempt in range(first, retakes + 1):
            photo = card_photo(label, style, seed(k, attempt), zoom)
            stored = cv2.imencode(".jpg", photo, jpeg)[1]
            outlines = card_outlines(photo, finder)[0] if attempt < retakes or heed_advice else []
            if outlines or attempt == retakes:
                share = burnt_share(cv2.imdecode(stored, cv2.IMREAD_COLOR), outlines[0]) if outlines else None
                return attempt, stored.tobytes(), share
        raise AssertionError("unreachable")

    taken = {label: take(k, label, 0) for k, label in enumerate(LABELS)}
    while heed_advice:
        shares = [share for _, _, share in taken.values() if share is not None]
        usual = float(np.median(shares)) if shares else 0.0
        again = [
            label
            for label, (attempt, _, share) in taken.items()
            if attempt < retakes and share is not None and burnt_beyond_usual(share, usual)
        ]
        if not again:
            break
        for label in again:
            taken[label] = take(LABELS.index(label), label, taken[label][0] + 1)
    for k, label in enumerate(LABELS):
        (folder / label).mkdir(parents=True, exist_ok=True)
        (folder / label / "0.jpg").write_bytes(taken[label][1])
        for shot in range(1, shots):  # (seeds after every retake's)
            photo = card_photo(label, style, seed(k, retakes + shot), zoom)
            cv2.imwrite(str(folder / label / f"{shot}.jpg"), photo, jpeg)
    return sum(attempt for attempt, _, _ in taken.values())


def enrol_layout_photos(
    style: Any, folder: Path, deck: int = 1, shots: int = 1, scanner: Any = None, retakes: int = 2
) -> int:
    """Photos of the whole deck laid out in the standard layout's rows (``layout.STANDARD_LAYOUT``:
    two photos), each with its layout list, in ``folder`` (``sheet-<k>-<shot>.jpg`` and ``.txt``);
    ``shots``: the layout laid and photographed that many times, each in other light. With a
    ``scanner``, a photo whose rows do not match the list (``layout.name_cards`` refuses it) is
    laid and taken again, up to ``retakes`` times, as the refusal asks; the last is kept whatever
    it shows. Returns the photos taken again."""
    from scanner.read.layout import STANDARD_LAYOUT, LayoutError, layout_text, name_cards
    from scanner.synth.table import render_layout

    folder.mkdir(parents=True, exist_ok=True)
    retaken = 0
    for shot in range(shots):
        for k, rows in enumerate(STANDARD_LAYOUT):
            laid = [list(row) for row in rows]
            for attempt in range(retakes + 1):
                seed = 7_500_000 + 100 * deck + 10 * shot + k + RETAKE_SEEDS * attempt
                photo = render_layout(laid, style, seed).image
                if scanner is None or attempt == retakes:
                    break
                try:
                    name_cards(photo, laid, scanner, "photo")
                    break
                except LayoutError:
                    retaken += 1
            stem = folder / f"sheet-{k + 1}-{shot + 1}"
            cv2.imwrite(str(stem.with_suffix(".jpg")), photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
            stem.with_suffix(".txt").write_text(layout_text(rows), encoding="utf-8")
    return retaken


RETAKE_SEEDS = 100_000  # a retaken photo's seed: the first one's plus this for each retake


def table_crops(style: Any, scenes: int, first: int) -> tuple[list[np.ndarray], list[str]]:
    """Crops of the cards of rendered tables in ``style``, harsh light (corners off by up to 9 %), and labels."""
    from scanner.synth.table import render_table

    crops, labels = [], []
    for seed in range(first, first + scenes):
        rendered = render_table(seed, harsh=True, style=style, uniform_labels=True)
        rng = np.random.default_rng(seed)
        for card in rendered.truth["cards"]:
            if card["truncated"] or card["occluded"] > MAX_OCCLUDED:
                continue
            corners = np.array(card["corners"], np.float32)
            side = float(np.linalg.norm(corners[1] - corners[0]))
            corners = corners + rng.normal(0, 0.09 * side * rng.random() / 2, corners.shape).astype(np.float32)
            if rng.random() < 0.5:
                corners = rotate_corners(corners, 2)
            crops.append(card_crop(rendered.image, corners))
            labels.append(card["label"])
    return crops, labels


def accuracy(predict, crops: list[np.ndarray], labels: list[str]) -> float:
    right = 0
    for i in range(0, len(crops), 256):
        preds = predict(crops[i : i + 256])
        right += sum(p.label == y for p, y in zip(preds, labels[i : i + 256]))
    return right / max(1, len(crops))


def evaluate_deck(scanner: Any, deck_seed: int, scenes: int = 40, log=print) -> dict[str, Any]:
    from scanner.read.profile import enrol_folder, load_profile
    from scanner.synth.cards import random_style

    style = random_style(random.Random(deck_seed), heldout=True)
    crops, labels = table_crops(style, scenes, 900_000 + deck_seed * 1000)
    clf = scanner.classifier
    out: dict[str, Any] = {"deck": deck_seed, "cards": len(crops)}
    out["zero_shot"] = accuracy(clf.classify, crops, labels)
    for photos in (1, 3):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "deck"
            for k, label in enumerate(LABELS):
                (folder / label).mkdir(parents=True)
                for j in range(photos):
                    image = card_photo(label, style, deck_seed * 100_000 + k * 10 + j)
                    cv2.imwrite(str(folder / label / f"{j}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            started = time.perf_counter()
            report = enrol_folder(folder, scanner)
            seconds = time.perf_counter() - started
            path = Path(tmp) / "profile.json"
            report.profile.save(path)
            profile = load_profile(path, clf)
        out[f"photos_{photos}"] = accuracy(lambda c, p=profile: p.classify(clf, c), crops, labels)
        out[f"enrol_seconds_{photos}"] = round(seconds, 1)
        out[f"refused_{photos}"] = len(report.refused)
        log(
            f"deck {deck_seed}: {photos} photo(s) per label: accuracy {out[f'photos_{photos}']:.4f} "
            f"(zero-shot {out['zero_shot']:.4f}), enrolment {seconds:.1f} s, {len(report.refused)} photos refused"
        )
    return out
