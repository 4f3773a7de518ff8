"""Training the ink colour reader (``scanner.read.ink``; ``tweak train-ink``), without PyTorch.

The data are the project's own rendered tables (random art styles, warm, cool and neutral light,
glare, blur): every face lying whole on them is cut as the scanner cuts it (its corners a little
off, half of them turned round), its ink's hues measured in the frame's neutral light
(``ink.frame_gains`` of the frame's cards), and a multinomial logistic regression fitted on them
by gradient descent (L2-penalised, a fixed number of steps: the same file from the same seed).
No art family kept for checking (``scanner/synth/families.py``) is drawn.

>>> x = np.array([[0.0], [0.1], [1.0], [1.1]]); y = np.array([0, 0, 1, 1])
>>> model = fit(x, y, 2, steps=300)
>>> model.posteriors(x).argmax(axis=1).tolist()
[0, 0, 1, 1]
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from scanner.labels import COLOURS, FACES
from scanner.read.ink import SETTINGS, InkColour, frame_gains, ink_features

FIRST_SEED = 63_000_000  # tables from here (no network was trained or calibrated on them)
OUTLINE_ERROR = 0.02  # the crops' corner error, share of the card's width (as the deck reader learns)
MAX_OCCLUDED = 0.25


def create_dataset(
    tables: int, first: int = FIRST_SEED, seed: int = 0, progress: Callable[[int, int], None] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Ink features of the faces on ``tables`` rendered tables from seed ``first``, and each one's
    colour (an index into ``COLOURS``)."""
    from scanner.geometry.crops import card_crop, rotate_corners
    from scanner.synth.table import render_table

    jitter = np.random.default_rng(seed)
    features, colours = [], []
    for i in range(tables):
        rendered = render_table(first + i)
        whole = [c for c in rendered.truth["cards"] if not c["truncated"]]
        # (balanced by all the table's cards however few: the shipped model's recipe)
        every = [card_crop(rendered.image, np.array(c["corners"], np.float32)) for c in whole]
        gains = frame_gains(every, replace(SETTINGS, balance_cards=1))
        crops, wanted = [], []
        for card in whole:
            if card["label"] not in FACES or card["occluded"] > MAX_OCCLUDED:
                continue
            corners = np.array(card["corners"], np.float32)
            side = float(np.linalg.norm(corners[1] - corners[0]))
            corners = corners + jitter.normal(0, OUTLINE_ERROR * side, (4, 2)).astype(np.float32)
            if jitter.random() < 0.5:
                corners = rotate_corners(corners, 2)
            crops.append(card_crop(rendered.image, corners))
            wanted.append(COLOURS.index(card["label"].split("-")[0]))
        if crops:
            features.append(ink_features(crops, gains))
            colours += wanted
        if progress is not None:
            progress(i + 1, tables)
    if not features:
        raise ValueError(f"no face lies whole on the {tables} tables from seed {first}: take more tables")
    return np.concatenate(features), np.asarray(colours)


def fit(features: np.ndarray, classes: np.ndarray, n_classes: int, l2: float = 1e-3, steps: int = 2000) -> InkColour:
    """Multinomial logistic regression on standardised features, by full-batch gradient descent."""
    x = np.asarray(features, np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    target = np.eye(n_classes)[classes]
    weights, bias = np.zeros((z.shape[1], n_classes)), np.zeros(n_classes)
    rate = 0.5
    for _ in range(steps):
        scores = z @ weights + bias
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        error = p - target
        weights -= rate * (z.T @ error / len(z) + l2 * weights)
        bias -= rate * error.mean(axis=0)
    return InkColour(list(COLOURS)[:n_classes], mean, scale, weights, bias)


def evaluate(model: InkColour, features: np.ndarray, classes: np.ndarray) -> float:
    """The share of crops whose colour the model reads right."""
    return float((model.posteriors(features).argmax(axis=1) == classes).mean())


def train(out: Path, tables: int = 400, seed: int = 0, progress: Callable[[int, int], None] | None = None) -> dict:
    """Fit on ``tables`` tables (every fifth face held out to measure it, then all of them) and
    write the model to ``out``; returns its recipe and figures (also in the file)."""
    features, colours = create_dataset(tables, seed=seed, progress=progress)
    held = np.arange(len(colours)) % 5 == 0
    check = fit(features[~held], colours[~held], len(COLOURS))
    model = fit(features, colours, len(COLOURS))
    recipe = {
        "tables": tables,
        "first_seed": FIRST_SEED,
        "seed": seed,
        "faces": int(len(colours)),
        "held_out_right": round(evaluate(check, features[held], colours[held]), 4),
    }
    Path(out).write_text(json.dumps(model.as_json(recipe)) + "\n", encoding="utf-8")
    return recipe
