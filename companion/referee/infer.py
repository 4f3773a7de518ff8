"""Move inference: still moments of the table in, validated moves (or questions) out.

Each :class:`TableView` is compared with the engine's state at the start of the turn. Cards that
appear in the centre during a turn are, in order, the T! card's effect (a stolen card, the Bomb's
cards, the Shifter's card), then the hand card. The turn is over when cards leave the centre (a
sum: the hand card and the taken ones are picked up; a TWEAK when the centre empties, R4.2) or,
for a discard (R4.3), when the next player starts. Every reading of the turn that the views allow
is checked by the rules engine; one valid reading is the move, several (or a doubtful card) make
a :class:`Question` with the readings ranked, none makes a refusal that cites the rule.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from companion.engine.cards import Card, Colour, Edition, TweakKind
from companion.engine.errors import RuleError
from companion.engine.record import turn_line
from companion.engine.state import Discard, Sum, Turn, TweakUse, UseBomb, UseJoker, UseShifter, UseThief

from .observed import ObservedRound, ObservedTurn
from .view import LOW_CONFIDENCE, SeenCard, TableView

MAX_READINGS = 24
REREAD_MARGIN = 0.15  # a card laid this turn, read surely, is re-read as another only this much surer
# the share of sums a table gets wrong, taken high: a misread that makes a wrong sum look right
# needs that mistake, so a doubt only a sum rules out counts this much (``_settled_by_the_rules``)
WRONG_SUM_SHARE = 0.05
#: card lengths: two readings this near each other are of one card at one place (it has not moved)
SAME_PLACE = 0.35
#: seats: a T! card's angle this near its seat's direction says whose place it lies in (nearer the
#: border between two seats, a crowded table's card can lie in front of either)
CLEAR_OF_SEAT_BORDER = 0.3


@dataclass
class Reading:
    observed: ObservedTurn
    error: RuleError | None = None


@dataclass
class Event:
    """One line of the referee's output."""

    kind: str  # "start", "move", "question", "refused", "round_over", "note"
    data: dict[str, Any]
    readings: list[Reading] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"event": self.kind, **self.data}


Answer = Callable[[Event], int | None]  # which reading of a question to take (None: the first)


def _take_first(question: Event) -> int | None:
    return 0


@dataclass
class _Pending:
    arrivals: list[Card] = field(default_factory=list)  # centre cards that appeared this turn, in order
    flip: TweakKind | None = None
    flip_doubted: bool = False  # the used T! card's kind rests on a doubtful reading of its face
    flip_guessed: bool = False  # ... or on no reading at all (the T! pile's guessed order): each kind is offered
    given: list[tuple[Card, int]] = field(default_factory=list)  # cards seen laid in front of a seat this turn
    shifted_target: int | None = None
    last_target: int | None = None
    refusal: Event | None = None  # a view no reading fits: reported if the next view agrees
    refused_views: int = 0
    low: dict[Card, tuple[Card, ...]] = field(default_factory=dict)  # doubtful readings and their alternatives
    conf: dict[Card, float] = field(default_factory=dict)  # the least confidence each card was read with
    doubtful_views: dict[Card, list[SeenCard]] = field(default_factory=dict)  # each card's readings in doubt
    # the deck's target as steady views showed it this turn, and each change: a player drew (R4.6)
    steady_target: int | None = None
    new_target: tuple[int, int] | None = None  # a different target, and in how many views in a row
    draws: int = 0
    drawn_targets: list[int] = field(default_factory=list)  # the target after each draw counted this turn
    unread: bool = False  # a card the camera could not read as a face lies in the centre (not there at the deal)
    batches: list[int] = field(default_factory=list)  # where each view's new cards begin in ``arrivals``
    drew_while_laid: bool = False  # the target changed while the cards laid this turn lay there
    guess_seen_late: bool = False  # a refill card never seen (a guess) first seen while cards were laid
    refused_gone: Counter = field(default_factory=Counter)  # the cards gone in the last view no move explained

    @property
    def seen(self) -> Counter:
        return Counter(self.arrivals)


