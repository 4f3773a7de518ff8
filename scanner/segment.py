"""The learned card finder: a small fully convolutional network (ONNX, run with onnxruntime)
marks the *inner part* of every card at a reduced resolution, so touching cards stay apart; each
blob becomes a quadrilateral grown back to the card's outline, then OpenCV refines it on the
full frame (the classical detector's quad for the same card wins when it agrees: its corners sit
on the card's real edges)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from .crops import order_portrait
from .detect import Detection, _edge_support, _grow, _iou, detect_cards

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_MODEL = MODELS_DIR / "card_finder.onnx"
INPUT_WIDTH = 512
SHRINK = 0.7  # the marked inner part is the card scaled by this about its centre
# a card whose outline comes this close to the frame's edge (px, full frame) is cut by it; a card
# lying whole 1-4 px from the edge is still found (measured: 4 such cards in 500 harsh frames)
CUT_MARGIN = 1.0
INNER_OUTLINE = 0.7  # an outline under this share of the blob's card-sized guess is a panel inside the card
WEAK_THRESHOLD = 0.5  # ... and over which it may be: looked at only if the classifier is sure there
THRESHOLD = 0.85  # probability over which a pixel is inside a card (higher: touching cards split)


def edge_map(gray: np.ndarray) -> np.ndarray:
    """The image's edges (Canny, thickened by a pixel) on which a card's outline should lie."""
    return cv2.dilate(cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 30, 90), np.ones((3, 3), np.uint8))


def input_size(w: int, h: int, width: int = INPUT_WIDTH) -> tuple[int, int]:
    """The network's input size for a w x h frame: ``width`` wide, height a multiple of 16."""
    height = max(64, int(round(h * width / w / 16)) * 16)
    return width, height


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
        inner = _grow(quad, SHRINK)
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
        cv2.fillConvexPoly(inner, np.round(_grow(quad, SHRINK)).astype(np.int32), 1)
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
    g = geometry[:, yi, xi]
    w = weights / max(float(weights.sum()), 1e-6)
    votes = pts + g[:2].T * GEOMETRY_OFFSET  # each pixel's card centre
    centre = (votes * w[:, None]).sum(axis=0).astype(np.float32)
    direction = np.array([(g[2] * w).sum(), (g[3] * w).sum()])
    angle = 0.5 * float(np.arctan2(direction[1], direction[0]))
    long_side = GEOMETRY_LENGTH * float(np.exp((g[4] * w).sum()))
    short_side = GEOMETRY_LENGTH * float(np.exp((g[5] * w).sum()))
    along = np.array([np.cos(angle), np.sin(angle)], np.float32) * long_side / 2
    across = np.array([-np.sin(angle), np.cos(angle)], np.float32) * short_side / 2
    corners = [centre - across - along, centre + across - along, centre + across + along, centre - across + along]
    return np.array(corners, np.float32), min(1.0, float(np.hypot(*direction)))


def refine(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Put a rough quad on the card's real edges: OpenCV's contour search in a region around it,
    with thresholds that adapt to that region (a white card on a white mat, a black back on a
    dark table), keeping the outline that agrees best with the rough one."""
    h, w = frame.shape[:2]
    centre = quad.mean(axis=0)
    grown = _grow(quad, 1.45)
    x0, y0 = np.floor(grown.min(axis=0)).astype(int)
    x1, y1 = np.ceil(grown.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return quad
    area = float(cv2.contourArea(quad.astype(np.float32)))
    found = detect_cards(frame[y0:y1, x0:x1], area_range=(0.55 * area, 1.6 * area), consistent=False)
    offset = np.array([x0, y0], np.float32)
    best, best_iou = quad, 0.55
    for det in found:
        candidate = det.corners + offset
        overlap = _iou(candidate, quad)
        if overlap > best_iou and np.linalg.norm(candidate.mean(axis=0) - centre) < 0.25 * np.sqrt(area):
            best, best_iou = candidate, overlap
    return best


CARD_ASPECT = 88 / 63


def _dominant_angle(gray: np.ndarray) -> float | None:
    """The orientation (radians, modulo 90 degrees) of the strongest straight edges in a patch."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    if float(mag.max()) < 1e-3:
        return None
    angle = np.mod(np.arctan2(gy, gx), np.pi / 2)
    # a magnitude-weighted histogram of 2-degree bins (bincount: several times faster than np.histogram)
    bins = np.minimum((angle * (45 / (np.pi / 2))).astype(np.intp), 44)
    hist = np.bincount(bins.ravel(), weights=mag.ravel(), minlength=45)
    hist = np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), np.ones(5) / 5, mode="valid")
    peak = int(hist.argmax())
    return float((peak + 0.5) * (np.pi / 2) / 45)


