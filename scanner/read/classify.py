"""The card classifier at run time: onnxruntime only (no torch)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scanner.core import MODELS_DIR, ScannerError
from scanner.geometry.crops import stretch_contrast

DEFAULT_MODEL = MODELS_DIR / "card_classifier.int8.onnx"  # 8-bit (scanner.train.quantize) of card_classifier.onnx
#: Below this confidence a crop is reported as not recognised (low confidence), not as a card.
MIN_CONFIDENCE = 0.6
#: A crop read less surely than this is read a second time turned half a turn, and the two readings
#: are averaged: the network saw cards both ways up in training, and its mistakes on a hard crop
#: (glare, washed-out colour) seldom repeat on the turned view. Measured on 6 held-out sets
#: (``tweak evaluate`` and 3 more): 101 errors -> 91, with about 1-2 % of crops read twice.
HALF_TURN_BELOW = 0.7
#: The second network (``models/second_opinion/``: the same recipe trained from another seed) reads
#: the crops the first reads less surely than this, and the two readings are averaged: two networks
#: trained apart seldom make the same mistake on a hard crop. Label smoothing keeps a sure reading
#: under about 0.96, so this asks about 1 crop in 8 of the harsh benchmark's and almost none of a
#: neutral frame's. Measured on the scanner benchmark's 3,500 frames: 203 bad frames -> 191 (at
#: 0.95: 189, at 0.99, every crop read twice: 183, but 1.4-1.9 ms more a frame).
SECOND_OPINION_BELOW = 0.9
SECOND_OPINION_MODEL = MODELS_DIR / "second_opinion" / DEFAULT_MODEL.name
#: The network that reads a deck without a profile (``models/any_deck/``): trained on number cards
#: drawn anew in every scene (``tweak train --varied-share``) and on parts of cards as not-a-card,
#: so it reads other decks' faces better and finds fewer of them "not a card". Its features tell
#: one deck's cards apart less well, so a deck profile is learned on the first network's.
ANY_DECK_MODEL = MODELS_DIR / "any_deck" / DEFAULT_MODEL.name
#: The meta field (``{label: log-factor}``, written by ``tweak calibrate``: ``scanner/calibrate.py``)
#: whose factors the combined reading's probabilities are multiplied by, then made to sum to 1 again.
LABEL_BIAS = "label_bias"


class ClassifierError(ScannerError, ValueError):
    """A classifier that cannot be used as given (the message says which file and why)."""


@dataclass(frozen=True)
class Prediction:
    label: str  # a card label, or "none" (not a card)
    confidence: float
    upside_down: bool
    probabilities: np.ndarray

    @property
    def is_card(self) -> bool:
        return self.label != "none" and self.confidence >= MIN_CONFIDENCE


class SecondReadings:
    """The second network's readings (``SECOND_OPINION_MODEL``) of one batch of crops, by crop and
    way up, for the classifiers that read that batch and ask the same second network with the same
    input: the first network and the any-deck network both ask it about a deck profile's crops, and
    each crop is then read by it once, not once for each.

    >>> shared = SecondReadings()
    >>> shared.usable_by(("second.onnx", "input")), shared.usable_by(("other.onnx", "input"))
    (True, False)
    """

    def __init__(self) -> None:
        self.owner: tuple[str, str] | None = None  # (the second network, the classifiers' input)
        self.readings: dict[tuple[bool, int], tuple[np.ndarray, np.ndarray]] = {}  # (turned, crop): logits, orientation

    def usable_by(self, owner: tuple[str, str]) -> bool:
        if self.owner is None:
            self.owner = owner
        return self.owner == owner


class CardClassifier:
    """Names the card in each crop (CROP_H x CROP_W BGR uint8, see ``crops.card_crop``):
    ``CardClassifier().classify([crop])[0].label`` gives e.g. ``'red-5'``."""

    def __init__(
        self, model: str | Path = DEFAULT_MODEL, threads: int = 1, second_opinion: str | Path | None | bool = True
    ) -> None:
        """``second_opinion``: another classifier (ONNX) that reads the unsure crops too; True (the
        default) takes the shipped one with a shipped model (``DEFAULT_MODEL``, ``ANY_DECK_MODEL``),
        none with any other; None: none."""
        model = Path(model)
        if not model.exists():
            raise FileNotFoundError(f"no classifier at {model}: run `tweak train` (needs the train extra)")
        meta_path = model.with_suffix(".json")
        self.meta = json.loads(meta_path.read_text())
        self.labels: list[str] = self.meta["labels"]
        self.version: int = self.meta["version"]
        inp = self.meta["input"]
        self.size = (inp["width"], inp["height"])
        self.margin = float(inp.get("margin", 1.0))  # how much of the table around the card a crop takes
        stretch = inp.get("stretch")  # percentiles of crops.stretch_contrast, for a model trained so
        self.stretch: tuple[float, float] | None = (float(stretch[0]), float(stretch[1])) if stretch else None
        self._mean = np.array(inp["mean"], np.float32).reshape(1, 3, 1, 1)
        self._std = np.array(inp["std"], np.float32).reshape(1, 3, 1, 1)
        self._scale = float(inp["scale"])
        std = self._std.ravel()
        # (x * scale - mean) / std as OpenCV's blob maker computes it: (x - mean / scale) * factor,
        # one factor for all channels (a model with per-channel spreads takes NumPy's way)
        self._blob = (
            (self._scale / float(std[0]), tuple(float(m) / self._scale for m in self._mean.ravel()))
            if (std == std[0]).all()
            else None
        )
        self.label_bias = _label_bias(self.meta.get(LABEL_BIAS), self.labels, meta_path)
        self.session = _session(model, threads)
        self.outputs = {o.name for o in self.session.get_outputs()}
        self.path = model
        if second_opinion is True:
            same = model.resolve() in (DEFAULT_MODEL.resolve(), ANY_DECK_MODEL.resolve())
            second_opinion = SECOND_OPINION_MODEL if same and SECOND_OPINION_MODEL.exists() else None
        self.second_opinion: Path | None = None if second_opinion in (None, False) else Path(second_opinion)
        self._second = None
        if self.second_opinion is not None:
            other = CardClassifier(self.second_opinion, threads, second_opinion=None)
            if other.labels != self.labels or other.meta["input"] != self.meta["input"]:
                raise ClassifierError(
                    f"second opinion {self.second_opinion}: its labels or input differ from {model}'s "
                    "(it must be the same recipe trained from another seed)"
                )
            self._second = other.session
        # (what a batch's shared second readings must have been read with: ``SecondReadings``)
        self._second_key = (str(self.second_opinion), json.dumps(self.meta["input"], sort_keys=True))

    def preprocess(self, crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
        """The network's input (N x 3 x H x W, normalised) for crops (H x W x 3 uint8, BGR)."""
        if isinstance(crops, np.ndarray) and crops.ndim == 3:
            crops = [crops]
        if self.stretch is not None:
            crops = stretch_contrast(np.asarray(crops), self.stretch)
        if self._blob is not None:
            # OpenCV's blob maker: one C++ pass, 2-3x faster than NumPy's steps (same values)
            factor, mean = self._blob
            return cv2.dnn.blobFromImages(list(crops), factor, self.size, mean, False, False)
        x = np.asarray(crops, np.float32).transpose(0, 3, 1, 2) * self._scale
        return ((x - self._mean) / self._std).astype(np.float32)

    def raw(self, crops: list[np.ndarray] | np.ndarray, turned: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities and upside-down probabilities for a batch of crops. An unsure crop
        is also read turned half a turn (``HALF_TURN_BELOW``) unless ``turned`` is False (a search
        through many guessed quads, most of them unsure, only needs to find the sure one)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32), np.zeros(0, np.float32)
        x = self.preprocess(crops)
        probs, flipped = self._once(x)
        if turned:
            self._read_unsure_turned(x, probs, flipped)
        self._correct_priors(probs)
        return probs, flipped

    def _correct_priors(self, probs: np.ndarray) -> None:
        """Applies, in place, the calibrated label bias (``LABEL_BIAS``) to combined readings: the
        networks call some colours too often on hard crops (yellow: orange and washed-out cards under
        warm light and glare read as yellow), and a prior fitted on fresh renders corrects that."""
        if self.label_bias is not None:
            probs *= self.label_bias
            probs /= probs.sum(axis=1, keepdims=True)

    def _read_unsure_turned(
        self, x: np.ndarray, probs: np.ndarray, flipped: np.ndarray, shared: SecondReadings | None = None
    ) -> None:
        """Averages in, in place, the reading of each unsure crop turned half a turn."""
        unsure = probs.max(axis=1) < HALF_TURN_BELOW
        if unsure.any():
            turned_x = np.ascontiguousarray(x[unsure][:, :, ::-1, ::-1])
            turned_probs, turned_flipped = self._once(turned_x, shared, np.flatnonzero(unsure), turned=True)
            probs[unsure] = (probs[unsure] + turned_probs) / 2
            # the turned view is upside down exactly when the crop is upright
            flipped[unsure] = (flipped[unsure] + 1 - turned_flipped) / 2

    def _once(
        self, x: np.ndarray, shared: SecondReadings | None = None, crops: np.ndarray | None = None, turned: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        logits, orient = self.session.run(["logits", "orientation"], {"crops": x})
        probs, flipped = _softmax(logits), _softmax(orient)[:, 1]
        self._ask_second_opinion(x, probs, flipped, shared, crops, turned)
        return probs, flipped

    def _ask_second_opinion(
        self,
        x: np.ndarray,
        probs: np.ndarray,
        flipped: np.ndarray,
        shared: SecondReadings | None = None,
        crops: np.ndarray | None = None,
        turned: bool = False,
    ) -> None:
        """Averages in, in place, the second network's reading of each crop read unsurely.
        ``shared``: its readings of the batch so far (``crops``: which crop of the batch each row
        of ``x`` is, ``turned`` half round or not), used and added to."""
        if self._second is None:
            return
        unsure = np.flatnonzero(probs.max(axis=1) < SECOND_OPINION_BELOW)
        if not len(unsure):
            return
        if shared is None or not shared.usable_by(self._second_key):
            logits, orient = self._second.run(["logits", "orientation"], {"crops": np.ascontiguousarray(x[unsure])})
        else:
            keys = [(turned, int(i)) for i in (unsure if crops is None else np.asarray(crops)[unsure])]
            new = [k for k, key in enumerate(keys) if key not in shared.readings]
            if new:
                rows = unsure[new]
                read = self._second.run(["logits", "orientation"], {"crops": np.ascontiguousarray(x[rows])})
                for k, row_logits, row_orient in zip(new, *read):
                    shared.readings[keys[k]] = (row_logits, row_orient)
            logits = np.stack([shared.readings[key][0] for key in keys])
            orient = np.stack([shared.readings[key][1] for key in keys])
        probs[unsure] = (probs[unsure] + _softmax(logits)) / 2
        flipped[unsure] = (flipped[unsure] + _softmax(orient)[:, 1]) / 2

    def run(
        self, crops: list[np.ndarray] | np.ndarray, shared: SecondReadings | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Class probabilities and upside-down probabilities (as ``raw``) and L2-normalised embeddings
        (of the crops as they are). ``shared``: the second network's readings of these crops, kept
        for (and from) another classifier's ``run`` of them."""
        if len(crops) == 0:
            n = len(self.labels)
            return np.zeros((0, n), np.float32), np.zeros(0, np.float32), np.zeros((0, 1), np.float32)
        if "embedding" not in self.outputs:
            raise ValueError("this classifier has no embedding output: deck profiles need model version 4 or later")
        names = ["logits", "orientation", "embedding"]
        x = self.preprocess(crops)
        logits, orient, emb = self.session.run(names, {"crops": x})
        emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-9)
        probs, flipped = _softmax(logits), _softmax(orient)[:, 1]
        self._ask_second_opinion(x, probs, flipped, shared)  # the same probabilities as ``classify`` gives
        self._read_unsure_turned(x, probs, flipped, shared)
        self._correct_priors(probs)
        return probs, flipped, emb

    def classify(self, crops: list[np.ndarray] | np.ndarray, turned: bool = True) -> list[Prediction]:
        probs, flipped = self.raw(crops, turned)
        best = probs.argmax(axis=1)
        return [Prediction(self.labels[b], float(p[b]), bool(f > 0.5), p) for b, p, f in zip(best, probs, flipped)]


def _label_bias(bias: object, labels: list[str], meta_path: Path) -> np.ndarray | None:
    """The factors (one a label, exp of the log-factors in ``bias``) of a meta's ``LABEL_BIAS``."""
    if bias is None:
        return None
    if not isinstance(bias, dict) or not all(isinstance(v, int | float) for v in bias.values()):
        raise ClassifierError(f"{meta_path}: {LABEL_BIAS!r} must map labels to numbers (log-factors)")
    unknown = sorted(set(bias) - set(labels))
    if unknown:
        raise ClassifierError(f"{meta_path}: {LABEL_BIAS!r} names labels the model lacks: {', '.join(unknown)}")
    return np.exp(np.array([float(bias.get(label, 0.0)) for label in labels], np.float32))


def _session(model: Path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
