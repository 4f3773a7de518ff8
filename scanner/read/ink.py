"""A face's colour read from its ink, whatever the art (``models/ink_colour.json``).

The shipped networks learned the colours of the project's own art, where a red card is mostly a
red card. A deck printed otherwise (a black card with a red frame and numeral) is read by its
numeral and often the wrong colour, though the colour of its ink is plain to see. This reader
takes only that: which hues a card's ink carries (``adapt.ink_hues``), after the frame's light is
made neutral (``frame_gains``: the brightest share of the cards' own pixels taken as white, the
camera's white balance done again), and gives each of the six colours a probability from a
multinomial logistic regression fitted on the project's renders (``scanner.train.ink``). The scan
multiplies it into the network's reading of a crop the network reads as a face
(``reweigh_faces``): two readers that err differently, one by shapes and colours learned together,
one by the ink's hue alone.

>>> cards = np.zeros((6, 64, 48, 3), np.uint8); cards[..., :] = (150, 200, 250)  # warm light on white
>>> [round(float(g), 2) for g in frame_gains(list(cards))]
[1.33, 1.0, 0.8]
>>> [round(float(g), 2) for g in frame_gains(list(cards[:2]))]  # too few cards to tell
[1.0, 1.0, 1.0]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scanner.core import MODELS_DIR
from scanner.labels import COLOURS, FACES
from scanner.read.adapt import ink_hues, white_patch
from scanner.read.classify import ClassifierError

DEFAULT_MODEL = MODELS_DIR / "ink_colour.json"
FORMAT = "tweak-ink-colour"


@dataclass(frozen=True)
class InkSettings:
    """Every number of the ink reader at run time, one line each."""

    #: the frame's white: each channel's value at this percentile of the cards' pixels (the bright
    #: ground, numerals and borders; a card's few glare pixels lie above it)
    white_percentile: float = 97.0
    max_gain: float = 3.0  # a channel is lifted or lowered at most this much (a frame of one colour)
    #: fewer cards than this cannot tell the light from the print (one dark red card's brightest
    #: pixels are its red ink): their frame is left as the camera balanced it (RESULTS)
    balance_cards: int = 5
    #: a face whose colour the network reads this surely (its top colour's share of its faces) keeps
    #: the network's colour: on the project's own art the network is right there and the ink,
    #: under glare or coloured light, now and then not (chosen on own renders: RESULTS)
    network_sure: float = 0.5


SETTINGS = InkSettings()


class InkError(ClassifierError):
    """An ink colour model that cannot be used (the message says which file and why): a reader of
    cards, refused where the classifier's faults are."""


def frame_gains(crops: list[np.ndarray], settings: InkSettings = SETTINGS) -> np.ndarray:
    """Per-channel (BGR) gains that make the white of a frame's cards neutral: each channel's
    ``white_percentile`` over all the crops' pixels is brought to their mean; none (ones) for fewer
    than ``balance_cards`` crops."""
    if len(crops) < settings.balance_cards:
        return np.ones(3, np.float32)
    pixels = np.concatenate([np.asarray(c).reshape(-1, 3) for c in crops]).astype(np.float32)
    white = np.maximum(np.percentile(pixels, settings.white_percentile, axis=0), 1.0)
    gains = white.mean() / white
    return np.clip(gains, 1 / settings.max_gain, settings.max_gain).astype(np.float32)


def ink_features(crops: list[np.ndarray], gains: np.ndarray) -> np.ndarray:
    """``adapt.ink_hues`` of the crops in the frame's neutral light (``frame_gains``), brightened
    as the deck reader's features are (``adapt.white_patch``)."""
    balanced = [np.clip(np.asarray(c, np.float32) * gains, 0, 255).astype(np.uint8) for c in crops]
    return ink_hues(np.asarray([white_patch(c) for c in balanced]))


