"""Cards of TWEAK as small immutable values (RULES R1).

Every numeric card of a given colour and value is the *same* object, so cards compare and hash
by identity, which keeps the engine fast:

>>> Card.parse("red-5") is Card(Colour.RED, 5)
True
>>> Card.parse("red-5").points, Card.parse("blue-5").points, Card.parse("red-2").points
(5, 4, 3)
>>> TweakKind.parse("joker").points
2
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple


class Colour(enum.Enum):
    """The six colours of the numeric cards (R1.1), in the order of the rule books."""

    RED = "red"
    ORANGE = "orange"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"

    def __repr__(self) -> str:
        return f"Colour.{self.name}"


#: Face values of the nine cards of one colour (R1.1).
FACE_VALUES: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 4, 5, 6)
#: Numbers printed on the backs of numeric cards (R1.2).
BACK_NUMBERS: tuple[int, ...] = (7, 8, 9, 10)
#: Points of a T! card in a won pile, used or not (R1.3, R5.3).
TWEAK_CARD_POINTS = 2


class Card:
    """A numeric card: a colour and a face value 1-6 (R1.1).

    Instances are interned: ``Card(Colour.RED, 5)`` always returns the same object.
    """

    __slots__ = ("colour", "value", "points", "name")
    _interned: dict[tuple[Colour, int], Card] = {}

    colour: Colour
    value: int
    points: int
    name: str

    def __new__(cls, colour: Colour, value: int) -> Card:
        try:
            return cls._interned[(colour, value)]
        except KeyError:
            raise ValueError(f"no such card: {colour!r} {value!r} (values are 1-6, R1.1)") from None

    @classmethod
    def _make(cls, colour: Colour, value: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "colour", colour)
        object.__setattr__(card, "value", value)
        object.__setattr__(card, "points", _points(colour, value))
        object.__setattr__(card, "name", f"{colour.value}-{value}")
        cls._interned[(colour, value)] = card
        return card

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Colour, int]]:
        return Card, (self.colour, self.value)

    def __repr__(self) -> str:
        return f"Card.parse({self.name!r})"

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``red-5`` (a ``/9`` back part is accepted and ignored).

        >>> Card.parse("purple-1/8")
        Card.parse('purple-1')
        """
        match = _CARD_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"unknown card {text!r} (expected e.g. 'red-5', R1.1)")
        return cls._interned[(Colour(match["colour"]), int(match["value"]))]


def _points(colour: Colour, value: int) -> int:
    """Points of a numeric card in a won pile (R1.3)."""
    if value == 5:
        return 5 if colour is Colour.RED else 4
    return 3 if colour is Colour.RED else 1


for _colour in Colour:
    for _value in range(1, 7):
        Card._make(_colour, _value)

_COLOURS_RE = "|".join(c.value for c in Colour)
_CARD_RE = re.compile(rf"(?P<colour>{_COLOURS_RE})-(?P<value>[1-6])(?:/(?P<back>7|8|9|10))?")


class DeckCard(NamedTuple):
    """A numeric card in the central deck, with the target number on its back (R1.2)."""

    card: Card
    back: int

    def __str__(self) -> str:
        return f"{self.card.name}/{self.back}"

    @classmethod
    def parse(cls, text: str) -> DeckCard:
        """Parse ``red-5/9``; the back is required here.

        >>> DeckCard.parse("red-5/9")
        DeckCard(card=Card.parse('red-5'), back=9)
        """
        match = _CARD_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"unknown card {text!r} (expected e.g. 'red-5/9', R1.2)")
        if match["back"] is None:
            raise ValueError(f"deck card {text!r} has no back (write it as '{text}/9', R1.2)")
        return cls(Card.parse(text), int(match["back"]))


class TweakKind(enum.Enum):
    """The four T! (action) cards (R1.4, R6)."""

    THIEF = "thief"
    JOKER = "joker"
    SHIFTER = "shifter"
    BOMB = "bomb"

    @property
    def points(self) -> int:
        return TWEAK_CARD_POINTS

    def __repr__(self) -> str:
        return f"TweakKind.{self.name}"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> TweakKind:
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"unknown T! card {text!r} (thief, joker, shifter, bomb; R1.4)") from None


class Edition(enum.Enum):
    """The two published editions (R1.4)."""

    CLASSIC = "classic"
    EXTENDED = "extended"

    @property
    def tweak_counts(self) -> dict[TweakKind, int]:
        return dict(_TWEAK_COUNTS[self])

    def tweak_cards(self) -> list[TweakKind]:
        """Every T! card of the edition, in a fixed order."""
        return [kind for kind, n in _TWEAK_COUNTS[self].items() for _ in range(n)]

    @classmethod
    def parse(cls, text: str) -> Edition:
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"unknown edition {text!r} (classic or extended, R1.4)") from None


_TWEAK_COUNTS = {
    Edition.CLASSIC: {TweakKind.THIEF: 4, TweakKind.JOKER: 3, TweakKind.SHIFTER: 2, TweakKind.BOMB: 1},
    Edition.EXTENDED: {TweakKind.THIEF: 5, TweakKind.JOKER: 5, TweakKind.SHIFTER: 5, TweakKind.BOMB: 2},
}

ALL_CARDS: tuple[Card, ...] = tuple(Card(c, v) for c in Colour for v in range(1, 7))


def numeric_cards(colours: list[Colour] | tuple[Colour, ...]) -> list[Card]:
    """The numeric cards of the given colours, nine per colour (R1.1)."""
    return [Card(c, v) for c in colours for v in FACE_VALUES]


def parse_any(text: str) -> Card | TweakKind:
    """Parse a numeric card or a T! card name, as game records write them."""
    if isinstance(text, str) and text in TweakKind._value2member_map_:
        return TweakKind(text)
    return Card.parse(text)
