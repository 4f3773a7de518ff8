"""Small builders for rule tests: a round from card names."""

from __future__ import annotations

from companion.engine import Card, DeckCard, Edition, Round, TweakKind
from companion.engine.setup import Deal


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def make_round(
    hands: list[str],
    table: str,
    deck: str = "",
    pile: str = "",
    dealer: int = -1,
    held: dict[int, str] | None = None,
    edition: Edition = Edition.CLASSIC,
) -> Round:
    """A round in any position: hands and table as card names, deck as 'red-1/9 ...' top first.

    ``dealer=-1`` makes seat 0 the first to play. ``held`` gives T! cards already won by a seat.
    """
    players = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay")[: len(hands)]
    deal = Deal(
        tuple(cards(h) for h in hands),
        cards(table),
        tuple(DeckCard.parse(t) for t in deck.split()),
        tuple(TweakKind.parse(t) for t in pile.split()),
    )
    rnd = Round(players, dealer % len(players), deal, edition)
    for seat, kinds in (held or {}).items():
        rnd.tweaks_held[seat].extend(TweakKind.parse(k) for k in kinds.split())
    return rnd
