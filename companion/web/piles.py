"""Won piles at the end of a round (R1.3): the camera counts a player's spread pile and it is
compared with the pile the game tracked."""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, request

from . import get_service
from .auth import check_csrf, referee_required
from .vision import vision_of

bp = Blueprint("piles", __name__, url_prefix="/api")
bp.before_request(check_csrf)


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
    camera = vision_of().camera
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
            vision_of().run(_virtual_pile, seed, tracked[i : i + 24], f"{player}-{i}")
            for i in range(0, max(1, len(tracked)), 24)
        ]
    scanner = vision_of().scanner()
    if scanner is None:
        return jsonify(
            {"error": "no_scanner", "message": "the recognition models are not installed"}
        ), 409  # (a state, not a server fault)
    store = vision_of().pile_scores
    scanned = store.get((match_id, player)) if add else None
    scanned = scanned or score_labels([])
    doubtful: list[str] = []
    for frame in frames:
        result = vision_of().run(scanner.scan, frame, pile=True)
        scanned = scanned.add(score_labels(c.label for c in result.cards if c.confidence >= MIN_SCORE_CONFIDENCE))
        doubtful += [c.label for c in result.cards if c.confidence < MIN_SCORE_CONFIDENCE]
    store[(match_id, player)] = scanned
    differences = [d.as_json() for d in compare(tracked, scanned)]
    svc.pile_check(match_id, player, scanned.as_json(), differences)
    picture = frames[-1]
    ok, data = vision_of().run(
        lambda: cv2.imencode(".jpg", draw_readings(picture, result), [cv2.IMWRITE_JPEG_QUALITY, 80])
    )
    vision_of().pile_pictures[(match_id, player)] = data.tobytes()
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
    data = vision_of().pile_pictures.get((match_id, player))
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
