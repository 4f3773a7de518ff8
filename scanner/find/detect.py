"""Card detection: every card-shaped quadrilateral in a frame, in the frame's pixels.

Classical geometry with OpenCV: edges from several channels (lightness and colour, so a card is
found on a table of another colour even at the same brightness), closed contours, quadrilateral
fitting with corner refinement, and whole-frame consistency (the cards of one frame are about the
same size). Quads touching the frame's edge are cut cards and are not reported.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.geometry.crops import order_portrait, order_portrait_many
from scanner.metrics import quad_iou


@dataclass(frozen=True)
class OutlineSettings:
    """Every number of finding cards by their outline, and of fusing outlines with the learned
    finder's quads, one line each."""

    work_width: int = 960  # detection runs on a frame scaled to this width
    aspect_range: tuple[float, ...] = (1.15, 2.2)  # long / short side in the image (TWEAK 1.40; tilt makes more)
    min_area_fraction: float = 0.0012
    max_area_fraction: float = 0.25
    edge_margin: int = 3  # px (work scale): a quad this close to the frame edge is a cut card
    consistent_area: tuple[float, ...] = (0.45, 2.2)  # a frame's cards have areas within these factors of the median
    fuse_same: float = 0.6  # a learned quad and an outline overlapping this much (IoU) are one card
    fuse_part: float = 0.7  # a learned quad inside an outline and under this share of its area is a part of it
    group_share: float = 0.3  # ... unless the outline holds two quads this share of its area: two cards
    pair_area: float = 1.5  # ... and is this many times the frame's usual outline
    fuse_typical_from: int = 3  # outlines needed to know the frame's usual one
    outline_support: float = 0.55  # share of an outline's sides on an edge (as detect_cards asks of its quads)
    card_aspect: tuple[float, ...] = (1.25, 1.8)  # a card's long / short side: TWEAK 1.40, bridge 1.56, tarot 1.75
    fuse_many: int = 5  # an outline holding this many of the finder's quads is a mat (a card's parts: 1-4)
    fuse_support: float = 0.1  # an outline counts where the finder sees card in a tenth of its inside (pieces will do)
    fragment_inside: float = 0.6  # share of a finder's quad inside an outline for it to be a piece of that card
    fragments_overlap: float = 0.2  # IoU at which two finder's quads in one outline are the same card found twice


SETTINGS = OutlineSettings()


@dataclass
class Detection:
    corners: np.ndarray  # 4 x 2 float32, original pixels, portrait order (short side first)
    score: float  # how card-like (rectangularity)
    touching: bool = False  # overlaps or touches another detection
    # the learned finder's quad as its pixels voted for it, before it was put on the image's edges:
    # where that fit goes astray (edges of a checked cloth, of a touching card) it is the better guess
    guess: np.ndarray | None = None
    weak: bool = False  # found where the learned finder is unsure: kept only if read surely
    # how well the learned finder's pixels agree on the card's angle (0-1; 0: not known): where they
    # agree, the scanner does not try the card turned
    angle_agreement: float = 0.0
    # found as a card's whole outline by classical geometry (an edge all round, a card's shape):
    # a card whatever is printed on it, even when the classifier does not know the art
    outlined: bool = False
    unseen: bool = False  # an outline where the learned finder sees no card: dropped if read surely as none
    # the outline found on a frame printed inside the card, where it was moved out to the card's
    # edge (``scan.find_cards``): zero-shot the card is read there, with a deck profile at both
    framed: np.ndarray | None = None

    @property
    def area(self) -> float:
        return float(cv2.contourArea(self.corners.astype(np.float32)))


def _blurred(ycc: np.ndarray) -> list[np.ndarray]:
    """Each channel of the YCrCb frame ``ycc`` smoothed (5 x 5 Gaussian), for the edge and colour maps."""
    return [cv2.GaussianBlur(channel, (5, 5), 0) for channel in cv2.split(ycc)]


