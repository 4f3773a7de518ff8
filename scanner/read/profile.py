"""Deck profiles (``tweak enrol``): recognition learned from the user's own deck, without PyTorch.

One photo of each card of the user's deck (fewer for a partly enrolled deck), taken anywhere on the
table, is enough: the card is cut out as the dominant card-shaped outline of the photo, and the
deck's look is *learned* (``scanner.read.adapt``): many crops of each card as the camera would see it on
a table train a linear discriminant over art-independent features, with card parts and table as
"not a card". A face is also read by its two parts, its colour and its value, each learned from
every enrolled face that shares it (``adapt.FaceFactors``), so one poor photo does not decide its
card alone. A face without a photo whose colour and value the deck shows gets a class of its own,
placed where its colour and its value put it (``adapt.composed_faces``). At scan time the profile
reads each crop; labels without photos are also left to the shipped model, as far as it reads this
deck right; the any-deck network has a second word on which back or which face a card is
(``network_among``). The card's aspect ratio is measured from the photos too.

Profile file (JSON, ``"tweak_profile": 2``)::

    {"tweak_profile": 2,
     "model": {"version": 4, "sha256": "<of models/card_classifier.int8.onnx>"},
     "features": 3,
     "deck": "my deck", "created": "2026-12-01T10:00:00Z", "aspect": 1.397,
     "photos": {"red-5": 1, ...}, "missing": ["tweak-bomb", ...], "problems": [...],
     "reader": {"classes": ["red-5", "red-5/turned", ..., "none", "red-1", ...], "dims": [D, K],
                "mean": "<base64 float32>", "projection": "...", "centroids": "...", "reach": 12.3,
                "temperature": 16.0},
     "faces": {"colours": ["red", ...], "values": [1, ...], "colour": {<as reader, no classes>},
               "value": {...}, "ink": {...}},
     "network_among": {"backs": 0.97, "faces": 0.99},
     "network_among_model": "<sha256 of models/any_deck/card_classifier.int8.onnx>"}

``faces`` is absent from profiles made before it (they read as before) and where too few faces
were enrolled to learn a colour or a value from several of them; ``ink`` (the colour read from the
crop's own colours alone) likewise. The reader's classes after "none" are the composed faces
(labels without photos, absent from ``photos``).

A profile made with another model (another version or other weights) is refused: the network's
embedding is one of the reader's features.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scanner.core import ScannerError
from scanner.find.detect import aspect_ratio, contained_share, grow_quad
from scanner.labels import BACKS, COLOURS, FACES, KINDS, LABELS, label_kind
from scanner.read.adapt import (
    FEATURES_VERSION,
    INK_COLUMNS,
    SETTINGS,
    SHAPE_COLUMNS,
    TURNED,
    FaceFactors,
    LinearDiscriminant,
    composed_faces,
    crop_features,
    fit_face_factors,
    fit_reader,
)

PROFILE_VERSION = 2
BURNT = (
    "part of the card is burnt white (glare, or too much light): it is learned from, but a photo "
    "out of direct light teaches the deck better"
)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
NONE = "none"
#: labels of one kind that differ in what the any-deck network was trained to read on every art
#: (a back's number, RULES R1.2; a face's colour and value, R1.1): within such a group that network
#: is a second word on which one a card is (``DeckProfile.network_among``)
SHARED_DESIGNS: dict[str, tuple[str, ...]] = {"backs": BACKS, "faces": FACES}


class ProfileError(ScannerError):
    pass


def model_fingerprint(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@lru_cache(maxsize=8)
def _fingerprint(path: Path) -> str:
    """``model_fingerprint`` once a file (read for every frame otherwise)."""
    return model_fingerprint(path)


@dataclass(frozen=True)
class NetworkWord:
    """``DeckProfile.network_word``: the network (its SHA-256) whose word the labels of a kind of
    card without photos take, and by label without photos the largest share of one enrolled
    label's training crops it read as that label (as ``DeckProfile.network_mistaken``)."""

    model: str
    mistaken: dict[str, float]


