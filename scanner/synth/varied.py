"""Number cards drawn a new way every time, that still show their colour and their value: for
teaching the classifier to read any deck's number cards, not the training styles' own.

Each card draws anew its typeface (the machine's TrueType faces, Pillow's own and OpenCV's
Hershey ones), where its value is shown (a big numeral, pips, corner indices, a numeral on a
plate), how its colour is shown (the ink, a frame, the whole face, a pale ground, a noisy tint or
a gradient of its shades) and its shade of the colour. When asked, backs and T! backs are drawn
anew too (``backs``, ``wide_backs``: any ground and pattern, told apart by their mark alone, the
target number or the game's "T!"); the special 7 and the T! faces keep the training styles' look
(a deck's own T! art cannot be guessed; it is enrolled).

Four of the art families (``families.CHECK_FAMILIES``: wallpapers of numerals, photo-like faces,
a band of the colour across a white card, a strip of it down the side) are left out on purpose:
they check that what this teaches generalises.

>>> card = render_varied_card("green-4", random.Random(0))
>>> card.shape, card.dtype.name
((280, 200, 3), 'uint8')
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scanner.labels import BACKS
from scanner.synth.cards import BASE_HSV, CARD_H, CARD_MASK, CARD_W, TRAIN_FONTS, random_style, render_card
from scanner.synth.families import PIP_GRID, AnewDeck

#: Debian's fonts-dejavu-core and fonts-liberation (present where chromium is installed); the
#: faces found are recorded in a trained model's meta (``typefaces()``)
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
PILLOW_FACE = "pillow-default"  # Pillow's own scalable face (in its wheel)


@functools.cache
def typefaces() -> tuple[str, ...]:
    """The TrueType faces cards are printed in: Pillow's own, and the machine's in ``FONT_DIRS``."""
    found = sorted(str(p) for folder in FONT_DIRS for p in Path(folder).glob("*.ttf") if "Math" not in p.name)
    return (PILLOW_FACE, *found)


@functools.cache
def _face(path: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size) if path == PILLOW_FACE else ImageFont.truetype(path, size)


def _typeface(rng: random.Random) -> str:
    """A TrueType face (``typefaces``) three times in four, else one of OpenCV's Hershey faces."""
    return rng.choice(typefaces()) if rng.random() < 0.75 else f"hershey{rng.randrange(len(TRAIN_FONTS))}"


def _shade(name: str, rng: random.Random) -> tuple[int, int, int]:
    h, s, v = BASE_HSV[name]
    hue = (h + rng.randint(-5, 5)) % 180
    sat, val = (int(np.clip(x * rng.uniform(0.7, 1.1), 0, 255)) for x in (s, v))
    return tuple(int(c) for c in cv2.cvtColor(np.uint8([[[hue, sat, val]]]), cv2.COLOR_HSV2BGR)[0, 0])


def _mix(a, b, t: float) -> tuple[int, int, int]:
    return tuple(int(round(x * (1 - t) + y * t)) for x, y in zip(a, b))


def _text(
    img: np.ndarray, text: str, centre, height: float, ink, typeface: str, rng: random.Random, outline=None
) -> np.ndarray:
    """``text`` about ``height`` px tall centred on ``centre``, in a TrueType face or a Hershey one."""
    if typeface.startswith("hershey"):
        font = TRAIN_FONTS[int(typeface[7:])]
        scale = height / 22.0
        thick = max(2, int(scale * rng.uniform(1.5, 3.5)))
        (w, h), _ = cv2.getTextSize(text, font, scale, thick)
        org = (int(centre[0] - w / 2), int(centre[1] + h / 2))
        if outline is not None:
            cv2.putText(img, text, org, font, scale, outline, thick + 6, cv2.LINE_AA)
        cv2.putText(img, text, org, font, scale, ink, thick, cv2.LINE_AA)
        return img
    face = _face(typeface, max(8, int(height * 1.35)))
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    stroke = max(2, int(height / 14)) if outline is not None else 0
    draw.text(centre, text, fill=ink, font=face, anchor="mm", stroke_width=stroke, stroke_fill=outline)
    return np.asarray(pil).copy()


