"""Families of card art unlike the training styles (``cards.ArtStyle``), for measuring what the
scanner does with a deck nobody here drew: every family draws all 46 TWEAK labels its own way.

A *family* is a way of drawing (pips instead of numerals, textured faces, dark cards, wallpapers
of glyphs, photo-like faces, a band of the colour across a white card, a strip of it down the
side); a *deck* is one family with its own fonts and colours (``deck(family, seed)``). Whole
families are held out:
``TUNING_FAMILIES`` are for choosing settings (deck learning, outline finding, what the networks
are taught), ``CHECK_FAMILIES`` only for checking that a choice generalises. None of them is used
to train the shipped networks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from scanner.synth.cards import BASE_HSV, CARD_H, CARD_MASK, CARD_W

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)
FAMILIES = ("pips", "texture", "dark", "wallpaper", "photo", "ribbon", "strip")
#: (dark was a check family until the any-deck network was taught dark number cards because of
#: what it showed, in the twenty-sixth session: ribbon took its place)
TUNING_FAMILIES = ("pips", "texture", "dark")
#: (strip came in the thirty-third session with backs and a T! back of its own, drawn before any
#: network was taught backs drawn the wider way: like ribbon, it checks what is taught about backs)
CHECK_FAMILIES = ("wallpaper", "photo", "ribbon", "strip")
TWEAK_KINDS = ("thief", "joker", "shifter", "bomb")
#: where a value's pips lie on a 3 x 3 grid (column, row), as on playing cards
PIP_GRID = {
    1: [(1, 1)],
    2: [(1, 0), (1, 2)],
    3: [(1, 0), (1, 1), (1, 2)],
    4: [(0, 0), (2, 0), (0, 2), (2, 2)],
    5: [(0, 0), (2, 0), (0, 2), (2, 2), (1, 1)],
    6: [(0, 0), (2, 0), (0, 2), (2, 2), (0, 1), (2, 1)],
}


@dataclass(frozen=True)
class FamilyDeck:
    """One deck of a family: ``render(label, rng)`` draws a card as ``cards.render_card`` does."""

    family: str
    seed: int
    font: int
    hue_shift: int
    paper: tuple[int, int, int]
    accent: tuple[int, int, int]  # T! cards' and backs' main colour
    shapes: tuple[int, ...]  # a shape for each T! kind (the deck's own icons)
    heldout: bool = True  # (for the renderer's truth record: never a training style)
    layout: str = "family"

    def colour(self, name: str) -> tuple[int, int, int]:
        h, s, v = BASE_HSV[name]
        hsv = np.uint8([[[(h + self.hue_shift) % 180, s, v]]])
        return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])

    def render(self, label: str, rng: random.Random) -> np.ndarray:
        ground, text_ink, draw = _DRAW[self.family]
        img = np.full((CARD_H, CARD_W, 3), self.paper if ground is None else ground, np.uint8)
        if (label.startswith("back-") or label == "tweak-back") and self.family in _OWN_BACKS:
            img = _OWN_BACKS[self.family](self, img, label.split("-")[1])
        elif not _common(self, label, img, text_ink):  # a number card: the family's own way
            colour, value = _parse(label)
            img = draw(self, img, self.colour(colour), int(value), rng)
        img[CARD_MASK == 0] = 0
        return img


@dataclass(frozen=True)
class AnewDeck:
    """A "deck" whose every card is drawn anew by ``draw(label, rng)``: ``ABSTRACT_DECK`` (cards of
    no deck, for training the finder), ``varied.VARIED_DECK`` (number cards of any art)."""

    layout: str
    draw: Callable[[str, random.Random], np.ndarray]
    font: int = 0
    heldout: bool = False

    def render(self, label: str, rng: random.Random) -> np.ndarray:
        return self.draw(label, rng)


def deck(family: str, seed: int) -> FamilyDeck:
    """The deck ``seed`` of ``family``: its font, colour shift, paper and icons."""
    if family not in FAMILIES:
        raise ValueError(f"unknown art family {family!r}: one of {', '.join(FAMILIES)}")
    rng = random.Random(f"{family}-{seed}")
    paper = tuple(rng.randint(225, 255) for _ in range(3))
    hsv = np.uint8([[[rng.randint(0, 179), rng.randint(120, 255), rng.randint(60, 200)]]])
    accent = tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    shapes = tuple(rng.sample(range(6), 4))
    return FamilyDeck(family, seed, rng.choice(FONTS), rng.randint(-6, 6), paper, accent, shapes)


def _text(img, text, centre, height, colour, font, thickness=None) -> None:
    scale = height / 22.0
    thick = thickness or max(2, int(scale * 2.5))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(centre[0] - w / 2), int(centre[1] + h / 2))
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def _icon(img, shape: int, centre, size: float, colour) -> None:
    """One of six plain icons (the deck's picture of a T! kind)."""
    cx, cy = int(centre[0]), int(centre[1])
    r = int(size)
    if shape == 0:
        cv2.circle(img, (cx, cy), r, colour, -1, cv2.LINE_AA)
    elif shape == 1:
        cv2.rectangle(img, (cx - r, cy - r), (cx + r, cy + r), colour, -1)
    elif shape == 2:
        pts = np.array([[cx, cy - r], [cx + r, cy + r], [cx - r, cy + r]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    elif shape == 3:
        a = np.linspace(-np.pi / 2, 3 * np.pi / 2, 10, endpoint=False)
        rad = np.where(np.arange(10) % 2 == 0, r, r * 0.45)
        pts = np.stack([cx + rad * np.cos(a), cy + rad * np.sin(a)], axis=1).astype(np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    elif shape == 4:
        cv2.ellipse(img, (cx, cy), (r, r // 2), 30, 0, 360, colour, -1, cv2.LINE_AA)
    else:
        cv2.line(img, (cx - r, cy - r), (cx + r, cy + r), colour, max(3, r // 4), cv2.LINE_AA)
        cv2.line(img, (cx - r, cy + r), (cx + r, cy - r), colour, max(3, r // 4), cv2.LINE_AA)


def _parse(label: str) -> tuple[str, int | str]:
    """(kind, value): ("red", 5), ("back", 9), ("special", 7), ("tweak", "joker")."""
    head, tail = label.split("-")
    return head, int(tail) if tail.isdigit() else tail


def _common(d: FamilyDeck, label: str, img: np.ndarray, ink_for_text) -> bool:
    """Backs, the special 7 and T! cards, drawn the same way in every family on ``img`` (a face's
    background already painted). Returns False for a plain number card (left to the family)."""
    kind, value = _parse(label)
    if kind == "back":
        img[:] = tuple(int(c * 0.35) for c in d.accent)
        cv2.rectangle(img, (18, 18), (CARD_W - 18, CARD_H - 18), d.paper, 3)
        _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.22, d.paper, d.font)
        for k in range(int(value)):  # the number again, as ticks along the bottom
            x = 30 + k * (CARD_W - 60) / 9
            cv2.line(img, (int(x), CARD_H - 40), (int(x), CARD_H - 28), d.paper, 3)
        return True
    if kind == "special":
        img[:] = d.colour("blue")
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.36), d.paper, 5, cv2.LINE_AA)
        _text(img, "7", (CARD_W / 2, CARD_H / 2), CARD_H * 0.25, d.paper, d.font)
        return True
    if kind == "tweak":
        if value == "back":
            img[:] = d.accent
            for y in range(-CARD_W, CARD_H, 24):
                cv2.line(img, (0, y), (CARD_W, y + CARD_W), d.paper, 4, cv2.LINE_AA)
            _text(img, "T!", (CARD_W / 2, CARD_H / 2), CARD_H * 0.16, d.paper, d.font)
            return True
        shape = d.shapes[TWEAK_KINDS.index(str(value))]
        _icon(img, shape, (CARD_W / 2, CARD_H * 0.45), CARD_W * 0.25, d.accent)
        _text(img, str(value).upper(), (CARD_W / 2, CARD_H * 0.82), CARD_H * 0.06, ink_for_text, d.font)
        _text(img, "T!", (CARD_W * 0.18, CARD_H * 0.1), CARD_H * 0.06, d.accent, d.font)
        return True
    return False


def _pips(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """White cards; the value as that many pips of the colour, small corner numerals."""
    for gx, gy in PIP_GRID[int(value)]:
        _icon(img, d.shapes[0] % 4, (CARD_W * (0.28 + 0.22 * gx), CARD_H * (0.27 + 0.23 * gy)), 20, ink)
    for corner in ((22, 26), (CARD_W - 22, CARD_H - 26)):
        _text(img, str(value), corner, 24, ink, d.font, 2)
    return img


def _texture(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """Faces of a noisy texture tinted in the colour; a white outlined numeral."""
    noise = np.random.default_rng(rng.randint(0, 2**31)).random((CARD_H // 8, CARD_W // 8)).astype(np.float32)
    noise = cv2.resize(noise, (CARD_W, CARD_H), interpolation=cv2.INTER_CUBIC)
    tint = np.array(ink, np.float32)
    img = np.clip(tint[None, None] * (0.7 + 0.5 * noise[..., None]), 0, 255).astype(np.uint8)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.3, (20, 20, 20), d.font, 16)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.3, (250, 250, 250), d.font, 8)
    return img


def _dark(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """Black cards with a numeral and a frame in the colour."""
    cv2.rectangle(img, (14, 14), (CARD_W - 14, CARD_H - 14), ink, 6)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.3, ink, d.font)
    return img


def _wallpaper(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """A wallpaper of small numerals in the colour, and a big numeral in a white disc."""
    pale = tuple(int(0.45 * c + 0.55 * p) for c, p in zip(ink, d.paper))
    for y in range(14, CARD_H, 30):
        for x in range(12 + (y // 30 % 2) * 12, CARD_W, 26):
            _text(img, str(value), (x, y), 12, pale, d.font, 2)
    cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(CARD_W * 0.34), d.paper, -1, cv2.LINE_AA)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.24, ink, d.font)
    return img


def _photo(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """A photo-like face (soft blobs of many colours), the numeral on a plate of the colour."""
    colour = next(name for name in BASE_HSV if d.colour(name) == ink)
    local = random.Random(f"{d.seed}-{colour}-{value}")  # the same picture on every copy of the card
    for _ in range(14):
        centre = (local.randint(0, CARD_W), local.randint(0, CARD_H))
        hsv = np.uint8([[[local.randint(0, 179), local.randint(40, 160), local.randint(90, 240)]]])
        blob = tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
        cv2.circle(img, centre, local.randint(20, 70), blob, -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 6)
    cv2.rectangle(img, (40, 80), (CARD_W - 40, CARD_H - 80), ink, -1)
    cv2.rectangle(img, (40, 80), (CARD_W - 40, CARD_H - 80), d.paper, 4)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.22, d.paper, d.font)
    return img


def _ribbon(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """White cards crossed corner to corner by a band of the colour carrying a white outlined
    numeral; small corner indices of the colour, each over a dot."""
    band = np.array([[0, CARD_H * 0.72], [0, CARD_H], [CARD_W, CARD_H * 0.28], [CARD_W, 0]], np.int32)
    cv2.fillPoly(img, [band], ink, cv2.LINE_AA)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.26, (30, 30, 30), d.font, 14)
    _text(img, str(value), (CARD_W / 2, CARD_H / 2), CARD_H * 0.26, (250, 250, 250), d.font, 6)
    for _ in range(2):  # the index at the top left, then (the card turned) at the bottom right
        _text(img, str(value), (20, 24), 20, ink, d.font, 2)
        cv2.circle(img, (20, 46), 5, ink, -1, cv2.LINE_AA)
        img = np.ascontiguousarray(img[::-1, ::-1])
    return img


def _ribbon_back(d: FamilyDeck, img: np.ndarray, number: str) -> np.ndarray:
    """The ribbon family's own backs (so that it checks backs too: the other families share theirs):
    white, a wide border of the deck's colour, the number in white on a diamond of it and in the
    corners; the T! back of that colour crossed by white chevrons, "T!" on a white panel."""
    accent = d.accent
    if number == "back":
        img[:] = accent
        for y in range(-40, CARD_H + 40, 36):
            pts = np.array([[0, y], [CARD_W // 2, y + 30], [CARD_W, y]], np.int32)
            cv2.polylines(img, [pts], False, d.paper, 4, cv2.LINE_AA)
        cv2.rectangle(img, (36, 100), (CARD_W - 36, CARD_H - 100), d.paper, -1)
        _text(img, "T!", (CARD_W / 2, CARD_H / 2), CARD_H * 0.14, accent, d.font)
        return img
    cv2.rectangle(img, (8, 8), (CARD_W - 8, CARD_H - 8), accent, 16)
    c = (CARD_W // 2, CARD_H // 2)
    diamond = np.array([[c[0], c[1] - 80], [c[0] + 62, c[1]], [c[0], c[1] + 80], [c[0] - 62, c[1]]], np.int32)
    cv2.fillPoly(img, [diamond], accent, cv2.LINE_AA)
    _text(img, number, c, CARD_H * 0.14, d.paper, d.font)
    for _ in range(2):
        _text(img, number, (34, 38), 16, accent, d.font, 2)
        img = np.ascontiguousarray(img[::-1, ::-1])
    return img


def _strip(d: FamilyDeck, img: np.ndarray, ink, value: int, rng: random.Random) -> np.ndarray:
    """Cream cards with a strip of the colour down the left side, the value in white at its top
    and a large numeral of the colour, underlined, in the middle."""
    cv2.rectangle(img, (0, 0), (int(CARD_W * 0.24), CARD_H), ink, -1)
    _text(img, str(value), (CARD_W * 0.12, 30), 26, (250, 250, 250), d.font, 3)
    _text(img, str(value), (CARD_W * 0.6, CARD_H * 0.47), CARD_H * 0.26, ink, d.font)
    cv2.line(img, (int(CARD_W * 0.4), int(CARD_H * 0.66)), (int(CARD_W * 0.8), int(CARD_H * 0.66)), ink, 6)
    return img


def _strip_back(d: FamilyDeck, img: np.ndarray, number: str) -> np.ndarray:
    """The strip family's own backs: charcoal sown with small dots of the deck's colour, the
    number black on a white rounded square; the T! back of the deck's colour crossed by darker
    waves, "T!" of that colour on a white octagon."""
    accent = d.accent
    if number == "back":
        img[:] = accent
        darker = tuple(int(c * 0.6) for c in accent)
        xs = np.arange(0, CARD_W + 1, 4)
        for y in range(10, CARD_H, 28):
            pts = np.stack([xs, y + 7 * np.sin(xs / 14.0)], axis=1).astype(np.int32)
            cv2.polylines(img, [pts], False, darker, 5, cv2.LINE_AA)
        a = np.linspace(0, 2 * np.pi, 8, endpoint=False) + np.pi / 8
        octagon = np.stack([CARD_W / 2 + 70 * np.cos(a), CARD_H / 2 + 70 * np.sin(a)], axis=1).astype(np.int32)
        cv2.fillPoly(img, [octagon], (250, 250, 250), cv2.LINE_AA)
        _text(img, "T!", (CARD_W / 2, CARD_H / 2), CARD_H * 0.17, accent, d.font)
        return img
    img[:] = (34, 34, 34)
    for y in range(12, CARD_H, 22):
        for x in range(12 + (y // 22 % 2) * 11, CARD_W, 22):
            cv2.circle(img, (x, y), 3, accent, -1, cv2.LINE_AA)
    cv2.rectangle(img, (CARD_W // 2 - 52, CARD_H // 2 - 44), (CARD_W // 2 + 52, CARD_H // 2 + 44), (245, 245, 245), -1)
    _text(img, number, (CARD_W / 2, CARD_H / 2), CARD_H * 0.15, (20, 20, 20), d.font)
    return img


#: families whose backs are their own (the others' are ``_common``'s)
_OWN_BACKS = {"ribbon": _ribbon_back, "strip": _strip_back}


#: family -> (ground of the faces: None for the deck's paper, ink of the T! cards' names, number cards)
_DRAW = {
    "pips": (None, (40, 40, 40), _pips),
    "texture": (None, (30, 30, 30), _texture),
    "dark": ((25, 25, 25), (230, 230, 230), _dark),
    "wallpaper": (None, (40, 40, 40), _wallpaper),
    "photo": (None, (40, 40, 40), _photo),
    "ribbon": (None, (40, 40, 40), _ribbon),
    "strip": ((232, 244, 250), (40, 40, 40), _strip),
}


def _abstract(label: str, rng: random.Random) -> np.ndarray:
    return render_abstract_card(rng)


def render_abstract_card(rng: random.Random) -> np.ndarray:
    """A card of content unrelated to any deck, for teaching the card finder that a card is its
    outline and nothing printed on it: a face of a random ground (paper, dark, a colour, a
    gradient, noise, stripes, checks), any border or none (lines, checks, stripes), random glyphs
    and numerals in any font and size (corner indices among them), shapes, and wear."""
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    local = np.random.default_rng(rng.randrange(2**32))

    def colour() -> tuple[int, int, int]:
        hsv = np.uint8([[[rng.randint(0, 179), rng.randint(0, 255), rng.randint(15, 255)]]])
        return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])

    ground = rng.choice(("paper", "paper", "dark", "colour", "gradient", "noise", "stripes", "checks"))
    if ground == "paper":
        img[:] = tuple(rng.randint(215, 255) for _ in range(3))
    elif ground == "dark":
        img[:] = tuple(rng.randint(5, 45) for _ in range(3))
    elif ground == "colour":
        img[:] = colour()
    elif ground == "gradient":
        a, b = np.array(colour(), np.float32), np.array(colour(), np.float32)
        t = np.linspace(0, 1, CARD_H, dtype=np.float32)[:, None, None]
        img[:] = (a * (1 - t) + b * t).astype(np.uint8)
    elif ground == "noise":
        cells = rng.choice((4, 8, 16, 32))
        noise = local.random((CARD_H // cells + 1, CARD_W // cells + 1, 3)).astype(np.float32)
        noise = cv2.resize(noise, (CARD_W, CARD_H), interpolation=cv2.INTER_CUBIC)
        img[:] = np.clip(np.array(colour(), np.float32) * (0.5 + noise), 0, 255).astype(np.uint8)
    else:
        img[:] = colour()
        ink, step = colour(), rng.randint(6, 30)
        for k in range(0, CARD_H + CARD_W, 2 * step):
            if ground == "stripes":
                cv2.line(img, (0, k), (k, 0), ink, step, cv2.LINE_AA)
            else:
                for x in range(0, CARD_W, 2 * step):
                    y = k - (x // step % 2) * step
                    cv2.rectangle(img, (x, y), (x + step, y + step), ink, -1)
    border = rng.choice(("none", "none", "line", "thick", "double", "checks", "stripes"))
    inset = rng.randint(3, 24)
    ink = colour()
    if border in ("line", "double"):
        cv2.rectangle(img, (inset, inset), (CARD_W - inset, CARD_H - inset), ink, rng.randint(1, 4), cv2.LINE_AA)
        if border == "double":
            i2 = inset + rng.randint(5, 12)
            cv2.rectangle(img, (i2, i2), (CARD_W - i2, CARD_H - i2), ink, rng.randint(1, 3), cv2.LINE_AA)
    elif border == "thick":
        cv2.rectangle(img, (0, 0), (CARD_W - 1, CARD_H - 1), ink, 2 * inset)
    elif border in ("checks", "stripes"):
        step, other = rng.randint(5, 14), colour()
        frame = np.zeros((CARD_H, CARD_W), bool)
        frame[: 2 * inset], frame[-2 * inset :], frame[:, : 2 * inset], frame[:, -2 * inset :] = True, True, True, True
        yy, xx = np.mgrid[0:CARD_H, 0:CARD_W]
        pattern = ((yy // step + xx // step) % 2 == 0) if border == "checks" else ((yy + xx) // step % 2 == 0)
        img[frame & pattern] = ink
        img[frame & ~pattern] = other
    for _ in range(rng.randint(0, 4)):  # shapes
        _icon(
            img,
            rng.randrange(6),
            (rng.randint(20, CARD_W - 20), rng.randint(20, CARD_H - 20)),
            rng.randint(8, 70),
            colour(),
        )
    glyphs = "0123456789AKQJT!+-?#%&XYZ"
    for _ in range(rng.randint(0, 5)):  # glyphs and numerals, big or as corner indices
        text = "".join(rng.choice(glyphs) for _ in range(rng.randint(1, 2)))
        centre = (rng.randint(10, CARD_W - 10), rng.randint(10, CARD_H - 10))
        _text(img, text, centre, rng.choice((10, 16, 24, 40, 70, 110)), colour(), rng.choice(FONTS))
    if rng.random() < 0.5:  # corner indices
        text, ink, font = rng.choice(glyphs), colour(), rng.choice(FONTS)
        for centre in ((20, 26), (CARD_W - 20, CARD_H - 26)):
            _text(img, text, centre, 20, ink, font, 2)
    if rng.random() < 0.3:  # worn print
        wear = cv2.GaussianBlur(local.random((CARD_H, CARD_W)).astype(np.float32), (0, 0), 3)[..., None]
        img[:] = np.clip(img * (0.85 + 0.3 * wear), 0, 255).astype(np.uint8)
    img[CARD_MASK == 0] = 0
    return img


ABSTRACT_DECK = AnewDeck("abstract", _abstract)
