"""Deck enrolment: photos in, a versioned profile out; scanning with it; bad input named."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from companion.cli import main
from scanner.classify import CardClassifier
from scanner.enrol_eval import accuracy, card_photo, table_crops
from scanner.pipeline import load_scanner
from scanner.profile import ProfileError, enrol_folder, load_profile
from scanner.synth.cards import random_style

LABELS = ["red-5", "orange-3", "yellow-3", "green-1", "tweak-joker"]


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    """A held-out-style deck: one photo per label of a few labels."""
    style = random_style(random.Random(3), heldout=True)
    folder = tmp_path_factory.mktemp("deck")
    for k, label in enumerate(LABELS):
        (folder / label).mkdir()
        cv2.imwrite(str(folder / label / "a.jpg"), card_photo(label, style, 500 + k))
    return folder, style


def test_enrol_command_writes_a_versioned_profile(deck, tmp_path, capsys) -> None:
    folder, _ = deck
    out = tmp_path / "deck.json"
    assert main(["enrol", str(folder), "--profile", str(out)]) == 0
    said = capsys.readouterr().out
    assert "5 labels from 5 photos" in said and "use the shipped model" in said
    data = json.loads(out.read_text())
    assert data["tweak_profile"] == 1
    assert data["model"]["version"] == CardClassifier().version
    assert sorted(data["labels"]) == sorted(LABELS)
    assert len(data["missing"]) == 46 - len(LABELS)
    assert len(data["labels"]["red-5"]["upright"]) == 96


def test_profile_keeps_the_deck_readable(deck, tmp_path) -> None:
    folder, style = deck
    scanner = load_scanner()
    report = enrol_folder(folder, scanner)
    assert report.refused == [] and report.used == len(LABELS)
    path = tmp_path / "p.json"
    report.profile.save(path)
    profile = load_profile(path, scanner.classifier)
    crops, labels = table_crops(style, 8, 123_000)
    with_profile = accuracy(lambda c: profile.classify(scanner.classifier, c), crops, labels)
    zero_shot = accuracy(scanner.classifier.classify, crops, labels)
    assert with_profile >= zero_shot - 0.01 and with_profile > 0.95


def test_photos_without_exactly_one_card_are_named(deck, tmp_path, capsys) -> None:
    folder = tmp_path / "bad"
    (folder / "red-5").mkdir(parents=True)
    (folder / "blue-2").mkdir()
    style = deck[1]
    cv2.imwrite(str(folder / "red-5" / "good.jpg"), card_photo("red-5", style, 1))
    cv2.imwrite(str(folder / "blue-2" / "empty.jpg"), np.full((720, 1280, 3), 120, np.uint8))
    (folder / "blue-2" / "broken.jpg").write_bytes(b"not a picture")
    status = main(["enrol", str(folder), "--profile", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    assert status == 1  # saved, but some photos were skipped
    assert "empty.jpg: no card found" in err and "broken.jpg: cannot be read" in err
    assert json.loads((tmp_path / "p.json").read_text())["labels"].keys() == {"red-5"}


def test_a_profile_reads_unsure_crops_as_the_classifier_does(deck) -> None:
    """Deck profiles start from the same probabilities as ``classify``, an unsure crop's half-turn
    reading included (without it a profile read 2 of 128 held-out-style crops worse than none)."""
    from scanner.classify import HALF_TURN_BELOW

    classifier = CardClassifier()
    crops, _ = table_crops(deck[1], 8, 123_000)
    probs, flipped, emb = classifier.run(crops)
    once, _ = classifier.raw(crops, turned=False)
    assert (once.max(axis=1) < HALF_TURN_BELOW).sum() >= 2  # some crops are read twice
    expected, expected_flipped = classifier.raw(crops)
    assert np.allclose(probs, expected, atol=1e-6) and np.allclose(flipped, expected_flipped, atol=1e-6)
    assert emb.shape[0] == len(crops) and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-5)


def test_an_outline_that_reads_as_no_card_does_not_spoil_an_enrolment_photo(deck) -> None:
    """The finder may half-mark a marker or a shadow's edge beside the one card (seen on another
    CPU's arithmetic): the photo is used, with the card; two cards still make two."""
    from types import SimpleNamespace

    from scanner.profile import _drop_not_cards

    scanner = load_scanner()
    photo = card_photo("red-5", deck[1], 500)
    (card,) = scanner.scan(photo).cards
    assert card.label == "red-5"
    blank = card.corners - card.corners.min(axis=0) + 20  # same size, on the bare table corner
    as_found = lambda *quads: [SimpleNamespace(corners=q.astype(np.float32)) for q in quads]
    kept = _drop_not_cards(as_found(card.corners, blank), photo, scanner.classifier)
    assert len(kept) == 1 and np.allclose(kept[0].corners, card.corners)
    assert len(_drop_not_cards(as_found(blank), photo, scanner.classifier)) == 1  # one is never judged
    assert len(_drop_not_cards(as_found(blank, blank + 200), photo, scanner.classifier)) == 2  # none a card
    two = np.hstack([photo, photo])
    moved = card.corners + [photo.shape[1], 0]
    assert len(_drop_not_cards(as_found(card.corners, moved), two, scanner.classifier)) == 2


