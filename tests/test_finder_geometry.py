"""The learned finder's geometry head: its training target, and the cards read back from it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.find.segment import (
    _cards_from_geometry,
    card_geometry,
    decode_geometry,
    geometry_target,
    interior_mask,
)
from scanner.metrics import expected_cards, match, quad_iou
from scanner.synth.table import render_table


def _maps(truth: dict, out: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    size = (truth["width"], truth["height"])
    inner, _ = interior_mask(truth["cards"], size, out)
    geometry, _ = geometry_target(truth["cards"], size, out)
    return inner.astype(np.float32), geometry


@pytest.mark.parametrize("turn", [0, 30, 90, 135, 180])
def test_card_geometry_is_the_same_for_a_card_turned_half_a_turn(turn: int) -> None:
    a = np.deg2rad(turn)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32) @ rotation.T + 100
    centre, angle, long_side, short_side = card_geometry(card)
    assert np.allclose(centre, card.mean(axis=0), atol=1e-3)
    assert long_side == pytest.approx(88, abs=0.01) and short_side == pytest.approx(63, abs=0.01)
    expected = (np.pi / 2 + a) % np.pi  # the long side starts straight down
    assert min(abs(angle - expected), np.pi - abs(angle - expected)) < 1e-4
    turned = np.roll(card, 2, axis=0)  # the same card upside down
    assert card_geometry(turned)[1] == pytest.approx(angle, abs=1e-4)


def test_the_geometry_target_decodes_back_to_every_card_in_view() -> None:
    rendered = render_table(20_000_005, n_centre=10)
    truth = rendered.truth
    out = (256, 144)
    inner, geometry = _maps(truth, out)
    scale = np.array([truth["width"] / out[0], truth["height"] / out[1]])
    required, _ = expected_cards(truth)
    for card in required:
        quad = np.array(card["corners"], np.float32)
        pts_mask = np.zeros(out[::-1], bool)
        centre = (quad.mean(axis=0) / scale).astype(int)
        pts_mask[centre[1] - 1 : centre[1] + 2, centre[0] - 1 : centre[0] + 2] = True
        ys, xs = np.nonzero(pts_mask & (inner > 0))
        pts = np.stack([xs + 0.5, ys + 0.5], axis=1).astype(np.float32)
        decoded, agreement = decode_geometry(geometry, pts, np.ones(len(pts)))
        decoded = decoded * scale
        assert agreement > 0.99
        assert quad_iou(decoded, quad) > 0.95, card["label"]


def test_touching_cards_whose_inner_parts_run_together_are_told_apart_by_their_votes() -> None:
    """Two cards side by side, the probability map marking one blob across both: the pixels vote
    for two centres, and two card quads come out (not one across both)."""
    w, h = 640, 360
    left = np.array([[200, 100], [263, 100], [263, 188], [200, 188]], np.float32)
    right = left + np.array([64, 0], np.float32)
    cards = [
        {"corners": left.tolist(), "occluded": 0.0},
        {"corners": right.tolist(), "occluded": 0.0},
    ]
    out = (320, 180)
    geometry, mask = geometry_target(cards, (w, h), out)
    prob = mask.astype(np.float32) * 0.95
    # a bridge across the gap joins the two inner parts in one blob; its pixels vote for the left card
    rows = slice(int(np.nonzero(mask)[0].mean()) - 3, int(np.nonzero(mask)[0].mean()) + 4)
    gap = [x for x in range(out[0]) if not mask[:, x].any() and mask[:, :x].any() and mask[:, x:].any()]
    assert gap, "the inner parts are apart before the bridge"
    prob[rows, gap[0] : gap[-1] + 1] = 0.95
    geometry[:, rows, gap[0] : gap[-1] + 1] = geometry[:, rows, gap[0] - 1 : gap[0]]
    gray = np.full((h, w), 60, np.uint8)
    for quad in (left, right):
        cv2.fillConvexPoly(gray, quad.astype(np.int32), 230)
    found = _cards_from_geometry(prob, geometry, gray, (w, h))
    assert len(found) == 2
    pairs = match([left, right], [d.corners for d in found], 0.8)
    assert len(pairs) == 2


def test_a_card_cut_by_the_frame_edge_is_not_reported() -> None:
    w, h = 640, 360
    cut = np.array([[-20, 100], [43, 100], [43, 188], [-20, 188]], np.float32)
    cards = [{"corners": cut.tolist(), "occluded": 0.0}]
    out = (320, 180)
    geometry, mask = geometry_target(cards, (w, h), out)
    found = _cards_from_geometry(mask.astype(np.float32) * 0.95, geometry, np.zeros((h, w), np.uint8), (w, h))
    assert found == []


def _turned_card(centre: tuple[float, float], degrees: float) -> np.ndarray:
    """A card 88 px long, its short side turned ``degrees`` from the x axis."""
    from scanner.scan import _card_rect

    return _card_rect(np.array(centre, np.float64), 88.0, np.deg2rad(degrees + 90)).astype(np.float64)


def _found_on_drawn_frame(quad: np.ndarray) -> list:
    """The finder's geometry step on a frame where the card is drawn light on a dark table."""
    w, h = 640, 360
    out = (320, 180)
    geometry, mask = geometry_target([{"corners": quad.tolist(), "occluded": 0.0}], (w, h), out)
    gray = np.full((h, w), 60, np.uint8)
    cv2.fillConvexPoly(gray, np.round(quad * 16).astype(np.int32), 230, cv2.LINE_AA, 4)
    return _cards_from_geometry(mask.astype(np.float32) * 0.95, geometry, gray, (w, h))


