"""The match service's camera rounds (``MatchService`` takes them in): the round in play
(``companion.referee.camera_round``: what was seen and the move inference following it) gets its
commands here, and each change it returns is stored as an event before it counts."""

from __future__ import annotations

import json
from typing import Any, Callable

from ..engine.cards import Colour
from ..engine.errors import RuleError
from ..referee.camera_round import CameraRound, Outcome
from ..referee.infer import Event
from ..referee.observed import turn_from_json
from .live import LiveMatch, ServiceError, card_field, round_state, target_field, tweak_field


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

    def _camera_round(self, live: LiveMatch) -> CameraRound | None:
        """The match's camera round in play, if it is a camera match with one."""
        return live.camera_round if live.camera else None

    def see(self, match_id: int, view: Any) -> list[Event]:
        """A still view of the table from the camera: the moves it shows are recorded, questions
        are kept for the referee (the best reading is played meanwhile), refusals are logged."""
        with self._lock:
            live = self.get(match_id)
            camera_round = self._camera_round(live)
            if camera_round is None:
                return []
            return self._record(live, camera_round, camera_round.see(view))

    def settle(self, match_id: int, ended: bool = False) -> list[Event]:
        """The table stayed still (or, ``ended``, the pictures ended: a video): a card still lying
        from the last turn may be a discard nobody follows (R4.3, R5.1)."""
        with self._lock:
            live = self.get(match_id)
            camera_round = self._camera_round(live)
            if camera_round is None:
                return []
            return self._record(live, camera_round, camera_round.settle(ended))

    def _record(self, live: LiveMatch, camera_round: CameraRound, seen: list[tuple[Event, Outcome]]) -> list[Event]:
        """Store what the camera's events changed, in order; a question waits for its move."""
        for _event, outcome in seen:
            if outcome.waits:
                live.note = outcome.note
            if outcome.question is not None:
                live.asking = {"id": len(live.questions) + 1, **outcome.question}
            if outcome.refusal is not None:
                self._append(live, "rejected", outcome.refusal)
            if outcome.entry is not None:
                self._seen_changed(live, camera_round, outcome.entry)
                if outcome.number is not None and live.asking is not None:
                    self._append(live, "question", {**live.asking, "turn": outcome.number})
                    live.asking = None
        return [event for event, _ in seen]

    def _seen_changed(self, live: LiveMatch, camera_round: CameraRound, entry: dict[str, Any] | None) -> None:
        self._append(live, "seen", {"snapshot": camera_round.snapshot(), "entry": entry}, live_seen=True)
        if camera_round.is_over():  # scored at once (R5.3): the round's record joins the match
            lines = [json.loads(line) for line in camera_round.record_lines(live.waiting["round"])]
            self._append(live, "commit", {"lines": lines})

    def _play_seen(self, live: LiveMatch, data: Any) -> dict[str, Any]:
        """A move tapped in by the referee in a camera round (one the camera missed or refused)."""
        camera_round = live.camera_round  # (None once the round is over and scored)
        if camera_round is None:
            raise ServiceError(409, "the round is over: start the next round (RULES R5.1)")
        if camera_round.seen is None:
            raise ServiceError(409, "the camera has not seen the deal yet: 2 cards face up in the centre (R2.4)")
        turn = self._turn_from_request(live, data, camera_round.seen.round, hidden=True)
        try:
            entry = camera_round.play(turn)
        except RuleError as err:
            player = live.match.players[turn.player]
            body = {"player": player, "error": err.code, "rule": err.rule, "message": err.message}
            self._append(live, "rejected", body)
            raise ServiceError(422, err.message, error=err.code, rule=err.rule) from None
        self._seen_changed(live, camera_round, entry)
        return {"ok": True, "tweak": entry["tweak_made"], "version": live.version}

    def _reopen(self, live: LiveMatch) -> None:
        """The camera round just scored is in play again (an undo or a correction after its end)."""
        if not live.commits or live.commits[-1][0] + 1 + len(live.commits[-1][2]["turns"]) != len(live.lines):
            raise ServiceError(409, "nothing to undo in this round")
        self._append(live, "reopen", {})

    def _undo_seen(self, live: LiveMatch) -> None:
        if live.waiting is None:
            self._reopen(live)
        camera_round = live.camera_round
        if camera_round is None or camera_round.seen is None or not camera_round.seen.turns:
            raise ServiceError(409, "nothing to undo in this round")
        self._seen_changed(live, camera_round, camera_round.undo())

    def seen_deal(self, match_id: int, table: Any, target: Any) -> None:
        """A camera match without the camera (missing, or not calibrated yet): the referee enters
        the 2 cards dealt face up in the centre (R2.4) and the target (R3.1)."""
        with self._lock:
            live = self.get(match_id)
            camera_round = self._camera_round(live)
            if camera_round is None:
                raise ServiceError(409, "only a camera match waiting for its deal takes one")
            if camera_round.seen is not None:
                raise ServiceError(409, "the deal was already seen: undo the moves or correct a table card")
            if not isinstance(table, list) or len(table) != 2:
                raise ServiceError(400, "table must be the 2 cards dealt face up in the centre (R2.4)")
            cards = [card_field(c, f"table[{i}]") for i, c in enumerate(table)]
            value = target_field(target)
            try:
                entry = camera_round.deal(cards, value)
            except RuleError as err:
                raise ServiceError(400, f"{err.message} (RULES {err.rule})") from None
            live.note = None
            self._seen_changed(live, camera_round, entry)

    def set_target(self, match_id: int, target: Any) -> None:
        """The target read by the referee from the deck's top back (R3.1), before the next move."""
        with self._lock:
            live = self.get(match_id)
            camera_round = self._camera_round(live)
            if camera_round is None or camera_round.seen is None:
                raise ServiceError(409, "only a camera round in play takes a target")
            self._seen_changed(live, camera_round, camera_round.set_target(target_field(target)))

    def correct_table(self, match_id: int, shown: Any, actual: Any) -> None:
        """The referee's correction of a table card the camera misread when it was turned from the
        deck or dealt: the round is recomputed (ObservedRound.correct_table), or nothing changes."""
        with self._lock:
            live = self.get(match_id)
            if not live.camera:
                raise ServiceError(409, "only a camera match's table is corrected: undo and tap the move")
            card, really = card_field(shown, "shown"), card_field(actual, "actual")
            self._change_by_hand(live, lambda camera_round: camera_round.correct_table(card, really))

    def correct_tweak(self, match_id: int, player: Any, shown: Any, actual: Any) -> None:
        """The referee's correction of a T! card a player won by a TWEAK (R4.2) whose face the
        camera misread: the round is recomputed (ObservedRound.correct_tweak), or nothing changes."""
        with self._lock:
            live = self.get(match_id)
            if not live.camera:
                raise ServiceError(409, "only a camera match's T! cards are corrected: undo and tap the move")
            players = live.match.players
            if not isinstance(player, str) or player not in players:
                raise ServiceError(400, f"player must be one of {', '.join(players)}, not {player!r}")
            seat, kinds = players.index(player), (tweak_field(shown, "shown"), tweak_field(actual, "actual"))
            self._change_by_hand(live, lambda camera_round: camera_round.correct_tweak(seat, *kinds))

    def _change_by_hand(self, live: LiveMatch, change: Callable[[CameraRound], dict]) -> None:
        """A correction by hand of the camera round in play, or of the one just scored (it is in
        play again). That one is corrected first on a copy rebuilt from its stored snapshot: a
        correction the rules refuse leaves the round scored as it was (it was reopened first, and
        its score was gone from the match until the next change)."""
        if live.waiting is None and live.commits:
            if live.commits[-1][2] is None:
                raise ServiceError(409, "no round in play")
            _, waiting, snapshot = live.commits[-1]
            players = live.match.players
            colours = [Colour(c) for c in waiting["colours"]]
            dealer = players.index(waiting["dealer"])
            _apply(CameraRound.from_snapshot(snapshot, players, dealer, colours, live.match.edition), change)
            self._reopen(live)
        camera_round = live.camera_round
        if camera_round is None or camera_round.seen is None:
            raise ServiceError(409, "no round in play")
        self._seen_changed(live, camera_round, _apply(camera_round, change))

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
            index = question["turn"] - 1
            undone = ServiceError(409, "that move was undone: enter it again")
            if reading != 0:  # (of the round just scored too: it is in play again)
                chosen = turn_from_json(live.match.players, question["readings"][reading])

                def change(camera_round: CameraRound) -> dict:
                    if index >= len(camera_round.seen.turns):
                        raise undone
                    return camera_round.correct(index, chosen, question["player"], question["turn"])

                self._change_by_hand(live, change)
            elif live.waiting is not None or not live.commits:
                # the move played stands, and with it the player the camera took to be moving (of
                # the round just scored, it stands as scored)
                camera_round = live.camera_round
                if camera_round is None or camera_round.seen is None or index >= len(camera_round.seen.turns):
                    raise undone
                camera_round.confirm(question["turn"])
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


def _apply(camera_round: CameraRound, change: Callable[[CameraRound], dict]) -> dict:
    """``change`` made to ``camera_round``; the rules' refusal as a 409 with its reason."""
    if camera_round.seen is None:
        raise ServiceError(409, "no round in play")
    try:
        return change(camera_round)
    except RuleError as err:
        raise ServiceError(409, f"{err.message} (RULES {err.rule})") from None
