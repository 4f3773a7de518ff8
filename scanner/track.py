"""The tracker: per-frame scans in, stable table states out.

A state is declared only once the scene has been still for ``still_seconds`` (frames with motion,
such as a hand passing over the table, reset the wait and are never trusted), and each card of the
state is voted over the still frames: present in most of them, under its most frequent label.
Each new state says what changed since the last one: cards added and removed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.metrics import quad_iou
from scanner.scan import ScannedCard, ScanResult

MOTION_SIZE = (160, 90)
CHANGED = 24  # grey levels: more than noise and flicker, less than a card or a hand


@dataclass
class TrackedCard:
    label: str
    corners: np.ndarray
    confidence: float  # mean confidence x share of votes for the label
    zone: str | None
    votes: int
    candidates: list[tuple[str, float]] = field(default_factory=list)  # readings, best first

    def key(self) -> tuple[str, str | None]:
        return self.label, self.zone


@dataclass
class StableState:
    time: float
    cards: list[TrackedCard]
    target: int | None
    added: list[TrackedCard] = field(default_factory=list)
    removed: list[TrackedCard] = field(default_factory=list)

    @property
    def labels(self) -> Counter:
        return Counter(c.label for c in self.cards)


# the same card in two frames of a still moment: a loose outline of an unfamiliar deck can slip by
# a third of the card between frames (IoU 0.43 seen), while two cards lying this much on each other
# hide each other's index (and two cards of one frame are never merged)
SAME_CARD_IOU = 0.3
WINDOW = 16  # frames a still moment's readings are voted over (about 2 s at 8 frames a second)


class Tracker:
    """Feed it ``(time, frame, scan)``; ``update`` returns a :class:`StableState` when a new one is seen.

    ``motion_threshold``: percent of the picture that must change between frames to count as motion.
    """

    def __init__(self, still_seconds: float = 0.6, motion_threshold: float = 0.2, min_share: float = 0.6) -> None:
        self.still_seconds = still_seconds
        self.motion_threshold = motion_threshold
        self.min_share = min_share
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None
        self._window: list[ScanResult] = []
        self.state: StableState | None = None
        self.moving = False

    def motion(self, frame: np.ndarray) -> float:
        """Percent of a small copy that changed by more than ``CHANGED`` levels (any channel) since the last frame.

        A share of changed pixels, not a mean difference: a hand or one card moved changes a small
        part of the picture a lot, while sensor noise changes all of it a little.
        """
        small = cv2.resize(frame, MOTION_SIZE, interpolation=cv2.INTER_AREA)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            return 0.0
        # the largest change over the channels, per pixel (OpenCV's per-channel max: a NumPy
        # reduction over a last axis of 3 costs 25 times as much)
        change = cv2.absdiff(small, previous)
        if change.ndim == 3:
            channels = cv2.split(change)
            change = channels[0]
            for channel in channels[1:]:
                change = cv2.max(change, channel)
        return float(np.count_nonzero(change > CHANGED)) * 100 / change.size

    def is_moving(self, frame: np.ndarray) -> bool:
        """Check motion first, so a caller can skip scanning frames that will not be trusted."""
        self.moving = self.motion(frame) > self.motion_threshold
        return self.moving

    @property
    def still_since(self) -> float | None:
        return self._still_since

    def update(
        self, now: float, frame: np.ndarray, scan: ScanResult | None, motion_checked: bool = False
    ) -> StableState | None:
        """Feed one frame and its scan (``motion_checked``: ``is_moving`` was just called on it)."""
        moved = self.moving if motion_checked else self.motion(frame) > self.motion_threshold
        self.moving = moved
        if moved or self._still_since is None:
            self._still_since = now
            self._window = []
            if moved or scan is None:
                return None
        self._window.append(scan)
        del self._window[:-WINDOW]  # a long still moment votes over its latest frames only
        if now - self._still_since < self.still_seconds - 1e-6:  # frame times carry rounding
            return None
        cards = self._vote()
        target_votes = Counter(s.target for s in self._window)
        target = target_votes.most_common(1)[0][0]
        if self.state is not None and _same(self.state.cards, cards) and self.state.target == target:
            return None
        added, removed = _diff(self.state.cards if self.state else [], cards)
        self.state = StableState(now, cards, target, added, removed)
        return self.state

    def _vote(self) -> list[TrackedCard]:
        """Cluster the window's cards by position; keep those seen in most frames."""
        clusters: list[list[ScannedCard]] = []
        anchors: list[np.ndarray] = []
        boxes: list[tuple[float, float, float, float]] = []  # the anchors' bounding boxes
        for scan in self._window:
            pairs = []
            own_boxes = [(*card.corners.min(axis=0), *card.corners.max(axis=0)) for card in scan.cards]
            for j, card in enumerate(scan.cards):
                x0, y0, x1, y1 = own_boxes[j]
                for i, anchor in enumerate(anchors):
                    # (quads whose boxes do not meet do not overlap: no need for the exact test)
                    bx0, by0, bx1, by1 = boxes[i]
                    if x0 <= bx1 and bx0 <= x1 and y0 <= by1 and by0 <= y1:
                        overlap = quad_iou(anchor, card.corners)
                        if overlap > SAME_CARD_IOU:
                            pairs.append((overlap, j, i))
            # each card joins the cluster it overlaps most, one card a cluster in each frame (two
            # cards of one frame are two cards, however close)
            placed: set[int] = set()
            taken: set[int] = set()
            for _, j, i in sorted(pairs, reverse=True):
                if j not in placed and i not in taken:
                    clusters[i].append(scan.cards[j])
                    placed.add(j)
                    taken.add(i)
            for j, card in enumerate(scan.cards):
                if j not in placed:
                    anchors.append(card.corners)
                    boxes.append(tuple(float(v) for v in own_boxes[j]))
                    clusters.append([card])
        frames = len(self._window)
        out = []
        for members in clusters:
            if len(members) < self.min_share * frames:
                continue
            label, n = Counter(c.label for c in members).most_common(1)[0]
            chosen = [c for c in members if c.label == label]
            confidence = float(np.mean([c.confidence for c in chosen])) * n / len(members)
            corners = np.median(np.stack([c.corners for c in chosen]), axis=0)
            out.append(TrackedCard(label, corners, confidence, chosen[0].zone, len(members), _mean_candidates(chosen)))
        return out


def _mean_candidates(chosen: list[ScannedCard]) -> list[tuple[str, float]]:
    """The readings of a card over the frames that voted for its label: each label's mean
    probability (0 in a frame that did not list it), best first."""
    total: dict[str, float] = {}
    for card in chosen:
        for label, p in card.candidates:
            total[label] = total.get(label, 0.0) + p
    return sorted(((label, p / len(chosen)) for label, p in total.items()), key=lambda lp: -lp[1])


def _same(a: list[TrackedCard], b: list[TrackedCard]) -> bool:
    return Counter(c.key() for c in a) == Counter(c.key() for c in b)


def _diff(before: list[TrackedCard], after: list[TrackedCard]) -> tuple[list[TrackedCard], list[TrackedCard]]:
    left = Counter(c.key() for c in before)
    right = Counter(c.key() for c in after)
    added_keys = right - left
    removed_keys = left - right
    added, removed = [], []
    for card in after:
        if added_keys[card.key()] > 0:
            added_keys[card.key()] -= 1
            added.append(card)
    for card in before:
        if removed_keys[card.key()] > 0:
            removed_keys[card.key()] -= 1
            removed.append(card)
    return added, removed
