"""A round as the companion sees it: the rules engine's :class:`Round`, with the hidden cards solved.

At a real table the hands and the deck order are unknown. :class:`ObservedRound` keeps a guessed
deal in which every card not yet seen sits in a *hidden slot* (a dealt hand card or a deck
position). When a card is revealed (played from a hand, stolen, bombed, turned onto the table from
the deck, or a T! card won) the guess is fixed by swapping faces between hidden slots only, so
everything seen earlier stays true, and the slot is pinned. Every rule is checked by the engine's
``Round.push``: there is no second copy of a rule here.

>>> from companion.engine import Card, Colour, Edition
>>> from companion.engine.state import Turn, Discard
>>> seen = ObservedRound(["Ana", "Ben"], 0, None, Edition.CLASSIC, table=[Card(Colour.RED, 2), Card(Colour.GREEN, 3)])
>>> seen.observe_target(9)
>>> seen.push(ObservedTurn(Turn(1, Discard(Card(Colour.GREEN, 6)))))
>>> [c.name for c in seen.round.table], seen.round.player_name(seen.round.to_move)
(['red-2', 'green-3', 'green-6'], 'Ana')
>>> seen.observe_target(9)
>>> print(seen.check(ObservedTurn(Turn(0, Sum(Card(Colour.RED, 1), (Card(Colour.GREEN, 6),))))))
R4.1: red-1 + green-6 = 7, but the target is 9
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Sequence, Union

from companion.engine.cards import Card, Colour, DeckCard, Edition, TweakKind, numeric_cards
from companion.engine.errors import RuleError
from companion.engine.record import dumps, parse_turn, round_line, turn_line
from companion.engine.setup import HAND_SIZE, TABLE_DEAL, Deal, check_colours, default_colours
from companion.engine.state import Discard, Round, Sum, Turn, UseBomb, UseShifter, UseThief

Slot = Union[tuple[str, int, int], tuple[str, int]]  # ("h", seat, i): a dealt hand card; ("d", index): the deck
UNKNOWN_BACK = 7  # a back nobody saw (a card drawn in the same refill as others); it never set a target


@dataclass(frozen=True)
class ObservedTurn:
    """A turn as seen: the engine's :class:`Turn` plus what it revealed besides its own cards."""

    turn: Turn
    table_reveals: tuple[Card, ...] = ()  # deck cards turned onto the table by the refill after a TWEAK (R4.6)
    shifted: Card | None = None  # the deck card a Shifter turned onto the table (R6.3)
    shifted_target: int | None = None  # the target the Shifter uncovered (R6.3)
    tweak_won: TweakKind | None = None  # the T! card seen in front of the player after a TWEAK
    confidence: float = 1.0
    target_after: int | None = None  # the target seen once the turn was over
    late: tuple[tuple[Card, Card], ...] = ()  # (guess, card): a refill card never seen was this card


@dataclass
class _Solver:
    faces: dict[Slot, Card] = field(default_factory=dict)
    backs: dict[int, int] = field(default_factory=dict)
    pinned: set[Slot] = field(default_factory=set)
    tweak_pile: list[TweakKind] = field(default_factory=list)
    tweak_pinned: set[int] = field(default_factory=set)