def test_unknown_label_folder_is_refused(tmp_path, capsys) -> None:
    (tmp_path / "deck" / "red-7").mkdir(parents=True)
    assert main(["enrol", str(tmp_path / "deck"), "--profile", str(tmp_path / "p.json")]) == 2
    assert "'red-7' is not a card label" in capsys.readouterr().err


def test_a_profile_for_another_model_is_refused(deck, tmp_path, capsys) -> None:
    folder, _ = deck
    path = tmp_path / "p.json"
    assert main(["enrol", str(folder), "--profile", str(path)]) == 0
    data = json.loads(path.read_text())
    data["model"]["version"] = 3
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="enrol the deck again"):
        load_profile(path, CardClassifier())
    image = tmp_path / "t.jpg"
    cv2.imwrite(str(image), card_photo("red-5", deck[1], 9))
    assert main(["scan", "--profile", str(path), str(image)]) == 2
    assert "enrol the deck again" in capsys.readouterr().err
    data["tweak_profile"] = 9
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="format 9"):
        load_profile(path)


def test_scan_with_a_profile(deck, tmp_path, capsys) -> None:
    folder, style = deck
    path = tmp_path / "p.json"
    assert main(["enrol", str(folder), "--profile", str(path)]) == 0
    capsys.readouterr()
    image = tmp_path / "t.jpg"
    cv2.imwrite(str(image), card_photo("orange-3", style, 77))
    assert main(["scan", "--json", "--profile", str(path), str(image)]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    assert [c["label"] for c in cards] == ["orange-3"]


def test_enrolment_wizard_on_the_dashboard(referee, app) -> None:
    """Cards under the camera, labels proposed, the referee corrects one, the profile is saved."""
    import time

    from companion.web.camera import CameraService
    from scanner.piles import render_pile

    image, truth = render_pile(11, n=2)

    class Still:
        def read(self):
            time.sleep(0.01)
            return image

        def close(self):
            pass

    app.extensions["tweak_camera"] = CameraService("picamera", opener=lambda spec: Still(), retry=0.05).start()
    try:
        client = referee.client
        deadline = time.monotonic() + 5
        while client.get("/api/camera").get_json()["state"] != "ok" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.get("/enrol").status_code == 200
        read = referee.post("/api/enrol/capture")
        assert read.status_code == 200, read.get_json()
        cards = read.get_json()["cards"]
        assert len(cards) == 2 and all(c["proposed"] for c in cards)
        assert referee.post("/api/enrol/confirm", json={"labels": ["red-9", None]}).status_code == 400
        assert referee.post("/api/enrol/confirm", json={"labels": ["red-5"]}).status_code == 400
        labels = sorted(truth)  # the referee's own reading, whatever was proposed
        proposed = [c["proposed"] for c in cards]
        chosen = [lab if lab in truth else truth[0] for lab in proposed]
        assert referee.post("/api/enrol/confirm", json={"labels": chosen}).status_code == 200
        assert client.get("/api/enrol").get_json()["pending"]
        saved = referee.post("/api/enrol/save", json={"deck": "test"})
        assert saved.status_code == 200 and saved.get_json()["labels"] >= 1
        status = client.get("/api/enrol").get_json()
        assert status["pending"] == {} and set(status["saved"]) <= set(labels)
        assert app.config["PROFILE"] and load_profile(app.config["PROFILE"], CardClassifier()).photos
        # the scanner uses it from now on
        assert client.get("/api/camera.jpg").status_code == 200
        assert app.extensions["tweak_scanner"].profile is not None
    finally:
        app.extensions["tweak_camera"].stop()


def test_enrolment_needs_the_referee_and_a_picture(app, referee) -> None:
    from tests.conftest import csrf_of

    watcher = app.test_client()
    assert watcher.post("/api/enrol/capture", headers={"X-CSRF-Token": csrf_of(watcher)}).status_code == 403
    answer = referee.post("/api/enrol/capture")
    assert answer.status_code == 503 and "needs a camera" in answer.get_json()["message"]
    assert referee.post("/api/enrol/save").status_code == 409
