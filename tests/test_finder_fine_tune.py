"""`tweak fine-tune-finder`: the float finder read back from ONNX, a tiny fine-tuning run, the
recipe of the shipped finder, and bad requests refused before any work."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # (the train extra; CI installs it)

from scanner.find.segment import DEFAULT_MODEL, CardFinder  # noqa: E402
from scanner.train.finder import FINE_TUNE_SEED_BASE, fine_tune_finder, load_finder  # noqa: E402

FLOAT_FINDER = DEFAULT_MODEL.parent / "card_finder.onnx"


def test_the_float_finder_read_back_scores_as_the_onnx_file_does():
    """Its batch norms were folded into the convolutions on export: read back, each norm passes
    its input on plus the folded bias, so the network gives the file's outputs."""
    import onnxruntime as ort

    frames = np.random.default_rng(0).normal(size=(1, 3, 288, 512)).astype(np.float32)
    expected = ort.InferenceSession(str(FLOAT_FINDER), providers=["CPUExecutionProvider"]).run(None, {"frames": frames})
    with torch.no_grad():
        ours = load_finder(torch, FLOAT_FINDER)(torch.from_numpy(frames))
    for theirs, mine in zip(expected, ours):
        assert np.allclose(theirs, mine.numpy(), atol=1e-4)


def test_a_tiny_fine_tuning_run_changes_the_finder_a_little_and_the_scanner_reads_it(tmp_path):
    base_dir = tmp_path / "base"
    base_dir.mkdir()
    for name in ("card_finder.onnx", "card_finder.json"):
        shutil.copy(DEFAULT_MODEL.parent / name, base_dir / name)
    base_meta = json.loads((base_dir / "card_finder.json").read_text())
    meta = fine_tune_finder(
        tmp_path / "tuned", base_dir / "card_finder.onnx", seed=3, scenes=2, epochs=2, max_lr=0.01, log=print
    )
    tuned = meta["training"]["fine_tuned"][-1]
    assert tuned["first_scene"] == FINE_TUNE_SEED_BASE + 3 * 2 and (tuned["scenes"], tuned["epochs"]) == (2, 2)
    # the base's own recipe and rounds stay, the new round after them
    assert meta["training"]["fine_tuned"][:-1] == base_meta["training"].get("fine_tuned", [])
    assert meta["input_width"] == base_meta["input_width"]
    frames = torch.from_numpy(np.random.default_rng(1).normal(size=(1, 3, 288, 512)).astype(np.float32))
    with torch.no_grad():
        before = load_finder(torch, base_dir / "card_finder.onnx")(frames)[0]
        after = load_finder(torch, tmp_path / "tuned" / "card_finder.onnx")(frames)[0]
    assert not torch.allclose(before, after, atol=1e-5)
    finder = CardFinder(tmp_path / "tuned" / "card_finder.onnx")
    assert finder.meta["training"]["fine_tuned"][-1]["seed"] == 3


def test_tweak_fine_tune_finder_defaults_are_the_shipped_finders_last_round():
    from companion.cli import build_parser

    args = build_parser().parse_args(["fine-tune-finder"])
    meta = json.loads(FLOAT_FINDER.with_suffix(".json").read_text())
    rounds = meta["training"]["fine_tuned"]
    last = rounds[-1]
    assert (args.seed, args.scenes, args.epochs, args.lr, args.harsh_share) == (
        last["seed"],
        last["scenes"],
        last["epochs"],
        last["max_lr"],
        last["harsh_share"],
    )
    # each round on scenes of its own, none of them the training's or the benchmarks'
    firsts = [r["first_scene"] for r in rounds]
    assert firsts == [FINE_TUNE_SEED_BASE + r["seed"] * r["scenes"] for r in rounds] and len(set(firsts)) == len(rounds)
    assert all(f >= FINE_TUNE_SEED_BASE and f + r["scenes"] < 30_000_000 for f, r in zip(firsts, rounds))
    int8 = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert int8["training"] == meta["training"]  # the 8-bit file is this float model's


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--from", "nowhere"], "--from nowhere: no card_finder.onnx"),
        (["--scenes", "0"], "--scenes 0"),
        (["--harsh-share", "0"], "--harsh-share 0"),
        (["--lr", "0"], "--lr 0.0"),
        (["--epochs", "0"], "--epochs 0"),
        (["--clutter-share", "-1"], "--clutter-share -1"),
        (["--zoom-share", "-2"], "--zoom-share -2"),
    ],
)
def test_tweak_fine_tune_finder_refuses_a_bad_request_before_any_work(tmp_path, options, message):
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "fine-tune-finder", "--out", str(tmp_path / "out"), *options],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_tweak_fine_tune_finder_names_a_file_that_is_not_a_finder(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    shutil.copy(DEFAULT_MODEL.parent / "card_classifier.onnx", base / "card_finder.onnx")
    (base / "card_finder.json").write_text(json.dumps({"training": {}}))
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "fine-tune-finder", "--from", str(base), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "not a float card finder" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("recipe", "field"), [({"training": {}}, "'input_width'"), ([], "'any'"), ("{", "")])
def test_tweak_fine_tune_finder_names_a_recipe_file_without_its_fields(tmp_path, recipe, field):
    base = tmp_path / "base"
    base.mkdir()
    shutil.copy(FLOAT_FINDER, base / "card_finder.onnx")
    (base / "card_finder.json").write_text(recipe if isinstance(recipe, str) else json.dumps(recipe))
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "fine-tune-finder", "--from", str(base), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "card_finder.json" in result.stderr and field in result.stderr
    assert not (tmp_path / "o").exists()
