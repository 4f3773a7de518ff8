"""The classifier's label priors: fitted by `tweak calibrate` (scanner/calibrate.py) on fresh renders,
kept only where they generalise, stored in the model's meta and applied to every reading."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from scanner.metrics import expected_cards, match
from scanner.read.classify import DEFAULT_MODEL, LABEL_BIAS, CardClassifier, ClassifierError
from scanner.synth.table import render_table
from scanner.train.calibrate import calibrate, colour_bias
from scanner.train.classifier import CLASSES
from scanner.train.dataset import scene_crops


def _crops(first: int, scenes: int) -> np.ndarray:
    return _crops_and_classes(first, scenes)[0]


def _crops_and_classes(first: int, scenes: int) -> tuple[np.ndarray, np.ndarray]:
    read = [(crop, cls) for seed in range(first, first + scenes) for crop, cls, *_ in scene_crops(seed, True, False)]
    return np.asarray([crop for crop, _ in read]), np.array([cls for _, cls in read])


def test_a_colour_called_too_often_gets_a_negative_prior_and_noise_gets_none() -> None:
    rng = np.random.default_rng(1)
    green, yellow = CLASSES.index("green-2"), CLASSES.index("yellow-2")
    probs = np.full((600, len(CLASSES)), 1e-4)
    labels = np.where(np.arange(600) < 300, green, yellow)
    # a third of the green cards read a little more yellow than green: yellow is called too often
    probs[:, green] = np.where(labels == green, 0.6, 0.1)
    probs[:, yellow] = np.where(labels == green, 0.3, 0.8)
    probs[:100, green], probs[:100, yellow] = 0.45, 0.5
    probs /= probs.sum(axis=1, keepdims=True)
    assert colour_bias(probs, labels, list(CLASSES)) == {"yellow": -0.2}  # the least that mends them (log 0.5/0.45)
    # readings whose mistakes no prior mends (random): nothing kept
    noise = rng.dirichlet(np.ones(len(CLASSES)) * 0.3, 600)
    assert colour_bias(noise, rng.integers(0, len(CLASSES), 600), list(CLASSES)) == {}


def test_the_shipped_classifier_carries_its_calibration_and_applies_it_to_every_reading() -> None:
    """models/card_classifier.int8.json holds what `tweak calibrate` wrote (yellow called too often
    on the harsh renders of seed 4's scenes); ``raw`` and ``run`` give the pair's readings with the
    prior applied and made to sum to 1 again."""
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    calibration = meta["calibration"]
    assert calibration["colours"] == {"yellow": -0.6} and calibration["seed"] == 4
    assert calibration["errors_after"] < calibration["errors_before"]
    assert meta[LABEL_BIAS] == {f"yellow-{v}": -0.6 for v in range(1, 7)}
    calibrated, plain = CardClassifier(), CardClassifier()
    plain.label_bias = None
    crops = _crops(60_000_000, 20)
    factors = np.array([np.exp(meta[LABEL_BIAS].get(label, 0.0)) for label in calibrated.labels])
    for turned in (False, True):
        expected = plain.raw(crops, turned)[0] * factors
        expected /= expected.sum(axis=1, keepdims=True)
        assert np.allclose(calibrated.raw(crops, turned)[0], expected, atol=1e-6)
    assert np.allclose(calibrated.run(crops[:32])[0], calibrated.raw(crops[:32])[0], atol=1e-6)
    moved = calibrated.raw(crops)[0].argmax(axis=1) != plain.raw(crops)[0].argmax(axis=1)
    assert moved.sum() < 0.02 * len(crops)  # a nudge on the unsure crops, not a new classifier


@pytest.mark.parametrize(
    ("bias", "message"),
    [({"yellow-7": -0.5}, "names labels the model lacks: yellow-7"), ({"yellow-1": "a lot"}, "must map labels")],
)
def test_a_bad_label_bias_in_a_meta_is_named(tmp_path, bias, message) -> None:
    model = tmp_path / DEFAULT_MODEL.name
    shutil.copy(DEFAULT_MODEL, model)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    model.with_suffix(".json").write_text(json.dumps({**meta, LABEL_BIAS: bias}))
    with pytest.raises(ClassifierError, match=f"{model.with_suffix('.json').name}.*{message}"):
        CardClassifier(model)


def test_calibrate_writes_the_prior_and_its_account_and_the_classifier_reads_it(tmp_path) -> None:
    model = tmp_path / DEFAULT_MODEL.name
    shutil.copy(DEFAULT_MODEL, model)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    meta.pop(LABEL_BIAS, None), meta.pop("calibration", None)
    model.with_suffix(".json").write_text(json.dumps(meta))
    crops, labels = _crops_and_classes(60_000_100, 6)
    # (crops given: the command renders fine-tuning seed 7's scenes itself)
    account = calibrate(model, seed=7, scenes=6, crops=(crops, labels, labels * 0), log=lambda _: None)
    written = json.loads(model.with_suffix(".json").read_text())
    assert written["calibration"] == account and account["crops"] == len(labels) and account["seed"] == 7
    assert account["first_scene"] == 5_700_000 and account["scenes"] == 6
    plain = CardClassifier(model).raw(crops)[0]  # (before: the copy has no second opinion, nor prior)
    assert account["errors_before"] == int((plain.argmax(axis=1) != labels).sum())
    assert account["errors_after"] <= account["errors_before"]
    assert written[LABEL_BIAS] == {
        f"{colour}-{v}": bias for colour, bias in account["colours"].items() for v in range(1, 7)
    }
    # what the classifier reads from the meta is what was written, and it is applied
    written[LABEL_BIAS] = {"yellow-2": 0.5}
    model.with_suffix(".json").write_text(json.dumps(written))
    reader = CardClassifier(model)
    assert reader.label_bias[CLASSES.index("yellow-2")] == pytest.approx(np.exp(0.5))
    assert np.count_nonzero(reader.label_bias != 1) == 1
    # calibrated again: fitted afresh from the plain readings, not on top of the prior just written
    again = calibrate(model, seed=7, scenes=6, crops=(crops, labels, labels * 0), log=lambda _: None)
    assert again["errors_before"] == account["errors_before"] and again["colours"] == account["colours"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--seed", "3"], "--seed 3: the networks were fine-tuned on that seed's scenes (seeds [0, 1, 2, 3])"),
        (["--scenes", "0"], "--scenes 0: give at least 1 scene"),
        (["--model", "nowhere.onnx"], "--model nowhere.onnx: no such model file"),
    ],
)
def test_tweak_calibrate_refuses_a_bad_request_before_rendering(monkeypatch, capsys, options, message) -> None:
    from companion.cli import build_parser
    from scanner import commands

    monkeypatch.setattr(
        "scanner.train.calibrate.calibrate", lambda *a, **k: pytest.fail("calibrated despite a bad request")
    )
    args = build_parser().parse_args(["calibrate", *options])
    assert commands._calibrate(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("frame", "label", "uncalibrated"), [(83, "orange-3", "yellow-3"), (1_000_399, "orange-1", "yellow-1")]
)
def test_orange_cards_the_networks_call_yellow_are_read_right_with_the_prior(frame, label, uncalibrated) -> None:
    """Scanner benchmark frames (seed 90,000,000 + frame) where the pair reads an orange card under
    warm light as yellow, and the calibrated reading gets it right."""
    from scanner.scan import load_scanner

    rendered = render_table(90_000_000 + frame, harsh=True)
    required, _ = expected_cards(rendered.truth)
    truth = [c for c in required if c["label"] == label]
    readings = {}
    for name in ("plain", "calibrated"):
        scanner = load_scanner()
        scanner.ink = None  # (the networks and their prior alone: the ink's colour reader is tested apart)
        scanner.any_deck = None  # (the priors are the first network's; none is fitted to the any-deck one)
        if name == "plain":
            scanner.classifier.label_bias = None
        result = scanner.scan(rendered.image)
        pairs = match([np.array(c["corners"]) for c in truth], [c.corners for c in result.cards])
        assert len(pairs) == len(truth) == 1
        readings[name] = result.cards[pairs[0][1]].label
    assert readings == {"plain": uncalibrated, "calibrated": label}


def test_the_model_card_tells_the_label_priors() -> None:
    from scanner.train.evaluate import label_priors

    assert label_priors({"version": 1}) == ""
    account = {"seed": 4, "first_scene": 5_400_000, "scenes": 2000, "harsh_scenes": 2000, "crops": 70_887}
    text = label_priors(
        {"calibration": {**account, "colours": {"yellow": -0.6}, "errors_before": 49, "errors_after": 42}}
    )
    assert "`tweak calibrate --seed 4 --scenes 2000 --harsh-share 1`" in text and "seed 5,400,000 (70887 crops" in text
    assert "yellow -0.6 (49 -> 42 crops read wrong)" in text
    assert "none kept (49 -> 49" in label_priors(
        {"calibration": {**account, "colours": {}, "errors_before": 49, "errors_after": 49}}
    )
