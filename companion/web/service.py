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
from typing import Any, Sequence

from ..bots import GreedyBot
from ..engine.cards import Card, Colour, Edition, TweakKind
from ..engine.errors import RuleError
from ..engine.record import dumps, header_line, round_line, turn_line
from ..engine.setup import MAX_PLAYERS, MIN_PLAYERS, check_colours, deal, goal_for, next_dealer
from ..engine.state import Discard, Round, Sum, Turn, UseBomb, UseJoker, UseShifter, UseThief
from ..storage import Storage, backup
from .camera_rounds import CameraRounds
from .live import Hub, LiveMatch, ServiceError, card_field, round_state

ROUND_KINDS = ("seen_round", "commit", "reopen")  # events that start or end a camera round


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


class MatchService(CameraRounds):
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
        hand = card_field(data.get("hand"), "hand")
        if play_kind == "sum":
            take = data.get("take")
            if not isinstance(take, list):
                raise ServiceError(400, "take must be a list of table cards")
            play: Sum | Discard = Sum(hand, tuple(card_field(c, "take") for c in take))
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
                    stolen = card_field(tweak["stolen"], "stolen")
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
                        pairs.append((seat, card_field(chosen[players[seat]], "cards")))
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
                    **round_state(players, rnd),
                    "hands": {p: [c.name for c in h] if hands else [] for p, h in zip(players, rnd.hands)},
                    "hand_sizes": {p: len(h) for p, h in zip(players, rnd.hands)},
                    "can_undo": bool(rnd.history) and (not live.camera or bool(live.commits)),
                }
            state["camera"] = live.camera
            state["note"] = live.damage or live.note
            state["read_only"] = live.damage is not None
            state["camera_stuck"] = live.stuck if live.camera and live.waiting is not None else None
            state["questions"] = [
                {k: q[k] for k in ("id", "turn", "player", "reason")} | {"readings": [r["line"] for r in q["readings"]]}
                for q in live.questions
                if q["answer"] is None
            ]
            return state
