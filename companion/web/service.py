"""The dashboard's match service: commands in, durable events out, state rebuilt by the engine.

Every change is an event written to SQLite before it is acknowledged; a match's state is the
replay of its events through the same rules engine as ``tweak replay`` (no second copy of a rule).
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..bots import GreedyBot
from ..engine.cards import Card, Colour, Edition, TweakKind
from ..engine.errors import RuleError
from ..engine.record import Replayer, dumps, header_line, round_line, turn_line
from ..engine.setup import MAX_PLAYERS, MIN_PLAYERS, check_colours, deal, goal_for, next_dealer
from ..engine.state import Discard, Round, Sum, Turn, UseBomb, UseJoker, UseShifter, UseThief
from ..referee.infer import Event, Referee
from ..referee.observed import ObservedRound, ObservedTurn, turn_from_json, turn_json
from ..storage import Storage, backup

MAX_LOG = 30
ROUND_KINDS = ("seen_round", "commit", "reopen")  # events that start or end a camera round


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
    asking: dict | None = None  # a question whose move is being recorded
    _seen: ObservedRound | None = None
    referee: Referee | None = None  # move inference for the camera round (not stored: rebuilt)
    damage: str | None = None  # a stored event that could not be replayed (the match is read-only)

    @property
    def seen(self) -> ObservedRound | None:
        """The camera round in play, rebuilt from its snapshot when needed (after a restart)."""
        if self._seen is None and self.waiting is not None and self.snapshot is not None:
            players = self.match.players
            colours = [Colour(c) for c in self.waiting["colours"]]
            dealer = players.index(self.waiting["dealer"])
            self._seen = ObservedRound.from_snapshot(self.snapshot, players, dealer, colours, self.match.edition)
        return self._seen

    def set_seen(self, seen: ObservedRound | None, referee: Referee | None = None) -> None:
        """The camera round in play (and the move inference following it, which starts afresh
        unless it is the one that saw the deal)."""
        self._seen = seen
        self.referee = referee

    @property
    def match(self):
        assert self.replayer.match is not None
        return self.replayer.match

    def apply(self, kind: str, body: dict, seq: int, at: float, live_seen: bool = False) -> None:
        """Apply one stored event to the in-memory state (also used to rebuild after a restart).

        ``live_seen``: a "seen" event whose snapshot was just taken of the camera round in memory,
        which is kept (with its move inference) instead of being rebuilt."""
        self.version, self.updated = seq, at
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
            self.set_seen(None)
            self._log({"seq": seq, "kind": "round", "round": body["round"], "dealer": body["dealer"]})
        elif kind == "seen":
            if not live_seen:  # replayed from storage: rebuilt when needed
                self.set_seen(None)
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
            self.set_seen(None)
        elif kind == "reopen":  # undo after a camera round was scored: it is in play again
            before, self.waiting, self.snapshot = self.commits.pop()
            self.set_seen(None)
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


def _card(value: Any, field_name: str) -> Card:
    if not isinstance(value, str):
        raise ServiceError(400, f"{field_name} must be a card name such as 'red-5'")
    try:
        return Card.parse(value)
    except ValueError as err:
        raise ServiceError(400, f"{field_name}: {err}") from None


def _round_just_ended(live: LiveMatch, kind: str, body: dict) -> bool:
    if kind == "commit":
        return True
    rnd = live.replayer.current_round
    return "turn" in body and rnd is not None and rnd.is_over()


MAX_GOAL = 10_000  # points: far beyond any real match, small enough to store and show


def _name_problem(name: str) -> str | None:
    """Why a player's name cannot be used (it is stored, shown, and part of some addresses)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid text (a lone surrogate)"
    if not name.isprintable():
        return "control characters are not allowed"
    if any(c in name for c in "/\\"):
        return "'/' and '\\' are not allowed"
    return None


def _round_state(players: Sequence[str], rnd: Round) -> dict[str, Any]:
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


