"""A match as the dashboard holds it (its replayed state, log and camera round), the hub that wakes
its live streams, the service's error, and the field checks both the service and its camera
rounds use."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..engine.cards import Card, Colour, TweakKind
from ..engine.record import Replayer, dumps
from ..engine.state import Round
from ..referee.camera_round import CameraRound
from ..referee.observed import ObservedRound

MAX_LOG = 30


class ServiceError(Exception):
    """A request that cannot be carried out: an HTTP status and a message for people."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


@dataclass
class LiveMatch:
    id: int
    name: str
    seed: int
    autoplay: bool
    replayer: Replayer = field(default_factory=Replayer)
    lines: list[dict] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)
    version: int = 0
    updated: float = 0.0
    # a match refereed from the camera: the round in play is an ObservedRound (hands unknown)
    camera: bool = False
    waiting: dict | None = None  # the camera round in play: {"round", "dealer", "colours"}
    snapshot: dict | None = None  # its last stored snapshot (ObservedRound.snapshot)
    questions: list[dict] = field(default_factory=list)
    commits: list[tuple[int, dict, dict]] = field(default_factory=list)  # (lines before, waiting, snapshot)
    note: str | None = None  # what the camera referee waits for
    # the camera's refusal of the table as it stands (no move fits it, seen twice), until the round
    # changes: the referee is told the camera cannot follow, and taps the move in or corrects one
    stuck: dict | None = None
    asking: dict | None = None  # a question whose move is being recorded
    _camera_round: CameraRound | None = None  # the camera round in memory (rebuilt from ``snapshot``)
    damage: str | None = None  # a stored event that could not be replayed (the match is read-only)

    @property
    def camera_round(self) -> CameraRound | None:
        """The camera round in play, rebuilt from its last snapshot when needed (after a restart)."""
        if self.waiting is None:
            return None
        if self._camera_round is None:
            players = self.match.players
            colours = [Colour(c) for c in self.waiting["colours"]]
            dealer = players.index(self.waiting["dealer"])
            self._camera_round = CameraRound.from_snapshot(self.snapshot, players, dealer, colours, self.match.edition)
        return self._camera_round

    @property
    def seen(self) -> ObservedRound | None:
        """What was seen of the camera round in play (None until its deal is seen)."""
        camera_round = self.camera_round
        return None if camera_round is None else camera_round.seen

    def forget_round(self) -> None:
        """The camera round in memory no longer matches the stored events: rebuilt when needed."""
        self._camera_round = None

    @property
    def match(self):
        assert self.replayer.match is not None
        return self.replayer.match

    def apply(self, kind: str, body: dict, seq: int, at: float, live_seen: bool = False) -> None:
        """Apply one stored event to the in-memory state (also used to rebuild after a restart).

        ``live_seen``: a "seen" event whose snapshot was just taken of the camera round in memory,
        which is kept (with its move inference) instead of being rebuilt."""
        self.version, self.updated = seq, at
        if kind == "rejected" and body.get("source") == "camera":
            self.stuck = {key: body.get(key) for key in ("player", "rule", "message")}
        elif kind in ("line", "undo", "seen_round", "seen", "commit", "reopen"):
            self.stuck = None
        if kind == "line":
            before = self.replayer.current_round
            tweaks_before = list(before.tweak_counts) if before is not None else None
            target = before.target if before is not None else None
            self.replayer.feed(dumps(body))
            self.lines.append(body)
            if "turn" in body:
                rnd = self.replayer.current_round
                entry = {"seq": seq, "kind": "turn", "player": body["turn"], "target": target, **body}
                seat = self.match.players.index(body["turn"])
                entry["tweak_made"] = tweaks_before is not None and rnd.tweak_counts[seat] > tweaks_before[seat]
                self._log(entry)
            elif "round" in body:
                self._log({"seq": seq, "kind": "round", "round": body["round"], "dealer": body["dealer"]})
        elif kind == "undo":
            self.match.pop()
            undone = self.lines.pop()
            self._log({"seq": seq, "kind": "undo", "player": undone.get("turn")})
        elif kind == "rejected":
            self._log({"seq": seq, "kind": "rejected", **body})
        elif kind == "pile_check":
            self._log({"seq": seq, "kind": "pile_check", **body})
        elif kind == "mode":
            self.camera = bool(body.get("camera"))
        elif kind == "seen_round":  # a camera round: dealt at the table, seen by the camera
            self.waiting, self.snapshot, self.questions, self.note = body, None, [], None
            self.forget_round()
            self._log({"seq": seq, "kind": "round", "round": body["round"], "dealer": body["dealer"]})
        elif kind == "seen":
            if not live_seen:  # replayed from storage: rebuilt when needed
                self.forget_round()
            self.snapshot = body["snapshot"]
            if body.get("entry"):
                self._log({"seq": seq, **body["entry"]})
        elif kind == "question":
            self.questions.append({**body, "seq": seq, "answer": None})
        elif kind == "answer":
            for question in self.questions:
                if question["id"] == body["id"]:
                    question["answer"] = body["reading"]
        elif kind == "commit":  # the camera round is over: its record lines join the match
            assert self.waiting is not None and self.snapshot is not None
            self.commits.append((len(self.lines), self.waiting, self.snapshot))
            for line in body["lines"]:
                self.replayer.feed(dumps(line))
                self.lines.append(line)
            self.waiting, self.snapshot = None, None
            self.forget_round()
        elif kind == "reopen":  # undo after a camera round was scored: it is in play again
            before, self.waiting, self.snapshot = self.commits.pop()
            self.forget_round()
            kept = self.lines[:before]
            self.replayer, self.lines = Replayer(), []
            for line in kept:
                self.replayer.feed(dumps(line))
                self.lines.append(line)

    def _log(self, entry: dict) -> None:
        self.log.append(entry)
        del self.log[:-MAX_LOG]


