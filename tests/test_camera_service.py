"""The real camera on the dashboard: failures never take it down, it reconnects, first-run calibration."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from companion.web.camera import CameraService
from companion.web.vision import vision_of
from scanner.capture.camera import CameraError
from scanner.geometry.calibration import load_calibration
from scanner.geometry.mat import MatLayout, mat_image


def _mat_frame() -> np.ndarray:
    """The printed A3 mat seen straight from above, on a grey table."""
    mat = mat_image(MatLayout.paper("A3"), px_per_mm=1.6)
    frame = np.full((mat.shape[0] + 80, mat.shape[1] + 80, 3), 90, np.uint8)
    frame[40 : 40 + mat.shape[0], 40 : 40 + mat.shape[1]] = (
        mat if mat.ndim == 3 else cv2.cvtColor(mat, cv2.COLOR_GRAY2BGR)
    )
    return frame


class FakeSource:
    """Stands in for the Pi camera (no hardware here): ``frames`` pictures, then unplugged."""

    def __init__(self, frame: np.ndarray, frames: int | None) -> None:
        self.frame, self.left = frame, frames
        self.locked = False

    def read(self):
        if self.left is not None:
            if self.left <= 0:
                return None
            self.left -= 1
        time.sleep(0.005)
        return self.frame

    def lock(self):
        self.locked = True
        return {"AeEnable": False, "AfMode": 0, "AwbEnable": False}

    def close(self) -> None:
        pass


def _wait(predicate, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_camera_missing_then_plugged_then_unplugged_then_back() -> None:
    frame = _mat_frame()
    plan = ["missing", 20, "missing", None]  # opener results, in order
    seen_states: list[str] = []

    def opener(spec: str):
        step = plan.pop(0) if plan else None
        if step == "missing":
            raise CameraError("no camera on picamera:0")
        return FakeSource(frame, step)

    camera = CameraService("picamera", opener=opener, retry=0.02).start()
    try:
        assert _wait(lambda: seen_states.append(camera.state) or camera.state == "missing")
        assert _wait(lambda: camera.state == "ok" and camera.frames > 0)
        assert camera.latest() is not None
        assert _wait(lambda: seen_states.append(camera.state) or camera.state in ("lost", "missing"))
        assert _wait(lambda: camera.state == "ok" and camera.reconnects >= 1)
        assert "no camera on picamera:0" in " ".join([camera.message]) or camera.state == "ok"
    finally:
        camera.stop()


def test_dashboard_without_a_picture_says_why(referee, app) -> None:
    def opener(spec: str):
        raise CameraError("picamera2 is not installed (apt install python3-picamera2)")

    vision_of(app).camera = CameraService("picamera", opener=opener, retry=0.05).start()
    try:
        client = referee.client
        assert _wait(lambda: client.get("/api/camera").get_json()["state"] == "missing")
        status = client.get("/api/camera").get_json()
        assert "picamera2 is not installed" in status["message"]
        picture = client.get("/api/camera.jpg")
        assert picture.status_code == 409 and "missing" in picture.get_json()["message"]
        assert referee.post("/api/camera/calibrate").status_code == 409
        # the dashboard itself still works: manual entry
        assert client.get("/").status_code == 200
        assert referee.post("/api/matches", json={"players": ["Ana", "Ben"]}).status_code == 201
    finally:
        vision_of(app).camera.stop()


def test_first_run_calibration_finds_the_mat_locks_and_saves(referee, app) -> None:
    source = FakeSource(_mat_frame(), None)
    vision_of(app).camera = CameraService("picamera", opener=lambda spec: source, retry=0.05).start()
    try:
        client = referee.client
        assert _wait(lambda: client.get("/api/camera").get_json()["state"] == "ok")
        assert client.get("/api/camera").get_json()["calibrated"] is False
        picture = client.get("/api/camera.jpg")
        assert picture.status_code == 200 and picture.mimetype == "image/jpeg"
        watcher = app.test_client()
        assert watcher.get("/calibrate").status_code == 200
        # cards confirmed in the wizard before
        vision_of(app).enrolment.update(areas=[9000.0] * 3, burnt=[0.4] * 3, aspects=[1.4] * 3)
        answer = referee.post("/api/camera/calibrate", json={"mat": "A3"})
        assert answer.status_code == 200, answer.get_json()
        data = answer.get_json()
        assert data["mat"] == "A3" and data["markers"] == 4 and "centre" in data["zones"]
        assert source.locked and "AwbEnable" in data["locked"]
        saved = load_calibration(app.config["CALIBRATION"])
        assert set(saved.zones) == {"deck", "tweak_pile", "centre"}
        assert client.get("/api/camera").get_json()["calibrated"] is True
        # their size and light were seen from where the camera was
        assert all(vision_of(app).enrolment[usual] == [] for usual in ("areas", "burnt", "aspects"))
        # the saved zones are used from now on (and at the next start, from the instance folder)
        assert client.get("/api/camera.jpg").status_code == 200
        assert vision_of(app).scanner_loaded.calibration is not None
    finally:
        vision_of(app).camera.stop()


def test_calibration_is_for_the_referee_only(app) -> None:
    client = app.test_client()
    from tests.conftest import csrf_of

    token = csrf_of(client)
    answer = client.post("/api/camera/calibrate", headers={"X-CSRF-Token": token})
    assert answer.status_code == 403


def test_no_camera_is_reported_as_none(app) -> None:
    status = app.test_client().get("/api/camera").get_json()
    assert status["state"] == "none" and "tapping" in status["message"]


def test_the_match_list_tells_the_referee_what_the_camera_still_needs(referee, app) -> None:
    """With a camera attached, the referee's match list says what it still needs: calibrating,
    a deck profile (without one an unknown deck is read poorly), or a profile that cannot be used;
    watchers and tables without a camera see nothing of it."""
    from pathlib import Path

    from scanner.piles import render_pile
    from tests.helpers import camera_showing

    def needs(client) -> list[str]:
        page = client.get("/").get_data(as_text=True)
        return [part.split("</p>")[0] for part in page.split('data-testid="camera-setup">')[1:]]

    assert needs(referee.client) == []
    image, _ = render_pile(11, n=1)
    with camera_showing(app, image):
        said = needs(referee.client)
        assert len(said) == 2 and "not calibrated yet" in said[0] and "does not know your deck" in said[1]
        assert 'href="/enrol"' in said[1] and 'href="/calibrate"' in said[0]
        assert needs(app.test_client()) == []  # a watcher
        Path(app.config["PROFILE"]).write_text("not a profile")
        vision_of(app).forget_scanner()
        assert vision_of(app).scanner() is not None and vision_of(app).profile_error
        said = needs(referee.client)
        assert len(said) == 2 and "saved deck profile cannot be used" in said[1]
        learning = threading.Event()  # (a profile being learned again from its kept cards)
        vision_of(app).relearning = threading.Thread(target=learning.wait)
        vision_of(app).relearning.start()
        said = needs(referee.client)
        learning.set()
        assert "being learned again" in said[1] and "href" not in said[1]
        Path(app.config["CALIBRATION"]).write_text("{}")
        Path(app.config["PROFILE"]).unlink()
        said = needs(referee.client)
        assert len(said) == 1 and "does not know your deck" in said[0]  # calibrated now
    vision_of(app).camera = CameraService("virtual:3")  # the project's own deck, drawn: no set-up
    assert needs(referee.client) == []
