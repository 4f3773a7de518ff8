"""A match: rounds one after another until the goal is reached (RULES R2.3, R5.5).

>>> import random
>>> from .cards import Edition
>>> m = Match(("Ana", "Ben", "Cai"))
>>> m.goal
120
>>> rnd = m.start_round(deal(3, m.default_colours(), Edition.CLASSIC, random.Random(3)), dealer=0)
>>> m.players[rnd.to_move]
'Ben'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from .cards import Colour, Edition, numeric_cards
from .errors import RuleError
from .setup import (
    HAND_SIZE,
    TABLE_DEAL,
    Deal,
    check_colours,
    check_player_count,
    deal,
    default_colours,
    goal_for,
    next_dealer,
)
from .state import Round, Turn

__all__ = ["Match", "RoundResult", "check_deal", "deal"]


@dataclass(frozen=True)
class RoundResult:
    """A finished round: its number, dealer, scores (R5.3) and TWEAKs made (R4.2), by seat."""

    number: int
    dealer: int
    scores: tuple[int, ...]
    tweaks: tuple[int, ...]


def check_deal(players: int, colours: Sequence[Colour], edition: Edition, dealt: Deal) -> None:
    """Check a deal against RULES R2.2 and R2.4 and the edition's T! cards (R1.4)."""
    try:
        check_colours(colours, players)
    except RuleError as err:
        raise RuleError(err.rule, err.message, code="bad_deal") from None
    for seat, hand in enumerate(dealt.hands):
        if len(hand) != HAND_SIZE:
            raise RuleError("R2.4", f"hand {seat + 1} has {len(hand)} cards, a hand is dealt 3", code="bad_deal")
    if len(dealt.table) != TABLE_DEAL:
        raise RuleError("R2.4", f"the table is dealt 2 cards, not {len(dealt.table)}", code="bad_deal")
    dealt_cards = Counter(c for hand in dealt.hands for c in hand)
    dealt_cards.update(dealt.table)
    dealt_cards.update(dc.card for dc in dealt.deck)
    expected = Counter(numeric_cards(colours))
    if dealt_cards != expected:
        extra = sorted((dealt_cards - expected).elements(), key=lambda c: c.name)
        missing = sorted((expected - dealt_cards).elements(), key=lambda c: c.name)
        parts = []
        if extra:
            parts.append("too many: " + ", ".join(c.name for c in extra))
        if missing:
            parts.append("missing: " + ", ".join(c.name for c in missing))
        names = ", ".join(c.value for c in colours)
        raise RuleError(
            "R2.4", f"the cards dealt are not the 9 per colour of {names} ({'; '.join(parts)})", code="bad_deal"
        )
    pile = Counter(dealt.tweak_pile)
    if pile != Counter(edition.tweak_counts):
        want = ", ".join(f"{n} {k.value}" for k, n in edition.tweak_counts.items())
        got = ", ".join(f"{pile[k]} {k.value}" for k in edition.tweak_counts)
        raise RuleError("R1.4", f"the {edition.value} T! pile is {want}; this one has {got}", code="bad_deal")


class Match:
    """Players in seating order, the edition, the goal, and the rounds played so far."""

    def __init__(self, players: Sequence[str], edition: Edition = Edition.CLASSIC, goal: int | None = None) -> None:
        check_player_count(len(players))
        self.players: tuple[str, ...] = tuple(players)
        self.edition = edition
        self.goal = goal if goal is not None else goal_for(len(players))
        self.results: list[RoundResult] = []
        self.current: Round | None = None

    def default_colours(self) -> list[Colour]:
        return default_colours(len(self.players))

    @property
    def totals(self) -> list[int]:
        """Running totals over the finished rounds (R5.5)."""
        totals = [0] * len(self.players)
        for result in self.results:
            totals = [t + s for t, s in zip(totals, result.scores)]
        return totals

    @property
    def winner(self) -> int | None:
        """R5.5: once a total reaches the goal, the single highest total wins; a tie plays on."""
        if self.current is not None and not self.current.is_over():
            return None
        totals = self.totals
        best = max(totals)
        if best < self.goal or totals.count(best) > 1:
            return None
        return totals.index(best)

    def is_over(self) -> bool:
        return self.winner is not None

    def expected_dealer(self) -> int | None:
        """The dealer the next round must have (R2.3), or None before the first round."""
        if not self.results:
            return None
        return next_dealer(self.results[-1].dealer, len(self.players))

    def start_round(
        self, dealt: Deal, dealer: int, colours: Sequence[Colour] | None = None, number: int | None = None
    ) -> Round:
        """Check and start the next round. Errors come in the record's order (RECORD.md)."""
        if self.is_over():
            name = self.players[self.winner]  # type: ignore[index]
            raise RuleError("R5.5", f"the match is over: {name} has won", code="match_over")
        if self.current is not None and not self.current.is_over():
            rnd = self.current
            raise RuleError(
                "R5.1",
                f"round {len(self.results) + 1} is not over: {rnd.deck_left} card(s) in the "
                f"deck, {sum(map(len, rnd.hands))} in hands",
                code="round_not_over",
            )
        expected_number = len(self.results) + 1
        if number is not None and number != expected_number:
            raise RuleError("R5.5", f"this is round {expected_number}, not round {number}", code="bad_deal")
        expected = self.expected_dealer()
        if expected is not None and dealer != expected:
            raise RuleError(
                "R2.3",
                f"round {expected_number} is dealt by {self.players[expected]} (to the right "
                f"of {self.players[self.results[-1].dealer]}), not {self.players[dealer]}",
                code="bad_deal",
            )
        colours = list(colours) if colours is not None else self.default_colours()
        if len(dealt.hands) != len(self.players):
            raise RuleError("R2.4", f"{len(dealt.hands)} hands dealt for {len(self.players)} players", code="bad_deal")
        check_deal(len(self.players), colours, self.edition, dealt)
        self.current = Round(self.players, dealer, dealt, self.edition)
        return self.current

    def push(self, turn: Turn) -> None:
        """Play a turn of the current round; a finished round is scored at once."""
        if self.current is None:
            raise RuleError(None, "no round has started", code="bad_record")
        self.current.push(turn)
        if self.current.is_over():
            rnd = self.current
            self.results.append(
                RoundResult(len(self.results) + 1, rnd.dealer, tuple(rnd.scores()), tuple(rnd.tweak_counts))
            )

    def pop(self) -> Turn:
        """Undo the last turn of the current round (and its result, if it ended the round)."""
        if self.current is None:
            raise IndexError("no round to undo a turn in")
        if self.current.is_over():
            self.results.pop()
        return self.current.pop()
