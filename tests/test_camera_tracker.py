"""Frame sources (picamera2 through a recording fake) and the tracker."""

from __future__ import annotations

import types

import cv2
import numpy as np
import pytest

from scanner.capture.camera import CameraError, FolderSource, PiCamera, VirtualTableSource, open_source
from scanner.scan import ScannedCard, ScanResult
from scanner.track import Tracker


class FakePicamera2:
    """Stands in for picamera2.Picamera2 (hardware we do not have); records every call."""

    calls: list = []

    def __init__(self, index=0):
        self.calls.append(("init", index))

    def create_video_configuration(self, **kwargs):
        self.calls.append(("create_video_configuration", kwargs))
        return {"config": kwargs}

    def configure(self, config):
        self.calls.append(("configure", config))

    def set_controls(self, controls):
        self.calls.append(("set_controls", dict(controls)))

    def start(self):
        self.calls.append(("start",))

    def capture_array(self, stream):
        self.calls.append(("capture_array", stream))
        return np.zeros((720, 1280, 3), np.uint8)

    def capture_metadata(self):
        return {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5), "LensPosition": 3.2, "Lux": 300}

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


def test_picamera_configures_rgb888_and_locks_focus_exposure_white_balance():
    FakePicamera2.calls = []
    module = types.SimpleNamespace(Picamera2=FakePicamera2)
    cam = PiCamera((1280, 720), module=module)
    assert (
        "create_video_configuration",
        {"main": {"size": (1280, 720), "format": "RGB888"}, "buffer_count": 4},
    ) in FakePicamera2.calls
    assert ("set_controls", {"AfMode": 2, "AeEnable": True, "AwbEnable": True}) in FakePicamera2.calls
    assert cam.read().shape == (720, 1280, 3)
    locked = cam.lock()
    assert locked == {
        "AeEnable": False,
        "AwbEnable": False,
        "AfMode": 0,
        "ExposureTime": 12000,
        "AnalogueGain": 2.0,
        "ColourGains": (1.8, 1.5),
        "LensPosition": 3.2,
    }
    assert FakePicamera2.calls[-1] == ("set_controls", locked)
    cam.close()
    assert FakePicamera2.calls[-2:] == [("stop",), ("close",)]


def test_missing_picamera2_gives_a_clear_message():
    with pytest.raises(CameraError, match="python3-picamera2"):
        open_source("picamera")


def test_folder_and_virtual_sources(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i}.png"), np.full((10, 20, 3), i * 40, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(str(tmp_path))
    assert isinstance(source, FolderSource)
    got = [source.read() for _ in range(4)]
    assert [g[0, 0, 0] for g in got[:3]] == [0, 40, 80] and got[3] is None
    virtual = VirtualTableSource(3, frames=1)
    frame = virtual.read()
    assert frame.ndim == 3 and frame.shape[1] >= 1280 and virtual.read() is None
    with pytest.raises(CameraError, match="whole-number"):
        open_source("virtual:abc")
    with pytest.raises(CameraError, match="no camera or file"):
        open_source(str(tmp_path / "missing.mp4"))


def card(label, x, conf=0.99, zone=None):
    corners = np.array([[x, 100], [x + 60, 100], [x + 60, 184], [x, 184]], np.float32)
    return ScannedCard(label, corners, conf, zone)


def scan(*cards, target=9):
    return ScanResult(list(cards), target, None, 5.0)


def test_tracker_declares_a_state_only_after_stillness_and_votes_labels():
    tracker = Tracker(still_seconds=0.5)
    still = np.full((90, 160, 3), 120, np.uint8)
    t = 0.0
    states = []
    for i in range(8):  # one misread frame is outvoted
        label = "red-5" if i != 3 else "orange-5"
        states.append(tracker.update(t, still, scan(card(label, 10), card("blue-2", 200))))
        t += 0.1
    declared = [s for s in states if s is not None]
    assert len(declared) == 1
    state = declared[0]
    assert state.time >= 0.5 and sorted(state.labels) == ["blue-2", "red-5"] and state.target == 9
    assert {c.label for c in state.added} == {"red-5", "blue-2"}
    # a hand passes: motion frames are not trusted, then the new still scene is a new state
    moving = np.random.default_rng(0).integers(0, 255, (90, 160, 3), np.uint8)
    assert tracker.update(t, moving, scan(card("green-1", 300))) is None
    assert tracker.moving
    t += 0.1
    new_states = []
    for _ in range(8):
        new_states.append(tracker.update(t, still, scan(card("red-5", 10), target=8)))
        t += 0.1
    declared = [s for s in new_states if s is not None]
    assert len(declared) == 1
    assert [c.label for c in declared[0].removed] == ["blue-2"] and declared[0].added == []
    assert declared[0].target == 8


