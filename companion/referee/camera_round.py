"""A round refereed from the camera: what was seen of it and the move inference following it, kept
in step whoever changes the round (the camera, or the referee person tapping, undoing, correcting).

Pure Python, no I/O: the dashboard stores what each change returns (``companion.web``), and a
restart rebuilds the round from its last snapshot (:meth:`CameraRound.from_snapshot`).

>>> from companion.engine.cards import Card, Colour, Edition
>>> rnd = CameraRound(["Ada", "Cai"], 0, [Colour.RED, Colour.BLUE], Edition.CLASSIC)
>>> rnd.deal([Card.parse("red-3"), Card.parse("blue-5")], 8)
{'kind': 'seen_deal', 'source': 'referee', 'table': ['red-3', 'blue-5'], 'target': 8}
>>> rnd.seen.round.target
8
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

from ..engine.cards import Card, Colour, Edition, TweakKind
from ..engine.errors import RuleError
from ..engine.record import turn_line
from ..engine.state import Turn
from .infer import Event, Referee
from .observed import ObservedRound, ObservedTurn, turn_json
from .view import TableView


@dataclass
class Outcome:
    """What one of the camera's events means for the round's record: a log ``entry`` (the round
    changed: store its snapshot), a ``question`` (kept until the move it is about is stored), a
    ``note`` (what the camera waits for), or a ``refusal`` (a move the rules refuse)."""

    entry: dict | None = None
    question: dict | None = None
    note: str | None = None
    refusal: dict | None = None
    waits: bool = False  # the event was a note (``note`` may be None: nothing to wait for any more)
    number: int | None = None  # the move's number in the round, for the question about it


class CameraRound:
    """The camera round in play: ``seen`` (None until the deal is seen, R2.4) and its Referee."""

    def __init__(
        self,
        players: Sequence[str],
        dealer: int,
        colours: Sequence[Colour],
        edition: Edition,
        seen: ObservedRound | None = None,
    ) -> None:
        self.players = list(players)
        self.dealer = dealer
        self.colours = list(colours)
        self.edition = edition
        self.seen = seen
        self._referee: Referee | None = None  # started on the first camera view (not stored: rebuilt)

    @classmethod
    def from_snapshot(
        cls, snapshot: dict | None, players: Sequence[str], dealer: int, colours: Sequence[Colour], edition: Edition
    ) -> CameraRound:
        """The round rebuilt after a restart from its last stored snapshot (None: deal not seen)."""
        seen = None
        if snapshot is not None:
            seen = ObservedRound.from_snapshot(snapshot, players, dealer, colours, edition)
        return cls(players, dealer, colours, edition, seen)

    @property
    def referee(self) -> Referee:
        if self._referee is None:
            self._referee = Referee(self.players, self.dealer, self.colours, self.edition)
            self._referee.resync(self.seen)
        return self._referee

    def _changed(self) -> None:
        """The round was changed by hand: the move inference starts again from it."""
        if self._referee is not None:
            self._referee.resync(self.seen)

    # -- the camera --------------------------------------------------------------------------

    def see(self, view: TableView) -> list[tuple[Event, Outcome]]:
        """A still view of the table: the moves it shows (the best reading is played while a
        question waits for the referee), the notes and refusals, each with what to record."""
        return [(event, self._outcome(event)) for event in self.referee.see(view)]

    def settle(self, ended: bool = False) -> list[tuple[Event, Outcome]]:
        """The table stayed still (or, ``ended``, the pictures ended): a card still lying from the
        last turn may be a discard nobody follows (R4.3, R5.1)."""
        if self.seen is None:
            return []
        referee = self.referee
        events = referee.finish() if ended else referee.settle()
        return [(event, self._outcome(event)) for event in events]

    def _outcome(self, event: Event) -> Outcome:
        data = event.data
        if event.kind == "note":
            return Outcome(note=data.get("message"), waits=True)
        if event.kind == "start":
            self.seen = self.referee.seen
            return Outcome(entry={"kind": "seen_deal", "table": data["table"], "target": data["target"]}, waits=True)
        if event.kind == "question":
            readings = [turn_json(self.players, r.observed) for r in event.readings]
            return Outcome(question={"player": data["player"], "reason": data["reason"], "readings": readings})
        if event.kind == "move":
            observed = event.readings[0].observed
            entry = {
                "kind": "turn",
                "source": "camera",
                "player": self.players[observed.turn.player],
                **turn_line(self.players, observed.turn),
                "target": data.get("target"),
                "tweak_made": data.get("made_tweak", False),
                "asked": data.get("asked", False),
                "confidence": data.get("confidence"),
            }
            return Outcome(entry=entry, number=data["n"])
        if event.kind == "refused":
            rule = data.get("rule") or "R3.2"
            refusal = {"player": data["player"], "error": "camera", "rule": rule, "message": data["message"]}
            return Outcome(refusal=refusal | {"source": "camera"})
        return Outcome()

    # -- the referee person ------------------------------------------------------------------

    def deal(self, table: Sequence[Card], target: int) -> dict:
        """The 2 cards dealt face up in the centre (R2.4) and the target (R3.1), entered by hand
        (no camera, or not calibrated yet). Raises RuleError; returns the log entry."""
        seen = ObservedRound(self.players, self.dealer, self.colours, self.edition, list(table))
        seen.observe_target(target)
        self.seen = seen
        self._referee = None
        return {"kind": "seen_deal", "source": "referee", "table": [c.name for c in table], "target": target}

    def play(self, turn: Turn) -> dict:
        """A move tapped in by the referee (one the camera missed or refused). Raises RuleError;
        returns the log entry."""
        seen = self._require_seen()
        mover = turn.player
        before = seen.round.tweak_counts[mover]
        with self._refused_doubts():
            seen.push(ObservedTurn(turn))
        self._changed()
        made = seen.round.tweak_counts[mover] > before
        line = turn_line(self.players, turn)
        return {"kind": "turn", "source": "referee", "player": self.players[mover], **line, "tweak_made": made}

    def undo(self) -> dict:
        """The last move taken back; returns the log entry."""
        last = self._require_seen().pop()
        self._changed()
        return {"kind": "undo", "player": self.players[last.turn.player]}

    def set_target(self, target: int) -> dict:
        """The target read from the deck's top back (R3.1), before the next move."""
        seen = self._require_seen()
        seen.observe_target(target)
        self._changed()
        return {"kind": "target", "source": "referee", "target": seen.round.target}

    def correct_table(self, shown: Card, actual: Card) -> dict:
        """A table card the camera misread when it was turned or dealt: the round is recomputed.
        Raises RuleError (nothing changes)."""
        with self._refused_doubts():
            self._require_seen().correct_table(shown, actual)
        self._changed()
        return {"kind": "table_fixed", "shown": shown.name, "actual": actual.name}

    def correct_tweak(self, player: int, shown: TweakKind, actual: TweakKind) -> dict:
        """A T! card won by a TWEAK whose face the camera misread (or guessed): the round is
        recomputed. Raises RuleError (nothing changes)."""
        with self._refused_doubts():
            self._require_seen().correct_tweak(player, shown, actual)
        self._changed()
        return {"kind": "tweak_fixed", "player": self.players[player], "shown": shown.value, "actual": actual.value}

    def correct(self, index: int, observed: ObservedTurn, player: str, number: int) -> dict:
        """Move ``index`` replaced by the reading the referee chose: everything after it is
        recomputed. Raises RuleError (nothing changes)."""
        with self._refused_doubts(index):
            self._require_seen().correct(index, observed)
        self._changed()
        return {"kind": "corrected", "player": player, "turn": number}

    def confirm(self, number: int) -> None:
        """Move ``number`` (from 1) confirmed by the referee as the camera played it (its question
        answered with the reading played): a doubt that a turn went by unseen before it is settled
        (``Referee.confirm``)."""
        if self._referee is not None:
            self._referee.confirm(number)

    @contextmanager
    def _refused_doubts(self, at: int | None = None) -> Iterator[None]:
        """A change by hand (of move ``at``; None: the next) the rules refuse: the round as inferred
        is not the table's, so the camera's moves are asked until a change by hand rewrites that
        move or one before it (``Referee.doubt_round``)."""
        try:
            yield
        except RuleError:
            if self._referee is not None:
                self._referee.doubt_round(at)
            raise

    def _require_seen(self) -> ObservedRound:
        if self.seen is None:
            raise ValueError("the deal has not been seen yet (R2.4)")
        return self.seen

    def possible_hand(self, seat: int) -> list[Card]:
        return [] if self.seen is None else self.seen.possible_hand(seat)

    def is_over(self) -> bool:
        return self.seen is not None and self.seen.round.is_over()

    def record_lines(self, number: int) -> list[str]:
        return self._require_seen().record_lines(number)

    def snapshot(self) -> dict:
        return self._require_seen().snapshot()
