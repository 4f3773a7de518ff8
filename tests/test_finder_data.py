"""The card finder's training scenes with other decks' cards (outlines, not TWEAK's art)."""

from __future__ import annotations

import random

import numpy as np

from scanner.geometry.crops import warp_crop
from scanner.synth.cards import CARD_H, CARD_MASK, CARD_W, render_foreign_card
from scanner.synth.table import render_table
from scanner.train.finder import FOREIGN_SHARE, _closer, _sample


def test_a_foreign_card_is_a_masked_card_of_its_seed() -> None:
    card = render_foreign_card(random.Random(4))
    assert card.shape == (CARD_H, CARD_W, 3)
    assert (card[CARD_MASK == 0] == 0).all()  # rounded corners, as render_card's
    assert card[CARD_MASK > 0].mean() > 120  # light card stock
    assert np.array_equal(card, render_foreign_card(random.Random(4)))
    assert not np.array_equal(card, render_foreign_card(random.Random(5)))


def test_a_foreign_table_puts_other_cards_where_the_truth_says() -> None:
    other = render_table(31, foreign=True)
    assert not np.array_equal(render_table(31).image, other.image)
    cards = [c for c in other.truth["cards"] if c["occluded"] < 0.05 and not c["truncated"]]
    assert cards
    for card in cards:  # light card stock lies inside every outline (not TWEAK's coloured faces or backs)
        crop = warp_crop(other.image, np.array(card["corners"], np.float32), (48, 64))
        assert np.median(crop[8:-8, 8:-8]) > 90, card["label"]


def test_seen_closer_the_truth_follows_the_cards() -> None:
    rendered = render_table(77, n_centre=8)
    seed = next(s for s in range(50) if random.Random(s).random() >= 0.5)  # one that zooms
    closer = _closer(rendered, random.Random(seed))
    assert closer.image.shape == rendered.image.shape
    compared = 0
    for before, after in zip(rendered.truth["cards"], closer.truth["cards"]):
        if after["truncated"] or before["truncated"] or before["occluded"] > 0.05:
            continue
        a = warp_crop(rendered.image, np.array(before["corners"], np.float32), (48, 64)).astype(float)
        b = warp_crop(closer.image, np.array(after["corners"], np.float32), (48, 64)).astype(float)
        assert np.abs(a - b).mean() < 20, before["label"]
        compared += 1
    assert compared >= 1
    w = closer.truth["width"]
    sides = [np.linalg.norm(np.subtract(*np.array(c["corners"][:2]))) for c in closer.truth["cards"]]
    before = [np.linalg.norm(np.subtract(*np.array(c["corners"][:2]))) for c in rendered.truth["cards"]]
    assert np.median(sides) > 1.25 * np.median(before) and w == rendered.truth["width"]


def test_one_training_scene_in_six_shows_another_deck() -> None:
    seed = 20_000_000 + next(s for s in range(12) if (20_000_000 + s) % FOREIGN_SHARE == 2 and s % 4 == 2)
    plain = _sample(seed, piles=True, foreign=False)
    other = _sample(seed, piles=True, foreign=True)
    assert not np.array_equal(plain[0], other[0])
    assert other[1].any()  # cards to find
    assert np.array_equal(_sample(seed + 1, piles=True, foreign=True)[0], _sample(seed + 1, piles=True)[0])


def test_one_training_scene_in_harsh_share_is_rendered_harsh() -> None:
    """``tweak train-finder --harsh-share N``: the scenes of seeds 0 mod N are the harsh ones (the
    shipped recipe: one in 4; a pile scene, seeds 1 mod 4, is never one of them)."""
    from scanner.find.segment import INPUT_WIDTH, downscale, input_size

    seed = 20_000_002  # 2 mod 4: harsh at one in 2, not at one in 4
    harsh = render_table(seed, harsh=True)
    expected = downscale(harsh.image, input_size(harsh.truth["width"], harsh.truth["height"], INPUT_WIDTH))
    assert np.array_equal(_sample(seed, piles=True, harsh_share=2)[0], expected)
    assert not np.array_equal(_sample(seed, piles=True)[0], expected)
    assert np.array_equal(_sample(seed + 2, piles=True, harsh_share=2)[0], _sample(seed + 2, piles=True)[0])


