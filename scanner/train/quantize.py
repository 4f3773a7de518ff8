"""8-bit models for run time (``tweak quantize``): the trained float networks, their weights and
activations stored as 8-bit integers (onnxruntime's static quantization, QDQ format).

On the development machine the card finder runs in 4.5 ms instead of 9.8 and the classifier reads 18
crops in 2.2 ms instead of 4.8, with the same recall and labels on the scanner benchmark (integer
dot products: VNNI on x86, the dot-product instructions of the Raspberry Pi 5's Cortex-A76). The
weights use 7 of the 8 bits, so the result is the same on x86 CPUs without VNNI (see ``quantize``).

Static quantization fixes each activation's range once, from calibration data: frames and crops
rendered from a seed, so the 8-bit model is reproducible from the float one. The float models stay
in ``models/``: training writes them and they are the source of every 8-bit version.

Needs the ``onnx`` package (the ``train`` extra), like training; running the 8-bit models needs
only onnxruntime.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from scanner.core import MODELS_DIR, ScannerError

FINDER_FLOAT = "card_finder.onnx"
CLASSIFIER_FLOAT = "card_classifier.onnx"
SUFFIX = ".int8.onnx"
# the shipped recipe (models/*.int8.json, checked by a test): the finder's activations are ranged by
# entropy (KL) calibration, the classifier's by their extremes (measured best on the scanner benchmark)
FINDER_FRAMES = 128
CLASSIFIER_SCENES = 80
FINDER_METHOD = "entropy"
CLASSIFIER_METHOD = "minmax"
CALIBRATION_SEED = 70_000_000  # apart from training (0...), evaluation and benchmark seeds
BATCH = 16


class QuantizeError(ScannerError):
    pass


def int8_path(float_path: Path) -> Path:
    """``models/card_finder.onnx`` -> ``models/card_finder.int8.onnx``."""
    return float_path.with_name(float_path.name.removesuffix(".onnx") + SUFFIX)


def finder_batches(float_model: Path, seed: int, frames: int) -> Iterator[dict[str, np.ndarray]]:
    """The finder's inputs for rendered frames, half of them harsh, as the finder prepares them."""
    from scanner.find.segment import CardFinder
    from scanner.synth.table import render_table

    finder = CardFinder(float_model, run_scale=1.0)  # (calibrated at the width trained at: reproducible)
    for i in range(frames):
        yield {"frames": finder.preprocess(render_table(seed + i, harsh=bool(i % 2)).image)}


def classifier_batches(float_model: Path, seed: int, scenes: int) -> Iterator[dict[str, np.ndarray]]:
    """The classifier's inputs for crops of rendered scenes (half harsh) as a detector cuts them,
    with not-a-card crops, in batches of ``BATCH``."""
    from scanner.read.classify import CardClassifier
    from scanner.train.dataset import scene_crops

    classifier = CardClassifier(float_model)
    crops = [c[0] for i in range(scenes) for c in scene_crops(seed + i, harsh=bool(i % 2), heldout_style=False)]
    for start in range(0, len(crops) - BATCH + 1, BATCH):
        yield {"crops": classifier.preprocess(crops[start : start + BATCH])}


def quantize(
    float_model: Path, batches: Callable[[], Iterator[dict[str, np.ndarray]]], method: str, recipe: dict
) -> Path:
    """Write ``float_model``'s 8-bit version next to it, with its metadata (the float model's,
    plus how it was quantized); returns its path."""
    try:
        from onnxruntime.quantization import (
            CalibrationDataReader,
            CalibrationMethod,
            QuantFormat,
            QuantType,
            quantize_static,
        )
        from onnxruntime.quantization.shape_inference import quant_pre_process
    except ModuleNotFoundError as err:
        raise QuantizeError(f"tweak quantize needs the onnx package ({err.name}): pip install -e '.[train]'") from None
    import onnxruntime

    float_model = Path(float_model)
    if not float_model.exists():
        raise QuantizeError(f"no float model at {float_model}: train it first")
    methods = {"entropy": CalibrationMethod.Entropy, "minmax": CalibrationMethod.MinMax}

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = batches()

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.items, None)

    out = int8_path(float_model)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # shapes and constant folding first, as onnxruntime advises (its symbolic shape inference
        # does not follow the finder's dynamic height and width; ONNX's own does)
        quant_pre_process(str(float_model), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            # 7-bit weights: x86 CPUs without VNNI (AVX2 only) multiply uint8 by int8 in pairs
            # summed in 16 bits, which saturates with full 8-bit weights (255 x 127 x 2 > 32767) and
            # quietly changes the output (seen: the finder marking 23 cards where the float one
            # marks 19); with 7 bits no sum can overflow, on every CPU
            reduce_range=True,
            calibrate_method=methods[method],
        )
    meta = json.loads(float_model.with_suffix(".json").read_text())
    meta["quantized"] = {
        "source": float_model.name,
        "source_sha256": hashlib.sha256(float_model.read_bytes()).hexdigest(),
        "format": "QDQ: int8 weights per channel (7-bit range), uint8 activations",
        "method": method,
        **recipe,
        "onnxruntime": onnxruntime.__version__,
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return out


def quantize_finder(
    models: Path = MODELS_DIR, seed: int = CALIBRATION_SEED, frames: int = FINDER_FRAMES, method: str = FINDER_METHOD
) -> Path:
    source = Path(models) / FINDER_FLOAT
    return quantize(
        source,
        lambda: finder_batches(source, seed, frames),
        method,
        {"calibration": {"seed": seed, "frames": frames}},
    )


def quantize_classifier(
    models: Path = MODELS_DIR,
    seed: int = CALIBRATION_SEED,
    scenes: int = CLASSIFIER_SCENES,
    method: str = CLASSIFIER_METHOD,
) -> Path:
    source = Path(models) / CLASSIFIER_FLOAT
    return quantize(
        source,
        lambda: classifier_batches(source, seed, scenes),
        method,
        {"calibration": {"seed": seed, "scenes": scenes}},
    )