class Hub:
    """Wakes the live streams of a match when its version changes."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._versions: dict[int, tuple[int, float]] = {}
        self.closed = False
        self.streams = 0  # live streams open now (each holds one server thread)

    def open_stream(self, limit: int) -> Callable[[], None] | None:
        """Count one more live stream, unless ``limit`` are open (the threads left over serve the
        referee and the pages whatever the watchers do). Returns the stream's release, which may be
        called more than once (a stream ends by its generator and by its response's close)."""
        with self._cond:
            if self.streams >= limit:
                return None
            self.streams += 1
        released = threading.Event()

        def release() -> None:
            with self._cond:
                if not released.is_set():
                    released.set()
                    self.streams -= 1

        return release

    def close(self) -> None:
        """The server is stopping: every waiting stream wakes and ends (none waits again)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def publish(self, match_id: int, version: int, at: float) -> None:
        with self._cond:
            self._versions[match_id] = (version, at)
            self._cond.notify_all()

    def wait(self, match_id: int, seen: int, timeout: float) -> tuple[int, float] | None:
        """The match's (version, time) once it is newer than ``seen``, or None after ``timeout``
        (at once once the hub is closed)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.closed:
                current = self._versions.get(match_id)
                if current is not None and current[0] > seen:
                    return current
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return None


def card_field(value: Any, field_name: str) -> Card:
    return _parsed_field(value, field_name, Card.parse, "a card name such as 'red-5'")


def tweak_field(value: Any, field_name: str) -> TweakKind:
    return _parsed_field(value, field_name, TweakKind.parse, "a T! card: thief, joker, shifter or bomb (R1.4)")


def _parsed_field(value: Any, field_name: str, parse: Callable[[str], Any], expected: str) -> Any:
    """A request's text field read by ``parse``; a 400 naming the field and what was wrong."""
    if not isinstance(value, str):
        raise ServiceError(400, f"{field_name} must be {expected}")
    try:
        return parse(value)
    except ValueError as err:
        raise ServiceError(400, f"{field_name}: {err}") from None


def round_state(players: Sequence[str], rnd: Round) -> dict[str, Any]:
    """What every phone shows of a round in play, hands aside."""
    return {
        "to_move": None if rnd.to_move is None else players[rnd.to_move],
        "target": rnd.target,
        "deck_left": rnd.deck_left,
        "tweak_pile_left": rnd.tweak_pile_left,
        "table": [c.name for c in rnd.table],
        "won": {p: len(w) for p, w in zip(players, rnd.won)},
        "held": {p: [k.value for k in t] for p, t in zip(players, rnd.tweaks_held)},
        "used": {p: [k.value for k in t] for p, t in zip(players, rnd.tweaks_used)},
        "tweaks": dict(zip(players, rnd.tweak_counts)),
        "scores": dict(zip(players, rnd.scores())),
        "over": rnd.is_over(),
    }


def target_field(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 7 <= value <= 10:
        raise ServiceError(400, f"target must be 7 to 10, the number on the deck's back (R3.1), not {value!r}")
    return value
