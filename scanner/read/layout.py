"""Enrolment from photos of laid-out cards: the whole deck in two photos instead of 46.

The user lays the cards in rows, in the order a layout list gives (``DIR/<photo>.txt``: one line
per row, the labels left to right as the photo shows them), and photographs them. The cards are
found as the scan finds them (the classical outlines and the learned finder: no art assumed),
put in reading order (rows across the picture, each left to right, the grid's tilt taken from the
cards' own angle), and each row's count is checked against the list before any card is named: a
card missed or a stray thing found would shift every name after it. A list whose rows' counts read
the same turned round is refused: a photo taken from the other side of the table would match it,
every card named backwards.

>>> rows = parse_layout("red-1 red-2\\n# a comment\\n\\nback-7", "table-1.txt")
>>> rows
[['red-1', 'red-2'], ['back-7']]
>>> parse_layout("red-1 red-9", "t.txt")
Traceback (most recent call last):
...
scanner.read.layout.LayoutError: t.txt, line 1: 'red-9' is not a card label (DESIGN.md: red-5, back-7, tweak-joker...)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scanner.core import ScannerError
from scanner.labels import LABELS


class LayoutError(ScannerError):
    """A layout list that cannot be used, or a photo whose cards do not match it."""


@dataclass(frozen=True)
class LayoutSettings:
    """Every number of reading a photo of laid-out cards, one line each."""

    row_gap: float = 0.5  # a card whose centre lies this many card lengths off the row's line starts a new row
    card_size: tuple[float, float] = (0.5, 2.0)  # the laid-out cards' areas lie within these factors of their median
    inside: float = 0.6  # a quad with this share of it inside a larger card is a part of that card
    # a table this patterned around the cards (``table_pattern``: a checked cloth 2.0-5.7 on the
    # renders, the printed mat 0.4-0.9, plain tables 0) spoils the cards' outlines
    busy_table: float = 1.5


SETTINGS = LayoutSettings()

#: the suggested layout: the 46 cards in two photos (``docs/enrolment.md``); its rows' counts do
#: not read the same turned round (6, 6, 6, 6, 2 and 6, 6, 4, 4), nor a quarter turned, so a photo
#: taken from another side of the table is refused instead of named backwards
STANDARD_LAYOUT: tuple[tuple[tuple[str, ...], ...], ...] = (
    (
        *(tuple(f"{colour}-{v}" for v in range(1, 7)) for colour in ("red", "orange", "yellow", "green")),
        ("back-7", "back-8"),
    ),
    (
        tuple(f"blue-{v}" for v in range(1, 7)),
        tuple(f"purple-{v}" for v in range(1, 7)),
        ("back-9", "back-10", "special-7", "tweak-back"),
        ("tweak-thief", "tweak-joker", "tweak-shifter", "tweak-bomb"),
    ),
)


def parse_layout(text: str, where: str) -> list[list[str]]:
    """The rows of labels a layout list names (blank lines and ``#`` comments skipped); a label
    that is not a card, or one named twice, is an error naming the line."""
    rows: list[list[str]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        for word in words:
            if word not in LABELS:
                raise LayoutError(
                    f"{where}, line {number}: {word!r} is not a card label (DESIGN.md: red-5, back-7, tweak-joker...)"
                )
            if word in seen:
                raise LayoutError(f"{where}, line {number}: {word} is named twice (also on line {seen[word]})")
            seen[word] = number
        if words:
            rows.append(words)
    if not rows:
        raise LayoutError(f"{where}: no labels (one line per row of cards, e.g. 'red-1 red-2 red-3')")
    counts = [len(row) for row in rows]
    if counts == counts[::-1]:
        # (a photo taken from the other side of the table would match it too, every card misnamed)
        raise LayoutError(
            f"{where}: rows of {', '.join(map(str, counts))} cards read the same turned round, so a photo "
            "taken from the other side would name every card wrong: make the last row shorter or longer"
        )
    return rows


def layout_text(rows: list[list[str]] | tuple) -> str:
    """A layout list's text for ``rows`` (what ``parse_layout`` reads back).

    >>> layout_text([["red-1", "red-2"], ["back-7"]])
    'red-1 red-2\\nback-7\\n'
    """
    return "".join(" ".join(row) + "\n" for row in rows)


def read_layout(path: Path) -> list[list[str]]:
    """``parse_layout`` of a file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise LayoutError(f"{path}: cannot be read ({err})") from err
    return parse_layout(text, str(path))


def reading_order(quads: list[np.ndarray]) -> list[list[int]]:
    """The quads' indices in rows, top row first, each left to right: the grid's turn is the
    cards' median angle (a card lies along its row or across it), taken within 45 degrees of the
    picture's axes, so a photo taken a little turned still reads row by row.

    >>> card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32)
    >>> quads = [card + (x, y) for y in (0, 120) for x in (200, 100, 0)]
    >>> reading_order(quads)
    [[2, 1, 0], [5, 4, 3]]
    """
    if not quads:
        return []
    pts = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    centres = pts.mean(axis=1)
    side = pts[:, 1] - pts[:, 0]
    # each card's angle folded into a quarter turn; their mean on the circle of 4 x the angle
    angles = np.arctan2(side[:, 1], side[:, 0]) * 4
    turn = math.atan2(float(np.sin(angles).mean()), float(np.cos(angles).mean())) / 4
    c, s = math.cos(-turn), math.sin(-turn)
    upright = centres @ np.array([[c, s], [-s, c]], np.float32)
    lengths = np.maximum(np.linalg.norm(pts[:, 1] - pts[:, 0], axis=1), np.linalg.norm(pts[:, 2] - pts[:, 1], axis=1))
    gap = SETTINGS.row_gap * float(np.median(lengths))
    rows: list[list[int]] = []
    line = None
    for i in np.argsort(upright[:, 1], kind="stable"):
        if line is None or upright[i, 1] - line > gap:
            rows.append([])
        rows[-1].append(int(i))
        line = float(np.mean([upright[j, 1] for j in rows[-1]]))
    return [sorted(row, key=lambda j: float(upright[j, 0])) for row in rows]


def laid_out_cards(frame: np.ndarray, scanner: Any) -> list[np.ndarray]:
    """The cards of a photo of laid-out cards, as the scan finds them before reading (no art
    assumed: the classical outlines win over the finder's printed parts), without the play mat's
    markers, the quads lying inside a larger card (its parts) and those of another size than most
    (a table's edge, the play mat, a card's panel)."""
    import cv2

    from scanner.find.detect import contained_share
    from scanner.geometry.mat import find_markers

    quads = [np.asarray(d.corners, np.float32) for d in scanner.find_cards(frame, enrolment=True)]
    # the play mat's markers (black squares with a white pattern) are found as cards
    markers = [np.asarray(m, np.float32) for _, m in find_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))]
    quads = [q for q in quads if all(contained_share(q, m) < SETTINGS.inside for m in markers)]
    if not quads:
        return []
    areas = np.array([_area(q) for q in quads])
    order = np.argsort(-areas)
    kept: list[int] = []
    for i in order:
        if all(contained_share(quads[k], quads[i]) < SETTINGS.inside for k in kept):
            kept.append(int(i))
    median = float(np.median(areas[kept]))
    low, high = SETTINGS.card_size
    return [quads[i] for i in sorted(kept) if low * median <= areas[i] <= high * median]


