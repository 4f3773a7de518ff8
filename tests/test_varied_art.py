"""The varied number cards the classifier is fine-tuned on to read other decks (``synth.varied``)."""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from scanner.labels import LABELS
from scanner.synth import varied
from scanner.synth.cards import BASE_HSV, CARD_H, CARD_MASK, CARD_W, random_style, render_card
from scanner.synth.varied import PILLOW_FACE, VARIED_DECK, render_varied_card, typefaces, varied_deck

NUMBER_LABELS = [label for label in LABELS if label.split("-")[0] in BASE_HSV]


def _hue_distance(a: float, b: float) -> float:
    d = abs(a - b) % 180
    return min(d, 180 - d)


def test_a_varied_card_is_a_card_drawn_anew_each_time_from_its_seed():
    first = render_varied_card("blue-3", random.Random(11))
    assert first.shape == (CARD_H, CARD_W, 3) and first.dtype == np.uint8
    assert (first[CARD_MASK == 0] == 0).all()  # rounded corners, as every card
    assert np.array_equal(first, render_varied_card("blue-3", random.Random(11)))
    others = [render_varied_card("blue-3", random.Random(seed)) for seed in range(12, 20)]
    assert all(not np.array_equal(first, other) for other in others)


def test_a_varied_card_shows_its_colour():
    """The card's most common strong hue is its colour's (within the shades drawn) on nearly every
    card: the colour is what the classifier must learn to read from any art."""
    rng = random.Random(5)
    right = 0
    for _ in range(120):
        label = rng.choice(NUMBER_LABELS)
        card = render_varied_card(label, rng)
        hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)
        strong = hsv[(hsv[..., 1] > 80) & (hsv[..., 2] > 60)]
        if not len(strong):
            continue
        hue = np.bincount(strong[:, 0].astype(int) // 4, minlength=45).argmax() * 4 + 2
        right += _hue_distance(hue, BASE_HSV[label.split("-")[0]][0]) <= 12
    assert right >= 110


def test_dark_varied_cards_are_near_black_with_the_colour_in_their_ink():
    """``dark_share``: number cards on a near-black ground whose bright ink is their colour (a
    dark deck's faces, which the training styles' dark backs taught a network to call backs); none
    asked for, the cards are drawn exactly as before the option, seed for seed (the networks
    trained before it stay reproducible)."""
    rng = random.Random(8)
    right = 0
    for _ in range(60):
        label = rng.choice(NUMBER_LABELS)
        card = render_varied_card(label, rng, dark_share=1.0)
        hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)[CARD_MASK > 0]
        assert np.median(hsv[:, 2]) < 70, label  # a dark ground
        bright = hsv[(hsv[:, 1] > 80) & (hsv[:, 2] > 100)]
        assert len(bright) > 200, label  # the print shows
        hue = np.bincount(bright[:, 0].astype(int) // 4, minlength=45).argmax() * 4 + 2
        right += _hue_distance(hue, BASE_HSV[label.split("-")[0]][0]) <= 12
    assert right >= 57
    for seed in range(6):
        assert np.array_equal(
            render_varied_card("green-2", random.Random(seed), dark_share=0.0),
            render_varied_card("green-2", random.Random(seed)),
        )
    assert varied_deck(0.0) is VARIED_DECK
    shares = [np.median(varied_deck(0.5).render("red-4", random.Random(s))) < 70 for s in range(40)]
    assert 8 < sum(shares) < 32


def test_varied_backs_show_their_number_on_any_ground():
    """``backs``: most backs (and T! backs) are drawn anew, on grounds of every lightness, so the
    number, not a dark card, tells a back; without it they are the training styles' as before."""
    light = {False: 0, True: 0}
    for seed in range(60):
        label = ("back-7", "back-8", "back-9", "back-10", "tweak-back")[seed % 5]
        for backs in (False, True):
            card = render_varied_card(label, random.Random(seed), backs=backs)
            light[backs] += np.median(card[CARD_MASK > 0]) > 120
    assert light[False] == 0 and light[True] >= 8  # (the training styles' backs are all dark)
    assert varied_deck(backs=True) is not VARIED_DECK


def test_backs_drawn_the_wider_way_are_many_looks_and_leave_the_rest_as_before(monkeypatch):
    """``wide_backs``: that share of backs and T! backs drawn anew the wider way (patterns over the
    whole card, the mark on a plate or bare), no two alike: T! backs on grounds of every lightness,
    backs on black ones (R1.2); other labels, and every card without the option, are drawn as
    before, seed for seed."""
    cards = [render_varied_card("tweak-back", random.Random(seed), backs=True, wide_backs=1.0) for seed in range(40)]
    assert all(card.shape == (CARD_H, CARD_W, 3) and (card[CARD_MASK == 0] == 0).all() for card in cards)
    assert len({card.tobytes() for card in cards}) == 40
    medians = [float(np.median(card[CARD_MASK > 0])) for card in cards]
    assert min(medians) < 60 and max(medians) > 180
    backs = [varied._wide_back("9", random.Random(seed)) for seed in range(40)]
    darkest = [float(np.percentile(back[CARD_MASK > 0].mean(axis=1), 10)) for back in backs]
    assert sum(d < 55 for d in darkest) >= 36  # black grounds (R1.2), a few under a bright pattern
    assert len({back.tobytes() for back in backs}) == 40
    wider = render_varied_card("back-8", random.Random(2), backs=True, wide_backs=1.0)
    assert not np.array_equal(wider, render_varied_card("back-8", random.Random(2), backs=True))
    for seed in range(6):
        for label in ("red-3", "tweak-thief", "special-7"):
            assert np.array_equal(
                render_varied_card(label, random.Random(seed), backs=True, wide_backs=1.0),
                render_varied_card(label, random.Random(seed), backs=True),
            )
        for label in ("back-10", "tweak-back"):
            assert np.array_equal(
                render_varied_card(label, random.Random(seed), backs=True, wide_backs=0.0),
                render_varied_card(label, random.Random(seed), backs=True),
            )
    assert varied_deck(wide_backs=0.5) is not VARIED_DECK
    drawn: list[str] = []
    monkeypatch.setattr(varied, "_wide_back", lambda number, rng: drawn.append(number) or wider)
    deck = varied_deck(backs=True, wide_backs=0.5)
    labels = [("back-7", "tweak-back")[s % 2] for s in range(60)]
    assert sum(np.array_equal(deck.render(label, random.Random(s)), wider) for s, label in enumerate(labels)) == len(
        drawn
    )
    assert 15 < len(drawn) < 45 and set(drawn) == {"7", "back"}


@pytest.mark.parametrize("label", ["back-9", "special-7", "tweak-joker", "tweak-back"])
def test_other_cards_keep_a_training_style(label):
    """A deck's own backs and T! art cannot be guessed: they are drawn in a random training style."""
    rng, again = random.Random(3), random.Random(3)
    assert np.array_equal(render_varied_card(label, rng), render_card(label, random_style(again), again))


def test_typefaces_always_hold_pillows_own():
    assert typefaces()[0] == PILLOW_FACE
    assert VARIED_DECK.render("red-6", random.Random(1)).shape == (CARD_H, CARD_W, 3)


def test_varied_scenes_give_crops_of_every_kind():
    from scanner.train.dataset import CLASS_INDEX, build

    plain, varied = build(range(40, 43), harsh=False), build(range(40, 43), harsh=False, varied=True)
    assert len(varied) > 20
    assert set(varied.labels.tolist()) & {CLASS_INDEX[label] for label in NUMBER_LABELS}
    assert not np.array_equal(plain.images[0], varied.images[0])


def test_training_crops_add_the_varied_scenes_after_the_others():
    """``varied_share``: that many more scenes a scene, after the others' seeds (half harsh), and
    parts of cards as not-a-card in every scene; without it, the crops of the recipes before."""
    from scanner.train.classifier import training_crops
    from scanner.train.dataset import build

    logged: list[str] = []
    _, labels, _ = training_crops(0, 2, 0.5, first=900, processes=1, log=logged.append, varied_share=1.0)
    _, labels_alone, _ = training_crops(0, 2, 0.5, first=900, processes=1, log=lambda _: None)
    own = [build(range(900, 902), harsh=False), build(range(902, 903), harsh=True)]
    assert labels_alone.tolist() == [label for s in own for label in s.labels.tolist()]
    sets = [
        build(range(900, 902), harsh=False, parts=True),
        build(range(902, 903), harsh=True, parts=True),
        build(range(903, 904), harsh=False, varied=True, parts=True),
        build(range(904, 905), harsh=True, varied=True, parts=True),
    ]
    assert labels.tolist() == [label for s in sets for label in s.labels.tolist()]
    assert any("2 scenes of varied number cards (seeds 903..904)" in line for line in logged)


def test_varied_scenes_show_parts_of_cards_as_not_a_card(monkeypatch):
    """A numeral on its plate is not a card: each varied scene adds up to ``PART_NEGATIVES``
    not-a-card crops of a part of one of its cards (the other crops unchanged)."""
    from scanner.labels import NOT_A_CARD
    from scanner.train import dataset

    with_parts = dataset.build(range(60, 64), harsh=False, varied=True, parts=True)
    monkeypatch.setattr(dataset, "PART_NEGATIVES", 0)
    without = dataset.build(range(60, 64), harsh=False, varied=True, parts=True)
    none = dataset.CLASS_INDEX[NOT_A_CARD]
    extra = int((with_parts.labels == none).sum() - (without.labels == none).sum())
    assert 0 < extra <= 4 * 3 and len(with_parts) == len(without) + extra
    cards = without.labels != none
    assert with_parts.labels[with_parts.labels != none].tolist() == without.labels[cards].tolist()
