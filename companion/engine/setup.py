"""Setting up a match and a round (RULES R2, R5.5): colours, goals, dealer, deal.

>>> [c.value for c in default_colours(4)]
['red', 'orange', 'yellow', 'green', 'blue']
>>> goal_for(3)
120
>>> next_dealer(0, 3)
2
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping, Sequence

from .cards import BACK_NUMBERS, FACE_VALUES, Card, Colour, DeckCard, Edition, TweakKind
from .errors import RuleError

MIN_PLAYERS, MAX_PLAYERS = 2, 6
HAND_SIZE = 3
TABLE_DEAL = 2
#: The goal of a match by number of players (R5.5).
GOALS: Mapping[int, int] = {2: 140, 3: 120, 4: 100, 5: 80, 6: 60}
#: Target once the deck is empty: the special blue card (R1.5, R3.2).
EMPTY_DECK_TARGET = 7
#: Default order in which the "other" colours join red (R2.2).
OTHER_COLOURS: tuple[Colour, ...] = (Colour.ORANGE, Colour.YELLOW, Colour.GREEN, Colour.BLUE, Colour.PURPLE)


def check_player_count(n: int) -> None:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RuleError("R2.1", f"a match has 2 to 6 players, not {n}")


def colour_count(players: int) -> int:
    """Number of colours in play for a player count (R2.2)."""
    check_player_count(players)
    return {2: 4, 3: 4, 4: 5, 5: 6, 6: 6}[players]


def default_colours(players: int) -> list[Colour]:
    """Red plus the first "other" colours (R2.2)."""
    return [Colour.RED, *OTHER_COLOURS[: colour_count(players) - 1]]


def check_colours(colours: Sequence[Colour], players: int) -> None:
    """The player's licence (R2.2): any colours, red always in, none twice, enough to deal."""
    if Colour.RED not in colours:
        raise RuleError("R2.2", "red is always in play")
    seen: set[Colour] = set()
    for colour in colours:
        if colour in seen:
            raise RuleError("R2.2", f"colour {colour.value} is listed twice")
        seen.add(colour)
    needed = players * HAND_SIZE + TABLE_DEAL
    if len(colours) * len(FACE_VALUES) < needed:
        raise RuleError(
            "R2.4",
            f"too few colours: {len(colours)} give {len(colours) * len(FACE_VALUES)} cards; "
            f"dealing to {players} players needs {needed}",
        )


def goal_for(players: int) -> int:
    """Points a running total must reach to end the match (R5.5)."""
    check_player_count(players)
    return GOALS[players]


def next_dealer(dealer: int, players: int) -> int:
    """The next round's dealer: the player to the previous dealer's right (R2.3 clarification)."""
    return (dealer - 1) % players


def first_player(dealer: int, players: int) -> int:
    """The first player of a round is the one after the dealer (R2.3)."""
    return (dealer + 1) % players


def default_backs(colours: Sequence[Colour]) -> dict[Colour, tuple[int, ...]]:
    """Backs spread as evenly as possible over each colour (R1.2).

    The nine cards of a colour (1,1,2,2,3,3,4,5,6) get backs 7,8,9,10 cycling, starting at a
    different number for each colour so that no back number is favoured over the whole deck.
    """
    backs: dict[Colour, tuple[int, ...]] = {}
    for colour in colours:
        start = list(Colour).index(colour)
        backs[colour] = tuple(BACK_NUMBERS[(start + i) % len(BACK_NUMBERS)] for i in range(len(FACE_VALUES)))
    return backs


@dataclass(frozen=True)
class Deal:
    """The cards of a round as dealt (R2.4): the record's round line, without its bookkeeping."""

    hands: tuple[tuple[Card, ...], ...]
    table: tuple[Card, ...]
    deck: tuple[DeckCard, ...]  # top card first
    tweak_pile: tuple[TweakKind, ...]  # top card first


def deal(
    players: int,
    colours: Sequence[Colour],
    edition: Edition,
    rng: random.Random,
    backs: Mapping[Colour, Sequence[int]] | None = None,
) -> Deal:
    """Shuffle and deal a round (R2.4) with a seeded random generator.

    ``backs`` gives, per colour, the backs of its nine cards in the order of ``FACE_VALUES``.

    >>> d = deal(3, default_colours(3), Edition.CLASSIC, random.Random(1))
    >>> [len(h) for h in d.hands], len(d.table), len(d.deck), len(d.tweak_pile)
    ([3, 3, 3], 2, 25, 10)
    """
    check_player_count(players)
    check_colours(colours, players)
    backs = backs or default_backs(colours)
    cards = [
        DeckCard(Card(colour, value), back)
        for colour in colours
        for value, back in zip(FACE_VALUES, backs[colour], strict=True)
    ]
    tweaks = edition.tweak_cards()
    rng.shuffle(tweaks)
    rng.shuffle(cards)
    hands = tuple(tuple(dc.card for dc in cards[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(players))
    start = players * HAND_SIZE
    table = tuple(dc.card for dc in cards[start : start + TABLE_DEAL])
    return Deal(hands, table, tuple(cards[start + TABLE_DEAL :]), tuple(tweaks))