class Referee:
    """Follows one round from table views; ``see`` returns the events each view causes."""

    def __init__(
        self,
        players: Sequence[str],
        dealer: int,
        colours: Sequence[Colour] | None = None,
        edition: Edition = Edition.CLASSIC,
        answer: Answer | None = None,
    ) -> None:
        self.players = list(players)
        # a reading less sure than this is doubted: the move that uses it is asked. The shipped
        # network's readings use LOW_CONFIDENCE; a deck profile sets its own through the views
        # (TableView.doubt_below, from Scanner.doubt_below)
        self.doubt_below = LOW_CONFIDENCE
        self.dealer = dealer
        self.colours = list(colours) if colours is not None else None
        self.edition = edition
        self.answer = answer or _take_first
        self.seen: ObservedRound | None = None
        self.pending = _Pending()
        self.owners: list[tuple[tuple[float, float], int]] = []  # where each won T! card lies, and whose
        self._readings_at: list[list] = []  # [position, card, confidence] of each centre card last seen
        self._view: TableView | None = None
        self._last_views: list[TableView] = []  # the 3 views before this one (T! cards, cards given)
        self._doubted_tweaks: set[tuple[int, TweakKind]] = set()  # (seat, kind) read face up in doubt
        self._flips_guessed: set[int] = set()  # seats whose T! card turned down is of a guessed kind (``_flips``)
        self._sure_held: list[list[int]] = []  # each seat's T! cards read surely face up, in the last 3 views
        # the cards in view when the round was last changed by hand: one of them that the round as
        # changed does not hold is unexplained, not a card laid since (a move using it is asked)
        self._in_view_at_resync: Counter = Counter()
        self._vanished_after_resync: Counter = Counter()  # ... of those, gone from the last view
        self._resync_laid: Counter = Counter()  # ... of those, taken as the turn's cards laid (``_laid_at_resync``)
        self._target_at_resync: int | None = None  # the target in view then
        self._unsynced = False  # a turn may have gone by unseen: every move is asked until a change by hand
        self._unsynced_at: int | None = None  # the moves settled when that doubt arose
        # cards lying where a move the referee person confirmed laid them (a discard): read as
        # confirmed while a view shows them there
        self._confirmed_at: list[tuple[tuple[float, float], Card]] = []
        # guessed table cards taken as seen from a view while cards of a turn were laid (one of
        # them may have been the card seen): kept through changes by hand, until the card leaves
        # the table
        self._seen_late: Counter = Counter()
        # the refill guesses of a sum this view settled, the view showing more cards come than the
        # refill turned (the next turn's laid too): a guess alike a card in view is no card seen
        self._refill_in_doubt: Counter = Counter()
        # a change by hand at this move was refused by the rules: the moves before it are not the
        # table's, so every move is asked until a change by hand rewrites this move or one before
        self._refused_at: int | None = None
        self._followed: list[str] = []  # the moves as last followed (turn_key), to see what a change by hand rewrote
        # the deal's cards read in doubt, with their next-best labels, until a view reads them surely
        self._doubtful_deal: dict[Card, tuple[Card, ...]] = {}
        # the last move was settled once its player had drawn (the next one played); at the deal no draw is due
        self._drawn_after_last = True
        self.over_reported = False
        # where cards read as no face lay in the centre when the round began (something that is
        # not a card): only one appearing later may be a face laid and misread
        self._unread_at_deal: list[tuple[float, float]] = []
        # where each other card read as no face lies in the centre, and the moves settled when it
        # was first seen there: one that lay still through a whole move before this one was
        # neither laid nor taken by the move in play (a refill card the camera cannot read)
        self._unread_since: list[tuple[tuple[float, float], int]] = []
        # a view before the deal showed more than the dealt 2 centre cards: a move had begun unseen,
        # so the first 2-card view may be a later table, not the deal (R2.4)
        self._crowded_before_deal = False

    def doubt_round(self, at: int | None = None) -> None:
        """A change by hand the rules refused (a move tapped in, a correction of move ``at``; None:
        the next move): the round as inferred is not the one on the table, so every move is asked
        until a change by hand rewrites move ``at`` or one before it. A later change that leaves
        them as they were does not settle the doubt: the refused move's cause lies there (a T! card
        used unseen, a hand emptied by a Thief, R4.7), and moves inferred on it may be wrong as if
        sure."""
        self._lose_sync()
        if at is None:
            at = len(self.seen.turns) if self.seen is not None else 0
        self._refused_at = at if self._refused_at is None else min(self._refused_at, at)

    def _lose_sync(self, after: int = 0) -> None:
        """A turn may have gone by unseen: every move is asked until the round is changed by hand
        or a move after the ``after`` next ones is confirmed (``confirm``): the move in progress,
        when its player is not in doubt, confirms nothing."""
        # (the latest such doubt: a move confirmed must have been inferred after it)
        self._unsynced_at = (len(self.seen.turns) if self.seen is not None else 0) + after
        self._unsynced = True

    def confirm(self, number: int) -> None:
        """The referee person confirmed move ``number`` (from 1) as it was played, its player with
        it (a question answered with the reading played). A turn gone by unseen before it would
        have shown as a move of the wrong player, so the doubt that one had, raised before that
        move was inferred, is settled. A change by hand the rules refused is not
        (``doubt_round``): its moves stay asked until the round is changed by hand."""
        if self._refused_at is None and self._unsynced_at is not None and number > self._unsynced_at:
            self._unsynced, self._unsynced_at = False, None
        # a discard confirmed as the last move lies on the table: its card is known where it lies
        # (found by its reading in the last view, when only one card there was read so)
        if self.seen is None or number != len(self.seen.turns):
            return
        play = self.seen.turns[-1].turn.play
        if isinstance(play, Discard):
            places = [at for at, card, _ in self._readings_at if card == play.card]
            if len(places) == 1:
                self._confirmed_at.append((tuple(places[0]), play.card))
                # (the views that settled the discard were already read for the turn after it)
                for doubts in (self.pending.low, self.pending.doubtful_views, self.pending.conf):
                    doubts.pop(play.card, None)

    def resync(self, seen: ObservedRound | None) -> None:
        """Follow ``seen`` from now on: the round was changed by hand (a correction, an undo, a
        move tapped in), so what was gathered for the turn in progress no longer holds."""
        laid = Counter(self.pending.arrivals)
        keys = [turn_key(t.turn) for t in seen.turns] if seen is not None else []
        # the first move the change by hand rewrote (or added, or took back)
        first = next((i for i, (a, b) in enumerate(zip(keys, self._followed)) if a != b), None)
        if first is None and len(keys) != len(self._followed):
            first = min(len(keys), len(self._followed))
        if self._refused_at is not None and first is not None and first <= self._refused_at:
            self._refused_at = None
        self._followed = keys
        self.seen = seen
        self.pending = _Pending()
        self.over_reported = seen is not None and seen.round.is_over()
        self._in_view_at_resync = Counter(self._view.cards) if self._view is not None else Counter()
        self._vanished_after_resync = Counter()
        self._resync_laid = Counter()
        self._target_at_resync = self._view.target if self._view is not None else None
        self._unsynced, self._unsynced_at = False, None
        self._confirmed_at = []
        self._doubtful_deal = {}
        self._drawn_after_last = False
        self._name_guess(
            laid, _cards_taken(seen.turns[first:]) if seen is not None and first is not None else Counter()
        )
        self._pin_misread(laid)
        self._laid_at_resync()

    def _laid_at_resync(self) -> None:
        """After a change by hand, the cards in view on no table of the round are the turn in
        progress's, laid already (the moves tapped in are the ones the table shows made), so a
        sum that takes them before the next view is seen as one (it was a table card gone with no
        card played: refused, and two moves of the round never inferred). Where the round has no
        target for the turn, it is the one the view shows (R3.1): a move tapped in does not say
        what its player drew, and a sum against a target never seen was published as sure. Only
        where the view shows every table card (else a card in view may be one misread), none of
        them a guess (a card in view may be that one) nor taken as seen from a view while cards
        were laid (the card seen may have been one laid alike). Where they came from the round as
        changed does not say: a move resting on them is asked."""
        seen, view = self.seen, self._view
        if seen is None or view is None:
            return
        table = Counter(seen.round.table)
        extra = view.cards - table
        if not extra or table - view.cards or seen.unseen & table or self._seen_late & table:
            return
        if len(seen.turns) not in seen.targets and seen.round.deck_left:  # (none left: 7, R1.5)
            p = seen.round.to_move
            turned = self._turned_down(view, p)
            if view.target is None or turned:
                # (the turn's target unknown, or moved by a Shifter just turned, R6.3: its cards
                # are taken as new in the next view)
                return
            seen.observe_target(view.target)
        self.pending.arrivals = sorted(extra.elements(), key=_order)
        self._resync_laid = extra
        for card in extra:  # (where it came from the round as changed does not say: a move on it is asked)
            self.pending.low.setdefault(card, ())

    def _name_guess(self, laid: Counter, taken: Counter) -> None:
        """After a change by hand: where table cards turned from the deck unseen (guesses,
        ``ObservedRound.unseen``: a move tapped in does not say what its refill or its Shifter
        turned up, R4.6, R6.3) are out of view, and as many cards in view (not laid this turn) are
        on no table of the round, the cards in view are the ones turned: named so
        (``correct_table``), the camera's readings, doubtful or not, rather than the guesses
        (which left cards in view unexplained: the next move was read as their discard). Where
        the rules refuse it, nothing more changes. A card that has just come into view (not in the
        view before) is not named so: it may be the next player's, laid in the view the change was
        made on; unless the view before still showed the table before the moves changed by hand
        (``taken``: the cards they took; every card then on no table of the round now is one of
        them), so that the cards turned are new in this view too (a TWEAK's refill, R4.6)."""
        if self.seen is None or self._view is None:
            return
        table = Counter(self.seen.round.table)
        extra, missing = self._view.cards - table - laid, (self.seen.unseen & table) - self._view.cards
        before = self._last_views[-1].cards if self._last_views else Counter()
        just_laid = extra - before
        left = before - self._view.cards - table  # cards in the view before, on no table now
        if left and not left - taken:
            just_laid = Counter()  # (the view before was the table before the moves: all is new)
        if missing and (extra - just_laid).total() == missing.total():
            self._name_from_view(self._view, lambda: self.seen.unseen, laid + just_laid)

    def _name_from_view(self, view: TableView, guesses: Callable[[], Counter], laid: Counter) -> None:
        """Name the guessed table cards (``guesses()``) out of ``view`` by the cards in it on no
        table of the round and not ``laid`` this turn, one at a time (the round rebuilt by a
        naming may guess the others anew), through ``correct_table``; a naming the rules refuse
        ends it, nothing changed."""
        while True:
            guessed = (guesses() & Counter(self.seen.round.table)) - view.cards
            new = view.cards - Counter(self.seen.round.table) - laid
            if not guessed or not new:
                return
            try:
                self.seen.correct_table(min(guessed, key=repr), min(new, key=repr))
            except RuleError:
                return

    def _pin_misread(self, laid: Counter) -> None:
        """After a change by hand the round says which cards lie on the table. Where exactly one
        card in view (not laid this turn) is not on the round's table, exactly one table card is
        not in view, and the camera reads the first in doubt, it is the second misread: its place
        remembers the round's card as sure, so the camera's doubtful rereadings of it no longer
        unsettle the round (a referee who corrected a card is not asked about it at every view)."""
        if self.seen is None or self._view is None:
            return
        table = Counter(self.seen.round.table)
        extra, missing = self._view.cards - table - laid, table - self._view.cards
        if extra.total() != 1 or missing.total() != 1:
            return
        shown, actual = next(iter(extra)), next(iter(missing))
        places = sorted((m for m in self._readings_at if m[1] == shown), key=lambda m: m[2])
        if not places or places[0][2] >= self.doubt_below or (len(places) > 1 and places[1][2] == places[0][2]):
            return  # read surely, or two readings alike: which one is misread cannot be told
        places[0][1], places[0][2] = actual, 1.0
        # (the card in view then is the round's card: not gone when it is read as that)
        if self._in_view_at_resync[shown]:
            self._in_view_at_resync += Counter([actual])
            self._in_view_at_resync -= Counter([shown])

    # -- feeding views ---------------------------------------------------------------------

    def see(self, view: TableView) -> list[Event]:
        if view.doubt_below is not None:
            self.doubt_below = view.doubt_below
        if self.seen is None:
            return self._start(view)
        rnd = self.seen.round
        if rnd.is_over():
            return self._round_over()
        self._assign_seats(view)
        self._steady_readings(view)
        if self._view is not None:
            self._last_views = [*self._last_views[-2:], self._view]
        self._view = view
        events: list[Event] = []
        self._refill_in_doubt = Counter()  # (a doubt is this view's, of a sum settled on it)
        self._see(view, events, depth=0)
        if self.seen.round.is_over():  # (the round is rebuilt when a guessed card is named)
            events += self._round_over()
        return events

    def settle(self) -> list[Event]:
        """The table has stayed still a while: a card laid from the round's last hand card, with the
        deck empty, is a discard, since nobody plays after it (R5.1); otherwise nothing."""
        seen = self.seen
        if seen is None or not self.pending.arrivals or seen.round.is_over():
            return []
        rnd = seen.round
        if rnd.deck_left or sum(len(hand) for hand in rnd.hands) != 1:
            return []
        return self.finish()

    def finish(self) -> list[Event]:
        """The source ended: a card still lying from the last turn was a discard. One picked up
        since (a sum no reading fits, its next card unseen) is no discard: what was refused stays
        so, and a refusal the last view made is reported (no later view will show it again)."""
        events: list[Event] = []
        pending = self.pending
        if self.seen is not None and not self.seen.round.is_over():
            view = self._view
            lying = bool(pending.arrivals) and (view is None or not Counter(pending.arrivals) - view.cards)
            if lying and self._commit_discard(events, pending.last_target) and view is not None:
                # the last view may show more: the next player's sum, its card laid unseen
                self._see(view, events, 1)
                pending = self.pending
            if pending.refusal is not None and pending.refused_views < 2:
                events.append(pending.refusal)  # (no later view will show it again)
        if self.seen is not None and self.seen.round.is_over():
            events += self._round_over()
        return events

    def _start(self, view: TableView) -> list[Event]:
        cards = [s.card for s in view.centre]
        if len(cards) != 2:
            self._crowded_before_deal |= len(cards) > 2
            return [Event("note", {"message": f"waiting for the deal: 2 centre cards, {len(cards)} seen (R2.4)"})]
        try:
            self.seen = ObservedRound(self.players, self.dealer, self.colours, self.edition, cards)
        except RuleError as err:
            return [Event("note", {"message": str(err), "rule": err.rule})]
        if view.target is not None:
            self.seen.observe_target(view.target)
        self._doubtful_deal = {s.card: s.alternatives for s in view.centre if s.confidence < self.doubt_below}
        # (the dealt cards' readings are remembered where they lie, as every view's: _steady_readings)
        self._readings_at = [[s.position, s.card, s.confidence] for s in view.centre]
        self._unread_at_deal = list(view.unread)
        # (more cards were seen before: the deal itself may have gone by, with a move or more after
        # it; every move is asked until the round is changed by hand)
        self._unsynced, self._unsynced_at = False, None
        if self._crowded_before_deal:
            self._lose_sync()
        return [
            Event(
                "start",
                {
                    "players": self.players,
                    "dealer": self.players[self.dealer],
                    "table": [c.name for c in cards],
                    "target": view.target,
                    "to_move": self.players[self.seen.round.to_move],
                },
            )
        ]

    def _see(self, view: TableView, events: list[Event], depth: int) -> None:
        seen = self.seen
        assert seen is not None
        self._name_refill(view)
        rnd = seen.round
        p = rnd.to_move
        if p is None or depth > 3:
            return
        pending = self.pending
        near = 0.5 * view.card_length
        if self._follow_unread(view, near):
            pending.unread = True
        flips = self._flips(view)
        self._count_draws(view, flips)
        other_flip = [s for s in flips if s != p]
        start = Counter(rnd.table)
        present = view.cards
        # another seat turned a T! card face down: this turn is over. It was a discard if the cards
        # laid still lie there (not a twin of a table card); ones picked up were a sum, settled below
        if other_flip and pending.arrivals and not Counter(pending.arrivals) - (present - start):
            shifted = any(flips[seat] is UseShifter.kind for seat in other_flip)
            if self._commit_discard(events, self._drawn_target(view, shifted), drawn=True):
                self._see(view, events, depth + 1)
                return
        # (the refill guesses in doubt count for this view's first look only: once the next
        # turn's card is settled, the cards left are the refill's)
        doubt, self._refill_in_doubt = self._refill_in_doubt & start, Counter()
        laying = bool(pending.arrivals or present - start - pending.seen)
        self._seen_late &= start  # (a card taken off the table since is no doubt now)
        for card in list(seen.unseen):  # a guessed table card now seen as guessed: no longer a guess
            if present[card] >= start[card] > 0 and not doubt[card]:
                del seen.unseen[card]
                # ... but first seen while cards of this turn are laid, it may be one of them
                pending.guess_seen_late = pending.guess_seen_late or laying
                if laying:
                    self._seen_late[card] += 1
        # a refill card the camera never saw is taken to lie where it was turned, until a sum shows otherwise
        unseen_here = (Counter({c: min(n, start[c]) for c, n in seen.unseen.items()}) - present) | doubt
        gone = (start + pending.seen) - (present + unseen_here)  # picked up: the hand card and the cards it took
        new = present - (start - doubt) - pending.seen
        # a card laid after the round was changed by hand (in view then, not on the round's table)
        # picked up unseen while the deck's target moved on: a turn went by unseen, and whose
        # turn it is is in doubt (the next card laid was taken for the wrong player's discard)
        resync_laid = self._resync_laid & pending.seen
        vanished = (self._in_view_at_resync - present) - start - (pending.seen - resync_laid)
        moved_on = None not in (view.target, self._target_at_resync) and view.target != self._target_at_resync
        # (or gone from two views running: the target may show the same value again, and a card
        # missed in one view is no move)
        if (vanished - resync_laid and moved_on) or (self._vanished_after_resync - present) - start - pending.seen:
            self._lose_sync()
        # the same of a card taken as the turn's laid at the change, unless a sum of the turn took it
        laid_lost = bool(vanished & resync_laid) and (
            moved_on or bool((self._vanished_after_resync & resync_laid) - present)
        )
        self._vanished_after_resync = vanished
        self._in_view_at_resync &= present
        for card in new & self._in_view_at_resync:
            pending.low.setdefault(card, ())
        # (a confirmed card no longer read where it lay may have been picked up: confirmed no more)
        place = SAME_PLACE * view.card_length  # (a card that has not moved, as ``_steady_readings``)
        self._confirmed_at = [
            (at, card)
            for at, card in self._confirmed_at
            if any(s.card == card and math.dist(s.position, at) < place for s in view.centre)
        ]
        for s in view.centre:
            if any(s.card == card and math.dist(s.position, at) < place for at, card in self._confirmed_at):
                self._doubtful_deal.pop(s.card, None)
                continue  # the referee person said what it is
            pending.conf[s.card] = min(pending.conf.get(s.card, 1.0), s.confidence)
            if s.confidence < self.doubt_below:
                pending.low[s.card] = s.alternatives
                pending.doubtful_views.setdefault(s.card, []).append(s)
            else:
                self._doubtful_deal.pop(s.card, None)
        # a move resting on a dealt card never read surely rests on a guess (the deal itself, R2.4)
        for card, alternatives in self._doubtful_deal.items():
            pending.low.setdefault(card, alternatives)
        if p in flips and pending.flip is None:
            pending.flip = flips[p]
            # a T! card's kind read in doubt (now or when it was won) makes the move a question
            # (and a kind no view read, the T! pile's guessed order for a card won unseen, is no reading)
            pending.flip_guessed = p in self._flips_guessed
            pending.flip_doubted = (p, flips[p]) in self._doubted_tweaks or pending.flip_guessed
        if view.given:  # (kept through the turn: a card lying on in front of a seat hides none given before)
            seats = [(card, self._giver_seat(pos, seat, view)) for card, seat, pos in view.given]
            pending.given += [g for g in dict.fromkeys(seats) if g[1] != p and g not in pending.given]
        expected = self._effects_expected(pending.flip)
        if gone:
            if self._commit_sum(view, list(new.elements()), gone, events):
                # a card in view that the sum did not turn up is the next turn's, laid already; where
                # more cards came than the refill turned, which are the refill's is not known
                guessed = seen.refill_unseen(len(seen.turns) - 1) if not seen.turns[-1].table_reveals else Counter()
                self._refill_in_doubt = guessed if 0 < guessed.total() < new.total() else Counter()
                self._see(view, events, depth + 1)
                return
            if laid_lost:
                self._lose_sync()
            if pending.arrivals and len(pending.arrivals) + sum(new.values()) > expected + 1:
                # no sum fits: the first card was a discard, and the next player is already playing
                saved = (list(pending.arrivals), pending.refusal)
                pending.arrivals = pending.arrivals[: expected + 1]
                # (cards were picked up that no sum of this turn explains: the discard is a
                # guess about what happened, so it is asked, never published as sure)
                if self._commit_discard(events, self._discarders_target(), unexplained=True, drawn=True):
                    self._see(view, events, depth + 1)
                    return
                pending.arrivals, pending.refusal = saved
            pending.refused_gone = gone
            self._refuse_if_lasting(events)
            if view.target is not None:  # a card missed in this view: the target it shows still holds
                pending.last_target = view.target
            return
        pending.refusal = None
        # (a Shifter turns the deck's top card, R6.3; the other T! cards leave the target as it was)
        if view.target is not None and pending.flip is not UseShifter.kind:
            if not pending.arrivals and not new:
                seen.observe_target(view.target)  # the target before the turn (R3.1)
            elif len(seen.turns) not in seen.targets:  # not seen before the turn (quick moves): now
                seen.observe_target(view.target)
        # cards given up to a T! card come first, then the hand card
        owed = Counter(card for card, _ in pending.given) - Counter(pending.arrivals)
        ordered = sorted(new.elements(), key=_order)
        first = list((Counter(ordered) & owed).elements())
        arrivals = pending.arrivals + first + list((Counter(ordered) - Counter(first)).elements())
        if pending.flip is UseShifter.kind and new and len(pending.arrivals) < 1:
            pending.shifted_target = view.target
        if len(arrivals) > expected + 1 and pending.flip is None:
            kind = self._used_unseen(p, len(arrivals))
            if kind is not None:  # (a use nobody saw turned face down is asked, never sure)
                pending.flip, pending.flip_doubted = kind, True
                pending.given = pending.given or self._given_lately(p)
                expected = self._effects_expected(kind)
        if len(arrivals) > expected + 1:
            # more cards than this turn can lay: the turn was a discard and the next one has begun
            unsure = None
            if sum(new.values()) > 1:
                # cards first seen together: two moves in one moment, or a card missed in the views
                # before (laid any time since): which one was this turn's is not known, so ask
                unsure = list(dict.fromkeys(arrivals[expected:]))
            pending.arrivals = arrivals[: expected + 1]
            self._commit_discard(events, self._drawn_target(view), unsure, drawn=True, refills=_refills(doubt, new))
            self._see(view, events, depth + 1)
            return
        if new:  # (the cards seen given up come first: those of them laid now are a batch of their own)
            pending.batches += [len(pending.arrivals), len(pending.arrivals) + len(first)]
        pending.arrivals = arrivals
        pending.last_target = view.target
        # the deck's back changed while every card laid this turn lies there: its player drew, as
        # after a discard (R4.6); a sum's cards are taken before the draw (a Shifter turns it, R6.3)
        before = seen.targets.get(len(seen.turns))
        if arrivals and None not in (view.target, before) and view.target != before and seen.round.deck_left:
            pending.drew_while_laid = pending.drew_while_laid or pending.flip is not UseShifter.kind

    def _drawn_target(self, view: TableView, shifted: bool = False) -> int | None:
        """The target after a discard, settled because the next player plays, so the discarder
        has drawn (R3.1): the one a view showed change while the discard lay alone, or else the one
        shown now, unless a Shifter used in this view may already have changed it again (R6.3)."""
        pending = self.pending
        before = self.seen.targets.get(len(self.seen.turns))
        drawn_seen = pending.last_target is not None and before is not None and pending.last_target != before
        return pending.last_target if drawn_seen or shifted or view.target is None else view.target

    def _name_refill(self, view: TableView) -> None:
        """The cards a refill turns onto the table come before any card of the next turn (R4.6):
        a TWEAK settled from a view of the table emptied, before its 2 cards were turned (none of
        them seen, so guessed, ``ObservedRound.unseen``; or a TWEAK tapped in), has them named by
        the next cards seen, as many as are guessed or fewer, before any card of the next turn;
        more cards than that at once (the next player's laid too) are left to the questions.
        Where the rules refuse it, nothing changes."""
        seen = self.seen
        # (a refill seen in part was turned in full: its other card was missed, and a card seen
        # later is the next turn's)
        if not seen.turns or seen.turns[-1].table_reveals or self.pending.arrivals:
            return
        guessed = seen.refill_unseen(len(seen.turns) - 1) - view.cards
        new = view.cards - Counter(seen.round.table)
        if new.total() <= guessed.total():
            self._name_from_view(view, lambda: seen.refill_unseen(len(seen.turns) - 1), Counter())

    def _follow_unread(self, view: TableView, near: float) -> bool:
        """Follow the cards in the centre read as no face (``_unread_since``); True when the move
        in play may rest on one: one not lying there through a whole move before, or one gone."""
        moves = len(self.seen.turns) if self.seen is not None else 0
        before, self._unread_since = self._unread_since, []
        for at in view.unread:
            if any(math.dist(at, k) < near for k in self._unread_at_deal):
                continue
            since = next((t for was, t in before if math.dist(at, was) < near), moves)
            self._unread_since.append((at, since))
        gone = any(all(math.dist(was, at) >= near for at, _ in self._unread_since) for was, _ in before)
        return gone or any(since >= moves - 1 for _, since in self._unread_since)

    def _unread_lying(self) -> int:
        """How many cards read as no face have lain still in the centre through a whole move."""
        moves = len(self.seen.turns) if self.seen is not None else 0
        return sum(since < moves - 1 for _, since in self._unread_since)

    def _guess_in_play(self, readings: list[Reading]) -> bool:
        """Whether a refill card never seen (a guess, ``ObservedRound.unseen``) may change what
        the move is: more guesses out of view than cards read as no face lying still (one may be
        the card the move took), a guessed card among the move's readings (its copy is held by
        the guess, R1.1), or a T! card used (it moves cards the guess may be among, R6)."""
        seen = self.seen
        in_view = self._view.cards if self._view is not None else Counter()
        missing = sum(max(0, n - in_view[card]) for card, n in seen.unseen.items())
        if not missing:
            return False
        cards = self._cards_of(readings) | {alt for alts in self.pending.low.values() for alt in alts}
        return (
            missing > self._unread_lying()
            or any(seen.unseen[card] for card in cards)
            or any(r.observed.turn.tweak is not None for r in readings)
        )

    def _count_draws(self, view: TableView, flips: dict[int, TweakKind]) -> None:
        """Each turn ends with a draw that turns up the deck's next back (R4.6, R3.1): the target
        changing steadily more often than the cards seen allow (the last mover's draw if it was
        not seen yet, and a discard's, lying in view) is a turn that went by unseen, a discard the
        camera never saw. From then on the players' order is in doubt: every move is asked until
        the round is changed by hand."""
        seen, pending = self.seen, self.pending
        if view.target is None or flips or not seen.round.deck_left:
            pending.new_target = None
            return
        if pending.steady_target is None:
            pending.steady_target = seen.targets.get(len(seen.turns), view.target)
        if view.target == pending.steady_target:
            pending.new_target = None
            return
        count = pending.new_target[1] + 1 if pending.new_target and pending.new_target[0] == view.target else 1
        pending.new_target = (view.target, count)
        if count < 2:  # (one view may misread the deck's back)
            return
        pending.draws += 1
        pending.drawn_targets.append(view.target)
        pending.steady_target, pending.new_target = view.target, None
        if pending.draws > (0 if self._drawn_after_last else 1) + (1 if pending.arrivals else 0):
            # (a card was laid this turn: this move is its player's; the turn after it is in doubt)
            self._lose_sync(1 if pending.arrivals else 0)

    def _discarders_target(self) -> int | None:
        """The target after the discarder's draw (R4.6), for a discard settled late: the deck's
        back may since have changed again with the next player's draw (the move that showed the
        discard was one), so the last target seen is not the discard's."""
        pending = self.pending
        at = 0 if self._drawn_after_last else 1  # (the last mover's own draw comes first)
        return pending.drawn_targets[at] if len(pending.drawn_targets) > at else pending.last_target

    def _owner(self, tweak, view: TableView) -> int | None:
        near = [(abs(x - tweak.position[0]) + abs(y - tweak.position[1]), seat) for (x, y), seat in self.owners]
        near = [n for n in near if n[0] < 0.5 * view.card_length]
        return min(near)[1] if near else None

    def _assign_seats(self, view: TableView) -> None:
        """Count each seat's T! cards by who was seen to win them (by angle for cards never placed)."""
        held = [Counter() for _ in self.players]
        used = [0] * len(self.players)
        sure = [0] * len(self.players)
        for tweak in view.tweaks:
            seat = self._owner(tweak, view)
            seat = tweak.seat if seat is None else seat
            if tweak.kind is None:
                used[seat] += 1
            else:
                held[seat][tweak.kind] += 1
                if tweak.confidence < self.doubt_below:
                    self._doubted_tweaks.add((seat, tweak.kind))
                else:
                    sure[seat] += 1
        view.held, view.used = held, used
        self._sure_held = [*self._sure_held[-2:], sure]

    def _steady_readings(self, view: TableView) -> None:
        """A card that has not moved keeps its most confident reading: a doubtful new reading of it
        is replaced by the sure one, and a sure new reading corrects a doubtful old one (also in
        the cards laid this turn)."""
        from .view import SeenCard

        near = SAME_PLACE * view.card_length
        memory = self._readings_at
        # nothing picked up from the table since the turn began: a changed reading is a re-read
        table = Counter(self.seen.round.table) if self.seen else Counter()
        untouched = not (table - view.cards) if self.seen else False
        kept: list[list] = []
        for i, seen in enumerate(view.centre):
            match = next(
                (m for m in memory if m not in kept and math.dist(m[0], seen.position) < near),
                None,
            )
            if match is None:
                kept.append([seen.position, seen.card, seen.confidence])
                continue
            kept.append(match)
            if seen.card == match[1]:
                if seen.confidence < self.doubt_below <= match[2] and not (table - view.cards - Counter([match[1]])):
                    # read again as the card read surely there, but in doubt: the sure reading stands
                    view.centre[i] = replace(seen, confidence=match[2])
                match[2] = max(match[2], seen.confidence)
            elif seen.confidence < self.doubt_below <= match[2] and not (table - view.cards - Counter([match[1]])):
                # (only while the rest of the table is still there: after a sum a refill card may
                # lie where a card was picked up)
                view.centre[i] = SeenCard(match[1], seen.position, match[2], seen.alternatives)
            else:
                old = match[1]
                if seen.confidence < self.doubt_below <= match[2] and old not in seen.alternatives:
                    # read in doubt where another card was read surely: it may be that card still
                    view.centre[i] = seen = replace(seen, alternatives=(*seen.alternatives, old))
                # a doubtful reading gives way to a surer one; a sure one only to one clearly surer
                # (two sure readings that differ are a doubt: a refill card can lie where a card
                # laid this turn was picked up, while the twin of the card it took still shows)
                # (once cards were picked up, a refill card can lie where a card laid in doubt was:
                # a surer reading there is then a card of its own, not a re-read)
                reread = (
                    untouched
                    and seen.confidence > match[2]
                    and (match[2] < self.doubt_below or seen.confidence >= match[2] + REREAD_MARGIN)
                )
                arrivals = self.pending.arrivals
                if reread and old in arrivals and seen.card not in arrivals:
                    arrivals[arrivals.index(old)] = seen.card
                    if view.target != self.pending.last_target:
                        # the target changed as well: the card laid may have been taken in a sum
                        # and a refill card laid where it lay (R4.6), so the new reading is a doubt
                        self.pending.low[seen.card] = (old, *self.pending.low.get(seen.card, ()))
                elif untouched and old in arrivals and seen.card not in arrivals:
                    # a card laid this turn, read sure twice as two cards: a doubt, never a guess
                    self.pending.low[old] = (seen.card, *self.pending.low.get(old, ()))
                    self.pending.conf[old] = min(self.pending.conf.get(old, 1.0), seen.confidence, match[2])
                match[1], match[2] = seen.card, seen.confidence
        self._readings_at = kept

    def _giver_seat(self, position: tuple[float, float], by_angle: int, view: TableView) -> int:
        """Whose card a number laid outside the centre is: the owner of the nearest T! card seen
        won, when one lies close (a crowded table bends angles), else the seat its angle points to."""
        near = [
            (math.hypot(x - position[0], y - position[1]), seat)
            for (x, y), seat in self.owners
            if math.hypot(x - position[0], y - position[1]) < 1.0 * view.card_length
        ]
        return min(near)[1] if near else by_angle

    def _claim(self, view: TableView, player: int) -> None:
        """After a TWEAK: the face-up T! card nobody owns yet is the player's."""
        free = [t for t in view.tweaks if t.kind is not None and self._owner(t, view) is None]
        if free:
            nearest = min(free, key=lambda t: (t.seat != player, t.position))
            self.owners.append((nearest.position, player))

    def _turned_down(self, view: TableView, seat: int | None) -> bool:
        """Whether ``view`` shows more T! cards turned face down in front of ``seat`` than the
        round has it use: one was turned since (a use, R4.5)."""
        used = self.seen.round.tweaks_used
        return seat is not None and seat < len(view.used) and view.used[seat] > len(used[seat])

    def _flips(self, view: TableView) -> dict[int, TweakKind]:
        """Seats whose T! card was turned face down since the turn began, with its kind."""
        rnd = self.seen.round
        out: dict[int, TweakKind] = {}
        self._flips_guessed = set()
        for seat in range(len(self.players)):
            if not self._turned_down(view, seat):
                continue
            held = Counter(rnd.tweaks_held[seat])
            missing = held - view.held[seat]
            recent = Counter()
            for then in self._last_views:  # what the last views showed face up there (one may miss it)
                recent |= then.held[seat] if seat < len(then.held) else Counter()
            vanished = recent - view.held[seat]
            if len(vanished) == 1:  # the kind seen face up there until now (even if won unseen)
                out[seat] = next(iter(vanished))
                continue
            if len(missing) == 1:
                out[seat] = next(iter(missing))
            elif len(set(held)) == 1:
                out[seat] = next(iter(held))
            elif missing:
                # several kinds held and none read gone: which one was turned is not known. It was
                # ignored, and a use with nothing to see (a Bomb when nobody else holds a card,
                # R6.4) was published as a plain sum, as sure: asked now, each kind offered
                out[seat] = min(missing, key=lambda kind: kind.value)
                self._flips_guessed.add(seat)
                continue
            else:
                continue
            # (the record's kind of a card won unseen is the pile's guessed order, no reading)
            if not (held - self.seen.tweaks_guessed(seat))[out[seat]]:
                self._flips_guessed.add(seat)
        return out

    def _used_unseen(self, seat: int, laid: int) -> TweakKind | None:
        """The kind of T! card the player may have used unseen to lay more cards than a turn
        without one lays (one): the one the player's place showed face up until now
        (``_gone_tweak``), or, for a player holding T! cards the camera does not see at all, the
        one the cards seen laid in front of other players tell (``_given_up_to``); if it lays
        cards (a Thief, a Shifter, a Bomb: R6) and no fewer than were laid beside the hand card.
        None otherwise."""
        kind = self._gone_tweak(seat, views=1)
        if kind is None and self.seen.round.tweaks_held[seat]:
            kind = self._given_up_to(seat)
        effects = self._effects_expected(kind)
        return kind if kind is not None and effects and laid <= effects + 1 else None

    def _given_up_to(self, seat: int) -> TweakKind | None:
        """The T! card that cards seen laid in front of other players lately (``given``) tell:
        one from each other player holding cards is a Bomb's (R6.4), one alone a Thief's (R6.1;
        with one other player, a Bomb's where the player holds a Bomb and no Thief)."""
        rnd = self.seen.round
        givers = [giver for _, giver in self._given_lately(seat)]
        others = [i for i, hand in enumerate(rnd.hands) if i != seat and hand]
        held = rnd.tweaks_held[seat]
        if len(givers) > 1 and sorted(givers) == others:
            return TweakKind.BOMB
        if len(givers) == 1 and givers[0] in others:
            bomb = others == givers and TweakKind.BOMB in held and TweakKind.THIEF not in held
            return TweakKind.BOMB if bomb else TweakKind.THIEF
        return None

    def _given_lately(self, seat: int) -> list[tuple[Card, int]]:
        """The cards seen laid in front of players other than ``seat`` in the last views (the turn
        before may have been settled after they were laid) and gone from there since (to the
        table, R6.5), each with its giver. (A card lying on there is none: a T! card in front of
        its holder misread as a number card, say.)"""
        if self._view is None:
            return []
        near = SAME_PLACE * self._view.card_length
        still = [at for _, _, at in self._view.given]
        given = dict.fromkeys(
            (card, giver)
            for view in self._last_views
            for card, giver, at in view.given
            if not any(math.dist(at, now) < near for now in still)
        )
        return [(card, giver) for card, giver in given if giver is not None and giver != seat]

    def _gone_tweak(self, seat: int, views: int) -> TweakKind | None:
        """The kind of the one T! card of the player's that the last views showed face up in front
        of them and the latest ``views`` show nowhere near its place, though none was seen turned
        face down (an art whose T! back the camera does not read): it may have been used unseen
        (R4.5). Places, not kinds, tell it gone: a kind misread, or a card just won, is no sign."""
        held = self.seen.round.tweaks_held[seat]
        if self._view is None or not held:
            return None
        shown = [v.tweaks for v in [*self._last_views, self._view]]
        latest, earlier = shown[-views:], shown[:-views]
        near = SAME_PLACE * self._view.card_length
        still = [u.position for tweaks in latest for u in tweaks if u.kind is not None]
        gone: list[tuple[tuple[float, float], Counter]] = []  # each place left, the kinds read there
        for tweaks in earlier:
            for t in tweaks:
                if t.seat != seat or t.kind is None or any(math.dist(t.position, at) < near for at in still):
                    continue
                place = next((g for g in gone if math.dist(g[0], t.position) < near), None)
                if place is None:
                    gone.append((t.position, Counter([t.kind])))
                else:
                    place[1][t.kind] += 1
        if len(gone) != 1:
            return None
        kinds = [k for k, _ in gone[0][1].most_common() if k in held]
        if kinds:
            return kinds[0]
        return held[0] if len(set(held)) == 1 else None

    def _unseen_use_readings(self, make: Callable[[], list[Reading]]) -> list[Reading]:
        """``make``'s readings with the T! card the player's place no longer shows used
        (``_gone_tweak``, in the last two views: one may miss it): a use nobody saw is a reading
        to offer, never one to take as sure (``_holds_unread_tweak`` asks it)."""
        pending = self.pending
        kind = self._gone_tweak(self.seen.round.to_move, views=2) if pending.flip is None else None
        if kind is None:
            return []
        pending.flip, pending.flip_doubted = kind, True
        try:
            return make()
        finally:
            pending.flip, pending.flip_doubted = None, False

    def _guessed_kind_readings(self, make: Callable[[], list[Reading]]) -> list[Reading]:
        """``make``'s readings with the T! card turned face down of each other kind, where its
        kind is only the T! pile's guessed order (won unseen, ``_flips_guessed``): the move is
        asked, and the question offers the kind it really was too (it offered only the guess, and
        a person who knew better had to tap the move in). The rules keep the kinds the pile could
        still have held (``ObservedRound._reveal_tweak_use``)."""
        pending = self.pending
        guess = pending.flip
        if guess is None or not pending.flip_guessed:
            return []
        out: list[Reading] = []
        try:
            for kind in TweakKind:
                if kind is not guess:
                    pending.flip = kind
                    out += make()
        finally:
            pending.flip = guess
        return out

    def _effects_expected(self, kind: TweakKind | None) -> int:
        rnd = self.seen.round
        if kind in (TweakKind.THIEF, TweakKind.SHIFTER):
            return 1
        if kind is TweakKind.BOMB:
            return sum(1 for i, h in enumerate(rnd.hands) if i != rnd.to_move and h)
        return 0

    # -- readings --------------------------------------------------------------------------

    def _tweak_options(
        self, effects: list[Card], shifted_target: int | None, discard: bool = False
    ) -> list[tuple[TweakUse | None, dict]]:
        rnd = self.seen.round
        p = rnd.to_move
        kind = self.pending.flip
        others = [i for i, h in enumerate(rnd.hands) if i != p and h]
        if kind is None:
            return [(None, {})]
        if kind is TweakKind.JOKER:
            # with a discard the delta changes nothing and cannot be seen: recorded as +1 (README)
            return [(UseJoker(1), {})] if discard else [(UseJoker(1), {}), (UseJoker(-1), {})]
        if kind is TweakKind.SHIFTER:
            return [(UseShifter(), {"shifted": effects[0] if effects else None, "shifted_target": shifted_target})]
        seats = self._givers(effects[: 1 if kind is TweakKind.THIEF else len(others)])
        if kind is TweakKind.THIEF:
            if not effects:
                return []
            victims = [seats[0]] if seats[0] in others else others
            return [(UseThief(v, effects[0]), {}) for v in victims]
        if sorted(s for s in seats if s is not None) == sorted(others):  # each victim seen with its card
            return [(UseBomb(tuple(sorted(zip(seats, effects)))), {})]  # type: ignore[arg-type]
        options = []
        for perm in dict.fromkeys(itertools.permutations(effects[: len(others)])):
            options.append((UseBomb(tuple(zip(others, perm))), {}))
            if len(options) >= MAX_READINGS:
                break
        return options

    def _givers(self, cards: list[Card]) -> list[int | None]:
        """The seat each card was seen laid in front of (None: not seen given)."""
        left = list(self.pending.given)
        seats: list[int | None] = []
        for card in cards:
            match = next((g for g in left if g[0] == card), None)
            if match is not None:
                left.remove(match)
            seats.append(match[1] if match else None)
        return seats

    def _effect_splits(self) -> list[tuple[list[Card], list[Card]]]:
        """The cards laid this turn split into the used T! card's effects, which come first (the
        stolen card, the one turned up, the cards given, R6), and the rest. Where cards first seen
        in the same view straddle that split, which came first is not known: each way."""
        arrivals = self.pending.arrivals
        k = self._effects_expected(self.pending.flip)
        splits = [(arrivals[:k], arrivals[k:])]
        starts = sorted({0, *(b for b in self.pending.batches if b < len(arrivals))})
        if not 0 < k < len(arrivals) or k in starts:
            return splits
        first = max(b for b in starts if b < k)  # the batch that straddles the split
        last = min([b for b in starts if b > k] + [len(arrivals)])
        batch = arrivals[first:last]
        for chosen in itertools.combinations(range(len(batch)), k - first):
            effects = arrivals[:first] + [batch[i] for i in chosen]
            rest = [c for i, c in enumerate(batch) if i not in chosen] + arrivals[last:]
            if all(Counter(effects) != Counter(e) for e, _ in splits):
                splits.append((effects, rest))
        return splits

    def _readings(self, view: TableView, refill: list[Card], gone: Counter, gained: TweakKind | None) -> list[Reading]:
        rnd = self.seen.round
        p = rnd.to_move
        pending = self.pending
        readings: list[Reading] = []
        for effects, rest in self._effect_splits():
            # the hand card is a card laid this turn; only when none was seen can it be any card picked up
            hands = [c for c in rest if gone[c]] or list(gone)
            for hand in dict.fromkeys(hands):
                taken = gone - Counter([hand])
                if not taken:
                    continue
                play = Sum(hand, tuple(sorted(taken.elements(), key=_order)))
                for use, extra in self._tweak_options(effects, pending.shifted_target):
                    observed = ObservedTurn(
                        Turn(p, play, use),
                        table_reveals=tuple(refill),
                        tweak_won=gained,
                        target_after=view.target,
                        **extra,
                    )
                    self._add_reading(readings, observed)
        return readings

    def _add_reading(self, readings: list[Reading], observed: ObservedTurn) -> None:
        """``observed`` checked and added to ``readings``, unless a reading of the same move is
        there (the ways of splitting a turn's cards can give one move twice)."""
        if all(turn_key(r.observed.turn) != turn_key(observed.turn) for r in readings):
            readings.append(Reading(observed, self.seen.check(observed)))

    def _gained(self, view: TableView) -> TweakKind | None:
        """The T! card won by this turn's TWEAK (R4.2): the face-up one nobody was seen to win."""
        free = [t for t in view.tweaks if t.kind is not None and self._owner(t, view) is None]
        if len(free) == 1:
            return free[0].kind
        rnd = self.seen.round
        p = rnd.to_move
        mine = [t for t in free if t.seat == p]
        return mine[0].kind if len(mine) == 1 else None

    def _won_elsewhere(self, valid: list[Reading]) -> bool:
        """A TWEAK read (every table card taken) while the face-up T! cards nobody was seen to win
        lie only in front of other players, clear of their seats' borders: one of them won it (R4.2),
        maybe with this sum, its card played unseen (the camera's seats are by angle: a doubt)."""
        rnd = self.seen.round
        if self._view is None or not rnd.tweak_pile_left:
            return False
        free = [t for t in self._view.tweaks if t.kind is not None and self._owner(t, self._view) is None]
        table = Counter(rnd.table)
        plays = [r.observed.turn.play for r in valid]
        tweak = any(isinstance(play, Sum) and not table - Counter(play.take) for play in plays)
        elsewhere = [t.seat != rnd.to_move and t.off_seat < CLEAR_OF_SEAT_BORDER for t in free]
        return tweak and bool(free) and all(elsewhere)

    def _won_unseen(self) -> bool:
        """A face-up T! card in view that nobody was seen to win (``_gained``'s)."""
        return self._view is not None and self._gained(self._view) is not None

    def _late_readings(self, readings: list[Reading]) -> list[Reading]:
        """A sum that took a refill card the camera never saw: that card's face is a guess, so try
        every card it could have been (the engine keeps those that fit); the referee is asked."""
        unseen = self.seen.unseen
        if not unseen or not readings:
            return []
        colours = self.seen.colours
        out: list[Reading] = []
        for r in readings:
            play = r.observed.turn.play
            if not isinstance(play, Sum):
                continue
            for guess in dict.fromkeys(c for c in play.take if unseen[c]):
                rest = list(play.take)
                rest.remove(guess)
                for colour in colours:
                    for value in range(1, 7):
                        card = Card(colour, value)
                        turn = Turn(r.observed.turn.player, Sum(play.hand, tuple(rest + [card])), r.observed.turn.tweak)
                        observed = replace(r.observed, turn=turn, late=((guess, card),))
                        error = self.seen.check(observed)
                        if error is None:
                            out.append(Reading(observed))
                if len(out) >= MAX_READINGS:
                    return out
        return out

    def _refuse_if_lasting(self, events: list[Event]) -> None:
        """A card missed in one view looks like a move: only a refusal seen twice is reported."""
        pending = self.pending
        pending.refused_views += 1
        if pending.refusal is not None and pending.refused_views == 2:
            events.append(pending.refusal)

    def _commit_sum(self, view: TableView, refill: list[Card], gone: Counter, events: list[Event]) -> bool:
        readings = self._readings(view, refill, gone, self._gained(view))
        readings += self._unseen_use_readings(lambda: self._readings(view, refill, gone, self._gained(view)))
        for reading in self._guessed_kind_readings(lambda: self._readings(view, refill, gone, self._gained(view))):
            self._add_reading(readings, reading.observed)
        sure = [c for c in refill if c not in self.pending.low]
        if not any(r.error is None for r in readings) and len(sure) < len(refill):
            # a refill card read in doubt is left a guess (asked about when a sum takes it)
            readings += self._readings(view, sure, gone, self._gained(view))
        if not any(r.error is None for r in readings) and refill:  # the cards that came last were a discard
            readings += self._readings(view, [], gone, self._gained(view))
        if not any(r.error is None for r in readings):
            # the sum may have taken a refill card never seen: take it too, whatever it was
            unseen = Counter(self.seen.unseen) & Counter(self.seen.round.table)
            hidden = unseen - view.cards
            if hidden:
                more = self._readings(view, refill, gone + hidden, self._gained(view))
                readings += more + self._late_readings(more)
        twins_only = False
        if not any(r.error is None for r in readings):
            # a card turned onto the table by the refill may be the twin of one just picked up
            # (a TWEAK's refill turns up to 2 cards, R4.6: one or both may be twins). When no other
            # card came, the view is the table as it was less the cards laid: those cards missed
            # in this view fit as well, so the reading is a guess, asked
            twins_only = not refill
            start = Counter(self.seen.round.table) + self.pending.seen
            twins = list((Counter(c for c in view.cards.elements() if start[c]) & start).elements())
            for size in (1, 2):
                for combo in dict.fromkeys(itertools.combinations(sorted(twins, key=_order), size)):
                    extra = Counter(combo)
                    readings += self._readings(view, refill + list(combo), gone + extra, self._gained(view))
                if any(r.error is None for r in readings):
                    break
        # no card was seen laid this turn: the hand card is taken for one of the cards gone, a
        # guess (the card played came and went between two still views)
        hand_unseen = not self.pending.arrivals[self._effects_expected(self.pending.flip) :]
        # a card gone in the view before, where no move fitted, lies there again: a twin laid since
        # (the next player's) or a card missed then; which cards the sum took is not known
        back = self.pending.refusal is not None and bool((self.pending.refused_gone - gone) & view.cards)
        return self._decide(readings, events, "sum", twins=twins_only, hand_unseen=hand_unseen, back=back)

    def _commit_discard(
        self,
        events: list[Event],
        target_after: int | None,
        candidates: list[Card] | None = None,
        unexplained: bool = False,
        drawn: bool = False,
        refills: dict[Card, tuple[tuple[Card, Card], ...]] | None = None,
    ) -> bool:
        """The turn was a discard (R4.3). ``candidates``: the cards it may have been, when several
        were first seen together (several readings: the referee is asked). ``unexplained``: the
        discard is inferred only because cards were picked up that no sum fits (asked too).
        ``drawn``: settled because the next player plays, so its player has drawn. ``refills``:
        for each candidate, the refill guesses it names the other cards come (``_refills``)."""
        rnd = self.seen.round
        pending = self.pending
        mover = rnd.to_move  # checking a reading rebuilds the round: ``rnd`` is not current after it

        def discards() -> list[Reading]:
            out: list[Reading] = []
            for effects, rest in self._effect_splits():
                for card in candidates or dict.fromkeys(rest[:1] or pending.arrivals[-1:]):
                    for use, extra in self._tweak_options(effects, pending.shifted_target, discard=True):
                        late = (refills or {}).get(card, ())
                        observed = ObservedTurn(
                            Turn(mover, Discard(card), use), target_after=target_after, late=late, **extra
                        )
                        self._add_reading(out, observed)
            return out

        readings = discards()
        for reading in self._unseen_use_readings(discards) + self._guessed_kind_readings(discards):
            self._add_reading(readings, reading.observed)
        return self._decide(readings, events, "discard", unexplained, drawn)

    def _decide(
        self,
        readings: list[Reading],
        events: list[Event],
        what: str,
        unexplained: bool = False,
        drawn: bool = False,
        twins: bool = False,
        hand_unseen: bool = False,
        back: bool = False,
    ) -> bool:
        """Play the reading that fits (asking when several do, or when it would be a guess: see the
        reasons below); False when none fits. ``unexplained`` and ``drawn``: as ``_commit_discard``'s;
        ``twins``: the readings take a card that a refill card just like it replaced; ``hand_unseen``:
        no card was seen laid before the sum; ``back``: a card gone in the view before lies there again."""
        seen = self.seen
        pending = self.pending
        valid = [r for r in readings if r.error is None]
        in_view = self._view.cards if self._view is not None else Counter()
        doubt: list[Any] = [
            c for c in self._cards_of(readings) if c in pending.low and not self._settled_by_the_rules(c, valid)
        ]
        if pending.flip_doubted:
            doubt.append(pending.flip)
        # a card of the table the camera never saw (a refill card missed) is a guess: ask
        doubt += [c for c in self._taken_of(valid) if seen.unseen[c] and not in_view[c]]
        # a card played or taken that a doubtful reading in view may be (misread, still lying there) is a guess
        maybe_here = {alt for card, alts in pending.low.items() if in_view[card] for alt in alts}
        doubt += [c for c in self._cards_of(valid) if c in maybe_here and not in_view[c]]
        if not valid:
            valid = self._alternatives(readings)
            doubt = doubt or ["?"]
        elif doubt:  # the doubtful card read as its next-best labels, where the move fits too
            known = {turn_key(r.observed.turn) for r in valid}
            valid += [r for r in self._alternatives(valid) if turn_key(r.observed.turn) not in known]
        player = self.players[seen.round.to_move]
        # why the move is asked, first reason first (none: it is played as sure)
        reasons = [
            reason
            for asked_for, reason in (
                (doubt, "doubtful reading"),
                (len(valid) > 1, "several readings fit"),
                (unexplained, "cards picked up that no sum explains"),
                (twins, "a refill card looks like one taken"),
                (hand_unseen, "the card played was not seen"),
                (back, "a card seen taken lies there again"),
                # (the sum that takes the card laid is then the next player's, its hand card unseen)
                (what == "sum" and pending.drew_while_laid, "its player drew while the card laid lay there"),
                (what == "sum" and self._won_elsewhere(valid), "the T! card won lies in front of another player"),
                # a T! card nobody was seen to win lies face up: a TWEAK won it, and a discard
                # wins none (R4.2), so the sum that won it was missed
                (what == "discard" and self._won_unseen(), "a T! card was won, which a discard does not win (R4.2)"),
                # a player holding a T! card the camera cannot read (an art it does not know, a
                # card won unseen) may have used it unseen (R4.5)
                (
                    self._holds_unread_tweak(seen.round.to_move) and not self._no_use_fits(what, valid),
                    "holds a T! card the camera cannot read",
                ),
                # a refill card never seen is a guess, and a guess rules readings in and out
                (self._guess_in_play(readings) or pending.guess_seen_late, "a refill card was not seen"),
                (self._unsynced, "a turn may have gone by unseen"),
                (self._refused_at is not None, "a change by hand was refused: an earlier move may be wrong"),
                # a face laid and misread as a back is unseen: the move may rest on it
                (pending.unread, "a card in the centre could not be read"),
                # a move settled from the same view as a question rests on its answer, not yet given
                (any(e.kind == "question" for e in events), "follows a move in question"),
            )
            if asked_for
        ]
        if valid and not reasons:
            chosen, asked = valid[0], None
        elif valid:
            reason = reasons[0]
            question = Event(
                "question",
                {
                    "player": player,
                    "reason": reason,
                    "readings": [self._describe(r.observed) for r in valid],
                },
                valid,
            )
            events.append(question)
            choice = self.answer(question)
            chosen, asked = valid[choice or 0], question
        else:
            first = readings[0] if readings else None
            err = first.error if first else None
            pending.refusal = Event(
                "refused",
                {
                    "player": player,
                    "move": self._describe(first.observed) if first else None,
                    "rule": err.rule if err else None,
                    "message": err.message if err else f"no {what} fits what was seen",
                },
                readings,
            )
            return False
        mover = chosen.observed.turn.player
        tweaks_before = seen.round.tweak_counts[mover]
        seen.push(chosen.observed)
        self._resync_laid = Counter()
        self._followed = [turn_key(t.turn) for t in seen.turns]
        self._drawn_after_last = drawn
        if seen.round.tweak_counts[mover] > tweaks_before and self._view is not None:
            self._claim(self._view, mover)
        events.append(
            Event(
                "move",
                {
                    "n": len(seen.turns),
                    **self._describe(chosen.observed),
                    "verdict": "valid",
                    "made_tweak": seen.round.tweak_counts[mover] > tweaks_before,
                    "asked": asked is not None,
                    "confidence": round(self._confidence(chosen), 3),
                    "target": seen.round.target if not seen.round.is_over() else None,
                },
                [chosen],
            )
        )
        self.pending = _Pending()
        return True

    def _no_use_fits(self, what: str, valid: list[Reading]) -> bool:
        """Whether no T! card can have been used unseen in this move: a sum that makes the target
        (a Joker's would miss it by one, R6.2), with no card laid but the hand card and none seen
        given up to a Thief or a Bomb (their cards go to the table, R6.5; a Shifter's too, R6.3),
        and no T! card gone from its holder's place. (A discard is no such proof: a Joker used
        with one changes nothing that can be seen.)"""
        p = self.seen.round.to_move
        turned = self._view is not None and self._turned_down(self._view, p)
        return (
            what == "sum"
            and bool(valid)
            and all(r.observed.turn.tweak is None for r in valid)
            and self.pending.flip is None
            and not turned  # (a T! card turned face down is used, R4.5)
            and len(self.pending.arrivals) <= 1
            and p is not None
            and not self._given_lately(p)
            and self._gone_tweak(p, views=2) is None
        )

    def _holds_unread_tweak(self, seat: int | None) -> bool:
        """Whether ``seat`` holds more T! cards than the last views read surely face up in front of
        it, and may have used one unseen: fewer read face up there (of any kind) than it holds, one
        turned face down, or one gone from its place lately (``_gone_tweak``)."""
        if seat is None or self.seen is None:
            return False
        if self.pending.flip is None and self._gone_tweak(seat, views=2) is not None:
            return True  # (one shown face up there until lately is gone: used unseen, or moved)
        # (the one turned face down this turn is being used: the camera saw it go)
        held = len(self.seen.round.tweaks_held[seat]) - (self.pending.flip is not None)
        if held <= max((sure[seat] for sure in self._sure_held if seat < len(sure)), default=0):
            return False
        # read face up there in each of the last views, whatever their kinds, and none turned face
        # down: none was used (a T! card used is turned face down, R4.5; a kind the camera cannot
        # name does not hide that)
        views = [v.held for v in [*self._last_views[-2:], self._view]] if self._view is not None else []
        shown = min((sum(h[seat].values()) for h in views if seat < len(h)), default=0)
        turned = self._view is not None and self._turned_down(self._view, seat)
        return shown < held or turned

    def _settled_by_the_rules(self, card: Card, valid: list[Reading]) -> bool:
        """Whether a card read in doubt is sure once the one reading that fits is known: what its
        other readings would make of the move breaks a rule, so what is left of its doubt (the
        readings that fit as well, those not listed) is under the bar. A card played that no
        copy of the deck is left for (R1.1, the colours in play R2.2) rules its reading out; a
        sum that misses the target (R4.1) does so but for a wrong sum of a player's that the
        misread makes look right (``WRONG_SUM_SHARE`` of that doubt). A turn with a T! card, or a
        doubt from elsewhere (a re-reading, the deal) is not settled so."""
        if len(valid) != 1:
            return False
        reading = valid[0]
        turn = reading.observed.turn
        play = turn.play
        played = play.card if isinstance(play, Discard) else play.hand
        cards = [play.card] if isinstance(play, Discard) else [play.hand, *play.take]
        if turn.tweak is not None or card not in cards:
            return False
        views = self.pending.doubtful_views.get(card, [])
        # (an alternative with no probability, a card read surely there before, is a doubt of its own)
        listed = {alt for seen in views for alt in seen.alternatives[: len(seen.odds)]}
        doubted = {alt for seen in views for alt in seen.alternatives} | set(self.pending.low.get(card, ()))
        if not views or doubted - listed:
            return False
        ruled_out: dict[Card, float] = {}  # each alternative's share of its doubt ruled out
        for alt in listed:
            swapped = [alt if c == card else c for c in cards]
            play_as = Discard(alt) if isinstance(play, Discard) else Sum(swapped[0], tuple(swapped[1:]))
            error = self.seen.check(replace(reading.observed, turn=Turn(turn.player, play_as, turn.tweak)))
            if error is None:
                ruled_out[alt] = 0.0
            elif error.code == "wrong_sum":
                ruled_out[alt] = 1 - WRONG_SUM_SHARE
            else:  # (a card taken read as one not on the table is no proof: the table was read too)
                ruled_out[alt] = 1.0 if error.code == "not_in_hand" and card == played else 0.0
        for seen in views:
            left = 1 - seen.confidence - sum(ruled_out[alt] * p for alt, p in zip(seen.alternatives, seen.odds))
            if left >= 1 - self.doubt_below:
                return False
        return True

    def _taken_of(self, readings: list[Reading]) -> set[Card]:
        cards: set[Card] = set()
        for r in readings:
            play = r.observed.turn.play
            if isinstance(play, Sum):
                cards |= set(play.take)
        return cards

    def _cards_of(self, readings: list[Reading]) -> set[Card]:
        """The cards the readings rest on: the play's, and those a Thief or a Bomb moved (R6)."""
        cards: set[Card] = set()
        for r in readings:
            play = r.observed.turn.play
            cards |= {play.card} if isinstance(play, Discard) else {play.hand, *play.take}
            cards |= _tweak_cards(r.observed.turn)
        return cards

    def _alternatives(self, readings: list[Reading]) -> list[Reading]:
        """A refused reading retried with each doubtful card read as its next-best label."""
        out: list[Reading] = []
        for r in readings:
            turn = r.observed.turn
            play = turn.play
            if isinstance(play, Discard):  # the discarded card read as its next-best labels
                for alt in self.pending.low.get(play.card, ()):
                    observed = replace(r.observed, turn=Turn(turn.player, Discard(alt), turn.tweak))
                    if self.seen.check(observed) is None:
                        out.append(Reading(observed))
                continue
            cards = [play.hand, *play.take]
            for i, card in enumerate(cards):
                for alt in self.pending.low.get(card, ()):
                    swapped = cards[:i] + [alt] + cards[i + 1 :]
                    new = Sum(swapped[0], tuple(swapped[1:]))
                    observed = ObservedTurn(
                        Turn(turn.player, new, turn.tweak),
                        r.observed.table_reveals,
                        r.observed.shifted,
                        r.observed.shifted_target,
                        r.observed.tweak_won,
                        target_after=r.observed.target_after,
                    )
                    error = self.seen.check(observed)
                    if error is None:
                        out.append(Reading(observed))
        return out[:MAX_READINGS]

    def _confidence(self, reading: Reading) -> float:
        """The least confident reading among the cards the move used."""
        play = reading.observed.turn.play
        cards = [play.card] if isinstance(play, Discard) else [play.hand, *play.take]
        return min([self.pending.conf.get(c, 1.0) for c in [*cards, *_tweak_cards(reading.observed.turn)]])

    def _describe(self, observed: ObservedTurn) -> dict[str, Any]:
        return turn_line(self.players, observed.turn)

    def _round_over(self) -> list[Event]:
        if self.over_reported or self.seen is None:
            return []
        self.over_reported = True
        scores = self.seen.scores()
        return [
            Event(
                "round_over",
                {
                    "scores": dict(zip(self.players, scores)),
                    "tweaks": dict(zip(self.players, self.seen.round.tweak_counts)),
                    "moves": len(self.seen.turns),
                },
            )
        ]