def name_cards(frame: np.ndarray, rows: list[list[str]], scanner: Any, where: str) -> dict[str, np.ndarray]:
    """Each label of the layout and its card's outline in ``frame``; a photo whose rows do not
    hold as many cards as the list says is refused, naming what was seen, before any card is
    named."""
    quads = laid_out_cards(frame, scanner)
    if table_pattern(frame, quads) >= SETTINGS.busy_table:
        # (every card's outline is then off, and one photo teaches a whole sheet of cards wrong)
        raise LayoutError(
            f"{where}: the table around the cards is patterned (a checked cloth?), which spoils the "
            "cards' outlines: lay them out on a plain surface, or read them one by one"
        )
    found = reading_order(quads)
    counts = [len(r) for r in found]
    wanted = [len(r) for r in rows]
    if counts != wanted:
        seen = ", ".join(map(str, counts)) or "none"
        raise LayoutError(
            f"{where}: found rows of {seen} cards, the layout list has {', '.join(map(str, wanted))}: "
            "lay the cards in straight rows with a finger's width between them, on a plain table, whole in the photo"
        )
    return {label: quads[i] for labels, row in zip(rows, found) for label, i in zip(labels, row)}


def table_pattern(frame: np.ndarray, quads: list[np.ndarray]) -> float:
    """How patterned the table around the cards is: the share of it (the photo without the cards,
    grown by a third) that lies on an edge, times the cards' width in pixels (about the edges a
    card's width crosses: the same for a photo taken nearer or farther). 0 for a plain table.

    >>> card = np.array([[300, 150], [350, 150], [350, 220], [300, 220]], np.float32)
    >>> plain = np.full((360, 640, 3), 90, np.uint8)
    >>> y, x = np.indices((360, 640))
    >>> checked = np.where(((y // 20 + x // 20) % 2 == 0)[..., None], 200, 60).astype(np.uint8).repeat(3, axis=2)
    >>> table_pattern(plain, [card]), table_pattern(checked, [card]) > SETTINGS.busy_table
    (0.0, True)
    """
    import cv2

    from scanner.find.detect import SETTINGS as OUTLINES

    if not quads:
        return 0.0
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, OUTLINES.work_width / gray.shape[1])  # (the scale the outlines are found at)
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    edges = cv2.Canny(cv2.GaussianBlur(small, (5, 5), 0), 40, 100)
    table = np.ones(small.shape, np.uint8)
    widths = []
    for quad in quads:
        q = np.asarray(quad, np.float32) * scale
        centre = q.mean(axis=0)
        cv2.fillConvexPoly(table, np.round(centre + (q - centre) * 1.3).astype(np.int32), 0)
        sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        widths.append(min(sides[0] + sides[2], sides[1] + sides[3]) / 2)
    if not table.any():
        return 0.0
    return float((edges[table > 0] > 0).mean() * np.median(widths))


def _area(quad: np.ndarray) -> float:
    import cv2

    return float(cv2.contourArea(np.asarray(quad, np.float32)))
