"""Won piles: score a picture of spread cards by RULES R1.3, and render such pictures to test it.

At the end of a round each player spreads their won cards face up (T! cards too, used or not);
the scanner reads them and adds up the points. Several pictures of one pile may be added up.
:func:`compare` lines the cards read up against the pile the referee tracked, card by card.

>>> score_labels(["red-5", "red-2", "blue-5", "green-1", "tweak-joker"]).points
15
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from scanner.labels import FACES, TWEAK_FACES, points

SCORED = FACES + TWEAK_FACES  # what can lie in a won pile, face up
TABLE_MM = (1000.0, 580.0)  # the virtual table (scanner.synth.table.state_scene): piles are shot from the same height
MIN_SCORE_CONFIDENCE = 0.5  # readings below this are not counted: they are listed as doubtful


@dataclass
class PileScore:
    """The cards read in a pile and their points (R1.3: T! cards 2 each, used or not)."""

    cards: Counter = field(default_factory=Counter)
    ignored: Counter = field(default_factory=Counter)  # backs and the blue card: no points, reported

    @property
    def points(self) -> int:
        return sum(points(label) * n for label, n in self.cards.items())

    def add(self, other: PileScore) -> PileScore:
        return PileScore(self.cards + other.cards, self.ignored + other.ignored)

    @staticmethod
    def sum(scores: Iterable[PileScore]) -> PileScore:
        """Several pictures of one pile (or several zones) added up."""
        out = PileScore()
        for score in scores:
            out = out.add(score)
        return out

    def breakdown(self) -> dict[str, int]:
        """Points by kind of card, as a player would count them."""
        kinds: Counter = Counter()
        for label, n in self.cards.items():
            p = points(label)
            kind = {5: "red 5", 4: "other 5s", 3: "red cards", 1: "other cards", 2: "T! cards"}[p]
            kinds[kind] += n
        return dict(kinds)

    def as_json(self) -> dict[str, Any]:
        return {
            "cards": dict(sorted(self.cards.items())),
            "count": sum(self.cards.values()),
            "points": self.points,
            "breakdown": self.breakdown(),
            "ignored": dict(sorted(self.ignored.items())),
        }


def score_labels(labels: Iterable[str]) -> PileScore:
    score = PileScore()
    for label in labels:
        if label in SCORED:
            score.cards[label] += 1
        else:
            score.ignored[label] += 1
    return score


def score_scan(result: Any, by_zone: bool = False) -> dict[str | None, PileScore]:
    """A scan's cards scored, for the whole picture (key None) or per zone (mat or calibration)."""
    groups: dict[str | None, list[str]] = {}
    for card in result.cards:
        groups.setdefault(card.zone if by_zone else None, []).append(card.label)
    return {zone: score_labels(labels) for zone, labels in groups.items()} or {None: PileScore()}


@dataclass
class Difference:
    label: str
    tracked: int
    scanned: int

    def as_json(self) -> dict[str, Any]:
        return {"card": self.label, "tracked": self.tracked, "scanned": self.scanned}


def compare(tracked: Sequence[str], scanned: PileScore) -> list[Difference]:
    """Card by card, where the scanned pile differs from the tracked one (nothing is overwritten:
    the referee decides)."""
    want = Counter(tracked)
    out = []
    for label in sorted(set(want) | set(scanned.cards)):
        if want[label] != scanned.cards[label]:
            out.append(Difference(label, want[label], scanned.cards[label]))
    return out


# --- rendered piles, for tests and the evaluation -------------------------------------------


def random_pile(rng: random.Random, n: int) -> list[str]:
    """A plausible won pile: numeric cards and a few T! cards."""
    labels = [rng.choice(FACES) for _ in range(n)]
    for i in range(n):
        if rng.random() < 0.08:
            labels[i] = rng.choice(TWEAK_FACES)
    return labels


def pile_scene(labels: Sequence[str], rng: random.Random, fanned: bool = False):
    """Cards spread face up in rows (touching allowed), or fanned like a hand with each corner
    index showing."""
    from scanner.synth.table import CARD_MM, PlacedCard, Scene

    n = len(labels)
    w, h = CARD_MM
    scene = Scene(TABLE_MM)  # the whole table: the camera stays where it is for the piles
    if fanned:
        rows = max(1, math.ceil(n / 8))
        x0 = TABLE_MM[0] / 2 - (7 * 30 + w) / 2
        y0 = TABLE_MM[1] / 2 - rows * (h + 40) / 2
        for i, label in enumerate(labels):
            row, k = divmod(i, 8)
            x = x0 + w / 2 + k * 30 + rng.uniform(-2, 2)
            y = y0 + h / 2 + row * (h + 40) + rng.uniform(-2, 2)
            scene.cards.append(PlacedCard(label, (x, y), rng.uniform(-4, 4), "centre"))
        return scene
    cols = min(8, max(3, math.ceil(math.sqrt(n * 1.6))))
    rows = math.ceil(n / cols)
    gap = rng.uniform(-2.0, 10.0)  # below 0: cards touch or overlap a little
    x0 = TABLE_MM[0] / 2 - cols * (w + gap) / 2
    y0 = TABLE_MM[1] / 2 - rows * (h + gap) / 2
    for i, label in enumerate(labels):
        row, col = divmod(i, cols)
        x = x0 + w / 2 + col * (w + gap) + rng.uniform(-3, 3)
        y = y0 + h / 2 + row * (h + gap) + rng.uniform(-3, 3)
        scene.cards.append(PlacedCard(label, (x, y), rng.uniform(-8, 8), "centre"))
    return scene


def render_pile(seed: int, n: int | None = None, fanned: bool = False, style: Any = None):
    """A photo of a spread (or fanned) won pile and its labels: ``(image, labels)``."""
    rendered, labels = render_pile_table(seed, n, fanned, style)
    return rendered.image, labels


def render_pile_table(seed: int, n: int | None = None, fanned: bool = False, style: Any = None):
    """A spread (or fanned) won pile rendered with its ground truth: ``(RenderedTable, labels)``."""
    from scanner.synth.cards import REFERENCE_STYLE
    from scanner.synth.table import draw_scene, room_conditions

    rng = random.Random(seed)
    n = n if n is not None else rng.randint(1, 24)
    labels = random_pile(rng, n)
    scene = pile_scene(labels, rng, fanned)
    cond = room_conditions(rng.choice(("wood", "felt", "cloth")), rng.randint(4200, 5800), rng.uniform(-0.15, 0.15))
    rendered = draw_scene(scene, cond, style or REFERENCE_STYLE, rng, seed)
    return rendered, labels


def points_of(labels: Sequence[str]) -> int:
    return int(np.sum([points(label) for label in labels]))
