"""The virtual table: synthetic overhead photos of a TWEAK table, with ground truth.

A scene is laid out in table millimetres (the central deck showing its top back, the T! pile,
face-up T! cards and face-down won piles in front of each player, face-up cards in the centre),
drawn on a surface (wood, felt, cloth, a printed mat), seen by a camera with any rotation, tilt and
lens distortion, in 1280x720 to 1920x1080 frames, under warm or cool light with gradients,
shadows, glare, blur, noise and JPEG, sometimes with a hand or an arm over the table.

Everything is drawn from one ``random.Random``: the same seed gives the same image and truth.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from scanner.labels import BACKS, FACES, LABELS, TWEAK_FACES
from scanner.synth.cards import CARD_MASK, CARD_MM, ArtStyle, random_style, render_card, render_foreign_card
from scanner.synth.clutter import Clutter, clutter_picture, random_clutter, rotated_rectangle
from scanner.synth.families import ABSTRACT_DECK, AnewDeck, FamilyDeck

FRAME_SIZES = ((1280, 720), (1600, 900), (1920, 1080))
SURFACES = ("wood", "felt", "cloth", "checked", "mat", "dark")
# tables of scenes with another deck's cards (the card finder's training): floor boards, bright cloth
FOREIGN_SURFACES = SURFACES + ("planks", "planks", "bright")
MAT_MARKERS = (0, 1, 2, 3)  # ArUco 4x4_50 ids at the mat's corners: top-left, top-right, bottom-right, bottom-left
ROLE_ZONES = {"centre": "centre", "deck": "deck", "special": "deck", "tweak_pile": "tweak_pile"}


@dataclass
class Conditions:
    """How the photo is taken."""

    width: int
    height: int
    surface: str
    light: str  # warm | cool | neutral
    kelvin: int
    tilt: float
    distortion: float
    gradient: float
    shadow: bool
    glare: bool
    blur: float
    noise: float
    jpeg: int
    hand: bool
    camera_angle: float | None = None  # radians; None: a random turn of the camera
    # the camera this many times closer (>1: cards larger) than one framing the whole table: the
    # camera's height over the table, or its lens, is the user's
    zoom: float = 1.0


def random_conditions(rng: random.Random, harsh: bool = False, light: str | None = None) -> Conditions:
    w, h = rng.choice(FRAME_SIZES)
    light = light or rng.choice(("warm", "cool", "neutral"))
    kelvin = {"warm": rng.randint(2700, 3400), "cool": rng.randint(5800, 7000), "neutral": rng.randint(4200, 5200)}[
        light
    ]
    hardness = 1.0 if harsh else rng.uniform(0.2, 0.8)
    return Conditions(
        width=w,
        height=h,
        surface=rng.choice(SURFACES),
        light=light,
        kelvin=kelvin,
        tilt=rng.uniform(0, 0.08 * hardness + 0.01),
        distortion=rng.uniform(-0.12, 0.04) * hardness,
        gradient=rng.uniform(0.1, 0.45) * hardness,
        shadow=rng.random() < 0.5 * hardness + 0.1,
        glare=rng.random() < 0.5 * hardness + 0.1,
        blur=rng.uniform(0, 1.6 * hardness),
        noise=rng.uniform(0, 9 * hardness),
        jpeg=int(rng.uniform(95 - 55 * hardness, 95)),
        hand=rng.random() < 0.35 * hardness + 0.05,
    )


@dataclass
class PlacedCard:
    label: str
    centre: tuple[float, float]  # mm
    angle: float  # degrees
    role: str  # centre | deck | special | tweak_pile | tweak_card | won_pile | under (hidden stack layer)
    player: int | None = None

    def corners_mm(self) -> np.ndarray:
        return rotated_rectangle(self.centre, CARD_MM, self.angle)


@dataclass
class Scene:
    """A table layout in millimetres."""

    size_mm: tuple[float, float]
    cards: list[PlacedCard] = field(default_factory=list)
    coins: list[tuple[float, float, float]] = field(default_factory=list)  # x, y, radius mm
    players: int = 4
    clutter: list[Clutter] = field(default_factory=list)  # things on the table that are not cards
    target: int | None = None


def _overlaps(occupancy: np.ndarray, poly: np.ndarray, margin: float) -> bool:
    mask = np.zeros_like(occupancy)
    centre = poly.mean(axis=0)
    grown = centre + (poly - centre) * (1 + margin)
    cv2.fillConvexPoly(mask, (grown / 2).astype(np.int32), 1)
    return bool((mask & occupancy).any())


def _occupy(occupancy: np.ndarray, poly: np.ndarray) -> None:
    cv2.fillConvexPoly(occupancy, (poly / 2).astype(np.int32), 1)


def random_scene(
    rng: random.Random, n_centre: int | None = None, uniform_labels: bool = False, clutter: bool = False
) -> Scene:
    """A plausible table: deck, T! pile, player areas, centre cards (``uniform_labels``: centre
    cards drawn from all 46 labels, to train and test every class evenly; ``clutter``: things that
    are not cards where the table is free, ``synth.clutter``)."""
    width, height = rng.uniform(700, 1000), rng.uniform(500, 700)
    players = rng.randint(2, 6)
    scene = Scene((width, height), players=players)
    occupancy = np.zeros((int(height / 2) + 2, int(width / 2) + 2), np.uint8)
    cx, cy = width / 2, height / 2

    def place(
        label: str,
        centre: tuple[float, float],
        angle: float,
        role: str,
        player: int | None = None,
        margin: float = 0.05,
        force: bool = False,
    ) -> bool:
        card = PlacedCard(label, centre, angle, role, player)
        poly = card.corners_mm()
        if poly.min() < 0 or (poly[:, 0].max() > width) or (poly[:, 1].max() > height):
            return False
        if not force and _overlaps(occupancy, poly, margin):
            return False
        _occupy(occupancy, poly)
        scene.cards.append(card)
        return True

    def stack(
        top: str,
        under: str,
        centre: tuple[float, float],
        angle: float,
        role: str,
        layers: int,
        player: int | None = None,
        messy: float = 1.0,
    ) -> None:
        for i in range(layers):
            jitter = (rng.uniform(-2, 2) * messy, rng.uniform(-2, 2) * messy)
            c = (centre[0] + jitter[0] + i * 0.4, centre[1] + jitter[1] - i * 0.6)
            a = angle + rng.uniform(-4, 4) * messy
            if i == layers - 1:
                placed = place(top, c, a, role, player, margin=0.02)
                if not placed:
                    place(top, c, a, role, player, force=True)
            else:
                scene.cards.append(PlacedCard(under, c, a, "under", player))

    # the central deck (or the blue card once it is empty) and the T! pile, beside the centre
    deck_angle = rng.uniform(-180, 180)
    deck_pos = (cx + rng.uniform(-60, 60), cy - rng.uniform(110, 150))
    if rng.random() < 0.12:
        scene.target = 7
        stack("special-7", "special-7", deck_pos, deck_angle, "special", 1)
    else:
        back = rng.choice(BACKS)
        scene.target = int(back.split("-")[1])
        stack(back, rng.choice(BACKS), deck_pos, deck_angle, "deck", rng.randint(2, 6), messy=0.6)
    if rng.random() < 0.9:
        stack(
            "tweak-back",
            "tweak-back",
            (deck_pos[0] + rng.uniform(85, 110), deck_pos[1] + rng.uniform(-10, 10)),
            deck_angle + rng.uniform(-10, 10),
            "tweak_pile",
            rng.randint(1, 5),
            messy=0.6,
        )
    # player areas around the edge: won piles (black backs up) and face-up T! cards
    for p in range(players):
        theta = 2 * math.pi * p / players + rng.uniform(-0.2, 0.2)
        rx, ry = width / 2 - 70, height / 2 - 70
        base = (cx + rx * math.cos(theta), cy + ry * math.sin(theta))
        facing = math.degrees(theta) + 90
        if rng.random() < 0.7:
            stack(
                rng.choice(BACKS),
                rng.choice(BACKS),
                base,
                facing + rng.uniform(-20, 20),
                "won_pile",
                rng.randint(1, 5),
                player=p,
                messy=2.0,
            )
        for k in range(rng.choice((0, 0, 1, 1, 2))):
            along = (k + 1) * 75 * (1 if rng.random() < 0.5 else -1)
            pos = (base[0] - along * math.sin(theta) * 0.9, base[1] + along * math.cos(theta) * 0.9)
            place(rng.choice(TWEAK_FACES), pos, facing + rng.uniform(-25, 25), "tweak_card", p)
    # the centre: face-up cards, loosely in rows, sometimes touching
    n_centre = rng.randint(1, 16) if n_centre is None else n_centre
    pool = list(LABELS) if uniform_labels else list(FACES)
    row_angle = rng.uniform(-180, 180)
    gap = rng.choice((rng.uniform(0.5, 3), rng.uniform(5, 30)))
    cols = max(1, min(n_centre, rng.randint(3, 6)))
    a = math.radians(row_angle)
    ux, uy = math.cos(a), math.sin(a)
    placed = 0
    for i in range(n_centre * 4):
        if placed >= n_centre:
            break
        slot = placed if i < n_centre else rng.randint(0, 30)
        col, row = slot % cols, slot // cols
        ox = (col - (cols - 1) / 2) * (CARD_MM[0] + gap) + rng.uniform(-3, 3)
        oy = (row - 0.5) * (CARD_MM[1] + gap) + 30 + rng.uniform(-3, 3)
        pos = (cx + ox * ux - oy * uy, cy + ox * uy + oy * ux)
        if i >= n_centre:
            pos = (rng.uniform(60, width - 60), rng.uniform(60, height - 60))
        if place(rng.choice(pool), pos, row_angle + rng.uniform(-12, 12), "centre", margin=0.0 if gap < 3 else 0.05):
            placed += 1
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        scene.coins.append((rng.uniform(30, width - 30), rng.uniform(30, height - 30), rng.uniform(9, 13)))
    if clutter:

        def free(poly: np.ndarray) -> bool:
            inside = poly.min() >= 0 and poly[:, 0].max() <= width and poly[:, 1].max() <= height
            if not inside or _overlaps(occupancy, poly, 0.1):
                return False
            _occupy(occupancy, poly)
            return True

        scene.clutter = random_clutter(rng, width, height, free)
    return scene


# --- drawing -------------------------------------------------------------------------------------


def _surface(kind: str, size: tuple[int, int], rng: random.Random, margin: int = 0) -> np.ndarray:
    """A table surface texture, ``size`` = (w, h) at 1 px per mm; a mat lies ``margin`` inside."""
    w, h = size
    nprng = np.random.default_rng(rng.randrange(2**32))
    if kind == "wood":
        base = np.array([rng.randint(40, 90), rng.randint(80, 130), rng.randint(120, 190)], np.float32)
        x = np.linspace(0, rng.uniform(20, 60), w, dtype=np.float32)
        y = np.linspace(0, rng.uniform(2, 6), h, dtype=np.float32)[:, None]
        grain = np.sin(x[None, :] + 3 * np.sin(y + x[None, :] * 0.05)) * 0.12
        grain += nprng.normal(0, 0.04, (h, w)).astype(np.float32)
        img = base[None, None, :] * (1 + grain[..., None])
    elif kind == "felt":
        base = np.array(rng.choice([(60, 110, 30), (110, 60, 20), (40, 40, 130), (70, 70, 70)]), np.float32)
        img = base[None, None, :] * (1 + nprng.normal(0, 0.06, (h, w, 1)).astype(np.float32))
    elif kind == "checked":
        ink = np.array(rng.choice([(40, 40, 200), (160, 60, 20), (40, 120, 40), (30, 30, 30)]), np.float32)
        square = rng.uniform(15, 60)
        xs = (np.arange(w) // square % 2).astype(np.float32)
        ys = (np.arange(h) // square % 2).astype(np.float32)
        weave = (xs[None, :] + ys[:, None]) / 2  # 0, 0.5, 1: gingham
        white = np.array([235, 235, 235], np.float32)
        img = white * (1 - weave[..., None]) + ink * weave[..., None]
        img *= 1 + nprng.normal(0, 0.03, (h, w, 1)).astype(np.float32)
    elif kind == "cloth":
        base = np.array([rng.randint(150, 235) for _ in range(3)], np.float32)
        img = base[None, None, :] * (1 + nprng.normal(0, 0.05, (h, w, 1)).astype(np.float32))
        img = cv2.GaussianBlur(img, (3, 3), 0)
    elif kind == "mat":
        img = np.full((h, w, 3), rng.randint(40, 90), np.float32)  # the table under the mat
        img *= 1 + nprng.normal(0, 0.05, (h, w, 1)).astype(np.float32)
        m = margin
        img[m : h - m, m : w - m] = rng.randint(215, 245)
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        side, inset = 60, 15
        spots = [
            (m + inset, m + inset),
            (w - m - inset - side, m + inset),
            (w - m - inset - side, h - m - inset - side),
            (m + inset, h - m - inset - side),
        ]
        for marker, (mx, my) in zip(MAT_MARKERS, spots):
            tile = cv2.aruco.generateImageMarker(dictionary, marker, side).astype(np.float32)
            img[my : my + side, mx : mx + side] = tile[..., None]
        cv2.rectangle(img, (m + 90, m + 90), (w - m - 90, h - m - 90), (150, 150, 150), 2)
    elif kind == "planks":  # a floor of boards: each its own shade and grain, dark seams between
        width = rng.uniform(70, 180)
        across = np.arange(w if rng.random() < 0.5 else h)
        board = (across // width).astype(int)
        tone = np.array([rng.randint(25, 70), rng.randint(35, 90), rng.randint(50, 130)], np.float32)
        shades = 1 + nprng.normal(0, 0.12, board.max() + 2).astype(np.float32)
        along = np.arange(h if len(across) == w else w, dtype=np.float32)
        grain = 0.08 * np.sin(along[:, None] * rng.uniform(0.02, 0.08) + board[None, :] * 1.7 + across[None, :] * 0.3)
        plane = shades[board][None, :] * (1 + grain) + nprng.normal(0, 0.03, (len(along), len(across))).astype(
            np.float32
        )
        plane[:, (across % width) < 2] *= 0.45  # the seams
        plane = plane if len(across) == w else plane.T
        img = tone[None, None, :] * plane[..., None]
    elif kind == "bright":
        hsv = np.uint8([[[rng.randint(0, 179), rng.randint(120, 255), rng.randint(110, 230)]]])
        base = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        img = base[None, None, :] * (1 + nprng.normal(0, 0.04, (h, w, 1)).astype(np.float32))
    else:  # dark
        level = rng.randint(15, 45)
        img = np.full((h, w, 3), level, np.float32) * (1 + nprng.normal(0, 0.08, (h, w, 1)).astype(np.float32))
    return np.clip(img, 0, 255).astype(np.uint8)


def _camera(scene: Scene, cond: Conditions, rng: random.Random) -> np.ndarray:
    """Homography from table millimetres to image pixels: rotation, scale, tilt."""
    w_mm, h_mm = scene.size_mm
    angle = rng.uniform(-math.pi, math.pi)
    if cond.camera_angle is not None:  # a mounted camera, square to the table
        angle = cond.camera_angle
    # scale so that the rotated table fits the frame, with a little zoom in or out
    c, s = abs(math.cos(angle)), abs(math.sin(angle))
    bw, bh = w_mm * c + h_mm * s, w_mm * s + h_mm * c
    scale = min(cond.width / bw, cond.height / bh) * rng.uniform(0.95, 1.15)
    if cond.camera_angle is not None:
        scale = min(cond.width / bw, cond.height / bh) * 0.92  # framed to show the whole table
    scale *= cond.zoom
    table = np.array([[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], np.float32) - np.array([w_mm / 2, h_mm / 2])
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)
    image_pts = table @ rot.T * scale + np.array([cond.width / 2, cond.height / 2])
    tilt = cond.tilt * min(cond.width, cond.height)
    image_pts += np.array([[rng.uniform(-tilt, tilt), rng.uniform(-tilt, tilt)] for _ in range(4)])
    world = np.array([[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], np.float32)
    return cv2.getPerspectiveTransform(world, image_pts.astype(np.float32))


def _project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)


def _distort_points(pts: np.ndarray, k: float, size: tuple[int, int]) -> np.ndarray:
    """Forward radial distortion of points (inverse of the remap below, by fixed-point iteration)."""
    w, h = size
    centre = np.array([w / 2, h / 2])
    norm = w / 2
    undist = (pts - centre) / norm
    dist = undist.copy()
    for _ in range(20):
        r2 = (dist**2).sum(axis=1, keepdims=True)
        dist = undist / (1 + k * r2)
    return dist * norm + centre


def _distort_image(img: np.ndarray, k: float) -> np.ndarray:
    h, w = img.shape[:2]
    norm = w / 2
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = (xs - w / 2) / norm, (ys - h / 2) / norm
    factor = 1 + k * (dx * dx + dy * dy)
    return cv2.remap(
        img, dx * factor * norm + w / 2, dy * factor * norm + h / 2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )


def _paste(
    frame: np.ndarray,
    card: np.ndarray,
    quad: np.ndarray,
    owner: np.ndarray,
    index: int,
    alpha_mask: np.ndarray = CARD_MASK,
) -> None:
    """Warp ``card`` onto ``frame`` at ``quad`` (4 image points); mark its pixels ``index`` in ``owner``."""
    h, w = frame.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [card.shape[1], 0], [card.shape[1], card.shape[0]], [0, card.shape[0]]], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0])).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(card, m, size, flags=cv2.INTER_AREA if size[0] < card.shape[1] else cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(alpha_mask, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    region = frame[y0:y1, x0:x1].astype(np.float32)
    frame[y0:y1, x0:x1] = (region * (1 - alpha) + warped.astype(np.float32) * alpha).astype(np.uint8)
    owner[y0:y1, x0:x1][alpha[..., 0] > 0.5] = index


def _shadow_under(frame: np.ndarray, quad: np.ndarray, offset: np.ndarray, strength: float) -> None:
    h, w = frame.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0) - 12).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0) + 12).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, (quad + offset - np.array([x0, y0])).astype(np.int32), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), 3)
    frame[y0:y1, x0:x1] = (frame[y0:y1, x0:x1] * (1 - strength * mask[..., None])).astype(np.uint8)


def _arm(frame_shape: tuple[int, int], rng: random.Random) -> tuple[np.ndarray, tuple[int, int, int]]:
    """A hand and forearm reaching in from an edge: mask and skin colour."""
    h, w = frame_shape
    mask = np.zeros((h, w), np.uint8)
    edge = rng.randint(0, 3)
    t = rng.uniform(0.2, 0.8)
    start = [(t * w, -20), (w + 20, t * h), (t * w, h + 20), (-20, t * h)][edge]
    reach = rng.uniform(0.25, 0.55) * min(w, h)
    direction = [(0, 1), (-1, 0), (0, -1), (1, 0)][edge]
    wobble = rng.uniform(-0.5, 0.5)
    dx, dy = direction[0] + wobble * direction[1], direction[1] + wobble * direction[0]
    norm = math.hypot(dx, dy)
    end = (start[0] + dx / norm * reach, start[1] + dy / norm * reach)
    width = int(min(w, h) * rng.uniform(0.07, 0.11))
    cv2.line(mask, tuple(map(int, start)), tuple(map(int, end)), 255, width, cv2.LINE_AA)
    cv2.ellipse(
        mask,
        tuple(map(int, end)),
        (int(width * 0.9), int(width * 0.7)),
        math.degrees(math.atan2(dy, dx)),
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
    )
    skin = rng.choice([(120, 160, 220), (90, 130, 190), (60, 90, 140), (40, 60, 95), (150, 180, 230)])
    return mask, skin


def arm_over(frame: np.ndarray, rng: random.Random) -> np.ndarray:
    """``frame`` with a hand and forearm reaching in over it (a player moving cards)."""
    mask, skin = _arm(frame.shape[:2], rng)
    shade = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 3)[..., None]
    return (frame * (1 - shade) + np.array(skin, np.float32) * shade).astype(np.uint8)


def _white_balance(kelvin: int) -> np.ndarray:
    """Per-channel (B, G, R) gains that tint a frame like light of ``kelvin`` on a daylight camera."""
    t = (kelvin - 5000) / 2000  # -1 warm (3000 K) .. +1 cool (7000 K)
    return np.array([1 + 0.22 * t, 1 + 0.02 * t, 1 - 0.16 * t], np.float32)


@dataclass
class RenderedTable:
    image: np.ndarray
    truth: dict[str, Any]


def render_table(
    seed: int,
    harsh: bool = False,
    style: ArtStyle | FamilyDeck | AnewDeck | None = None,
    heldout_style: bool = False,
    uniform_labels: bool = False,
    n_centre: int | None = None,
    light: str | None = None,
    conditions: Conditions | None = None,
    foreign: bool = False,
    abstract: bool = False,
    clutter: bool = False,
    zoom: float = 1.0,
) -> RenderedTable:
    """One synthetic overhead photo of a table, and its ground truth (labels, corners).
    ``foreign``: every card is printed as another deck's (``render_foreign_card``; the labels
    then only say where the TWEAK cards would lie), on more kinds of table. ``abstract``: every
    card's face is random content of no deck (``families.render_abstract_card``), likewise.
    ``clutter``: things that are not cards lie on the table too (``synth.clutter``). ``zoom``: the
    camera that many times closer (``Conditions.zoom``)."""
    rng = random.Random(seed)
    style = style or random_style(rng, heldout=heldout_style)
    cond = conditions or random_conditions(rng, harsh=harsh, light=light)
    if zoom != 1.0:
        cond = replace(cond, zoom=zoom)
    if (foreign or abstract) and conditions is None:
        cond = replace(cond, surface=rng.choice(FOREIGN_SURFACES))
    scene = random_scene(rng, n_centre=n_centre, uniform_labels=uniform_labels, clutter=clutter)
    return draw_scene(scene, cond, ABSTRACT_DECK if abstract else style, rng, seed, foreign)


def draw_scene(
    scene: Scene,
    cond: Conditions,
    style: ArtStyle | FamilyDeck | AnewDeck,
    rng: random.Random,
    seed: int,
    foreign: bool = False,
) -> RenderedTable:
    """Photograph ``scene``: camera, surface, cards, hand, lens and light, from ``rng``. ``style``:
    a training style or a deck of another art family (``families.FamilyDeck``)."""
    hom = _camera(scene, cond, rng)
    size = (cond.width, cond.height)
    # the surface, drawn at 1 px/mm over a margin around the table, then seen by the camera
    margin = 400
    tex = _surface(cond.surface, (int(scene.size_mm[0]) + 2 * margin, int(scene.size_mm[1]) + 2 * margin), rng, margin)
    shift = np.array([[1, 0, -margin], [0, 1, -margin], [0, 0, 1]], np.float64)
    frame = cv2.warpPerspective(tex, hom @ shift, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    light_dir = np.array([rng.uniform(-4, 4), rng.uniform(-4, 4)])
    for x, y, r in scene.coins:
        ring = np.array([[x + r * math.cos(t), y + r * math.sin(t)] for t in np.linspace(0, 2 * math.pi, 24)])
        pts = _project(hom, ring).astype(np.int32)
        colour = rng.choice([(150, 150, 155), (60, 140, 190), (70, 110, 160)])
        cv2.fillPoly(frame, [pts], colour, cv2.LINE_AA)
        cv2.polylines(frame, [pts], True, tuple(int(c * 0.7) for c in colour), 2, cv2.LINE_AA)
    owner = np.full((cond.height, cond.width), -1, np.int32)  # which card each pixel shows (-1: none)
    clutter = []  # where the things that are not cards lie in the picture
    for item in scene.clutter:
        quad = _project(hom, item.corners_mm())
        _shadow_under(frame, quad, light_dir, 0.35)
        picture, alpha = clutter_picture(item)
        _paste(frame, picture, quad, owner, -1, alpha)
        corners = _distort_points(quad, cond.distortion, size) if cond.distortion else quad
        clutter.append({"kind": item.kind, "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners]})
    records: list[dict[str, Any]] = []
    for index, placed in enumerate(scene.cards):
        quad = _project(hom, placed.corners_mm())
        _shadow_under(frame, quad, light_dir, 0.35)
        if foreign:
            art = render_foreign_card(rng)
        elif hasattr(style, "render"):  # a deck of another art family, or the user's own
            art = style.render(placed.label, rng)
        else:
            art = render_card(placed.label, style, rng)
        _paste(frame, art, quad, owner, index)  # a card on top hides what is under it
        records.append(
            {
                "label": placed.label,
                "role": placed.role,
                "player": placed.player,
                "quad": quad,
                "area": float(cv2.contourArea(quad.astype(np.float32))),
            }
        )
    hand_mask = None
    if cond.hand:
        hand_mask, skin = _arm((cond.height, cond.width), rng)
        shade = cv2.GaussianBlur(hand_mask.astype(np.float32) / 255, (0, 0), 3)[..., None]
        skin_img = np.empty_like(frame)
        skin_img[:] = skin
        frame = (frame * (1 - shade) + skin_img * shade).astype(np.uint8)
        owner[hand_mask > 0] = -1
    if cond.distortion:
        frame = _distort_image(frame, cond.distortion)
    frame = _photometric(frame, cond, rng, records)
    visible_px = np.bincount(owner[owner >= 0].ravel(), minlength=len(records))
    cards = []
    for record, shown in zip(records, visible_px):
        if record["role"] == "under":
            continue
        corners = _distort_points(record["quad"], cond.distortion, size) if cond.distortion else record["quad"]
        truncated = bool(
            (corners[:, 0] < 0).any()
            or (corners[:, 1] < 0).any()
            or (corners[:, 0] >= cond.width).any()
            or (corners[:, 1] >= cond.height).any()
        )
        visible = float(shown) / max(record["area"], 1.0)
        cards.append(
            {
                "label": record["label"],
                "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
                "role": record["role"],
                "zone": ROLE_ZONES.get(
                    record["role"], f"player-{record['player']}" if record["player"] is not None else None
                ),
                "occluded": round(max(0.0, 1.0 - visible), 3),
                "truncated": truncated,
            }
        )
    coins = []  # where coins lie in the picture (centre x, y and radius, px): not cards
    for x, y, r in scene.coins:
        rim = _project(hom, np.array([[x, y], [x + r, y], [x, y + r]], np.float64))
        if cond.distortion:
            rim = _distort_points(rim, cond.distortion, size)
        radius = float(np.linalg.norm(rim[1:] - rim[0], axis=1).mean())
        coins.append([round(float(rim[0, 0]), 2), round(float(rim[0, 1]), 2), round(radius, 2)])
    truth = {
        "seed": seed,
        "width": cond.width,
        "height": cond.height,
        "target": scene.target,
        "players": scene.players,
        "conditions": asdict(cond),
        "style": {"font": style.font, "layout": style.layout, "heldout": style.heldout}
        | ({"family": style.family, "deck": style.seed} if isinstance(style, FamilyDeck) else {}),
        "cards": cards,
        "coins": coins,
        **({"clutter": clutter} if scene.clutter else {}),
        "homography": hom.tolist(),  # table millimetres -> image pixels (before the lens distortion)
    }
    if cond.surface == "mat":  # the printed mat's layout (scanner.geometry.mat.MatLayout), in table millimetres
        truth["mat"] = {"width": int(scene.size_mm[0]), "height": int(scene.size_mm[1]), "marker": 60, "inset": 15}
    return RenderedTable(frame, truth)


def _photometric(frame: np.ndarray, cond: Conditions, rng: random.Random, records: list[dict]) -> np.ndarray:
    h, w = frame.shape[:2]
    # smooth fields (light gradient, vignetting, cast shadow, glare) are computed at 1/8 size
    sh, sw = h // 8, w // 8
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    gx, gy = rng.uniform(-1, 1), rng.uniform(-1, 1)
    field = 1 + cond.gradient * ((xx / sw - 0.5) * gx + (yy / sh - 0.5) * gy)
    field *= 1 - 0.25 * cond.gradient * (((xx / sw - 0.5) ** 2 + (yy / sh - 0.5) ** 2) * 2)
    if cond.shadow:  # a soft shadow cast by someone leaning over
        shadow = np.zeros((sh, sw), np.float32)
        centre = (int(rng.uniform(0, sw)), int(rng.uniform(0, sh)))
        axes = (int(rng.uniform(0.15, 0.4) * sw), int(rng.uniform(0.15, 0.4) * sh))
        cv2.ellipse(shadow, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        shadow = cv2.GaussianBlur(shadow, (0, 0), min(sw, sh) * 0.05)
        field *= 1 - rng.uniform(0.25, 0.5) * shadow
    glare = None
    if cond.glare and records:  # a soft highlight on a glossy card
        target = rng.choice([r for r in records if r["role"] != "under"] or records)
        cx, cy = (target["quad"].mean(axis=0) + np.array([rng.uniform(-15, 15), rng.uniform(-15, 15)])) / 8
        radius = math.sqrt(max(target["area"], 100)) * rng.uniform(0.25, 0.6) / 8
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius**2)) * rng.uniform(80, 170)
    gains = _white_balance(cond.kelvin)
    field_full = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    img = frame.astype(np.float32)
    if glare is not None:
        img += cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    img *= field_full[..., None] * gains[None, None, :]
    if cond.blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), cond.blur)
    if cond.noise > 0:
        noise = np.random.default_rng(rng.randrange(2**32)).standard_normal(img.shape, dtype=np.float32)
        img += noise * cond.noise
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, cond.jpeg])
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@dataclass
class TableState:
    """What a game state puts on the table, for the virtual camera."""

    players: int
    table: list[str | None]  # face-up centre cards by slot, as labels ("red-5"); None: an empty slot
    deck_back: int | None  # the deck's top back; None once the deck is gone (the blue card shows)
    tweak_pile: int  # T! cards left in the pile
    tweak_cards: list[list[str]]  # per player: their T! cards ("tweak-joker"; "tweak-back" once used)
    won: list[int]  # per player: cards in the won pile
    given: list[list[str]] = field(default_factory=list)  # per player: cards laid in front of them (Thief, Bomb)


CENTRE_MM = (-370.0, -60.0, 370.0, 165.0)  # the centre cards' area around the table's middle: x0, y0, x1, y1
T_CARD_ALONG = (72, -72, 144, -144, 216, -216, 288, -288)  # T! cards along the edge, both sides of the won pile


def state_scene(state: TableState, seed: int) -> Scene:
    """A fixed table layout for a game state: the same card keeps its place from state to state
    (centre slots in order), so a virtual camera sees only what the game changed."""
    rng = random.Random(seed * 7919 + 17)
    width, height = 1000.0, 580.0  # about the frame's shape, so the camera uses all its pixels
    scene = Scene((width, height), players=state.players)
    cx, cy = width / 2, height / 2
    deck_pos = (cx - 45, cy - 125)
    if state.deck_back is None:
        scene.target = 7
        scene.cards.append(PlacedCard("special-7", deck_pos, 2.0, "special"))
    else:
        scene.target = state.deck_back
        scene.cards += [
            PlacedCard("back-8", (deck_pos[0] + i * 0.4, deck_pos[1] - i * 0.6), 2.0, "under")
            for i in range(min(4, max(0, (state.deck_back and 3))))
        ]
        scene.cards.append(PlacedCard(f"back-{state.deck_back}", (deck_pos[0] + 2, deck_pos[1] - 3), 2.0, "deck"))
    if state.tweak_pile:
        scene.cards.append(PlacedCard("tweak-back", (cx + 45, cy - 125), -3.0, "tweak_pile"))
    jitter = [(rng.uniform(-4, 4), rng.uniform(-4, 4), rng.uniform(-6, 6)) for _ in range(40)]
    cols = 8
    for i, label in enumerate(state.table[:30]):
        if label is None:
            continue
        col, row = i % cols, i // cols
        dx, dy, da = jitter[i]
        x = cx + (col - (cols - 1) / 2) * 92 + dx  # a finger's width between cards
        y = cy - 5 + row * 114 + dy
        scene.cards.append(PlacedCard(label, (x, y), da, "centre"))
    for p in range(state.players):
        theta = math.pi / 2 + 2 * math.pi * p / state.players
        base = (cx + (width / 2 - 70) * math.cos(theta), cy + (height / 2 - 58) * math.sin(theta))
        facing = math.degrees(theta) - 90
        if state.won[p]:
            scene.cards.append(PlacedCard("back-9", base, facing + 8, "won_pile", p))
        places = [(base[0] - along * math.sin(theta), base[1] + along * math.cos(theta)) for along in T_CARD_ALONG]
        inside = [(x, y) for x, y in places if 55 < x < width - 55 and 55 < y < height - 55]  # all in view
        given = state.given[p] if p < len(state.given) else []
        for label, pos in zip(state.tweak_cards[p] + given, inside):
            scene.cards.append(PlacedCard(label, pos, facing, "tweak_card", p))
    return scene


def render_state(
    state: TableState,
    seed: int,
    conditions: Conditions | None = None,
    upright: bool = False,
    style: ArtStyle | None = None,
) -> RenderedTable:
    """The virtual camera's photo of a game state: camera, light and deck art fixed by ``seed``.

    ``upright``: the camera is mounted as the README asks, the first player at the picture's bottom.
    """
    rng = random.Random(seed)
    drawn = random_style(rng)  # drawn even when a style is given: the same seed, the same light
    style = style or drawn
    cond = conditions or room_conditions(rng.choice(("wood", "felt", "cloth")), camera_angle=0.0 if upright else None)
    return draw_scene(state_scene(state, seed), cond, style, rng, seed)


def layout_scene(rows: list[list[str]] | tuple, rng: random.Random) -> Scene:
    """Cards laid out for enrolment (``scanner.read.layout``): rows of the given labels, a finger's
    width apart, each card a little off its place and angle, as hands lay them."""
    pitch_x, pitch_y, margin = 92.0, 114.0, 150.0
    columns = max(len(row) for row in rows)
    width, height = columns * pitch_x + 2 * margin, len(rows) * pitch_y + 2 * margin
    scene = Scene((width, height))
    for r, row in enumerate(rows):
        for c, label in enumerate(row):
            x = margin + (c + 0.5) * pitch_x + rng.uniform(-4, 4)
            y = margin + (r + 0.5) * pitch_y + rng.uniform(-4, 4)
            scene.cards.append(PlacedCard(label, (x, y), rng.uniform(-6, 6), "centre"))
    return scene


def render_layout(
    rows: list[list[str]] | tuple,
    style: ArtStyle | FamilyDeck | AnewDeck,
    seed: int,
    zoom: float = 1.0,
    surface: str | None = None,
) -> RenderedTable:
    """A photo of cards laid out in ``rows`` (``layout_scene``), taken by hand: everyday light,
    the camera held about square to the rows (within 15 degrees); ``surface``: the table's (one
    of ``SURFACES``), else any."""
    rng = random.Random(seed)
    cond = replace(random_conditions(rng), camera_angle=rng.uniform(-0.26, 0.26), hand=False, zoom=zoom)
    if surface is not None:
        cond = replace(cond, surface=surface)
    return draw_scene(layout_scene(rows, rng), cond, style, rng, seed)


SPEED_SEED = 90_010_000  # the speed test's frames: seeds no change was tuned on


def speed_frame(index: int, style: ArtStyle | FamilyDeck | AnewDeck | None = None) -> np.ndarray:
    """The speed test's frame ``index`` (``benchmarks/scanner.py``, ``benchmarks/stages.py``):
    1280x720, 12 centre cards plus the deck and piles, on felt in neutral light; ``style``: the
    cards' art, else the project's own."""
    cond = Conditions(1280, 720, "felt", "neutral", 5000, 0.02, 0.0, 0.1, False, False, 0.0, 2.0, 90, False)
    return render_table(SPEED_SEED + index, n_centre=12, conditions=cond, style=style).image


def room_conditions(surface: str, kelvin: int = 5000, camera_angle: float | None = 0.0) -> Conditions:
    """A living room under a mounted camera: neutral light, slight tilt and lens distortion, no glare."""
    return Conditions(
        1280, 720, surface, "neutral", kelvin, 0.02, -0.03, 0.2, False, False, 0.4, 2.0, 90, False, camera_angle
    )
