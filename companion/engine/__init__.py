"""The TWEAK rules engine: pure Python, no I/O (RULES.md, RECORD.md)."""

from .cards import ALL_CARDS, Card, Colour, DeckCard, Edition, TweakKind
from .errors import RuleError
from .match import Match, RoundResult
from .setup import Deal, deal, default_colours, goal_for, next_dealer
from .state import Discard, Round, Sum, Turn, UseBomb, UseJoker, UseShifter, UseThief
from .sums import SumChoice, all_sums, best_sum

__all__ = [
    "ALL_CARDS",
    "Card",
    "Colour",
    "DeckCard",
    "Deal",
    "Discard",
    "Edition",
    "Match",
    "Round",
    "RoundResult",
    "RuleError",
    "Sum",
    "SumChoice",
    "Turn",
    "TweakKind",
    "UseBomb",
    "UseJoker",
    "UseShifter",
    "UseThief",
    "all_sums",
    "best_sum",
    "deal",
    "default_colours",
    "goal_for",
    "next_dealer",
]
