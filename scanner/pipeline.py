"""The scanner's pipeline: frame -> mat and zones -> card detection -> crops -> classifier ->
cards with labels, corners from the printed top-left, confidence, zone, and the target."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .classify import MIN_CONFIDENCE, CardClassifier
from .crops import card_crop, rotate_corners
from .detect import detect_cards
from .labels import back_number
from .mat import MatLayout, MatView, find_mat

TOUCHING_PENALTY = 0.8  # confidence factor for cards that touch or overlap another one


@dataclass
class ScannedCard:
    label: str
    corners: np.ndarray  # 4 x 2, clockwise from the card's printed top-left, frame pixels
    confidence: float
    zone: str | None
    touching: bool = False
    candidates: list[tuple[str, float]] = field(default_factory=list)  # the next readings, best first

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 4),
            "zone": self.zone,
        }
        if self.touching:
            out["touching"] = True
        return out


@dataclass
class ScanResult:
    cards: list[ScannedCard]
    target: int | None
    mat: MatView | None
    milliseconds: float
    rejected: int = 0  # quads the classifier called not-a-card

    def as_json(self, image: str) -> dict[str, Any]:
        return {"image": image, "cards": [c.as_json() for c in self.cards], "target": self.target}


class Scanner:
    """Turns frames into the cards on the table. One instance per camera; thread-compatible."""

    def __init__(
        self,
        classifier: CardClassifier | None = None,
        mat_layout: MatLayout | None = None,
        players: int | None = None,
        profile: Any = None,
        finder: Any = None,
        calibration: Any = None,
    ) -> None:
        self.classifier = classifier or CardClassifier()
        self.mat_layout = mat_layout
        self.players = players
        self.profile = profile
        self.finder = finder  # the learned card finder (scanner.segment), or None: classical detection
        self.calibration = calibration  # zones without a mat (scanner.calibration)

    def scan(self, frame: np.ndarray) -> ScanResult:
        started = time.perf_counter()
        mat = find_mat(frame, self.mat_layout) if self.mat_layout is not None else None
        detections = self.finder.find(frame) if self.finder is not None else detect_cards(frame)
        source = mat.normalise_colour(frame) if mat is not None else frame
        crops = [card_crop(source, d.corners, self.classifier.margin) for d in detections]
        if self.profile is not None:
            predictions = self.profile.classify(self.classifier, crops)
        else:
            predictions = self.classifier.classify(crops)
        cards: list[ScannedCard] = []
        rejected = 0
        for det, pred in zip(detections, predictions):
            if pred.label == "none":
                rejected += 1
                continue
            corners = rotate_corners(det.corners, 2) if pred.upside_down else det.corners
            confidence = pred.confidence * (TOUCHING_PENALTY if det.touching else 1.0)
            order = np.argsort(pred.probabilities)[::-1][:3]
            labels = self.classifier.labels
            candidates = [(labels[i], float(pred.probabilities[i])) for i in order if labels[i] != "none"]
            if mat is not None:
                zone = mat.zone_of(corners, self.players)
            elif self.calibration is not None:
                zone = self.calibration.zone_of(corners, (frame.shape[1], frame.shape[0]))
            else:
                zone = None
            cards.append(ScannedCard(pred.label, corners, confidence, zone, det.touching, candidates))
        target = find_target(cards)
        return ScanResult(cards, target, mat, (time.perf_counter() - started) * 1000, rejected)


def find_target(cards: list[ScannedCard]) -> int | None:
    """The target (RULES R3.1): the back of the deck's top card; 7 when only the blue card shows.

    With a mat the deck is the back in the deck zone. Without one, won piles also show backs: the
    deck is the back nearest the face-up cards in the centre (the middle of the frame's cards).
    """
    backs = [c for c in cards if back_number(c.label) is not None and c.confidence >= MIN_CONFIDENCE]
    if not backs:
        return None
    in_deck = [c for c in backs if c.zone == "deck"]
    if in_deck:
        return back_number(max(in_deck, key=lambda c: c.confidence).label)
    if any(c.zone is not None for c in cards):
        return None  # a mat is seen but its deck zone is empty
    faces = [c for c in cards if back_number(c.label) is None and not c.label.startswith("tweak")]
    anchor = np.mean([c.corners.mean(axis=0) for c in (faces or cards)], axis=0)
    nearest = min(backs, key=lambda c: float(np.linalg.norm(c.corners.mean(axis=0) - anchor)))
    return back_number(nearest.label)


def load_scanner(
    profile: str | None = None,
    mat: str | None = None,
    players: int | None = None,
    detector: str = "auto",
    calibration: str | None = None,
) -> Scanner:
    """The scanner with the shipped models; ``detector``: classical, learned, or auto (learned if shipped)."""
    from .profile import load_profile
    from .segment import DEFAULT_MODEL, CardFinder

    layout = MatLayout.paper(mat) if mat else None
    use_finder = detector == "learned" or (detector == "auto" and DEFAULT_MODEL.exists())
    finder = CardFinder() if use_finder else None
    from .calibration import load_calibration

    zones = load_calibration(Path(calibration)) if calibration else None
    return Scanner(CardClassifier(), layout, players, load_profile(Path(profile)) if profile else None, finder, zones)