def _pips(img: np.ndarray, value: int, ink, rng: random.Random) -> None:
    shape = rng.randrange(4)
    size = rng.randint(10, 20)
    if rng.random() < 0.6:  # the usual grid
        spots = [(CARD_W * (0.28 + 0.22 * gx), CARD_H * (0.27 + 0.23 * gy)) for gx, gy in PIP_GRID[value]]
    else:  # in a ring or a row
        ring = rng.random() < 0.5
        spots = []
        for k in range(value):
            if ring and value > 1:
                a = 2 * np.pi * k / value - np.pi / 2
                spots.append((CARD_W / 2 + 0.28 * CARD_W * np.cos(a), CARD_H / 2 + 0.28 * CARD_W * np.sin(a)))
            else:
                spots.append((CARD_W / 2, CARD_H * (0.5 + (k - (value - 1) / 2) * 0.13)))
    for x, y in spots:
        cx, cy = int(x), int(y)
        if shape == 0:
            cv2.circle(img, (cx, cy), size, ink, -1, cv2.LINE_AA)
        elif shape == 1:
            cv2.rectangle(img, (cx - size, cy - size), (cx + size, cy + size), ink, -1)
        elif shape == 2:
            pts = np.array([[cx, cy - size], [cx + size, cy], [cx, cy + size], [cx - size, cy]], np.int32)
            cv2.fillPoly(img, [pts], ink, cv2.LINE_AA)
        else:
            pts = np.array([[cx, cy - size], [cx + size, cy + size], [cx - size, cy + size]], np.int32)
            cv2.fillPoly(img, [pts], ink, cv2.LINE_AA)


