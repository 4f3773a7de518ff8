"""JSON API: match state, turns, undo, next round, the record, and the live stream (SSE)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, jsonify, request, stream_with_context

from . import get_service
from .auth import check_csrf, is_referee, referee_required
from .checks import JsonProblem, strict_json

bp = Blueprint("api", __name__, url_prefix="/api")
bp.before_request(check_csrf)


def _json_body() -> object:
    if not request.is_json:
        abort(400, description="send a JSON body (Content-Type: application/json)")
    try:
        return strict_json(request.get_data(cache=True))
    except JsonProblem as err:
        abort(400, description=f"the JSON body: {err}")


@bp.get("/matches")
def list_matches():
    return jsonify(get_service(current_app).list())


@bp.post("/matches")
@referee_required
def create_match():
    data = _json_object("{players, edition, colours, goal}")
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
    return jsonify(get_service(current_app).play(match_id, _json_body()))


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


def _optional_object() -> dict:
    """The request's JSON object where a body may be left out ({} then)."""
    if not request.get_data(cache=True):
        return {}
    data = _json_body()
    if not isinstance(data, dict):
        abort(400, description="send a JSON object, or no body")
    return data


def _json_object(expected: str) -> dict:
    """The request's JSON body, which must be an object; ``expected`` says which, in the error."""
    data = _json_body()
    if not isinstance(data, dict):
        abort(400, description=f"send a JSON object: {expected}")
    return data


def _changed(match_id: int):
    """The answer to a request that changed a match: its new version."""
    return jsonify({"ok": True, "version": get_service(current_app).get(match_id).version})