class ObservedRound:
    """One round followed from the table. ``round`` is the engine's state with the hidden cards guessed."""

    def __init__(
        self,
        players: Sequence[str],
        dealer: int,
        colours: Sequence[Colour] | None,
        edition: Edition,
        table: Sequence[Card],
    ) -> None:
        self.players = tuple(players)
        self.dealer = dealer
        self.edition = edition
        self.colours = list(colours) if colours is not None else default_colours(len(self.players))
        check_colours(self.colours, len(self.players))
        if len(table) != TABLE_DEAL:
            raise RuleError("R2.4", f"the table is dealt 2 cards, {len(table)} are seen", code="bad_deal")
        left = Counter(numeric_cards(self.colours))
        missing = Counter(table) - left
        if missing:
            names = ", ".join(c.name for c in missing)
            raise RuleError("R2.2", f"{names} is not a card of the colours in play", code="bad_deal")
        self.initial_table = tuple(table)
        self.turns: list[ObservedTurn] = []
        self._replaying = False  # rebuild is pushing the turns again
        # the hidden faces changed during the turn being pushed (slot, face before), to be undone
        # with the engine's state if the turn is refused
        self._face_changes: list[tuple[Slot, Card]] = []
        self.targets: dict[int, int] = {}  # turns played -> the target seen before the next one
        # table cards turned from the deck whose faces were never seen (guesses): by a refill
        # (R4.6) or by a Shifter (R6.3, a move tapped in, or the card never read)
        self.unseen: Counter = Counter()
        self._unseen_from: list[tuple[Card, int]] = []  # each refill's guess and the turn that turned it
        self._shifted_unseen: list[tuple[Card, int]] = []  # each Shifter's guess and the turn that used it
        self._reset()

    # -- the guessed deal ------------------------------------------------------------------

    def _reset(self) -> None:
        self.unseen = Counter()
        self._unseen_from = []
        self._shifted_unseen = []
        n = len(self.players)
        hidden = sorted((Counter(numeric_cards(self.colours)) - Counter(self.initial_table)).elements(), key=_order)
        solver = _Solver()
        slots: list[Slot] = [("h", p, i) for p in range(n) for i in range(HAND_SIZE)]
        slots += [("d", i) for i in range(len(hidden) - n * HAND_SIZE)]
        for slot, card in zip(slots, hidden, strict=True):
            solver.faces[slot] = card
        solver.tweak_pile = list(self.edition.tweak_cards())
        self._solver = solver
        self._tweak_winners: dict[int, int] = {}  # T! pile position -> the player who won it
        self._tweak_turns: dict[int, int] = {}  # T! pile position -> the turn (0-based) that won it
        self.hand_slots: list[list[Slot]] = [[("h", p, i) for i in range(HAND_SIZE)] for p in range(n)]
        self.round = Round(self.players, self.dealer, self.deal(), self.edition)
        self._apply_target()

    def deal(self) -> Deal:
        """The deal as solved so far (hidden cards guessed, unseen backs set to 7)."""
        s = self._solver
        n = len(self.players)
        hands = tuple(tuple(s.faces[("h", p, i)] for i in range(HAND_SIZE)) for p in range(n))
        size = sum(1 for slot in s.faces if slot[0] == "d")
        deck = tuple(DeckCard(s.faces[("d", i)], s.backs.get(i, UNKNOWN_BACK)) for i in range(size))
        return Deal(hands, self.initial_table, deck, tuple(s.tweak_pile))

    def _set_face(self, slot: Slot, card: Card) -> None:
        """Change a hidden slot's face in the guess and wherever the live engine state holds it."""
        old = self._solver.faces[slot]
        self._solver.faces[slot] = card
        self._face_changes.append((slot, old))
        rnd = self.round
        if slot[0] == "d":
            deck = list(rnd.deck)
            deck[slot[1]] = DeckCard(card, deck[slot[1]].back)
            rnd.deck = tuple(deck)
            if slot[1] >= rnd.deck_pos:
                return
            if not any(slot in slots for slots in self.hand_slots):
                rnd.table[rnd.table.index(old)] = card  # a card just turned onto the table
                return
        for p, slots in enumerate(self.hand_slots):
            if slot in slots:
                rnd.hands[p][rnd.hands[p].index(old)] = card
                return

    def _undo_faces(self, changes: list[tuple[Slot, Card]]) -> None:
        """Put back the faces of ``changes`` (latest first) in the guess and in the deck (the
        engine's own snapshot has put back its hands and table)."""
        deck = list(self.round.deck)
        for slot, old in reversed(changes):
            self._solver.faces[slot] = old
            if slot[0] == "d":
                deck[slot[1]] = DeckCard(old, deck[slot[1]].back)
        self.round.deck = tuple(deck)

    def _hidden_slots(self) -> list[Slot]:
        """Unpinned slots still out of sight now: in a hand or in the deck."""
        s = self._solver
        in_hands = [slot for slots in self.hand_slots for slot in slots]
        in_deck = [("d", i) for i in range(self.round.deck_pos, len(self.round.deck))]
        return [slot for slot in in_hands + in_deck if slot not in s.pinned]

    def _reveal(self, slot_choices: list[Slot], card: Card, rule: str, where: str, pins: list[Slot]) -> Slot:
        """Make one of ``slot_choices`` show ``card`` (by a swap with a hidden slot) and pin it."""
        s = self._solver
        for slot in slot_choices:
            if slot not in s.pinned and s.faces[slot] == card:
                s.pinned.add(slot)
                pins.append(slot)
                return slot
        free = [slot for slot in slot_choices if slot not in s.pinned]
        if free:
            donors = [slot for slot in self._hidden_slots() if slot not in slot_choices and s.faces[slot] == card]
            if donors:
                mine, theirs = free[0], donors[0]
                old = s.faces[mine]
                self._set_face(theirs, old)
                self._set_face(mine, card)
                s.pinned.add(mine)
                pins.append(mine)
                return mine
        raise RuleError(
            rule, f"{card.name} cannot be {where}: every {card.name} of the deck is already seen", code="not_in_hand"
        )

    def _apply_target(self) -> None:
        """Pin the back on top of the deck to the target seen before the next turn (R3.1)."""
        seen = self.targets.get(len(self.turns))
        rnd = self.round
        if seen is None or not rnd.deck_left:
            return
        self._solver.backs[rnd.deck_pos] = seen
        self._set_back(rnd.deck_pos, seen)

    def _set_back(self, position: int, back: int) -> None:
        """The back of the deck card at ``position`` in the engine's state (the face stays)."""
        deck = list(self.round.deck)
        deck[position] = DeckCard(deck[position].card, back)
        self.round.deck = tuple(deck)

    # -- what is seen ----------------------------------------------------------------------

    def observe_target(self, target: int) -> None:
        """The target read from the deck's top back now (before the next turn)."""
        self.targets[len(self.turns)] = target
        self._apply_target()

    def check(self, observed: ObservedTurn) -> RuleError | None:
        """The rule ``observed`` breaks, or None; the state is left as it was, ``round`` (the
        engine's state object, which callers may hold) included."""
        if observed.late:
            # a late refill replays the whole round (a new ``round``): try it on a copy
            trial = ObservedRound(self.players, self.dealer, self.colours, self.edition, self.initial_table)
            trial.targets = dict(self.targets)
            trial.rebuild(self.turns)
        else:
            # tried on an exact copy: pushed and popped here, the round would be rebuilt from its
            # turns, and the faces guessed for cards never seen can come out otherwise than the
            # ones shown (a move checked against one table, then played against another)
            trial = copy.deepcopy(self)
        try:
            trial.push(observed)
        except RuleError as err:
            return err
        return None

    def refill_unseen(self, index: int) -> Counter:
        """The guesses among the cards turn ``index`` (0-based) turned from the deck onto the table
        by its refill (R4.6) that still lie there."""
        return Counter(card for card, k in self._unseen_from if k == index) & self.unseen

    def _apply_late(self, observed: ObservedTurn) -> None:
        """A card turned from the deck that the camera never saw is now known (from the sum that
        took it): the turn that turned it (its refill, or its Shifter) gets its face, and the round
        is replayed."""
        saved = list(self.turns)
        turns = list(saved)
        origins, shifts = list(self._unseen_from), list(self._shifted_unseen)
        for guess, card in observed.late:
            match = next((o for o in origins if o[0] == guess), None)
            shift = next((o for o in shifts if o[0] == guess), None) if match is None else None
            if match is None and shift is None:
                raise RuleError(
                    "R4.6", f"{guess.name} is not a card of the table that was never seen", code="bad_refill"
                )
            if match is not None:
                origins.remove(match)
                turns[match[1]] = replace(turns[match[1]], table_reveals=turns[match[1]].table_reveals + (card,))
            else:
                shifts.remove(shift)
                turns[shift[1]] = replace(turns[shift[1]], shifted=card)
        try:
            self.rebuild(turns)
        except RuleError:
            self.rebuild(saved)
            raise

    def push(self, observed: ObservedTurn) -> None:
        """Play a seen turn through the engine; on a refusal nothing changes (the error says why)."""
        if observed.late:
            saved = list(self.turns)
            self._apply_late(observed)
            try:
                self.push(replace(observed, late=()))
            except RuleError:
                self.rebuild(saved)
                raise
            return
        rnd = self.round
        turn = observed.turn
        pins: list[Slot] = []
        saved_slots = [list(h) for h in self.hand_slots]
        draws_before = len(rnd.draws)
        tweak_before = rnd.tweak_pos
        backs_before, deck_before = dict(self._solver.backs), rnd.deck
        guesses_before = (Counter(self.unseen), list(self._unseen_from), list(self._shifted_unseen))
        pushed = False
        tweak_fixed = None
        outer_changes, self._face_changes = self._face_changes, []
        changed_before_push = 0
        try:
            rnd._check_player(turn)
            tweak_fixed = self._reveal_tweak_use(turn)
            self._reveal_turn_cards(turn, pins)
            shifter = isinstance(turn.tweak, UseShifter) and rnd.deck_left
            if shifter:  # the Shifter turns the deck's top card up before the play (R6.3)
                self._reveal_shifted(observed, pins)
            changed_before_push = len(self._face_changes)
            rnd.push(turn)
            pushed = True
            self._follow_draws(turn, draws_before)
            self._reveal_table(observed, draws_before + (1 if shifter else 0), pins)
            if observed.tweak_won is not None and rnd.tweak_pos > tweak_before:
                self._reveal_tweak(tweak_before, observed.tweak_won)
        except RuleError:
            if pushed:
                rnd.pop()
                # the engine's hands and table are back as they were before its push, but the faces
                # guessed since (a card revealed on the table, a drawn card) are the solver's and the
                # deck's: undone too, or the guess and the engine's state part ways
                self._undo_faces(self._face_changes[changed_before_push:])
            for slot in pins:
                self._solver.pinned.discard(slot)
            self.hand_slots = saved_slots
            for position in set(self._solver.backs) - set(backs_before):  # a back only this turn showed
                del self._solver.backs[position]
                self._set_back(position, deck_before[position].back)
            if tweak_fixed is not None:
                self._undo_tweak_use(*tweak_fixed)
            self.unseen, self._unseen_from, self._shifted_unseen = guesses_before
            raise
        finally:
            self._face_changes = outer_changes
        for position in range(tweak_before, rnd.tweak_pos):
            self._tweak_winners[position] = turn.player
            self._tweak_turns[position] = len(self.turns)
        self.turns.append(observed)
        # a guessed refill card a sum took is off the table: a move taking a guess is asked
        # (Referee._decide), so its face is settled with that move and no longer a guess
        self.unseen &= Counter(self.round.table)
        # (replayed, a turn keeps the target seen after it: a still view of the deck once the
        # player had drawn says more than the one the turn was settled on)
        if observed.target_after is not None and not (self._replaying and len(self.turns) in self.targets):
            self.targets[len(self.turns)] = observed.target_after
        self._apply_target()

    def _reveal_shifted(self, observed: ObservedTurn, pins: list[Slot]) -> None:
        rnd = self.round
        top: Slot = ("d", rnd.deck_pos)
        below = rnd.deck_pos + 1
        uncovered = observed.shifted_target
        play = observed.turn.play
        if uncovered is None and isinstance(play, Sum) and below not in self._solver.backs:
            # not seen (a move tapped in): the sum made against the new target shows it (R6.3, R4.1)
            uncovered = play.hand.value + sum(card.value for card in play.take)
        if uncovered is not None and below < len(rnd.deck):
            self._solver.backs[below] = uncovered
            self._set_back(below, uncovered)
        shifted = observed.shifted
        if shifted is None and isinstance(play, Sum):
            # not seen (a move tapped in): the one card the sum takes that was not on the table
            # is the one the Shifter turned up (R6.3)
            off_table = Counter(play.take) - Counter(rnd.table)
            if sum(off_table.values()) == 1:
                shifted = next(iter(off_table))
        if shifted is None:  # not seen: the guess stands (pinned), and it is a guess
            self._solver.pinned.add(top)
            pins.append(top)
            self.unseen[self._solver.faces[top]] += 1
            self._shifted_unseen.append((self._solver.faces[top], len(self.turns)))
        else:
            self._reveal([top], shifted, "R6.3", "the deck's top card", pins)

    def _reveal_turn_cards(self, turn: Turn, pins: list[Slot]) -> None:
        p = turn.player
        if isinstance(turn.tweak, UseThief):
            v = turn.tweak.victim
            if 0 <= v < len(self.players) and v != p:
                self._reveal(self.hand_slots[v], turn.tweak.stolen, "R6.1", f"in {self.players[v]}'s hand", pins)
        elif isinstance(turn.tweak, UseBomb):
            for v, card in turn.tweak.cards:
                if 0 <= v < len(self.players) and v != p:
                    self._reveal(self.hand_slots[v], card, "R6.4", f"in {self.players[v]}'s hand", pins)
        card = turn.play.card if isinstance(turn.play, Discard) else turn.play.hand
        self._reveal(self.hand_slots[p], card, "R4.1", f"in {self.players[p]}'s hand", pins)

    def _follow_draws(self, turn: Turn, draws_before: int) -> None:
        """Move the revealed slots out of the hands, and the drawn deck slots into them."""
        s = self._solver

        def leave(p: int, card: Card) -> None:
            slots = self.hand_slots[p]
            pinned = [x for x in slots if s.faces[x] == card and x in s.pinned]
            slots.remove((pinned or [x for x in slots if s.faces[x] == card])[0])

        if isinstance(turn.tweak, UseThief):
            leave(turn.tweak.victim, turn.tweak.stolen)
        elif isinstance(turn.tweak, UseBomb):
            for v, card in turn.tweak.cards:
                leave(v, card)
        play = turn.play
        leave(turn.player, play.card if isinstance(play, Discard) else play.hand)
        for index, player in self.round.draws[draws_before:]:
            if player is not None:
                self.hand_slots[player].append(("d", index))

    def _reveal_table(self, observed: ObservedTurn, draws_before: int, pins: list[Slot]) -> None:
        """Deck cards that went onto the table show what was seen there (R4.6, R6.3)."""
        to_table = [("d", index) for index, player in self.round.draws[draws_before:] if player is None]
        wanted = sorted(observed.table_reveals, key=_order)
        if len(wanted) > len(to_table):
            raise RuleError(
                "R4.6",
                f"{len(wanted)} cards were seen turned from the deck, the rules turn {len(to_table)}",
                code="bad_refill",
            )
        for slot in to_table:  # the ones that already show a wanted card keep it
            face = self._solver.faces[slot]
            if face in wanted:
                wanted.remove(face)
                self._solver.pinned.add(slot)
                pins.append(slot)
        for slot in [x for x in to_table if x not in pins]:
            if wanted:
                self._reveal([slot], wanted.pop(0), "R4.6", "turned from the deck", pins)
            else:  # not seen: the guess stands (pinned so no swap changes it), and it is marked unseen
                self._solver.pinned.add(slot)
                pins.append(slot)
                self.unseen[self._solver.faces[slot]] += 1
                self._unseen_from.append((self._solver.faces[slot], len(self.turns)))

    def tweaks_guessed(self, player: int) -> Counter:
        """The kinds of ``player``'s T! cards that rest on the guessed order of the T! pile: won
        while nobody saw their face, and not used since (a use shows the kind:
        ``_reveal_tweak_use``). A referee must not take these for known (R4.2, R4.5)."""
        s = self._solver
        unseen = Counter(
            s.tweak_pile[position]
            for position, winner in self._tweak_winners.items()
            if winner == player and position not in s.tweak_pinned
        )
        return Counter(self.round.tweaks_held[player]) & unseen

    def _reveal_tweak_use(self, turn: Turn) -> tuple | None:
        """A T! card used whose face was not seen when it was won (so its kind was a guess from the
        pile's order): the use shows its kind, and the guess is fixed now (R4.5, R6)."""
        use = turn.tweak
        rnd = self.round
        if use is None or use.kind in rnd.tweaks_held[turn.player]:
            return None
        s = self._solver
        pile = s.tweak_pile
        held = rnd.tweaks_held[turn.player]
        for position, winner in self._tweak_winners.items():
            if winner != turn.player or position in s.tweak_pinned or pile[position] not in held:
                continue
            for j in range(rnd.tweak_pos, len(pile)):
                if j not in s.tweak_pinned and pile[j] == use.kind:
                    saved = (list(pile), [list(h) for h in rnd.tweaks_held], position)
                    held[held.index(pile[position])] = use.kind
                    pile[position], pile[j] = pile[j], pile[position]
                    rnd.tweak_pile = tuple(pile)
                    s.tweak_pinned.add(position)
                    return saved
        return None

    def _undo_tweak_use(self, pile: list[TweakKind], held: list[list[TweakKind]], position: int) -> None:
        self._solver.tweak_pile[:] = pile
        self.round.tweak_pile = tuple(pile)
        for now, before in zip(self.round.tweaks_held, held):
            now[:] = before
        self._solver.tweak_pinned.discard(position)

    def _reveal_tweak(self, position: int, kind: TweakKind) -> None:
        """The T! card won at ``position`` of the pile was seen to be ``kind``: fix the guess."""
        s = self._solver
        pile = s.tweak_pile
        if pile[position] != kind:
            for j in range(position + 1, len(pile)):
                if j not in s.tweak_pinned and pile[j] == kind:
                    pile[position], pile[j] = pile[j], pile[position]
                    break
            else:
                raise RuleError("R1.4", f"no {kind.value} is left in the T! pile", code="bad_tweak")
            rnd = self.round
            rnd.tweak_pile = tuple(pile)
            winner = rnd.history[-1].player
            rnd.tweaks_held[winner][-1] = kind
        s.tweak_pinned.add(position)

    def pop(self) -> ObservedTurn:
        """Take the last turn back: the state is recomputed from the turns before it."""
        if not self.turns:
            raise IndexError("no turn to take back")
        last = self.turns.pop()
        self.targets.pop(len(self.turns) + 1, None)
        self.rebuild()
        return last

    def correct(self, index: int, observed: ObservedTurn) -> None:
        """The referee's correction of turn ``index`` (0-based): everything after it is replayed.

        If a later turn no longer fits, the error names it and nothing changes.
        """
        if not 0 <= index < len(self.turns):
            raise IndexError(f"no turn {index + 1}: {len(self.turns)} played")
        before = list(self.turns)
        turns = before[:index] + [observed] + before[index + 1 :]
        try:
            self.rebuild(turns)
        except RuleError as err:
            failed = len(self.turns) + 1
            self.rebuild(before)
            raise RuleError(err.rule, f"after the correction, turn {failed}: {err.message}", err.code) from None

    def correct_table(self, shown: Card, actual: Card) -> None:
        """The referee's correction of a table card the camera misread (or never saw) when it was
        turned from the deck (R4.6, or by a Shifter, R6.3) or dealt (R2.4): ``shown`` is really
        ``actual``. The turn that turned it is corrected and everything after it recomputed; if
        anything no longer fits, the error says what and nothing changes. A card laid by a player
        is corrected with its move.
        """
        if shown not in self.round.table:
            raise RuleError("R3.2", f"{shown.name} is not on the table", code="not_on_table")
        before = list(self.turns)
        if self._correct_shifted(shown, actual):
            return
        for index in range(len(before) - 1, -1, -1):
            observed = before[index]
            from_deck = Counter(observed.table_reveals) + Counter(c for c, t in self._unseen_from if t == index)
            if not from_deck[shown]:
                continue
            reveals = Counter(observed.table_reveals) - Counter([shown]) + Counter([actual])
            turns = [*before[:index], replace(observed, table_reveals=tuple(reveals.elements())), *before[index + 1 :]]
            break
        else:
            if shown not in self.initial_table:
                raise RuleError(
                    "R3.2", f"{shown.name} was laid by a player: correct that move instead", code="not_from_deck"
                )
            table = list(self.initial_table)
            table[table.index(shown)] = actual
            saved_table, self.initial_table = self.initial_table, tuple(table)
            try:
                self.rebuild(before)
            except RuleError as err:
                self.initial_table = saved_table
                self.rebuild(before)
                raise RuleError(err.rule, f"after the correction: {err.message}", err.code) from None
            return
        try:
            self.rebuild(turns)
        except RuleError as err:
            self.rebuild(before)
            raise RuleError(err.rule, f"after the correction: {err.message}", err.code) from None

    def _correct_shifted(self, shown: Card, actual: Card) -> bool:
        """``correct_table`` of the card a Shifter turned up from the deck (R6.3), seen as ``shown``
        or never seen (a guess): True, the round recomputed, when naming it ``actual`` puts
        ``actual`` on the table in ``shown``'s place; else False, nothing changed."""
        before, table = list(self.turns), Counter(self.round.table)
        wanted = table - Counter([shown]) + Counter([actual])
        for index in range(len(before) - 1, -1, -1):
            observed = before[index]
            if not isinstance(observed.turn.tweak, UseShifter) or observed.shifted not in (None, shown):
                continue
            try:
                self.rebuild([*before[:index], replace(observed, shifted=actual), *before[index + 1 :]])
            except RuleError:
                self.rebuild(before)
                continue
            if Counter(self.round.table) == wanted:
                return True
            self.rebuild(before)
        return False

    def correct_tweak(self, player: int, shown: TweakKind, actual: TweakKind) -> None:
        """The referee's correction of a T! card ``player`` won by a TWEAK (R4.2) and holds unused:
        the one shown as ``shown`` is really ``actual`` (the camera misread its face, or guessed it
        from the pile's order). The turn that won it is corrected and everything after it
        recomputed; if anything no longer fits, the error says what and nothing changes.

        >>> from companion.engine.cards import Card, Colour
        >>> from companion.engine.state import Sum
        >>> red, green = Colour.RED, Colour.GREEN
        >>> seen = ObservedRound(["Ana", "Ben"], 0, None, Edition.CLASSIC, [Card(red, 2), Card(green, 3)])
        >>> seen.observe_target(7)
        >>> seen.push(ObservedTurn(Turn(1, Sum(Card(red, 2), (Card(red, 2), Card(green, 3)))),
        ...                        tweak_won=TweakKind.BOMB))
        >>> [k.value for k in seen.round.tweaks_held[1]]
        ['bomb']
        >>> seen.correct_tweak(1, TweakKind.BOMB, TweakKind.THIEF)
        >>> [k.value for k in seen.round.tweaks_held[1]], seen.turns[0].tweak_won.value
        (['thief'], 'thief')
        """
        name = self.players[player]
        if shown not in self.round.tweaks_held[player]:
            raise RuleError("R4.5", f"{name} holds no unused {shown.value}", code="tweak_not_held")
        if actual == shown:
            return
        before = list(self.turns)
        wanted = Counter(self.round.tweaks_held[player]) - Counter([shown]) + Counter([actual])
        pile = self._solver.tweak_pile
        # the latest first: of two alike, the one won last is the likelier one still held
        won = sorted(
            (
                (index, position)
                for position, index in self._tweak_turns.items()
                if self._tweak_winners[position] == player and pile[position] == shown
                and position == min(p for p, i in self._tweak_turns.items() if i == index)
            ),
            reverse=True,
        )  # fmt: skip
        refusal: RuleError | None = None
        for index, _ in won:
            turns = [*before[:index], replace(before[index], tweak_won=actual), *before[index + 1 :]]
            try:
                self.rebuild(turns)
            except RuleError as err:
                refusal = refusal or err
                self.rebuild(before)
                continue
            if Counter(self.round.tweaks_held[player]) == wanted:
                return
            self.rebuild(before)
        if refusal is not None:
            raise RuleError(refusal.rule, f"after the correction: {refusal.message}", refusal.code)
        raise RuleError(
            "R4.2", f"{name} won no {shown.value} by a TWEAK that could be a {actual.value}", code="bad_tweak"
        )

    def rebuild(self, turns: Sequence[ObservedTurn] | None = None) -> None:
        """Recompute everything from the deal and ``turns`` (default: the current ones)."""
        turns = list(self.turns if turns is None else turns)
        self.turns = []
        self._reset()
        self._replaying = True
        try:
            for observed in turns:
                self.push(observed)
        finally:
            self._replaying = False

    # -- reading ---------------------------------------------------------------------------

    def possible_hand(self, seat: int) -> list[Card]:
        """Every card that may be in ``seat``'s hand now: the cards still out of sight anywhere
        (hands, deck) plus the ones known to be in that hand (a stolen card, R6.1), in order."""
        s = self._solver
        known = [s.faces[slot] for slot in self.hand_slots[seat] if slot in s.pinned]
        if not self.round.hands[seat]:
            return []
        return sorted({s.faces[slot] for slot in self._hidden_slots()} | set(known), key=_order)

    def scores(self) -> list[int]:
        return self.round.scores()

    def snapshot(self) -> dict:
        """Everything needed to rebuild this round (JSON): the two cards dealt to the table, the
        targets seen and the turns as seen. :meth:`from_snapshot` gives back the same state.

        >>> dealt = [Card(Colour.RED, 2), Card(Colour.GREEN, 3)]
        >>> seen = ObservedRound(["Ana", "Ben"], 0, None, Edition.CLASSIC, table=dealt)
        >>> seen.observe_target(9)
        >>> seen.push(ObservedTurn(Turn(1, Discard(Card(Colour.GREEN, 6)))))
        >>> again = ObservedRound.from_snapshot(seen.snapshot(), ["Ana", "Ben"], 0, None, Edition.CLASSIC)
        >>> again.record_lines() == seen.record_lines()
        True
        """
        return {
            "table": [c.name for c in self.initial_table],
            "targets": {str(k): v for k, v in sorted(self.targets.items())},
            "turns": [turn_json(self.players, t) for t in self.turns],
        }

    @classmethod
    def from_snapshot(
        cls,
        data: dict,
        players: Sequence[str],
        dealer: int,
        colours: Sequence[Colour] | None,
        edition: Edition,
    ) -> ObservedRound:
        """The round a :meth:`snapshot` was taken of (a RuleError if a turn no longer fits)."""
        seen = cls(players, dealer, colours, edition, [Card.parse(c) for c in data["table"]])
        seen.targets = {int(k): int(v) for k, v in data["targets"].items()}
        seen.rebuild([turn_from_json(players, t) for t in data["turns"]])
        return seen

    def record_lines(self, number: int = 1) -> list[str]:
        """The round as RECORD.md lines: the solved deal, then one line per turn."""
        lines = [dumps(round_line(self.players, number, self.dealer, self.colours, self.deal()))]
        lines += [dumps(turn_line(self.players, t.turn)) for t in self.turns]
        return lines