def _target(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 7 <= value <= 10:
        raise ServiceError(400, f"target must be 7 to 10, the number on the deck's back (R3.1), not {value!r}")
    return value


class MatchService:
    """Creates matches, takes turns, undoes them; thread-safe, one instance per app."""

    def __init__(self, storage: Storage, hub: Hub | None = None) -> None:
        self.storage = storage
        self.hub = hub or Hub()
        self._lock = threading.RLock()
        self._messages: dict[tuple[int, bool], tuple[tuple, str]] = {}  # (match, hands) -> (key, message)
        self._live: dict[int, LiveMatch] = {}
        self._bot = GreedyBot()
        self._camera_match: tuple[int | None] | None = None  # cached answer of camera_match(); None: unknown

    # -- loading -----------------------------------------------------------------------------

    def get(self, match_id: int) -> LiveMatch:
        with self._lock:
            live = self._live.get(match_id)
            if live is not None:
                return live
            row = self.storage.match(match_id)
            if row is None:
                raise ServiceError(404, f"no match {match_id}")
            live = LiveMatch(row.id, row.name, row.seed, row.autoplay)
            for position, event in enumerate(self.storage.events(match_id), 1):
                try:
                    live.apply(event.kind, event.body, event.seq, event.created)
                except Exception as err:  # noqa: BLE001 (any stored event the engine refuses)
                    # the match is shown as it was before that event, read-only; the rest of the
                    # database serves as usual
                    live.damage = (
                        f"match {match_id}: stored event {position} (#{event.seq}, {event.kind}) cannot be "
                        f"replayed ({type(err).__name__}: {err}); shown as before it, read-only"
                    )
                    print(f"tweak serve: {live.damage}", file=sys.stderr)
                    break
            self._live[match_id] = live
            return live

    def list(self) -> list[dict[str, Any]]:
        out = []
        for row in self.storage.matches():
            live = self.get(row.id)
            match = live.match
            winner = match.winner
            out.append(
                {
                    "id": row.id,
                    "name": row.name,
                    "players": list(match.players),
                    "edition": match.edition.value,
                    "rounds": len(match.results),
                    "totals": dict(zip(match.players, match.totals)),
                    "winner": None if winner is None else match.players[winner],
                    "autoplay": row.autoplay,
                    "camera": live.camera,
                    "created": row.created,
                }
            )
        return out

    # -- writing -----------------------------------------------------------------------------

    def _append(self, live: LiveMatch, kind: str, body: dict, live_seen: bool = False) -> None:
        """Durably store an event, then apply it and wake the streams."""
        if live.damage:
            raise ServiceError(409, live.damage)
        seq = self.storage.append(live.id, kind, body)
        at = time.time()
        live.apply(kind, body, seq, at, live_seen)
        if kind in ("line", "commit") and _round_just_ended(live, kind, body):
            backup(self.storage)  # a few generations: a power cut loses at most the round in play
        if kind in ROUND_KINDS:
            self._camera_match = None  # a camera round started or ended: look again
        self.hub.publish(live.id, seq, at)

    def create_match(
        self,
        players: Any,
        edition: Any = "classic",
        colours: Any = None,
        goal: Any = None,
        name: Any = None,
        seed: int | None = None,
        autoplay: bool = False,
        camera: Any = False,
        dealer: Any = None,
    ) -> int:
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ServiceError(400, "players must be a list of names, in seating order")
        players = [p.strip() for p in players if p.strip()]
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ServiceError(400, f"2 to 6 players (RULES R2.1), not {len(players)}")
        if len(set(players)) != len(players):
            raise ServiceError(400, "each player needs a different name")
        if any(len(p) > 40 for p in players):
            raise ServiceError(400, "a name has at most 40 characters")
        for p in players:
            problem = _name_problem(p)
            if problem:
                raise ServiceError(400, f"player name {p.encode('utf-8', 'backslashreplace').decode()!r}: {problem}")
        try:
            edition_value = Edition.parse(edition)
        except (ValueError, TypeError):
            raise ServiceError(400, f"unknown edition {edition!r} (classic or extended)") from None
        if colours is None:
            colour_list = None
        else:
            if not isinstance(colours, list):
                raise ServiceError(400, "colours must be a list such as ['red', 'blue']")
            try:
                colour_list = [Colour(c) for c in colours]
            except ValueError as err:
                raise ServiceError(400, f"unknown colour: {err}") from None
            try:  # the engine's own check of RULES R2.2 and R2.4
                check_colours(colour_list, len(players))
            except RuleError as err:
                raise ServiceError(400, f"{err.message} (RULES {err.rule})") from None
        if goal in (None, ""):
            goal_value = None
        else:
            if isinstance(goal, str) and goal.strip().isascii() and goal.strip().isdigit():
                goal = int(goal.strip())
            if isinstance(goal, bool) or not isinstance(goal, int):
                raise ServiceError(400, f"goal must be a whole number of points, not {goal!r}")
            if not 1 <= goal <= MAX_GOAL:
                raise ServiceError(400, f"goal must be 1 to {MAX_GOAL} points (RULES R5.5), not {goal}")
            goal_value = goal
            if goal_value == goal_for(len(players)):
                goal_value = None
        if name is not None and not isinstance(name, str):
            raise ServiceError(400, "name must be text")
        if not isinstance(camera, bool):
            raise ServiceError(400, "camera must be true or false")
        if dealer not in (None, "") and dealer not in players:
            raise ServiceError(400, f"the first dealer must be one of the players, not {dealer!r}")
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        with self._lock:
            header = header_line(players, edition_value, goal_value)
            match_id = self.storage.create_match(
                (name or "").strip()[:60] or " / ".join(players), header, seed, autoplay
            )
            live = self.get(match_id)
            if camera:  # refereed from the camera: the cards are dealt at the table, unseen
                self._append(live, "mode", {"camera": True})
            if dealer in (None, ""):
                first = random.Random(f"{seed}/first-dealer").randrange(len(players))  # R2.3: at random
            else:  # drawn at the table (R2.3)
                first = players.index(dealer)
            self._deal(live, first, colour_list)
        return match_id

    def _deal(self, live: LiveMatch, dealer: int, colours: Sequence[Colour] | None) -> None:
        match = live.match
        number = len(match.results) + 1
        if colours is None:  # the colours chosen at set-up stay for the whole match
            previous = [line for line in live.lines if "round" in line]
            colours = [Colour(c) for c in previous[-1]["colours"]] if previous else match.default_colours()
        if live.camera:
            body = {"round": number, "dealer": match.players[dealer], "colours": [c.value for c in colours]}
            self._append(live, "seen_round", body)
            return
        dealt = deal(len(match.players), colours, match.edition, random.Random(f"{live.seed}/round/{number}"))
        self._append(live, "line", round_line(match.players, number, dealer, colours, dealt))

    def next_round(self, match_id: int) -> None:
        with self._lock:
            live = self.get(match_id)
            match = live.match
            if match.is_over():
                raise ServiceError(409, f"the match is over: {match.players[match.winner]} has won (RULES R5.5)")
            if live.waiting is not None or (match.current is not None and not match.current.is_over()):
                raise ServiceError(409, "the round is not over yet (RULES R5.1)")
            self._deal(live, next_dealer(match.current.dealer, len(match.players)), None)

    def _turn_from_request(self, live: LiveMatch, data: Any, rnd: Round | None = None, hidden: bool = False) -> Turn:
        """The turn a request describes. ``hidden``: the hands are unknown (a camera round), so a
        stolen card and the Bomb's cards must be named."""
        if not isinstance(data, dict):
            raise ServiceError(400, "send a JSON object: {play, hand, take, tweak}")
        rnd = rnd or live.match.current
        if rnd is None or rnd.is_over():
            raise ServiceError(409, "the round is over: start the next round (RULES R5.1)")
        players = live.match.players
        player = rnd.to_move
        if "player" in data:
            if data["player"] not in players:
                raise ServiceError(400, f"unknown player {data['player']!r}")
            player = players.index(data["player"])
        play_kind = data.get("play")
        if play_kind not in ("sum", "discard"):
            raise ServiceError(400, "play must be 'sum' or 'discard'")
        hand = _card(data.get("hand"), "hand")
        if play_kind == "sum":
            take = data.get("take")
            if not isinstance(take, list):
                raise ServiceError(400, "take must be a list of table cards")
            play: Sum | Discard = Sum(hand, tuple(_card(c, "take") for c in take))
        else:
            play = Discard(hand)
        tweak = data.get("tweak")
        use = None
        if tweak is not None:
            if not isinstance(tweak, dict):
                raise ServiceError(400, "tweak must be an object such as {'card': 'joker', 'delta': 1}")
            try:
                kind = TweakKind.parse(tweak.get("card"))
            except (ValueError, TypeError):
                raise ServiceError(400, f"unknown T! card {tweak.get('card')!r}") from None
            rng = random.Random(f"{live.seed}/turn/{len(live.lines)}")
            if kind is TweakKind.JOKER:
                delta = tweak.get("delta")
                if type(delta) is not int or delta not in (1, -1):  # (1.0 would be stored, then not replay)
                    raise ServiceError(400, "a Joker's delta is +1 or -1 (RULES R6.2)")
                use = UseJoker(delta)
            elif kind is TweakKind.SHIFTER:
                use = UseShifter()
            elif kind is TweakKind.THIEF:
                victim_name = tweak.get("victim")
                if victim_name not in players:
                    raise ServiceError(400, f"the Thief needs a victim among the players, not {victim_name!r}")
                victim = players.index(victim_name)
                if "stolen" in tweak:
                    stolen = _card(tweak["stolen"], "stolen")
                elif hidden:
                    raise ServiceError(400, "name the card the Thief took (stolen): the hands are not known (R6.1)")
                else:  # R6.1: a random card of the victim's hand
                    stolen = rng.choice(rnd.hands[victim]) if rnd.hands[victim] else Card.parse("red-1")
                use = UseThief(victim, stolen)
            else:
                chosen = tweak.get("cards")
                if chosen is not None and not isinstance(chosen, dict):
                    raise ServiceError(400, "cards must map each victim to the card they give up")
                pairs = []
                for seat, hand_cards in enumerate(rnd.hands):
                    if seat == player or not hand_cards:
                        continue
                    if chosen and players[seat] in chosen:
                        pairs.append((seat, _card(chosen[players[seat]], "cards")))
                    elif hidden:
                        raise ServiceError(400, f"name the card {players[seat]} gave up to the Bomb (cards, R6.4)")
                    else:  # R6.4: the victim chooses; on the virtual table, their least valuable card
                        pairs.append((seat, min(hand_cards, key=lambda c: (c.points, c.value))))
                use = UseBomb(tuple(pairs))
        return Turn(player, play, use)

    def play(self, match_id: int, data: Any) -> dict[str, Any]:
        """Validate and record a turn; a refusal is logged for everyone and raised as 422."""
        with self._lock:
            live = self.get(match_id)
            if live.camera:
                return self._play_seen(live, data)
            turn = self._turn_from_request(live, data)
            rnd: Round = live.match.current
            try:
                rnd.push(turn)
            except RuleError as err:
                body = {
                    "player": live.match.players[turn.player],
                    "error": err.code,
                    "rule": err.rule,
                    "message": err.message,
                }
                self._append(live, "rejected", body)
                raise ServiceError(422, err.message, error=err.code, rule=err.rule) from None
            rnd.pop()
            tweak = rnd.is_tweak(turn)
            self._append(live, "line", turn_line(live.match.players, turn))
            return {"ok": True, "tweak": tweak, "version": live.version}

    def undo(self, match_id: int) -> None:
        with self._lock:
            live = self.get(match_id)
            if live.camera:
                self._undo_seen(live)
                return
            rnd = live.match.current
            if rnd is None or not rnd.history:
                raise ServiceError(409, "nothing to undo in this round")
            self._append(live, "undo", {})

    # -- camera rounds (companion.referee) ----------------------------------------------------

    def camera_match(self) -> int | None:
        """The newest match refereed from the camera with a round in play, if any. Asked for every
        camera frame, so the answer is kept until a camera round starts or ends."""
        with self._lock:
            if self._camera_match is None:
                found = None
                for row in self.storage.matches():
                    live = self.get(row.id)
                    if live.camera and live.waiting is not None:
                        found = live.id
                        break
                self._camera_match = (found,)
            return self._camera_match[0]

    def _referee(self, live: LiveMatch) -> Referee:
        if live.referee is None:
            assert live.waiting is not None
            players = live.match.players
            referee = Referee(
                players,
                players.index(live.waiting["dealer"]),
                [Colour(c) for c in live.waiting["colours"]],
                live.match.edition,
            )
            referee.resync(live.seen)
            live.referee = referee
        return live.referee

    def see(self, match_id: int, view: Any) -> list[Event]:
        """A still view of the table from the camera: the moves it shows are recorded, questions
        are kept for the referee (the best reading is played meanwhile), refusals are logged."""
        with self._lock:
            live = self.get(match_id)
            if not live.camera or live.waiting is None:
                return []
            referee = self._referee(live)
            events = referee.see(view)
            for event in events:
                self._camera_event(live, referee, event)
            return events

    def settle(self, match_id: int, ended: bool = False) -> list[Event]:
        """The table stayed still (or, ``ended``, the pictures ended: a video): a card still lying
        from the last turn may be a discard nobody follows (R4.3, R5.1)."""
        with self._lock:
            live = self.get(match_id)
            if not live.camera or live.waiting is None or live.seen is None:
                return []
            referee = self._referee(live)
            events = referee.finish() if ended else referee.settle()
            for event in events:
                self._camera_event(live, referee, event)
            return events

    def _seen_changed(self, live: LiveMatch, entry: dict[str, Any] | None) -> None:
        seen = live.seen
        assert seen is not None
        self._append(live, "seen", {"snapshot": seen.snapshot(), "entry": entry}, live_seen=True)
        if seen.round.is_over():  # scored at once (R5.3): the round's record joins the match
            lines = [json.loads(line) for line in seen.record_lines(live.waiting["round"])]
            self._append(live, "commit", {"lines": lines})

    def _camera_event(self, live: LiveMatch, referee: Referee, event: Event) -> None:
        players = live.match.players
        data = event.data
        if event.kind == "note":
            live.note = data.get("message")
        elif event.kind == "start":
            live.note = None
            live.set_seen(referee.seen, referee)
            entry = {"kind": "seen_deal", "table": data["table"], "target": data["target"]}
            self._seen_changed(live, entry)
        elif event.kind == "question":  # stored with the move it is about, which follows it
            live.asking = {
                "id": len(live.questions) + 1,
                "player": data["player"],
                "reason": data["reason"],
                "readings": [turn_json(players, r.observed) for r in event.readings],
            }
        elif event.kind == "move":
            observed = event.readings[0].observed
            entry = {
                "kind": "turn",
                "source": "camera",
                "player": players[observed.turn.player],
                **turn_line(players, observed.turn),
                "target": data.get("target"),
                "tweak_made": data.get("made_tweak", False),
                "asked": data.get("asked", False),
                "confidence": data.get("confidence"),
            }
            self._seen_changed(live, entry)
            if live.asking is not None:
                self._append(live, "question", {**live.asking, "turn": data["n"]})
                live.asking = None
        elif event.kind == "refused":
            body = {
                "player": data["player"],
                "error": "camera",
                "rule": data.get("rule") or "R3.2",
                "message": data["message"],
                "source": "camera",
            }
            self._append(live, "rejected", body)

    def _play_seen(self, live: LiveMatch, data: Any) -> dict[str, Any]:
        """A move tapped in by the referee in a camera round (one the camera missed or refused)."""
        if live.waiting is None:
            raise ServiceError(409, "the round is over: start the next round (RULES R5.1)")
        seen = live.seen
        if seen is None:
            raise ServiceError(409, "the camera has not seen the deal yet: 2 cards face up in the centre (R2.4)")
        turn = self._turn_from_request(live, data, seen.round, hidden=True)
        players = live.match.players
        mover = turn.player
        tweaks_before = seen.round.tweak_counts[mover]
        try:
            seen.push(ObservedTurn(turn))
        except RuleError as err:
            body = {"player": players[mover], "error": err.code, "rule": err.rule, "message": err.message}
            self._append(live, "rejected", body)
            raise ServiceError(422, err.message, error=err.code, rule=err.rule) from None
        if live.referee is not None:
            live.referee.resync(seen)
        made = seen.round.tweak_counts[mover] > tweaks_before
        entry = {"kind": "turn", "source": "referee", "player": players[mover], **turn_line(players, turn)}
        self._seen_changed(live, {**entry, "tweak_made": made})
        return {"ok": True, "tweak": made, "version": live.version}

    def _reopen(self, live: LiveMatch) -> None:
        """The camera round just scored is in play again (an undo or a correction after its end)."""
        if not live.commits or live.commits[-1][0] + 1 + len(live.commits[-1][2]["turns"]) != len(live.lines):
            raise ServiceError(409, "nothing to undo in this round")
        self._append(live, "reopen", {})

    def _undo_seen(self, live: LiveMatch) -> None:
        if live.waiting is None:
            self._reopen(live)
        seen = live.seen
        if seen is None or not seen.turns:
            raise ServiceError(409, "nothing to undo in this round")
        last = seen.pop()
        if live.referee is not None:
            live.referee.resync(seen)
        self._seen_changed(live, {"kind": "undo", "player": live.match.players[last.turn.player]})

    def seen_deal(self, match_id: int, table: Any, target: Any) -> None:
        """A camera match without the camera (missing, or not calibrated yet): the referee enters
        the 2 cards dealt face up in the centre (R2.4) and the target (R3.1)."""
        with self._lock:
            live = self.get(match_id)
            if not live.camera or live.waiting is None:
                raise ServiceError(409, "only a camera match waiting for its deal takes one")
            if live.seen is not None:
                raise ServiceError(409, "the deal was already seen: undo the moves or correct a table card")
            if not isinstance(table, list) or len(table) != 2:
                raise ServiceError(400, "table must be the 2 cards dealt face up in the centre (R2.4)")
            cards = [_card(c, f"table[{i}]") for i, c in enumerate(table)]
            value = _target(target)
            players = live.match.players
            try:
                seen = ObservedRound(
                    players,
                    players.index(live.waiting["dealer"]),
                    [Colour(c) for c in live.waiting["colours"]],
                    live.match.edition,
                    cards,
                )
            except RuleError as err:
                raise ServiceError(400, f"{err.message} (RULES {err.rule})") from None
            seen.observe_target(value)
            live.set_seen(seen)
            live.note = None
            entry = {"kind": "seen_deal", "source": "referee", "table": [c.name for c in cards], "target": value}
            self._seen_changed(live, entry)

    def set_target(self, match_id: int, target: Any) -> None:
        """The target read by the referee from the deck's top back (R3.1), before the next move."""
        with self._lock:
            live = self.get(match_id)
            seen = live.seen if live.camera else None
            if live.waiting is None or seen is None:
                raise ServiceError(409, "only a camera round in play takes a target")
            seen.observe_target(_target(target))
            if live.referee is not None:
                live.referee.resync(seen)
            self._seen_changed(live, {"kind": "target", "source": "referee", "target": seen.round.target})

    def correct_table(self, match_id: int, shown: Any, actual: Any) -> None:
        """The referee's correction of a table card the camera misread when it was turned from the
        deck or dealt: the round is recomputed (ObservedRound.correct_table), or nothing changes."""
        with self._lock:
            live = self.get(match_id)
            if not live.camera:
                raise ServiceError(409, "only a camera match's table is corrected: undo and tap the move")
            if live.waiting is None and live.commits:
                self._reopen(live)
            seen = live.seen
            if live.waiting is None or seen is None:
                raise ServiceError(409, "no round in play")
            card, really = _card(shown, "shown"), _card(actual, "actual")
            try:
                seen.correct_table(card, really)
            except RuleError as err:
                raise ServiceError(409, f"{err.message} (RULES {err.rule})") from None
            if live.referee is not None:
                live.referee.resync(seen)
            self._seen_changed(live, {"kind": "table_fixed", "shown": card.name, "actual": really.name})

    def answer(self, match_id: int, question_id: Any, reading: Any) -> None:
        """The referee's answer to a camera question: the reading chosen replaces the one played
        meanwhile, and everything after it is recomputed (or nothing changes, with the reason)."""
        with self._lock:
            live = self.get(match_id)
            question = next((q for q in live.questions if q["id"] == question_id), None)
            if question is None:
                raise ServiceError(404, f"no question {question_id!r} in the round in play")
            if question["answer"] is not None:
                raise ServiceError(409, "that question is already answered")
            count = len(question["readings"])
            if isinstance(reading, bool) or not isinstance(reading, int) or not 0 <= reading < count:
                raise ServiceError(400, f"reading must be 0 to {len(question['readings']) - 1}")
            if live.waiting is None and live.commits:
                self._reopen(live)  # the question is about the round just scored
            seen = live.seen
            index = question["turn"] - 1
            if live.waiting is None or seen is None or index >= len(seen.turns):
                raise ServiceError(409, "that move was undone: enter it again")
            if reading != 0:
                try:
                    seen.correct(index, turn_from_json(live.match.players, question["readings"][reading]))
                except RuleError as err:
                    raise ServiceError(409, f"{err.message} (RULES {err.rule})") from None
                if live.referee is not None:
                    live.referee.resync(seen)
                self._seen_changed(live, {"kind": "corrected", "player": question["player"], "turn": question["turn"]})
            self._append(live, "answer", {"id": question["id"], "reading": reading})

    def tracked_pile(self, match_id: int, player: str) -> list[str]:
        """The won pile the game tracked for ``player`` in the round just played: its cards and
        its T! cards, used or not (R5.3), as scanner labels."""
        live = self.get(match_id)
        rnd = live.match.current
        if rnd is None or not rnd.is_over():
            raise ServiceError(409, "the round is not over yet (R5.1): piles are counted at its end")
        if player not in live.match.players:
            raise ServiceError(404, f"no player {player!r} in this match")
        seat = live.match.players.index(player)
        return [c.name for c in rnd.won[seat]] + [f"tweak-{k.value}" for k in rnd.tweaks_won(seat)]

    def pile_check(self, match_id: int, player: str, scanned: dict[str, Any], differences: list[dict]) -> None:
        """Record what the camera counted for a pile; the tracked score stays (the referee decides)."""
        with self._lock:
            live = self.get(match_id)
            body = {
                "player": player,
                "points": scanned["points"],
                "cards": scanned["count"],
                "differences": differences,
            }
            self._append(live, "pile_check", body)

    def bot_move(self, match_id: int) -> bool:
        """One move of the virtual table's bots (a new round when one ends); False when the match is over."""
        with self._lock:
            live = self.get(match_id)
            match = live.match
            if match.is_over():
                return False
            if match.current is None or match.current.is_over():
                self.next_round(match_id)
                return True
            rng = random.Random(f"{live.seed}/bot/{len(live.lines)}")
            turn = self._bot.choose(match.current, rng)
            self._append(live, "line", turn_line(match.players, turn))
            return True

    def record(self, match_id: int) -> str:
        live = self.get(match_id)
        return "".join(dumps(line) + "\n" for line in live.lines)

    def round_in_play(self, match_id: int) -> bool:
        with self._lock:
            rnd = self.get(match_id).match.current
            return rnd is not None and not rnd.is_over()

    def state_message(self, match_id: int, hands: bool) -> tuple[int, str]:
        """The live stream's message for the match as it is now: its version and state as JSON,
        built once a version for every phone following it (200 phones, one serialisation)."""
        with self._lock:
            live = self.get(match_id)
            key = (live.version, live.note, live.damage)
            cached = self._messages.get((match_id, hands))
            if cached is None or cached[0] != key:
                body = {"version": live.version, "at": live.updated, "state": self.state(match_id, hands)}
                cached = (key, json.dumps(body, separators=(",", ":")))
                self._messages[(match_id, hands)] = cached
            return live.version, cached[1]

    def state(self, match_id: int, hands: bool = True) -> dict[str, Any]:
        """Everything a phone shows, as JSON; ``hands``: the cards in each hand too (the referee's
        view; others see how many, as at the table)."""
        with self._lock:
            live = self.get(match_id)
            match = live.match
            players = match.players
            rnd = match.current
            totals = match.totals
            best = max(totals)
            state: dict[str, Any] = {
                "id": live.id,
                "name": live.name,
                "version": live.version,
                "players": list(players),
                "edition": match.edition.value,
                "goal": match.goal,
                "autoplay": live.autoplay,
                "rounds": [
                    {"round": r.number, "dealer": players[r.dealer], "scores": list(r.scores), "tweaks": list(r.tweaks)}
                    for r in match.results
                ],
                "totals": totals,
                "winner": None if match.winner is None else players[match.winner],
                "tie": best >= match.goal and totals.count(best) > 1 and (rnd is None or rnd.is_over()),
                "log": list(reversed(live.log)),
                "round": None,
            }
            if live.camera and live.waiting is not None:
                state["round"] = self._seen_state(live)
            elif rnd is not None:
                colours = next(line for line in reversed(live.lines) if "round" in line)["colours"]
                state["round"] = {
                    "number": len(match.results) + (0 if rnd.is_over() else 1),
                    "dealer": players[rnd.dealer],
                    "colours": colours,
                    **_round_state(players, rnd),
                    "hands": {p: [c.name for c in h] if hands else [] for p, h in zip(players, rnd.hands)},
                    "hand_sizes": {p: len(h) for p, h in zip(players, rnd.hands)},
                    "can_undo": bool(rnd.history) and (not live.camera or bool(live.commits)),
                }
            state["camera"] = live.camera
            state["note"] = live.damage or live.note
            state["questions"] = [
                {k: q[k] for k in ("id", "turn", "player", "reason")} | {"readings": [r["line"] for r in q["readings"]]}
                for q in live.questions
                if q["answer"] is None
            ]
            return state

    def _seen_state(self, live: LiveMatch) -> dict[str, Any]:
        """The camera round in play: what is seen, the hands only by their size (R2.4: unknown)."""
        players = live.match.players
        waiting = live.waiting
        assert waiting is not None
        seen = live.seen
        base = {"number": waiting["round"], "dealer": waiting["dealer"], "colours": waiting["colours"], "hidden": True}
        if seen is None:  # the deal is not seen yet
            empty = {p: 0 for p in players}
            return base | {
                "to_move": None, "target": None, "deck_left": None, "tweak_pile_left": None, "table": [],
                "hands": {p: [] for p in players}, "hand_sizes": empty, "options": [], "won": empty,
                "held": {p: [] for p in players}, "used": {p: [] for p in players}, "tweaks": empty,
                "scores": empty, "over": False, "can_undo": False, "dealing": True,
            }  # fmt: skip
        rnd = seen.round
        mover = rnd.to_move
        return (
            base
            | _round_state(players, rnd)
            | {
                "hands": {p: [] for p in players},
                "hand_sizes": {p: len(h) for p, h in zip(players, rnd.hands)},
                "options": [] if mover is None else [c.name for c in seen.possible_hand(mover)],
                "can_undo": bool(seen.turns),
                "dealing": False,
            }
        )
