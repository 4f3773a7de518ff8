"""The matches' JSON API: list and set up matches, their state, turns, undo, next round, the
record, a camera match's corrections and questions, and the live stream (SSE)."""

from __future__ import annotations

import time

from flask import Blueprint, Response, abort, current_app, jsonify, request, stream_with_context

from . import get_service
from .auth import check_csrf, is_referee, referee_required
from .checks import json_body, json_object

bp = Blueprint("api", __name__, url_prefix="/api")
bp.before_request(check_csrf)


@bp.get("/matches")
def list_matches():
    return jsonify(get_service(current_app).list())


@bp.post("/matches")
@referee_required
def create_match():
    data = json_object("{players, edition, colours, goal}")
    match_id = get_service(current_app).create_match(
        data.get("players"),
        data.get("edition", "classic"),
        data.get("colours"),
        data.get("goal"),
        data.get("name"),
        seed=current_app.config.get("MATCH_SEED"),
        camera=data.get("camera", False),
        dealer=data.get("dealer"),
    )
    return jsonify({"id": match_id}), 201


@bp.get("/matches/<int:match_id>")
def match_state(match_id: int):
    """The match as a phone shows it; hands only to the referee (watchers see their sizes, as the
    players at the table do)."""
    return jsonify(get_service(current_app).state(match_id, hands=is_referee()))


@bp.post("/matches/<int:match_id>/turn")
@referee_required
def play_turn(match_id: int):
    return jsonify(get_service(current_app).play(match_id, json_body()))


@bp.post("/matches/<int:match_id>/undo")
@referee_required
def undo(match_id: int):
    get_service(current_app).undo(match_id)
    return jsonify({"ok": True})


@bp.post("/matches/<int:match_id>/next-round")
@referee_required
def next_round(match_id: int):
    get_service(current_app).next_round(match_id)
    return jsonify({"ok": True})


@bp.get("/matches/<int:match_id>/record")
def record(match_id: int):
    """The game record (deals, deck order, T! pile): the referee's, or anyone's once no round is
    in play (it tells the cards still to come)."""
    svc = get_service(current_app)
    if not is_referee() and svc.round_in_play(match_id):
        abort(403, description="the record shows the cards still to come: the referee's until the round is over")
    text = svc.record(match_id)
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="tweak-match-{match_id}.jsonl"'},
    )


def _changed(match_id: int):
    """The answer to a request that changed a match: its new version."""
    return jsonify({"ok": True, "version": get_service(current_app).get(match_id).version})


@bp.post("/matches/<int:match_id>/deal")
@referee_required
def seen_deal(match_id: int):
    """A camera match without its camera: {table: [2 cards], target: N} as dealt at the table."""
    data = json_object("{table: [two cards], target: 7 to 10}")
    get_service(current_app).seen_deal(match_id, data.get("table"), data.get("target"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/target")
@referee_required
def set_target(match_id: int):
    """A camera match: the target read from the deck's top back by the referee, {target: N}."""
    data = json_object("{target: 7 to 10}")
    get_service(current_app).set_target(match_id, data.get("target"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/table")
@referee_required
def correct_table(match_id: int):
    """A camera match: a table card misread when it was turned from the deck is {shown, actual}."""
    data = json_object("{shown: the card as shown, actual: the card it is}")
    get_service(current_app).correct_table(match_id, data.get("shown"), data.get("actual"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/tweak-won")
@referee_required
def correct_tweak(match_id: int):
    """A camera match: a T! card won by a TWEAK, misread, is {player, shown, actual} (R4.2)."""
    data = json_object("{player: who won it, shown: the T! card as shown, actual: the T! card it is}")
    get_service(current_app).correct_tweak(match_id, data.get("player"), data.get("shown"), data.get("actual"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/questions/<int:question_id>")
@referee_required
def answer_question(match_id: int, question_id: int):
    """The referee answers a camera question: {reading: k}, 0 the reading played meanwhile."""
    data = json_object("{reading: the number of the right reading}")
    if "reading" not in data:
        abort(400, description="send a JSON object: {reading: the number of the right reading}")
    get_service(current_app).answer(match_id, question_id, data["reading"])
    return _changed(match_id)


@bp.get("/matches/<int:match_id>/stream")
def stream(match_id: int):
    """Server-sent events: one message per new version of the match, carrying the state as this
    phone may see it (no fetch needed). Each stream holds a server thread, so streams are capped
    below the thread count (503 beyond it: the page then polls the state) and one whose phone has
    left ends at the next keepalive."""
    svc = get_service(current_app)
    svc.get(match_id)  # 404 for an unknown match
    timeout = float(current_app.config["STREAM_TIMEOUT"])
    try:
        since = int(request.args.get("since", -1))
    except ValueError:
        abort(400, description="since must be a whole number (a match version)")
    keepalive = float(current_app.config["KEEPALIVE"])
    release = svc.hub.open_stream(int(current_app.config["STREAM_LIMIT"]))
    if release is None:
        response = jsonify({"error": "busy", "message": "too many live phones: poll the state instead"})
        response.headers["Retry-After"] = "30"
        return response, 503
    left = request.environ.get("waitress.client_disconnected", lambda: False)

    def events():
        try:
            seen = since
            if seen < svc.get(match_id).version:
                seen, message = svc.state_message(match_id, hands=is_referee())
                yield f"data: {message}\n\n"
            end = time.monotonic() + timeout
            while time.monotonic() < end and not left():
                news = svc.hub.wait(match_id, seen, min(keepalive, max(0.0, end - time.monotonic())))
                if svc.hub.closed:
                    return  # the server is stopping
                if news is None:
                    yield ": keepalive\n\n"  # (a phone that left is noticed when this cannot be sent)
                    continue
                # the referee's role is asked again at each message: a logout ends the hands at once
                seen, message = svc.state_message(match_id, hands=is_referee())
                yield f"data: {message}\n\n"
        finally:
            release()

    response = Response(
        stream_with_context(events()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(release)  # (also when the stream is closed before it ever started)
    return response


@bp.get("/health")
def health():
    """For the Pi's service checks and the load benchmark: the server answers, and how many live
    streams it holds."""
    hub = get_service(current_app).hub
    return jsonify({"ok": True, "streams": hub.streams, "stream_limit": int(current_app.config["STREAM_LIMIT"])})