def _edges(blurred: list[np.ndarray]) -> list[np.ndarray]:
    """Binary edge maps from lightness and from colour (``blurred``: ``_blurred`` of the frame)."""
    maps = []
    for index, channel in enumerate(blurred):
        median = float(np.median(channel[::4, ::4]))
        if index == 0:
            low, high = max(10.0, 0.4 * median), max(30.0, 1.1 * median)
        else:
            low, high = 8.0, 20.0
        maps.append(cv2.Canny(channel, low, high))
    combined = maps[0] | maps[1] | maps[2]
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    return [cv2.dilate(combined, kernel), cv2.dilate(maps[0], kernel)]


def _regions(small: np.ndarray) -> list[np.ndarray]:
    """Regions lighter or darker than the table: global (Otsu) and local thresholds, both ways."""
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, light = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    block = max(31, (small.shape[1] // 6) | 1)
    local = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -8)
    local_dark = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 8)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    return [cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel) for m in (light, 255 - light, local, local_dark)]


def _colour_regions(blurred: list[np.ndarray]) -> list[np.ndarray]:
    """Regions of another colour than the table (Otsu on each colour-difference channel of
    ``blurred``, ``_blurred`` of the frame): a card printed all over in stripes or a texture,
    lying on a table of another colour, has no edge of its own and no lightness apart from the
    table's, but its colour is apart."""
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    otsu = cv2.THRESH_BINARY + cv2.THRESH_OTSU
    maps = [cv2.threshold(channel, 0, 255, otsu)[1] for channel in blurred[1:]]
    return [cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel) for m in maps]


def work_frame(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """``frame`` at the outlines' working width (``OutlineSettings.work_width``) and the scale to
    it, as an area average. (Bilinear, five times faster at 1280 to 960 px, moved the outlines of
    three touching cards so that they were cut wrong: RESULTS, twentieth session.)

    >>> small, scale = work_frame(np.zeros((720, 1280, 3), np.uint8))
    >>> small.shape, scale
    ((540, 960, 3), 0.75)
    """
    h, w = frame.shape[:2]
    if w <= SETTINGS.work_width:
        return frame, 1.0
    scale = SETTINGS.work_width / w
    size = (round(w * scale), round(h * scale))
    if frame.dtype == np.uint8 and 3 * w == 4 * size[0] and 3 * h == 4 * size[1]:
        map_x, map_y = _three_quarters_maps(w, h)
        return cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR), scale
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA), scale


