"""What the referee reads from one still moment of the table: a :class:`TableView`.

The scanner's tracker gives cards with labels and positions; here they become the game's terms:
the face-up numeric cards (the centre), the target (the back on the deck), and each seat's T!
cards, face up (held) or face down (used). Seats are found by angle around the middle of the
picture: the first player sits at the bottom edge, the next ones clockwise, evenly spread (the
layout the printed mat and the README ask for).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from companion.engine.cards import Card, Colour, TweakKind

LOW_CONFIDENCE = 0.6  # below this a reading is doubted: the move that uses it is asked, not guessed
NOISE_CONFIDENCE = 0.35  # below this a quad is not taken for a card at all (a split or a reflection)
# ... but such a quad this long against the table's cards, in the centre on no card read, may be
# a card laid that the camera cannot read (Seating._faint_cards)
FAINT_CARD_LENGTH = (0.75, 1.33)
COVERED = 0.3  # a quad with this share of its area on a card kept is a part or a second outline of it


@dataclass(frozen=True)
class SeenCard:
    card: Card
    position: tuple[float, float]
    confidence: float = 1.0
    alternatives: tuple[Card, ...] = ()  # other readings of the same card, best first
    odds: tuple[float, ...] = ()  # the probability of each alternative, where the reader gave one


@dataclass(frozen=True)
class SeenTweak:
    """A T! card in front of a player: face up (its kind) or face down (``kind`` None, used)."""

    kind: TweakKind | None
    position: tuple[float, float]
    seat: int  # the seat its angle points to (the referee prefers the owner it saw win the card)
    confidence: float = 1.0  # of its face's reading (a used one's back: 1)
    off_seat: float = 0.0  # how far its angle lies from that seat's direction, in seats (0 to 0.5)


@dataclass
class TableView:
    """One still moment of the table in the game's terms."""

    time: float
    centre: list[SeenCard]
    target: int | None  # None: the deck's back could not be read
    deck_empty: bool = False
    held: list[Counter] = field(default_factory=list)  # per seat: face-up T! kinds
    used: list[int] = field(default_factory=list)  # per seat: face-down T! cards
    confidence: float = 1.0
    tweaks: list[SeenTweak] = field(default_factory=list)
    card_length: float = 100.0  # pixels
    # numbers laid in front of a seat (Thief, Bomb): card, seat by angle, position
    given: list[tuple[Card, int, tuple[float, float]]] = field(default_factory=list)
    # the reader's own bar for a doubtful reading (a deck profile's); None: LOW_CONFIDENCE
    doubt_below: float | None = None
    # where a card lies in the centre, away from the deck and the T! pile, that was read as no
    # number (a back, the empty deck's 7, a T! card): a number misread, or something that is not
    # a card; the referee decides which
    unread: list[tuple[float, float]] = field(default_factory=list)

    @property
    def cards(self) -> Counter:
        return Counter(s.card for s in self.centre)

    def doubtful(self) -> list[SeenCard]:
        bar = LOW_CONFIDENCE if self.doubt_below is None else self.doubt_below
        return [s for s in self.centre if s.confidence < bar]


def parse_card(label: str) -> Card | None:
    colour, _, value = label.partition("-")
    try:
        return Card(Colour(colour), int(value))
    except ValueError:
        return None