@dataclass(frozen=True)
class InkColour:
    """The fitted reader: features standardised, then a linear map to one score a colour."""

    colours: list[str]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # features x colours
    bias: np.ndarray

    def posteriors(self, features: np.ndarray) -> np.ndarray:
        """N x colours probabilities."""
        scores = ((np.asarray(features, np.float64) - self.mean) / self.scale) @ self.weights + self.bias
        scores -= scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)

    def as_json(self, recipe: dict) -> dict:
        return {
            "format": FORMAT,
            "colours": self.colours,
            "mean": self.mean.round(6).tolist(),
            "scale": self.scale.round(6).tolist(),
            "weights": self.weights.round(6).tolist(),
            "bias": self.bias.round(6).tolist(),
            "recipe": recipe,
        }


def load_ink_colour(path: str | Path = DEFAULT_MODEL) -> InkColour:
    """The model written by ``tweak train-ink``; a file that is not one is refused, named."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InkError(f"{path}: cannot read the ink colour model ({err.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InkError(f"{path}: not an ink colour model (not JSON: {err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InkError(f"{path}: not an ink colour model (no 'format': {FORMAT!r})")
    try:
        colours = [str(c) for c in data["colours"]]
        model = InkColour(
            colours,
            np.asarray(data["mean"], np.float64),
            np.asarray(data["scale"], np.float64),
            np.asarray(data["weights"], np.float64),
            np.asarray(data["bias"], np.float64),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise InkError(f"{path}: a required field is missing or malformed ({err})") from None
    features = len(model.mean)
    if sorted(colours) != sorted(COLOURS) or model.weights.shape != (features, len(colours)):
        raise InkError(
            f"{path}: expected the six colours {', '.join(COLOURS)} and weights of {features} x 6, "
            f"found {colours} and {model.weights.shape}"
        )
    if model.scale.shape != (features,) or model.bias.shape != (len(colours),) or (model.scale <= 0).any():
        raise InkError(f"{path}: 'scale' must hold {features} positive numbers and 'bias' {len(colours)}")
    return model


def network_sure_of_colour(
    probabilities: np.ndarray, labels: list[str], colours: list[str], settings: InkSettings = SETTINGS
) -> bool:
    """Whether the network's faces (``probabilities`` over ``labels``) give one colour at least
    ``network_sure`` of their probability: then its colour is kept (and the ink not read)."""
    column = {c: i for i, c in enumerate(colours)}
    faces = [(column[label.split("-")[0]], p) for label, p in zip(labels, probabilities) if label in FACES]
    share = np.bincount([c for c, _ in faces], [p for _, p in faces], len(colours))
    return bool(share.max() >= settings.network_sure * max(share.sum(), 1e-30))


def reweigh_faces(
    probabilities: np.ndarray,
    labels: list[str],
    colours: np.ndarray,
    ink: InkColour,
    settings: InkSettings = SETTINGS,
) -> np.ndarray:
    """``probabilities`` (over ``labels``) with the faces' share redrawn as the network's face
    probability times the ink's colour probability (``colours``: ``ink.posteriors``); the faces'
    total and every other label's probability stay as they were. Not where the network reads the
    faces' colour surely (``InkSettings.network_sure``).

    >>> ink = InkColour(list(COLOURS), np.zeros(1), np.ones(1), np.zeros((1, 6)), np.zeros(6))
    >>> p, labels = np.array([0.3, 0.2, 0.2, 0.3]), ["red-1", "green-1", "blue-1", "none"]
    >>> colours = np.array([0, 0, 0, 0, 0.5, 0.5])  # the ink says blue (or purple)
    >>> [round(float(x), 3) for x in reweigh_faces(p, labels, colours, ink)]
    [0.0, 0.0, 0.7, 0.3]
    >>> sure = np.array([0.5, 0.1, 0.1, 0.3])  # the network's faces are red at 5 in 7: kept
    >>> [round(float(x), 3) for x in reweigh_faces(sure, labels, colours, ink)]
    [0.5, 0.1, 0.1, 0.3]
    """
    out = np.array(probabilities, np.float64)
    if network_sure_of_colour(out, labels, ink.colours, settings):
        return out.astype(np.float32)
    face = np.array([label in FACES for label in labels])
    column = {c: i for i, c in enumerate(ink.colours)}
    own = colours[[column[label.split("-")[0]] for label, f in zip(labels, face) if f]]
    share = out[face] * own
    total = share.sum()
    if total > 0:
        out[face] = share / total * out[face].sum()
    return out.astype(np.float32)