def _cards_taken(turns: Sequence[ObservedTurn]) -> Counter:
    """The cards ``turns`` took off the table: each sum's hand card and the cards it took."""
    out: Counter = Counter()
    for observed in turns:
        play = observed.turn.play
        if isinstance(play, Sum):
            out.update([play.hand, *play.take])
    return out


def _tweak_cards(turn: Turn) -> set[Card]:
    """The number cards a T! card moved: the card a Thief took, the cards a Bomb made them give."""
    if isinstance(turn.tweak, UseThief):
        return {turn.tweak.stolen}
    if isinstance(turn.tweak, UseBomb):
        return {card for _, card in turn.tweak.cards}
    return set()


def turn_key(turn: Turn) -> str:
    """A turn as text, for telling readings apart."""
    return repr(turn)


def _order(card: Card) -> tuple[str, int]:
    return card.colour.value, card.value


def _refills(guesses: Counter, come: Counter) -> dict[Card, tuple[tuple[Card, Card], ...]]:
    """For each card ``come`` into view with a refill never seen (``guesses``, its cards as the
    round guessed them): were it the next turn's, the refill's cards are the others, each guess
    named one of them (``ObservedTurn.late``). Empty where the counts do not match.

    >>> red1, red2, red3, red4 = (Card.parse(f"red-{v}") for v in (1, 2, 3, 4))
    >>> _refills(Counter([red1, red4]), Counter([red2, red3, red4]))[red2]
    ((Card.parse('red-1'), Card.parse('red-3')), (Card.parse('red-4'), Card.parse('red-4')))
    """
    named = sorted(guesses.elements(), key=_order)
    out: dict[Card, tuple[tuple[Card, Card], ...]] = {}
    for card in come:
        rest = sorted((come - Counter([card])).elements(), key=_order)
        if named and len(rest) == len(named):
            out[card] = tuple(zip(named, rest))
    return out
