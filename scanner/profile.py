"""Deck profiles (``tweak enrol``): recognition adapted to a physical deck, without PyTorch.

A few photos of each card of the user's deck are cropped by the scanner's own detector and run
through the shipped ONNX classifier; the *embeddings* (the features its scores are computed from)
of each label are averaged into prototypes, upright and turned half round. At scan time a crop's
embedding is compared with the prototypes (cosine similarity): each enrolled label loses
``weight x`` (best similarity - its similarity) from the classifier's log-probability, so a label
looks the way this deck prints it. Labels with no photos, and "not a card", are left to the shipped
model.

Profile file (JSON, ``"tweak_profile": 1``)::

    {"tweak_profile": 1,
     "model": {"version": 4, "sha256": "<of models/card_classifier.onnx>"},
     "deck": "my deck", "created": "2026-11-30T10:00:00Z",
     "weight": 10.0, "typical_similarity": 0.93,
     "labels": {"red-5": {"photos": 3, "upright": [96 floats], "turned": [96 floats]}, ...},
     "missing": ["tweak-bomb", ...]}

A profile made with another model (another version or other weights) is refused: its embeddings
would not mean the same thing.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .labels import LABELS

PROFILE_VERSION = 1
WEIGHT = 10.0  # how much a prototype match counts against the model's own log-probabilities
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class ProfileError(Exception):
    pass


def model_fingerprint(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass
class DeckProfile:
    model_version: int
    model_sha256: str
    prototypes: dict[str, np.ndarray]  # label -> 2 x D (upright, turned), L2-normalised rows
    photos: dict[str, int]
    typical_similarity: float
    weight: float = WEIGHT
    deck: str = ""
    created: str = ""
    problems: list[str] = field(default_factory=list)  # photos refused at enrolment, by name

    @property
    def missing(self) -> list[str]:
        return [label for label in LABELS if label not in self.prototypes]

    def check_model(self, classifier: Any) -> None:
        sha = model_fingerprint(classifier.path)
        if self.model_version != classifier.version or self.model_sha256 != sha:
            raise ProfileError(
                f"this deck profile was made with classifier version {self.model_version} "
                f"({self.model_sha256[:12]}), the scanner has version {classifier.version} ({sha[:12]}): "
                "enrol the deck again (tweak enrol)"
            )

    def classify(self, classifier: Any, crops: list[np.ndarray]) -> list[Any]:
        """The classifier's predictions, with each enrolled label scored also by how much the
        crop looks like this deck's photos of it."""
        from .classify import Prediction

        probs, flipped, emb = classifier.run(crops)
        if len(crops) == 0:
            return []
        labels = classifier.labels
        index = {label: i for i, label in enumerate(labels)}
        enrolled = [label for label in labels if label in self.prototypes]
        protos = np.stack([self.prototypes[label] for label in enrolled])  # L x 2 x D
        sims = np.einsum("nd,lkd->nlk", emb, protos)  # N x L x 2
        best_sim = sims.max(axis=2)  # N x L
        turned = sims.argmax(axis=2)  # N x L: 1 when the turned prototype fits better
        logp = np.log(np.maximum(probs, 1e-12))
        # an enrolled label is pushed down by how much worse it matches than the best one; labels
        # without photos (and "not a card") are left to the model, neither pushed nor pulled
        top = best_sim.max(axis=1, keepdims=True)
        bonus = np.repeat(top, logp.shape[1], axis=1)
        columns = [index[label] for label in enrolled]
        bonus[:, columns] = best_sim
        scores = logp + self.weight * (bonus - top)
        scores -= scores.max(axis=1, keepdims=True)
        post = np.exp(scores)
        post /= post.sum(axis=1, keepdims=True)
        out = []
        for n in range(len(crops)):
            b = int(post[n].argmax())
            upside = bool(flipped[n] > 0.5)
            label = labels[b]
            if label in self.prototypes and float(np.ptp(sims[n, enrolled.index(label)])) > 0.05:
                upside = bool(turned[n, enrolled.index(label)])  # the deck's own look says which way up
            out.append(Prediction(label, float(post[n, b]), upside, post[n]))
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "tweak_profile": PROFILE_VERSION,
            "model": {"version": self.model_version, "sha256": self.model_sha256},
            "deck": self.deck,
            "created": self.created,
            "weight": self.weight,
            "typical_similarity": round(self.typical_similarity, 5),
            "labels": {
                label: {
                    "photos": self.photos[label],
                    "upright": [round(float(v), 6) for v in self.prototypes[label][0]],
                    "turned": [round(float(v), 6) for v in self.prototypes[label][1]],
                }
                for label in LABELS
                if label in self.prototypes
            },
            "missing": self.missing,
            "problems": self.problems,
        }

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.as_json()) + "\n", encoding="utf-8")


