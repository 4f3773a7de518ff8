"""Things on a real table that are not cards: a phone, a score pad, a coaster, dice, a pen, tiles
of another game, and now and then a card of another game.

They test the finder's precision where it matters: the score pad and the tiles have a card's
proportions at another size, the phone a rounded rectangle of another shape, the foreign card a
card's shape and size with another deck's print (only an enrolled deck can tell it apart). Drawn
only where asked (``render_table(clutter=True)``), so the training sets and the benchmarks that
do not ask stay as they were.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from scanner.synth.cards import CARD_MASK, render_foreign_card

PX_PER_MM = 4  # the objects' own pictures, before the camera sees them
#: kind: (short side, long side) in mm, each drawn from the range given
SIZES: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "phone": ((68, 78), (140, 162)),
    "score_pad": ((98, 110), (140, 152)),  # A6: a card's proportions, at 1.7 times its size
    "coaster": ((88, 105), (88, 105)),
    "dice": ((14, 18), (14, 18)),
    "pen": ((8, 11), (130, 150)),
    "tile": ((25, 28), (34, 38)),  # a game tile: a card's proportions, at 0.4 times its size
    "foreign_card": ((63, 63), (88, 88)),  # a card of another game, as big as a TWEAK card
}
KINDS = tuple(SIZES)
WEIGHTS = (3, 3, 2, 2, 2, 2, 1)  # a foreign card is the rarest: it is a card, only not of this game


@dataclass(frozen=True)
class Clutter:
    """One object on the table, in table millimetres; ``seed`` draws its picture."""

    kind: str
    centre: tuple[float, float]
    angle: float  # degrees
    size: tuple[float, float]  # short side, long side, mm
    seed: int

    def corners_mm(self) -> np.ndarray:
        return rotated_rectangle(self.centre, self.size, self.angle)


def rotated_rectangle(centre: tuple[float, float], size: tuple[float, float], angle: float) -> np.ndarray:
    """The corners of a ``size`` (short side, long side) rectangle turned ``angle`` degrees about
    ``centre``, clockwise from the corner of a short side (a card's portrait order)."""
    w, h = size
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ rot.T + np.array(centre)


def random_clutter(
    rng: random.Random, width: float, height: float, free: Callable[[np.ndarray], bool]
) -> list[Clutter]:
    """Two to five objects where ``free`` says the table is free (a polygon in mm); dice and tiles
    come in small groups."""
    items: list[Clutter] = []
    for _ in range(rng.randint(2, 5)):
        kind = rng.choices(KINDS, WEIGHTS)[0]
        count = rng.randint(2, 4) if kind in ("dice", "tile") else 1
        (s0, s1), (l0, l1) = SIZES[kind]
        short = rng.uniform(s0, s1)
        size = (short, short if kind in ("coaster", "dice") else rng.uniform(l0, l1))
        for _ in range(30):
            centre = (rng.uniform(0, width), rng.uniform(0, height))
            angle = rng.uniform(-180, 180)
            group = [
                Clutter(
                    kind,
                    (
                        centre[0] + k * (size[0] + 4) * math.cos(math.radians(angle)),
                        centre[1] + k * (size[0] + 4) * math.sin(math.radians(angle)),
                    ),
                    angle + rng.uniform(-8, 8),
                    size,
                    rng.randrange(2**31),
                )  # fmt: skip
                for k in range(count)
            ]
            if all(free(item.corners_mm()) for item in group):
                items += group
                break
    return items


def clutter_picture(item: Clutter) -> tuple[np.ndarray, np.ndarray]:
    """The object seen from above, and its alpha mask (rounded corners, a round coaster)."""
    rng = random.Random(item.seed)
    if item.kind == "foreign_card":
        return render_foreign_card(rng), CARD_MASK
    w, h = (max(4, int(round(s * PX_PER_MM))) for s in item.size)
    img = np.zeros((h, w, 3), np.uint8)
    mask = np.zeros((h, w), np.uint8)
    radius = {"phone": 9, "score_pad": 1, "coaster": 6, "dice": 3, "pen": 4, "tile": 3}[item.kind] * PX_PER_MM
    round_coaster = item.kind == "coaster" and rng.random() < 0.5
    if round_coaster:
        cv2.circle(mask, (w // 2, h // 2), min(w, h) // 2 - 1, 255, -1, cv2.LINE_AA)
    else:
        _rounded_rect(mask, (0, 0, w - 1, h - 1), radius, 255)
    draw = _PAINTERS[item.kind]
    draw(img, rng)
    return img, mask


def _rounded_rect(img: np.ndarray, box: tuple[int, int, int, int], radius: int, colour) -> None:
    x0, y0, x1, y1 = box
    radius = max(1, min(radius, (x1 - x0) // 2, (y1 - y0) // 2))
    cv2.rectangle(img, (x0 + radius, y0), (x1 - radius, y1), colour, -1)
    cv2.rectangle(img, (x0, y0 + radius), (x1, y1 - radius), colour, -1)
    for cx, cy in ((x0 + radius, y0 + radius), (x1 - radius, y0 + radius), (x0 + radius, y1 - radius),
                   (x1 - radius, y1 - radius)):  # fmt: skip
        cv2.circle(img, (cx, cy), radius, colour, -1, cv2.LINE_AA)


def _phone(img: np.ndarray, rng: random.Random) -> None:
    h, w = img.shape[:2]
    body = rng.choice([(25, 25, 28), (40, 40, 45), (200, 200, 205), (70, 40, 150), (120, 90, 40)])
    img[:] = body
    inset = 4 * PX_PER_MM
    if rng.random() < 0.6:  # face up: the screen, dark or lit
        screen = np.zeros((h - 2 * inset, w - 2 * inset, 3), np.float32)
        lit = rng.random() < 0.5
        top = np.array([rng.randint(0, 255) for _ in range(3)], np.float32) * (1.0 if lit else 0.15)
        bottom = np.array([rng.randint(0, 255) for _ in range(3)], np.float32) * (1.0 if lit else 0.15)
        ramp = np.linspace(0, 1, screen.shape[0], dtype=np.float32)[:, None, None]
        screen[:] = top * (1 - ramp) + bottom * ramp
        if lit:
            for _ in range(rng.randint(4, 12)):  # app icons
                x, y = rng.randint(0, screen.shape[1] - 40), rng.randint(0, screen.shape[0] - 40)
                colour = [rng.randint(0, 255) for _ in range(3)]
                cv2.rectangle(screen, (x, y), (x + 36, y + 36), colour, -1)
        img[inset : h - inset, inset : w - inset] = screen.clip(0, 255).astype(np.uint8)
    else:  # face down: the camera's lenses
        cv2.circle(img, (w // 4, w // 4), 6 * PX_PER_MM, tuple(max(0, c - 20) for c in body), -1, cv2.LINE_AA)
        cv2.circle(img, (w // 4, w // 4), 3 * PX_PER_MM, (10, 10, 10), -1, cv2.LINE_AA)


def _score_pad(img: np.ndarray, rng: random.Random) -> None:
    h, w = img.shape[:2]
    img[:] = rng.choice([(245, 245, 245), (215, 240, 250), (200, 235, 240)])
    line = rng.choice([(210, 170, 120), (180, 180, 180)])
    step = 7 * PX_PER_MM
    for y in range(step * 2, h, step):
        cv2.line(img, (0, y), (w, y), line, 1, cv2.LINE_AA)
    pen = rng.choice([(120, 40, 20), (30, 30, 30), (40, 40, 160)])
    for row in range(rng.randint(3, 9)):  # scores written in
        for col in range(rng.randint(2, 4)):
            x = 8 + col * w // 4
            y = step * (2 + row) - 4
            text = str(rng.randint(0, 40))
            cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.9, pen, 2, cv2.LINE_AA)


def _coaster(img: np.ndarray, rng: random.Random) -> None:
    h, w = img.shape[:2]
    base = rng.choice([(90, 140, 185), (60, 60, 60), (200, 200, 200), (40, 90, 40)])
    img[:] = base
    noise = np.random.default_rng(rng.randrange(2**31)).normal(0, 12, img.shape)
    img[:] = np.clip(img + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # a printed ring
        colour = tuple(int(c * 0.5) for c in base)
        cv2.circle(img, (w // 2, h // 2), int(min(w, h) * 0.35), colour, 3 * PX_PER_MM, cv2.LINE_AA)


def _dice(img: np.ndarray, rng: random.Random) -> None:
    h, w = img.shape[:2]
    face, pip = rng.choice([((240, 240, 240), (20, 20, 20)), ((40, 40, 200), (240, 240, 240)),
                            ((20, 20, 20), (240, 240, 240))])  # fmt: skip
    img[:] = face
    corners = [(0, 0), (0, 2), (2, 0), (2, 2)]
    spots = {1: [(1, 1)], 2: corners[::3], 3: [*corners[::3], (1, 1)], 4: corners, 5: [*corners, (1, 1)],
             6: [*corners, (1, 0), (1, 2)]}  # fmt: skip
    for r, c in spots[rng.randint(1, 6)]:
        cv2.circle(img, (int(w * (0.25 + 0.25 * c)), int(h * (0.25 + 0.25 * r))), max(2, w // 10), pip, -1, cv2.LINE_AA)


def _pen(img: np.ndarray, rng: random.Random) -> None:
    h, _ = img.shape[:2]
    img[:] = rng.choice([(200, 80, 20), (20, 20, 20), (30, 30, 200), (0, 200, 255)])
    img[: h // 8] = (200, 200, 200)


def _tile(img: np.ndarray, rng: random.Random) -> None:
    h, w = img.shape[:2]
    img[:] = rng.choice([(220, 235, 240), (235, 235, 235)])
    ink = rng.choice([(30, 30, 200), (200, 80, 20), (20, 20, 20), (0, 140, 230)])
    text = str(rng.randint(1, 13))
    scale = 1.6 if len(text) == 1 else 1.2
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 3)
    cv2.putText(img, text, ((w - tw) // 2, h // 2 + th // 3), cv2.FONT_HERSHEY_DUPLEX, scale, ink, 3, cv2.LINE_AA)


_PAINTERS: dict[str, Callable[[np.ndarray, random.Random], None]] = {
    "phone": _phone,
    "score_pad": _score_pad,
    "coaster": _coaster,
    "dice": _dice,
    "pen": _pen,
    "tile": _tile,
}