def render_varied_card(
    label: str, rng: random.Random, dark_share: float = 0.0, backs: bool = False, wide_backs: float = 0.0
) -> np.ndarray:
    """``label`` drawn a new way (number cards; the others in a random training style).
    ``dark_share``: that share of number cards printed on a near-black ground, the colour in
    their ink; ``backs``: the backs (their target number) and the T! backs drawn anew too, more
    often than not; ``wide_backs``: that share of backs and T! backs drawn anew the wider way
    (``_wide_back``) before ``backs`` is asked (no option: exactly what it drew before the options,
    seed for seed).

    >>> card = render_varied_card("red-2", random.Random(0), dark_share=1.0)
    >>> bool(np.median(card[CARD_MASK > 0]) < 80)
    True
    """
    if wide_backs and label in BACKS + ("tweak-back",) and rng.random() < wide_backs:
        return _wide_back(label.split("-")[1], rng)
    head, tail = label.split("-")
    if backs and label in BACKS + ("tweak-back",) and rng.random() < BACK_SHARE:
        return _varied_back(tail, rng)
    if head not in BASE_HSV:
        return render_card(label, random_style(rng), rng)
    value = int(tail)
    if dark_share and rng.random() < dark_share:
        return _dark_card(value, _shade(head, rng), rng)
    ink = _shade(head, rng)
    paper = tuple(rng.randint(215, 255) for _ in range(3))
    dark_ink = tuple(rng.randint(10, 60) for _ in range(3))
    typeface = _typeface(rng)
    ground = rng.choice(("paper", "paper", "paper", "ink", "pale", "noise", "gradient"))
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    if ground == "paper":
        img[:] = paper
    elif ground == "ink":
        img[:] = ink
    elif ground == "pale":
        img[:] = _mix(ink, paper, rng.uniform(0.55, 0.8))
    elif ground == "noise":
        cells = rng.choice((8, 16, 32))
        noise = np.random.default_rng(rng.randrange(2**32)).random((CARD_H // cells + 1, CARD_W // cells + 1))
        noise = cv2.resize(noise.astype(np.float32), (CARD_W, CARD_H), interpolation=cv2.INTER_CUBIC)
        img[:] = np.clip(np.array(ink, np.float32) * (0.7 + 0.5 * noise[..., None]), 0, 255).astype(np.uint8)
    else:
        a, b = np.array(ink, np.float32), np.array(_mix(ink, paper, rng.uniform(0.3, 0.7)), np.float32)
        t = np.linspace(0, 1, CARD_H, dtype=np.float32)[:, None, None]
        img[:] = (a * (1 - t) + b * t).astype(np.uint8)
    coloured_ground = ground in ("ink", "noise", "gradient")
    text_ink = rng.choice((paper, paper, dark_ink)) if coloured_ground else (ink if rng.random() < 0.85 else dark_ink)
    if rng.random() < 0.5:  # a frame
        inset, thick = rng.randint(4, 22), rng.randint(2, 10)
        frame_ink = paper if coloured_ground else ink
        cv2.rectangle(img, (inset, inset), (CARD_W - inset, CARD_H - inset), frame_ink, thick, cv2.LINE_AA)
    centre = (CARD_W / 2 + rng.uniform(-12, 12), CARD_H / 2 + rng.uniform(-20, 20))
    show = rng.choices(("numeral", "plate", "pips", "pips+corners", "corners"), (5, 2, 1, 2, 1))[0]
    if show == "plate":  # a numeral on a plate of another colour
        plate = paper if coloured_ground or rng.random() < 0.5 else ink
        text_ink = ink if plate == paper and rng.random() < 0.7 else (paper if plate == ink else dark_ink)
        r = int(CARD_W * rng.uniform(0.28, 0.4))
        if rng.random() < 0.5:
            cv2.circle(img, (int(centre[0]), int(centre[1])), r, plate, -1, cv2.LINE_AA)
        else:
            cv2.rectangle(
                img,
                (int(centre[0]) - r, int(centre[1]) - int(r * 1.2)),
                (int(centre[0]) + r, int(centre[1]) + int(r * 1.2)),
                plate,
                -1,
            )
    if show in ("numeral", "plate"):
        outline = (
            _mix(text_ink, (0, 0, 0) if sum(text_ink) > 380 else (255, 255, 255), 0.8) if rng.random() < 0.25 else None
        )
        img = _text(img, str(value), centre, CARD_H * rng.uniform(0.18, 0.42), text_ink, typeface, rng, outline)
    elif show.startswith("pips"):
        _pips(img, value, text_ink, rng)
    corners = show in ("corners", "pips+corners") or rng.random() < 0.5
    if corners:
        size = rng.uniform(14, 34) if show != "corners" else rng.uniform(40, 60)
        inset = size * 0.8 + rng.uniform(4, 10)
        img = _text(img, str(value), (inset * 0.8, inset), size, text_ink, typeface, rng)
        if rng.random() < 0.7:  # the other corner, upside down as printed on most decks, or upright
            turned = rng.random() < 0.6
            if turned:
                img = np.ascontiguousarray(img[::-1, ::-1])
            img = _text(
                img,
                str(value),
                (inset * 0.8, inset) if turned else (CARD_W - inset * 0.8, CARD_H - inset),
                size,
                text_ink,
                typeface,
                rng,
            )
            if turned:
                img = np.ascontiguousarray(img[::-1, ::-1])
    if rng.random() < 0.25:  # worn print
        wear = cv2.GaussianBlur(
            np.random.default_rng(rng.randrange(2**32)).random((CARD_H, CARD_W)).astype(np.float32), (0, 0), 3
        )
        img = np.clip(img * (0.85 + 0.3 * wear[..., None]), 0, 255).astype(np.uint8)
    img[CARD_MASK == 0] = 0
    return img


def _dark_card(value: int, ink, rng: random.Random) -> np.ndarray:
    """A number card on a near-black ground (grey or a deep shade of its colour), its value, frame
    and indices in the colour: the training styles' backs are the only dark cards otherwise, so a
    network taught without these reads a dark deck's faces as backs."""
    ground = _mix(ink, (0, 0, 0), rng.uniform(0.8, 0.95)) if rng.random() < 0.5 else (rng.randint(8, 50),) * 3
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    img[:] = ground
    bright = _mix(ink, (255, 255, 255), rng.uniform(0.0, 0.15))
    typeface = _typeface(rng)
    if rng.random() < 0.6:  # a frame of the colour
        inset, thick = rng.randint(4, 22), rng.randint(2, 10)
        cv2.rectangle(img, (inset, inset), (CARD_W - inset, CARD_H - inset), bright, thick, cv2.LINE_AA)
    centre = (CARD_W / 2 + rng.uniform(-12, 12), CARD_H / 2 + rng.uniform(-20, 20))
    show = rng.choices(("numeral", "plate", "pips"), (6, 2, 2))[0]
    if show == "pips":
        _pips(img, value, bright, rng)
    else:
        text_ink = bright
        if show == "plate":  # the numeral dark on a disc of the colour
            r = int(CARD_W * rng.uniform(0.28, 0.4))
            cv2.circle(img, (int(centre[0]), int(centre[1])), r, bright, -1, cv2.LINE_AA)
            text_ink = ground
        img = _text(img, str(value), centre, CARD_H * rng.uniform(0.18, 0.42), text_ink, typeface, rng)
    if rng.random() < 0.5:
        size = rng.uniform(14, 34)
        img = _text(img, str(value), (size * 0.64 + 6, size * 0.8 + 6), size, bright, typeface, rng)
    img[CARD_MASK == 0] = 0
    return img


#: the share of backs drawn anew with ``backs`` (the rest keep the training styles' dark backs)
BACK_SHARE = 0.6


def _ground_and_ink(kind: str, rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A back's ground of ``kind`` ("dark", "tint", "colour", "paper") and an ink that shows on it."""
    if kind == "dark":
        ground = (rng.randint(8, 50),) * 3
    else:
        low, high = {"tint": (10, 90), "colour": (40, 220), "paper": (215, 255)}[kind]
        ground = tuple(rng.randint(low, high) for _ in range(3))
    light = sum(ground) > 380
    ink = tuple(rng.randint(10, 70) for _ in range(3)) if light else tuple(rng.randint(190, 255) for _ in range(3))
    return ground, ink


def _varied_back(number: str, rng: random.Random) -> np.ndarray:
    """A back drawn anew: its target number (7-10; "back": the T! back's "T!") on any ground (dark,
    a colour, paper, stripes, dots), in any typeface, with a frame, a ring or corner indices or
    none. A deck's back is one colour for all its backs; that colour is anything, so the number is
    what tells a back from a face."""
    kind = rng.choice(("dark", "tint", "colour", "paper"))
    ground, ink = _ground_and_ink(kind, rng)
    if rng.random() < 0.3:  # ink of a colour
        ink = tuple(int(c) for c in cv2.cvtColor(np.uint8([[[rng.randrange(180), 200, 230]]]), cv2.COLOR_HSV2BGR)[0, 0])
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    img[:] = ground
    pattern = rng.choice(("none", "none", "stripes", "dots"))
    shade = _mix(ground, ink, 0.25)
    if pattern == "stripes":
        step = rng.randint(14, 40)
        for y in range(-CARD_W, CARD_H, step):
            cv2.line(img, (0, y), (CARD_W, y + int(CARD_W * rng.uniform(0, 1))), shade, rng.randint(2, 6), cv2.LINE_AA)
    elif pattern == "dots":
        step = rng.randint(16, 30)
        for y in range(step // 2, CARD_H, step):
            for x in range(step // 2, CARD_W, step):
                cv2.circle(img, (x, y), 3, shade, -1, cv2.LINE_AA)
    ornament = rng.choice(("none", "frame", "ring", "plate"))
    centre = (CARD_W / 2, CARD_H / 2)
    text_ink = ink
    if ornament == "frame":
        inset = rng.randint(6, 24)
        cv2.rectangle(img, (inset, inset), (CARD_W - inset, CARD_H - inset), ink, rng.randint(2, 6), cv2.LINE_AA)
    elif ornament == "ring":
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * rng.uniform(0.3, 0.42)), ink, rng.randint(2, 6))
    elif ornament == "plate":
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * rng.uniform(0.28, 0.4)), ink, -1, cv2.LINE_AA)
        text_ink = ground
    typeface = _typeface(rng)
    text = "T!" if number == "back" else number
    img = _text(img, text, centre, CARD_H * rng.uniform(0.16, 0.34), text_ink, typeface, rng)
    if number != "back" and rng.random() < 0.4:  # corner indices, the other one turned
        size = rng.uniform(14, 30)
        for _ in range(2):
            img = _text(img, number, (size * 0.7 + 6, size * 0.8 + 6), size, ink, typeface, rng)
            img = np.ascontiguousarray(img[::-1, ::-1])
    img[CARD_MASK == 0] = 0
    return img


def _wide_back(number: str, rng: random.Random) -> np.ndarray:
    """A back (``number`` its target, 7-10) or a T! back ("back") drawn anew, wider than
    ``_varied_back``: a pattern over the whole card at any contrast (stripes at any angle,
    chevrons, checks, dots, rings, rays, noise) or none, a border or none, the mark of any size,
    bare or on a disc, a panel, a band or a diamond, sometimes small in the corners too. A T! back
    is on any ground; a back on a black one (R1.2), and otherwise drawn from the same looks, so
    the mark tells them apart: the number for a back, the game's ("T!", sometimes its name) for a
    T! back. (Backs of any colour with a numeral on a disc made faces of other decks doubtful.)"""
    kind = rng.choice(("dark", "tint", "colour", "colour", "paper")) if number == "back" else "dark"
    ground, ink = _ground_and_ink(kind, rng)
    if rng.random() < 0.4:  # ink of a colour
        hue = rng.randrange(180)
        ink = tuple(
            int(c) for c in cv2.cvtColor(np.uint8([[[hue, rng.randint(120, 255), 230]]]), cv2.COLOR_HSV2BGR)[0, 0]
        )
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    img[:] = ground
    shade = _mix(ground, ink, rng.uniform(0.2, 1.0))
    pattern = rng.choice(("none", "stripes", "chevrons", "checks", "dots", "rings", "rays", "noise"))
    step, thick = rng.randint(12, 40), rng.randint(2, 8)
    if pattern == "stripes":
        slope = rng.uniform(-1.5, 1.5)
        for y in range(-2 * CARD_H, 2 * CARD_H, step):
            cv2.line(img, (0, y), (CARD_W, int(y + CARD_W * slope)), shade, thick, cv2.LINE_AA)
    elif pattern == "chevrons":
        for y in range(-step * 2, CARD_H + step * 2, step):
            pts = np.array([[0, y], [CARD_W // 2, y + step], [CARD_W, y]], np.int32)
            cv2.polylines(img, [pts], False, shade, thick, cv2.LINE_AA)
    elif pattern == "checks":
        for y in range(0, CARD_H, step):
            for x in range((y // step % 2) * step, CARD_W, 2 * step):
                cv2.rectangle(img, (x, y), (x + step - 1, y + step - 1), shade, -1)
    elif pattern == "dots":
        for y in range(step // 2, CARD_H, step):
            for x in range(step // 2 + (y // step % 2) * step // 2, CARD_W, step):
                cv2.circle(img, (x, y), max(2, step // 5), shade, -1, cv2.LINE_AA)
    elif pattern == "rings":
        for r in range(step, CARD_H, step):
            cv2.circle(img, (CARD_W // 2, CARD_H // 2), r, shade, thick, cv2.LINE_AA)
    elif pattern == "rays":
        for a in np.arange(0, np.pi, np.pi / rng.randint(6, 16)):
            dx, dy = int(CARD_H * np.cos(a)), int(CARD_H * np.sin(a))
            c = (CARD_W // 2, CARD_H // 2)
            cv2.line(img, (c[0] - dx, c[1] - dy), (c[0] + dx, c[1] + dy), shade, thick, cv2.LINE_AA)
    elif pattern == "noise":
        cells = rng.choice((8, 16, 32))
        noise = np.random.default_rng(rng.randrange(2**32)).random((CARD_H // cells + 1, CARD_W // cells + 1))
        noise = cv2.resize(noise.astype(np.float32), (CARD_W, CARD_H), interpolation=cv2.INTER_CUBIC)[..., None]
        img[:] = np.clip(np.array(ground) * (1 - noise) + np.array(shade) * noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # a border
        inset = rng.randint(4, 24)
        cv2.rectangle(img, (inset, inset), (CARD_W - inset, CARD_H - inset), ink, rng.randint(2, 10), cv2.LINE_AA)
    centre = (CARD_W / 2 + rng.uniform(-10, 10), CARD_H / 2 + rng.uniform(-24, 24))
    text_ink = ink
    plate = rng.choice(("none", "none", "disc", "panel", "band", "diamond"))
    plate_ink = rng.choice((ground, (245, 245, 245), ink)) if plate != "none" else None
    cx, cy = int(centre[0]), int(centre[1])
    if plate == "disc":
        cv2.circle(img, (cx, cy), int(CARD_W * rng.uniform(0.22, 0.42)), plate_ink, -1, cv2.LINE_AA)
    elif plate == "panel":
        w, h = int(CARD_W * rng.uniform(0.25, 0.42)), int(CARD_H * rng.uniform(0.1, 0.3))
        cv2.rectangle(img, (cx - w, cy - h), (cx + w, cy + h), plate_ink, -1)
    elif plate == "band":
        h = int(CARD_H * rng.uniform(0.08, 0.18))
        cv2.rectangle(img, (0, cy - h), (CARD_W, cy + h), plate_ink, -1)
    elif plate == "diamond":
        w, h = int(CARD_W * rng.uniform(0.3, 0.45)), int(CARD_H * rng.uniform(0.2, 0.35))
        pts = np.array([[cx, cy - h], [cx + w, cy], [cx, cy + h], [cx - w, cy]], np.int32)
        cv2.fillPoly(img, [pts], plate_ink, cv2.LINE_AA)
    if plate_ink is not None and plate_ink == ink:
        text_ink = ground if sum(ground) != sum(ink) else (245, 245, 245)
    typeface = _typeface(rng)
    mark = rng.choices(("T!", "TWEAK", "T"), (8, 1, 1))[0] if number == "back" else number
    height = CARD_H * (rng.uniform(0.08, 0.34) if mark != "TWEAK" else rng.uniform(0.05, 0.1))
    outline = _mix(text_ink, (0, 0, 0) if sum(text_ink) > 380 else (255, 255, 255), 0.8) if rng.random() < 0.2 else None
    img = _text(img, mark, centre, height, text_ink, typeface, rng, outline)
    if rng.random() < 0.35:  # small marks in two corners, the other turned
        size = rng.uniform(12, 26)
        for _ in range(2):
            img = _text(
                img, "T!" if number == "back" else number, (size * 0.8 + 8, size * 0.8 + 8), size, ink, typeface, rng
            )
            img = np.ascontiguousarray(img[::-1, ::-1])
    img[CARD_MASK == 0] = 0
    return img


#: the "deck" whose every number card is drawn anew (``families.AnewDeck``)
VARIED_DECK = AnewDeck("varied", render_varied_card)


def varied_deck(dark_share: float = 0.0, backs: bool = False, wide_backs: float = 0.0) -> AnewDeck:
    """``VARIED_DECK``, with ``dark_share`` of its number cards on a near-black ground and, with
    ``backs``, its backs drawn anew too, ``wide_backs`` of its backs and T! backs the wider way
    (``render_varied_card``)."""
    if not dark_share and not backs and not wide_backs:
        return VARIED_DECK
    draw = functools.partial(render_varied_card, dark_share=dark_share, backs=backs, wide_backs=wide_backs)
    return AnewDeck("varied", draw)
