"""The learned card finder: a small fully convolutional network (ONNX, run with onnxruntime) at a
reduced resolution marks the *inner part* of every card, so touching cards stay apart, and at each
marked pixel says where that pixel's card lies: its centre, angle and size (the geometry head). The
pixels of a blob vote for their card's quad, which is then put on the card's edges in the full frame
by array code for all the frame's cards at once (``snap_many``). No contour search."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scanner.core import MODELS_DIR, ScannerError
from scanner.find.detect import Detection, grow_quad
from scanner.geometry.crops import order_portrait_many
from scanner.metrics import quad_iou

DEFAULT_MODEL = MODELS_DIR / "card_finder.int8.onnx"  # 8-bit (scanner.train.quantize) of card_finder.onnx
INPUT_WIDTH = 512  # the width frames are shrunk to for training the finder (tweak train-finder --width)


@dataclass(frozen=True)
class FinderSettings:
    """Every threshold of the learned card finder's reading of its map, one line each."""

    run_scale: float = 17 / 16  # the width it runs at, relative to INPUT_WIDTH (finds more small cards)
    shrink: float = 0.7  # the marked inner part is the card scaled by this about its centre
    cut_margin: float = 1.0  # px: a card with two corners this close to one edge of the frame is cut by it
    cut_beyond: float = 2.0  # ... and a corner this far past the edge: the card goes on out of view
    threshold: float = 0.85  # probability over which a pixel is inside a card (higher: touching cards split)
    weak_threshold: float = 0.5  # ... and over which it may be: looked at only if the classifier is sure there
    weak_min_share: float = 0.1  # a faint blob this share of a card's blob or more is looked at
    snap_samples: int = 32  # points along each side where snap_to_edges looks for the card's outline
    huber: float = 1.345  # px: beyond this distance from the fitted side a point's weight falls (OpenCV's DIST_HUBER)
    same_card: float = 0.6  # two blobs whose quads overlap this much (IoU) voted for one card
    # a card's printed frame: its outer edge, beyond an outline, taken for the card's own
    # (``out_to_the_card_edge``)
    frame_edge_share: float = 0.3  # the outer step at least this share of the outline's own step
    frame_edge_floor: float = 12.0  # ... and at least this much (largest channel difference, 0-255)
    frame_widest: float = 0.2  # a printed frame at most this share of the outline's short side wide
    #: the outer step's strength also measured across this share of the short side (3 px at least),
    #: where it is the steepest within it: a card photographed near blurs its edge over more pixels
    #: while its printed line's edge stays sharp, so a 3 px step fell under the share above (backs
    #: four times nearer: 0.13-0.3 of it). Under 133 px (the mount's height: about 50) the same
    frame_step_span: float = 0.03
    #: a printed band is one colour along its side: between the outline and the step beyond it, the
    #: colour's spread along the side (its standard deviation) under this share of that step on all
    #: sides but one. A rug's weave around a card varies about as much as it steps (real tile photos:
    #: 1.0-3.0 on two sides or more; the families' printed bands mostly under 0.5, a textured print's
    #: up to 1.5: 9 of 159 right moves and 6 of 13 wrong ones are left at 0.7)
    frame_band_flat: float = 0.7


SETTINGS = FinderSettings()


def input_size(w: int, h: int, width: int = INPUT_WIDTH) -> tuple[int, int]:
    """The network's input size for a w x h frame: ``width`` wide, height a multiple of 16."""
    return width, input_width(h * width / w)


def input_width(width: float) -> int:
    """The input side nearest ``width`` the network takes: a multiple of 16, 64 at least.

    >>> input_width(181.3), input_width(20)
    (176, 64)
    """
    return max(64, int(round(width / 16)) * 16)


