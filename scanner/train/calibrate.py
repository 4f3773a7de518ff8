"""Calibrating the classifier's label priors on fresh renders (``tweak calibrate``).

The networks are trained on ordinary and harsh scenes alike, with class-balanced losses; on the
hardest crops they still call some colours too often: an orange card under warm light and glare,
a washed-out one, reads as yellow more often than the other way round (the scanner benchmark's
wrong readings: orange as yellow 17 times, yellow as orange once). A log-prior added to one
colour's labels (``classify.LABEL_BIAS``) corrects that. It is fitted on crops rendered from
scenes no shipped network has seen (fine-tuning seed 4's by default), one colour at a time (each
on top of those kept before it), and kept only where it generalises: a colour's bias fitted on
one half of the crops must lower the errors on the other half, both ways round; the bias kept is
the one fitted on all the crops.

>>> import numpy as np
>>> classes = ["yellow-1", "green-1", "none"]
>>> probs = np.array([[0.55, 0.45, 0.0]] * 20 + [[0.1, 0.9, 0.0]] * 20 + [[0.9, 0.1, 0.0]] * 20)
>>> labels = np.array([1] * 40 + [0] * 20)  # the first 20 are green cards read as yellow
>>> colour_bias(probs, labels, classes)
{'yellow': -0.3}
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from scanner.labels import COLOURS

#: the log-priors tried for each colour
BIAS_GRID = np.round(np.arange(-1.0, 1.0001, 0.1), 1)
#: how the crops are split in two to check that a colour's bias generalises
SPLIT_SEED = 0


def colour_bias(probs: np.ndarray, labels: np.ndarray, classes: list[str]) -> dict[str, float]:
    """For each colour in turn, the log-prior (from ``BIAS_GRID``) that, added to its six labels' log
    probabilities (after the colours kept before it), leaves the fewest crops read wrong; a colour
    is kept only if its bias fitted on either half of the crops lowers the errors on the other half
    (ties: the smallest bias)."""
    log_probs = np.log(np.maximum(probs, 1e-7))
    order = np.random.default_rng(SPLIT_SEED).permutation(len(labels))
    halves = (order[: len(order) // 2], order[len(order) // 2 :])
    kept: dict[str, float] = {}
    for colour in COLOURS:
        members = [i for i, label in enumerate(classes) if label.startswith(f"{colour}-")]
        if not members:
            continue
        generalises = all(
            _errors(log_probs, labels, members, _fitted(log_probs, labels, members, fit_on), test_on)
            < _errors(log_probs, labels, members, 0.0, test_on)
            for fit_on, test_on in (halves, halves[::-1])
        )
        bias = _fitted(log_probs, labels, members, np.arange(len(labels)))
        if generalises and bias != 0.0:
            kept[colour] = bias
            log_probs[:, members] += bias
    return kept


def _errors(log_probs: np.ndarray, labels: np.ndarray, members: list[int], bias: float, rows: np.ndarray) -> int:
    """How many of the crops ``rows`` are read wrong with ``bias`` added to the labels ``members``."""
    shifted = log_probs[rows].copy()
    shifted[:, members] += bias
    return int((shifted.argmax(axis=1) != labels[rows]).sum())


def _fitted(log_probs: np.ndarray, labels: np.ndarray, members: list[int], rows: np.ndarray) -> float:
    """The bias from ``BIAS_GRID`` leaving the fewest of the crops ``rows`` wrong (ties: the smallest)."""
    counts = [_errors(log_probs, labels, members, float(b), rows) for b in BIAS_GRID]
    fewest = min(counts)
    return float(min((b for b, n in zip(BIAS_GRID, counts) if n == fewest), key=abs))


def networks_seeds(meta: dict[str, Any]) -> set[int]:
    """The fine-tuning seeds whose fresh scenes a classifier (its meta) has been trained on."""
    return {int(f["seed"]) for f in meta.get("training", {}).get("fine_tuned", [])}


def calibrate(
    model: Path,
    seed: int = 4,
    scenes: int = 2000,
    harsh_share: float = 1.0,
    processes: int = 2,
    crops: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    log=print,
) -> dict[str, Any]:
    """Fit the label priors of the classifier ``model`` (an ONNX file the scanner runs, with its
    second opinion) on the crops of fine-tuning seed ``seed``'s fresh scenes (``crops``: given
    instead of rendered) and write them (``LABEL_BIAS``) with an account (``calibration``) to the
    model's meta. Deterministic from the model files and the seed."""
    from scanner.read.classify import LABEL_BIAS, CardClassifier
    from scanner.train.classifier import FINE_TUNE_SEED_BASE, FINE_TUNE_STRIDE, training_crops

    started = time.perf_counter()
    classifier = CardClassifier(model)
    classifier.label_bias = None  # (fitted afresh, not on top of an earlier calibration)
    meta_path = Path(model).with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    first = FINE_TUNE_SEED_BASE + seed * FINE_TUNE_STRIDE
    if crops is None:
        recipe = meta.get("training", {})
        crops = training_crops(
            seed, scenes, harsh_share, recipe.get("coins", False), False, processes, log, first=first
        )
    images, labels = crops[0], crops[1]
    log(f"reading {len(labels)} crops with {model} ...")
    probs = np.concatenate(
        [classifier.raw(list(images[i : i + 256]))[0] for i in range(0, len(images), 256)]
        or [np.zeros((0, len(classifier.labels)), np.float32)]
    )
    bias = colour_bias(probs, labels, classifier.labels)
    per_label = {label: bias[c] for c in bias for label in classifier.labels if label.startswith(f"{c}-")}
    shifted = np.log(np.maximum(probs, 1e-7)) + [per_label.get(label, 0.0) for label in classifier.labels]
    before = int((probs.argmax(axis=1) != labels).sum())
    after = int((shifted.argmax(axis=1) != labels).sum())
    meta[LABEL_BIAS] = per_label
    meta["calibration"] = {
        "seed": seed,
        "first_scene": first,
        "scenes": scenes,
        "harsh_scenes": round(scenes * harsh_share),
        "crops": int(len(labels)),
        "colours": bias,
        "errors_before": before,
        "errors_after": after,
        "seconds": round(time.perf_counter() - started),
    }
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    log(f"label priors {bias or 'none kept'}: {before} -> {after} of {len(labels)} crops read wrong; wrote {meta_path}")
    return meta["calibration"]