def load_profile(path: Path, classifier: Any = None) -> DeckProfile:
    """Read a profile; with ``classifier``, refuse one made for another model."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ProfileError(f"{path}: cannot read the deck profile ({err.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ProfileError(f"{path}: not a deck profile (not JSON: {err})") from None
    if not isinstance(data, dict) or "tweak_profile" not in data:
        raise ProfileError(f"{path}: not a deck profile (no 'tweak_profile' field)")
    if data["tweak_profile"] != PROFILE_VERSION:
        raise ProfileError(
            f"{path}: profile format {data['tweak_profile']!r}, this version reads format {PROFILE_VERSION}"
        )
    try:
        model = data["model"]
        prototypes, photos = {}, {}
        for label, entry in data["labels"].items():
            if label not in LABELS:
                raise ProfileError(f"{path}: unknown label {label!r} in 'labels'")
            up, turned = np.asarray(entry["upright"], np.float32), np.asarray(entry["turned"], np.float32)
            if up.shape != turned.shape or up.ndim != 1:
                raise ProfileError(f"{path}: label {label!r}: 'upright' and 'turned' must be lists of the same length")
            prototypes[label] = np.stack([up, turned])
            photos[label] = int(entry["photos"])
        profile = DeckProfile(
            int(model["version"]),
            str(model["sha256"]),
            prototypes,
            photos,
            float(data["typical_similarity"]),
            float(data.get("weight", WEIGHT)),
            str(data.get("deck", "")),
            str(data.get("created", "")),
            list(data.get("problems", [])),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ProfileError(f"{path}: a required field is missing or malformed ({err})") from None
    if classifier is not None:
        profile.check_model(classifier)
    return profile


# --- enrolment -------------------------------------------------------------------------------


@dataclass
class EnrolReport:
    profile: DeckProfile
    used: int
    refused: list[str]
    seconds: float


def photos_in(folder: Path) -> dict[str, list[Path]]:
    """DIR/<label>/<photo>: the photos of each label. Unknown folder names are an error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ProfileError(f"{folder}: not a folder (expected one sub-folder per label, e.g. {folder}/red-5/)")
    out: dict[str, list[Path]] = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        if sub.name not in LABELS:
            raise ProfileError(
                f"{sub}: {sub.name!r} is not a card label (see DESIGN.md: red-5, back-7, tweak-joker...)"
            )
        out[sub.name] = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not any(out.values()):
        raise ProfileError(f"{folder}: no photos found (expected {folder}/<label>/*.jpg)")
    return out


def enrol_crops(classifier: Any, crops_by_label: dict[str, list[np.ndarray]], deck: str = "") -> DeckProfile:
    """Prototypes from card crops already cut out (upright or not: the turned copy covers both)."""
    prototypes, photos, self_sims = {}, {}, []
    for label, crops in crops_by_label.items():
        if not crops:
            continue
        turned = [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
        _, flipped, emb_a = classifier.run(crops)
        _, _, emb_b = classifier.run(turned)
        # put every photo the printed way up first (the classifier says which way up it is)
        ups = np.where(flipped[:, None] > 0.5, emb_b, emb_a)
        downs = np.where(flipped[:, None] > 0.5, emb_a, emb_b)
        proto = np.stack([_unit(ups.mean(axis=0)), _unit(downs.mean(axis=0))])
        prototypes[label] = proto
        photos[label] = len(crops)
        self_sims += list(ups @ proto[0])
    typical = float(np.median(self_sims)) if self_sims else 0.9
    return DeckProfile(
        classifier.version,
        model_fingerprint(classifier.path),
        prototypes,
        photos,
        typical,
        WEIGHT,
        deck,
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )


def enrol_folder(folder: Path, scanner: Any, deck: str = "", jitter: int = 3) -> EnrolReport:
    """``tweak enrol``: find the one card in each photo with the scanner's detector, crop it (plus
    ``jitter`` slightly shifted crops, so one photo is enough), and build the profile."""
    import cv2

    from .crops import card_crop

    started = time.perf_counter()
    by_label = photos_in(folder)
    crops: dict[str, list[np.ndarray]] = {}
    refused: list[str] = []
    rng = np.random.default_rng(0)
    used = 0
    for label, paths in by_label.items():
        for path in paths:
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                refused.append(f"{path}: cannot be read as an image")
                continue
            found = scanner.finder.find(frame) if scanner.finder is not None else _classical(frame)
            found = _drop_not_cards(found, frame, scanner.classifier)
            if len(found) != 1:
                what = "no card" if not found else f"{len(found)} cards"
                refused.append(f"{path}: {what} found, a photo must show exactly one card")
                continue
            corners = found[0].corners
            side = float(np.linalg.norm(corners[1] - corners[0]))
            pieces = [card_crop(frame, corners, scanner.classifier.margin)]
            for _ in range(jitter):
                shaken = corners + rng.normal(0, 0.03 * side, corners.shape).astype(np.float32)
                pieces.append(card_crop(frame, shaken, scanner.classifier.margin))
            crops.setdefault(label, []).extend(pieces)
            used += 1
    profile = enrol_crops(scanner.classifier, crops, deck)
    profile.problems = refused
    return EnrolReport(profile, used, refused, time.perf_counter() - started)


def _drop_not_cards(found: list[Any], frame: np.ndarray, classifier: Any) -> list[Any]:
    """Of several outlines in one photo, the ones the classifier reads as a card: a photo of one
    card on the mat should not be refused for a marker or a shadow's edge the finder half-marks.
    One outline is kept as it is, and all are when none reads as a card (an enrolled deck may look
    unlike any the model knows; the photo is then refused as showing several)."""
    if len(found) < 2:
        return found
    from .crops import card_crop

    predictions = classifier.classify([card_crop(frame, f.corners, classifier.margin) for f in found])
    return [f for f, p in zip(found, predictions) if p.is_card] or found


def _classical(frame: np.ndarray) -> list[Any]:
    from .detect import detect_cards

    return detect_cards(frame)


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)
