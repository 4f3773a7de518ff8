"""Synthetic TWEAK cards: every one of the 46 labels, in randomised art styles.

The art is randomised, not only the photo: fonts, numeral size and position, corner indices,
bordered or full-colour faces, shades of each colour, patterns. One complete style (its fonts,
its layout and its backs) is kept out of training as the unseen-deck test (``HELDOUT``).

Cards are 63 x 88 mm, drawn at ``CARD_W`` x ``CARD_H`` pixels, as BGR uint8 arrays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.labels import LABELS, points

CARD_MM = (63.0, 88.0)
CARD_W, CARD_H = 200, 280

# base colours in HSV (OpenCV: H 0-179) for the six colours; styles shift them a little
BASE_HSV = {
    "red": (178, 215, 205),
    "orange": (12, 230, 240),
    "yellow": (27, 220, 245),
    "green": (62, 200, 150),
    "blue": (108, 210, 185),
    "purple": (140, 160, 140),
}

TRAIN_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
HELDOUT_FONTS = (cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
TRAIN_LAYOUTS = ("border", "full", "band", "badge", "diamond", "ring", "split")
HELDOUT_LAYOUT = "circle"
PATTERNS = ("none", "stripes", "dots", "grid")


@dataclass(frozen=True)
class ArtStyle:
    """One printed deck's look."""

    font: int
    italic: bool
    thickness: float  # stroke weight, relative
    layout: str  # border | full | band | circle (held out)
    numeral_scale: float
    numeral_dx: float  # offsets of the big numeral, fraction of the card
    numeral_dy: float
    corner_index: str  # none | tl | tl_br
    pattern: str
    hue_shift: int
    sat_scale: float
    val_scale: float
    paper: tuple[int, int, int]  # BGR of the white parts
    margin: float  # white margin of bordered layouts, fraction of the width
    back_frame: bool
    back_ink: tuple[int, int, int]  # numeral colour on the black backs
    tweak_colour: tuple[int, int, int]  # main colour of the T! cards
    heldout: bool = False
    stretch: float = 1.0  # numeral width / height factor
    shear: float = 0.0  # numeral slant
    back_ornament: str = "none"  # none | diamond | ring | bars (training styles only)


REFERENCE_STYLE = ArtStyle(
    font=TRAIN_FONTS[0],
    italic=False,
    thickness=1.1,
    layout="diamond",
    numeral_scale=1.0,
    numeral_dx=0.0,
    numeral_dy=0.0,
    corner_index="tl",
    pattern="none",
    hue_shift=0,
    sat_scale=1.0,
    val_scale=1.0,
    paper=(245, 245, 245),
    margin=0.08,
    back_frame=True,
    back_ink=(240, 240, 240),
    tweak_colour=(60, 160, 60),
    heldout=False,
    stretch=1.0,
    shear=0.0,
    back_ornament="ring",
)
"""The virtual table's own deck: one fixed look, like a real deck (other looks are enrolled)."""


def random_style(rng: random.Random, heldout: bool = False) -> ArtStyle:
    """A random deck style from the training space, or from the held-out one."""
    if heldout:
        font, layout = rng.choice(HELDOUT_FONTS), HELDOUT_LAYOUT
        back_ink = (40, 190, 225)  # gold numerals on the backs: never seen in training
        tweak_colour = (90, 40, 150)
    else:
        font, layout = rng.choice(TRAIN_FONTS), rng.choice(TRAIN_LAYOUTS)
        grey = rng.randint(200, 255)
        back_ink = rng.choice([(grey, grey, grey), (rng.randint(150, 255), rng.randint(150, 255), 255)])
        tweak_colour = tuple(rng.randint(0, 200) for _ in range(3))
    paper = tuple(rng.randint(225, 255) for _ in range(3))
    return ArtStyle(
        font=font,
        italic=rng.random() < 0.3,
        thickness=rng.uniform(0.7, 1.5),
        layout=layout,
        numeral_scale=rng.uniform(0.75, 1.2),
        numeral_dx=rng.uniform(-0.08, 0.08),
        numeral_dy=rng.uniform(-0.06, 0.08),
        corner_index=rng.choice(("none", "tl", "tl_br")),
        pattern=rng.choice(PATTERNS),
        hue_shift=rng.randint(-4, 4),
        sat_scale=rng.uniform(0.8, 1.1),
        val_scale=rng.uniform(0.8, 1.1),
        paper=paper,  # type: ignore[arg-type]
        margin=rng.uniform(0.05, 0.12),
        back_frame=rng.random() < 0.5,
        back_ink=back_ink,  # type: ignore[arg-type]
        tweak_colour=tweak_colour,  # type: ignore[arg-type]
        heldout=heldout,
        stretch=1.0 if heldout else rng.uniform(0.75, 1.3),
        shear=0.0 if heldout else rng.uniform(-0.25, 0.25),
        back_ornament="none" if heldout else rng.choice(("none", "diamond", "ring", "bars")),
    )