def _rect(centre: np.ndarray, long_side: float, angle: float) -> np.ndarray:
    short = long_side / CARD_ASPECT
    c, s = np.cos(angle), np.sin(angle)
    u = np.array([c, s], np.float32) * short / 2
    v = np.array([-s, c], np.float32) * long_side / 2
    return np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v], np.float32)


def shape_blob(
    frame_gray: np.ndarray, edges: np.ndarray, centre: np.ndarray, long_side: float, blob_axis: float | None = None
) -> np.ndarray:
    """A card-shaped quad at a blob: orientation from the image's edges around it; the long side
    along the blob's own long axis when the blob is clearly elongated, else where the outline lies
    on more edges."""
    h, w = frame_gray.shape
    r = int(long_side * 0.75)
    x0, y0 = max(int(centre[0]) - r, 0), max(int(centre[1]) - r, 0)
    x1, y1 = min(int(centre[0]) + r, w), min(int(centre[1]) + r, h)
    angle = _dominant_angle(frame_gray[y0:y1, x0:x1]) if x1 - x0 > 8 and y1 - y0 > 8 else None
    if angle is None:
        angle = 0.0
    if blob_axis is not None:
        # _rect puts the long side at angle a + 90 degrees: take the candidate closest to the blob's
        def off(a: float) -> float:
            d = abs((a + np.pi / 2 - blob_axis) % np.pi)
            return min(d, np.pi - d)

        a = min((angle, angle + np.pi / 2), key=off)
        return _rect(centre.astype(np.float32), long_side, a)
    best, best_support = None, -1.0
    for a in (angle, angle + np.pi / 2):
        quad = _rect(centre.astype(np.float32), long_side, a)
        support = _edge_support(edges, quad)
        if support > best_support:
            best, best_support = quad, support
    return best


def _long_axis(pts: np.ndarray) -> float | None:
    """The angle of a blob's long axis (radians), or None when it is not clearly elongated."""
    if len(pts) < 12:
        return None
    (_, _), (rw, rh), deg = cv2.minAreaRect(pts.astype(np.float32))
    if min(rw, rh) <= 0 or max(rw, rh) / min(rw, rh) < 1.15:
        return None
    angle = np.deg2rad(deg)
    return float(angle if rw >= rh else angle + np.pi / 2)


def _components(mask: np.ndarray) -> list[np.ndarray]:
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    out = []
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] < 6:
            continue
        x0, y0 = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        box = labels[y0 : y0 + stats[i, cv2.CC_STAT_HEIGHT], x0 : x0 + stats[i, cv2.CC_STAT_WIDTH]]
        ys, xs = np.nonzero(box == i)
        out.append(np.stack([xs + x0 + 0.5, ys + y0 + 0.5], axis=1).astype(np.float32))
    return out


def _weak_blobs(prob: np.ndarray, strong: list[tuple[np.ndarray, float]]) -> list[tuple[np.ndarray, float]]:
    """Blobs the network marks only faintly (a card the colour of the cloth, under glare): regions
    over ``WEAK_THRESHOLD`` with no pixel over ``THRESHOLD``, at least a sixth of a card's blob.
    The scanner keeps a card found there only if the classifier reads it surely."""
    if not strong:
        return []
    typical = float(np.median([len(b) for b, _ in strong]))
    out = []
    for pts in _components(prob > WEAK_THRESHOLD):
        xi, yi = pts[:, 0].astype(int), pts[:, 1].astype(int)
        values = prob[yi, xi]
        if len(pts) >= typical / 6 and float(values.max()) <= THRESHOLD:
            out.append((pts, float(values.mean())))
    return out