def test_a_whole_card_with_one_corner_touching_the_frame_edge_is_reported() -> None:
    whole = _turned_card((300, 0), 30)
    whole[:, 1] += 0.4 - whole[:, 1].min()  # its highest corner 0.4 px from the top edge
    found = _found_on_drawn_frame(whole)
    assert len(found) == 1 and quad_iou(found[0].corners, whole) > 0.9


def test_a_card_whose_corner_goes_on_past_the_frame_edge_is_not_reported() -> None:
    cut = _turned_card((300, 0), 30)
    cut[:, 1] -= cut[:, 1].min() + 6  # 6 px of its corner out of view
    assert _found_on_drawn_frame(cut) == []


def test_a_finder_without_a_geometry_head_is_refused_with_what_to_do(tmp_path) -> None:
    import json
    import shutil

    from scanner.find.segment import DEFAULT_MODEL, CardFinder

    old = tmp_path / "card_finder.onnx"
    shutil.copy(DEFAULT_MODEL, old)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    meta.pop("geometry")
    meta["version"] = 1
    old.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="without a geometry head.*tweak train-finder"):
        CardFinder(old)
    assert CardFinder(DEFAULT_MODEL).meta["geometry"]["channels"] == 6


def test_train_finder_defaults_are_the_shipped_finders_recipe() -> None:
    """``tweak train-finder`` with no options trains the finder that is shipped (reproducibly)."""
    import json

    from companion.cli import build_parser
    from scanner.find.segment import DEFAULT_MODEL

    args = build_parser().parse_args(["train-finder"])
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    training = meta["training"]
    assert (args.seed, args.scenes, args.epochs, args.piles, args.arch) == (
        training["seed"],
        training["scenes"],
        training["epochs"],
        training["piles"],
        training["arch"],
    )
    assert args.width == meta["input_width"]
    assert args.foreign == training.get("foreign", False)
    assert args.harsh_share == training.get("harsh_share", 4)  # (the shipped recipe predates the option)


def test_cli_train_finder_refuses_a_harsh_share_under_one_before_any_work(tmp_path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "train-finder", "--out", str(tmp_path), "--harsh-share", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "--harsh-share" in result.stderr and "Traceback" not in result.stderr
    assert not any(tmp_path.iterdir())


def test_the_target_counts_only_where_the_decks_top_card_is_in_view() -> None:
    from scanner.metrics import target_in_view

    def truth(role: str, occluded: float, truncated: bool = False) -> dict:
        card = {"label": "back-8", "role": role, "occluded": occluded, "truncated": truncated, "corners": []}
        return {"cards": [card], "target": 8}

    assert target_in_view(truth("deck", 0.1))
    assert target_in_view(truth("special", 0.0))  # the blue card lying in the deck's place
    assert not target_in_view(truth("deck", 0.6))  # under a hand
    assert not target_in_view(truth("deck", 0.0, truncated=True))  # cut by the frame
    assert not target_in_view(truth("won_pile", 0.0))  # a won pile's back is not the deck


def test_tweak_scan_says_what_to_do_with_an_old_finder_instead_of_a_traceback(monkeypatch, tmp_path, capsys) -> None:
    import scanner.scan
    from companion.cli import main
    from scanner.find.segment import FinderError

    def old_finder(*args, **kwargs):
        raise FinderError("models/card_finder.onnx is a card finder without a geometry head (version 1)")

    monkeypatch.setattr(scanner.scan, "load_scanner", old_finder)
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.zeros((90, 160, 3), np.uint8))
    assert main(["scan", str(image), "--json"]) == 2
    err = capsys.readouterr().err
    assert "tweak scan:" in err and "without a geometry head" in err and "Traceback" not in err


def test_groups_decode_at_once_as_each_does_alone() -> None:
    """The frame's pixel groups decoded in one array pass give each group's own quad and angle
    agreement (``decode_geometry``), with pixels of several groups interleaved."""
    from scanner.find.segment import _decode_groups

    rng = np.random.default_rng(3)
    geometry = rng.normal(0, 0.5, (6, 40, 60)).astype(np.float32)
    pts = np.stack([rng.integers(0, 60, 300) + 0.5, rng.integers(0, 40, 300) + 0.5], axis=1).astype(np.float32)
    weights = rng.uniform(0.5, 1.0, 300).astype(np.float32)
    group = rng.integers(0, 5, 300)
    g = geometry[:, pts[:, 1].astype(int), pts[:, 0].astype(int)]
    quads, agreement = _decode_groups(pts, g, weights, group, 5)
    for j in range(5):
        alone, how_sure = decode_geometry(geometry, pts[group == j], weights[group == j])
        assert np.allclose(quads[j], alone, atol=1e-3)
        assert agreement[j] == pytest.approx(how_sure, abs=1e-5)


def test_the_finder_runs_a_little_larger_than_it_was_trained_and_calibrates_as_trained() -> None:
    """The shipped finder was trained on frames 512 px wide and runs at 17/16 of that (544: more
    small and touching cards found, see ``FinderSettings.run_scale``); the 8-bit calibration takes the trained
    width, so the shipped 8-bit model stays reproducible (tests/test_quantize.py)."""
    from scanner.find.segment import DEFAULT_MODEL, SETTINGS, CardFinder

    frame = np.zeros((720, 1280, 3), np.uint8)
    assert CardFinder(DEFAULT_MODEL).meta["input_width"] == 512 and SETTINGS.run_scale == 17 / 16
    assert CardFinder(DEFAULT_MODEL).preprocess(frame).shape == (1, 3, 304, 544)
    assert CardFinder(DEFAULT_MODEL, run_scale=1.0).preprocess(frame).shape == (1, 3, 288, 512)