class Seating:
    """Turns tracked cards into :class:`TableView`: seats by angle, deck and T! pile by place.

    The deck and the T! pile are where their backs lay in the first still moment of the round.
    """

    def __init__(self, players: int, frame_size: tuple[int, int], zones: Any = None) -> None:
        """``zones``: a calibration (``scanner.geometry.calibration``) with a "centre" zone, if there is one:
        face-up numbers outside it are then not centre cards (a T! card misread, a card in a hand)."""
        self.players = players
        self.frame_size = frame_size
        self.zones = zones
        self.middle = np.array(frame_size, np.float64) / 2
        self.deck_at: np.ndarray | None = None
        self.pile_at: np.ndarray | None = None
        self.card_length: float | None = None

    def seat_of(self, point: np.ndarray) -> int:
        return self._seat_and_offset(point)[0]

    def _seat_and_offset(self, point: np.ndarray) -> tuple[int, float]:
        """The seat ``point``'s angle points to, and how far off that seat's direction (in seats)."""
        dx, dy = point - self.middle
        angle = math.degrees(math.atan2(dy, dx))  # image axes: 90 is straight down
        place = ((angle - 90) % 360) / (360 / self.players)
        return int(round(place)) % self.players, abs(place - round(place))

    def view(
        self, time: float, cards: Sequence[Any], doubt_below: float | None = None, target: int | None = None
    ) -> TableView:
        """``cards``: objects with ``label``, ``corners`` (4x2), ``confidence`` and optional ``candidates``
        and ``zone``; ``doubt_below``: the reader's own bar for a doubtful reading (``Scanner.doubt_below``);
        ``target``: the scanner's target (the tracker's vote), used where it read one."""
        scanned_target = target
        faint = [c for c in cards if c.confidence < NOISE_CONFIDENCE]
        cards = _clean(cards)
        centres = [np.asarray(c.corners, np.float64).reshape(4, 2).mean(axis=0) for c in cards]
        if self.card_length is None and cards:
            sides = [
                np.linalg.norm(np.diff(np.asarray(c.corners).reshape(4, 2)[[0, 1, 2]], axis=0), axis=1).max()
                for c in cards
            ]
            self.card_length = float(np.median(sides))
        reach = 0.6 * (self.card_length or 100.0)
        backs = [(c, x) for c, x in zip(cards, centres) if c.label.startswith("back-") or c.label == "special-7"]
        piles = [(c, x) for c, x in zip(cards, centres) if c.label == "tweak-back"]
        if self.deck_at is None and backs:
            self.deck_at = min((x for _, x in backs), key=lambda x: float(np.linalg.norm(x - self.middle)))
        if self.pile_at is None and piles:
            self.pile_at = min((x for _, x in piles), key=lambda x: float(np.linalg.norm(x - self.middle)))
        target, empty = None, False
        if self.deck_at is not None:
            near = [(c, x) for c, x in backs if np.linalg.norm(x - self.deck_at) < reach]
            if near:
                top = max(near, key=lambda cx: cx[0].confidence)[0]
                if top.label == "special-7":
                    target, empty = 7, True
                else:
                    target = int(top.label.split("-")[1])
        if scanned_target is not None and not empty:
            target = scanned_target  # (the scanner's own choice of the deck, not decided twice)
        held = [Counter() for _ in range(self.players)]
        used = [0] * self.players
        centre: list[SeenCard] = []
        tweaks: list[SeenTweak] = []
        given: list[tuple[Card, int, tuple[float, float]]] = []
        unread: list[tuple[float, float]] = []
        confidence = 1.0
        for card, at in zip(cards, centres):
            label = card.label
            xy = (float(at[0]), float(at[1]))
            if label.startswith("tweak-") and label != "tweak-back":
                if self._stray_tweak(card, at, reach):
                    unread.append(xy)
                kind = TweakKind(label.split("-", 1)[1])
                seat, off = self._seat_and_offset(at)
                held[seat][kind] += 1
                tweaks.append(SeenTweak(kind, xy, seat, float(card.confidence), off))
            elif label == "tweak-back":
                if self.pile_at is None or np.linalg.norm(at - self.pile_at) >= reach:
                    used[self.seat_of(at)] += 1
                    tweaks.append(SeenTweak(None, xy, self.seat_of(at)))
            else:
                face = parse_card(label)
                if face is None:
                    if self._stray_back(card, at, reach):
                        unread.append(xy)
                    continue
                if not self._in_centre(card):
                    given.append((face, self.seat_of(at), (float(at[0]), float(at[1]))))
                    continue
                others = [
                    (alt, float(p))
                    for alt, p in ((parse_card(lab), p) for lab, p in getattr(card, "candidates", ()) if lab != label)
                    if alt
                ]
                centre.append(
                    SeenCard(
                        face,
                        (float(at[0]), float(at[1])),
                        float(card.confidence),
                        tuple(alt for alt, _ in others),
                        tuple(p for _, p in others),
                    )
                )
            confidence = min(confidence, float(card.confidence))
        unread += self._faint_cards(faint, cards, reach)
        length = self.card_length or 100.0
        return TableView(
            time, centre, target, empty, held, used, confidence, tweaks, length, given, doubt_below, unread
        )

    def _faint_cards(self, faint: Sequence[Any], kept: Sequence[Any], reach: float) -> list[tuple[float, float]]:
        """Where a card-sized quad read too faintly to name lies in the centre zone, on no card
        read and away from the deck and the T! pile: a card laid there that the camera cannot read
        (a discard in a light it reads poorly), on which a move may rest."""
        out: list[tuple[float, float]] = []
        if self.card_length is None:
            return out
        for card in faint:
            quad = np.asarray(card.corners, np.float64).reshape(4, 2)
            at = quad.mean(axis=0)
            long_side = float(np.linalg.norm(np.diff(quad[[0, 1, 2]], axis=0), axis=1).max())
            low, high = FAINT_CARD_LENGTH
            if not low <= long_side / self.card_length <= high or not self._in_centre(card):
                continue
            if any(p is not None and float(np.linalg.norm(at - p)) < reach for p in (self.deck_at, self.pile_at)):
                continue
            if _covered(quad, kept):
                continue
            out.append((float(at[0]), float(at[1])))
        return out

    def _stray_back(self, card: Any, at: np.ndarray, reach: float) -> bool:
        """A card read as a back (or the empty deck's 7) in the centre, away from the deck."""
        if not (card.label.startswith("back-") or card.label == "special-7") or not self._in_centre(card):
            return False
        return self.deck_at is None or float(np.linalg.norm(at - self.deck_at)) >= reach

    def _stray_tweak(self, card: Any, at: np.ndarray, reach: float) -> bool:
        """A T! card read face up in the centre zone, away from the T! pile: a T! card is won into
        a player's place, so it is more likely a number misread (only where zones are known)."""
        if (getattr(card, "zone", None) is None and self.zones is None) or not self._in_centre(card):
            return False
        return self.pile_at is None or float(np.linalg.norm(at - self.pile_at)) >= reach

    def _in_centre(self, card: Any) -> bool:
        zone = getattr(card, "zone", None)  # the scanner's zone for the card, where it knows one
        if zone is not None:
            return zone == "centre"
        return self.zones is None or self.zones.zone_of(card.corners, self.frame_size) == "centre"


def _covered(quad: np.ndarray, kept: Sequence[Any]) -> bool:
    """Whether ``quad`` lies mostly (``COVERED``) on one of the ``kept`` cards' quads."""
    import cv2

    quad = np.asarray(quad, np.float32).reshape(4, 2)
    area = abs(cv2.contourArea(quad))
    for other in kept:
        inter, _ = cv2.intersectConvexConvex(quad, np.asarray(other.corners, np.float32).reshape(4, 2))
        if area > 0 and inter > COVERED * area:
            return True
    return False


def _clean(cards: Sequence[Any]) -> list[Any]:
    """Drop quads too doubtful to be a card, and weaker quads lying mostly on a better one."""
    kept: list[Any] = []
    for card in sorted(cards, key=lambda c: -c.confidence):
        if card.confidence >= NOISE_CONFIDENCE and not _covered(card.corners, kept):
            kept.append(card)
    return kept
