"""The scanner's pipeline: frame -> mat and zones -> card detection -> crops -> classifier ->
cards with labels, corners from the printed top-left, confidence, zone, and the target."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scanner.find.detect import SETTINGS as DETECT_SETTINGS
from scanner.find.detect import (
    Detection,
    aspect_ratio,
    contained_share,
    detect_cards,
    fuse_outlines,
    lying_apart,
    side_contrasts,
)
from scanner.find.segment import input_width, out_to_the_card_edge, profiles_across_sides, snap_many
from scanner.geometry.crops import card_crop, order_portrait, rotate_corners, warp_crop
from scanner.geometry.mat import MatLayout, MatView, find_markers, find_mat, the_mats_own
from scanner.labels import BACKS, FACES, TWEAK_FACES, back_number, label_kind
from scanner.metrics import quad_iou
from scanner.read.classify import ANY_DECK_MODEL, DEFAULT_MODEL, MIN_CONFIDENCE, CardClassifier, ClassifierError
from scanner.read.words import (
    WordReader,
    WordReaderError,
    box_of,
    card_for_words,
    looks_the_same,
    number_read,
    shades,
)


@dataclass(frozen=True)
class ScanSettings:
    """Every threshold of the scan, one line each (why each value: ``docs/scanner.md``, figures in
    ``benchmarks/RESULTS.md``)."""

    gap_confidence: float = 0.75  # a card looked for beside others in a pile (finder missed it) needs this
    oversize: float = 1.6  # a quad longer (or larger) than this many typical cards holds touching cards
    #: an unsure quad at least this share of a typical card long is looked at again as a card (the
    #: second look): a dark card's bright printed shape, found alone where the card's edge hardly
    #: shows, is 0.57-0.6 of it; a corner index, a third
    part_length: float = 0.5
    too_long: float = 1.85  # in a pile picture, a quad this many times longer than wide too (a card: 1.4)
    sure: float = 0.85  # a card read under this is read again from slightly different quads (second look)
    second_look_gain: float = 0.15  # ... and such a reading replaces the first only if this much surer
    marker_check_below: float = 0.7  # a card read less surely is checked for lying on a mat's marker
    #: ... unless under this share of its outline is near-black (under ``marker_dark`` x its brightest
    #: twentieth): a marker is a black square more than half black, over half a card's area, so an
    #: outline on one is a third black at least; the markers' search is left undone on the others
    marker_dark_share: float = 0.15
    marker_dark: float = 0.5
    #: a marker under an outline is about the outline's size: one whose perimeter is under this share
    #: of the searched neighbourhood's longer side is not looked for (markers under card-shaped
    #: outlines of 1 to 2.5 cards on rendered mats: 448 of 450 found either way, none differing)
    marker_min_perimeter: float = 0.3
    same_card_iou: float = 0.35  # two cards of one label overlapping this much are one card outlined twice
    angle_sure: float = 0.97  # a card whose angle the finder's votes agree on this well is not turned
    angle_doubted: float = 0.9  # ... one whose votes agree less is looked at again unless read surer than
    recheck_below: float = 0.93  # this (an outline along a diamond printed on a card can read surely wrong)
    edge_fit_gain: float = (
        1.2  # a doubted angle's new outline, read surer by less, wins if it fits edges this much better
    )
    same_place_iou: float = 0.5  # a second look's quad overlapping a card's whole outline this much is on that card
    relabel_fit_floor: float = 0.5  # a new outline that relabels a card must fit the edges this share as well
    no_card_doubt: float = 0.5  # a quad first read as no card counts at most this sure of it
    #: ... and one that is a card's print alone (its outline inside the second look's quad, this
    #: share of it, and at most ``print_area`` of its area) is not held to ``relabel_fit_floor``
    print_inside: float = 0.9
    print_area: float = 0.75
    cut_part_area: float = 0.75  # a part cut out of a rejected quad has at least this share of a typical card's area
    two_cards: float = 1.4  # an outline this many times a card's area holds two touching cards
    overlapping_fit: float = 0.25  # nested quads within this (log long side) of the typical card ...
    overlapping_iou: float = 0.5  # ... and overlapping under this IoU are two cards on each other
    touching_penalty: float = 0.8  # confidence factor for cards that touch or overlap another one
    beside_tweak_pile: float = 1.7  # the deck without a mat: the T! pile beside it (card lengths) ...
    tweak_pile_bonus: float = 3.0  # ... is worth this much nearness
    middle_weight: float = 2.0  # the frame's middle counts this much more than the centre cards' middle
    #: zero-shot (the any-deck network, no deck profile) the referee doubts a card read less surely
    #: than this (after ``touching_penalty``): on the tuning families' art, number cards read between
    #: 0.6 and 0.8 were 1 in 18 wrong (touching ones as often), above it 1 in 350 (RESULTS,
    #: twenty-seventh session). Its confidence is no probability on art it never saw: its bar is set
    #: on art it never saw.
    any_deck_sure: float = 0.8
    #: ... unless the first network (trained apart, on this project's own art) reads the card the
    #: same this surely: then it counts as read at the bar (under the bar, on the tuning families'
    #: art and the reference deck's, 66 such readings, none wrong; those it read the same less
    #: surely, 2 of 2 wrong)
    any_deck_vouched: float = 0.9
    #: an unsure reading is read for a T! card's printed name (``Scanner._named_by_word``, 15-25
    #: ms a card) where it gives the T! cards this much probability together: on the tuning
    #: families every T! card named was over it, and two thirds of the other unsure readings under
    word_tweak_share: float = 0.02
    #: at most this many readings a scan are read for a name, those giving the T! cards most first
    #: (and as many for a number, least sure first); the rest wait for the next frame, where what
    #: was read stands while its card lies still (``words.looks_the_same``, outlined this near:
    #: IoU): a camera's frames read each card once
    word_most: int = 4
    word_same_place: float = 0.85
    second_look_enrolled: bool = True  # the second look with a deck profile too (better on 10 of 10 decks: RESULTS)
    # with a deck profile, a quad read as one of the deck's enrolled cards less surely than this is
    # not one of them: the deck's own reader knows its cards, so its outline alone does not make it
    # a card (a score pad, a tile, another game's card); the same bar as the referee's noise
    enrolled_floor: float = 0.35
    # the learned finder knows cards about this long (share of the frame's width: the renders' median,
    # a camera at the mount's height); outlines between these many times longer (a camera nearer, a
    # photo of a few cards) make it look again at a width showing them so long (farther, it finds
    # small cards itself: RESULTS, sixteenth session) ...
    learned_card_length: float = 0.053
    rescale_between: tuple[float, float] = (1.3, 10.0)
    rescale_alone: float = 3.5  # ... but one outline alone longer than this is the play mat's printed line
    alone_edge_shown: float = 0.9  # ... unless the colour changes across each of its sides along this share
    # ... and an outline tiled by the finder's quads of the size it learned (each this share of it
    # or more, lying apart, together this share) is cards side by side, not one card seen nearer
    group_part: float = 0.15
    group_cover: float = 0.6
    #: zero-shot, a finder's quad the classifier reads as no card is a card all the same (read
    #: unsurely) when the finder is sure of its shape: its blob's mean card probability ...
    shape_finder_sure: float = 0.95  # ... is this or more
    shape_angle_agreement: float = 0.5  # ... its pixels' agreement on the card's angle
    shape_aspect: tuple[float, float] = (1.25, 1.6)  # ... long over short side (TWEAK 1.40)
    shape_area: tuple[float, float] = (0.65, 1.35)  # ... area, over the frame's usual card (3 cards or more)
    #: ... and an edge on every side: the colour changes across (Lab distance over the first) along
    #: this share of each side at least (a quad cut out of something larger, half a phone, has a side
    #: without one: on cluttered tables 11 such kept of 30, true cards 60 of 69)
    shape_edge_contrast: float = 10.0
    shape_edge_shown: float = 0.4
    #: ... and so few of them: at most this share of the cards read. Among a deck's cards, one or
    #: two of a kind the classifier does not know (6-17 read on the families' tables, 1 by shape);
    #: dozens among a few read are a rug's weave or a tiled floor, not cards (real photos: 13-63)
    shape_most: float = 0.5
    #: a card read as the back 7 that is blue and not dark is the special 7 (zero-shot), one read as
    #: the special 7 that is not, the back 7 (R1.5: the special card is blue, showing 7 on both
    #: sides; R1.2: backs are black): the median of its outline's pixels, OpenCV's hue (0-180) in
    #: this range, saturation and value over these (``Scanner._seven_by_colour``). On the
    #: seven families' tables the special cards were hue 95-113, saturation 134-207, value 120-230;
    #: backs dyed blue value 40 or under, grey ones saturation 45 or under (RESULTS, fifty-sixth session)
    special_hue: tuple[int, int] = (90, 135)
    special_saturation: int = 100
    special_value: int = 90
    #: zero-shot, a card read unsurely (under ``six_nine_below``) as the back 9 or a face's 6 (one
    #: glyph, turned) is the other where it looks far more like the other kind's cards of the frame
    #: read surely (``six_nine_sure``; R1.2: every back of a deck has one design): its nearest such
    #: card at most ``six_nine_ratio`` as far (a tiny Lab picture, either way up) as its own kind's
    #: nearest (``Scanner._six_or_nine``; chosen on the tuning families: RESULTS, fifty-seventh session)
    six_nine_below: float = 0.8
    six_nine_sure: float = 0.5
    six_nine_ratio: float = 0.6
    six_nine_size: tuple[int, int] = (8, 11)  # the tiny picture's width and height
    #: zero-shot, a card read as a colour's face that is dark is a back (R1.2: backs are black)
    #: where the frame's faces read surely (``six_nine_sure``) are light, one of that colour among
    #: them (``Scanner._dark_backs``): dark, at least ``dark_share`` of its inner pixels darker than
    #: ``dark_value`` (OpenCV's HSV value, 0-255); light, at most ``light_share`` (the median of the
    #: frame's sure faces, and one of the colour). At true outlines on 15 tables of each family's
    #: first deck, backs measured 0.58-0.89 dark (5-95 %; ribbon's white ones 0), faces 0-0.05 but
    #: texture's purple (up to 0.8) and dark's (0.86-0.93) (RESULTS, fifty-eighth session)
    dark_value: int = 80
    dark_share: float = 0.6
    light_share: float = 0.2
    #: with more than one core, the finder's network and the play mat's markers are looked for in
    #: threads of their own while the classical outlines are drawn (they leave Python's lock while
    #: they work): the same cards, about a quarter sooner on two cores (RESULTS, twenty-fourth session)
    beside_outlines: bool = True


SETTINGS = ScanSettings()

#: the second look's turns (radians) at the frame's card size: every 15 degrees (the angle taken
#: from a diamond printed on the face or from a checked cloth can be anything), and at the quad's
#: own size a quarter (long side taken across) and a little either way
TURNS = tuple(np.deg2rad(np.arange(0, 180, 15)))
NEAR_TURNS = (0.0, np.pi / 2, np.deg2rad(8), -np.deg2rad(8))
FIRST_TURNS = TURNS[::3]  # 0, 45, 90 and 135 degrees: tried first
STEADY_TURNS = (0.0, np.deg2rad(8), -np.deg2rad(8))  # for a card whose angle the finder is sure of


@dataclass
class ScannedCard:
    label: str
    corners: np.ndarray  # 4 x 2, clockwise from the card's printed top-left, frame pixels
    confidence: float
    zone: str | None
    touching: bool = False
    candidates: list[tuple[str, float]] = field(default_factory=list)  # the next readings, best first

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 4),
            "zone": self.zone,
        }
        if self.touching:
            out["touching"] = True
        return out


@dataclass
class ScanResult:
    cards: list[ScannedCard]
    target: int | None
    mat: MatView | None
    milliseconds: float
    rejected: int = 0  # quads the classifier called not-a-card

    def as_json(self, image: str) -> dict[str, Any]:
        return {"image": image, "cards": [c.as_json() for c in self.cards], "target": self.target}


class Scanner:
    """Turns frames into the cards on the table. One instance per camera; thread-compatible."""

    def __init__(
        self,
        classifier: CardClassifier | None = None,
        mat_layout: MatLayout | None = None,
        players: int | None = None,
        profile: Any = None,
        finder: Any = None,
        calibration: Any = None,
        ink: Any = None,
        any_deck: CardClassifier | None | bool = True,
        words: Any = True,
        pictures: bool = False,
    ) -> None:
        """``any_deck``: the classifier that reads cards when there is no deck profile; True (the
        default) takes the shipped one (``classify.ANY_DECK_MODEL``) with the shipped classifier,
        none with another (``classifier`` then reads every card); None: none. ``words``: what reads
        a T! card's printed name (``scanner.read.words.WordReader``); True (the default): the text
        networks where installed, made at the first card that needs them; None: no names read.
        ``pictures``: it scans pictures apart (``tweak scan``), not a camera's frames, so no next
        frame reads what a scan leaves unread: every card asked is read (``word_most`` unbound)."""
        self.classifier = classifier or CardClassifier()  # (a deck profile's features, and its labels)
        if any_deck is True:
            shipped = self.classifier.path.resolve() == DEFAULT_MODEL.resolve() and ANY_DECK_MODEL.exists()
            any_deck = CardClassifier(ANY_DECK_MODEL) if shipped else None
        if any_deck and (any_deck.labels != self.classifier.labels or any_deck.margin != self.classifier.margin):
            # (the scan cuts one crop for both and reads their labels by one list)
            raise ClassifierError(f"{any_deck.path}: its labels or crop margin differ from {self.classifier.path}'s")
        self.any_deck: CardClassifier | None = any_deck or None
        self.mat_layout = mat_layout
        self.players = players
        self.profile = profile
        self.finder = finder  # the learned card finder (scanner.find.segment), or None: classical detection
        self.calibration = calibration  # zones without a mat (scanner.geometry.calibration)
        self.ink = ink  # the faces' colour read from their ink (scanner.read.ink), or None
        self._words = words
        self.pictures = pictures
        # what the last scan read on cards, by what ("names", "numbers"): (outline, its box, the box's
        # shades, what was read) (``_read_unless_still``)
        self._read_before: dict[str, list[tuple[np.ndarray, tuple[int, int, int, int], np.ndarray, Any]]] = {}
        # the finder and the mat beside the outlines (``ScanSettings.beside_outlines``); a
        # benchmark of one core's time sets it False
        self.threaded = SETTINGS.beside_outlines and _cores() > 1
        self._threads: ThreadPoolExecutor | None = None
        self._threads_pid = 0
        # (made here, not at the first scan: scans from several threads would each make one; its
        # threads start at the first work given)
        self._own_threads()

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_threads": None}  # (a copy starts its own threads when it needs them)

    def _own_threads(self) -> ThreadPoolExecutor:
        """The scanner's threads; a forked process has none of its parent's: it makes its own."""
        if self._threads is None or self._threads_pid != os.getpid():
            self._threads = ThreadPoolExecutor(2, thread_name_prefix="scan")
            self._threads_pid = os.getpid()
        return self._threads

    def _beside(self, work: Any, *args: Any) -> Future:
        """``work(*args)`` started in one of the scanner's own threads."""
        return self._own_threads().submit(work, *args)

    @property
    def doubt_below(self) -> float | None:
        """The confidence under which the readings should be doubted, where the reader sets its
        own (a deck profile, or the any-deck network on a deck without one); None: the network's,
        which the referee knows."""
        if self.profile is not None:
            return self.profile.doubt_below
        return SETTINGS.any_deck_sure if self.any_deck is not None else None

    def scan(self, frame: np.ndarray, pile: bool = False, faint: bool = False) -> ScanResult:
        """The cards in ``frame``. ``pile``: a won pile spread out (scanner.piles), where cards lie
        side by side: a card the finder missed between or beside read cards is looked for there.
        ``faint``: with a deck profile, an outline read as one of the deck's cards under the floor
        (``enrolled_floor``) is kept at that confidence instead of left out (the referee's scan)."""
        started = time.perf_counter()
        looking = self.mat_layout is not None and self.threaded
        mat_found = self._beside(find_mat, frame, self.mat_layout) if looking else None
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        detections = self.find_cards(frame, gray, pile)
        if mat_found is not None:
            mat = mat_found.result()
        else:
            mat = find_mat(frame, self.mat_layout) if self.mat_layout is not None else None
        source = mat.normalise_colour(frame) if mat is not None else frame
        # a card outlined on the frame printed inside it (``Detection.framed``) is reported at its
        # edge; with a deck profile (which learned both cuts) it is read at both; zero-shot, at its
        # frame, where its print fills more of the crop: read at its edge, an unseen deck's backs
        # read as faces more often (RESULTS, forty-eighth session)
        zero_shot = self.profile is None
        framed = [i for i, d in enumerate(detections) if d.framed is not None and not zero_shot]
        cuts = [d.framed if d.framed is not None and zero_shot else d.corners for d in detections]
        crops = [card_crop(source, corners, self.classifier.margin) for corners in cuts]
        crops += [card_crop(source, detections[i].framed, self.classifier.margin) for i in framed]
        predictions = self._classify(crops)
        for i, at_frame in zip(framed, predictions[len(detections) :]):
            predictions[i] = _mean_reading(predictions[i], at_frame, self.classifier.labels)
        predictions = predictions[: len(detections)]
        # a card found where the finder is unsure (Detection.weak) is kept only if read surely, from
        # its outline or from one of the second look's (a washed-out card's outline is often off)
        weak = [
            d.weak and not (_accepted(p) and p.confidence >= SETTINGS.sure) for d, p in zip(detections, predictions)
        ]
        if self.profile is None or SETTINGS.second_look_enrolled:
            detections, predictions = self._second_look(source, detections, predictions, pile)
        keep = [
            not (i < len(weak) and weak[i]) or (_accepted(p) and p.confidence >= SETTINGS.sure)
            for i, p in enumerate(predictions)
        ]
        detections = [d for d, k in zip(detections, keep) if k]
        predictions = [p for p, k in zip(predictions, keep) if k]
        detections, predictions = self._split_merged(source, detections, predictions, pile)
        if pile:
            detections, predictions = self._fill_gaps(source, detections, predictions)
        if self.profile is None and self.ink is not None:
            predictions = self._read_ink(source, detections, predictions)
        cards: list[ScannedCard] = []
        rejected = 0
        # (not in a won pile's picture: its score counts every card's label, and a guess would count)
        by_shape = self._cards_by_shape(source, detections, predictions) if self.profile is None and not pile else set()
        vouched = self._vouched(source, detections, predictions)
        sure_untaught = self._sure_of_an_untaught_kind(source, detections, predictions)
        named = {} if pile else self._named_by_word(source, detections, predictions, vouched | sure_untaught)
        # (neither in a won pile's picture: its score counts every card's label)
        numbered = {} if pile else self._numbered(source, detections, predictions, vouched | sure_untaught | set(named))

        def a_card_by_its_shape(index: int, det: Detection) -> bool:  # (an outline all round, or the finder's)
            return (det.outlined and not det.unseen) or index in by_shape

        pairs = enumerate(zip(detections, predictions))
        unknown = {i for i, (d, p) in pairs if p.label == "none" and a_card_by_its_shape(i, d)}
        by_print = {} if pile else self._by_print(source, detections, predictions, unknown)
        named |= {i: label for i, label in by_print.items() if label in TWEAK_FACES}
        turned = (
            {}
            if pile
            else self._six_or_nine(source, detections, predictions, set(named) | set(numbered) | set(by_print))
        )
        darkened = (
            {}
            if pile
            else self._dark_backs(source, detections, predictions, set(named) | set(numbered) | set(by_print))
        )
        for index, (det, pred) in enumerate(zip(detections, predictions)):
            # (an unsure card on one of the mat's markers is the marker: a black square with a white
            # pattern, which the classifier can take for a back; a card lying on a marker hides it
            # and reads surely)
            on_marker = pred.confidence < SETTINGS.marker_check_below and _on_mat_marker(gray, det.corners, mat)
            # (an outline where the finder sees no card at all needs the classifier to see one)
            if on_marker or (pred.label == "none" and not a_card_by_its_shape(index, det)):
                rejected += 1
                continue
            if pred.label == "none":  # a card by its outline, in an art the classifier does not know
                pred = _best_card_reading(pred, self.classifier.labels)
            if index in named:  # its printed name read: that T! card, counted as read at the bar
                pred = replace(pred, label=named[index], upside_down=False)
            elif index in numbered:  # its printed target read: that back (its confidence as read)
                pred = replace(pred, label=numbered[index])
            elif index in by_print:  # a back's target read, or nothing read: that back, as unsure as read
                pred = replace(pred, label=by_print[index], upside_down=False)
            elif index in darkened:  # a face's reading on a dark card among light ones: a back
                nine = pred.label.endswith("-6")  # (its 6 is the back's 9 turned, as sure as read)
                back = self.classifier.labels.index(darkened[index])
                confidence = pred.confidence if nine else float(pred.probabilities[back])
                pred = replace(pred, label=darkened[index], confidence=confidence, upside_down=pred.upside_down != nine)
            elif index in turned:  # a 6 that is a back's 9, or a 9 that is a face's 6: the other way up
                pred = replace(pred, label=turned[index], upside_down=not pred.upside_down)
            recoloured = self._seven_by_colour(pred.label, source, det.corners)
            if recoloured is not None:
                pred = replace(pred, label=recoloured)
            # (a won pile spread out holds the deck's cards only; ``faint``: the referee's scan keeps
            # such an outline at its low confidence, as a card laid there that it cannot read)
            if not pile and not faint and self._not_of_the_deck(pred):
                rejected += 1
                continue
            corners = rotate_corners(det.corners, 2) if pred.upside_down else det.corners
            confidence = _as_reported(pred.confidence, det.touching)
            if index in vouched:
                confidence = max(confidence, SETTINGS.any_deck_sure)
            elif index in named:
                confidence = max(confidence, self.doubt_below or SETTINGS.any_deck_sure)
            elif index in sure_untaught:
                confidence = max(confidence, self.profile.doubt_below)
            order = np.argsort(pred.probabilities)[::-1][:3]
            labels = self.classifier.labels
            candidates = [(labels[i], float(pred.probabilities[i])) for i in order if labels[i] != "none"]
            relabelled = index in named or index in numbered or index in by_print or index in turned
            if relabelled or index in darkened or recoloured:
                candidates = [(pred.label, confidence), *(c for c in candidates if c[0] != pred.label)][:3]
            if mat is not None:
                zone = mat.zone_of(corners, self.players)
            elif self.calibration is not None:
                zone = self.calibration.zone_of(corners, (frame.shape[1], frame.shape[0]))
            else:
                zone = None
            cards.append(ScannedCard(pred.label, corners, confidence, zone, det.touching, candidates))
        if not pile:  # (a spread won pile holds cards of one label lying on each other: counted apart)
            cards = _drop_outlined_twice(cards)
        target = find_target(cards, (frame.shape[1], frame.shape[0]))
        return ScanResult(cards, target, mat, (time.perf_counter() - started) * 1000, rejected)

    def _cards_by_shape(self, frame: np.ndarray, detections: list[Detection], predictions: list[Any]) -> set[int]:
        """Which of the finder's quads read as no card are cards all the same, by their shape: zero-
        shot, the classifier's "no card" is worth little on an art it does not know (a T! card's
        back in another deck's art, even where it reads the deck's faces well), while the finder
        found a card's shape there, surely, of a card's proportions and the size of the frame's
        other cards, with an edge on every side (``ScanSettings.shape_*``), and a few of them only:
        many such shapes among a few cards read are the table's pattern. (Only without a deck
        profile: a profile knows the deck's backs and T! cards.)"""
        cards = [(d, p) for d, p in zip(detections, predictions) if p.label != "none"]
        if len(cards) < 3:
            return set()
        usual = float(np.median([d.area for d, _ in cards]))
        shaped = {
            i
            for i, (d, p) in enumerate(zip(detections, predictions))
            if p.label == "none"
            and not d.outlined
            and not d.weak
            and d.score >= SETTINGS.shape_finder_sure
            and d.angle_agreement >= SETTINGS.shape_angle_agreement
            and SETTINGS.shape_aspect[0] <= aspect_ratio(d.corners) <= SETTINGS.shape_aspect[1]
            and SETTINGS.shape_area[0] <= d.area / usual <= SETTINGS.shape_area[1]
            and side_contrasts(frame, d.corners, SETTINGS.shape_edge_contrast).min() >= SETTINGS.shape_edge_shown
        }
        return shaped if len(shaped) <= SETTINGS.shape_most * len(cards) else set()

    def find_cards(
        self, frame: np.ndarray, gray: np.ndarray | None = None, pile: bool = False, enrolment: bool = False
    ) -> list[Detection]:
        """The cards' outlines in ``frame`` before anything is read: the classical outlines and
        the learned finder's cards fused, a card's outline winning over its printed parts (``scan``'s
        first step; ``pile``: a won pile's picture, as in ``scan``; ``enrolment``: enrolment's
        outlines, as ``detect_cards``)."""
        if self.finder is None:
            outlines = detect_cards(frame, enrolment=enrolment)
            for d in outlines:
                d.outlined = True
            return _out_to_the_card_edges(frame, outlines)
        if gray is None:
            gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        # (the finder's first look does not need the outlines)
        first = self._beside(self.finder.find_and_map, frame, gray) if self.threaded else None
        outlines = detect_cards(frame, enrolment=enrolment)
        learned, prob = self._find(frame, gray, outlines, not pile, first.result() if first is not None else None)
        return _out_to_the_card_edges(frame, fuse_outlines(learned, outlines, prob, (frame.shape[1], frame.shape[0])))

    def _find(
        self,
        frame: np.ndarray,
        gray: np.ndarray,
        outlines: list[Detection],
        look_again: bool = True,
        first: tuple[list[Detection], np.ndarray] | None = None,
    ) -> tuple[list[Detection], np.ndarray]:
        """``finder_cards`` with this scanner's finder."""
        return finder_cards(self.finder, frame, gray, outlines, look_again, first)

    def _not_of_the_deck(self, pred: Any) -> bool:
        """With a deck profile: read as one of the deck's enrolled cards, but too unsurely to be one
        (labels without photos are the shipped model's, and keep its outline rule)."""
        profile = self.profile
        if profile is None or pred.label not in profile.photos:
            return False
        # (a reading the second word split among its kind is unsure which card, not whether one)
        share = profile.share_of_design(pred.label, pred.probabilities, self.classifier.labels)
        return max(pred.confidence, share) < SETTINGS.enrolled_floor

    def _untaught_share(self, pred: Any) -> float:
        """With a deck profile that has no photo of some kinds of card, the probability a reading
        of a kind it has gives those kinds (``DeckProfile.untaught_share``): the any-deck network
        takes this deck's T! cards for faces, so such a reading is never sure which card, and
        looking again at other quads would not make it surer. 0 without."""
        if self.profile is None or pred.label == "none":
            return 0.0
        return self.profile.untaught_share(pred.label, pred.probabilities, self.classifier.labels)

    def _sure_of_an_untaught_kind(self, source: np.ndarray, detections: list[Any], predictions: list[Any]) -> set[int]:
        """With a deck profile that has no photo of some kinds of card (``DeckProfile.untaught``:
        only the T! cards enrolled), which readings of those kinds count as sure: those the
        any-deck network reads the same, as surely as it must without a profile
        (``any_deck_sure``, a card touching another counting less) or vouched for by the first
        network (``any_deck_vouched``), as ``_vouched``. (The profile's own bar is for its own
        reader; these labels are that network's word.)"""
        profile = self.profile
        if profile is None or profile.network_word is None or self.any_deck is None:
            return set()
        untaught = profile.untaught
        asked = [
            i
            for i, (d, p) in enumerate(zip(detections, predictions))
            if p.label != "none"
            and label_kind(p.label) in untaught
            and _as_reported(p.confidence, d.touching) < profile.doubt_below
        ]
        if not asked:
            return set()
        crops = {i: card_crop(source, detections[i].corners, self.classifier.margin) for i in asked}
        words = self.any_deck.classify(list(crops.values()))
        named = [(i, p) for i, p in zip(asked, words) if p.label == predictions[i].label]
        sure = {i for i, p in named if _as_reported(p.confidence, detections[i].touching) >= SETTINGS.any_deck_sure}
        doubted = [i for i, _ in named if i not in sure]
        return sure | self._first_network_vouches([crops[i] for i in doubted], doubted, predictions)

    @property
    def words(self) -> Any:
        """The reader of T! cards' printed names (``scanner.read.words``), or None where none is
        wanted or its networks are not installed (said once in the log)."""
        if self._words is True:
            try:
                self._words = WordReader()
            except WordReaderError as error:
                logging.getLogger(__name__).warning("T! cards' names not read: %s", error)
                self._words = None
        return self._words

    def _named_by_word(
        self, source: np.ndarray, detections: list[Any], predictions: list[Any], settled: set[int]
    ) -> dict[int, str]:
        """The T! cards among the unsure readings named by the word printed on them (index: label):
        zero-shot no network can tell which of an unseen art's pictures is which kind, but every
        edition prints the kind's name. Read: where the reader does not know the deck's T! cards (no
        deck profile, or one without their photos), the unsure readings that give the T! cards some
        probability together (``word_tweak_share``); with a profile that learned them (one photo
        each), its unsure readings of a T! card (pips' second deck: shifters read as thieves at
        0.56-0.93); at most ``word_most`` a scan, most first. A sure one is left as read (the text
        networks cost some 15-25 ms a card and 65 MiB, loaded at the first card asked). A name read
        in the last scan stands for its card while it lies still, so a camera's frames read each
        card once. ``settled``: readings already counted sure otherwise."""
        # (a deck's reader that learned its T! cards: only its unsure readings of one are asked)
        taught = self.profile is not None and "tweak" not in self.profile.untaught
        bar = self.doubt_below or SETTINGS.any_deck_sure
        tweak = [self.classifier.labels.index(label) for label in TWEAK_FACES]
        asked = [
            i
            for i, (d, p) in enumerate(zip(detections, predictions))
            if i not in settled
            # (zero-shot a card read as no card is read for all its print by ``_by_print``)
            and not (p.label == "none" and self.profile is None)
            and _as_reported(p.confidence, d.touching) < bar
            and (
                p.label in TWEAK_FACES
                or (not taught and float(p.probabilities[tweak].sum()) >= SETTINGS.word_tweak_share)
            )
        ]
        if not asked or self.words is None:
            return {}
        asked.sort(key=lambda i: -float(predictions[i].probabilities[tweak].sum()))
        named = self._read_unless_still(source, detections, predictions, asked, "names", self.words.kind_on)
        return {i: f"tweak-{kind}" for i, kind in named.items() if kind is not None}

    def _numbered(
        self, source: np.ndarray, detections: list[Any], predictions: list[Any], settled: set[int]
    ) -> dict[int, str]:
        """The unsure readings of a back whose printed number was read (index: label): a back's
        target 7-10 names it (R1.2), whatever the deck's art (a face's value is not asked: its
        corner index, small and often slanted, was read wrong surely); the reading's confidence is
        left as it was. At most ``word_most`` read a scan, least sure first, a number read
        standing while its card lies still, as names do. ``settled``: readings already counted
        sure otherwise. With a deck profile only: zero-shot the tuning families' backs were read
        surely or as faces (none put right on 60 tables), and each read costs 11-32 ms. Read as
        the card's outline was found, not the way up its reading says as names are (drawn so, the
        strip family's backs read 5 cards fewer right, the tuning families' none more)."""
        if self.profile is None:
            return {}
        bar = self.profile.doubt_below
        asked = [
            i
            for i, (d, p) in enumerate(zip(detections, predictions))
            if i not in settled and _as_reported(p.confidence, d.touching) < bar and p.label in BACKS
        ]
        if not asked or self.words is None:
            return {}
        asked.sort(key=lambda i: predictions[i].confidence)
        read = self._read_unless_still(source, detections, None, asked, "numbers", self.words.numbers)
        targets = {i: number_read(numbers, range(7, 11)) for i, numbers in read.items()}
        return {
            i: f"back-{target}"
            for i, target in targets.items()
            if target is not None and f"back-{target}" != predictions[i].label
        }

    def _by_print(
        self, source: np.ndarray, detections: list[Any], predictions: list[Any], unknown: set[int]
    ) -> dict[int, str]:
        """Zero-shot, the cards found by their shape that the networks read as no card at all
        (``unknown``: indices) named by what is printed on them (index: label): a T! kind whose
        name is read; a back whose target is the one number read (R1.2, as ``_numbered``; a 6
        read both ways up is no one number); else, where no numeral is read at all, the T! back
        (R1.4: the T! cards share one back, whatever the deck's art). The any-deck network reads
        an unseen deck's number cards and backs as cards; what it takes for no card though a card
        lies there is mostly the T! pile's top, in an art no network saw (nearly every T! back of
        the tuning families), and every number card prints its value or target (R1.1, R1.2): a
        numeral read rules the T! back out. Not where the reading's likeliest card is a T! card
        (a deck whose T! faces were read so lost three read right). At most ``word_most`` a scan,
        those read most surely as no card first (the T! pile's top reads so), cached as names."""
        if self.profile is not None or not unknown:
            return {}
        labels = self.classifier.labels
        read_as_cards = [d.corners for d, p in zip(detections, predictions) if p.label != "none"]
        asked = sorted(
            (
                i
                for i in unknown
                # (one overlapping a card read as one is that card outlined twice: ``_drop_outlined_twice``
                # drops it by its reading's label, a T! back's would keep it as a false card)
                if not any(quad_iou(detections[i].corners, q) >= SETTINGS.same_card_iou for q in read_as_cards)
            ),
            key=lambda i: -float(predictions[i].confidence),
        )
        if not asked or self.words is None:
            return {}
        read = self._read_unless_still(source, detections, predictions, asked, "print", self.words.printed)
        labelled: dict[int, str] = {}
        for i, (kind, numbers) in read.items():
            number = number_read(numbers, range(1, 11))
            if kind is not None:
                labelled[i] = f"tweak-{kind}"
            elif number is not None and number >= 7:  # a back's target (R1.2; a face's value names no colour)
                labelled[i] = f"back-{number}"
            elif not numbers and label_kind(_best_card_reading(predictions[i], labels).label) != "tweak":
                labelled[i] = "tweak-back"
        return labelled

    def _six_or_nine(
        self, source: np.ndarray, detections: list[Any], predictions: list[Any], settled: set[int]
    ) -> dict[int, str]:
        """Zero-shot, the cards read unsurely as the back 9 or a face's 6 that are the other
        (index: label): a 6 turned is a 9, and the any-deck network, which never saw the deck,
        takes one for the other (on the dark family, 13 faces' 6 read as back 9s on 60 tables).
        What tells them apart is the card, not the glyph: every back of a deck has one design (R1.2)
        and the faces another, so such a card is the other kind where it looks far more like the
        frame's cards read surely as that kind (``six_nine_ratio``) than like those read as its
        own; the 9 then the back 9, the 6 the likeliest face's 6. Their confidence stays as read.
        Not where the frame holds no such backs or no such faces, nor for ``settled`` cards (named,
        numbered), nor with a deck profile (the deck's reader learned its backs)."""
        if self.profile is not None:
            return {}
        labels = self.classifier.labels

        def six_or_nine(label: str) -> bool:
            return label == "back-9" or (label in FACES and label.endswith("-6"))

        asked = [
            i
            for i, p in enumerate(predictions)
            if i not in settled and six_or_nine(p.label) and p.confidence < SETTINGS.six_nine_below
        ]
        sure = [
            i for i, p in enumerate(predictions) if p.confidence >= SETTINGS.six_nine_sure and not six_or_nine(p.label)
        ]
        backs = [i for i in sure if predictions[i].label in BACKS]
        faces = [i for i in sure if predictions[i].label in FACES]
        if not asked or not backs or not faces:
            return {}
        looks = {i: _tiny_look(source, detections[i].corners) for i in asked + backs + faces}

        def nearest(i: int, others: list[int]) -> float:
            return min(_looks_apart(looks[i], looks[j]) for j in others)

        sixes = [k for k, label in enumerate(labels) if label in FACES and label.endswith("-6")]
        turned: dict[int, str] = {}
        for i in asked:
            to_backs, to_faces = nearest(i, backs), nearest(i, faces)
            if predictions[i].label == "back-9" and to_faces < SETTINGS.six_nine_ratio * to_backs:
                turned[i] = labels[max(sixes, key=lambda k: predictions[i].probabilities[k])]
            elif predictions[i].label != "back-9" and to_backs < SETTINGS.six_nine_ratio * to_faces:
                turned[i] = "back-9"
        return turned

    def _dark_backs(
        self, source: np.ndarray, detections: list[Any], predictions: list[Any], settled: set[int]
    ) -> dict[int, str]:
        """Zero-shot, the cards read as faces that are backs (index: label): dark cards read as a
        colour's face where the frame's faces read surely are light, that colour's among them
        (``dark_value``, ``dark_share``, ``light_share``). R1.2: a numeric card's back is black,
        its target (7-10) printed on it; the any-deck network reads an unseen deck's back tinted
        in a colour, or printed in one, as a face of that colour, its 9 as the face's 6 turned
        (the tuning families' second and third decks: pips' green backs, texture's blue ones). A
        deck draws a colour's faces alike, so a dark card among light faces of its colour is none
        of them; a deck may draw one colour's faces dark (texture's purple) or all of them (the
        dark family): then none of that colour is light, or the frame's faces are mostly dark. A 6
        read on such a card is its 9 (faces show 1-6, backs 7-10: R1.1, R1.2), kept as sure as
        read; another value names no target: the network's likeliest back, as unsure as the
        network is of it. Not for ``settled`` cards (named, numbered), nor with a deck profile
        (the deck's reader learned its backs)."""
        if self.profile is not None:
            return {}
        faces = [i for i, p in enumerate(predictions) if p.label in FACES and i not in settled]
        if len(faces) < 2:
            return {}
        dark = {i: _dark_share(source, detections[i].corners) for i in faces}
        sure = [i for i in faces if predictions[i].confidence >= SETTINGS.six_nine_sure]
        if len(sure) < 2 or float(np.median([dark[i] for i in sure])) > SETTINGS.light_share:
            return {}  # (the deck's faces are dark: the dark family's)
        labels = self.classifier.labels
        backs = [labels.index(label) for label in BACKS]
        found: dict[int, str] = {}
        for i in faces:
            if dark[i] < SETTINGS.dark_share:
                continue
            colour = predictions[i].label.split("-")[0]
            alike = [dark[j] for j in sure if j != i and predictions[j].label.split("-")[0] == colour]
            if alike and min(alike) <= SETTINGS.light_share:
                found[i] = (
                    "back-9"
                    if predictions[i].label.endswith("-6")
                    else labels[max(backs, key=lambda k: predictions[i].probabilities[k])]
                )
        return found

    def _seven_by_colour(self, label: str, frame: np.ndarray, corners: np.ndarray) -> str | None:
        """The special card for a card read as the back 7 that is blue, zero-shot (the any-deck
        network reads the 7, not which card it is on); the back 7 for one read as the special card
        that is not blue (a deck's reader, too, can take a back 7 under glare for it). R1.5: the
        special card is blue, a 7 on both sides; R1.2: backs are black. None: the reading stands."""
        if label == "back-7" and self.profile is None and _blue_card(frame, corners):
            return "special-7"
        if label == "special-7" and not _blue_card(frame, corners):
            return "back-7"
        return None

    def _read_unless_still(
        self,
        source: np.ndarray,
        detections: list[Any],
        predictions: list[Any] | None,
        asked: list[int],
        what: str,
        read: Callable[[np.ndarray], Any],
    ) -> dict[int, Any]:
        """``read`` of each card of ``asked`` (indices, most wanted first) drawn upright
        (``card_for_words``) the way up its reading in ``predictions`` says (the text detector
        finds a line turned over less often, though the recogniser reads it both ways; None: as
        its outline was found), at most ``word_most`` read now (every one in ``pictures``); a card
        read in the last scan (of ``what`` is read) that lies still keeps that reading: the frame's
        pixels in its box keep their shades (``looks_the_same``) and it is outlined there again
        (``word_same_place``)."""
        done: dict[int, Any] = {}
        read_now = 0
        still: list[tuple[np.ndarray, tuple[int, int, int, int], np.ndarray, Any]] = []
        # readings before whose card lies still (each compared once; those not asked now are kept for
        # a card read surely in this frame and unsurely in the next)
        # (each kept entry: as read before, and its box's shades now)
        kept = [
            (entry, shade)
            for entry in self._read_before.get(what, [])
            if looks_the_same(entry[2], shade := shades(source, entry[1]))
        ]
        used: set[int] = set()
        for i in asked:
            corners = detections[i].corners
            near = [quad_iou(entry[0], corners) >= SETTINGS.word_same_place for entry, _ in kept]
            earlier = [k for k, close in enumerate(near) if close]
            if earlier:
                used.add(earlier[0])
                (_, box, _, done[i]), shade = kept[earlier[0]]
            elif self.pictures or read_now < SETTINGS.word_most:
                turned = predictions is not None and predictions[i].upside_down
                upright = rotate_corners(corners, 2) if turned else corners
                done[i] = read(card_for_words(source, upright))
                box = box_of(corners, source)
                shade = shades(source, box)
                read_now += 1
            else:
                continue
            still.append((corners, box, shade, done[i]))
        self._read_before[what] = still + [entry for k, (entry, _) in enumerate(kept) if k not in used]
        return done

    def _read_ink(self, source: np.ndarray, detections: list[Any], predictions: list[Any]) -> list[Any]:
        """Each card the network reads as a face, unsure of its colour, with its colour read again
        from its ink too (``scanner.read.ink``), in the frame's light made neutral by all its cards'
        white: the network knows the colours of the project's art, the ink's hue those of any deck.
        (Without a deck profile: a profile learned the deck's own colours.)"""
        from scanner.read.classify import Prediction
        from scanner.read.ink import frame_gains, ink_features, network_sure_of_colour, reweigh_faces

        labels = self.classifier.labels
        faces = [
            i
            for i, p in enumerate(predictions)
            if p.label in FACES and not network_sure_of_colour(p.probabilities, labels, self.ink.colours)
        ]
        if not faces:  # (the project's own art, nearly always: no more work)
            return predictions
        crops = [card_crop(source, d.corners, self.classifier.margin) for d in detections]
        colours = self.ink.posteriors(ink_features([crops[i] for i in faces], frame_gains(crops)))
        face_columns = np.array([k for k, label in enumerate(labels) if label in FACES])
        out = list(predictions)
        for i, colour in zip(faces, colours):
            p = reweigh_faces(predictions[i].probabilities, labels, colour, self.ink)
            best = int(face_columns[p[face_columns].argmax()])  # (a face stays a face: only its colour is asked)
            out[i] = Prediction(labels[best], float(p[best]), predictions[i].upside_down, p)
        return out

    def _vouched(self, source: np.ndarray, detections: list[Any], predictions: list[Any]) -> set[int]:
        """Which of the any-deck network's readings that would count under its bar
        (``ScanSettings.any_deck_sure``; a card touching another counts less) the first network
        reads the same surely (``any_deck_vouched``): those count as read at the bar. (Zero-shot
        only: a deck profile keeps its own bar.)"""
        if self.profile is not None or self.any_deck is None:
            return set()
        doubted = [
            i
            for i, (d, p) in enumerate(zip(detections, predictions))
            if p.label != "none"
            and p.confidence >= MIN_CONFIDENCE
            and _as_reported(p.confidence, d.touching) < SETTINGS.any_deck_sure
        ]
        if not doubted:
            return set()
        crops = [card_crop(source, detections[i].corners, self.classifier.margin) for i in doubted]
        return self._first_network_vouches(crops, doubted, predictions)

    def _first_network_vouches(self, crops: list[np.ndarray], indices: list[int], predictions: list[Any]) -> set[int]:
        """Which of ``indices`` (their ``crops``) the first network reads as ``predictions`` does,
        surely (``ScanSettings.any_deck_vouched``)."""
        if not indices:
            return set()
        return {
            i
            for i, first in zip(indices, self.classifier.classify(crops))
            if first.label == predictions[i].label and first.confidence >= SETTINGS.any_deck_vouched
        }

    def _classify(self, crops: list[np.ndarray], turned: bool = True) -> list[Any]:
        if self.profile is not None:
            return self.profile.classify(self.classifier, crops, self.any_deck)
        return (self.any_deck or self.classifier).classify(crops, turned)

    def _second_look(self, source: np.ndarray, detections: list[Any], predictions: list[Any], pile: bool = False):
        """A card read without confidence is mostly a quad put a little wrong (the long side taken
        across the card, the angle off, a partly hidden card outlined short, an outline straddling
        two touching cards): read it again as card-shaped quads at the same place, turned, at its
        own size and the size of the cards read surely in the frame, then beside that place, and
        keep the reading that is clearly surer (put back on the card's edges). A card whose angle
        the finder is sure of (``Detection.angle_agreement``) is not turned: turned off a card
        outlined well, a blurred or tinted numeral can read surely as the next value. ``pile``:
        quads far longer than a card are left to ``_split_merged``."""

        def doubtful(d: Any, p: Any) -> bool:
            certain = p.confidence + self._untaught_share(p)
            return (
                certain < SETTINGS.sure
                or (d.angle_agreement < SETTINGS.angle_doubted and certain < SETTINGS.recheck_below)
                # (a deck's own reader takes a part of a card for no card, surely: a quad put across
                # a dark card whose edge hardly shows is one; zero-shot, ``_cards_by_shape`` keeps it)
                or (self.profile is not None and p.label == "none" and not d.weak)
            )

        sure_quads = [
            np.asarray(d.corners, np.float32).reshape(4, 2)
            for d, p in zip(detections, predictions)
            if _accepted(p) and not doubtful(d, p)
        ]
        typical = float(np.median([_sides(q)[1] for q in sure_quads])) if sure_quads else None

        def inside_sure_card(corners: np.ndarray) -> bool:  # found twice: left to _drop_nested
            centre = tuple(map(float, np.asarray(corners, np.float32).reshape(4, 2).mean(axis=0)))
            return any(cv2.pointPolygonTest(q.reshape(-1, 1, 2), centre, False) > 0 for q in sure_quads)

        unsure = [
            i
            for i, (d, p) in enumerate(zip(detections, predictions))
            if doubtful(d, p)
            # a quad much longer than the cards read well holds several: _split_merged cuts it
            and not (pile and _far_too_long(d.corners))
            and (_card_sized(d.corners, typical) if typical is not None else p.label != "none")
            and not inside_sure_card(d.corners)
            # (zero-shot, a card outlined whole read surer only from a quad turned or moved off
            # its outline is noise of a classifier that does not know the art; a deck's own reader
            # knows its cards, and the look mends a loose outline: RESULTS, ninth session)
            and not (self.profile is None and _outlined_card(d))
        ]
        if not unsure:
            return detections, predictions

        gray = cv2.cvtColor(source, cv2.COLOR_BGR2GRAY)

        def readable(variants: list[tuple[int, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
            return [(i, q) for i, q in variants if not inside_sure_card(q)]

        frames = {}  # each unsure card's centre, long-side angle and lengths to try
        for i in unsure:
            centre, angle, own = _placement(detections[i].corners)
            frames[i] = (centre, angle, own, typical or own)
        # first the same place turned; for those still unsure, places beside it (an outline that
        # straddles two touching cards, across or along them)
        # (a card whose angle the finder is sure of: only a little either way, at both sizes)
        steady = {i for i in unsure if detections[i].angle_agreement >= SETTINGS.angle_sure}
        turned = [
            (i, _card_rect(centre, length, angle + turn))
            for i, (centre, angle, own, size) in frames.items()
            for length, turns in ((own, NEAR_TURNS), (size, FIRST_TURNS))
            for turn in (STEADY_TURNS if i in steady else turns)
        ]
        # the finder's own guess at the blob, before the fit to the edges (which a checked cloth or
        # a touching card can pull astray): its place, both ways round
        for i in unsure:
            guess = detections[i].guess
            if guess is None:
                continue
            centre, angle, own = _placement(guess)
            for length in {own} | ({typical} if typical else set()):
                turned += [
                    (i, _card_rect(centre, length, angle + turn))
                    for turn in ((0.0,) if i in steady else (0.0, np.pi / 2))
                ]
        # (a quad moved onto a card already read surely would take that card's reading for this one)
        best = self._best_variants(source, gray, readable(turned), predictions, detections)

        def still_unsure(i: int) -> bool:  # (a reading found surer but still under SETTINGS.sure goes on looking)
            return i not in best or best[i][1].confidence < SETTINGS.sure

        def surer(found: dict[int, tuple[np.ndarray, Any]]) -> None:
            for i, (quad, pred) in found.items():
                if i not in best or pred.confidence > best[i][1].confidence:
                    best[i] = (quad, pred)

        # still unsure: the other angles (the few hard cards, not every unsure one, pay for these;
        # not in a pile picture, where many cards are unsure and a quad at the wrong angle is rarer
        # than one across two cards)
        swept = [
            (i, _card_rect(centre, size, angle + turn))
            for i, (centre, angle, _, size) in frames.items()
            if still_unsure(i) and i not in steady and not pile
            for turn in TURNS
            if turn not in FIRST_TURNS
        ]
        surer(self._best_variants(source, gray, readable(swept), predictions, detections))
        if typical is not None:  # (a card's size is needed to tell an outline straddling two)
            shifted = [
                (i, _card_rect(centre + shift, typical, angle + turn))
                for i, (centre, angle, _, _) in frames.items()
                if still_unsure(i)
                for turn in (0.0, np.pi / 2)
                for shift in _shifts(typical, angle + turn)
            ]
            surer(self._best_variants(source, gray, readable(shifted), predictions, detections))
        # two unsure outlines can be moved onto one card (an outline straddling two touching cards
        # and the outline of one of them): the one read surest keeps it, the other stays as it was
        # (for _split_merged to cut). (By least moved, as before, an outline turned half onto its
        # neighbour and read unsurely wrong took the place of the neighbour read surely: the surest
        # first mends 3 missed cards and 2 false ones on the benchmark's 3,500 frames, none lost.)
        claimed = [
            np.asarray(d.corners, np.float32).reshape(4, 2)
            for i, (d, p) in enumerate(zip(detections, predictions))
            if _accepted(p) and i not in best
        ]
        for i in sorted(best, key=lambda i: -best[i][1].confidence):
            centre = tuple(map(float, best[i][0].mean(axis=0)))
            if any(cv2.pointPolygonTest(q.reshape(-1, 1, 2), centre, False) > 0 for q in claimed):
                del best[i]
            else:
                claimed.append(best[i][0])
        if not best:
            return detections, predictions
        # put on the edges once more, from nearer (measured: reading the quad as first snapped loses
        # 4 frames in 1,000)
        order = list(best)
        snapped = snap_many(gray, [best[i][0] for i in order])
        again = self._classify([card_crop(source, q, self.classifier.margin) for q in snapped])
        # an outline about two cards large that now holds one: the other card lies opposite
        other_half = []
        for i, fitted in zip(order, snapped):
            first, card = detections[i].corners, best[i][0]
            if _area(first) > SETTINGS.two_cards * min(_area(card), _area(fitted)):
                other_half.append((i, card + 2 * (np.asarray(first, np.float32).mean(axis=0) - card.mean(axis=0))))
        other_half = [(i, q) for i, q in other_half if not inside_sure_card(q)]
        other_half = list(zip([i for i, _ in other_half], snap_many(gray, [q for _, q in other_half])))
        beside = self._classify([card_crop(source, q, self.classifier.margin) for _, q in other_half])
        detections, predictions = list(detections), list(predictions)
        for i, quad, pred in zip(order, snapped, again):
            if not (pred.label == best[i][1].label and pred.confidence >= MIN_CONFIDENCE):
                quad, pred = best[i]
            # (an outline found surer but, put on the edges once more, reading the first label less
            # surely than the first outline did is no better: the T! pile outlined well at 0.91 was
            # moved half off at 0.80)
            if pred.label == predictions[i].label and pred.confidence < predictions[i].confidence:
                continue
            lies = _where_it_lies(gray, detections[i], quad)
            if lies is not quad and predictions[i].label not in ("none", pred.label):
                # the card lies at its whole outline, read there as another card than from the quad
                # beside it: two looks at one card that disagree are not sure of either (a strip
                # deck's 6 read as a 4 surely from a quad a few pixels off, unsurely as a 2 at its
                # outline; published as a sure discard: RESULTS, fifty-first session)
                pred = _mean_reading(predictions[i], pred, self.classifier.labels)
            detections[i] = Detection(lies, detections[i].score, touching=detections[i].touching)
            predictions[i] = pred
        for (i, quad), pred in zip(other_half, beside):
            if _accepted(pred) and pred.confidence >= SETTINGS.gap_confidence:
                detections.append(Detection(quad, 1.0, touching=True))
                predictions.append(pred)
                detections[i].touching = True
        return detections, predictions

    def _best_variants(
        self,
        source: np.ndarray,
        gray: np.ndarray,
        variants: list[tuple[int, np.ndarray]],
        predictions: list[Any],
        detections: list[Any],
    ) -> dict[int, tuple[np.ndarray, Any]]:
        """For each card, the variant quad (put on the edges near it) that reads clearly surer than
        its first reading (and, for a card read surely, as the same card unless it lies on the
        card's edges better: ``_relabels_sure``), or surer at all from an outline lying on the edges
        much better than a doubted first one (``SETTINGS.edge_fit_gain``)."""
        if not variants:
            return {}
        # each guess put on the edges near it first: a guess turned or shifted a little off the card
        # reads unsure, and the sides found near it are the card's
        variants = list(zip([i for i, _ in variants], snap_many(gray, [q for _, q in variants])))
        found = self._classify([card_crop(source, q, self.classifier.margin) for _, q in variants], turned=False)
        best: dict[int, tuple[np.ndarray, Any]] = {}
        for (i, quad), pred in zip(variants, found):
            first = predictions[i].confidence
            if not _accepted(predictions[i]):  # read as no card: a card read there must beat this much
                first = min(first, SETTINGS.no_card_doubt)
            # clearly surer; for a card read surely from a doubtful outline, surer than SETTINGS.recheck_below
            bar = max(
                min(first + SETTINGS.second_look_gain, max(first, SETTINGS.recheck_below)),
                best[i][1].confidence if i in best else 0.0,
            )
            if _accepted(pred) and pred.confidence > bar:
                if pred.label != predictions[i].label:  # (each outline's edge fit computed once)
                    fit, first_fit = _edge_fit(gray, quad), _edge_fit(gray, detections[i].corners)
                    worse = fit <= first_fit  # (not ``_fits_edges_better``)
                    if (_relabels_sure(predictions[i], pred) and worse) or (
                        fit < SETTINGS.relabel_fit_floor * first_fit
                        and not self._card_around_its_print(predictions[i], detections[i].corners, quad)
                    ):
                        continue
                best[i] = (quad, pred)
            elif (
                _accepted(pred)
                and pred.confidence > max(first, best[i][1].confidence if i in best else 0.0)
                and detections[i].angle_agreement < SETTINGS.angle_doubted
                and _edge_fit(gray, quad) > SETTINGS.edge_fit_gain * _edge_fit(gray, detections[i].corners)
            ):
                best[i] = (quad, pred)
        return best

    def _card_around_its_print(self, first: Any, outline: np.ndarray, quad: np.ndarray) -> bool:
        """Whether a second look's ``quad``, read as one of the deck's cards, is the card around
        an ``outline`` first read as no card that is only its printed shape: a dark card on a dark
        table shows no edge of its own, and its bright print is outlined alone. Such a card's
        outline cannot fit the image's edges as well as the print's (``relabel_fit_floor``), but
        the print lies inside it (``SETTINGS.print_inside``), smaller (``print_area``). Only with a
        deck profile: the deck's own reader knows its cards whole; zero-shot a card read surely
        from a quad around something read as no card is the classifier's guess at an unknown art."""
        return (
            self.profile is not None
            and first.label == "none"
            and _area(outline) <= SETTINGS.print_area * _area(quad)
            and contained_share(quad, outline) >= SETTINGS.print_inside
        )

    def _fill_gaps(self, source: np.ndarray, detections: list[Any], predictions: list[Any]):
        """Spread cards lie side by side: one card length or width beside each card read, where no
        card was found, a quad of the same shape is read; a sure card there is kept (twice, so a
        run of missed cards is followed)."""
        height, width = source.shape[:2]
        seeds: list[np.ndarray] | None = None  # the cards to look beside: all, then the ones just found
        for _ in range(2):
            quads = [np.asarray(d.corners, np.float32).reshape(4, 2) for d, p in zip(detections, predictions)]
            read = [q for q, p in zip(quads, predictions) if _accepted(p)]
            if not read:
                break
            proposals: list[np.ndarray] = []
            for q in read if seeds is None else seeds:
                q = order_portrait(q)
                across, down = q[1] - q[0], q[3] - q[0]
                for shift in (1.04 * across, -1.04 * across, 1.03 * down, -1.03 * down):
                    cand = q + shift
                    cx, cy = cand.mean(axis=0)
                    if not (0 <= cx < width and 0 <= cy < height):
                        continue
                    if any(quad_iou(cand, other) > 0.15 for other in read + proposals):
                        continue
                    proposals.append(cand)
            if not proposals:
                break
            found = self._classify([card_crop(source, q, self.classifier.margin) for q in proposals])
            added = [
                (q, p) for q, p in zip(proposals, found) if _accepted(p) and p.confidence >= SETTINGS.gap_confidence
            ]
            if not added:
                break
            # a quad rejected where a card is now found was that card, cut wrongly
            kept = [
                i
                for i, q in enumerate(quads)
                if _accepted(predictions[i]) or not any(quad_iou(q, a) > 0.3 for a, _ in added)
            ]
            detections = [detections[i] for i in kept] + [Detection(q, 1.0, touching=True) for q, _ in added]
            predictions = [predictions[i] for i in kept] + [p for _, p in added]
            seeds = [q for q, _ in added]
        return detections, predictions

    def _split_merged(self, source: np.ndarray, detections: list[Any], predictions: list[Any], pile: bool = False):
        """Quads the classifier rejects may be touching cards found as one (or cut wrongly): group
        the rejected quads that touch, and cut the group's outline into 2 or 3 card-shaped parts,
        sized like the cards read well in the same picture when there are some. A cut is kept only
        if every part reads as a card."""
        good = [(d, p) for d, p in zip(detections, predictions) if _accepted(p)]
        bad = [(d, p) for d, p in zip(detections, predictions) if not _accepted(p)]
        # a quad read as a card but two or three times as long (or large) as the other cards, or in a
        # pile picture far longer than a card's 88/63 shape, is touching cards found as one, read by
        # the card that fills most of it: cut it too (it stays as it is if no cut reads well)
        shaped = [_sides(d.corners) for d, _ in good if not (pile and _far_too_long(d.corners))]
        typical = tuple(np.median(np.array(shaped), axis=0)) if shaped else None

        def too_long(corners: np.ndarray) -> bool:
            if pile and _far_too_long(corners):
                return True
            if typical is None or len(shaped) < 3:
                return False
            short, long = _sides(corners)
            return long > SETTINGS.oversize * typical[1] or short * long > SETTINGS.oversize * typical[0] * typical[1]

        oversize = [(d, p) for d, p in good if too_long(d.corners)]
        good = [(d, p) for d, p in good if not too_long(d.corners)]
        if not bad and not oversize:
            return _drop_nested(detections, predictions, typical)
        out_d = [d for d, _ in good]
        out_p = [p for _, p in good]
        found = len(out_d)  # (the cards the finder found and read well come first: see below)
        groups = [[bad[i] for i in group] for group in _touching_groups([d for d, _ in bad])]
        tries = [(group, False) for group in groups] + [([one], True) for one in oversize]
        cuts_of = []
        for members, too_big in tries:
            points = np.concatenate([d.corners for d, _ in members]).astype(np.float32)
            outline = cv2.boxPoints(cv2.minAreaRect(points)).astype(np.float32)
            # (cards each outlined whole are that many cards at least: on an art the classifier
            # does not know, two touching cards' joint outline can read surer than either)
            outlined = sum(_outlined_card(d) for d, _ in members)
            cuts_of.append(
                [
                    parts
                    for parts in _cuts(outline, typical)  # (too_big: the card as it is, read)
                    if not ((len(parts) == 1 and too_big) or len(parts) < outlined)
                ]
            )
        # every part of every cut read in one batch (each crop is read alone: the same readings)
        readings = iter(
            self._classify(
                [card_crop(source, q, self.classifier.margin) for cuts in cuts_of for parts in cuts for q in parts]
            )
        )
        for (members, _), cuts in zip(tries, cuts_of):
            best = None
            for parts in cuts:
                sub = [next(readings) for _ in parts]
                if all(_accepted(p) for p in sub):
                    score = min(p.confidence for p in sub)
                    if best is None or score > best[0]:
                        best = (score, parts, sub)
            if best is None:
                out_d += [d for d, _ in members]
                out_p += [p for _, p in members]
                continue
            for quad, p in zip(best[1], best[2]):
                out_d.append(Detection(quad, 1.0, touching=True))
                out_p.append(p)
        # a part cut out of a rejected outline is a guess: where it lies on a card the finder
        # outlined and the classifier read well (a won pile beside the T! pile), that card stays
        return _drop_nested(out_d, out_p, typical, found=found)


def _drop_nested(
    detections: list[Any], predictions: list[Any], typical: tuple[float, float] | None, found: int | None = None
):
    """Two cards read where one quad's centre lies inside the other are one card found twice
    (a card and an outline around it and its neighbour): keep the one sized most like a card --
    unless both are sized like a card and overlap little: two cards lying on each other (a won
    pile on the T! pile), both found by the finder and read. With ``found``, the first ``found``
    detections are cards found and read as they are and the rest parts guessed by cutting: a
    guessed part never displaces a found card."""
    keep = [True] * len(detections)
    accepted = [i for i, p in enumerate(predictions) if _accepted(p)]

    def misfit(i: int) -> float:
        if typical is None:
            return 0.0
        long_side = _sides(detections[i].corners)[1]
        return abs(np.log(long_side / max(typical[1], 1e-6)))

    quads = {i: np.asarray(detections[i].corners, np.float32).reshape(-1, 1, 2) for i in accepted}
    centres = {i: tuple(map(float, q.reshape(4, 2).mean(0))) for i, q in quads.items()}
    for i in accepted:
        for j in accepted:
            if i >= j or not (keep[i] and keep[j]):
                continue
            if (
                cv2.pointPolygonTest(quads[j], centres[i], False) > 0
                or cv2.pointPolygonTest(quads[i], centres[j], False) > 0
            ):
                if (
                    typical is not None
                    and max(misfit(i), misfit(j)) < SETTINGS.overlapping_fit
                    and quad_iou(detections[i].corners, detections[j].corners) < SETTINGS.overlapping_iou
                    and (found is None or (i < found and j < found))
                ):
                    continue  # two cards overlapping (piles lying on each other), each found and read
                if found is not None and (i < found) != (j < found):
                    keep[max(i, j)] = False  # (the guessed one: indices past ``found``)
                else:
                    keep[j if misfit(j) > misfit(i) else i] = False
    return [d for d, k in zip(detections, keep) if k], [p for p, k in zip(predictions, keep) if k]


def _out_to_the_card_edges(frame: np.ndarray, detections: list[Detection]) -> list[Detection]:
    """Each outline lying on a frame printed inside its card moved out to the card's edge
    (``out_to_the_card_edge``); not a touching card's (beyond its side lies the other card's print)."""
    alone = [i for i, d in enumerate(detections) if not d.touching]
    moved = out_to_the_card_edge(frame, [detections[i].corners for i in alone])
    detections = list(detections)
    for i, corners in zip(alone, moved):
        if not np.array_equal(corners, detections[i].corners):
            detections[i] = replace(detections[i], corners=corners, framed=detections[i].corners)
    return detections


def _mean_reading(first: Any, second: Any, labels: list[str]) -> Any:
    """One reading of a card read twice: the mean of the two readings' probabilities (over
    ``labels``); where the two disagree the reading is unsure, not sure of either. A card cut at
    its edge and at the frame printed inside it: cut at its edge, it shows the colour of its rim;
    cut at its frame, its print fills more of the crop (a deck reader that learned a card from a
    washed-out photo reads a small numeral better so). And a card read at its whole outline and
    at a second look's quad beside it (``Scanner._second_look``).

    >>> from scanner.read.classify import Prediction
    >>> labels = ["orange-4", "yellow-4", "none"]
    >>> a = Prediction("orange-4", 0.9, False, np.array([0.9, 0.1, 0.0]))
    >>> b = Prediction("yellow-4", 0.5, True, np.array([0.3, 0.5, 0.2]))
    >>> both = _mean_reading(a, b, labels)
    >>> both.label, round(both.confidence, 2), both.upside_down
    ('orange-4', 0.6, False)
    """
    probabilities = (first.probabilities + second.probabilities) / 2
    best = int(probabilities.argmax())
    way = first if first.probabilities[best] >= second.probabilities[best] else second  # (which way up)
    return replace(way, label=labels[best], confidence=float(probabilities[best]), probabilities=probabilities)


def _relabels_sure(first: Any, variant: Any) -> bool:
    """Whether a second look's ``variant`` reading gives another label to a card first read surely
    (``SETTINGS.sure``). Such a card is looked at again only because the finder doubts its angle, and a
    well-read card turned 20-45 degrees can read surely as another value (a 5 as a 2 or a 6, a T!
    card as a number); so the new label is taken only from an outline that lies on the card's edges
    better than the first (``_fits_edges_better``). On the benchmark's 3,500 frames, 10 sure readings
    were relabelled so: the 7 made wrong from outlines fitting the edges worse than the first (a
    Sobel-gradient fit: 0.08-0.93 of the first's), the 3 mended from outlines fitting them better
    (1.18-6.6 times). Bad frames: 170 with no sure card relabelled at all, 167 with this rule."""
    return first.label != "none" and first.confidence >= SETTINGS.sure and variant.label != first.label


EDGE_SAMPLES = np.linspace(0.15, 0.85, 15, dtype=np.float32)  # where along each side an outline's edge is measured
EDGE_REACH = np.arange(-4, 5, dtype=np.float32)  # ... and how far across it (pixels) the edge is looked for


def _edge_fit(gray: np.ndarray, quad: np.ndarray) -> float:
    """How well an outline lies on edges of the image: for each side, the median over points along
    it of the strongest step across it (within ``EDGE_REACH``), averaged over the four sides."""
    _, _, profile, _ = profiles_across_sides(
        gray, np.asarray(quad, np.float32).reshape(1, 4, 2), EDGE_SAMPLES, EDGE_REACH
    )
    steps = np.abs(profile[..., 2:] - profile[..., :-2]).max(axis=-1)[0]  # 4 x samples
    return float(np.median(steps, axis=1).mean())


def _fits_edges_better(gray: np.ndarray, quad: np.ndarray, than: np.ndarray) -> bool:
    """Whether the outline ``quad`` lies on the image's edges better than the outline ``than``."""
    return _edge_fit(gray, quad) > _edge_fit(gray, than)


def _where_it_lies(gray: np.ndarray, first: Any, quad: np.ndarray) -> np.ndarray:
    """Where a card read again from ``quad`` (the second look) lies: a quad slid off the card's
    whole outline (``first``), which lies on the card's edges as well or better, tells what the card
    is, not where it lies (such a quad slides between frames, and the tracker loses the card:
    RESULTS, forty-seventh session); else the quad."""
    if (
        _outlined_card(first)
        and quad_iou(quad, first.corners) >= SETTINGS.same_place_iou
        and not _fits_edges_better(gray, quad, first.corners)
    ):
        return np.asarray(first.corners, np.float32)
    return quad


def _drop_outlined_twice(cards: list[ScannedCard]) -> list[ScannedCard]:
    """The cards, less the less sure of two of one label overlapping by ``SETTINGS.same_card_iou`` or more:
    one card (mostly a pile: the deck, the T! pile, a won pile) outlined twice, once along the
    pile's edge and once along its top card. Two cards of one label lying on each other that much
    would show one of them too little to be read."""
    order = sorted(range(len(cards)), key=lambda k: -cards[k].confidence)
    kept: list[int] = []
    for k in order:
        if not any(
            cards[j].label == cards[k].label and quad_iou(cards[j].corners, cards[k].corners) >= SETTINGS.same_card_iou
            for j in kept
        ):
            kept.append(k)
    return [cards[k] for k in sorted(kept)]


def _placement(corners: np.ndarray) -> tuple[np.ndarray, float, float]:
    """A quad's centre, the angle of its long side (radians) and that side's length."""
    quad = order_portrait(corners)
    down = (quad[3] + quad[2] - quad[0] - quad[1]) / 2  # along the long side
    return quad.mean(axis=0), float(np.arctan2(down[1], down[0])), float(np.linalg.norm(down))


def _card_axes(length: float, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A card's long side (``length`` along ``angle``, radians) and its short side, as vectors."""
    along = np.array([np.cos(angle), np.sin(angle)], np.float32) * length
    return along, np.array([-along[1], along[0]], np.float32) * 63 / 88


def _card_rect(centre: np.ndarray, long_side: float, angle: float) -> np.ndarray:
    """A card-shaped quad (63 x 88) at ``centre`` with its long side along ``angle`` (radians)."""
    along, across = (v / 2 for v in _card_axes(long_side, angle))
    corners = [centre - along - across, centre - along + across, centre + along + across, centre + along - across]
    return order_portrait(np.array(corners))


def _shifts(length: float, angle: float) -> list[np.ndarray]:
    """Moves of a card-shaped quad: a quarter and half its width across, a fifth of its length along."""
    along, across = _card_axes(length, angle)
    return [f * across for f in (0.25, -0.25, 0.5, -0.5)] + [f * along for f in (0.2, -0.2)]


def _outlined_card(detection: Any) -> bool:
    """Whether a quad is a card's whole outline: a classical outline of a card's proportions
    where the finder sees card (its own quad, or card pixels): its place, size and long side are
    known."""
    return (
        bool(detection.outlined)
        and not detection.unseen
        and (DETECT_SETTINGS.card_aspect[0] <= aspect_ratio(detection.corners) <= DETECT_SETTINGS.card_aspect[1])
    )


def _far_too_long(corners: np.ndarray) -> bool:
    short, long = _sides(corners)
    return long > SETTINGS.too_long * short


def _card_sized(corners: np.ndarray, typical_length: float) -> bool:
    # (up to SETTINGS.oversize typical lengths: a card outlined loosely, with the pile under it or its
    # neighbour's edge; longer, touching cards for _split_merged. At 1.4, 3 cards were left unread
    # on the benchmark's 3,500 frames that a second look at 1.6 reads; none lost)
    return SETTINGS.part_length < _sides(corners)[1] / typical_length < SETTINGS.oversize


def _best_card_reading(pred: Any, labels: list[str]) -> Any:
    """A reading of "not a card" for a quad that is a card by its outline: its likeliest card
    label, with that label's (low) probability as confidence, so nothing downstream takes it as sure."""
    order = np.argsort(pred.probabilities)[::-1]
    best = next(int(i) for i in order if labels[i] != "none")
    return replace(pred, label=labels[best], confidence=float(pred.probabilities[best]))


def _tiny_look(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card at ``corners`` of ``frame`` drawn ``six_nine_size`` small, in Lab (float): its design,
    not its print."""
    return cv2.cvtColor(warp_crop(frame, corners, SETTINGS.six_nine_size), cv2.COLOR_BGR2LAB).astype(np.float32)


def _looks_apart(look: np.ndarray, other: np.ndarray) -> float:
    """How far apart two ``_tiny_look`` pictures are (mean absolute Lab difference), either way up:
    a card lies either way.

    >>> look = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    >>> _looks_apart(look, look[::-1, ::-1]), _looks_apart(look, look + 2)
    (0.0, 2.0)
    """
    return float(min(np.abs(look - other).mean(), np.abs(look - other[::-1, ::-1]).mean()))


def _dark_share(frame: np.ndarray, corners: np.ndarray) -> float:
    """The share of the card at ``corners``' inner pixels (its middle 85 %, off its edge) darker
    than ``ScanSettings.dark_value``."""
    quad = np.asarray(corners, np.float32)
    centre = quad.mean(axis=0)
    value = cv2.cvtColor(warp_crop(frame, (quad - centre) * 0.85 + centre), cv2.COLOR_BGR2HSV)[..., 2]
    return float((value < SETTINGS.dark_value).mean())


def _blue_card(frame: np.ndarray, corners: np.ndarray) -> bool:
    """Whether the card at ``corners`` is blue and not dark (``ScanSettings.special_hue``...)."""
    hsv = cv2.cvtColor(warp_crop(frame, corners), cv2.COLOR_BGR2HSV)
    hue, saturation, value = np.median(hsv.reshape(-1, 3), axis=0)
    low, high = SETTINGS.special_hue
    return low <= hue <= high and saturation >= SETTINGS.special_saturation and value >= SETTINGS.special_value


def _as_reported(confidence: float, touching: bool) -> float:
    """A reading's confidence as the scan reports it: lowered for a card touching another."""
    return confidence * (SETTINGS.touching_penalty if touching else 1.0)


def _accepted(pred: Any) -> bool:
    return pred.label != "none" and pred.confidence >= MIN_CONFIDENCE


def _area(corners: np.ndarray) -> float:
    return float(cv2.contourArea(np.asarray(corners, np.float32).reshape(4, 2)))


def _holds_cards(outline: Detection, learned: list[Detection], frame_width: int) -> bool:
    """Whether ``outline`` is tiled by two or more of the finder's quads of the size it learned,
    lying apart inside it (cards side by side), not dotted with its parts (a card's index corners
    and numeral cover little of it; its printed frame and the panel inside are nested, not apart;
    the halves it sees a card seen nearer as are longer than the cards it learned)."""
    area = max(outline.area, 1e-6)
    inside = [
        d for d in learned if d.area >= SETTINGS.group_part * area and contained_share(outline.corners, d.corners) > 0.7
    ]
    apart = lying_apart(inside)
    if len(apart) < 2 or sum(d.area for d in apart) < SETTINGS.group_cover * area:
        return False
    length = float(np.median([_sides(d.corners)[1] for d in apart])) / frame_width
    return length <= SETTINGS.rescale_between[0] * SETTINGS.learned_card_length


def finder_cards(
    finder: Any,
    frame: np.ndarray,
    gray: np.ndarray | None,
    outlines: list[Detection],
    look_again: bool = True,
    first: tuple[list[Detection], np.ndarray] | None = None,
) -> tuple[list[Detection], np.ndarray]:
    """The learned finder's cards and map. The finder learned cards of one size in the frame
    (a camera at the mount's height); where the classical outlines (art- and size-blind) show
    cards of a size far from it that the finder did not find, it looks again at the width
    that shows them at its size, and that look is kept if it finds more of the outlines.
    ``look_again=False``: not (a won pile spread out: its cards lie side by side in groups
    whose joint outline has a card's proportions, and its picture is taken nearer). ``first``:
    the finder's first look, where it was already taken."""
    learned, prob = first if first is not None else finder.find_and_map(frame, gray)
    width, alone = _rescaling(finder.width, learned, outlines, frame.shape[1], frame) if look_again else (None, None)
    if width is None:
        return learned, prob
    second, second_prob = finder.find_and_map(frame, gray, width)
    if _outlines_found(second, outlines) > _outlines_found(learned, outlines):
        return (second if alone is None else _onto_the_outline(second, alone)), second_prob
    return learned, prob


def rescaled_width(
    finder_width: int,
    learned: list[Detection],
    outlines: list[Detection],
    frame_width: int,
    frame: np.ndarray | None = None,
) -> int | None:
    """The finder's input width that shows the outlined cards at the size it learned, where
    some outline is not one of its cards and they are much longer than it learned; None
    otherwise (and for one outline alone far longer, unless ``frame`` shows it is one card seen
    near: a mat's printed line has a card's proportions)."""
    return _rescaling(finder_width, learned, outlines, frame_width, frame)[0]


def _rescaling(
    finder_width: int,
    learned: list[Detection],
    outlines: list[Detection],
    frame_width: int,
    frame: np.ndarray | None,
) -> tuple[int | None, Detection | None]:
    """``rescaled_width``, and the one outline alone it was found for where it is that case."""
    low, high = SETTINGS.rescale_between

    def ratio(quads: list[Detection]) -> float:  # their median length over the learned one
        return float(np.median([_sides(d.corners)[1] for d in quads])) / frame_width / SETTINGS.learned_card_length

    if not outlines or not low < ratio(outlines) <= high:  # (most frames: no more work)
        return None, None
    # an outline tiled by the finder's cards is cards side by side (touching), not one seen nearer
    outlines = [o for o in outlines if not _holds_cards(o, learned, frame_width)]
    if not outlines:
        return None, None
    longer = ratio(outlines)
    if not low < longer <= high:
        return None, None
    alone = longer > SETTINGS.rescale_alone and len(outlines) < 2
    if alone and not _seen_near(frame, outlines[0]):
        return None, None
    if _outlines_found(learned, outlines) == len(outlines):
        return None, None
    return input_width(finder_width / longer), (outlines[0] if alone else None)


def _onto_the_outline(found: list[Detection], outline: Detection) -> list[Detection]:
    """``found`` (the finder's look for one card seen near, at a few dozen pixels' width), its quad
    of that card moved onto ``outline``, which follows the card's edge all round to the pixel
    where the look's quad lies coarsely, and not weak (the outline alone makes it a card). Not
    onto an outline smaller than the quad: a panel printed inside the card shows an edge too."""
    return [
        replace(d, corners=outline.corners, weak=False)
        if quad_iou(outline.corners, d.corners) >= DETECT_SETTINGS.fuse_same and outline.area >= d.area
        else d
        for d in found
    ]


def _seen_near(frame: np.ndarray | None, outline: Detection) -> bool:
    """Whether one long ``outline`` alone is a card seen near: the edge of something lying on the
    table (the colour changes across each side: not a line printed on a mat, the same mat either
    side) and not the play mat's own border (``mat.the_mats_own``: its markers in view)."""
    if frame is None:
        return False
    if side_contrasts(frame, outline.corners, SETTINGS.shape_edge_contrast).min() < SETTINGS.alone_edge_shown:
        return False
    return not the_mats_own(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), [outline.corners])[0]


def _outlines_found(found: list[Detection], outlines: list[Detection]) -> int:
    """How many of ``outlines`` one of ``found`` overlaps as the same card (``fuse_outlines``' bar)."""
    return sum(any(quad_iou(o.corners, d.corners) >= DETECT_SETTINGS.fuse_same for d in found) for o in outlines)


def _sides(corners: np.ndarray) -> tuple[float, float]:
    q = np.asarray(corners, np.float32).reshape(4, 2)
    a, b = float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0]))
    return (min(a, b), max(a, b))


def _touching_groups(detections: list[Any]) -> list[list[int]]:
    """Indexes of quads that overlap or nearly touch, grouped (union-find on grown boxes)."""
    parent = list(range(len(detections)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    boxes = []
    for d in detections:
        q = np.asarray(d.corners, np.float32).reshape(4, 2)
        grow = 0.08 * _sides(q)[0]
        boxes.append((q[:, 0].min() - grow, q[:, 1].min() - grow, q[:, 0].max() + grow, q[:, 1].max() + grow))
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(detections)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _cuts(corners: np.ndarray, typical: tuple[float, float] | None = None) -> list[list[np.ndarray]]:
    """Ways to cut a quad into 1-3 card-shaped parts along its long side: by its shape, and
    when the size of a card in the picture is known, only cuts whose parts have about that size."""
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    a, b, c, d = quad
    if np.linalg.norm(b - a) < np.linalg.norm(d - a):  # make a->b the long side
        a, b, c, d = b, c, d, a
    long_side, short_side = float(np.linalg.norm(b - a)), float(np.linalg.norm(d - a))
    out = []
    for k in (1, 2, 3):
        part = sorted((long_side / k, short_side))
        if typical is not None:
            if not (0.75 < part[0] / typical[0] < 1.3 and 0.75 < part[1] / typical[1] < 1.3):
                continue
            # (each side may be a little short, but not both: a card a little larger than the
            # frame's usual one, cut in two, would give two halves of a card's shape)
            if k > 1 and part[0] * part[1] < SETTINGS.cut_part_area * typical[0] * typical[1]:
                continue
        elif not 1.1 < part[1] / max(part[0], 1e-6) < 1.8:  # a card is 88/63 = 1.4
            continue
        cuts = []
        for i in range(k):
            t0, t1 = i / k, (i + 1) / k
            p0, p1 = a + (b - a) * t0, a + (b - a) * t1
            q1, q0 = d + (c - d) * t1, d + (c - d) * t0
            cuts.append(order_portrait(np.array([p0, p1, q1, q0], np.float32)))
        out.append(cuts)
    return out


def find_target(cards: list[ScannedCard], frame_size: tuple[int, int] | None = None) -> int | None:
    """The target (RULES R3.1): the back of the deck's top card; 7 when only the blue card shows.

    With a mat the deck is the back in the deck zone. Without one, won piles also show backs, so
    the deck is told by where it lies (R2.4): in the middle of the table, among the face-up centre
    cards, with the T! pile beside it, and the camera is mounted over the middle; won piles lie in
    front of the players, towards the table's edge. ``frame_size`` (w, h) gives the middle.
    The deck stack touches the T! pile as a rule, so its reading is not marked down for touching.
    """
    every_back = [c for c in cards if back_number(c.label) is not None]
    backs = [c for c in every_back if _deck_confidence(c) >= MIN_CONFIDENCE]
    if not backs:
        return None
    in_deck = [c for c in backs if c.zone == "deck"]
    if in_deck:
        return back_number(max(in_deck, key=_deck_confidence).label)
    if any(c.zone is not None for c in cards):
        return None  # a mat is seen but its deck zone is empty
    if any(c.label == "special-7" for c in backs):
        return 7  # the blue card is the deck's last card: seen, the deck is empty or it is all that is left
    length = float(np.median([_sides(c.corners)[1] for c in cards]))
    faces = [c for c in cards if back_number(c.label) is None and not c.label.startswith("tweak")]
    anchor = np.mean([c.corners.mean(axis=0) for c in (faces or cards)], axis=0)
    middle = np.array(frame_size, np.float32) / 2 if frame_size is not None else None
    tweak_pile = [
        c.corners.mean(axis=0) for c in cards if c.label == "tweak-back" and _deck_confidence(c) >= MIN_CONFIDENCE
    ]

    def away_from_the_deck(card: ScannedCard) -> float:
        centre = card.corners.mean(axis=0)
        score = float(np.linalg.norm(centre - anchor)) / length
        if middle is not None:
            score += SETTINGS.middle_weight * float(np.linalg.norm(centre - middle)) / length
        if any(float(np.linalg.norm(centre - t)) < SETTINGS.beside_tweak_pile * length for t in tweak_pile):
            score -= SETTINGS.tweak_pile_bonus
        return score

    deck = min(every_back, key=away_from_the_deck)
    if _deck_confidence(deck) < MIN_CONFIDENCE:
        return None  # the deck's back is there but not read: unknown, not a won pile's number
    return back_number(deck.label)


def _deck_confidence(card: ScannedCard) -> float:
    """A pile's reading, not marked down for touching (the deck and the T! pile lie side by side)."""
    return card.confidence / SETTINGS.touching_penalty if card.touching else card.confidence


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return os.cpu_count() or 1


def load_scanner(
    profile: str | None = None,
    mat: str | None = None,
    players: int | None = None,
    detector: str = "auto",
    calibration: str | None = None,
    pictures: bool = False,
) -> Scanner:
    """The scanner with the shipped models; ``detector``: classical, learned, or auto (learned if
    shipped); ``pictures``: for pictures apart, not a camera's frames (``Scanner``)."""
    from scanner.find.segment import DEFAULT_MODEL, CardFinder
    from scanner.read.profile import load_profile

    layout = MatLayout.paper(mat) if mat else None
    use_finder = detector == "learned" or (detector == "auto" and DEFAULT_MODEL.exists())
    finder = CardFinder() if use_finder else None
    from scanner.geometry.calibration import load_calibration

    zones = load_calibration(Path(calibration)) if calibration else None
    classifier = CardClassifier()
    deck = load_profile(Path(profile), classifier) if profile else None
    from scanner.read.ink import DEFAULT_MODEL as INK_MODEL
    from scanner.read.ink import load_ink_colour

    ink = load_ink_colour(INK_MODEL) if INK_MODEL.exists() else None
    return Scanner(classifier, layout, players, deck, finder, zones, ink, pictures=pictures)


def _on_mat_marker(gray: np.ndarray, corners: np.ndarray, mat: MatView | None = None) -> bool:
    """Whether the outline ``corners`` sits on one of the play mat's ArUco markers. With the mat
    found, its centre is looked up on the mat (every marker's place is known, seen or not);
    without, the markers are looked for in the outline's neighbourhood only, markers of about its
    size, and not at all under an outline too pale to lie on one (the search is dear on an unknown
    art, where every card is read unsurely)."""
    if mat is not None:
        x, y = mat.to_mat_points(corners).mean(axis=0)
        # (a little around each marker: the outline's centre is rough)
        return mat.layout.on_marker(float(x), float(y), margin=mat.layout.marker * 0.1)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    pad = (hi - lo) * 0.3  # (a marker needs its quiet zone around it to be found)
    h, w = gray.shape[:2]
    x0, y0 = np.maximum(lo - pad, 0).astype(int)
    x1, y1 = np.minimum(hi + pad, [w, h]).astype(int)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return False
    region = gray[y0:y1, x0:x1]
    inside = np.zeros(region.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(corners - (x0, y0)).astype(np.int32), 1)
    pixels = region[inside > 0]
    if (
        pixels.size == 0
        or (pixels < SETTINGS.marker_dark * np.percentile(pixels, 95)).mean() < SETTINGS.marker_dark_share
    ):
        return False  # (too little near-black under the outline for a marker: no search)
    outline = corners.astype(np.float32).reshape(-1, 1, 2)
    for _, marker in find_markers(region, SETTINGS.marker_min_perimeter):
        cx, cy = marker.mean(axis=0) + (x0, y0)
        if cv2.pointPolygonTest(outline, (float(cx), float(cy)), False) >= 0:
            return True
    return False
