"""The camera's JSON API: its state, its latest picture with the readings drawn, the first-run
calibration, and the virtual table's picture of a match."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, jsonify

from . import get_service
from .auth import check_csrf, referee_required
from .checks import optional_object
from .vision import vision_of

bp = Blueprint("cameras", __name__, url_prefix="/api")
bp.before_request(check_csrf)


@bp.get("/matches/<int:match_id>/camera.jpg")
def camera(match_id: int):
    """The (virtual) camera's view of the current state, the scanner's readings outlined."""
    from .camera import camera_jpeg

    live = get_service(current_app).get(match_id)
    scanner = vision_of().scanner()
    data = vision_of().run(camera_jpeg, live, scanner, vision_of().camera_pictures)
    if data is None:
        abort(404, description="no round on the table yet")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/camera")
def camera_status():
    """The camera's state: ok, starting, missing or lost (moves are then entered by tapping)."""
    camera = vision_of().camera
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

    camera = vision_of().camera
    frame = camera.latest() if camera is not None else None
    if frame is None:
        state = camera.status() if camera is not None else {"state": "none", "message": "no camera"}
        return jsonify(
            {"error": "no_picture", "message": f"camera {state['state']}: {state['message']}"}
        ), 409  # (a state, not a server fault)
    scanner = vision_of().scanner()

    def picture(frame):
        mat = next((m for m in (find_mat(frame, MatLayout.paper(s)) for s in ("A2", "A3")) if m is not None), None)
        if scanner is not None:
            frame = draw_readings(frame, scanner.scan(frame), mat)
        return cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()

    return Response(vision_of().run(picture, frame), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/camera/calibrate")
@referee_required
def calibrate():
    """First-run calibration: find the mat, lock focus, exposure and white balance, save the zones.

    The zones are saved to the instance folder and used again at the next start.
    """
    from scanner.geometry.calibration import Calibration
    from scanner.geometry.mat import MatLayout, find_mat

    from .camera import mat_zone_polygons

    camera = vision_of().camera
    frame = camera.latest() if camera is not None else None
    if frame is None:
        state = camera.status()["state"] if camera is not None else "none"
        return jsonify(
            {"error": "no_picture", "message": f"no picture to calibrate from (camera {state})"}
        ), 409  # (a state, not a server fault)
    body = optional_object()
    size = body.get("mat", "A2")
    if size not in ("A2", "A3"):
        abort(400, description="mat must be A2 or A3 (the size it was printed at)")
    mat = vision_of().run(find_mat, frame, MatLayout.paper(size))
    if mat is None:
        return jsonify(
            {"error": "no_mat", "message": "no mat seen: all four corner markers must be in the picture"}
        ), 422
    locked = camera.lock()
    zones = mat_zone_polygons(mat)
    path = current_app.config["CALIBRATION"]
    Calibration((frame.shape[1], frame.shape[0]), zones).save(Path(path))
    vision_of().forget_scanner()  # the next scan uses the new zones
    # the camera may have moved (and the light with it): the enrolment wizard's usual card size,
    # shape and share burnt white start again from new readings
    vision_of().enrolment.update(areas=[], burnt=[], aspects=[])
    return jsonify({"mat": size, "markers": mat.markers, "locked": sorted(locked), "zones": sorted(zones)})
