"""The 46 card labels of the scanner (DESIGN.md), and what each means for the game."""

from __future__ import annotations

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
FACES = tuple(f"{c}-{v}" for c in COLOURS for v in range(1, 7))
BACKS = tuple(f"back-{n}" for n in (7, 8, 9, 10))
TWEAK_FACES = ("tweak-thief", "tweak-joker", "tweak-shifter", "tweak-bomb")
LABELS: tuple[str, ...] = FACES + BACKS + ("special-7",) + TWEAK_FACES + ("tweak-back",)
#: The classifier's extra class for crops that are not cards (table, hands, coins...).
NOT_A_CARD = "none"
CLASSES: tuple[str, ...] = LABELS + (NOT_A_CARD,)

assert len(LABELS) == 46


def points(label: str) -> int:
    """Points of a recognised card in a won pile (RULES R1.3); 0 for backs and the blue card.

    >>> points("red-5"), points("blue-5"), points("red-2"), points("green-1"), points("tweak-bomb")
    (5, 4, 3, 1, 2)
    """
    if label.startswith("tweak-") and label != "tweak-back":
        return 2
    if label in FACES:
        colour, value = label.split("-")
        if value == "5":
            return 5 if colour == "red" else 4
        return 3 if colour == "red" else 1
    return 0


def back_number(label: str) -> int | None:
    """The target printed on a numeric card's back (RULES R3.1), or None."""
    if label.startswith("back-"):
        return int(label.split("-")[1])
    if label == "special-7":
        return 7
    return None


def label_kind(label: str) -> str:
    """The kind of card a label is, as a network's word on labels without photos is measured by
    (``DeckProfile.network_word``): any-deck networks read faces and backs well on unseen art and
    T! cards hardly at all.

    >>> [label_kind(label) for label in ("red-5", "back-9", "tweak-joker", "tweak-back", "special-7")]
    ['faces', 'backs', 'tweak', 'tweak', 'special']
    """
    if label in FACES:
        return "faces"
    if label in BACKS:
        return "backs"
    return "tweak" if label.startswith("tweak-") else "special"


#: the kinds of card ``label_kind`` tells apart
KINDS = ("faces", "backs", "tweak", "special")