def turn_json(players: Sequence[str], observed: ObservedTurn) -> dict:
    out: dict = {"line": turn_line(players, observed.turn), "confidence": observed.confidence}
    if observed.table_reveals:
        out["table_reveals"] = [c.name for c in observed.table_reveals]
    if observed.shifted is not None:
        out["shifted"] = observed.shifted.name
    if observed.shifted_target is not None:
        out["shifted_target"] = observed.shifted_target
    if observed.tweak_won is not None:
        out["tweak_won"] = observed.tweak_won.value
    if observed.target_after is not None:
        out["target_after"] = observed.target_after
    if observed.late:
        out["late"] = [[guess.name, card.name] for guess, card in observed.late]
    return out


def turn_from_json(players: Sequence[str], data: dict) -> ObservedTurn:
    line = parse_turn(data["line"], players)
    if line.play is None:
        raise RuleError("R4.3", "a turn is a sum or a discard", code="no_action")
    return ObservedTurn(
        Turn(line.player, line.play, line.tweak),
        table_reveals=tuple(Card.parse(c) for c in data.get("table_reveals", ())),
        shifted=Card.parse(data["shifted"]) if "shifted" in data else None,
        shifted_target=data.get("shifted_target"),
        tweak_won=TweakKind.parse(data["tweak_won"]) if "tweak_won" in data else None,
        confidence=float(data.get("confidence", 1.0)),
        target_after=data.get("target_after"),
        late=tuple((Card.parse(a), Card.parse(b)) for a, b in data.get("late", ())),
    )


def _order(card: Card) -> tuple[int, int]:
    return list(Colour).index(card.colour), card.value


__all__ = ["ObservedRound", "ObservedTurn", "Sum", "Discard"]