@dataclass
class DeckProfile:
    model_version: int
    model_sha256: str
    reader: LinearDiscriminant
    classes: list[str]  # the reader's classes: "<label>", "<label>/turned", "none"
    photos: dict[str, int]  # label -> enrolment photos used
    aspect: float | None = None  # the deck's long / short side, measured on the photos
    network_reliability: float = 1.0  # share of the deck's training crops the shipped model reads right
    deck: str = ""
    created: str = ""
    problems: list[str] = field(default_factory=list)  # photos refused at enrolment, by name
    faces: FaceFactors | None = None  # the faces' colour and value readers (None: whole labels only)
    #: label without photos -> the largest share of one enrolled label's training crops the shipped
    #: model reads as it: the model cannot tell that label from the deck's, so its word for it counts less
    network_mistaken: dict[str, float] = field(default_factory=dict)
    #: ``network_reliability`` of the faces' training crops alone: the model may know this deck's
    #: faces far better than its backs and T! cards (None: profiles made before it)
    network_reliability_faces: float | None = None
    network_reliability_others: float | None = None
    #: group of ``SHARED_DESIGNS`` -> the share of the deck's training crops of that group that the
    #: second network (``network_among_model``) reads as the right one of the group's enrolled
    #: labels (absent: fewer than two enrolled, or profiles made before it)
    network_among: dict[str, float] = field(default_factory=dict)
    #: SHA-256 of the network whose word ``network_among`` measured ("": the shipped model itself)
    network_among_model: str = ""
    #: the network whose word the labels of a kind of card without any photo take (``untaught``:
    #: the any-deck network, which reads cards of any art). None: a profile made without it
    network_word: NetworkWord | None = None
    #: the crop features the reader was learned on (``adapt.FEATURES_VERSION``; 1: profiles made before it)
    features: int = FEATURES_VERSION

    def reliability_of(self, label: str) -> float:
        """How far the shipped model's word for ``label`` (a label without photos) counts."""
        by_kind = self.network_reliability_faces if label in FACES else self.network_reliability_others
        return self.network_reliability if by_kind is None else by_kind

    @property
    def doubt_below(self) -> float:
        """The confidence under which this deck's readings are doubted (``AdaptSettings``)."""
        return SETTINGS.sure_confidence

    @property
    def enrolled(self) -> list[str]:
        return [label for label in LABELS if label in self.photos]

    @property
    def missing(self) -> list[str]:
        return [label for label in LABELS if label not in self.photos]

    @property
    def untaught(self) -> list[str]:
        """The kinds of card (``label_kind``) of which no label was enrolled."""
        taught = {label_kind(label) for label in self.photos}
        return [kind for kind in KINDS if kind not in taught]

    def check_model(self, classifier: Any) -> None:
        """Refuse to read with ``classifier`` where the profile was learned on another network's
        embedding or on other crop features (a software update): its cards are learned again."""
        if self.features != FEATURES_VERSION:
            raise ProfileError(
                f"this deck profile was learned on the reader's features of version {self.features}, "
                f"the scanner reads version {FEATURES_VERSION}: enrol the deck again (tweak enrol)"
            )
        sha = model_fingerprint(classifier.path)
        if self.model_version != classifier.version or self.model_sha256 != sha:
            raise ProfileError(
                f"this deck profile was made with classifier version {self.model_version} "
                f"({self.model_sha256[:12]}), the scanner has version {classifier.version} ({sha[:12]}): "
                "enrol the deck again (tweak enrol)"
            )

    def probabilities(
        self, classifier: Any, crops: list[np.ndarray], second: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities over ``classifier.labels`` and upside-down probabilities: the deck's reader
        for its enrolled labels and "not a card"; a crop unlike anything of the deck (farther than
        ``outlier_factor`` x the training crops' own reach: a label without photos, or something
        new) is read with the shipped model's opinion mixed in, the more the farther. ``second``:
        the network whose second word ``network_among`` measured (the any-deck network; unheard
        when absent or another)."""
        from scanner.read.classify import SecondReadings

        shared = SecondReadings()  # (both networks ask the second one about the same crops)
        probs, flipped, emb = classifier.run(crops, shared)
        if len(crops) == 0:
            return probs, flipped
        labels = classifier.labels
        column = {label: i for i, label in enumerate(labels)}
        features = crop_features(crops, emb, np.log(np.maximum(probs, 1e-12)))
        dist = self.reader.distances(features)
        q = self.reader.posteriors_of(dist)
        if self.faces is not None:
            q = self._read_faces(q, features)
        word = self._second_words(classifier, probs, crops, second, shared)
        if word is not None:
            for group, reliability in self.network_among.items():
                q = self._second_word(q, word, column, SHARED_DESIGNS[group], reliability)
        own = np.zeros_like(probs)
        up = np.zeros_like(probs)
        for k, name in enumerate(self.classes):
            label = name.removesuffix(TURNED)
            own[:, column[label]] += q[:, k]
            if not name.endswith(TURNED):
                up[:, column[label]] += q[:, k]
        # labels without photos: the model's probability of them counts as far as the model reads
        # this deck's enrolled cards right (``network_reliability``, measured at enrolment), and as
        # far as it does not take an enrolled card for that label (``network_mistaken``)
        enrolled = np.array([label in self.photos or label == NONE for label in labels])
        believed = np.array(
            [max(1.0 - self.network_mistaken.get(label, 0.0), SETTINGS.mistaken_floor) for label in labels], np.float32
        )
        reliability = np.array([self.reliability_of(label) for label in labels], np.float32)
        word_of = probs
        untaught_word = self._untaught_word(classifier, crops, second, word, shared)
        if untaught_word is not None:
            # a kind of card with no photo at all (only the T! cards enrolled: the faces and the
            # backs) is the any-deck network's to read, which reads them on any art; its word
            # counts as far as it does not take one of the deck's cards for that label
            kinds = set(self.untaught)  # (worked out once: a property over the photos)
            untaught = np.array([label != NONE and label_kind(label) in kinds for label in labels])
            word_mistaken = self.network_word.mistaken
            believed = np.where(
                untaught,
                [max(1.0 - word_mistaken.get(label, 0.0), SETTINGS.mistaken_floor) for label in labels],
                believed,
            ).astype(np.float32)
            reliability = np.where(untaught, SETTINGS.untaught_kind_reliability, reliability).astype(np.float32)
            word_of = np.where(untaught, untaught_word, probs)
        others = reliability * np.where(enrolled, 0.0, word_of * believed)
        mixed = own * (1 - others.sum(axis=1, keepdims=True)) + others
        # a crop near one of the deck's learned classes is the reader's; one unlike all of them
        # (something never seen) is left more and more to the model
        limit = SETTINGS.outlier_factor * self.reader.reach
        trust = np.clip(limit / np.maximum(dist.min(axis=1), 1e-9), 0, 1)[:, None]
        out = trust * mixed + (1 - trust) * (probs if untaught_word is None else untaught_word)
        out /= out.sum(axis=1, keepdims=True)
        if word is not None and self.network_among_model:  # (a second network, not the classifier's own word)
            out = self._named_by_the_network(out, word, labels)
        best = out.argmax(axis=1)
        rows = np.arange(len(crops))
        # the deck's own look says which way up, where it knows the label
        said = np.where(own[rows, best] > 0, 1 - up[rows, best] / np.maximum(own[rows, best], 1e-12), flipped)
        return out.astype(np.float32), said.astype(np.float32)

    @cached_property
    def _upright_and_turned(self) -> tuple[list[int], list[int]]:
        """The reader's class of each label printed way up, and of the same label turned round."""
        up = [k for k, name in enumerate(self.classes) if name != NONE and not name.endswith(TURNED)]
        return up, [self.classes.index(self.classes[k] + TURNED) for k in up]

    def _read_faces(self, q: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The reader's posteriors with the faces' share redrawn by their colour and value
        (``FaceFactors.combine``); which way up stays the reader's."""
        up, turned = self._upright_and_turned
        whole = q[:, up] + q[:, turned]
        share_up = q[:, up] / np.maximum(whole, 1e-30)
        redrawn = self.faces.combine(
            [self.classes[k] for k in up], whole, features, SETTINGS.face_joint_power, SETTINGS.face_factor_power
        )
        out = q.copy()
        out[:, up] = redrawn * share_up
        out[:, turned] = redrawn * (1 - share_up)
        return out

    def _second_words(
        self, classifier: Any, probs: np.ndarray, crops: list[np.ndarray], second: Any, shared: Any = None
    ) -> np.ndarray | None:
        """The probabilities of the network ``network_among`` was measured with, or None where it
        is not here (a profile made with another any-deck network: its shares are not this one's)."""
        if not self.network_among:
            return None
        if not self.network_among_model:
            return probs
        if second is None or _fingerprint(second.path) != self.network_among_model:
            return None
        if list(second.labels) != list(classifier.labels):
            return None
        return second.run(crops, shared)[0]

    def _untaught_word(
        self, classifier: Any, crops: list[np.ndarray], second: Any, word: np.ndarray | None, shared: Any = None
    ) -> np.ndarray | None:
        """The any-deck network's probabilities (``network_word``'s network; ``word``, the second
        word's, where that is it) where the deck has a kind of card with no photo at all
        (``untaught``), else None: a profile made before it, or that network not here."""
        w = self.network_word
        if w is None or not w.model or not self.untaught:
            return None
        if word is not None and self.network_among_model == w.model:
            return word
        if second is None or list(second.labels) != list(classifier.labels) or _fingerprint(second.path) != w.model:
            return None
        return second.run(crops, shared)[0]

    def _second_word(
        self, q: np.ndarray, probs: np.ndarray, column: dict[str, int], group: tuple[str, ...], reliability: float
    ) -> np.ndarray:
        """The reader's posteriors with ``group``'s share (a kind: the backs, the faces) read again
        where the second network (``probs``, its ``column`` of each label) names another of the
        group than the reader does: then the two words are mixed, the network's by how often it
        read the deck's own training crops of the group right (``reliability``). From one photo a
        card, the reader learns that photo's glare or cut as the card; the network was trained to
        read numbers, colours and values on any art. Where they agree the reader's confidence
        stands, so the network can change a reading or make it doubted (a mix is never sure),
        never make it surer.

        >>> p = DeckProfile(1, "", None, ["back-7", "back-7/turned", "back-8", "back-8/turned", "none"], {})
        >>> q = np.array([[0.0, 0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]])
        >>> probs = np.array([[0.9, 0.1], [0.8, 0.2]])
        >>> p._second_word(q, probs, {"back-7": 0, "back-8": 1}, ("back-7", "back-8"), 0.8).round(2).tolist()
        [[0.72, 0.0, 0.28, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]]
        """
        up = [k for k, name in enumerate(self.classes) if name in group]
        if len(up) < 2:
            return q
        turned = [self.classes.index(self.classes[k] + TURNED) for k in up]
        whole = q[:, up] + q[:, turned]
        share = whole.sum(axis=1, keepdims=True)
        within = whole / np.maximum(share, 1e-30)
        net = probs[:, [column[self.classes[k]] for k in up]]
        net = net / np.maximum(net.sum(axis=1, keepdims=True), 1e-30)
        agree = (net.argmax(axis=1) == within.argmax(axis=1))[:, None]
        mixed = np.where(agree, within, reliability * net + (1 - reliability) * within) * share
        # which way up: the reader's for each label, or the way it reads the group where it gave
        # that label nothing
        row_up = q[:, up].sum(axis=1, keepdims=True) / np.maximum(share, 1e-30)
        share_up = np.where(whole > 1e-12, q[:, up] / np.maximum(whole, 1e-30), row_up)
        out = q.copy()
        out[:, up] = mixed * share_up
        out[:, turned] = mixed * (1 - share_up)
        return out

    def _named_by_the_network(self, out: np.ndarray, word: np.ndarray, labels: list[str]) -> np.ndarray:
        """``out`` (probabilities over ``labels``) where the deck's reading is no card but the
        second network (``word``) names one of the deck's enrolled cards of a kind it has a word on
        (``network_among``) at least ``AdaptSettings.none_word_sure``: the two mixed, the network's
        at ``none_word_weight``. The reader learned "no card" from parts of cards and the table, and
        a card from its one photo: a photo that taught a card wrongly (in a glare halo) makes it
        take the real card for no card, which the network, trained to read numbers, colours and
        values on any art, still names. The mix reads it as that card, doubted (the referee asks).

        >>> p = DeckProfile(1, "", None, [], {"back-8": 1}, network_among={"backs": 0.9})
        >>> labels = ["back-7", "back-8", "none"]
        >>> out = np.array([[0.0, 0.2, 0.8], [0.0, 0.2, 0.8], [0.0, 0.2, 0.8]])
        >>> word = np.array([[0.0, 0.95, 0.05], [0.95, 0.0, 0.05], [0.0, 0.6, 0.4]])
        >>> p._named_by_the_network(out, word, labels).round(3).tolist()
        [[0.0, 0.65, 0.35], [0.0, 0.2, 0.8], [0.0, 0.2, 0.8]]
        """
        named = np.array(
            [label in self.photos and any(label in SHARED_DESIGNS[g] for g in self.network_among) for label in labels]
        )
        said = word.argmax(axis=1)
        rows = (
            (out.argmax(axis=1) == labels.index(NONE))
            & named[said]
            & (word[np.arange(len(out)), said] >= SETTINGS.none_word_sure)
        )
        if not rows.any():
            return out
        weight = SETTINGS.none_word_weight
        out = out.copy()
        out[rows] = (1 - weight) * out[rows] + weight * word[rows]
        return out

    def share_of_design(self, label: str, probabilities: np.ndarray, labels: list[str]) -> float:
        """How sure a reading of ``label`` (``probabilities`` over ``labels``) is of the group of
        cards of its kind that has a second word (``network_among``): the sum over the group; the
        label's own probability for a label of no such group. The second word splits a card's
        reading among its group where two words differ: doubt of which face, not of a card. So does
        the network's word on a kind the deck has no photo of (``untaught``; to it a T! card of an
        art it never saw looks like a face): the labels of that kind count with the reading.

        >>> p = DeckProfile(1, "", None, [], {}, network_among={"backs": 0.9})
        >>> labels = ["back-7", "back-8", "red-1"]
        >>> p.share_of_design("back-8", np.array([0.45, 0.5, 0.05]), labels)
        0.95
        >>> p.share_of_design("red-1", np.array([0.45, 0.5, 0.05]), labels)
        0.05
        """
        own = float(probabilities[labels.index(label)])
        for group in self.network_among:
            members = SHARED_DESIGNS[group]
            if label in members:
                own = float(sum(probabilities[labels.index(m)] for m in members if m in labels))
        return own + self.untaught_share(label, probabilities, labels)

    def untaught_share(self, label: str, probabilities: np.ndarray, labels: list[str]) -> float:
        """The probability (``probabilities`` over ``labels``) of the labels of the kinds of card the
        deck has no photo of (``untaught``), for a reading of ``label``, a label of a kind it has
        (else 0): the any-deck network's word on those (``network_word``), and to it a T! card of an
        art it never saw looks like a face. The reading is unsure which card, not whether one.

        >>> p = DeckProfile(1, "", None, [], {"tweak-bomb": 1}, network_word=NetworkWord("abc", {}))
        >>> labels = ["red-1", "back-7", "tweak-bomb", "none"]
        >>> round(p.untaught_share("tweak-bomb", np.array([0.5, 0.1, 0.3, 0.1]), labels), 2)
        0.6
        >>> p.untaught_share("red-1", np.array([0.5, 0.1, 0.3, 0.1]), labels)
        0.0
        """
        untaught = self.untaught if self.network_word is not None else []
        if not untaught or label_kind(label) in untaught:
            return 0.0
        return float(sum(p for m, p in zip(labels, probabilities) if m != NONE and label_kind(m) in untaught))

    def classify(self, classifier: Any, crops: list[np.ndarray], second: Any = None) -> list[Any]:
        """Predictions as ``CardClassifier.classify`` gives them, read with this deck's look
        (``second``: as ``probabilities``)."""
        from scanner.read.classify import Prediction

        probs, flipped = self.probabilities(classifier, crops, second)
        labels = classifier.labels
        return [
            Prediction(labels[b], float(p[b]), bool(f > 0.5), p)
            for b, p, f in zip(probs.argmax(axis=1), probs, flipped)
        ]

    def as_json(self) -> dict[str, Any]:
        r = self.reader
        return {
            "tweak_profile": PROFILE_VERSION,
            "model": {"version": self.model_version, "sha256": self.model_sha256},
            "features": self.features,
            "deck": self.deck,
            "created": self.created,
            "aspect": None if self.aspect is None else round(self.aspect, 4),
            "network_reliability": round(self.network_reliability, 4),
            **{
                f"network_reliability_{kind}": round(value, 4)
                for kind, value in (
                    ("faces", self.network_reliability_faces),
                    ("others", self.network_reliability_others),
                )
                if value is not None
            },
            "network_mistaken": {label: round(share, 4) for label, share in self.network_mistaken.items()},
            "network_among": {group: round(share, 4) for group, share in self.network_among.items()},
            "network_among_model": self.network_among_model,
            **({} if self.network_word is None else {"network_word": _word_json(self.network_word)}),
            "photos": {label: self.photos[label] for label in self.enrolled},
            "missing": self.missing,
            "problems": self.problems,
            "reader": {"classes": self.classes, **_lda_json(r)},
            **({} if self.faces is None else {"faces": _faces_json(self.faces)}),
        }

    def save(self, path: Path) -> None:
        """Write the profile; a temporary file replaces the old one whole, so a failed write
        (a full disk) leaves the profile in use as it was."""
        path = Path(path)
        part = path.with_name(path.name + ".part")
        try:
            part.write_text(json.dumps(self.as_json()) + "\n", encoding="utf-8")
            os.replace(part, path)
        finally:
            part.unlink(missing_ok=True)  # (gone once replaced; a failed write's half removed)


def _word_json(w: NetworkWord) -> dict[str, Any]:
    return {"model": w.model, "mistaken": {label: round(share, 4) for label, share in w.mistaken.items()}}


def _word_from_json(data: Any, path: Path) -> NetworkWord:
    if not isinstance(data, dict) or not isinstance(data.get("model"), str) or "mistaken" not in data:
        raise ProfileError(f"{path}: 'network_word' must hold 'model' (a SHA-256) and 'mistaken'")
    return NetworkWord(data["model"], _mistaken_from_json(data["mistaken"], path, "network_word.mistaken"))


def _lda_json(r: LinearDiscriminant) -> dict[str, Any]:
    return {
        "dims": list(r.projection.shape),
        "mean": _pack(r.mean),
        "projection": _pack(r.projection),
        "centroids": _pack(r.centroids),
        "reach": r.reach,
        "temperature": r.temperature,
    }


def _lda_from_json(data: dict[str, Any], classes: int, where: str) -> LinearDiscriminant:
    d, k = (int(v) for v in data["dims"])
    return LinearDiscriminant(
        _unpack(data["mean"], (d,), f"{where}.mean"),
        _unpack(data["projection"], (d, k), f"{where}.projection"),
        _unpack(data["centroids"], (classes, k), f"{where}.centroids"),
        float(data["reach"]),
        float(data.get("temperature", 1.0)),
    )


def _faces_json(f: FaceFactors) -> dict[str, Any]:
    return {
        "colours": f.colours,
        "values": f.values,
        "colour": None if f.colour is None else _lda_json(f.colour),
        "value": None if f.value is None else _lda_json(f.value),
        **({} if f.ink is None else {"ink": _lda_json(f.ink)}),
    }


def _faces_from_json(data: dict[str, Any], path: Path, features: int, current: bool = True) -> FaceFactors:
    """``features``: how many features the deck's reader reads; the colour reader reads all but the
    shapes (``SHAPE_COLUMNS``), the value reader the shapes alone. ``current``: learned on this
    version's features (otherwise their sizes are not checked: the profile is to be learned again)."""
    colours = [str(c) for c in data["colours"]]
    values = [int(v) for v in data["values"]]
    if any(c not in COLOURS for c in colours) or any(not 1 <= v <= 6 for v in values):
        raise ProfileError(f"{path}: unknown colour or value in 'faces' ({colours}, {values})")
    colour = None if data["colour"] is None else _lda_from_json(data["colour"], len(colours), "faces.colour")
    value = None if data["value"] is None else _lda_from_json(data["value"], len(values), "faces.value")
    ink = None if data.get("ink") is None else _lda_from_json(data["ink"], len(colours), "faces.ink")
    shapes = SHAPE_COLUMNS.stop
    ink_dims = INK_COLUMNS.stop - INK_COLUMNS.start
    for what, reader, dims in (("colour", colour, features - shapes), ("value", value, shapes), ("ink", ink, ink_dims)):
        if current and reader is not None and len(reader.mean) != dims:
            raise ProfileError(
                f"{path}: 'faces.{what}' reads {len(reader.mean)} features, this version's reader {dims}: "
                "enrol the deck again (tweak enrol)"
            )
    return FaceFactors(colours, colour, values, value, ink)


def _share_or_none(value: Any, name: str, path: Path) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ProfileError(f"{path}: {name!r} must be a share 0-1, not {value!r}")
    return float(value)


def _mistaken_from_json(data: Any, path: Path, name: str = "network_mistaken") -> dict[str, float]:
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: '{name}' must map labels to shares")
    out = {}
    for label, share in data.items():
        if label not in LABELS or not 0.0 <= float(share) <= 1.0:
            raise ProfileError(f"{path}: '{name}': {label!r}: {share!r} (a card label and a share 0-1)")
        out[label] = float(share)
    return out


def _among_from_json(data: Any, path: Path) -> dict[str, float]:
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: 'network_among' must map groups of cards to shares")
    for group, share in data.items():
        if group not in SHARED_DESIGNS:
            raise ProfileError(f"{path}: 'network_among': unknown group {group!r} (known: {', '.join(SHARED_DESIGNS)})")
        _share_or_none(share, f"network_among.{group}", path)
    return {str(group): float(share) for group, share in data.items()}


def _pack(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, "<f4").tobytes()).decode("ascii")


def _unpack(text: str, shape: tuple[int, ...], what: str) -> np.ndarray:
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    if len(raw) != 4 * int(np.prod(shape)):
        raise ValueError(f"'{what}' holds {len(raw) // 4} numbers, {int(np.prod(shape))} expected")
    return np.frombuffer(raw, "<f4").reshape(shape).copy()


def load_profile(path: Path, classifier: Any = None) -> DeckProfile:
    """Read a profile; with ``classifier``, refuse one made for another model."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ProfileError(f"{path}: cannot read the deck profile ({err.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ProfileError(f"{path}: not a deck profile (not JSON: {err})") from None
    if not isinstance(data, dict) or "tweak_profile" not in data:
        raise ProfileError(f"{path}: not a deck profile (no 'tweak_profile' field)")
    if data["tweak_profile"] != PROFILE_VERSION:
        raise ProfileError(
            f"{path}: profile format {data['tweak_profile']!r}, this version reads format {PROFILE_VERSION}: "
            "enrol the deck again (tweak enrol)"
        )
    try:
        model, reader = data["model"], data["reader"]
        classes = [str(c) for c in reader["classes"]]
        for name in classes:
            if name != NONE and name.removesuffix(TURNED) not in LABELS:
                raise ProfileError(f"{path}: unknown class {name!r} in 'reader.classes'")
        photos = {str(k): int(v) for k, v in data["photos"].items()}
        for label in photos:
            if label not in LABELS:
                raise ProfileError(f"{path}: unknown label {label!r} in 'photos'")
        lda = _lda_from_json(reader, len(classes), "reader")
        features = data.get("features", 1)
        if isinstance(features, bool) or not isinstance(features, int) or features < 1:
            raise ProfileError(f"{path}: 'features' must be a version number, not {features!r}")
        # (a reader of older features is read, to be refused by ``check_model`` and learned again;
        # its colour and value readers' sizes are those features')
        faces = (
            _faces_from_json(data["faces"], path, len(lda.mean), features == FEATURES_VERSION)
            if data.get("faces") is not None
            else None
        )
        aspect = data.get("aspect")
        profile = DeckProfile(
            int(model["version"]),
            str(model["sha256"]),
            lda,
            classes,
            photos,
            None if aspect is None else float(aspect),
            float(data.get("network_reliability", 1.0)),
            str(data.get("deck", "")),
            str(data.get("created", "")),
            list(data.get("problems", [])),
            faces,
            _mistaken_from_json(data.get("network_mistaken", {}), path),
            _share_or_none(data.get("network_reliability_faces"), "network_reliability_faces", path),
            _share_or_none(data.get("network_reliability_others"), "network_reliability_others", path),
            _among_from_json(data.get("network_among", {}), path),
            str(data.get("network_among_model", "")),
            None if data.get("network_word") is None else _word_from_json(data["network_word"], path),
            features,
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ProfileError(f"{path}: a required field is missing or malformed ({err})") from None
    if classifier is not None:
        profile.check_model(classifier)
    return profile


# --- enrolment -------------------------------------------------------------------------------


@dataclass
class EnrolReport:
    profile: DeckProfile | None  # None: no photo was usable
    used: int
    refused: list[str]
    seconds: float
    #: the flat card images the profile was learned from, by label (``scanner.read.kept``)
    cards: dict[str, list[np.ndarray]] = field(default_factory=dict)
    #: photos learned from that another photo would teach better (``photo_advice``): path: why
    advice: list[str] = field(default_factory=list)


def photos_in(folder: Path) -> dict[str, list[Path]]:
    """DIR/<label>/<photo>: the photos of each label. Unknown folder names are an error, and so is
    a folder with neither these nor photos of laid-out cards (``layout_photos_in``)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ProfileError(f"{folder}: not a folder (expected one sub-folder per label, e.g. {folder}/red-5/)")
    out: dict[str, list[Path]] = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        if sub.name not in LABELS:
            raise ProfileError(
                f"{sub}: {sub.name!r} is not a card label (see DESIGN.md: red-5, back-7, tweak-joker...)"
            )
        out[sub.name] = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not any(out.values()) and not layout_photos_in(folder):
        raise ProfileError(
            f"{folder}: no photos found (expected {folder}/<label>/*.jpg, or photos of laid-out cards "
            f"{folder}/<name>.jpg with their layout lists {folder}/<name>.txt)"
        )
    return out


def layout_photos_in(folder: Path) -> list[Path]:
    """DIR/<name>.jpg: photos of laid-out cards, each named by its layout list DIR/<name>.txt
    (``scanner.read.layout``)."""
    return sorted(p for p in Path(folder).iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def enrol_cards(
    classifier: Any,
    cards_by_label: dict[str, list[np.ndarray]],
    deck: str = "",
    aspect: float | None = None,
    progress: Any = None,
    settings: Any = SETTINGS,
    photos: dict[str, int] | None = None,
    second: Any = None,
) -> DeckProfile:
    """Learn the deck from flat card images (``adapt.card_image``, either way up): each is put the
    printed way up (the classifier's orientation), drawn on synthetic tables, cut out as the
    scanner would, and the reader fitted on those crops (``scanner.read.adapt``). ``progress(done,
    total)`` is called as crops are made. ``photos``: how many photos each label's images came
    from, where a photo gave more than one image (one per outline found). ``second``: the network
    whose second word on the backs and faces is measured (the any-deck network; None: the
    classifier's own)."""
    from scanner.read.adapt import training_set
    from scanner.read.classify import SecondReadings

    cards_by_label = {label: cards for label, cards in cards_by_label.items() if cards}
    if not cards_by_label:
        raise ProfileError("no card photo to learn from")
    upright: dict[str, list[np.ndarray]] = {}
    for label, cards in cards_by_label.items():
        views = [_as_crop(card, classifier) for card in cards]
        _, flipped, _ = classifier.run(views)
        upright[label] = [np.ascontiguousarray(c[::-1, ::-1]) if f > 0.5 else c for c, f in zip(cards, flipped)]
    enrolled = [label for label in LABELS if label in upright]
    index = {label: i for i, label in enumerate(enrolled)}
    classes = [name for label in enrolled for name in (label, label + TURNED)] + [NONE]
    images, targets = training_set(
        {label: upright[label] for label in enrolled}, index, len(classes) - 1, classifier.margin, settings, progress
    )
    features, read_right, read_face = [], [], []
    among_right: dict[str, list[bool]] = {group: [] for group in SHARED_DESIGNS}
    column = {label: i for i, label in enumerate(classifier.labels)}
    said = np.zeros((len(enrolled), len(classifier.labels)))  # enrolled label x the model's reading
    word_said = np.zeros_like(said)  # ... x the second network's (``second``; the model's where None)
    for start in range(0, len(images), 256):
        batch, wanted = images[start : start + 256], targets[start : start + 256]
        shared = SecondReadings()  # (both networks ask the second one about the same crops)
        probs, _, emb = classifier.run(batch, shared)
        features.append(crop_features(batch, emb, np.log(np.maximum(probs, 1e-12))))
        word = probs if second is None else second.run(batch, shared)[0]
        cards = wanted < len(classes) - 1
        truth = np.array([column[enrolled[t // 2]] for t in wanted[cards]], int)
        read = probs[cards].argmax(axis=1)
        read_right += list(read == truth)
        read_face += [enrolled[t // 2] in FACES for t in wanted[cards]]
        np.add.at(said, (wanted[cards] // 2, read), 1)
        word_read = word[cards].argmax(axis=1)
        np.add.at(word_said, (wanted[cards] // 2, word_read), 1)
        for group, members in SHARED_DESIGNS.items():
            shown = [label for label in members if label in index]
            rows = [i for i, t in enumerate(wanted) if t < len(classes) - 1 and enrolled[t // 2] in shown]
            if len(shown) >= 2 and rows:
                among = word[rows][:, [column[label] for label in shown]].argmax(axis=1)
                among_right[group] += [shown[a] == enrolled[wanted[i] // 2] for a, i in zip(among, rows)]
    mistaken, word_mistaken = (
        {
            label: float(shares[:, i].max())
            for i, label in enumerate(classifier.labels)
            if label in LABELS and label not in index and shares[:, i].max() > 0
        }
        for shares in (m / np.maximum(m.sum(axis=1, keepdims=True), 1) for m in (said, word_said))
    )
    every = np.concatenate(features)
    reader = fit_reader(every, targets, len(classes), settings)
    row_labels = [None if t == len(classes) - 1 else enrolled[t // 2] for t in targets]
    faces = fit_face_factors(every, row_labels, settings)
    if faces is not None:  # the faces without photos, where the deck shows their colour and value
        composed, where = composed_faces(classes, reader.centroids, faces)
        classes = classes + composed
        reader.centroids = np.concatenate([reader.centroids, where])
    return DeckProfile(
        classifier.version,
        model_fingerprint(classifier.path),
        reader,
        classes,
        {label: (photos or {}).get(label, len(upright[label])) for label in enrolled},
        aspect,
        float(np.mean(read_right)) if read_right else 1.0,
        deck,
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        faces=faces,
        network_mistaken=mistaken,
        network_reliability_faces=_share(read_right, read_face, True),
        network_reliability_others=_share(read_right, read_face, False),
        network_among={group: float(np.mean(right)) for group, right in among_right.items() if right},
        network_among_model="" if second is None else _fingerprint(second.path),
        network_word=None if second is None else NetworkWord(_fingerprint(second.path), word_mistaken),
    )


def _share(right: list[bool], face: list[bool], of_faces: bool) -> float | None:
    """The share of ``right`` among the faces' rows (``of_faces``) or the others' (None: no such row)."""
    rows = [r for r, f in zip(right, face) if f == of_faces]
    return float(np.mean(rows)) if rows else None


def _as_crop(card: np.ndarray, classifier: Any) -> np.ndarray:
    """A flat card image as the classifier's crop (the card with its margin of surroundings)."""
    import cv2

    h, w = card.shape[:2]
    pad_y, pad_x = int(h * (classifier.margin - 1) / 2), int(w * (classifier.margin - 1) / 2)
    padded = cv2.copyMakeBorder(card, pad_y, pad_y, pad_x, pad_x, cv2.BORDER_REPLICATE)
    return cv2.resize(padded, classifier.size, interpolation=cv2.INTER_AREA)


def enrol_folder(folder: Path, scanner: Any, deck: str = "", progress: Any = None) -> EnrolReport:
    """``tweak enrol``: the one card of each photo (its dominant card-shaped place,
    ``card_outlines``), cut at each way's outline of it: the scanner's ways will err the same way
    on the table, so the deck is learned as each of them sees it (``enrol_cards``)."""
    started = time.perf_counter()
    with _first_network_reading(scanner):
        cards, photos, refused, aspects, used, advice = _enrolment_cards(folder, scanner)
    if not cards:
        return EnrolReport(None, 0, refused, time.perf_counter() - started)
    aspect = float(np.median(aspects))
    profile = enrol_cards(scanner.classifier, cards, deck, aspect, progress, photos=photos, second=scanner.any_deck)
    profile.problems = refused
    return EnrolReport(profile, used, refused, time.perf_counter() - started, cards, advice)


@contextmanager
def _first_network_reading(scanner: Any) -> Iterator[None]:
    """The scanner's zero-shot scans read with its first network while a deck is enrolled: the
    profile is learned on that network's features and the outlines its readings lead to, not the
    any-deck network's (``Scanner.any_deck``), which reads decks without a profile."""
    any_deck = getattr(scanner, "any_deck", None)
    scanner.any_deck = None
    try:
        yield
    finally:
        scanner.any_deck = any_deck


def _enrolment_cards(
    folder: Path, scanner: Any
) -> tuple[dict[str, list[np.ndarray]], dict[str, int], list[str], list[float], int, list[str]]:
    """Each enrolment photo's card cut at each outline found of it (``enrol_folder``): the cards by
    label, photos used by label, the photos refused (why), the outlines' aspect ratios, photos used,
    and advice on the photos used (``photo_advice``). A photo outlined in another shape than the
    deck's (its photos' median) is outlined again, knowing it (``_of_the_decks_shape``)."""
    import cv2

    from scanner.read.adapt import card_image

    by_label = photos_in(folder)
    cards: dict[str, list[np.ndarray]] = {}  # each photo's card cut at each outline found of it
    photos: dict[str, int] = {}
    refused: list[str] = []
    aspects: list[float] = []
    burnt: list[tuple[Path, float]] = []
    used = 0
    found: list[tuple[str, Path, list[np.ndarray]]] = []
    for label, paths in by_label.items():
        for path in paths:
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                refused.append(f"{path}: cannot be read as an image")
                continue
            outlines, problem = card_outlines(frame, scanner.finder)
            if not outlines:
                refused.append(f"{path}: {problem}")
                continue
            found.append((label, path, outlines))
    # every card of a deck has one shape: a photo whose outline is of another is looked at again
    shapes = [aspect_ratio(outlines[0]) for _, _, outlines in found]
    shape = float(np.median(shapes)) if len(shapes) >= SETTINGS.enrol_shape_from else None
    for (label, path, outlines), aspect in zip(found, shapes):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:  # (read a moment ago: changed meanwhile)
            refused.append(f"{path}: cannot be read as an image")
            continue
        if shape is not None and abs(aspect / shape - 1) > SETTINGS.enrol_shape_apart:
            outlines = card_outlines(frame, scanner.finder, shape)[0] or outlines
        burnt.append((path, burnt_share(frame, outlines[0])))
        outlines += _scanned_outlines(frame, scanner, outlines)
        cards.setdefault(label, []).extend(card_image(frame, corners) for corners in outlines)
        photos[label] = photos.get(label, 0) + 1
        aspects.append(aspect_ratio(outlines[0]))
        used += 1
    for path in layout_photos_in(folder):
        named = _laid_out_cards(path, scanner, refused)
        for label, (outline, images) in named.items():
            cards.setdefault(label, []).extend(images)
            photos[label] = photos.get(label, 0) + 1
            aspects.append(aspect_ratio(outline))
        used += bool(named)
    usual = float(np.median([share for _, share in burnt])) if burnt else 0.0
    advice = [f"{path}: {BURNT}" for path, share in burnt if burnt_beyond_usual(share, usual)]
    return cards, photos, refused, aspects, used, advice


def _laid_out_cards(path: Path, scanner: Any, refused: list[str]) -> dict[str, tuple[np.ndarray, list[np.ndarray]]]:
    """A photo of laid-out cards named by its layout list (``scanner.read.layout``): each label's
    outline and its card cut at that outline and at the classical outline of the same place where
    it differs (as a single card's photo is cut at each way's outline). A photo that cannot be
    read, has no list or does not match it is refused (in ``refused``, why); a card whose edge
    does not show (glare) is left out of it, and said."""
    import cv2

    from scanner.find.detect import detect_cards
    from scanner.metrics import quad_iou
    from scanner.read.adapt import card_image
    from scanner.read.layout import LayoutError, name_cards, read_layout

    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        refused.append(f"{path}: cannot be read as an image")
        return {}
    listed = path.with_suffix(".txt")
    if not listed.is_file():
        refused.append(
            f"{path}: a photo of laid-out cards needs its layout list {listed.name} beside it "
            "(one line per row of cards, the labels left to right, e.g. 'red-1 red-2 red-3')"
        )
        return {}
    try:
        named = name_cards(frame, read_layout(listed), scanner, str(path))
    except LayoutError as err:
        refused.append(str(err))
        return {}
    outlines = [d.corners for d in detect_cards(frame, enrolment=True)]
    out: dict[str, tuple[np.ndarray, list[np.ndarray]]] = {}
    for label, quad in named.items():
        if not edge_shows(frame, quad):
            refused.append(f"{path}: {label}'s edge hardly shows against the table (glare?): not learned from it")
            continue
        cuts = [quad] + [
            o
            for o in outlines
            if SETTINGS.same_outline > quad_iou(o, quad) >= SETTINGS.same_place and edge_shows(frame, o)
        ]
        out[label] = (quad, [card_image(frame, q) for q in cuts])
    return out


def _scanned_outlines(frame: np.ndarray, scanner: Any, outlines: list[np.ndarray]) -> list[np.ndarray]:
    """The scan's own outline of an enrolment photo's card where it differs from the outlines
    found (a card's inner panel may be taken for it at enrolment and its true edge by the scan):
    the deck is learned as the scan will cut it on the table too. Only an outline of the same
    place (IoU ``same_place``) along which an edge shows."""
    from scanner.metrics import quad_iou

    extra: list[np.ndarray] = []
    with _first_network_reading(scanner):  # (as the scan reads with the profile)
        cards = scanner.scan(frame).cards
    for card in cards:
        quad = np.asarray(card.corners, np.float32)
        if (
            quad_iou(quad, outlines[0]) >= SETTINGS.same_place
            and all(quad_iou(quad, k) < SETTINGS.same_outline for k in outlines + extra)
            and edge_shows(frame, quad)
        ):
            extra.append(quad)
    return extra


def edge_shown(frame: np.ndarray, quad: np.ndarray) -> float:
    """The share of an enrolment outline along which the card's edge shows (``detect.outline_contrast``)."""
    from scanner.find.detect import outline_contrast

    return outline_contrast(frame, quad, SETTINGS.enrol_edge_contrast)


def edge_shows(frame: np.ndarray, quad: np.ndarray) -> bool:
    """Whether an outline may be learned from: the edge shows along enough of it (not glare)."""
    return edge_shown(frame, quad) >= SETTINGS.enrol_edge_shown


def burnt_share(frame: np.ndarray, quad: np.ndarray) -> float:
    """The share of a card's inner part (a sixteenth in from each side) burnt white in ``frame``:
    every channel at ``AdaptSettings.enrol_burnt_level`` or over, where glare or too much light
    washed its ink away.

    >>> card = np.full((280, 200, 3), 200, np.uint8)
    >>> quad = np.array([[0, 0], [199, 0], [199, 279], [0, 279]], np.float32)
    >>> burnt_share(card, quad)
    0.0
    >>> card[100:160, 60:140] = 255  # a highlight
    >>> round(burnt_share(card, quad), 3)
    0.108
    """
    from scanner.read.adapt import card_image

    card = card_image(frame, quad)
    h, w = card.shape[:2]
    inner = card[h // 16 : h - h // 16, w // 16 : w - w // 16]
    return float((inner.min(axis=2) >= SETTINGS.enrol_burnt_level).mean())


def photo_advice(frame: np.ndarray, quad: np.ndarray, usual: float = 0.0) -> str:
    """Why an enrolment photo's card (outlined by ``quad``), though usable, is best taken again:
    "" for a good photo. A card partly burnt white (``burnt_share``) is learned without the ink
    lost there: its numeral or colour read as another card's on the table. ``usual``: the share
    burnt on the deck's photos (their median, ``burnt_beyond_usual``)."""
    return BURNT if burnt_beyond_usual(burnt_share(frame, quad), usual) else ""


def burnt_beyond_usual(share: float, usual: float | None) -> bool:
    """Whether a card burnt white on ``share`` of its inner part lost its print to glare: a share
    over ``AdaptSettings.enrol_burnt_share`` and ``enrol_burnt_usual`` times the deck's ``usual``
    share (None: not known yet), which a camera burning every card's white paper reaches alike.

    >>> burnt_beyond_usual(0.3, 0.0), burnt_beyond_usual(0.005, None), burnt_beyond_usual(0.6, 0.5)
    (True, False, False)
    """
    return share >= max(SETTINGS.enrol_burnt_share, SETTINGS.enrol_burnt_usual * (usual or 0.0))


NO_EDGE = (
    "the card's edge hardly shows against the table (glare, or a table the card's colour): "
    "take the photo again out of direct light, on a plain darker surface"
)


def single_card(frame: np.ndarray, finder: Any = None) -> tuple[np.ndarray | None, str]:
    """The one card of an enrolment photo (``card_outlines``' first outline), or (None, what was
    seen)."""
    outlines, problem = card_outlines(frame, finder)
    return (outlines[0] if outlines else None), problem


def card_outlines(frame: np.ndarray, finder: Any = None, aspect: float | None = None) -> tuple[list[np.ndarray], str]:
    """The one card of an enrolment photo, found three ways that fail differently: the classical
    outlines (no art assumed, but a table's edge or shadow can look like a big card), the region
    standing out from the table around it (``detect.dominant_outline``), and the finder's cards
    (sure on known art, parts of cards on another). Quads of one place are grouped; the place most
    ways agree on is the card (then the larger), its outline the classical one where there is one.
    Smaller quads inside it are its parts (an index, a numeral's box, a checked border); where the
    place chosen is itself such a part of a card photographed close, the finder's coarser look
    finds the card around it (``_whole_card_around``). A card one way alone outlines among a
    patterned cloth's card-sized squares, its edge not showing all round, is refused
    (``AdaptSettings.enrol_lone_way_edge``). Returns the card's outlines, the chosen one first and
    then the other ways' outlines of the same place (each way errs its own way, as it will on the
    table), or ([], what was seen). ``aspect``: the deck's shape (long / short side), where its
    other photos tell it: an outline of another shape is looked at again (``_of_the_decks_shape``)."""
    import cv2

    from scanner.find.detect import SETTINGS as OUTLINES
    from scanner.find.detect import detect_cards, dominant_outline, map_support
    from scanner.find.segment import out_to_the_card_edge
    from scanner.metrics import quad_iou

    found = [(0, d.corners) for d in detect_cards(frame, consistent=False, enrolment=True)]
    if not found:
        found = [(0, quad) for quad in _near_card_outlines(frame)]
    blob = dominant_outline(frame)
    if blob is not None:
        found.append((1, blob))
    prob = gray = None
    if finder is not None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)  # (once, for the finder's every look)
        cards, prob = finder.find_and_map(frame, gray)
        found += [(2, d.corners) for d in cards]
    found = _off_the_mat(frame, found)
    if not found:
        return [], "no card-shaped outline found: photograph one card, whole, on a plain table"
    places: list[list[tuple[int, np.ndarray]]] = []
    for way, quad in sorted(found, key=lambda f: f[0]):
        for place in places:
            if quad_iou(quad, place[0][1]) >= SETTINGS.enrol_same_place:
                place.append((way, quad))
                break
        else:
            places.append([(way, quad)])
    size = (frame.shape[1], frame.shape[0])

    def seen(quad: np.ndarray) -> bool:  # (where the finder sees card pixels at all)
        return prob is not None and map_support(prob, quad, size) >= OUTLINES.fuse_support

    quads = [p[0][1] for p in places]
    if prob is not None and len(_distinct_large(quads)) >= 3:
        # many card-sized outlines: a patterned surface (a checked cloth's squares); the card is
        # where the finder sees card pixels at all
        places = [p for p in places if seen(p[0][1])] or places

    def ways(place: list) -> int:
        return len({way for way, _ in place})

    places.sort(key=lambda p: (ways(p), _area(p[0][1])), reverse=True)
    whole, unclear = _whole_card_around(frame, finder, places[0][0][1], gray) if finder is not None else (None, [])
    if whole is not None:
        places.insert(0, [(2, whole)])
    else:
        # where another way outlines the card the coarse look saw, its edge showing as clearly, that
        # outline is the card (a coarse quad whose edge shows less is as often the card and the
        # table around it, at the mount's height: refusing the photo then asked again for good ones)
        around = [
            p
            for p in places[1:]
            if any(quad_iou(p[0][1], q) >= OUTLINES.fuse_same for q in unclear)
            and edge_shown(frame, p[0][1]) >= SETTINGS.enrol_coarse_edge
        ]
        if around:
            places.remove(around[0])
            places.insert(0, around[0])
        else:
            over = _card_over_the_pattern(frame, places)
            if over is not None:
                places.insert(0, places.pop(over))
    if aspect is not None:
        holder = _of_the_decks_shape(frame, places, aspect)
        if holder is not None:
            places.insert(0, [holder])
    best = places[0][0][1]  # (the first way's quad: classical, then the region, then the finder)
    # where the finder sees card in the chosen place, an outline it sees no card in is the table's
    # pattern (a checked cloth's square of half a card's area), not a second card
    best_seen = seen(best)
    rivals = [
        p[0][1]
        for p in places[1:]
        if ways(p) >= ways(places[0])
        and _area(p[0][1]) >= 0.5 * _area(best)
        and contained_share(best, p[0][1]) < 0.5
        and (not best_seen or seen(p[0][1]))
    ]
    if rivals and not any(edge_shows(frame, q) for q in [best, *rivals]):
        return [], NO_EDGE  # (the finder's guesses at a card the colour of the table: no edge to count)
    if rivals:
        return [], (
            f"{1 + len(rivals)} card-shaped outlines found, a photo must show exactly one card"
            + (" (on a plain surface: a checked cloth's squares look like cards)" if len(rivals) > 2 else "")
        )
    # an outline only one way found among a patterned cloth's squares is believed only where the
    # card's edge shows all round it: the finder's outline of a small card there is often turned or
    # cut off it (across card and cloth), and a deck learned from it reads that card as another, or
    # as no card, surely. (The card's own parts, a checked border's squares, are not the cloth's.)
    outside = [q for q in quads if contained_share(best, q) < 0.5 and contained_share(q, best) < 0.5]
    patterned = len(_distinct_large(outside)) >= 3 and max(map(_area, outside)) >= 0.5 * _area(best)
    if ways(places[0]) < 2 and patterned and edge_shown(frame, best) < SETTINGS.enrol_lone_way_edge:
        return [], "the card cannot be told apart from the table's pattern: take the photo again on a plain surface"
    kept: list[np.ndarray] = []  # the place's outlines in the ways' order: the chosen one first
    for _, quad in places[0]:
        if all(quad_iou(quad, k) < SETTINGS.same_outline for k in kept):
            kept.append(quad)
    # an outline along which no edge shows was drawn across glare or a table the card's colour: it
    # is not where the card is, and a deck learned from it reads that card as another, surely
    shown = [q for q in kept if edge_shows(frame, q)]
    if not shown:
        return [], NO_EDGE
    # an outline on the frame printed inside the card is moved out to its edge, as the scan's are;
    # the card is learned at both cuts, as the scan reads it at both (``scan._mean_reading``).
    # Where another way's outline, so moved, holds the chosen one, the chosen was a part of the card:
    # the card is the larger, and only the cuts of its place are learned
    moved = out_to_the_card_edge(frame, shown)
    holding = [
        k
        for k in range(1, len(moved))
        if not np.array_equal(moved[k], shown[k])
        and _area(moved[k]) > _area(moved[0])
        and contained_share(moved[k], moved[0]) >= SETTINGS.enrol_part_inside
    ]
    card = moved[max(holding, key=lambda k: _area(moved[k]))] if holding else moved[0]
    cuts = [card]
    for quad in [*moved, *shown]:
        if quad_iou(quad, card) >= SETTINGS.enrol_same_place and all(
            quad_iou(quad, k) < SETTINGS.same_outline for k in cuts
        ):
            cuts.append(quad)
    return cuts, ""


def _whole_card_around(
    frame: np.ndarray, finder: Any, best: np.ndarray, gray: np.ndarray | None = None
) -> tuple[np.ndarray | None, list[np.ndarray]]:
    """The whole card around an enrolment photo's chosen outline where that outline is only a part
    of it (its numeral, a panel). Close, a card whose edge no outline finds (a striped card on a
    checked cloth, a pale card on the white mat) is seen by the finder's first look only as its
    printed parts. The finder looks again at coarser widths (``AdaptSettings.enrol_coarse_widths``,
    the coarsest first) and believes a quad it finds there at about the size it learned
    (``enrol_coarse_size``: bigger, it sees a card's parts and the table as one), card-shaped,
    holding the outline (``enrol_part_inside`` of it, ``enrol_part_area`` times its area or more)
    and with the card's edge showing along most of it (``enrol_coarse_edge``: that coarse a quad is
    often a little off the card, and a deck learned from it reads that card worse). Returns that
    card, or None and the quads seen whose edge shows (``edge_shows``) but not that well: the card
    may be where another way outlines one of them. ``gray``: the frame in grey, where the caller has it."""
    from scanner.find.detect import SETTINGS as OUTLINES
    from scanner.find.segment import input_width
    from scanner.scan import SETTINGS as SCAN

    least = SETTINGS.enrol_part_area * _area(best)
    low, high = SETTINGS.enrol_coarse_size
    unclear: list[np.ndarray] = []
    for share in sorted(SETTINGS.enrol_coarse_widths):
        width = input_width(finder.width * share)
        learned = SCAN.learned_card_length * frame.shape[1] * finder.width / width  # in the frame's pixels
        holding = [
            d.corners
            for d in finder.find_and_map(frame, gray, width)[0]
            if _area(d.corners) >= least
            and contained_share(d.corners, best) >= SETTINGS.enrol_part_inside
            and OUTLINES.card_aspect[0] <= aspect_ratio(d.corners) <= OUTLINES.card_aspect[1]
            and low <= _long_side(d.corners) / learned <= high
        ]
        if holding:  # (A-paper: a card's shape)
            holding = [q for _, q in _off_the_mat(frame, [(2, q) for q in holding])]
        clear = [q for q in holding if _clearly_a_card(frame, q)]
        if clear:
            return max(clear, key=_area), []
        unclear += [q for q in holding if edge_shows(frame, q)]  # (along none, it is not a card at all)
    return None, unclear


def _card_over_the_pattern(frame: np.ndarray, places: list[list[tuple[int, np.ndarray]]]) -> int | None:
    """The index in ``places`` of a card photographed close over a patterned cloth, where the place
    chosen (the first) is one of the cloth's squares: the finder takes the squares for cards (two
    ways then agree on one) and does not see a card many times the size it learned. The card is the
    largest outline ``enrol_over_pattern`` times the chosen one's area or more, card-shaped, whose
    edge shows all round and whose colours stand apart from the table around it; None where the
    chosen place is not one of a pattern or no such outline is seen."""
    from scanner.find.detect import SETTINGS as OUTLINES

    chosen = places[0][0][1]
    area = _area(chosen)
    alike = [
        p[0][1]
        for p in places[1:]
        if 0.5 * area <= _area(p[0][1]) <= 2 * area
        and contained_share(chosen, p[0][1]) < 0.5
        and contained_share(p[0][1], chosen) < 0.5
    ]
    if len(_distinct_large(alike)) < SETTINGS.enrol_pattern_alike:
        return None
    over = [
        k
        for k, p in enumerate(places)
        if _area(p[0][1]) >= SETTINGS.enrol_over_pattern * area
        and OUTLINES.card_aspect[0] <= aspect_ratio(p[0][1]) <= OUTLINES.card_aspect[1]
        and _clearly_a_card(frame, p[0][1])
    ]
    return max(over, key=lambda k: _area(places[k][0][1])) if over else None


def _of_the_decks_shape(
    frame: np.ndarray, places: list[list[tuple[int, np.ndarray]]], aspect: float
) -> tuple[int, np.ndarray] | None:
    """Where the place chosen (the first) is not of the deck's shape (``aspect``, long / short
    side; more than ``enrol_shape_apart`` off it), a way's outline of that shape holding it
    (``enrol_part_inside`` of it; one of the chosen place too, which the finder's quad of the whole
    card joins), ``enrol_shape_area`` times its area and clearly a card
    (``_clearly_a_card``): the card, whose outline stopped where a part of another colour begins
    (a header band). The one nearest the deck's shape, with its way; None where the chosen is of
    the deck's shape or none holds it.

    >>> table = np.full((400, 400, 3), 90, np.uint8)
    >>> table[100:268, 140:260] = 235  # a card 120 x 168 (1.4), its top quarter a red band
    >>> table[100:142, 140:260] = (40, 40, 200)
    >>> body = np.float32([[140, 142], [259, 142], [259, 267], [140, 267]])
    >>> card = np.float32([[140, 100], [259, 100], [259, 267], [140, 267]])
    >>> way, quad = _of_the_decks_shape(table, [[(0, body)], [(2, card)]], 1.4)
    >>> way, bool(np.array_equal(quad, card))
    (2, True)
    >>> _of_the_decks_shape(table, [[(0, body)], [(2, card)]], 1.05) is None
    True
    """

    def off(quad: np.ndarray) -> float:
        return abs(aspect_ratio(quad) / aspect - 1)

    chosen = places[0][0][1]
    if off(chosen) <= SETTINGS.enrol_shape_apart:
        return None
    low, high = SETTINGS.enrol_shape_area
    holding = [
        (way, quad)
        for place in places
        for way, quad in place
        if quad is not chosen
        and off(quad) <= SETTINGS.enrol_shape_apart
        and low * _area(chosen) <= _area(quad) <= high * _area(chosen)
        and contained_share(quad, chosen) >= SETTINGS.enrol_part_inside
        and _clearly_a_card(frame, quad)
    ]
    return min(holding, key=lambda h: off(h[1])) if holding else None


def _clearly_a_card(frame: np.ndarray, quad: np.ndarray) -> bool:
    """Whether a quad no way agreed on is a card all the same: its edge shows all round it
    (``enrol_coarse_edge``) and its colours stand apart from the table around it
    (``enrol_coarse_apart``; on a rug the weave's edges show along any quad)."""
    return (
        edge_shown(frame, quad) >= SETTINGS.enrol_coarse_edge
        and apart_from_around(frame, quad) >= SETTINGS.enrol_coarse_apart
    )


def apart_from_around(frame: np.ndarray, quad: np.ndarray) -> float:
    """How far the colours inside ``quad`` (its middle, 0.85 of it) are from those of the ring
    around it (1.08-1.35 times it): the Bhattacharyya distance of their Lab histograms, 0 (alike)
    to 1. A card stands apart from the table it lies on; a quad drawn on a patterned table does not.

    >>> table = np.full((200, 200, 3), 90, np.uint8)
    >>> quad = np.float32([[70, 60], [130, 60], [130, 144], [70, 144]])
    >>> round(apart_from_around(table, quad), 2)
    0.0
    >>> table[60:144, 70:130] = 230
    >>> apart_from_around(table, quad) > 0.9
    True
    """
    import cv2

    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)
    inside = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(inside, [grow_quad(quad, 0.85).astype(np.int32)], 255)
    ring = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(ring, [grow_quad(quad, 1.35).astype(np.int32)], 255)
    cv2.fillPoly(ring, [grow_quad(quad, 1.08).astype(np.int32)], 0)
    hists = [cv2.calcHist([lab], [0, 1, 2], mask, [8, 8, 8], [0, 256, 0, 256, 0, 256]) for mask in (inside, ring)]
    if min(float(h.sum()) for h in hists) == 0:
        return 1.0  # (the ring wholly outside the frame: nothing to compare with)
    for h in hists:
        cv2.normalize(h, h, 1, 0, cv2.NORM_L1)
    return float(cv2.compareHist(hists[0], hists[1], cv2.HISTCMP_BHATTACHARYYA))


def _near_card_outlines(frame: np.ndarray) -> list[np.ndarray]:
    """Outlines of a card photographed nearer than the mount's height, looked for at half the
    outlines' working width where that width found none: close, a picture printed to the card's
    border breaks its edge into pieces that the working width does not join (the photo deck's
    cards, 3-4 times nearer), and at half that width they close. Only those longer than the
    finder's learned card by ``rescale_between``'s lower bound (at the mount's height the working
    width outlines a card best)."""
    import cv2

    from scanner.find.detect import SETTINGS as OUTLINES
    from scanner.find.detect import detect_cards
    from scanner.scan import SETTINGS as SCAN

    half = OUTLINES.work_width // 2
    width = frame.shape[1]
    if width <= half:
        return []
    coarse = cv2.resize(frame, (half, round(frame.shape[0] * half / width)), interpolation=cv2.INTER_AREA)
    shortest = SCAN.rescale_between[0] * SCAN.learned_card_length * width
    quads = [d.corners * (width / half) for d in detect_cards(coarse, consistent=False, enrolment=True)]
    return [q for q in quads if _long_side(q) >= shortest]


def _off_the_mat(frame: np.ndarray, found: list[tuple[int, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
    """Without the play mat's own outlines (its border, its zones: ``mat.the_mats_own``)."""
    import cv2

    from scanner.geometry.mat import the_mats_own

    own = the_mats_own(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), [q for _, q in found])
    return [f for f, mats in zip(found, own) if not mats]


def _distinct_large(quads: list[np.ndarray]) -> list[np.ndarray]:
    """The quads of about the largest one's size, one for each place."""
    from scanner.metrics import quad_iou

    if not quads:
        return []
    largest = max(_area(q) for q in quads)
    out: list[np.ndarray] = []
    for q in sorted(quads, key=_area, reverse=True):
        if _area(q) >= 0.5 * largest and all(quad_iou(q, o) < 0.3 and contained_share(o, q) < 0.5 for o in out):
            out.append(q)
    return out


def _long_side(quad: np.ndarray) -> float:
    """The longer of a quad's first two sides (portrait order: its length)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])))


def _area(quad: np.ndarray) -> float:
    import cv2

    return float(cv2.contourArea(np.asarray(quad, np.float32)))


def progress_bar(done: int, total: int, out: Any = None) -> None:
    """A one-line progress bar on stderr for ``tweak enrol``."""
    out = out or sys.stderr
    width = 30
    filled = int(width * done / max(total, 1))
    out.write(f"\rlearning the deck [{'#' * filled}{'.' * (width - filled)}] {done}/{total} crops")
    if done >= total:
        out.write("\n")
    out.flush()