@bp.post("/matches/<int:match_id>/deal")
@referee_required
def seen_deal(match_id: int):
    """A camera match without its camera: {table: [2 cards], target: N} as dealt at the table."""
    data = _json_object("{table: [two cards], target: 7 to 10}")
    get_service(current_app).seen_deal(match_id, data.get("table"), data.get("target"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/target")
@referee_required
def set_target(match_id: int):
    """A camera match: the target read from the deck's top back by the referee, {target: N}."""
    data = _json_object("{target: 7 to 10}")
    get_service(current_app).set_target(match_id, data.get("target"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/table")
@referee_required
def correct_table(match_id: int):
    """A camera match: a table card misread when it was turned from the deck is {shown, actual}."""
    data = _json_object("{shown: the card as shown, actual: the card it is}")
    get_service(current_app).correct_table(match_id, data.get("shown"), data.get("actual"))
    return _changed(match_id)


@bp.post("/matches/<int:match_id>/questions/<int:question_id>")
@referee_required
def answer_question(match_id: int, question_id: int):
    """The referee answers a camera question: {reading: k}, 0 the reading played meanwhile."""
    data = _json_object("{reading: the number of the right reading}")
    if "reading" not in data:
        abort(400, description="send a JSON object: {reading: the number of the right reading}")
    get_service(current_app).answer(match_id, question_id, data["reading"])
    return _changed(match_id)


@bp.get("/matches/<int:match_id>/camera.jpg")
def camera(match_id: int):
    """The (virtual) camera's view of the current state, the scanner's readings outlined."""
    from .camera import camera_jpeg

    live = get_service(current_app).get(match_id)
    scanner = current_scanner()
    data = _vision(camera_jpeg, live, scanner, current_app.extensions.setdefault("tweak_camera_cache", {}))
    if data is None:
        abort(404, description="no round on the table yet")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _vision(work, *args, **kwargs):
    """Run picture work on the app's one vision thread (``camera.VisionWorker``)."""
    return current_app.extensions["tweak_vision"].run(work, *args, **kwargs)


def current_scanner():
    """The scanner with the shipped models, loaded once; None when they are missing."""
    if "tweak_scanner" not in current_app.extensions:
        try:
            from scanner.read.profile import ProfileError
            from scanner.scan import load_scanner

            calibration = current_app.config["CALIBRATION"]
            saved = calibration if os.path.exists(calibration) else None
            profile = current_app.config["PROFILE"]
            current_app.extensions.pop("tweak_profile_error", None)
            try:
                scanner = load_scanner(profile if os.path.exists(profile) else None, calibration=saved)
            except ProfileError as err:  # a stale profile: say so on the enrolment page, scan without it
                current_app.extensions["tweak_profile_error"] = str(err)
                scanner = load_scanner(calibration=saved)
            current_app.extensions["tweak_scanner"] = scanner
        except (FileNotFoundError, ImportError, ValueError) as err:  # (ValueError: a finder it cannot use)
            current_app.logger.warning("camera view without recognition: %s", err)
            current_app.extensions["tweak_scanner"] = None
    return current_app.extensions["tweak_scanner"]


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


def _camera():
    return current_app.extensions.get("tweak_camera")


@bp.get("/camera")
def camera_status():
    """The camera's state: ok, starting, missing or lost (moves are then entered by tapping)."""
    camera = _camera()
    calibrated = os.path.exists(current_app.config["CALIBRATION"])
    if camera is None:
        return jsonify(
            {"state": "none", "message": "no camera: moves are entered by tapping", "calibrated": calibrated}
        )
    return jsonify({**camera.status(), "calibrated": calibrated})


@bp.get("/camera.jpg")
def camera_picture():
    """The camera's latest picture, the scanner's readings and the mat's zones drawn on it."""
    import cv2

    from scanner.geometry.mat import MatLayout, find_mat

    from .camera import draw_readings

    camera = _camera()
    frame = camera.latest() if camera is not None else None
    if frame is None:
        state = camera.status() if camera is not None else {"state": "none", "message": "no camera"}
        return jsonify(
            {"error": "no_picture", "message": f"camera {state['state']}: {state['message']}"}
        ), 409  # (a state, not a server fault)
    scanner = current_scanner()

    def picture(frame):
        mat = next((m for m in (find_mat(frame, MatLayout.paper(s)) for s in ("A2", "A3")) if m is not None), None)
        if scanner is not None:
            frame = draw_readings(frame, scanner.scan(frame), mat)
        return cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()

    return Response(_vision(picture, frame), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/camera/calibrate")
@referee_required
def calibrate():
    """First-run calibration: find the mat, lock focus, exposure and white balance, save the zones.

    The zones are saved to the instance folder and used again at the next start.
    """
    from scanner.geometry.calibration import Calibration
    from scanner.geometry.mat import MatLayout, find_mat

    from .camera import mat_zone_polygons

    camera = _camera()
    frame = camera.latest() if camera is not None else None
    if frame is None:
        state = camera.status()["state"] if camera is not None else "none"
        return jsonify(
            {"error": "no_picture", "message": f"no picture to calibrate from (camera {state})"}
        ), 409  # (a state, not a server fault)
    body = _optional_object()
    size = body.get("mat", "A2")
    if size not in ("A2", "A3"):
        abort(400, description="mat must be A2 or A3 (the size it was printed at)")
    mat = _vision(find_mat, frame, MatLayout.paper(size))
    if mat is None:
        return jsonify(
            {"error": "no_mat", "message": "no mat seen: all four corner markers must be in the picture"}
        ), 422
    locked = camera.lock()
    zones = mat_zone_polygons(mat)
    path = current_app.config["CALIBRATION"]
    Calibration((frame.shape[1], frame.shape[0]), zones).save(Path(path))
    current_app.extensions.pop("tweak_scanner", None)  # the next scan uses the new zones
    return jsonify({"mat": size, "markers": mat.markers, "locked": sorted(locked), "zones": sorted(zones)})


@bp.post("/matches/<int:match_id>/piles/<player>")
@referee_required
def check_pile(match_id: int, player: str):
    """End of round: the camera counts a player's spread won pile (R1.3) and it is compared, card
    by card, with the pile the game tracked. Nothing is overwritten: differences are shown and
    the referee corrects the moves (undo) if the tracked pile is wrong.

    With a camera: its latest picture. Without one: the virtual table spreads the tracked pile.
    """
    import cv2

    from scanner.piles import MIN_SCORE_CONFIDENCE, compare, score_labels

    from .camera import draw_readings

    svc = get_service(current_app)
    tracked = svc.tracked_pile(match_id, player)
    add = request.args.get("add") in ("1", "true")  # one more picture of a pile larger than the view
    camera = _camera()
    if camera is not None:
        frame = camera.latest()
        if frame is None:
            return jsonify(
                {"error": "no_picture", "message": f"camera {camera.state}: {camera.message}"}
            ), 409  # (a state, not a server fault)
        frames = [frame]
    else:  # the virtual table spreads the pile 24 cards to a picture
        seed = svc.get(match_id).seed
        frames = [
            _vision(_virtual_pile, seed, tracked[i : i + 24], f"{player}-{i}")
            for i in range(0, max(1, len(tracked)), 24)
        ]
    scanner = current_scanner()
    if scanner is None:
        return jsonify(
            {"error": "no_scanner", "message": "the recognition models are not installed"}
        ), 409  # (a state, not a server fault)
    store = current_app.extensions.setdefault("tweak_pile_scores", {})
    scanned = store.get((match_id, player)) if add else None
    scanned = scanned or score_labels([])
    doubtful: list[str] = []
    for frame in frames:
        result = _vision(scanner.scan, frame, pile=True)
        scanned = scanned.add(score_labels(c.label for c in result.cards if c.confidence >= MIN_SCORE_CONFIDENCE))
        doubtful += [c.label for c in result.cards if c.confidence < MIN_SCORE_CONFIDENCE]
    store[(match_id, player)] = scanned
    differences = [d.as_json() for d in compare(tracked, scanned)]
    svc.pile_check(match_id, player, scanned.as_json(), differences)
    ok, data = _vision(lambda: cv2.imencode(".jpg", draw_readings(frames[-1], result), [cv2.IMWRITE_JPEG_QUALITY, 80]))
    current_app.extensions.setdefault("tweak_piles", {})[(match_id, player)] = data.tobytes()
    return jsonify(
        {
            "player": player,
            "scanned": scanned.as_json(),
            "tracked": score_labels(tracked).as_json(),
            "differences": differences,
            "doubtful": doubtful,
            "pictures": len(frames),
            "picture": f"/api/matches/{match_id}/piles/{player}.jpg",
        }
    )


@bp.get("/matches/<int:match_id>/piles/<player>.jpg")
def pile_picture(match_id: int, player: str):
    data = current_app.extensions.get("tweak_piles", {}).get((match_id, player))
    if data is None:
        abort(404, description="no pile checked for this player yet")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _virtual_pile(seed: int, labels: list[str], player: str):
    """The virtual table's photo of a pile spread out (the camera stands where it always does)."""
    import random

    from scanner.piles import pile_scene
    from scanner.synth.cards import REFERENCE_STYLE
    from scanner.synth.table import draw_scene, room_conditions

    rng = random.Random(f"{seed}-{player}")
    return draw_scene(pile_scene(labels, rng), room_conditions("felt"), REFERENCE_STYLE, rng, seed).image


# --- deck enrolment wizard -----------------------------------------------------------------


def _enrolment() -> dict:
    return current_app.extensions.setdefault("tweak_enrol", {"last": [], "crops": {}})


@bp.get("/enrol")
def enrol_status():
    from scanner.read.profile import ProfileError, load_profile

    state = _enrolment()
    path = current_app.config["PROFILE"]
    saved: dict = {}
    if os.path.exists(path):
        try:
            saved = load_profile(Path(path)).photos
        except ProfileError as err:
            return jsonify({"pending": {}, "saved": {}, "error": str(err)})
    return jsonify(
        {
            "pending": {label: len(c) for label, c in state["crops"].items()},
            "saved": saved,
            "error": current_app.extensions.get("tweak_profile_error"),
        }
    )


@bp.post("/enrol/capture")
@referee_required
def enrol_capture():
    """Read the cards under the camera (one, or a whole colour spread out) and propose labels."""
    from scanner.read.adapt import card_image

    camera = _camera()
    frame = camera.latest() if camera is not None else None
    if frame is None:
        return jsonify(
            {"error": "no_picture", "message": "the enrolment wizard needs a camera picture"}
        ), 409  # (a state, not a server fault)
    scanner = current_scanner()
    if scanner is None:
        return jsonify(
            {"error": "no_scanner", "message": "the recognition models are not installed"}
        ), 409  # (a state, not a server fault)
    result = _vision(scanner.scan, frame)
    if not result.cards:
        return jsonify({"error": "no_card", "message": "no card seen: lay the cards face up, apart"}), 422
    _enrolment()["last"] = _vision(lambda: [card_image(frame, c.corners) for c in result.cards])
    return jsonify(
        {
            "cards": [
                {
                    "index": i,
                    "proposed": c.label,
                    "confidence": round(c.confidence, 3),
                    "next": [n for n, _ in c.candidates[1:3]],
                    # the outline found, shown on the picture before the referee accepts it
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in c.corners],
                }
                for i, c in enumerate(result.cards)
            ],
            "size": [int(frame.shape[1]), int(frame.shape[0])],
        }
    )


@bp.post("/enrol/confirm")
@referee_required
def enrol_confirm():
    """The referee's labels for the cards just read (corrected where the proposal was wrong)."""
    from scanner.labels import LABELS

    data = _json_body()
    labels = data.get("labels") if isinstance(data, dict) else None
    state = _enrolment()
    if not isinstance(labels, list) or len(labels) != len(state["last"]):
        abort(400, description=f"send {{labels: [...]}} with one label per card read ({len(state['last'])})")
    for i, label in enumerate(labels):
        if label is not None and label not in LABELS:
            abort(400, description=f"labels[{i}]: {label!r} is not a card label")
    for crop, label in zip(state["last"], labels):
        if label is not None:  # None: leave this card out
            state["crops"].setdefault(label, []).append(crop)
    state["last"] = []
    return jsonify({"pending": {label: len(c) for label, c in state["crops"].items()}})


@bp.post("/enrol/save")
@referee_required
def enrol_save():
    """Build the deck profile from the confirmed cards and use it from now on."""
    from scanner.read.profile import enrol_cards

    state = _enrolment()
    if not state["crops"]:
        abort(409, description="no confirmed card yet: read and confirm some cards first")
    scanner = current_scanner()
    deck = _optional_object().get("deck", "dashboard")
    if not isinstance(deck, str) or len(deck) > 80:
        abort(400, description="deck must be a name of at most 80 characters")
    profile = enrol_cards(scanner.classifier, state["crops"], deck=deck)
    profile.save(Path(current_app.config["PROFILE"]))
    state["crops"] = {}
    current_app.extensions.pop("tweak_scanner", None)  # the next scan uses the profile
    return jsonify({"labels": len(profile.enrolled), "missing": len(profile.missing)})
