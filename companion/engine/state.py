"""One round of TWEAK as a state object: legal turns, ``push`` a turn, ``pop`` it back.

In the manner of python-chess's ``Board``: small immutable actions, one mutable state, every
refusal a :class:`RuleError` that names its rule and the cards and numbers involved.

>>> import random
>>> from .setup import deal, default_colours
>>> from .cards import Edition
>>> rnd = Round(("Ana", "Ben"), dealer=0, deal=deal(2, default_colours(2), Edition.CLASSIC, random.Random(7)))
>>> rnd.player_name(rnd.to_move), rnd.target
('Ben', 8)
>>> turn = next(iter(rnd.legal_turns()))
>>> rnd.push(turn); len(rnd.history)
1
>>> rnd.pop() == turn, len(rnd.history)
(True, 0)
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from typing import Iterator, Sequence, Union

from .cards import Card, DeckCard, Edition, TweakKind
from .errors import RuleError
from .setup import EMPTY_DECK_TARGET, HAND_SIZE, TABLE_DEAL, Deal, first_player
from .sums import all_sums

# --- Actions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sum:
    """One hand card plus one or more table cards adding up to the target (R4.1)."""

    hand: Card
    take: tuple[Card, ...]


@dataclass(frozen=True)
class Discard:
    """One hand card put face up on the table (R4.3)."""

    card: Card


@dataclass(frozen=True)
class UseThief:
    """R6.1: a card of ``victim``'s hand (the observed ``stolen`` one) goes onto the table."""

    victim: int
    stolen: Card
    kind = TweakKind.THIEF


@dataclass(frozen=True)
class UseJoker:
    """R6.2: the target of this turn moves by ``delta`` (+1 or -1)."""

    delta: int
    kind = TweakKind.JOKER


@dataclass(frozen=True)
class UseShifter:
    """R6.3: the deck's top card goes onto the table; the next one sets the target."""

    kind = TweakKind.SHIFTER


@dataclass(frozen=True)
class UseBomb:
    """R6.4: every other player holding cards puts one of them onto the table."""

    cards: tuple[tuple[int, Card], ...]  # (victim, card), by seat
    kind = TweakKind.BOMB


TweakUse = Union[UseThief, UseJoker, UseShifter, UseBomb]
Play = Union[Sum, Discard]


@dataclass(frozen=True)
class Turn:
    """What a player does on their turn: at most one T! card, then a sum or a discard (R4)."""

    player: int
    play: Play
    tweak: TweakUse | None = None


def _names(cards: Sequence[Card]) -> str:
    return ", ".join(c.name for c in cards) if cards else "nothing"


# --- The round -----------------------------------------------------------------------------


