"""The dashboard's match service: commands in, durable events out, state rebuilt by the engine.

Every change is an event written to SQLite before it is acknowledged; a match's state is the
replay of its events through the same rules engine as ``tweak replay`` (no second copy of a rule).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..bots import GreedyBot
from ..engine.cards import Card, Colour, Edition, TweakKind
from ..engine.errors import RuleError
from ..engine.record import Replayer, dumps, header_line, round_line, turn_line
from ..engine.setup import MAX_PLAYERS, MIN_PLAYERS, check_colours, deal, goal_for, next_dealer
from ..engine.state import Discard, Round, Sum, Turn, UseBomb, UseJoker, UseShifter, UseThief
from ..storage import Storage

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

    @property
    def match(self):
        assert self.replayer.match is not None
        return self.replayer.match

    def apply(self, kind: str, body: dict, seq: int, at: float) -> None:
        """Apply one stored event to the in-memory state (also used to rebuild after a restart)."""
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

    def _log(self, entry: dict) -> None:
        self.log.append(entry)
        del self.log[:-MAX_LOG]


class Hub:
    """Wakes the live streams of a match when its version changes."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._versions: dict[int, tuple[int, float]] = {}

    def publish(self, match_id: int, version: int, at: float) -> None:
        with self._cond:
            self._versions[match_id] = (version, at)
            self._cond.notify_all()

    def wait(self, match_id: int, seen: int, timeout: float) -> tuple[int, float] | None:
        """The match's (version, time) once it is newer than ``seen``, or None after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                current = self._versions.get(match_id)
                if current is not None and current[0] > seen:
                    return current
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)


def _card(value: Any, field_name: str) -> Card:
    if not isinstance(value, str):
        raise ServiceError(400, f"{field_name} must be a card name such as 'red-5'")
    try:
        return Card.parse(value)
    except ValueError as err:
        raise ServiceError(400, f"{field_name}: {err}") from None


class MatchService:
    """Creates matches, takes turns, undoes them; thread-safe, one instance per app."""

    def __init__(self, storage: Storage, hub: Hub | None = None) -> None:
        self.storage = storage
        self.hub = hub or Hub()
        self._lock = threading.RLock()
        self._live: dict[int, LiveMatch] = {}
        self._bot = GreedyBot()

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
            for event in self.storage.events(match_id):
                live.apply(event.kind, event.body, event.seq, event.created)
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
                    "created": row.created,
                }
            )
        return out

    # -- writing -----------------------------------------------------------------------------

    def _append(self, live: LiveMatch, kind: str, body: dict) -> None:
        """Durably store an event, then apply it and wake the streams."""
        seq = self.storage.append(live.id, kind, body)
        at = time.time()
        live.apply(kind, body, seq, at)
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
            try:
                goal_value = int(goal)
            except (TypeError, ValueError):
                raise ServiceError(400, f"goal must be a whole number, not {goal!r}") from None
            if goal_value <= 0:
                raise ServiceError(400, "goal must be positive")
            if goal_value == goal_for(len(players)):
                goal_value = None
        if name is not None and not isinstance(name, str):
            raise ServiceError(400, "name must be text")
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        with self._lock:
            header = header_line(players, edition_value, goal_value)
            match_id = self.storage.create_match(
                (name or "").strip()[:60] or " / ".join(players), header, seed, autoplay
            )
            live = self.get(match_id)
            dealer = random.Random(f"{seed}/first-dealer").randrange(len(players))  # R2.3: at random
            self._deal(live, dealer, colour_list)
        return match_id

    def _deal(self, live: LiveMatch, dealer: int, colours: Sequence[Colour] | None) -> None:
        match = live.match
        number = len(match.results) + 1
        if colours is None:  # the colours chosen at set-up stay for the whole match
            previous = [line for line in live.lines if "round" in line]
            colours = [Colour(c) for c in previous[-1]["colours"]] if previous else match.default_colours()
        dealt = deal(len(match.players), colours, match.edition, random.Random(f"{live.seed}/round/{number}"))
        self._append(live, "line", round_line(match.players, number, dealer, colours, dealt))

    def next_round(self, match_id: int) -> None:
        with self._lock:
            live = self.get(match_id)
            match = live.match
            if match.is_over():
                raise ServiceError(409, f"the match is over: {match.players[match.winner]} has won (RULES R5.5)")
            if match.current is not None and not match.current.is_over():
                raise ServiceError(409, "the round is not over yet (RULES R5.1)")
            self._deal(live, next_dealer(match.current.dealer, len(match.players)), None)

    def _turn_from_request(self, live: LiveMatch, data: Any) -> Turn:
        if not isinstance(data, dict):
            raise ServiceError(400, "send a JSON object: {play, hand, take, tweak}")
        rnd = live.match.current
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
                if delta not in (1, -1) or isinstance(delta, bool):
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
                    else:  # R6.4: the victim chooses; on the virtual table, their least valuable card
                        pairs.append((seat, min(hand_cards, key=lambda c: (c.points, c.value))))
                use = UseBomb(tuple(pairs))
        return Turn(player, play, use)

    def play(self, match_id: int, data: Any) -> dict[str, Any]:
        """Validate and record a turn; a refusal is logged for everyone and raised as 422."""
        with self._lock:
            live = self.get(match_id)
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
            rnd = live.match.current
            if rnd is None or not rnd.history:
                raise ServiceError(409, "nothing to undo in this round")
            self._append(live, "undo", {})

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

    def state(self, match_id: int) -> dict[str, Any]:
        """Everything a phone shows, as JSON."""
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
            if rnd is not None:
                colours = next(line for line in reversed(live.lines) if "round" in line)["colours"]
                state["round"] = {
                    "number": len(match.results) + (0 if rnd.is_over() else 1),
                    "dealer": players[rnd.dealer],
                    "colours": colours,
                    "to_move": None if rnd.to_move is None else players[rnd.to_move],
                    "target": rnd.target,
                    "deck_left": rnd.deck_left,
                    "tweak_pile_left": rnd.tweak_pile_left,
                    "table": [c.name for c in rnd.table],
                    "hands": {p: [c.name for c in h] for p, h in zip(players, rnd.hands)},
                    "won": {p: len(w) for p, w in zip(players, rnd.won)},
                    "held": {p: [k.value for k in t] for p, t in zip(players, rnd.tweaks_held)},
                    "used": {p: [k.value for k in t] for p, t in zip(players, rnd.tweaks_used)},
                    "tweaks": dict(zip(players, rnd.tweak_counts)),
                    "scores": dict(zip(players, rnd.scores())),
                    "over": rnd.is_over(),
                    "can_undo": bool(rnd.history),
                }
            return state
