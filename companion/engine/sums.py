"""The sum finder: which table cards make a valid sum with a hand card (RULES R4.1, R6.2).

It works on the *counts by value* of the table (at most 6 values), never on subsets of cards, so
a 20-card table costs a handful of count vectors, not 2^20 subsets.

>>> from .cards import Card
>>> table = [Card.parse(n) for n in ("red-3", "blue-3", "green-4", "yellow-2")]
>>> sorted(" + ".join(c.name for c in s) for s in all_sums(table, Card.parse("purple-2"), 9))
['blue-3 + green-4', 'red-3 + green-4']
>>> best = best_sum(table, Card.parse("purple-2"), 9)
>>> [c.name for c in best.take], best.points
(['red-3', 'green-4'], 4)
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterable, NamedTuple, Sequence

from .cards import Card

MAX_VALUE = 6


class SumChoice(NamedTuple):
    """A valid sum: the table cards taken, the Joker delta used (0: none) and their points."""

    take: tuple[Card, ...]
    delta: int
    points: int


def value_counts(cards: Iterable[Card]) -> tuple[int, ...]:
    """How many cards of each value 1-6, as a 6-tuple."""
    counts = [0] * MAX_VALUE
    for card in cards:
        counts[card.value - 1] += 1
    return tuple(counts)


@lru_cache(maxsize=65536)
def count_vectors(counts: tuple[int, ...], need: int) -> tuple[tuple[int, ...], ...]:
    """Every way to pick ``k_v <= counts[v]`` cards of each value so the values add up to ``need``.

    At least one card is picked (R4.1). Memoised: tables repeat a lot over a game.

    >>> count_vectors((2, 1, 0, 0, 0, 0), 2)
    ((0, 1, 0, 0, 0, 0), (2, 0, 0, 0, 0, 0))
    """
    if need <= 0:
        return ()
    results: list[tuple[int, ...]] = []
    picked = [0] * MAX_VALUE

    def walk(index: int, remaining: int) -> None:
        if remaining == 0:
            results.append(tuple(picked))
            return
        if index < 0:
            return
        value = index + 1
        for k in range(min(counts[index], remaining // value), -1, -1):
            picked[index] = k
            walk(index - 1, remaining - k * value)
        picked[index] = 0

    walk(MAX_VALUE - 1, need)
    return tuple(results)


def _by_value(table: Sequence[Card]) -> list[list[Card]]:
    groups: list[list[Card]] = [[] for _ in range(MAX_VALUE)]
    for card in table:
        groups[card.value - 1].append(card)
    for group in groups:
        group.sort(key=lambda c: -c.points)
    return groups


def all_sums(table: Sequence[Card], hand: Card, target: int) -> list[tuple[Card, ...]]:
    """Every distinct multiset of table cards that makes ``hand`` add up to ``target`` (R4.1)."""
    groups = _by_value(table)
    found: list[tuple[Card, ...]] = []
    for vector in count_vectors(value_counts(table), target - hand.value):
        per_value = [
            sorted(set(itertools.combinations(groups[i], k)), key=lambda t: [c.name for c in t])
            for i, k in enumerate(vector)
            if k
        ]
        for parts in itertools.product(*per_value):
            found.append(tuple(card for part in parts for card in part))
    return found


def best_sum(table: Sequence[Card], hand: Card, target: int, joker: bool = False) -> SumChoice | None:
    """The valid sum that wins the most points (ties: more cards), or None.

    With ``joker`` the target may also be moved by +1 or -1 (R6.2); ``delta`` tells which.
    A TWEAK (the whole table) is always the best when it is possible: it is a superset.
    """
    groups = _by_value(table)
    counts = tuple(len(g) for g in groups)
    best: SumChoice | None = None
    best_key = (-1, -1)
    for delta in (0, 1, -1) if joker else (0,):
        for vector in count_vectors(counts, target + delta - hand.value):
            points = 0
            n = 0
            for i, k in enumerate(vector):
                if k:
                    group = groups[i]
                    for j in range(k):
                        points += group[j].points
                    n += k
            key = (points, n)
            if key > best_key:
                best_key = key
                best = SumChoice(tuple(c for i, k in enumerate(vector) for c in groups[i][:k]), delta, points)
    return best


def can_sum(table: Sequence[Card], hand: Card, target: int) -> bool:
    """Whether any valid sum exists (R4.1)."""
    return bool(count_vectors(value_counts(table), target - hand.value))