def downscale(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``frame`` resized down to ``size`` as an area average, fast: halvings first (a bilinear
    resize to exactly half size averages each 2x2 block, 10x faster than OpenCV's area resize at a
    fractional scale), the rest by area.

    >>> downscale(np.zeros((720, 1280, 3), np.uint8), (512, 288)).shape
    (288, 512, 3)
    """
    w, h = size
    while frame.shape[1] >= 2 * w and frame.shape[0] >= 2 * h:
        half = (frame.shape[1] // 2, frame.shape[0] // 2)
        frame = cv2.resize(frame[: 2 * half[1], : 2 * half[0]], half, interpolation=cv2.INTER_LINEAR)
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA)


def interior_mask(
    truth_cards: list[dict], frame_size: tuple[int, int], out_size: tuple[int, int], max_occluded: float = 0.25
) -> tuple[np.ndarray, np.ndarray]:
    """Training target (inner parts of cards) and loss weight (0 for cards mostly hidden)."""
    fw, fh = frame_size
    ow, oh = out_size
    scale = np.array([ow / fw, oh / fh])
    target = np.zeros((oh, ow), np.uint8)
    weight = np.ones((oh, ow), np.float32)
    for card in truth_cards:
        quad = np.array(card["corners"], np.float32) * scale
        inner = grow_quad(quad, SETTINGS.shrink)
        if card["occluded"] > max_occluded:
            cv2.fillConvexPoly(weight, quad.astype(np.int32), 0.0)
        else:
            cv2.fillConvexPoly(target, np.round(inner).astype(np.int32), 1)
    return target, weight


#: the geometry head's channels at each inner pixel of a card (output-map pixels): the offset to the
#: card's centre / GEOMETRY_OFFSET, the long side's direction doubled (cos 2a, sin 2a: a card turned
#: half a turn is the same card), and log(long side / GEOMETRY_LENGTH), log(short side / GEOMETRY_LENGTH)
GEOMETRY_CHANNELS = 6
GEOMETRY_OFFSET = 8.0
GEOMETRY_LENGTH = 16.0


def card_geometry(quad: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """A card quad's centre, long-side angle (radians, modulo pi) and long and short side lengths."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    sides = np.roll(quad, -1, axis=0) - quad  # 0->1, 1->2, 2->3, 3->0
    lengths = np.linalg.norm(sides, axis=1)
    first, second = 0.5 * (lengths[0] + lengths[2]), 0.5 * (lengths[1] + lengths[3])
    # the long pair's direction, averaged over its two (opposite) sides
    along = sides[1] - sides[3] if second >= first else sides[0] - sides[2]
    angle = float(np.arctan2(along[1], along[0]) % np.pi)
    return quad.mean(axis=0), angle, float(max(first, second)), float(min(first, second))


def geometry_target(
    truth_cards: list[dict], frame_size: tuple[int, int], out_size: tuple[int, int], max_occluded: float = 0.25
) -> tuple[np.ndarray, np.ndarray]:
    """Training target of the geometry head (``GEOMETRY_CHANNELS`` x h x w) and where it counts
    (the inner part of each card mostly in view; a card drawn later, on top, wins)."""
    fw, fh = frame_size
    ow, oh = out_size
    scale = np.array([ow / fw, oh / fh], np.float32)
    target = np.zeros((GEOMETRY_CHANNELS, oh, ow), np.float32)
    mask = np.zeros((oh, ow), np.uint8)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float32) + 0.5
    for card in truth_cards:
        if card["occluded"] > max_occluded:
            continue
        quad = np.array(card["corners"], np.float32) * scale
        centre, angle, long_side, short_side = card_geometry(quad)
        inner = np.zeros((oh, ow), np.uint8)
        cv2.fillConvexPoly(inner, np.round(grow_quad(quad, SETTINGS.shrink)).astype(np.int32), 1)
        where = inner > 0
        target[0][where] = (centre[0] - xs[where]) / GEOMETRY_OFFSET
        target[1][where] = (centre[1] - ys[where]) / GEOMETRY_OFFSET
        target[2][where] = np.cos(2 * angle)
        target[3][where] = np.sin(2 * angle)
        target[4][where] = np.log(max(long_side, 1.0) / GEOMETRY_LENGTH)
        target[5][where] = np.log(max(short_side, 1.0) / GEOMETRY_LENGTH)
        mask[where] = 1
    return target, mask


def decode_geometry(geometry: np.ndarray, pts: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, float]:
    """The card quad (output-map pixels) a blob's pixels ``pts`` (x, y of pixel centres) vote for,
    each vote weighted (by the pixel's probability of being inside a card), and how well the votes
    agree on its angle (the length of their mean direction: 1 when all agree, surely)."""
    xi, yi = pts[:, 0].astype(int), pts[:, 1].astype(int)
    quads, agreement = _decode_groups(pts, geometry[:, yi, xi], weights, np.zeros(len(pts), np.intp), 1)
    return quads[0], float(agreement[0])