class Round:
    """The state of one round, from the deal (R2.4) to its end (R5.1)."""

    def __init__(self, players: Sequence[str], dealer: int, deal: Deal, edition: Edition = Edition.CLASSIC) -> None:
        self.players: tuple[str, ...] = tuple(players)
        self.dealer = dealer
        self.edition = edition
        n = len(self.players)
        if len(deal.hands) != n:
            raise RuleError("R2.4", f"{len(deal.hands)} hands dealt for {n} players", code="bad_deal")
        self.hands: list[list[Card]] = [list(h) for h in deal.hands]
        self.table: list[Card] = list(deal.table)
        self.deck: tuple[DeckCard, ...] = tuple(deal.deck)
        self.deck_pos = 0
        self.tweak_pile: tuple[TweakKind, ...] = tuple(deal.tweak_pile)
        self.tweak_pos = 0
        self.tweaks_held: list[list[TweakKind]] = [[] for _ in range(n)]
        self.tweaks_used: list[list[TweakKind]] = [[] for _ in range(n)]
        self.won: list[list[Card]] = [[] for _ in range(n)]
        self.tweak_counts: list[int] = [0] * n
        self.lost_turns: list[int] = []  # players who lost a turn with an empty hand (R4.7)
        # Where each card left the deck, in order: (deck index, player who drew it, or None for the
        # table). The referee uses it to tell which dealt card a hidden hand card is.
        self.draws: list[tuple[int, int | None]] = []
        self.history: list[Turn] = []
        self._undo: list[tuple] = []
        self.to_move: int | None = first_player(dealer, n)

    # -- reading the state ------------------------------------------------------------------

    def player_name(self, index: int | None) -> str:
        return "nobody" if index is None else self.players[index]

    @property
    def deck_left(self) -> int:
        return len(self.deck) - self.deck_pos

    @property
    def target(self) -> int:
        """The back of the deck's top card (R3.1), or 7 once the deck is empty (R3.2)."""
        if self.deck_pos < len(self.deck):
            return self.deck[self.deck_pos].back
        return EMPTY_DECK_TARGET

    @property
    def tweak_pile_left(self) -> int:
        return len(self.tweak_pile) - self.tweak_pos

    def is_over(self) -> bool:
        """R5.1: the deck is empty and every hand is empty."""
        return self.to_move is None

    def tweaks_won(self, player: int) -> list[TweakKind]:
        return self.tweaks_held[player] + self.tweaks_used[player]

    def scores(self) -> list[int]:
        """R5.3: points of the won pile (R1.3) plus 2 per T! card won, used or not."""
        return [
            sum(c.points for c in won) + 2 * (len(held) + len(used))
            for won, held, used in zip(self.won, self.tweaks_held, self.tweaks_used)
        ]

    def copy(self) -> Round:
        """An independent copy without the undo stack."""
        other = object.__new__(Round)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.table = list(self.table)
        other.tweaks_held = [list(t) for t in self.tweaks_held]
        other.tweaks_used = [list(t) for t in self.tweaks_used]
        other.won = [list(w) for w in self.won]
        other.tweak_counts = list(self.tweak_counts)
        other.lost_turns = list(self.lost_turns)
        other.draws = list(self.draws)
        other.history = list(self.history)
        other._undo = []
        return other

    # -- legal actions ----------------------------------------------------------------------

    def legal_tweak_uses(self) -> list[TweakUse]:
        """Every T! use open to the player to move (R4.5, R6), one entry per distinct outcome."""
        player = self.to_move
        if player is None or not self.hands[player]:
            return []  # R6.6
        uses: list[TweakUse] = []
        held = set(self.tweaks_held[player])
        if TweakKind.JOKER in held:
            uses += [UseJoker(1), UseJoker(-1)]
        if TweakKind.SHIFTER in held and self.deck_left:
            uses.append(UseShifter())
        others = [i for i in range(len(self.players)) if i != player and self.hands[i]]
        if TweakKind.THIEF in held:
            uses += [UseThief(v, c) for v in others for c in dict.fromkeys(self.hands[v])]
        if TweakKind.BOMB in held:
            choices = [[(v, c) for c in dict.fromkeys(self.hands[v])] for v in others]
            uses += [UseBomb(tuple(combo)) for combo in itertools.product(*choices)]
        return uses

    def legal_plays(self, delta: int = 0) -> Iterator[Play]:
        """Every sum (R4.1) and discard (R4.3) for the player to move, target moved by ``delta``."""
        player = self.to_move
        if player is None:
            return
        hand = list(dict.fromkeys(self.hands[player]))
        target = self.target + delta
        for card in hand:
            for take in all_sums(self.table, card, target):
                yield Sum(card, take)
        for card in hand:
            yield Discard(card)

    def legal_turns(self) -> Iterator[Turn]:
        """Every legal turn: no T! card or each legal T! use, then each sum and discard."""
        player = self.to_move
        if player is None:
            return
        for play in self.legal_plays():
            yield Turn(player, play)
        for use in self.legal_tweak_uses():
            after = self.copy()
            after._apply_tweak(player, use)
            delta = use.delta if isinstance(use, UseJoker) else 0
            for play in after.legal_plays(delta):
                yield Turn(player, play, use)

    def is_legal(self, turn: Turn) -> bool:
        try:
            self.push(turn)
        except RuleError:
            return False
        self.pop()
        return True

    # -- checking and applying --------------------------------------------------------------

    def _check_player(self, turn: Turn) -> None:
        if self.to_move is None:
            raise RuleError("R5.1", "the round is over: the deck and every hand are empty", code="round_over")
        if turn.player != self.to_move:
            raise RuleError(
                "R2.1",
                f"it is {self.players[self.to_move]}'s turn, not {self.player_name(turn.player)}'s",
                code="wrong_player",
            )

    def _check_tweak(self, player: int, use: TweakUse) -> None:
        name = self.players[player]
        if use.kind not in self.tweaks_held[player]:
            used = " (already used, R6)" if use.kind in self.tweaks_used[player] else ""
            raise RuleError("R4.5", f"{name} holds no unused {use.kind.value}{used}", code="tweak_not_held")
        if isinstance(use, UseJoker):
            if use.delta not in (1, -1):
                raise RuleError("R6.2", f"a Joker moves the target by +1 or -1, not {use.delta:+d}", code="bad_tweak")
        elif isinstance(use, UseShifter):
            if not self.deck_left:
                raise RuleError("R6.3", "the Shifter cannot be used: the central deck is empty", code="bad_tweak")
        elif isinstance(use, UseThief):
            victim = use.victim
            if victim == player:
                raise RuleError("R6.1", f"{name} cannot use the Thief on themself", code="bad_tweak")
            if not 0 <= victim < len(self.players):
                raise RuleError("R6.1", f"no player {victim} to rob", code="bad_tweak")
            vname = self.players[victim]
            if not self.hands[victim]:
                raise RuleError("R6.1", f"the Thief needs a player with cards; {vname} holds none", code="bad_tweak")
            if use.stolen not in self.hands[victim]:
                raise RuleError(
                    "R6.1",
                    f"{vname} does not hold {use.stolen.name} (holds {_names(self.hands[victim])})",
                    code="bad_tweak",
                )
        elif isinstance(use, UseBomb):
            expected = {i for i in range(len(self.players)) if i != player and self.hands[i]}
            given = [v for v, _ in use.cards]
            if len(set(given)) != len(given) or set(given) != expected:
                want = ", ".join(self.players[i] for i in sorted(expected)) or "nobody"
                got = ", ".join(self.players[i] for i in given if 0 <= i < len(self.players)) or "nobody"
                raise RuleError(
                    "R6.4",
                    f"the Bomb hits every other player holding cards ({want}), not {got}",
                    code="bad_tweak",
                )
            for victim, card in use.cards:
                if card not in self.hands[victim]:
                    raise RuleError(
                        "R6.4",
                        f"{self.players[victim]} does not hold {card.name} (holds {_names(self.hands[victim])})",
                        code="bad_tweak",
                    )

    def _apply_tweak(self, player: int, use: TweakUse) -> None:
        self.tweaks_held[player].remove(use.kind)
        self.tweaks_used[player].append(use.kind)
        if isinstance(use, UseThief):
            self.hands[use.victim].remove(use.stolen)
            self.table.append(use.stolen)
        elif isinstance(use, UseShifter):
            self.table.append(self.deck[self.deck_pos].card)
            self.draws.append((self.deck_pos, None))
            self.deck_pos += 1
        elif isinstance(use, UseBomb):
            for victim, card in use.cards:
                self.hands[victim].remove(card)
                self.table.append(card)

    def _check_play(self, player: int, play: Play, delta: int) -> None:
        hand = self.hands[player]
        name = self.players[player]
        if isinstance(play, Discard):
            if play.card not in hand:
                raise RuleError(
                    "R4.3", f"{play.card.name} is not in {name}'s hand ({_names(hand)})", code="not_in_hand"
                )
            return
        if play.hand not in hand:
            raise RuleError("R4.1", f"{play.hand.name} is not in {name}'s hand ({_names(hand)})", code="not_in_hand")
        if not play.take:
            raise RuleError(
                "R4.1",
                f"a sum takes at least one table card; {play.hand.name} alone is not a sum",
                code="no_table_card",
            )
        on_table = Counter(self.table)
        for card, n in Counter(play.take).items():
            if on_table[card] < n:
                times = f" {n} times" if n > 1 else ""
                raise RuleError(
                    "R4.1", f"{card.name}{times} is not on the table ({_names(self.table)})", code="not_on_table"
                )
        total = play.hand.value + sum(c.value for c in play.take)
        target = self.target + delta
        if total != target:
            terms = " + ".join(c.name for c in (play.hand, *play.take))
            joker = f" ({self.target} {delta:+d} with the Joker)" if delta else ""
            raise RuleError("R4.1", f"{terms} = {total}, but the target is {target}{joker}", code="wrong_sum")

    def _refill(self, player: int) -> None:
        """R4.6: the hand to 3 first, then 2 cards onto an empty table, while the deck lasts."""
        hand = self.hands[player]
        deck = self.deck
        while len(hand) < HAND_SIZE and self.deck_pos < len(deck):
            hand.append(deck[self.deck_pos].card)
            self.draws.append((self.deck_pos, player))
            self.deck_pos += 1
        if not self.table:
            while len(self.table) < TABLE_DEAL and self.deck_pos < len(deck):
                self.table.append(deck[self.deck_pos].card)
                self.draws.append((self.deck_pos, None))
                self.deck_pos += 1

    def _advance(self, after: int) -> None:
        """Pass play on: lost turns refill (R4.7), empty hands are skipped once the deck is gone."""
        n = len(self.players)
        candidate = after
        while True:
            if self.deck_pos >= len(self.deck) and not any(self.hands):
                self.to_move = None  # R5.1
                return
            candidate = (candidate + 1) % n
            if self.hands[candidate]:
                self.to_move = candidate
                return
            if self.deck_pos < len(self.deck):
                self.lost_turns.append(candidate)  # R4.7: loses the turn, still refills
                self._refill(candidate)

    def push(self, turn: Turn) -> None:
        """Check ``turn`` and play it; on a refusal the state is left as it was.

        Checks run in the order a turn is played (RECORD.md): the player, the T! card, then the
        play against the table the T! card left.
        """
        self._check_player(turn)
        player = turn.player
        snapshot = (
            [list(h) for h in self.hands],
            list(self.table),
            self.deck_pos,
            self.tweak_pos,
            [list(t) for t in self.tweaks_held],
            [list(t) for t in self.tweaks_used],
            [len(w) for w in self.won],
            list(self.tweak_counts),
            len(self.lost_turns),
            self.to_move,
            len(self.draws),
        )
        delta = 0
        try:
            if turn.tweak is not None:
                self._check_tweak(player, turn.tweak)
                self._apply_tweak(player, turn.tweak)
                if isinstance(turn.tweak, UseJoker):
                    delta = turn.tweak.delta
            self._check_play(player, turn.play, delta)
        except RuleError:
            self._restore(snapshot)
            raise
        play = turn.play
        hand = self.hands[player]
        if isinstance(play, Discard):
            hand.remove(play.card)
            self.table.append(play.card)
        else:
            hand.remove(play.hand)
            table = self.table
            for card in play.take:
                table.remove(card)
            self.won[player].append(play.hand)
            self.won[player].extend(play.take)
            if not table:  # R4.2: a TWEAK; an empty T! pile still clears the table
                self.tweak_counts[player] += 1
                if self.tweak_pos < len(self.tweak_pile):
                    self.tweaks_held[player].append(self.tweak_pile[self.tweak_pos])
                    self.tweak_pos += 1
        self._refill(player)
        self._advance(player)
        self.history.append(turn)
        self._undo.append(snapshot)

    def _restore(self, snapshot: tuple) -> None:
        (
            self.hands,
            self.table,
            self.deck_pos,
            self.tweak_pos,
            self.tweaks_held,
            self.tweaks_used,
            won_lengths,
            self.tweak_counts,
            lost,
            self.to_move,
            draws,
        ) = snapshot
        for pile, n in zip(self.won, won_lengths):
            del pile[n:]
        del self.lost_turns[lost:]
        del self.draws[draws:]

    def pop(self) -> Turn:
        """Undo the last turn and return it."""
        if not self.history:
            raise IndexError("pop from a round with no turns")
        self._restore(self._undo.pop())
        return self.history.pop()

    def is_tweak(self, turn: Turn) -> bool:
        """Whether ``turn`` (legal here) would be a TWEAK: a sum that takes the whole table (R4.2)."""
        if not isinstance(turn.play, Sum):
            return False
        table = Counter(self.table)
        if isinstance(turn.tweak, (UseThief, UseBomb, UseShifter)):
            after = self.copy()
            after._apply_tweak(turn.player, turn.tweak)
            table = Counter(after.table)
        return Counter(turn.play.take) == table
