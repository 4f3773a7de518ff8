"""The match service's camera rounds (``MatchService`` takes them in): the round in play seen by
the camera and followed by the move inference (``companion.referee``), its questions and the
referee's corrections, each stored as an event before it counts."""

from __future__ import annotations

import json
from typing import Any

from ..engine.cards import Colour
from ..engine.errors import RuleError
from ..engine.record import turn_line
from ..referee.infer import Event, Referee
from ..referee.observed import ObservedRound, ObservedTurn, turn_from_json, turn_json
from .live import LiveMatch, ServiceError, card_field, round_state, target_field


class CameraRounds:
    """Camera-round commands of ``MatchService`` (a mixin: it uses the service's lock, events and
    matches)."""

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
            cards = [card_field(c, f"table[{i}]") for i, c in enumerate(table)]
            value = target_field(target)
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
            seen.observe_target(target_field(target))
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
            card, really = card_field(shown, "shown"), card_field(actual, "actual")
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
            | round_state(players, rnd)
            | {
                "hands": {p: [] for p in players},
                "hand_sizes": {p: len(h) for p, h in zip(players, rnd.hands)},
                "options": [] if mover is None else [c.name for c in seen.possible_hand(mover)],
                "can_undo": bool(seen.turns),
                "dealing": False,
            }
        )