@functools.lru_cache(maxsize=4)
def _three_quarters_maps(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Where to sample a w x h frame so that a bilinear remap gives its area average at 3/4 scale:
    each 4 pixels become 3 weighted (3,1), (2,2), (1,3) / 4, i.e. bilinear samples at +0.25, +1.5
    and +2.75. The weights are quarters, exact in the remap's fixed point, so the result is
    OpenCV's ``INTER_AREA`` to the bit, in under half its time (the 1280 x 720 camera frame)."""
    offsets = np.array((0.25, 1.5, 2.75), np.float32)

    def positions(n: int) -> np.ndarray:
        return (4 * np.arange(n // 3, dtype=np.float32)[:, None] + offsets).ravel()

    map_x, map_y = np.meshgrid(positions(3 * w // 4), positions(3 * h // 4))
    return map_x, map_y


def _quad_from_contour(contour: np.ndarray) -> tuple[np.ndarray, float] | None:
    area = cv2.contourArea(contour)
    if area <= 0:
        return None
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or area / hull_area < 0.85:
        return None
    # the 4-sided polygon closest to the hull: rounded corners are cut back to their sharp corner
    quad = cv2.approxPolyN(hull, 4, ensure_convex=True).reshape(-1, 2).astype(np.float32)
    if len(quad) != 4:
        return None
    quad_area = cv2.contourArea(quad)
    if quad_area <= 0:
        return None
    fill = min(area, quad_area) / max(area, quad_area)
    if fill < 0.85:
        return None
    return quad, fill


def _shape_ok(quad: np.ndarray) -> bool:
    # (plain float arithmetic: this runs on every contour of every edge map, and numpy's per-call
    # cost on four points is most of its time)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.tolist()
    edges = ((x1 - x0, y1 - y0), (x2 - x1, y2 - y1), (x3 - x2, y3 - y2), (x0 - x3, y0 - y3))
    sides = [math.hypot(dx, dy) for dx, dy in edges]
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    ratio = max(a, b) / max(min(a, b), 1e-6)
    if not SETTINGS.aspect_range[0] <= ratio <= SETTINGS.aspect_range[1]:
        return False
    # opposite sides about equal (allowing perspective), corners not too far from square
    if (
        min(sides[0], sides[2]) / max(sides[0], sides[2]) < 0.75
        or min(sides[1], sides[3]) / max(sides[1], sides[3]) < 0.75
    ):
        return False
    for i in range(4):
        # at corner i: the side arriving (reversed) and the side leaving
        (ax, ay), (bx, by) = edges[i - 1], edges[i]
        cos = abs(-(ax * bx + ay * by)) / (sides[i - 1] * sides[i] + 1e-6)
        if cos > 0.4:  # more than ~24 degrees off a right angle (perspective allowed)
            return False
    return True


_SIDE_STEPS = np.linspace(0.1, 0.9, 24)[:, None]  # where _edge_supports looks along each side


def _edge_supports(edges: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """For each quad, the fraction of points along its sides that lie on an edge: a real card's
    outline is an edge all round; a quad fitted to a merged region (card plus shadow) is not."""
    if not quads:
        return np.zeros(0)
    h, w = edges.shape
    starts = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    ends = starts[:, [1, 2, 3, 0]]
    pts = starts[:, :, None, :] + (ends - starts)[:, :, None, :] * _SIDE_STEPS[None, None]
    xi = np.clip(np.rint(pts[..., 0]).astype(int), 0, w - 1)
    yi = np.clip(np.rint(pts[..., 1]).astype(int), 0, h - 1)
    return (edges[yi, xi] > 0).reshape(len(starts), -1).mean(axis=1)


def outline_contrast(frame: np.ndarray, quad: np.ndarray, contrast: float, samples: int = 16) -> float:
    """The share of points along ``quad``'s sides where the colour changes across it (Lab
    distance over ``contrast`` between just outside and just inside): about 1 for a card's true
    outline, low for an outline drawn across glare or a table the card's colour, where no edge
    shows.

    >>> frame = np.full((100, 100, 3), 40, np.uint8); frame[30:70, 35:65] = 230
    >>> quad = np.array([[35, 30], [65, 30], [65, 70], [35, 70]], np.float32)
    >>> outline_contrast(frame, quad, 10.0), outline_contrast(frame, quad + 15, 10.0) < 0.6
    (1.0, True)
    """
    return float(side_contrasts(frame, quad, contrast, samples).mean())


def side_contrasts(frame: np.ndarray, quad: np.ndarray, contrast: float, samples: int = 16) -> np.ndarray:
    """``outline_contrast`` of each of ``quad``'s four sides: a card lying on a table shows an
    edge all round; a quad cut out of something larger (half a phone) has a side without one.

    >>> frame = np.full((100, 100, 3), 40, np.uint8); frame[30:70, 35:90] = 230
    >>> side_contrasts(frame, np.array([[35, 30], [65, 30], [65, 70], [35, 70]], np.float32), 10.0).tolist()
    [1.0, 0.0, 1.0, 1.0]
    """
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    starts, ends = quad, quad[[1, 2, 3, 0]]
    sides = np.linalg.norm(ends - starts, axis=1)
    step = max(3.0, 0.03 * float(sides.min()))  # px either side of the outline
    # only the window the samples lie in (and the blur's reach) is converted to Lab
    fh, fw = frame.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0) - step - 3), 0, [fw, fh]).astype(int)
    x1, y1 = np.clip(np.ceil(quad.max(axis=0) + step + 4), 0, [fw, fh]).astype(int)
    if x1 <= x0 or y1 <= y0:
        return np.zeros(4)
    window = frame[y0:y1, x0:x1]
    lab = cv2.cvtColor(cv2.GaussianBlur(window, (3, 3), 0), cv2.COLOR_BGR2Lab).astype(np.float32)
    h, w = lab.shape[:2]
    starts, ends = starts - (x0, y0), ends - (x0, y0)
    centre = quad.mean(axis=0) - (x0, y0)
    along = (ends - starts) / np.maximum(sides, 1e-6)[:, None]
    normal = np.stack([along[:, 1], -along[:, 0]], axis=1)
    outward = np.sign(((starts + ends) / 2 - centre) @ normal.T).diagonal()
    normal *= np.where(outward == 0, 1.0, outward)[:, None]
    t = np.linspace(0.15, 0.85, samples)[None, :, None]
    pts = starts[:, None] + (ends - starts)[:, None] * t
    outside, inside = pts + normal[:, None] * step, pts - normal[:, None] * step

    def at(p: np.ndarray) -> np.ndarray:
        x = np.clip(np.rint(p[..., 0]).astype(int), 0, w - 1)
        y = np.clip(np.rint(p[..., 1]).astype(int), 0, h - 1)
        return lab[y, x]

    return (np.linalg.norm(at(outside) - at(inside), axis=-1) > contrast).mean(axis=1)


def contained_share(outer: np.ndarray, inner: np.ndarray) -> float:
    """The share of ``inner``'s area that lies inside ``outer`` (convex quads)."""
    inter, _ = cv2.intersectConvexConvex(outer.astype(np.float32), inner.astype(np.float32))
    return float(inter / max(cv2.contourArea(inner.astype(np.float32)), 1e-6))


def detect_cards(
    frame: np.ndarray,
    area_range: tuple[float, float] | None = None,
    consistent: bool = True,
    enrolment: bool = False,
) -> list[Detection]:
    """Every complete card in ``frame`` (BGR), corners in the frame's pixels.

    ``area_range`` (pixels of ``frame``) replaces the default size limits, and ``consistent=False``
    skips the whole-frame size consistency: both for searching one card in a small region.
    ``enrolment``: the outlines a deck is learned from: without the regions of another colour than
    the table (``_colour_regions``: there they chose another outline of the one card to learn it
    from, which taught some decks better and as many worse).
    """
    small, scale = work_frame(frame)
    sh, sw = small.shape[:2]
    frame_area = sh * sw
    if area_range is None:
        low, high = SETTINGS.min_area_fraction * frame_area, SETTINGS.max_area_fraction * frame_area
    else:
        low, high = area_range[0] * scale * scale, area_range[1] * scale * scale
    shaped: list[tuple[np.ndarray, float, bool]] = []  # (quad, fill, from a colour map) of every card-shaped contour
    # YCrCb: lightness and two colour-difference channels, much cheaper to compute than Lab
    blurred = _blurred(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb))
    edge_maps = _edges(blurred)
    support_map = cv2.dilate(edge_maps[0], cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    maps = [*edge_maps, *_regions(small)]
    colour_from = len(maps)
    if not enrolment:
        maps += _colour_regions(blurred)
    for index, binary in enumerate(maps):
        contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not low <= area <= high:
                continue
            fitted = _quad_from_contour(contour)
            if fitted is None:
                continue
            quad, fill = fitted
            if _shape_ok(quad):
                shaped.append((quad, fill, index >= colour_from))
    supports = _edge_supports(support_map, [q for q, _, _ in shaped])
    candidates = [
        (quad, fill * float(support), by_colour)
        for (quad, fill, by_colour), support in zip(shaped, supports)
        if support >= SETTINGS.outline_support
    ]
    # non-maximum suppression: the same card found in several maps (keep the best outline), and
    # a card's inner printed border (keep the card's outer edge); the colour maps' quads come last,
    # to find what lightness did not (a group of touching cards is outlined by lightness as before)
    candidates.sort(key=lambda c: (c[2], -c[1]))
    candidates = [(quad, score) for quad, score, _ in candidates]
    kept: list[tuple[np.ndarray, float]] = []
    # (quads whose bounding boxes do not meet neither overlap nor hold each other: only those that
    # meet are compared, which keeps this pass linear in practice)
    boxes = _boxes([q for q, _ in candidates])
    kept_boxes = np.empty_like(boxes)
    for (quad, score), box in zip(candidates, boxes):
        replace = None
        duplicate = False
        for k in np.flatnonzero(_boxes_meet(box[None], kept_boxes[: len(kept)])[0]):
            other = kept[k][0]
            if quad_iou(quad, other) > 0.6:
                duplicate = True
                break
            if contained_share(other, quad) > 0.9:  # inside a kept card: its printed border
                duplicate = True
                break
            if contained_share(quad, other) > 0.9 and cv2.contourArea(quad) < 1.7 * cv2.contourArea(other):
                replace = k  # the kept one was the inner border of this card
                break
        if replace is not None:
            kept[replace] = (quad, score)
            kept_boxes[replace] = box
        elif not duplicate:
            kept_boxes[len(kept)] = box
            kept.append((quad, score))
    if not kept:
        return []
    # whole-frame consistency: cards of one frame are about the same size
    areas = np.array([cv2.contourArea(q) for q, _ in kept])
    median = float(np.median(areas))
    if consistent:
        kept = [
            (q, f)
            for (q, f), a in zip(kept, areas)
            if SETTINGS.consistent_area[0] * median <= a <= SETTINGS.consistent_area[1] * median
        ]
    # a big quad that holds several cards is a group of cards (or a mat), not one card
    kept_boxes = _boxes([q for q, _ in kept])
    meet = _boxes_meet(kept_boxes, kept_boxes)
    kept = [
        (q, f)
        for i, (q, f) in enumerate(kept)
        if sum(contained_share(q, kept[j][0]) > 0.8 for j in np.flatnonzero(meet[i]) if j != i) == 0
    ]
    # cut by the frame's edge: not a complete card
    kept = [
        (q, f)
        for q, f in kept
        if (q[:, 0] > SETTINGS.edge_margin).all()
        and (q[:, 1] > SETTINGS.edge_margin).all()
        and (q[:, 0] < sw - 1 - SETTINGS.edge_margin).all()
        and (q[:, 1] < sh - 1 - SETTINGS.edge_margin).all()
    ]
    if not kept:
        return []
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    # every corner refined in one call (each is refined on its own) and ordered at once
    quads = np.stack([quad for quad, _ in kept])
    refined = cv2.cornerSubPix(
        gray,
        quads.reshape(-1, 1, 2).copy(),
        (4, 4),
        (-1, -1),
        (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05),
    ).reshape(-1, 4, 2)
    astray = np.linalg.norm(refined - quads, axis=2).max(axis=1) > 4
    refined[astray] = quads[astray]
    ordered = order_portrait_many(refined / scale)
    detections = [Detection(corners, fill) for corners, (_, fill) in zip(ordered, kept)]
    grown = [grow_quad(d.corners, 1.04) for d in detections]
    grown_boxes = _boxes(grown)
    meet = _boxes_meet(grown_boxes, grown_boxes)
    for i, j in zip(*np.nonzero(np.triu(meet, 1))):
        if quad_iou(grown[i], grown[j]) > 0:
            detections[i].touching = detections[j].touching = True
    return detections


def _boxes(quads: list[np.ndarray]) -> np.ndarray:
    """Each quad's bounding box, x0 y0 x1 y1 (one row a quad)."""
    points = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    return np.concatenate([points.min(axis=1), points.max(axis=1)], axis=1)


def _boxes_meet(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether each box of ``a`` meets each box of ``b`` (touching counts), as a len(a) x len(b) table."""
    return (
        (a[:, None, 0] <= b[None, :, 2])
        & (b[None, :, 0] <= a[:, None, 2])
        & (a[:, None, 1] <= b[None, :, 3])
        & (b[None, :, 1] <= a[:, None, 3])
    )


def grow_quad(quad: np.ndarray, factor: float) -> np.ndarray:
    centre = quad.mean(axis=0)
    return (quad - centre) * factor + centre


class _Overlaps:
    """``contained_share`` and ``quad_iou`` of detections, 0 at once for two whose bounding boxes
    do not meet (most pairs of a frame: the pairwise passes of fusion stay cheap)."""

    def __init__(self, detections: list[Detection]) -> None:
        boxes = _boxes([d.corners for d in detections])
        self._meets = _boxes_meet(boxes, boxes).tolist()
        self._index = {id(d): i for i, d in enumerate(detections)}

    def _meet(self, a: Detection, b: Detection) -> bool:
        return self._meets[self._index[id(a)]][self._index[id(b)]]

    def share(self, outer: Detection, inner: Detection) -> float:
        return contained_share(outer.corners, inner.corners) if self._meet(outer, inner) else 0.0

    def iou(self, a: Detection, b: Detection) -> float:
        return quad_iou(a.corners, b.corners) if self._meet(a, b) else 0.0


def lying_apart(quads: list[Detection]) -> list[Detection]:
    """Those of ``quads`` that lie apart from each other, largest first (``_apart``)."""
    return _chosen_apart(quads, _Overlaps(quads))


def _apart(quads: list[Detection], ov: _Overlaps) -> int:
    """How many of ``quads`` lie apart from each other (a card's parts pile up on each other as the
    finder votes for them; the cards on a mat lie side by side)."""
    return len(_chosen_apart(quads, ov))


def _chosen_apart(quads: list[Detection], ov: _Overlaps) -> list[Detection]:
    chosen: list[Detection] = []
    for d in sorted(quads, key=lambda q: -q.area):
        if all(ov.share(c, d) < 0.2 and ov.share(d, c) < 0.2 for c in chosen):
            chosen.append(d)
    return chosen


_NEIGHBOURS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], np.float32)


def _tiles(outlines: list[Detection]) -> list[bool]:
    """Which outlines are tiles of a pattern (a checked cloth, a tiled table): each has two or more
    outlines of its size right beside it, a side's length away along its own sides or diagonally,
    as squares of a grid do and cards laid on a table seldom do.

    >>> square = lambda x, y: Detection(np.float32([[x, y], [x + 70, y], [x + 70, y + 100], [x, y + 100]]), 1.0)
    >>> _tiles([square(0, 0), square(70, 0), square(0, 100), square(400, 400)])
    [True, True, True, False]
    """
    n = len(outlines)
    if n < 3:
        return [False] * n
    centres = np.array([o.corners.mean(axis=0) for o in outlines])
    areas = np.array([o.area for o in outlines])
    out = []
    for i, o in enumerate(outlines):
        q = o.corners
        sides = [q[1] - q[0], q[3] - q[0]]
        similar = (np.abs(areas / max(areas[i], 1e-6) - 1) < 0.3) & (np.arange(n) != i)
        length = float(min(np.linalg.norm(side) for side in sides))
        # the 8 places beside it along its sides and diagonally, all at once
        places = centres[i] + _NEIGHBOURS[:, :1] * sides[0] + _NEIGHBOURS[:, 1:] * sides[1]
        error = np.linalg.norm(centres[None] - places[:, None], axis=2)
        out.append(int(((error < 0.25 * length) & similar[None]).any(axis=1).sum()) >= 2)
    return out


def map_support(prob: np.ndarray, corners: np.ndarray, size: tuple[int, int]) -> float:
    """The mean of a card-pixel probability map (any resolution) over the inner part of the quad
    ``corners`` (frame pixels of a ``size`` = (w, h) frame)."""
    h, w = prob.shape
    scale = np.array([w / size[0], h / size[1]], np.float32)
    quad = np.asarray(corners, np.float32) * scale
    centre = quad.mean(axis=0)
    inner = ((quad - centre) * 0.8 + centre).round().astype(np.int32)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, inner, 1)
    if not mask.any():
        return 0.0
    return float(prob[mask > 0].mean())


def fuse_outlines(
    learned: list[Detection], outlines: list[Detection], prob: np.ndarray, size: tuple[int, int]
) -> list[Detection]:
    """The learned finder's cards and the classical outlines together, a card's outline winning
    over its printed parts. The finder's map is learned from this project's art, the outlines are
    not: so the map does not veto an outline, it only says where the finder sees no card. The
    finder's quads inside an outline under SETTINGS.fuse_part of its area are its parts (an index, a
    numeral, a border of an art the finder never saw) and are dropped. An outline the finder found
    too (IoU >= SETTINGS.fuse_same) keeps the finder's quad, marked outlined; one the finder missed is added,
    ``unseen`` where the finder sees no card pixels in it (``map_support`` < SETTINGS.fuse_support: a checked
    cloth's square, or an art it does not know; dropped only when read surely as no card). An
    outline holding two of the finder's cards of a card's size is two cards side by side, and one
    holding SETTINGS.fuse_many of its quads is a mat or a tray: neither counts."""
    ov = _Overlaps([*learned, *outlines])
    # an outline around many of the finder's quads lying apart holds a table's worth of cards: a mat
    outlines = [o for o in outlines if _apart([d for d in learned if ov.share(o, d) > 0.7], ov) < SETTINGS.fuse_many]
    # an outline twice the frame's usual one holding two of the finder's cards of a card's size is two
    # cards side by side (their joint outline has a card's proportions); a usual-sized one holding
    # two big quads is one card whose printed panels the finder took for cards
    usual = float(np.median([o.area for o in outlines])) if len(outlines) >= SETTINGS.fuse_typical_from else 0.0
    outlines = [
        o
        for o in outlines
        if o.area < SETTINGS.pair_area * usual
        or sum(ov.share(o, d) > 0.7 and d.area >= SETTINGS.group_share * o.area for d in learned) < 2
    ]
    if not outlines:
        return learned
    seen = [map_support(prob, o.corners, size) >= SETTINGS.fuse_support for o in outlines]
    # (only where the finder sees no card: cards laid in neat rows are seen)
    tiles = [t and not v for t, v in zip(_tiles(outlines), seen)]
    outlines, seen = [o for o, t in zip(outlines, tiles) if not t], [v for v, t in zip(seen, tiles) if not t]
    # an outline the finder sees no card in must have a card's proportions, and a card's size
    # beside the finder's quads (its cards, or on an art it does not know their smaller parts)
    typical = float(np.median([d.area for d in learned])) if len(learned) >= 3 else None
    plausible = [
        v
        or (
            SETTINGS.card_aspect[0] <= aspect_ratio(o.corners) <= SETTINGS.card_aspect[1]
            and (typical is None or o.area >= SETTINGS.consistent_area[0] * typical)
        )
        for o, v in zip(outlines, seen)
    ]
    outlines, seen = [o for o, k in zip(outlines, plausible) if k], [v for v, k in zip(seen, plausible) if k]
    if not outlines:
        return learned
    areas = [o.area for o in outlines]
    learned = _fragments_to_outlines(learned, outlines, ov)
    kept: list[Detection] = []
    claimed: set[int] = set()
    for d in learned:
        ious = [ov.iou(d, o) for o in outlines]
        j = int(np.argmax(ious))
        if ious[j] >= SETTINGS.fuse_same:
            d.outlined = True
            claimed.add(j)
            kept.append(d)
            continue
        area = d.area
        # (only an outline the finder sees card in has parts: in one it sees no card, its quad is a
        # card lying on something larger that has a card's proportions, a mat's printed line or a tray)
        if any(ov.share(o, d) > 0.7 and area < SETTINGS.fuse_part * a and v for o, a, v in zip(outlines, areas, seen)):
            continue
        kept.append(d)
    for j, o in enumerate(outlines):
        if j not in claimed and all(ov.iou(o, d) < 0.3 for d in kept):
            o.outlined = True
            o.unseen = not seen[j]
            kept.append(o)
    return kept


def _fragments_to_outlines(learned: list[Detection], outlines: list[Detection], ov: _Overlaps) -> list[Detection]:
    """The finder's quads that overlap each other inside one outline of a card's proportions,
    none of them fitting it, are one card found piecewise (a pale card on a pale table, an art
    whose printed halves look like cards): they give way to the outline (two cards side by side
    do not overlap; a card's small parts are dropped by the caller anyway)."""
    dropped: set[int] = set()
    for o in outlines:
        if not SETTINGS.card_aspect[0] <= aspect_ratio(o.corners) <= SETTINGS.card_aspect[1]:
            continue
        inside = [
            i
            for i, d in enumerate(learned)
            if i not in dropped and ov.share(o, d) > SETTINGS.fragment_inside and ov.iou(d, o) < SETTINGS.fuse_same
        ]
        if len(inside) < 2:
            continue
        overlapping = all(
            any(ov.iou(learned[i], learned[j]) > SETTINGS.fragments_overlap for j in inside if j != i) for i in inside
        )
        if overlapping:
            dropped.update(inside)
    return [d for i, d in enumerate(learned) if i not in dropped]


def aspect_ratio(quad: np.ndarray) -> float:
    """Long over short side of a quad (mean of opposite sides)."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return float(max(a, b) / max(min(a, b), 1e-6))


def dominant_outline(frame: np.ndarray) -> np.ndarray | None:
    """The outline of the one object of a photo that stands out from the table around it (an
    enrolment photo: one card, anywhere): pixels far in colour from the photo's border, closed,
    the largest region's convex hull fitted with four corners. Art-independent: whatever is
    printed inside, the card is one region. None when nothing card-shaped stands out."""
    small, scale = work_frame(frame)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2Lab).astype(np.float32)
    edge = np.concatenate(
        [lab[:8].reshape(-1, 3), lab[-8:].reshape(-1, 3), lab[:, :8].reshape(-1, 3), lab[:, -8:].reshape(-1, 3)]
    )
    table = np.median(edge, axis=0)
    spread = np.percentile(np.linalg.norm(edge - table, axis=1), 95)
    distance = np.linalg.norm(lab - table, axis=2)
    mask = (distance > max(12.0, 2.0 * spread)).astype(np.uint8)
    size = max(3, round(min(small.shape[:2]) / 60)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), cv2.MORPH_CLOSE, kernel, iterations=2)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    biggest = max(contours, key=cv2.contourArea)
    if cv2.contourArea(biggest) < SETTINGS.min_area_fraction * mask.size:
        return None
    hull = cv2.convexHull(biggest)
    quad = cv2.approxPolyN(hull, 4, ensure_convex=True).reshape(-1, 2).astype(np.float32)
    if len(quad) != 4 or not _shape_ok(quad) or cv2.contourArea(biggest) < 0.8 * cv2.contourArea(quad):
        return None
    # a card's outline is an edge all round; a patch of light or shadow on the table is not
    edge_maps = _edges(_blurred(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)))
    edges = cv2.dilate(edge_maps[0], cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    if _edge_supports(edges, [quad])[0] < SETTINGS.outline_support:
        return None
    return order_portrait(quad / scale)