def colour_bgr(name: str, style: ArtStyle) -> tuple[int, int, int]:
    h, s, v = BASE_HSV[name]
    h = (h + style.hue_shift) % 180
    s = int(np.clip(s * style.sat_scale, 0, 255))
    v = int(np.clip(v * style.val_scale, 0, 255))
    bgr = cv2.cvtColor(np.uint8([[[h, s, v]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return int(bgr[0]), int(bgr[1]), int(bgr[2])


def _text(
    img: np.ndarray, text: str, centre: tuple[float, float], height: float, colour, style: ArtStyle, weight: float = 1.0
) -> None:
    """Draw ``text`` centred, about ``height`` pixels tall."""
    font = style.font | (cv2.FONT_ITALIC if style.italic else 0)
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(h, 1)
    thickness = max(1, int(round(scale * 2.2 * style.thickness * weight)))
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    org = (int(centre[0] - w / 2), int(centre[1] + h / 2))
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def _numeral(
    img: np.ndarray, text: str, centre: tuple[float, float], height: float, colour, style: ArtStyle, weight: float = 1.0
) -> None:
    """The big numeral: drawn on a mask, stretched and slanted by the style, then painted."""
    if style.stretch == 1.0 and style.shear == 0.0:
        _text(img, text, centre, height, colour, style, weight)
        return
    mask = np.zeros(img.shape[:2], np.uint8)
    _text(mask, text, centre, height, 255, style, weight)
    cx, cy = centre
    affine = np.float32([[style.stretch, style.shear, cx - style.stretch * cx - style.shear * cy], [0, 1, 0]])
    mask = cv2.warpAffine(mask, affine, (img.shape[1], img.shape[0]), flags=cv2.INTER_LINEAR)
    alpha = mask.astype(np.float32)[..., None] / 255.0
    img[:] = (img * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)


def _pattern(img: np.ndarray, style: ArtStyle, colour, rng: random.Random) -> None:
    tint = tuple(int(0.85 * p + 0.15 * c) for p, c in zip(style.paper, colour))
    h, w = img.shape[:2]
    if style.pattern == "stripes":
        for x in range(-h, w, 18):
            cv2.line(img, (x, 0), (x + h, h), tint, 4, cv2.LINE_AA)
    elif style.pattern == "dots":
        for y in range(8, h, 20):
            for x in range(8 + (y // 20 % 2) * 10, w, 20):
                cv2.circle(img, (x, y), 3, tint, -1, cv2.LINE_AA)
    elif style.pattern == "grid":
        for x in range(0, w, 24):
            cv2.line(img, (x, 0), (x, h), tint, 1)
        for y in range(0, h, 24):
            cv2.line(img, (0, y), (w, y), tint, 1)


def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (radius, 0), (w - radius, h), 255, -1)
    cv2.rectangle(mask, (0, radius), (w, h - radius), 255, -1)
    for cx, cy in (
        (radius, radius),
        (w - radius - 1, radius),
        (radius, h - radius - 1),
        (w - radius - 1, h - radius - 1),
    ):
        cv2.circle(mask, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    return mask


CARD_MASK = _rounded_mask(CARD_W, CARD_H, 14)


def _face(colour_name: str, value: int, style: ArtStyle, rng: random.Random) -> np.ndarray:
    colour = colour_bgr(colour_name, style)
    img = np.full((CARD_H, CARD_W, 3), style.paper, np.uint8)
    ink = colour
    m = int(style.margin * CARD_W)
    if style.layout == "full":
        img[:] = colour
        ink = style.paper
    elif style.layout == "border":
        _pattern(img, style, colour, rng)
        cv2.rectangle(img, (m, m), (CARD_W - m, CARD_H - m), colour, max(3, m // 2))
    elif style.layout == "band":
        _pattern(img, style, colour, rng)
        cv2.rectangle(img, (0, 0), (CARD_W, int(CARD_H * 0.22)), colour, -1)
        cv2.rectangle(img, (0, int(CARD_H * 0.8)), (CARD_W, CARD_H), colour, -1)
    elif style.layout == "badge":  # the numeral on a coloured rounded square
        _pattern(img, style, colour, rng)
        r = int(CARD_W * 0.36)
        cv2.rectangle(img, (CARD_W // 2 - r, CARD_H // 2 - r), (CARD_W // 2 + r, CARD_H // 2 + r), colour, -1)
        ink = style.paper
    elif style.layout == "diamond":
        _pattern(img, style, colour, rng)
        c, rx, ry = (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.46), int(CARD_H * 0.4)
        pts = np.array([[c[0], c[1] - ry], [c[0] + rx, c[1]], [c[0], c[1] + ry], [c[0] - rx, c[1]]], np.int32)
        cv2.fillConvexPoly(img, pts, colour, cv2.LINE_AA)
        ink = style.paper
    elif style.layout == "ring":  # a coloured ring around a coloured numeral
        _pattern(img, style, colour, rng)
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.4), colour, max(4, int(CARD_W * 0.05)), cv2.LINE_AA)
    elif style.layout == "split":  # two tones, split on the diagonal
        img[:] = style.paper
        tri = np.array([[0, CARD_H], [CARD_W, 0], [CARD_W, CARD_H]], np.int32)
        cv2.fillConvexPoly(img, tri, colour, cv2.LINE_AA)
        cv2.rectangle(
            img, (int(CARD_W * 0.2), int(CARD_H * 0.28)), (int(CARD_W * 0.8), int(CARD_H * 0.72)), style.paper, -1
        )
    else:  # circle (held out)
        _pattern(img, style, colour, rng)
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.42), colour, -1, cv2.LINE_AA)
        ink = style.paper
    cx = CARD_W * (0.5 + style.numeral_dx)
    cy = CARD_H * (0.5 + style.numeral_dy)
    _numeral(img, str(value), (cx, cy), CARD_H * 0.34 * style.numeral_scale, ink, style, 1.3)
    # a 6 is underlined (the draw for other values is kept so that renders stay as they were)
    underline = value in (6, 1) or rng.random() < 0.5
    if underline and value == 6:
        half = CARD_W * 0.12 * style.numeral_scale
        y = int(cy + CARD_H * 0.2 * style.numeral_scale)
        cv2.line(img, (int(cx - half), y), (int(cx + half), y), ink, 4, cv2.LINE_AA)
    index_ink = ink if style.layout != "band" else style.paper
    small = CARD_H * 0.09
    if style.corner_index in ("tl", "tl_br"):
        _text(
            img,
            str(value),
            (CARD_W * 0.14, CARD_H * 0.1),
            small,
            index_ink if style.layout != "border" else colour,
            style,
        )
    if style.corner_index == "tl_br":
        corner = img[int(CARD_H * 0.8) :, : int(CARD_W * 0.3)].copy()
        _text(corner, str(value), (CARD_W * 0.14, CARD_H * 0.1), small, index_ink, style)
    # the points in the top-right corner (RULES R1.3)
    pts = points(f"{colour_name}-{value}")
    badge = (int(CARD_W * 0.84), int(CARD_H * 0.09))
    cv2.circle(img, badge, int(CARD_W * 0.085), style.paper if style.layout == "full" else colour, -1, cv2.LINE_AA)
    _text(img, str(pts), badge, small * 0.8, colour if style.layout == "full" else style.paper, style)
    return img


def _back(number: int, style: ArtStyle, rng: random.Random) -> np.ndarray:
    dark = rng.randint(8, 30)
    img = np.full((CARD_H, CARD_W, 3), dark, np.uint8)
    if style.back_frame:
        cv2.rectangle(img, (12, 12), (CARD_W - 12, CARD_H - 12), style.back_ink, 2, cv2.LINE_AA)
    if style.heldout:
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.38), style.back_ink, 2, cv2.LINE_AA)
    c = (CARD_W // 2, CARD_H // 2)
    if style.back_ornament == "diamond":
        pts = np.array([[c[0], c[1] - 110], [c[0] + 80, c[1]], [c[0], c[1] + 110], [c[0] - 80, c[1]]], np.int32)
        cv2.polylines(img, [pts], True, style.back_ink, 2, cv2.LINE_AA)
    elif style.back_ornament == "ring":
        cv2.ellipse(img, c, (int(CARD_W * 0.4), int(CARD_H * 0.36)), 0, 0, 360, style.back_ink, 2, cv2.LINE_AA)
    elif style.back_ornament == "bars":
        for y in (int(CARD_H * 0.15), int(CARD_H * 0.85)):
            cv2.line(img, (30, y), (CARD_W - 30, y), style.back_ink, 3, cv2.LINE_AA)
    _numeral(
        img,
        str(number),
        (CARD_W * (0.5 + style.numeral_dx / 2), CARD_H * 0.5),
        CARD_H * 0.3 * style.numeral_scale,
        style.back_ink,
        style,
        1.2,
    )
    return img


def _special(style: ArtStyle, rng: random.Random) -> np.ndarray:
    blue = colour_bgr("blue", style)
    img = np.full((CARD_H, CARD_W, 3), blue, np.uint8)
    cv2.rectangle(img, (10, 10), (CARD_W - 10, CARD_H - 10), style.paper, 3, cv2.LINE_AA)
    _text(img, "7", (CARD_W * 0.5, CARD_H * 0.5), CARD_H * 0.36 * style.numeral_scale, style.paper, style, 1.3)
    star = np.array([[CARD_W * 0.5, CARD_H * 0.12], [CARD_W * 0.56, CARD_H * 0.2], [CARD_W * 0.44, CARD_H * 0.2]])
    cv2.fillPoly(img, [star.astype(np.int32)], style.paper, cv2.LINE_AA)
    return img


def _tweak_face(kind: str, style: ArtStyle, rng: random.Random) -> np.ndarray:
    main = style.tweak_colour
    img = np.full((CARD_H, CARD_W, 3), style.paper, np.uint8)
    cv2.rectangle(img, (0, 0), (CARD_W, int(CARD_H * 0.2)), main, -1)
    _text(img, "T!", (CARD_W * 0.5, CARD_H * 0.1), CARD_H * 0.1, style.paper, style, 1.2)
    c = (CARD_W // 2, int(CARD_H * 0.52))
    ink = main
    if kind == "thief":  # a mask with two eyes
        cv2.ellipse(img, c, (int(CARD_W * 0.33), int(CARD_H * 0.1)), 0, 0, 360, ink, -1, cv2.LINE_AA)
        for dx in (-0.14, 0.14):
            cv2.circle(img, (int(c[0] + dx * CARD_W), c[1]), int(CARD_W * 0.07), style.paper, -1, cv2.LINE_AA)
    elif kind == "joker":  # +/-1
        _text(img, "+1", (c[0], c[1] - CARD_H * 0.1), CARD_H * 0.14, ink, style, 1.2)
        _text(img, "-1", (c[0], c[1] + CARD_H * 0.1), CARD_H * 0.14, ink, style, 1.2)
    elif kind == "shifter":  # two arrows
        cv2.arrowedLine(
            img, (int(CARD_W * 0.2), c[1] - 25), (int(CARD_W * 0.8), c[1] - 25), ink, 9, cv2.LINE_AA, tipLength=0.3
        )
        cv2.arrowedLine(
            img, (int(CARD_W * 0.8), c[1] + 25), (int(CARD_W * 0.2), c[1] + 25), ink, 9, cv2.LINE_AA, tipLength=0.3
        )
    else:  # bomb: a ball with a fuse
        cv2.circle(img, (c[0], c[1] + 10), int(CARD_W * 0.24), ink, -1, cv2.LINE_AA)
        cv2.line(img, (c[0] + 30, c[1] - 30), (c[0] + 55, c[1] - 60), ink, 6, cv2.LINE_AA)
        cv2.circle(img, (c[0] + 58, c[1] - 64), 9, (0, 170, 255), -1, cv2.LINE_AA)
    _text(img, kind.upper(), (CARD_W * 0.5, CARD_H * 0.86), CARD_H * 0.07, ink, style)
    return img


def _tweak_back(style: ArtStyle, rng: random.Random) -> np.ndarray:
    main = tuple(int(c * 0.55) for c in style.tweak_colour)
    img = np.full((CARD_H, CARD_W, 3), main, np.uint8)
    for y in range(0, CARD_H, 28):
        cv2.line(img, (0, y), (CARD_W, y + 40), tuple(min(255, c + 40) for c in main), 2, cv2.LINE_AA)
    cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.3), style.paper, -1, cv2.LINE_AA)
    _text(img, "T!", (CARD_W * 0.5, CARD_H * 0.5), CARD_H * 0.14, main, style, 1.4)
    return img


def render_card(label: str, style: ArtStyle, rng: random.Random) -> np.ndarray:
    """The card ``label`` printed in ``style``: a CARD_H x CARD_W BGR image (corners outside the
    rounded outline are black; use ``CARD_MASK``)."""
    if label not in LABELS:
        raise ValueError(f"unknown card label {label!r}")
    if label.startswith("back-"):
        img = _back(int(label[5:]), style, rng)
    elif label == "special-7":
        img = _special(style, rng)
    elif label == "tweak-back":
        img = _tweak_back(style, rng)
    elif label.startswith("tweak-"):
        img = _tweak_face(label[6:], style, rng)
    else:
        colour, value = label.split("-")
        img = _face(colour, int(value), style, rng)
    # a thin darker edge, as printed card stock shows
    cv2.drawContours(
        img,
        [np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]])],
        -1,
        tuple(int(c * 0.8) for c in style.paper),
        2,
    )
    img[CARD_MASK == 0] = 0
    return img


FOREIGN_SHAPES = ("diamond", "oval", "squiggle", "rect", "circle", "triangle", "star")


def _symbol(shape: str, centre: tuple[float, float], size: tuple[float, float], rng: random.Random) -> np.ndarray:
    """The outline of one printed symbol (N x 2 int32 points), ``size`` = (width, height)."""
    cx, cy = centre
    w, h = size[0] / 2, size[1] / 2
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    if shape == "diamond":
        pts = np.array([[cx - w, cy], [cx, cy - h], [cx + w, cy], [cx, cy + h]])
    elif shape == "rect":
        pts = np.array([[cx - w, cy - h], [cx + w, cy - h], [cx + w, cy + h], [cx - w, cy + h]])
    elif shape == "triangle":
        pts = np.array([[cx - w, cy + h], [cx, cy - h], [cx + w, cy + h]])
    elif shape == "star":
        r = np.where(np.arange(10) % 2 == 0, 1.0, 0.45)
        a = np.linspace(-np.pi / 2, 3 * np.pi / 2, 10, endpoint=False)
        pts = np.stack([cx + w * r * np.cos(a), cy + h * r * np.sin(a)], axis=1)
    elif shape == "squiggle":  # a bean bent by a wave, as SET's squiggle
        wave = rng.uniform(0.15, 0.35)
        x = cx + w * np.cos(t) * (1 + 0.1 * np.sin(3 * t))
        y = cy + h * np.sin(t) * 0.8 + h * wave * np.sin(2 * np.pi * (x - cx) / (2 * w))
        pts = np.stack([x, y], axis=1)
    else:  # oval, circle
        if shape == "circle":
            w = h = min(w, h)
        pts = np.stack([cx + w * np.cos(t), cy + h * np.sin(t)], axis=1)
    return pts.astype(np.int32)


def render_foreign_card(rng: random.Random) -> np.ndarray:
    """A card of another deck, not TWEAK: plain card stock with 1-3 printed symbols (filled,
    striped or outlined, as SET's), sometimes corner indices or a large picture. The card finder
    learns card outlines from these too, not TWEAK's art alone: a user's own deck, real photos of
    other cards (``../shared/realdata/``). Same size and mask as ``render_card``."""
    shade = rng.randint(205, 255)
    paper = tuple(min(255, shade + rng.randint(-12, 6)) for _ in range(3))
    img = np.full((CARD_H, CARD_W, 3), paper, np.uint8)
    hsv = np.uint8([[[rng.randint(0, 179), rng.randint(110, 255), rng.randint(70, 220)]]])
    ink = tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    kind = rng.random()
    if kind < 0.7:  # symbols in a row along the long side (SET, many board games)
        shape, count, fill = rng.choice(FOREIGN_SHAPES), rng.randint(1, 3), rng.choice(("solid", "striped", "outline"))
        sw, sh = CARD_W * rng.uniform(0.45, 0.75), CARD_H * rng.uniform(0.12, 0.22)
        gap = sh * rng.uniform(1.2, 1.5)
        for k in range(count):
            y = CARD_H / 2 + (k - (count - 1) / 2) * gap
            pts = _symbol(shape, (CARD_W / 2, y), (sw, sh), rng)
            if fill == "solid":
                cv2.fillPoly(img, [pts], ink, cv2.LINE_AA)
            elif fill == "striped":
                stripes = np.zeros((CARD_H, CARD_W), np.uint8)
                cv2.fillPoly(stripes, [pts], 255)
                lines = np.zeros_like(stripes)
                for x in range(0, CARD_W, rng.randint(4, 8)):
                    cv2.line(lines, (x, 0), (x, CARD_H), 255, 1)
                img[(stripes > 0) & (lines > 0)] = ink
            cv2.polylines(img, [pts], True, ink, rng.randint(2, 5), cv2.LINE_AA)
    elif kind < 0.85:  # one large picture
        cx, cy = CARD_W / 2 + rng.uniform(-15, 15), CARD_H / 2 + rng.uniform(-20, 20)
        pts = _symbol(rng.choice(FOREIGN_SHAPES), (cx, cy), (CARD_W * 0.7, CARD_H * 0.55), rng)
        cv2.fillPoly(img, [pts], ink, cv2.LINE_AA)
    else:  # a framed picture of blotches, as a court card
        m = rng.randint(18, 32)
        cv2.rectangle(img, (m, m), (CARD_W - m, CARD_H - m), ink, rng.randint(2, 4))
        for _ in range(rng.randint(3, 8)):
            centre = (rng.randint(m, CARD_W - m), rng.randint(m, CARD_H - m))
            axes = (rng.randint(8, 40), rng.randint(8, 40))
            hue = np.uint8([[[rng.randint(0, 179), rng.randint(80, 255), rng.randint(60, 230)]]])
            colour = tuple(int(c) for c in cv2.cvtColor(hue, cv2.COLOR_HSV2BGR)[0, 0])
            cv2.ellipse(img, centre, axes, rng.uniform(0, 180), 0, 360, colour, -1, cv2.LINE_AA)
    if rng.random() < 0.35:  # corner indices
        text = rng.choice(("A", "K", "Q", "J", "7", "10", "3"))
        font = rng.choice(TRAIN_FONTS)
        for corner, flip in (((16, 34), False), ((CARD_W - 16, CARD_H - 34), True)):
            size, _ = cv2.getTextSize(text, font, 0.9, 2)
            org = (corner[0] - size[0] // 2, corner[1] + size[1] // 2)
            if flip:
                org = (corner[0] - size[0] // 2, corner[1])
            cv2.putText(img, text, org, font, 0.9, ink, 2, cv2.LINE_AA)
    cv2.drawContours(
        img,
        [np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]])],
        -1,
        tuple(int(c * 0.85) for c in paper),
        2,
    )
    img[CARD_MASK == 0] = 0
    return img