def _split_blobs(prob: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Blobs of inner card (pixel coordinates of the map) and their mean probability. A blob much
    bigger than the typical one is two touching cards: a higher threshold inside it splits them."""
    blobs = _components(prob > THRESHOLD)
    if not blobs:
        return []
    typical = float(np.median([len(b) for b in blobs]))
    out: list[np.ndarray] = []
    for blob in blobs:
        parts = [blob]
        if len(blob) > 1.7 * typical:
            x0, y0 = np.floor(blob.min(axis=0)).astype(int)
            x1, y1 = np.ceil(blob.max(axis=0)).astype(int) + 1
            patch = prob[y0:y1, x0:x1]
            for level in (0.93, 0.97, 0.99):
                pieces = _components(patch > level)
                pieces = [p for p in pieces if len(p) > 0.25 * typical]
                if len(pieces) > 1:
                    parts = [p + np.array([x0, y0], np.float32) for p in pieces]
                    break
        out += parts
    scores = []
    for pts in out:
        xi, yi = pts[:, 0].astype(int), pts[:, 1].astype(int)
        scores.append(float(prob[yi, xi].mean()))
    return list(zip(out, scores))


SNAP_SAMPLES = 32  # points along each side where snap_to_edges looks for the card's outline
HUBER = 1.345  # px: beyond this distance from the fitted side a point's weight falls (OpenCV's DIST_HUBER)


def snap_to_edges(gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Move each side of a rough quad onto the card's outline: along the side, look outwards and
    inwards for the strongest brightness step across it, fit a line through those points, and
    intersect neighbouring lines for the corners. Sides with too little evidence stay put."""
    return snap_many(gray, [quad])[0]


def snap_many(gray: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """``snap_to_edges`` for many quads at once (the frame's cards: one array pass, no loop)."""
    if not quads:
        return []
    h, w = gray.shape
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    ends = np.roll(q, -1, axis=1)
    vec = ends - q
    length = np.linalg.norm(vec, axis=2)  # Q x 4
    usable = (length >= 8).all(axis=1)  # (a degenerate quad stays as it is)
    d = vec / np.maximum(length, 1e-6)[..., None]
    normal = np.stack([-d[..., 1], d[..., 0]], axis=-1)
    outwards = np.einsum("qsk,qsk->qs", normal, (q + ends) / 2 - q.mean(axis=1, keepdims=True)) >= 0
    normal = np.where(outwards[..., None], normal, -normal)
    band = np.maximum(3.0, 0.14 * length.min(axis=1))  # Q
    reach = int(np.ceil(band.max()))
    offs = np.arange(-reach, reach + 1, dtype=np.float32)
    ts = np.linspace(0.12, 0.88, SNAP_SAMPLES, dtype=np.float32)
    # Q x 4 sides x samples x offsets (from inside to outside) x 2
    pts = (
        q[:, :, None, None, :]
        + d[:, :, None, None, :] * (ts[None, None, :] * length[..., None])[..., None, None]
        + normal[:, :, None, None, :] * offs[None, None, None, :, None]
    )
    xi = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
    yi = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
    profile = gray[yi, xi].astype(np.float32)
    step = np.abs(np.diff(profile, axis=-1))
    # steps between offsets beyond a quad's own band do not count
    within = np.abs(offs[None, :]) <= band[:, None]  # Q x offsets
    step = np.where((within[:, :-1] & within[:, 1:])[:, None, None, :], step, 0.0)
    best = step.argmax(axis=-1)  # Q x 4 x samples
    strength = step.max(axis=-1)
    keep = strength > np.maximum(12.0, 0.5 * np.median(strength, axis=-1, keepdims=True))
    found = keep.sum(axis=-1) >= 0.4 * SNAP_SAMPLES  # Q x 4: sides with evidence enough
    chosen = np.take_along_axis(pts, best[..., None, None], axis=3)[..., 0, :] + normal[:, :, None, :] * 0.5
    # a line through each side's points: least squares, then reweighted as OpenCV's DIST_HUBER does
    weight = keep.astype(np.float32)
    for _ in range(4):
        total = np.maximum(weight.sum(axis=-1, keepdims=True), 1e-6)
        mean = (chosen * weight[..., None]).sum(axis=2) / total
        centred = chosen - mean[:, :, None, :]
        cov = np.einsum("qsn,qsni,qsnj->qsij", weight, centred, centred)
        _, vectors = np.linalg.eigh(cov)
        direction = vectors[..., :, 1]  # the main axis (eigh sorts eigenvalues in ascending order)
        across = np.stack([-direction[..., 1], direction[..., 0]], axis=-1)
        distance = np.abs(np.einsum("qsni,qsi->qsn", centred, across))
        weight = keep * np.minimum(1.0, HUBER / np.maximum(distance, 1e-6))
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


class CardFinder:
    def __init__(self, model: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        import onnxruntime as ort

        model = Path(model)
        if not model.exists():
            raise FileNotFoundError(f"no card finder at {model}: run `tweak train-finder`")
        self.meta = json.loads(model.with_suffix(".json").read_text())
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    @property
    def has_geometry(self) -> bool:
        """Whether the network also says where each card lies (version 2): no outline search then."""
        return "geometry" in self.meta

    def run(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The network's map of inner card parts (probabilities) and, for a version-2 finder, its
        geometry map (``GEOMETRY_CHANNELS`` x h x w), both at the output's reduced resolution."""
        h, w = frame.shape[:2]
        size = input_size(w, h, int(self.meta.get("input_width", INPUT_WIDTH)))
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        x = (small.astype(np.float32) / 255.0 - 0.5) / 0.25
        outputs = self.session.run(None, {"frames": x.transpose(2, 0, 1)[None]})
        prob = 1 / (1 + np.exp(-outputs[0][0, 0]))
        return prob, (outputs[1][0] if len(outputs) > 1 else None)

    def probabilities(self, frame: np.ndarray) -> np.ndarray:
        return self.run(frame)[0]

    def find(
        self,
        frame: np.ndarray,
        classical: list[Detection] | None = None,
        gray: np.ndarray | None = None,
        edges: np.ndarray | None = None,
    ) -> list[Detection]:
        """The cards in ``frame``; ``classical``: the classical detector's cards (found here when
        None); ``gray``, ``edges``: the frame in grey and its ``edge_map``, when the caller has them."""
        h, w = frame.shape[:2]
        prob, geometry = self.run(frame)
        if geometry is not None:
            if gray is None:
                gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            return _mark_touching(_cards_from_geometry(prob, geometry, gray, (w, h)))
        oh, ow = prob.shape
        blobs = _split_blobs(prob)
        scale = np.array([w / ow, h / oh], np.float32)
        if classical is None:
            classical = detect_cards(frame)
        if gray is None:
            gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if edges is None:
            edges = edge_map(gray)
        # cards of one frame are about the same size: the blobs' median gives it
        sizes = [np.sqrt(len(pts) * scale[0] * scale[1] * CARD_ASPECT) / SHRINK for pts, _ in blobs]
        typical = float(np.median(sizes)) if sizes else 0.0
        found: list[Detection] = []
        for pts, score, weak in [(p, s, False) for p, s in blobs] + [(p, s, True) for p, s in _weak_blobs(prob, blobs)]:
            centre = pts.mean(axis=0) * scale
            own = np.sqrt(len(pts) * scale[0] * scale[1] * CARD_ASPECT) / SHRINK
            if own <= 0.6 * typical:
                long_side = typical  # a piece of a split blob (or a small object: the classifier decides)
            elif own < 1.5 * typical:
                long_side = 0.5 * (own + typical)
            else:
                long_side = own
            axis = _long_axis(pts * scale)
            quad = shape_blob(gray, edges, centre, long_side, axis)
            # the blob's own long axis, where it has one, is a guess free of the image's edges
            guess = quad if axis is None else _rect(centre.astype(np.float32), long_side, axis - np.pi / 2)
            best = max(classical, key=lambda d: _iou(d.corners, quad), default=None)
            if best is not None and _iou(best.corners, quad) > 0.5:
                quad = best.corners  # the classical outline sits on the real edges
            else:
                quad = snap_to_edges(gray, refine(frame, quad))
            outer = None
            if 0.8 * typical < own < 1.25 * typical and cv2.contourArea(quad) < INNER_OUTLINE * cv2.contourArea(guess):
                # an outline inside the card (a face's white panel between coloured bands has
                # stronger edges than the card on the table): the card is the blob's size, about
                # the panel's centre, along one of its sides (the one whose outline lies on edges)
                side = quad[1] - quad[0]
                angle = float(np.arctan2(side[1], side[0]))
                grown = [_rect(quad.mean(axis=0), long_side, a) for a in (angle, angle + np.pi / 2)]
                outer = max(grown, key=lambda q: _edge_support(edges, q))
            if _is_cut(quad, (w, h)):
                continue  # cut by the frame's edge
            found.append(
                Detection(
                    order_portrait(quad),
                    score,
                    guess=order_portrait(guess),
                    outer=None if outer is None else order_portrait(outer),
                    weak=weak,
                )
            )
        return _mark_touching(found)


def _mark_touching(found: list[Detection]) -> list[Detection]:
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            if _iou(_grow(a.corners, 1.04), _grow(b.corners, 1.04)) > 0:
                a.touching = b.touching = True
    return found


def _is_cut(quad: np.ndarray, size: tuple[int, int]) -> bool:
    w, h = size
    return bool(
        (quad[:, 0] < CUT_MARGIN).any()
        or (quad[:, 1] < CUT_MARGIN).any()
        or (quad[:, 0] > w - 1 - CUT_MARGIN).any()
        or (quad[:, 1] > h - 1 - CUT_MARGIN).any()
    )


SAME_CARD = 0.6  # two blobs whose quads overlap this much (IoU) voted for one card


def _vote_groups(pts: np.ndarray, votes: np.ndarray) -> list[np.ndarray]:
    """A blob's pixels grouped by the card they vote for: touching cards whose inner parts ran
    together still vote for two centres. ``votes``: each pixel's centre, long and short side (map
    pixels); a blob holding k cards' worth of inner area is cut in k by k-means on the centres."""
    inner_area = float(np.median(votes[:, 2] * votes[:, 3])) * SHRINK * SHRINK
    k = int(round(len(pts) / inner_area)) if inner_area > 0 else 1
    if k < 2 or len(pts) < 6 * k:
        return [np.arange(len(pts))]
    k = min(k, 6)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    cv2.setRNGSeed(0)  # k-means starts from random centres: the same frame gives the same cards
    _, labels, _ = cv2.kmeans(votes[:, :2].astype(np.float32), k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    return [np.nonzero(labels == j)[0] for j in range(k) if (labels == j).any()]


def _cards_from_geometry(
    prob: np.ndarray, geometry: np.ndarray, gray: np.ndarray, size: tuple[int, int]
) -> list[Detection]:
    """Cards from a version-2 finder's maps: each blob of inner card votes, pixel by pixel, for
    its card's centre, angle and size; the quad they agree on is put on the card's edges
    (``snap_to_edges``). No contour search: a card costs a few array operations."""
    w, h = size
    oh, ow = prob.shape
    scale = np.array([w / ow, h / oh], np.float32)
    strong = _components(prob > THRESHOLD)
    blobs = [(pts, False) for pts in strong] + [(pts, True) for pts, _ in _weak_blobs(prob, [(b, 0.0) for b in strong])]
    # quad (map px), votes, mean probability, weak, agreement on the angle
    voted: list[tuple[np.ndarray, float, float, bool, float]] = []
    for pts, weak in blobs:
        xi, yi = pts[:, 0].astype(int), pts[:, 1].astype(int)
        weights = prob[yi, xi]
        g = geometry[:, yi, xi]
        votes = np.stack(
            [
                pts[:, 0] + g[0] * GEOMETRY_OFFSET,
                pts[:, 1] + g[1] * GEOMETRY_OFFSET,
                GEOMETRY_LENGTH * np.exp(g[4]),
                GEOMETRY_LENGTH * np.exp(g[5]),
            ],
            axis=1,
        )
        for group in _vote_groups(pts, votes):
            if len(group) < 6:
                continue
            quad, agreement = decode_geometry(geometry, pts[group], weights[group])
            voted.append((quad, float(weights[group].sum()), float(weights[group].mean()), weak, agreement))
    # pieces of one card's inner part (split by a shadow, a hand) vote for the same card: keep one
    voted.sort(key=lambda v: -v[1])
    kept: list[tuple[np.ndarray, float, float, bool, float]] = []
    for v in voted:
        if all(_iou(v[0], k[0]) < SAME_CARD for k in kept):
            kept.append(v)
    guesses = [quad * scale for quad, *_ in kept]
    # put on the card's edges before the cut test: a card lying whole near the frame's edge is told
    # from a cut one by where its sides really are
    snapped = snap_many(gray, guesses)
    found = []
    for (_, _, score, weak, agreement), guess, quad in zip(kept, guesses, snapped):
        if _is_cut(quad, size):
            continue
        found.append(
            Detection(order_portrait(quad), score, guess=order_portrait(guess), weak=weak, angle_agreement=agreement)
        )
    return found