def test_a_cluttered_training_scene_shows_things_that_are_not_cards_as_no_card() -> None:
    """``tweak fine-tune-finder --clutter-share N``: one plain table in N holds things that are not
    cards (``synth.clutter``); the finder's target marks no card where they lie."""
    import cv2

    from scanner.find.segment import INPUT_WIDTH, input_size

    def plain_and_cluttered(s: int) -> bool:  # (not a pile's scene, not a harsh one; one drawn with clutter)
        return (
            s % 4 not in (0, 1)
            and random.Random(s).randrange(2) == 0
            and "clutter" in render_table(s, clutter=True).truth
        )

    seed = next(s for s in range(30_000_000, 30_000_100) if plain_and_cluttered(s))
    truth = render_table(seed, clutter=True).truth
    plain = _sample(seed, piles=True)
    cluttered = _sample(seed, piles=True, clutter_share=2)
    assert not np.array_equal(plain[0], cluttered[0])
    target = cluttered[1]
    w, h = input_size(truth["width"], truth["height"], INPUT_WIDTH)
    scale = np.array([w / 2 / truth["width"], h / 2 / truth["height"]], np.float32)
    checked = 0
    for item in truth["clutter"]:
        mask = np.zeros(target.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, (np.asarray(item["corners"], np.float32) * scale).astype(np.int32), 1)
        if mask.sum() >= 4:
            assert target[mask > 0].max() == 0, item["kind"]
            checked += 1
    assert checked and target.any()  # (the cards are still there to find)


def _median_card_length(truth: dict) -> float:
    sides = [
        np.linalg.norm(np.array(c["corners"]) - np.roll(np.array(c["corners"]), -1, axis=0), axis=1).max()
        for c in truth["cards"]
        if not c["truncated"]
    ]
    return float(np.median(sides))


def test_a_table_seen_closer_shows_the_same_cards_longer() -> None:
    """``render_table(zoom=Z)``: the same table, the camera Z times closer (another camera height or
    lens): each card Z times as long in the frame, the truth's corners with it."""
    for zoom in (0.6, 2.0):
        near, plain = render_table(30_000_007, zoom=zoom), render_table(30_000_007)
        assert near.image.shape == plain.image.shape and not np.array_equal(near.image, plain.image)
        assert abs(_median_card_length(near.truth) / _median_card_length(plain.truth) - zoom) < 0.1 * zoom


def test_one_plain_training_scene_in_zoom_share_is_seen_from_another_height() -> None:
    """``tweak fine-tune-finder --zoom-share N``: one plain table in N is seen closer or farther
    (``ZOOM_RANGE``); with no share, or on a scene not drawn, the scene is as before."""
    from scanner.train.finder import ZOOM_RANGE

    def plain_and_drawn(s: int) -> bool:  # (not a pile's scene, not a harsh one)
        return s % 4 not in (0, 1) and random.Random(s + 2).randrange(2) == 0

    seed = next(s for s in range(30_000_000, 30_000_100) if plain_and_drawn(s))
    zoomed, plain = _sample(seed, piles=True, zoom_share=2), _sample(seed, piles=True)
    assert not np.array_equal(zoomed[0], plain[0])
    # the inner-card target grows or shrinks with the cards: area by the zoom squared, in the range
    ratio = float(np.sqrt(zoomed[1].sum() / plain[1].sum()))
    assert ZOOM_RANGE[0] * 0.8 < ratio < ZOOM_RANGE[1] * 1.2 and abs(ratio - 1) > 0.05
    other = next(s for s in range(seed + 1, seed + 100) if s % 4 not in (0, 1) and not plain_and_drawn(s))
    assert np.array_equal(_sample(other, piles=True, zoom_share=2)[0], _sample(other, piles=True)[0])