@pytest.mark.parametrize("channels", [3, 1])
def test_motion_is_the_share_of_pixels_changed_in_any_channel(channels: int) -> None:
    """A hand over a corner changes that corner: its share of the small copy, counted on the
    channel that changed most (a red hand on a red cloth still changes green and blue)."""
    from scanner.track import CHANGED, MOTION_SIZE

    rng = np.random.default_rng(3)
    shape = (720, 1280, channels) if channels == 3 else (720, 1280)
    before = rng.integers(100, 110, shape, np.uint8)
    after = before.copy()
    after[:180, :320] = 0 if channels == 1 else (before[:180, :320] * [1, 0, 1]).astype(np.uint8)  # one channel
    tracker = Tracker()
    assert tracker.motion(before) == 0.0  # nothing to compare with yet
    small_before = cv2.resize(before, MOTION_SIZE, interpolation=cv2.INTER_AREA).astype(int)
    small_after = cv2.resize(after, MOTION_SIZE, interpolation=cv2.INTER_AREA).astype(int)
    diff = np.abs(small_after - small_before)
    expected = ((diff.max(axis=2) if channels == 3 else diff) > CHANGED).mean() * 100
    assert tracker.motion(after) == pytest.approx(expected)
    assert expected == pytest.approx(6.25, abs=0.5)  # a sixteenth of the picture


def test_a_tracked_card_carries_its_readings_averaged_over_the_frames_that_voted_for_it():
    """The referee weighs a doubtful card's other readings by their probability: over a still
    moment, not one frame's (each label's mean over the frames voting for the card's label)."""
    tracker = Tracker(still_seconds=0.5)
    still = np.full((90, 160, 3), 120, np.uint8)
    states = []
    for i in range(8):
        seen = card("red-5", 10, conf=0.9)
        seen.candidates = [
            ("red-5", 0.9),
            ("red-3", 0.1 if i % 2 else 0.06),
            *([("orange-5", 0.04)] if i % 2 == 0 else []),
        ]
        states.append(tracker.update(0.1 * i, still, scan(seen)))
    (state,) = [s for s in states if s is not None]
    (tracked,) = state.cards
    assert [label for label, _ in tracked.candidates] == ["red-5", "red-3", "orange-5"]
    assert [round(p, 3) for _, p in tracked.candidates] == pytest.approx([0.9, 0.08, 0.02])


def test_a_card_whose_outline_slips_between_frames_is_still_one_card_seen_in_every_frame():
    """An unfamiliar deck's loose outline can slip by a third of the card between frames (the
    strip deck: IoU 0.43): still one card, not two halves each under the vote's share, dropped.
    Two cards of one frame lying on each other stay two cards."""
    tracker = Tracker(still_seconds=0.1)
    still = np.full((90, 160, 3), 120, np.uint8)
    states = []
    for i in range(4):
        moved = card("yellow-3", 10)
        moved.corners[:, 1] += 34 if i % 2 else 0  # (IoU 3000/7080 = 0.42 with the one before)
        states.append(tracker.update(0.1 * i, still, scan(moved, card("blue-2", 200))))
    state = next(s for s in states if s is not None)
    assert sorted(state.labels.elements()) == ["blue-2", "yellow-3"]
    assert max(c.votes for c in state.cards if c.label == "yellow-3") == 2
    # two cards of one frame, one lying over most of the other (IoU 0.67): both kept, each its own
    tracker = Tracker(still_seconds=0.1)
    states = [tracker.update(0.1 * i, still, scan(card("red-5", 10), card("green-2", 22))) for i in range(3)]
    state = next(s for s in states if s is not None)
    assert sorted(state.labels.elements()) == ["green-2", "red-5"]