def _components(mask: np.ndarray, strong: np.ndarray | None = None) -> list[np.ndarray]:
    """Pixel centres (x, y) of each 4-connected blob of ``mask`` of 6 pixels or more; with
    ``strong``, only the blobs holding no ``strong`` pixel."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    wanted = stats[:, cv2.CC_STAT_AREA] >= 6
    wanted[0] = False  # the background
    if strong is not None:
        wanted[np.unique(labels[strong])] = False
    if not wanted[1:].any():
        return []
    # one pass over the map: the blobs' pixels sorted by blob, then cut
    ys, xs = np.nonzero(wanted[labels])
    ids = labels[ys, xs]
    order = np.argsort(ids, kind="stable")
    pts = np.stack([xs[order] + 0.5, ys[order] + 0.5], axis=1).astype(np.float32)
    ends = np.cumsum(stats[wanted, cv2.CC_STAT_AREA])
    return np.split(pts, ends[:-1])


def _weak_blobs(prob: np.ndarray, strong: list[np.ndarray]) -> list[np.ndarray]:
    """Blobs the network marks only faintly (a card the colour of the cloth, under glare): regions
    over ``weak_threshold`` with no pixel over ``threshold``, at least ``weak_min_share`` of a card's
    blob (``strong``: the blobs over ``threshold``; ``FinderSettings``). The scanner keeps a card
    found there only if the classifier reads it surely."""
    if not strong:
        return []
    typical = float(np.median([len(b) for b in strong]))
    return [
        pts
        for pts in _components(prob > SETTINGS.weak_threshold, prob > SETTINGS.threshold)
        if len(pts) >= typical * SETTINGS.weak_min_share
    ]


def profiles_across_sides(
    gray: np.ndarray, quads: np.ndarray, ts: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The image's brightness across the sides of quads (Q x 4 x 2): at the fractions ``ts`` along
    each side, at ``offsets`` pixels across it (from inside to outside). Returns the points' x and
    y and the brightness, each Q x 4 sides x samples x offsets (and channels, for a colour image),
    and each side's outward normal."""
    h, w = gray.shape[:2]
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    ends = np.roll(q, -1, axis=1)
    vec = ends - q
    length = np.linalg.norm(vec, axis=2)  # Q x 4
    d = vec / np.maximum(length, 1e-6)[..., None]
    normal = np.stack([-d[..., 1], d[..., 0]], axis=-1)
    outwards = np.einsum("qsk,qsk->qs", normal, (q + ends) / 2 - q.mean(axis=1, keepdims=True)) >= 0
    normal = np.where(outwards[..., None], normal, -normal)
    # x and y apart (NumPy is slow on a last axis of 2)
    along = ts[None, None, :] * length[..., None]  # Q x 4 x samples
    px = (q[..., 0, None] + d[..., 0, None] * along)[..., None] + normal[..., 0, None, None] * offsets
    py = (q[..., 1, None] + d[..., 1, None] * along)[..., None] + normal[..., 1, None, None] * offsets
    xi = np.clip(np.rint(px).astype(np.intp), 0, w - 1)
    yi = np.clip(np.rint(py).astype(np.intp), 0, h - 1)
    if gray.ndim == 2:
        profile = gray.ravel().take(yi * w + xi).astype(np.float32)
    else:  # (a colour image: each channel's profile, on a last axis)
        profile = gray.reshape(h * w, -1).take(yi * w + xi, axis=0).astype(np.float32)
    return px, py, profile, normal


