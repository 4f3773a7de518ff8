"""Training and evaluation crops, cut from rendered tables (``synth.table``).

Each card of a scene gives a crop with slightly wrong corners (as a detector would find them),
upright or upside down (the orientation target); each scene also gives not-a-card crops: bare
table, coins, mat markers, the hand, and quads half on a card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from scanner.geometry.crops import CROP_H, CROP_W, card_crop, rotate_corners, warp_crop
from scanner.labels import CLASSES, NOT_A_CARD
from scanner.synth.table import render_table
from scanner.synth.varied import varied_deck

CLASS_INDEX = {label: i for i, label in enumerate(CLASSES)}
MAX_OCCLUDED = 0.25
PART_NEGATIVES = 3  # not-a-card crops of a part of a card, a scene (``parts``)


@dataclass
class CropSet:
    images: np.ndarray  # N x H x W x 3 uint8 (BGR)
    labels: np.ndarray  # N class indexes
    flipped: np.ndarray  # N: 1 if the crop shows the card upside down
    light: list[str]
    heldout: np.ndarray  # N bools: art style held out of training

    def __len__(self) -> int:
        return len(self.labels)


def _jitter(corners: np.ndarray, rng: random.Random, amount: float) -> np.ndarray:
    size = np.linalg.norm(corners[0] - corners[2])
    return corners + np.array([[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]) * amount * size


def _inside(corners: np.ndarray, w: int, h: int) -> bool:
    return bool(
        (corners[:, 0] >= 0).all()
        and (corners[:, 1] >= 0).all()
        and (corners[:, 0] < w).all()
        and (corners[:, 1] < h).all()
    )


def scene_crops(
    seed: int,
    harsh: bool,
    heldout_style: bool,
    jitter: float = 0.09,
    negatives: int = 3,
    light: str | None = None,
    coins: bool = False,
    varied: bool = False,
    parts: bool = False,
    varied_dark: float = 0.0,
    varied_backs: bool = False,
    varied_wide_backs: float = 0.0,
) -> Iterator[tuple[np.ndarray, int, int, str, bool]]:
    """(crop, class, flipped, light, heldout) for every usable card of one rendered scene, plus
    negatives (``coins``: also one on every coin no card covers; ``varied``: the number cards
    drawn anew each, ``synth.varied``, ``varied_dark`` of them on a near-black ground,
    ``varied_backs``: the backs too, ``varied_wide_backs`` of backs and T! backs the wider way;
    ``parts``: ``PART_NEGATIVES`` crops of parts of cards as not-a-card)."""
    style = varied_deck(varied_dark, varied_backs, varied_wide_backs) if varied else None
    rendered = render_table(
        seed, harsh=harsh, style=style, heldout_style=heldout_style, uniform_labels=True, light=light
    )
    rng = random.Random(seed * 7 + 1)
    truth = rendered.truth
    w, h = truth["width"], truth["height"]
    light_name = truth["conditions"]["light"]
    cards = [c for c in truth["cards"] if not c["truncated"]]
    for card in cards:
        if card["occluded"] > MAX_OCCLUDED:
            continue
        # corners as a detector finds them: some exact, some several pixels off
        corners = _jitter(np.array(card["corners"], np.float32), rng, jitter * rng.random())
        flipped = rng.random() < 0.5
        crop = card_crop(rendered.image, rotate_corners(corners, 2) if flipped else corners)
        yield crop, CLASS_INDEX[card["label"]], int(flipped), light_name, heldout_style
    # not-a-card crops: card-sized quads on the bare table, or half on a card
    sizes = [np.linalg.norm(np.array(c["corners"][1]) - np.array(c["corners"][0])) for c in cards] or [60.0]
    card_w = float(np.median(sizes))
    centres = np.array([np.mean(c["corners"], axis=0) for c in truth["cards"]]) if truth["cards"] else np.zeros((0, 2))
    made = 0
    for _ in range(negatives * 10):
        if made >= negatives:
            break
        angle = rng.uniform(0, np.pi)
        cw, ch = card_w * rng.uniform(0.8, 1.2), card_w * 88 / 63 * rng.uniform(0.8, 1.2)
        rot = _rotation(angle)
        if rng.random() < 0.3 and len(cards):
            base = np.mean(rng.choice(cards)["corners"], axis=0)
            centre = base + rot @ np.array([cw * rng.choice((-0.6, 0.6)), ch * rng.uniform(-0.3, 0.3)])
        else:
            centre = np.array([rng.uniform(0, w), rng.uniform(0, h)])
            if len(centres) and np.min(np.linalg.norm(centres - centre, axis=1)) < card_w * 1.3:
                continue
        quad = _box(cw, ch, rot, centre)
        if not _inside(quad, w, h):
            continue
        made += 1
        yield warp_crop(rendered.image, quad), CLASS_INDEX[NOT_A_CARD], 0, light_name, heldout_style
    if parts:
        # a part of a card (a numeral on its plate, a panel, an inner frame) is not a card: varied
        # cards put their numeral on plates of every shape, and a network taught only whole cards
        # reads the plate alone as one (own random stream: the crops above stay as they were)
        part_rng = random.Random(seed * 7 + 3)
        for card in part_rng.sample(cards, min(len(cards), PART_NEGATIVES)):
            if card["occluded"] > 0.05:  # (the part might be the hidden one)
                continue
            corners = np.array(card["corners"], np.float32)
            # (at most 0.75 of the card: a crop of more is a card found a little small)
            scale = part_rng.uniform(0.4, 0.75)
            u, v = (part_rng.uniform(-0.05 - (1 - scale) / 2, 0.05 + (1 - scale) / 2) for _ in range(2))
            centre = corners.mean(axis=0)
            across = (corners[1] - corners[0] + corners[2] - corners[3]) / 2
            down = (corners[3] - corners[0] + corners[2] - corners[1]) / 2
            quad = centre + u * across + v * down + (corners - centre) * scale
            # (cut as the scanner cuts a card it found: with the table around)
            yield card_crop(rendered.image, quad), CLASS_INDEX[NOT_A_CARD], 0, light_name, heldout_style
    if not coins:
        return
    # a coin on the table, outlined as a card (the finder marks some): a round shape in the middle
    # looked like a T! bomb to a classifier that had not seen coins (own random stream: the crops
    # above stay as they were)
    coin_rng = random.Random(seed * 7 + 2)
    for x, y, _ in truth.get("coins", []):
        if any(cv2.pointPolygonTest(np.array(c["corners"], np.float32), (x, y), False) >= 0 for c in truth["cards"]):
            continue  # (a coin under a card: the crop would show the card)
        angle = coin_rng.uniform(0, np.pi)
        cw, ch = card_w * coin_rng.uniform(0.9, 1.1), card_w * 88 / 63 * coin_rng.uniform(0.9, 1.1)
        rot = _rotation(angle)
        centre = np.array([x, y]) + rot @ np.array([cw, ch]) * coin_rng.uniform(-0.15, 0.15)
        quad = _box(cw, ch, rot, centre)
        if _inside(quad, w, h):
            yield warp_crop(rendered.image, quad), CLASS_INDEX[NOT_A_CARD], 0, light_name, heldout_style


def _rotation(angle: float) -> np.ndarray:
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


def _box(width: float, height: float, rotation: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """A width x height quad turned by ``rotation`` about ``centre`` (a not-a-card crop's outline)."""
    half = np.array([[-width, -height], [width, -height], [width, height], [-width, height]]) / 2
    return half @ rotation.T + centre


def build(
    seeds: range | list[int],
    harsh: bool,
    heldout_style: bool = False,
    light: str | None = None,
    processes: int = 1,
    coins: bool = False,
    varied: bool = False,
    parts: bool = False,
    varied_dark: float = 0.0,
    varied_backs: bool = False,
    varied_wide_backs: float = 0.0,
) -> CropSet:
    """Crops of many scenes (optionally in several processes; the result does not depend on it)."""
    args = [
        (seed, harsh, heldout_style, light, coins, varied, parts, varied_dark, varied_backs, varied_wide_backs)
        for seed in seeds
    ]
    if processes > 1:
        import multiprocessing

        # spawned, not forked: a fork copies OpenCV's thread pool mid-use when this process has
        # rendered before, and the child can wait forever on it; one OpenCV thread a process, as
        # with its default (a thread a core) in every process, many processes fight over the cores
        context = multiprocessing.get_context("spawn")
        with context.Pool(processes, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
            parts = pool.starmap(_scene_list, args, chunksize=8)
    else:
        parts = [_scene_list(*a) for a in args]
    items = [item for part in parts for item in part]
    if not items:
        return CropSet(
            np.zeros((0, CROP_H, CROP_W, 3), np.uint8),
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
            [],
            np.zeros(0, bool),
        )
    return CropSet(
        np.stack([i[0] for i in items]),
        np.array([i[1] for i in items], np.int64),
        np.array([i[2] for i in items], np.int64),
        [i[3] for i in items],
        np.array([i[4] for i in items], bool),
    )


def _scene_list(
    seed: int,
    harsh: bool,
    heldout_style: bool,
    light: str | None,
    coins: bool = False,
    varied: bool = False,
    parts: bool = False,
    varied_dark: float = 0.0,
    varied_backs: bool = False,
    varied_wide_backs: float = 0.0,
) -> list:
    varied_kinds = {
        "varied": varied,
        "varied_dark": varied_dark,
        "varied_backs": varied_backs,
        "varied_wide_backs": varied_wide_backs,
    }
    return list(scene_crops(seed, harsh, heldout_style, light=light, coins=coins, parts=parts, **varied_kinds))
