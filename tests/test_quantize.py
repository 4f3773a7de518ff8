"""The 8-bit run-time models (``tweak quantize``) and the finder's fast downscaling."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys

import cv2
import numpy as np
import pytest

from scanner.find.segment import CardFinder, downscale, input_size
from scanner.metrics import match
from scanner.synth.table import render_table
from scanner.train.quantize import MODELS_DIR, QuantizeError, int8_path, quantize_classifier, quantize_finder


def _float_models(tmp_path, *names: str):
    for name in names:
        shutil.copy(MODELS_DIR / name, tmp_path / name)
        shutil.copy((MODELS_DIR / name).with_suffix(".json"), (tmp_path / name).with_suffix(".json"))
    return tmp_path


def _weights_fit_7_bits(path) -> bool:
    """Every 8-bit weight within -64..63: uint8 x int8 pairs summed in 16 bits (x86 without VNNI)
    cannot overflow."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = [numpy_helper.to_array(t) for t in graph.initializer if t.data_type == onnx.TensorProto.INT8]
    return bool(weights) and all(int(np.abs(w.astype(int)).max(initial=0)) <= 64 for w in weights)


@pytest.mark.parametrize("size", [(1280, 720), (1281, 721), (1920, 1080), (640, 480)])
def test_downscale_is_an_area_average(size) -> None:
    frame = cv2.resize(render_table(5, n_centre=6).image, size, interpolation=cv2.INTER_LINEAR)
    target = input_size(*size)
    fast = downscale(frame, target)
    area = cv2.resize(frame, target, interpolation=cv2.INTER_AREA)
    assert fast.shape == area.shape
    # not bit-identical to OpenCV's fractional area resize, but within 2 grey levels on average
    assert np.abs(fast.astype(int) - area.astype(int)).mean() < 2.0


def test_the_8bit_finder_finds_the_cards_the_float_one_does(tmp_path) -> None:
    models = _float_models(tmp_path, "card_finder.onnx")
    out = quantize_finder(models, seed=123, frames=2)
    assert out == int8_path(models / "card_finder.onnx") == models / "card_finder.int8.onnx"
    meta = json.loads(out.with_suffix(".json").read_text())
    q = meta["quantized"]
    assert q["source"] == "card_finder.onnx"
    assert q["source_sha256"] == hashlib.sha256((models / "card_finder.onnx").read_bytes()).hexdigest()
    assert q["calibration"] == {"seed": 123, "frames": 2}
    assert meta["geometry"] == {"channels": 6}  # the float model's metadata travels with it
    assert out.stat().st_size < 0.5 * (models / "card_finder.onnx").stat().st_size
    assert _weights_fit_7_bits(out)
    frame = render_table(91_234_567, n_centre=10).image
    # (the cards it marks surely; a faint blob, a candidate kept only if read surely, may come and go
    # with a quantization calibrated on 2 frames)
    exact = [d.corners for d in CardFinder(models / "card_finder.onnx").find(frame) if not d.weak]
    small = [d.corners for d in CardFinder(out).find(frame) if not d.weak]
    assert len(exact) >= 10
    assert len(small) == len(exact)
    assert len(match(exact, small, 0.7)) == len(exact)  # each card found again, in about the same place


def test_the_8bit_classifier_reads_as_the_float_one_and_quantizing_is_reproducible(tmp_path) -> None:
    from scanner.read.classify import CardClassifier
    from scanner.train.dataset import build

    models = _float_models(tmp_path, "card_classifier.onnx")
    first = quantize_classifier(models, seed=5, scenes=2).read_bytes()
    out = quantize_classifier(models, seed=5, scenes=2)
    assert out.read_bytes() == first  # same seed, same model
    assert _weights_fit_7_bits(out)
    crops = build(range(92_000_000, 92_000_006), harsh=True)
    exact = [p.label for p in CardClassifier(models / "card_classifier.onnx").classify(crops.images)]
    small = CardClassifier(out)
    assert small.labels == CardClassifier(models / "card_classifier.onnx").labels
    same = np.mean([a == b.label for a, b in zip(exact, small.classify(crops.images))])
    assert len(exact) > 40 and same >= 0.95


def test_shipped_8bit_models_come_from_the_shipped_float_ones_by_tweak_quantizes_defaults() -> None:
    from companion.cli import build_parser
    from scanner.find.segment import DEFAULT_MODEL as FINDER
    from scanner.read.classify import DEFAULT_MODEL as CLASSIFIER

    args = build_parser().parse_args(["quantize"])
    for model, count in ((FINDER, {"frames": args.frames}), (CLASSIFIER, {"scenes": args.scenes})):
        assert model.name.endswith(".int8.onnx")
        q = json.loads(model.with_suffix(".json").read_text())["quantized"]
        source = model.parent / q["source"]
        assert q["source_sha256"] == hashlib.sha256(source.read_bytes()).hexdigest(), f"{model.name} is stale"
        assert q["calibration"] == {"seed": args.seed, **count}
        assert _weights_fit_7_bits(model), f"{model.name} has full 8-bit weights: they saturate without VNNI"


def test_tweak_quantize_says_what_is_missing(tmp_path, capsys, monkeypatch) -> None:
    from companion.cli import main

    assert main(["quantize", "finder", "--models", str(tmp_path)]) == 2
    assert "no float model at" in capsys.readouterr().err
    assert main(["quantize", "--frames", "0", "--models", str(tmp_path)]) == 2
    assert "--frames 0: calibration needs at least 1" in capsys.readouterr().err
    _float_models(tmp_path, "card_finder.onnx")
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)  # as if onnx were not installed
    with pytest.raises(QuantizeError, match=r"pip install -e '\.\[train\]'"):
        quantize_finder(tmp_path, frames=1)