def snap_to_edges(gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Move each side of a rough quad onto the card's outline: along the side, look outwards and
    inwards for the strongest brightness step across it, fit a line through those points, and
    intersect neighbouring lines for the corners. Sides with too little evidence stay put."""
    return snap_many(gray, [quad])[0]


def snap_many(gray: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """``snap_to_edges`` for many quads at once (the frame's cards: one array pass, no loop)."""
    if not quads:
        return []
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    length = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)  # Q x 4
    usable = (length >= 8).all(axis=1)  # (a degenerate quad stays as it is)
    band = np.maximum(3.0, 0.14 * length.min(axis=1))  # Q
    reach = int(np.ceil(band.max()))
    offs = np.arange(-reach, reach + 1, dtype=np.float32)
    ts = np.linspace(0.12, 0.88, SETTINGS.snap_samples, dtype=np.float32)
    px, py, profile, normal = profiles_across_sides(gray, q, ts, offs)
    step = np.abs(np.diff(profile, axis=-1))
    # steps between offsets beyond a quad's own band do not count
    within = np.abs(offs[None, :]) <= band[:, None]  # Q x offsets
    step = np.where((within[:, :-1] & within[:, 1:])[:, None, None, :], step, 0.0)
    best = step.argmax(axis=-1)[..., None]  # Q x 4 x samples x 1
    strength = np.take_along_axis(step, best, axis=-1)[..., 0]
    keep = strength > np.maximum(12.0, 0.5 * np.median(strength, axis=-1, keepdims=True))
    found = keep.sum(axis=-1) >= 0.4 * SETTINGS.snap_samples  # Q x 4: sides with evidence enough
    # the step lies between the best offset and the next one
    cx = np.take_along_axis(px, best, axis=-1)[..., 0] + normal[..., 0, None] * 0.5
    cy = np.take_along_axis(py, best, axis=-1)[..., 0] + normal[..., 1, None] * 0.5
    # a line through each side's points: least squares, then reweighted as OpenCV's DIST_HUBER does
    weight = keep.astype(np.float32)
    for _ in range(4):
        total = np.maximum(weight.sum(axis=-1), 1e-6)
        mx, my = (cx * weight).sum(axis=-1) / total, (cy * weight).sum(axis=-1) / total
        ux, uy = cx - mx[..., None], cy - my[..., None]
        # the main axis of the weighted scatter, in closed form for a 2x2 covariance (10x faster
        # than an eigen-decomposition of Q x 4 small matrices)
        sxx, syy, sxy = (
            (weight * ux * ux).sum(axis=-1),
            (weight * uy * uy).sum(axis=-1),
            (weight * ux * uy).sum(axis=-1),
        )
        theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        dirx, diry = np.cos(theta), np.sin(theta)
        distance = np.abs(uy * dirx[..., None] - ux * diry[..., None])
        weight = keep * np.minimum(1.0, SETTINGS.huber / np.maximum(distance, 1e-6))
    mean = np.stack([mx, my], axis=-1)
    direction = np.stack([dirx, diry], axis=-1)
    # corner i lies where side i-1 (ending at it) meets side i (starting at it)
    p1, v1 = np.roll(mean, 1, axis=1), np.roll(direction, 1, axis=1)
    p2, v2 = mean, direction
    det = v1[..., 0] * -v2[..., 1] - v1[..., 1] * -v2[..., 0]
    gap = p2 - p1
    t = (gap[..., 0] * -v2[..., 1] - gap[..., 1] * -v2[..., 0]) / np.where(np.abs(det) < 1e-3, 1.0, det)
    corner = p1 + v1 * t[..., None]
    ok = (
        found
        & np.roll(found, 1, axis=1)
        & (np.abs(det) >= 1e-3)
        & (np.linalg.norm(corner - q, axis=2) < 2 * band[:, None])
        & usable[:, None]
    )
    out = np.where(ok[..., None], corner, q).astype(np.float32)
    return list(out)


def out_to_the_card_edge(frame: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """Each quad moved out to the card's own edge where it lies on a frame printed inside it: the
    strongest edge of many cards is their printed border's inner line (a dark band on a light card,
    a white panel in a coloured rim), and the card beyond it reads as another (its colour in the
    rim cut off) or as one its deck learned whole. On each side, across it, the median colour step
    along the side; where every side shows one further out (the outermost local peak, a share of
    the side's own step, within ``frame_widest`` of the short side), the sides move out there.
    A quad with no such step on a side (a card outlined at its edge: the table beyond) stays, and
    so does one whose band up to that step varies along its sides (``frame_band_flat``): a printed
    band is one colour along its side, a rug's weave around a plain card is not.

    >>> card = np.full((200, 200, 3), 200, np.uint8)
    >>> card[40:160, 60:140] = (40, 40, 160)  # the card's red rim
    >>> card[50:150, 70:130] = 250  # its white panel, where the strongest edge lies
    >>> panel = np.array([[70, 50], [130, 50], [130, 150], [70, 150]], np.float32)
    >>> out_to_the_card_edge(card, [panel])[0].round().tolist()
    [[60.0, 40.0], [140.0, 40.0], [140.0, 160.0], [60.0, 160.0]]
    """
    if not quads:
        return []
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    ends = np.roll(q, -1, axis=1)
    length = np.linalg.norm(ends - q, axis=2)  # Q x 4
    widest = SETTINGS.frame_widest * length.min(axis=1)  # Q
    span = 3  # px: a step measured across this many pixels (a blurred edge's is spread over several)
    offsets = np.arange(-3, int(np.ceil(widest.max())) + 4, dtype=np.float32)
    ts = np.linspace(0.15, 0.85, 24, dtype=np.float32)
    _, _, profile, normal = profiles_across_sides(frame, q, ts, offsets)
    # channels first, and the largest of them taken pairwise (NumPy is slow on a short last axis)
    profile = np.ascontiguousarray(np.moveaxis(profile if frame.ndim == 3 else profile[..., None], -1, 0))
    step = functools.reduce(np.maximum, np.abs(profile[..., span:] - profile[..., :-span]))  # Q x 4 x samples x steps
    side = np.median(step, axis=2)  # Q x 4 x steps: robust to a card or a shadow over part of a side
    at = offsets[:-span] + span / 2  # where each step lies, outwards from the quad
    own = side[..., np.abs(at) <= 1.5].max(axis=-1)
    peak = np.zeros_like(side, bool)
    peak[..., 1:-1] = (side[..., 1:-1] >= side[..., :-2]) & (side[..., 1:-1] >= side[..., 2:])
    # each step's strength also across a wider span about the same place (the whole of a blurred
    # edge), where it is the steepest within that span (not a bump on the tail of a stronger edge)
    extra = max(0, int(round((SETTINGS.frame_step_span * float(np.median(length.min(axis=1))) - span) / 2)))
    strength = side
    if extra:
        padded = np.pad(profile, [(0, 0)] * (profile.ndim - 1) + [(extra, extra)], mode="edge")
        wide = functools.reduce(np.maximum, np.abs(padded[..., span + 2 * extra :] - padded[..., : -span - 2 * extra]))
        around = np.pad(side, [(0, 0), (0, 0), (extra, extra)], mode="edge")
        steepest = np.lib.stride_tricks.sliding_window_view(around, 2 * extra + 1, axis=-1).max(axis=-1)
        strength = np.where(side >= steepest, np.maximum(side, np.median(wide, axis=2)), side)
    beyond = (
        peak
        & (at >= span)
        & (at <= widest[:, None, None])
        & (side >= SETTINGS.frame_edge_floor)
        & (strength >= SETTINGS.frame_edge_share * own[..., None])
    )
    outermost = np.where(beyond, np.arange(len(at)), -1).max(axis=-1)  # Q x 4
    grow = (outermost >= 0).all(axis=1)
    # the band between the outline and that step: printed (one colour along the side), not the table
    band = (offsets >= 1.5) & (offsets <= at[np.maximum(outermost, 0)][..., None] - 1.5)  # Q x 4 x offsets
    band[~band.any(axis=-1)] = True  # (a side without a step beyond: it does not grow; any value will do)
    spread = functools.reduce(np.maximum, profile.std(axis=-2))  # Q x 4 x offsets: along each side
    spread = np.nanmedian(np.where(band, spread, np.nan), axis=-1)
    step_there = np.take_along_axis(side, np.maximum(outermost, 0)[..., None], axis=-1)[..., 0]
    textured = spread >= SETTINGS.frame_band_flat * np.maximum(step_there, 1e-6)
    grow &= textured.sum(axis=1) <= 1
    # the edge itself: the steepest pixel step inside that span (a sharp edge's span-wide steps
    # make a plateau, the outermost of which lies past it)
    pixel_step = np.median(functools.reduce(np.maximum, np.abs(np.diff(profile, axis=-1))), axis=2)
    inside = np.maximum(outermost, 0)[..., None] + np.arange(span)
    steepest = np.take_along_axis(pixel_step, inside, axis=-1).argmax(axis=-1)[..., None]
    distance = np.where(grow[:, None], offsets[np.take_along_axis(inside, steepest, -1)[..., 0]] + 0.5, 0.0)
    # each side moved out along its normal; corner i where side i-1 meets side i
    start = q + normal * distance[..., None]
    along = ends - q
    p1, v1 = np.roll(start, 1, axis=1), np.roll(along, 1, axis=1)
    cross = v1[..., 0] * along[..., 1] - v1[..., 1] * along[..., 0]
    gap = start - p1
    t = (gap[..., 0] * along[..., 1] - gap[..., 1] * along[..., 0]) / np.where(np.abs(cross) < 1e-6, 1.0, cross)
    moved = (p1 + v1 * t[..., None]).astype(np.float32)
    grow &= (np.abs(cross) >= 1e-6).all(axis=1)
    return [moved[k] if grow[k] else q[k] for k in range(len(q))]


class FinderError(ScannerError, ValueError):
    """A card finder model that this scanner cannot use (said with what to do)."""


class CardFinder:
    """The shipped (or another) card finder network; one per camera, thread-compatible."""

    def __init__(
        self, model: str | Path = DEFAULT_MODEL, threads: int = 1, run_scale: float = SETTINGS.run_scale
    ) -> None:
        """``run_scale``: the input's width over the width the model was trained at (1: the same,
        as the 8-bit calibration uses)."""
        import onnxruntime as ort

        model = Path(model)
        if not model.exists():
            raise FileNotFoundError(f"no card finder at {model}: run `tweak train-finder`")
        self.meta = json.loads(model.with_suffix(".json").read_text())
        if "geometry" not in self.meta:
            raise FinderError(
                f"{model} is a card finder without a geometry head (version {self.meta.get('version', 1)}): "
                "run `tweak train-finder` for a version-2 one"
            )
        self.width = int(round(int(self.meta.get("input_width", INPUT_WIDTH)) * run_scale / 16)) * 16
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def preprocess(self, frame: np.ndarray, width: int | None = None) -> np.ndarray:
        """The network's input for a BGR frame: 1 x 3 x h x w, shrunk (to ``width``, by default
        ``self.width``) and normalised."""
        h, w = frame.shape[:2]
        size = input_size(w, h, width or self.width)
        # (x / 255 - 0.5) / 0.25, as in training (scanner.train.finder), in one C++ pass
        small = downscale(frame, size)
        return cv2.dnn.blobFromImage(small, 1 / (255 * 0.25), size, (127.5, 127.5, 127.5), False, False)

    def run(self, frame: np.ndarray, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The network's map of inner card parts (probabilities) and its geometry map
        (``GEOMETRY_CHANNELS`` x h x w), both at the output's reduced resolution; ``width``: the
        input's width, when not ``self.width``."""
        inner, geometry = self.session.run(None, {"frames": self.preprocess(frame, width)})
        return 1 / (1 + np.exp(-inner[0, 0])), geometry[0]

    def find(self, frame: np.ndarray, gray: np.ndarray | None = None) -> list[Detection]:
        """The cards in ``frame`` (BGR), not those cut by its edge; ``gray``: the frame in grey,
        when the caller has it."""
        return self.find_and_map(frame, gray)[0]

    def find_and_map(
        self, frame: np.ndarray, gray: np.ndarray | None = None, width: int | None = None
    ) -> tuple[list[Detection], np.ndarray]:
        """``find``'s cards and the network's map of card pixels they came from (probabilities, at
        the output's reduced resolution): how much of any outline the network takes for card.
        ``width``: the input's width, when not ``self.width`` (cards seen nearer or farther than
        the finder learned them: ``scan.rescaled_width``)."""
        h, w = frame.shape[:2]
        prob, geometry = self.run(frame, width)
        if gray is None:
            gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return _mark_touching(_cards_from_geometry(prob, geometry, gray, (w, h))), prob


def _mark_touching(found: list[Detection]) -> list[Detection]:
    grown = [grow_quad(d.corners, 1.04) for d in found]
    boxes = np.array([[*g.min(axis=0), *g.max(axis=0)] for g in grown]).reshape(-1, 4)
    for i, j in _overlapping_boxes(boxes):
        if quad_iou(grown[i], grown[j]) > 0:
            found[i].touching = found[j].touching = True
    return found


def _overlapping_boxes(boxes: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (i < j) of bounding boxes (x0, y0, x1, y1) that overlap: the only quads worth an
    exact overlap test (a frame holds a few dozen quads, most far apart)."""
    apart = (
        (boxes[:, None, 0] > boxes[None, :, 2])
        | (boxes[None, :, 0] > boxes[:, None, 2])
        | (boxes[:, None, 1] > boxes[None, :, 3])
        | (boxes[None, :, 1] > boxes[:, None, 3])
    )
    i, j = np.nonzero(np.triu(~apart, k=1))
    return list(zip(i.tolist(), j.tolist()))


def _is_cut(quad: np.ndarray, size: tuple[int, int]) -> bool:
    """Whether the frame's edge cuts the card outlined by ``quad``: a side lies along the edge (two
    corners on it: the part of the card in view), or a corner lies clearly beyond it (the card's
    sides, put on their edges, meet outside the frame). One corner just touching the edge is a
    whole card lying there (measured: 4 such cards in 1,000 harsh frames were lost)."""
    w, h = size
    x, y = quad[:, 0], quad[:, 1]
    beyond = np.maximum.reduce([-x, -y, x - (w - 1), y - (h - 1)])  # px past the nearest edge
    on_edge = [
        x < SETTINGS.cut_margin,
        y < SETTINGS.cut_margin,
        x > w - 1 - SETTINGS.cut_margin,
        y > h - 1 - SETTINGS.cut_margin,
    ]
    return bool((beyond > SETTINGS.cut_beyond).any() or any(side.sum() >= 2 for side in on_edge))


def _vote_groups(pts: np.ndarray, votes: np.ndarray) -> list[np.ndarray]:
    """A blob's pixels grouped by the card they vote for: touching cards whose inner parts ran
    together still vote for two centres. ``votes``: each pixel's centre, long and short side (map
    pixels); a blob holding k cards' worth of inner area is cut in k by k-means on the centres."""
    inner_area = float(np.median(votes[:, 2] * votes[:, 3])) * SETTINGS.shrink * SETTINGS.shrink
    k = int(round(len(pts) / inner_area)) if inner_area > 0 else 1
    if k < 2 or len(pts) < 6 * k:
        return [np.arange(len(pts))]
    k = min(k, 6)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    cv2.setRNGSeed(0)  # k-means starts from random centres: the same frame gives the same cards
    _, labels, _ = cv2.kmeans(votes[:, :2].astype(np.float32), k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    return [np.nonzero(labels == j)[0] for j in range(k) if (labels == j).any()]


def _decode_groups(
    pts: np.ndarray, g: np.ndarray, weights: np.ndarray, group: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray]:
    """``decode_geometry`` for many pixel groups at once: ``pts`` (N x 2), their geometry ``g``
    (channels x N), weights and group numbers (0..count-1). Returns count x 4 x 2 quads and each
    group's agreement on the angle."""
    total = np.maximum(np.bincount(group, weights, count), 1e-6)

    def mean(values: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights * values, count) / total

    cx = mean(pts[:, 0] + g[0] * GEOMETRY_OFFSET)
    cy = mean(pts[:, 1] + g[1] * GEOMETRY_OFFSET)
    dx, dy = mean(g[2]), mean(g[3])
    angle = 0.5 * np.arctan2(dy, dx)
    half_long = GEOMETRY_LENGTH * np.exp(mean(g[4])) / 2
    half_short = GEOMETRY_LENGTH * np.exp(mean(g[5])) / 2
    along = np.stack([np.cos(angle), np.sin(angle)], axis=1) * half_long[:, None]
    across = np.stack([-np.sin(angle), np.cos(angle)], axis=1) * half_short[:, None]
    centre = np.stack([cx, cy], axis=1)
    quads = np.stack(
        [centre - across - along, centre + across - along, centre + across + along, centre - across + along], 1
    )
    return quads.astype(np.float32), np.minimum(1.0, np.hypot(dx, dy))


def _cards_from_geometry(
    prob: np.ndarray, geometry: np.ndarray, gray: np.ndarray, size: tuple[int, int]
) -> list[Detection]:
    """Cards from a version-2 finder's maps: each blob of inner card votes, pixel by pixel, for
    its card's centre, angle and size; the quad they agree on is put on the card's edges
    (``snap_many``). No contour search: a card costs a few array operations."""
    w, h = size
    oh, ow = prob.shape
    scale = np.array([w / ow, h / oh], np.float32)
    strong = _components(prob > SETTINGS.threshold)
    blobs = strong + _weak_blobs(prob, strong)
    if not blobs:
        return []
    # every blob's pixels at once: their weights and geometry, then the groups they vote in
    pts = np.concatenate(blobs)
    xi, yi = pts[:, 0].astype(int), pts[:, 1].astype(int)
    weights = prob[yi, xi]
    g = geometry[:, yi, xi]
    sides = GEOMETRY_LENGTH * np.exp(g[4:6])
    # a blob holding k cards' worth of inner area (the median of its pixels' votes) may be k cards
    sizes = np.array([len(b) for b in blobs])
    blob_of = np.repeat(np.arange(len(blobs)), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    by_area = np.lexsort((sides[0] * sides[1], blob_of))
    area = (sides[0] * sides[1])[by_area]
    median = (area[starts + (sizes - 1) // 2] + area[starts + sizes // 2]) / 2 * SETTINGS.shrink * SETTINGS.shrink
    several = np.nonzero(np.round(sizes / np.maximum(median, 1e-6)) >= 2)[0]
    group = blob_of.copy()  # as a rule, one card a blob
    group_weak = [b >= len(strong) for b in range(len(blobs))]
    for b in several.tolist():
        span = slice(starts[b], starts[b] + sizes[b])
        votes = np.stack(
            [pts[span, 0] + g[0, span] * GEOMETRY_OFFSET, pts[span, 1] + g[1, span] * GEOMETRY_OFFSET, *sides[:, span]],
            axis=1,
        )
        for k, part in enumerate(_vote_groups(blobs[b], votes)):
            if k:  # the first part keeps the blob's number
                group[starts[b] + part] = len(group_weak)
                group_weak.append(group_weak[b])
    count = len(group_weak)
    quads, agreement = _decode_groups(pts, g, weights, group, count)
    pixels = np.bincount(group, minlength=count)
    score = np.bincount(group, weights, count)
    # quad (map px), votes, mean probability, weak, agreement on the angle
    voted: list[tuple[np.ndarray, float, float, bool, float]] = [
        (quads[j], float(score[j]), float(score[j] / pixels[j]), group_weak[j], float(agreement[j]))
        for j in range(count)
        if pixels[j] >= 6
    ]
    # pieces of one card's inner part (split by a shadow, a hand) vote for the same card: keep one
    voted.sort(key=lambda v: -v[1])
    boxes = np.array([[*v[0].min(axis=0), *v[0].max(axis=0)] for v in voted]).reshape(-1, 4)
    near: dict[int, list[int]] = {}
    for i, j in _overlapping_boxes(boxes):
        near.setdefault(j, []).append(i)  # i < j: i has more votes
    chosen: set[int] = set()
    for j in range(len(voted)):
        if all(quad_iou(voted[j][0], voted[i][0]) < SETTINGS.same_card for i in near.get(j, []) if i in chosen):
            chosen.add(j)
    kept = [voted[j] for j in sorted(chosen)]
    guesses = [quad * scale for quad, *_ in kept]
    # put on the card's edges before the cut test: a card lying whole near the frame's edge is told
    # from a cut one by where its sides really are; but a faint side a few px from the edge can be
    # snapped onto the frame's border, so a card is cut only when the finder's guess says so too
    # (2 whole cards of 1,000 harsh frames were lost so; the real photos' cut cards stay cut)
    snapped = snap_many(gray, guesses)
    if not kept:
        return []
    ordered, ordered_guesses = order_portrait_many(np.array(snapped)), order_portrait_many(np.array(guesses))
    return [
        Detection(quad, score, guess=guess, weak=weak, angle_agreement=agreement)
        for (_, _, score, weak, agreement), guess, quad in zip(kept, ordered_guesses, ordered)
        if not (_is_cut(quad, size) and _is_cut(guess, size))
    ]
