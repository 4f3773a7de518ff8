"""Overlap of quadrilaterals, and matching detections with ground truth (benchmarks and tests)."""

from __future__ import annotations

import cv2
import numpy as np


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a, np.float32).reshape(4, 2)
    b = np.asarray(b, np.float32).reshape(4, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    if inter <= 0:
        return 0.0
    return float(inter / (cv2.contourArea(a) + cv2.contourArea(b) - inter))


def match(truth: list[np.ndarray], found: list[np.ndarray], threshold: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by IoU; returns (truth index, found index) pairs."""
    pairs = sorted(((quad_iou(t, f), i, j) for i, t in enumerate(truth) for j, f in enumerate(found)), reverse=True)
    used_t: set[int] = set()
    used_f: set[int] = set()
    out = []
    for iou, i, j in pairs:
        if iou < threshold:
            break
        if i in used_t or j in used_f:
            continue
        used_t.add(i)
        used_f.add(j)
        out.append((i, j))
    return out


def expected_cards(truth: dict, max_occluded: float = 0.25) -> tuple[list[dict], list[dict]]:
    """(cards a detector must find, cards it may find or not): complete, visible cards are required;
    cut, covered or hidden ones are optional."""
    required, optional = [], []
    for card in truth["cards"]:
        if card["truncated"] or card["occluded"] > max_occluded:
            optional.append(card)
        else:
            required.append(card)
    return required, optional


def target_in_view(truth: dict, max_occluded: float = 0.25) -> bool:
    """Whether the card that shows the target (the deck's top back, or the blue card lying in its
    place) is in view as :func:`expected_cards` requires a card to be: a deck under a hand or cut by
    the frame cannot be read, and the tracker waits for a clear table."""
    required, _ = expected_cards(truth, max_occluded)
    return any(card["role"] in ("deck", "special") for card in required)
