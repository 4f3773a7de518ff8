"""Learning the user's deck from its enrolment photos (``tweak enrol``), without PyTorch.

The shipped networks know the art this project renders; a user's deck is printed in art nobody
here has seen. Enrolment therefore *learns* the deck: every enrolment crop is turned into many
training crops as the camera would see that card on a table (perspective and outline error, scale,
light, colour cast, blur, noise, glare, JPEG), and a linear discriminant (LDA with shrinkage) is
fitted on art-independent features of them (a gradient histogram, a colour layout, and the shipped
network's embedding). Parts of cards and bits of table cut from the same photos make a "none"
class, so a corner index or the table is not read as a card. Seconds to a minute on a laptop's CPU;
the result is a few hundred kilobytes of numbers stored in the deck profile.

>>> rng = np.random.default_rng(0)
>>> x = np.concatenate([rng.normal(0, 1, (40, 5)), rng.normal(5, 1, (40, 5))])
>>> lda = fit_lda(x, np.array([0] * 40 + [1] * 40), 2)
>>> int((lda.posteriors(x).argmax(axis=1) == np.array([0] * 40 + [1] * 40)).sum())
80
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

import cv2
import numpy as np

from scanner.geometry.crops import CROP_H, CROP_W
from scanner.labels import COLOURS, FACES


@dataclass(frozen=True)
class AdaptSettings:
    """Every number of deck learning, one line each."""

    copies: int = 40  # training crops of each label, cut from synthetic tables
    harsh_share: float = 0.5  # share of those tables in harsh light
    outline_error: float = 0.02  # corner error of the crops' outlines, share of the card's width
    none_share: float = 0.3  # "none" crops (card parts, table) for each card crop
    shrinkage: float = 0.15  # LDA: share of the within-class scatter replaced by its mean variance
    shrinkage_choices: tuple[float, ...] = (0.05, 0.15, 0.3, 0.5)  # tried by ``fit_reader``
    max_dims: int = 60  # LDA directions kept
    #: features of a crop: gradient histogram, colour layout, network embedding, each weighted so
    #: that none dominates the others by its number of dimensions
    hog_weight: float = 1.0
    #: the gradient histogram is taken of the crop drawn this many times larger, in cells as many
    #: times wider (the same features): a thin stroke's gradient then falls on its own pixels, not
    #: across it, and a back's small number (a seventh of the card) is told from its neighbours
    hog_upsample: int = 2
    blob_weight: float = 0.5  # ``ink_blobs``: marks of ink counted
    blob_steps: tuple[float, ...] = (24.0, 36.0, 48.0)  # ink: this far from the paper's colour (Lab)
    blob_area: int = 4  # a mark: at least this many pixels of a crop
    colour_weight: float = 1.5
    hue_weight: float = 3.0
    embedding_weight: float = 1.0
    log_prob_weight: float = 0.3
    #: a crop farther from every class of the deck than this many times the training crops' own
    #: distances (99th percentile) is unlike the deck: its reading loses confidence
    outlier_factor: float = 1.6
    #: a profile's reading less sure than this is doubted (the referee asks): the bar above which
    #: the tuning families' enrolled readings were right on their tables (benchmarks/profile_confidence.py)
    sure_confidence: float = 0.999
    #: a label without photos that the shipped model takes one of the deck's enrolled labels for
    #: (``DeckProfile.network_mistaken``) is believed less, but still this much: the model cannot
    #: tell the two apart, and no photo shows the deck's look of it, so neither reading is sure
    mistaken_floor: float = 0.1
    #: how far the any-deck network's word counts for the labels of a kind of card with no photo
    #: in the profile (only the T! cards enrolled: the faces and backs): nothing of the deck
    #: measured it there, and it is all there is to read them by
    untaught_kind_reliability: float = 1.0
    #: a face is read as its colour times its value, each learned from every card of the deck with
    #: that colour or that value (one washed-out photo no longer decides its card alone), times the
    #: whole-label reader's posterior to this power (tuned on the tuning families; RESULTS)
    face_joint_power: float = 0.5
    #: ... and the colour's and the value's posteriors to this power: each learned from six photos,
    #: they are surer than their own calibration says (1 before the value reader counted pips)
    face_factor_power: float = 2.0
    #: where the deck's reader reads no card but the any-deck network names one of the deck's
    #: enrolled backs or faces this surely, the two words are mixed, the network's at this weight:
    #: the card is read as that card, doubted (an enrolment photo that taught the card wrongly, in a
    #: glare halo, makes the reader take the real card for no card; the network still reads it).
    #: Over 1 / (2 x none_word_sure) the card wins even against a reader sure of no card (at 0.5 it
    #: won only where some of the reader's word lay elsewhere)
    none_word_sure: float = 0.9
    none_word_weight: float = 0.6
    face_factor_labels: int = 3  # enrolled faces that must show a colour (a value) for it to be learned
    #: an enrolment photo's card is cut at each way's outline of it; outlines this alike (IoU) are one
    same_outline: float = 0.95
    same_place: float = 0.5  # ... and the scan's outline this alike (IoU) is of the same card
    enrol_same_place: float = 0.6  # the ways' outlines of an enrolment photo this alike (IoU): one place
    #: an enrolment photo's card found by one way alone on a patterned surface is refused where its
    #: edge shows along less than this share of the outline (``profile.card_outlines``; ribbon
    #: deck 2's photos: outlines on the card 0.95-1.0, turned or cut off it 0.62-0.73; 0: off)
    enrol_lone_way_edge: float = 0.85
    #: an enrolment photo's chosen outline may be a part of a card photographed close (its numeral,
    #: a panel): the finder looks again at these shares of its width (a card 2-4 times nearer than
    #: the mount's height then shows at the size it learned) for a card holding that outline
    #: (``enrol_part_inside`` of it) and ``enrol_part_area`` times its area or more, its length
    #: within these times the length learned at that width (so cards 1.6-6 times longer than the
    #: finder learned: below, its first look sees them whole, and a coarse look sees a card at the
    #: mount's height on a checked cloth with the squares around it as one)
    enrol_coarse_widths: tuple[float, ...] = (0.5, 0.33, 0.25)
    enrol_coarse_size: tuple[float, float] = (0.8, 1.5)
    enrol_coarse_edge: float = 0.8  # (photo and ribbon decks at zoom 4: on the card 0.81-1.0, off it 0.38-0.73)
    #: ... and its inside's colours apart from the ring around it at least this much (Bhattacharyya
    #: distance of Lab histograms): a rug's weave is edges everywhere, and the coarse look sees a
    #: "card" of it beside a real tile it never found (0.20 and 0.30; cards' chosen outlines on the
    #: families' enrolment photos 0.16-0.94, the one coarse look among them 0.90)
    enrol_coarse_apart: float = 0.5
    enrol_part_inside: float = 0.9
    enrol_part_area: float = 1.7
    #: an enrolment photo's chosen place with this many outlines about its size (half to twice its
    #: area) elsewhere in the photo is one of the table's pattern (a checked cloth's squares, which
    #: the finder takes for cards): where an outline ``enrol_over_pattern`` times its area or more
    #: stands apart from the table with its edge all round (``enrol_coarse_edge``,
    #: ``enrol_coarse_apart``), that is the card, photographed too close for the finder to see it
    enrol_pattern_alike: int = 3
    enrol_over_pattern: float = 3.0
    #: every card of a deck has one shape: an enrolment photo whose outline's long / short side is
    #: more than this share off the deck's (the median of its photos) is looked at again, and an
    #: outline of the deck's shape holding it (``enrol_part_inside`` of it), clearly a card, at
    #: ``enrol_shape_area`` times its area, is the card (a coloured header band the outline stopped
    #: at). The tuning families' photos outlined right lie within 0.08 of it, but for a few tilted
    enrol_shape_apart: float = 0.08
    enrol_shape_area: tuple[float, float] = (1.15, 4.0)
    enrol_shape_from: int = 3  # photos needed to know the deck's shape
    #: an enrolment outline is used where the colour changes across it (Lab distance over this) at
    #: this share of its length at least; under it no edge shows (glare, a table the card's colour)
    #: and the photo is refused (the tuning families' glare photos: 0.23-0.30, true outlines ~1)
    enrol_edge_contrast: float = 10.0
    enrol_edge_shown: float = 0.4
    #: an enrolment photo whose card is burnt white (every channel at ``enrol_burnt_level`` or over)
    #: on this share of its inner part or more, and on ``enrol_burnt_usual`` times the deck's usual
    #: share (the median of its photos) or more, lost its ink there to glare: it is learned from, and
    #: the user told that a photo out of direct light teaches the deck better (tuning families'
    #: photos: with glare 37 and 38 of 49 over 1 %, without 0 of 178). A camera that burns every
    #: card's white paper burns the deck's photos alike: that is no glare of one photo
    enrol_burnt_level: int = 250
    enrol_burnt_share: float = 0.01
    enrol_burnt_usual: float = 2.0
    #: the dashboard's wizard reads cards with the table's fixed camera, so a deck's cards are all
    #: about one size there: an outline under this share of the usual card's area (the referee's
    #: confirmed cards, else the others read with it) is likely a printed panel, not the card's edge
    enrol_smaller: float = 0.7
    enrol_usual_from: int = 3  # cards needed to know the usual size
    #: an enrolment photo brings its own light (washed out, dim and warm): this share of the cards
    #: drawn on the training tables get their lightness contrast and colourfulness changed by a
    #: random factor in these ranges first, so the photo's light is not learned as the card's look.
    #: Off: at 0.5 it mended the tuning families but not the check families (RESULTS, thirty-fourth session)
    photo_light_share: float = 0.0
    photo_contrast: tuple[float, float] = (0.7, 2.0)
    photo_colourfulness: tuple[float, float] = (0.7, 1.5)
    seed: int = 0


SETTINGS = AdaptSettings()
TURNED = "/turned"  # a reader's class of a label turned half round
TEMPERATURES = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0)


def gradient_histograms(gray: np.ndarray, cell: int = 8, bins: int = 9) -> np.ndarray:
    """HOG (Dalal and Triggs) of N x H x W lightness images: unsigned gradient orientations in
    ``bins`` per ``cell`` x ``cell`` cell, blocks of 2 x 2 cells L2-normalised, flattened.

    >>> gradient_histograms(np.zeros((2, 64, 48), np.float32)).shape
    (2, 1260)
    """
    n, h, w = np.shape(gray)
    ch, cw = h // cell, w // cell
    lookup = np.asarray(gray).dtype == np.uint8  # (the features' case: each gradient's bin looked up)
    g = np.asarray(gray, np.int16 if lookup else np.float32)
    gx = np.zeros_like(g)
    gy = np.zeros_like(g)
    gx[:, :, 1:-1] = g[:, :, 2:] - g[:, :, :-2]
    gy[:, 1:-1, :] = g[:, 2:, :] - g[:, :-2, :]
    gx, gy = gx[:, : ch * cell, : cw * cell], gy[:, : ch * cell, : cw * cell]
    if lookup:
        pair = (gy.astype(np.int32) + 255) * 511 + (gx + 255)
        bin_of, length_of = _gradient_tables(bins)
        index, mag = bin_of.take(pair), length_of.take(pair)
    else:
        index, mag = _gradient_bins(gx, gy, bins), np.hypot(gx, gy)
    cells = ((np.arange(ch * cell) // cell)[:, None] * cw + (np.arange(cw * cell) // cell)[None, :]) * bins
    flat = (cells[None] + index).reshape(n, -1) + (np.arange(n) * ch * cw * bins)[:, None]
    votes = np.bincount(flat.ravel(), mag.ravel(), n * ch * cw * bins)
    votes = votes.astype(np.float32).reshape(n, ch, cw, bins)
    blocks = np.concatenate(
        [votes[:, :-1, :-1], votes[:, 1:, :-1], votes[:, :-1, 1:], votes[:, 1:, 1:]], axis=3
    ).reshape(n, -1, 4 * bins)
    blocks /= np.linalg.norm(blocks, axis=2, keepdims=True) + 1e-3
    blocks = np.minimum(blocks, 0.2)
    blocks /= np.linalg.norm(blocks, axis=2, keepdims=True) + 1e-3
    return blocks.reshape(n, -1)


def _gradient_bins(gx: np.ndarray, gy: np.ndarray, bins: int) -> np.ndarray:
    """The unsigned orientation bin of each gradient (float32 components)."""
    return np.minimum((np.mod(np.arctan2(gy, gx), np.pi) / np.pi * bins).astype(np.int64), bins - 1)


@cache
def _gradient_tables(bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The bin and the length of every gradient of a uint8 image (differences -255..255 across
    and down; index (gy + 255) x 511 + gx + 255): looking them up costs under half of computing them."""
    steps = np.arange(-255, 256, dtype=np.float32)
    gy, gx = np.meshgrid(steps, steps, indexing="ij")
    return _gradient_bins(gx, gy, bins).ravel(), np.hypot(gx, gy).ravel()


def ink_hues(crops: np.ndarray, bins: int = 18) -> np.ndarray:
    """Which colours of ink a card carries, wherever they are printed: a histogram of hue over
    the coloured pixels, each weighted by its saturation (soft, circular bins), and the share of
    coloured pixels. A red 3 and a blue 3 drawn alike differ here, even in pips a few pixels big.

    >>> red = np.zeros((1, 64, 48, 3), np.uint8); red[..., 2] = 200
    >>> int(ink_hues(red)[0, :18].argmax())
    0
    """
    crops = np.asarray(crops)
    n, h, w = crops.shape[:3]
    inner = np.ascontiguousarray(crops[:, h // 10 : h - h // 10, w // 10 : w - w // 10])
    ih, iw = inner.shape[1:3]
    hsv = cv2.cvtColor(inner.reshape(n * ih, iw, 3), cv2.COLOR_BGR2HSV).reshape(n, -1, 3)  # (all crops at once)
    hue, saturation, value = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    weight = np.where((saturation > 50) & (value > 40), saturation.astype(np.float32) / 255.0, np.float32(0))
    step = 180 // bins  # (OpenCV's hue: 0-179, two degrees a step)
    low = hue // step
    frac = (hue % step).astype(np.float32) / step
    base = (np.arange(n) * bins)[:, None]
    hist = np.bincount((base + low).ravel(), (weight * (1 - frac)).ravel(), n * bins)
    hist += np.bincount((base + (low + 1) % bins).ravel(), (weight * frac).ravel(), n * bins)
    hist = hist.reshape(n, bins).astype(np.float32)
    total = hist.sum(axis=1, keepdims=True)
    share = (weight > 0).mean(axis=1, keepdims=True)
    return np.concatenate([hist / np.maximum(total, 1e-6), np.sqrt(share)], axis=1)


def ink_blobs(crops: np.ndarray | list[np.ndarray], top: int = 11) -> np.ndarray:
    """How many separate marks of ink a card carries away from its corners: on a deck that shows
    a value by pips, its value; elsewhere a number the deck's reader learns to weigh as little as it
    tells. Ink is what differs from the card's own paper colour (its median, in Lab) by more than a
    step; each of three steps gives a count, as one-hot rows over 0 .. ``top`` (``top``: that many
    or more), averaged, so a count that hangs on the step is soft. The corners are left out, where
    corner indices sit.

    >>> card = np.full((1, 64, 48, 3), 235, np.uint8)
    >>> for y in (18, 30, 42): card[0, y : y + 4, 22:26] = (40, 40, 200)
    >>> int(ink_blobs(card)[0].argmax())
    3
    """
    n = len(crops)
    out = np.zeros((n, top + 1), np.float32)
    if n == 0:
        return out
    h, w = crops[0].shape[:2]
    inner = np.stack([c[h // 8 : h - h // 8, w // 8 : w - w // 8] for c in crops])
    ih, iw = inner.shape[1:3]
    # all crops as one tall image (one conversion, one labelling a step), a blank row between them
    lab = cv2.cvtColor(inner.reshape(n * ih, iw, 3), cv2.COLOR_BGR2LAB).reshape(n, ih, iw, 3)
    # in whole numbers, twice over (a median may end in a half): the distance to the paper, squared
    diff = (2 * lab.astype(np.int16) - _twice_the_median(lab.reshape(n, -1, 3))[:, None, None, :]).astype(np.int32)
    squared = np.einsum("nhwc,nhwc->nhw", diff, diff)
    cy, cx = round(ih * 0.2), round(iw * 0.25)
    for rows in (slice(0, cy), slice(ih - cy, ih)):
        for cols in (slice(0, cx), slice(iw - cx, iw)):
            squared[:, rows, cols] = 0
    squared = np.concatenate([squared, np.zeros((n, 1, iw), squared.dtype)], axis=1).reshape(n * (ih + 1), iw)
    for step in SETTINGS.blob_steps:
        _, _, stats, _ = cv2.connectedComponentsWithStats((squared > 4 * step * step).astype(np.uint8), connectivity=8)
        marks = stats[1:][stats[1:, cv2.CC_STAT_AREA] >= SETTINGS.blob_area]
        count = np.bincount(marks[:, cv2.CC_STAT_TOP] // (ih + 1), minlength=n)
        out[np.arange(n), np.minimum(count, top)] += 1.0 / len(SETTINGS.blob_steps)
    return out


def _twice_the_median(values: np.ndarray) -> np.ndarray:
    """Twice the median of each channel of each row of N x P x C uint8 values (the two middle
    values added where P is even), from each channel's histogram: a third of ``np.median``'s time.

    >>> v = np.array([[[1, 9], [4, 2], [7, 2], [3, 5]]], np.uint8)
    >>> _twice_the_median(v).tolist(), (2 * np.median(v, axis=1)).tolist()
    ([[7, 7]], [[7.0, 7.0]])
    """
    n, p, c = values.shape
    rows = values.transpose(0, 2, 1).reshape(n * c, p)
    offsets = (np.arange(n * c, dtype=np.int32) * 256)[:, None]
    below = np.bincount((rows + offsets).ravel(), minlength=n * c * 256).reshape(n * c, 256).cumsum(axis=1)
    # the j-th smallest (from 0) is the count of levels 0-255 with j or fewer values at or below them
    low, high = (below <= (p - 1) // 2).sum(axis=1), (below <= p // 2).sum(axis=1)
    return (low + high).astype(np.int16).reshape(n, c)


def crop_features(
    crops: np.ndarray | list[np.ndarray], embeddings: np.ndarray | None = None, log_probs: np.ndarray | None = None
) -> np.ndarray:
    """Features of card crops (N x CROP_H x CROP_W x 3, BGR uint8) that do not assume any art:
    after white balance on the card itself (``white_patch``), a gradient histogram of the
    lightness (shapes: numerals, symbols, borders), a coarse colour layout (which ink where), the
    ink's hues; and the shipped network's embedding and log-probabilities when given (what the
    network sees, mapped to this deck's labels by the discriminant)."""
    s = SETTINGS
    crops = white_patches(crops)
    n = len(crops)
    if n == 0:
        return np.zeros((0, 0), np.float32)
    grays = np.stack([cv2.normalize(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY), None, 0, 255, cv2.NORM_MINMAX) for c in crops])
    small = np.stack([cv2.resize(c, (6, 8), interpolation=cv2.INTER_AREA) for c in crops]).astype(np.float32) + 1.0
    total = small.sum(axis=3, keepdims=True)
    chroma = (small[..., :2] / total - 1 / 3).reshape(n, -1) * 4.0  # the same under brighter or dimmer light
    light = (total[..., 0] / total.mean(axis=(1, 2, 3))[:, None, None]).reshape(n, -1) - 1.0
    parts = [
        s.hog_weight * gradient_histograms(_larger(grays, s.hog_upsample), cell=8 * s.hog_upsample) / 6.0,
        s.blob_weight * ink_blobs(crops),
        s.colour_weight * np.concatenate([chroma, 0.5 * light], axis=1),
        s.hue_weight * ink_hues(np.asarray(crops)),
    ]
    if embeddings is not None:
        parts.append(s.embedding_weight * np.asarray(embeddings, np.float32))
    if log_probs is not None:
        parts.append(s.log_prob_weight * np.maximum(np.asarray(log_probs, np.float32), np.log(1e-4)))
    return np.concatenate(parts, axis=1).astype(np.float32)


def _larger(grays: np.ndarray, factor: int) -> np.ndarray:
    """N x H x W lightness images drawn ``factor`` times larger (bilinear), for the gradients.

    >>> stroke = np.zeros((2, 6, 5), np.uint8); stroke[:, :, 2] = 200  # a stroke a pixel wide
    >>> big = _larger(stroke, 2)
    >>> big.shape, big[0, 6].tolist(), bool((big[0] == big[1]).all())
    ((2, 12, 10), [0, 0, 0, 50, 150, 150, 50, 0, 0, 0], True)
    """
    if factor == 1:
        return grays
    n, h, w = grays.shape
    # all crops as one tall image: one resize (a row of each crop's edge blends into the next's by
    # under a pixel, at the crops' borders, which are the table around the card)
    tall = cv2.resize(grays.reshape(n * h, w), (w * factor, n * h * factor), interpolation=cv2.INTER_LINEAR)
    return tall.reshape(n, h * factor, w * factor)


#: which features ``crop_features`` gives (2: the marks of ink counted, ``ink_blobs``; 3: the
#: gradients of the crop drawn twice as large, ``hog_upsample``): a reader learned on other
#: features cannot read these
FEATURES_VERSION = 3

#: ``crop_features``' columns: the gradient histogram (the card's shapes) first; after it, what the
#: card's colours say (the colour layout, the ink's hues, the network's embedding and log-probabilities)
SHAPE_COLUMNS = slice(
    0,
    gradient_histograms(np.zeros((1, CROP_H, CROP_W), np.float32)).shape[1]
    + ink_blobs(np.zeros((1, CROP_H, CROP_W, 3), np.uint8)).shape[1],
)
COLOUR_COLUMNS = slice(SHAPE_COLUMNS.stop, None)


def white_patch(crop: np.ndarray) -> np.ndarray:
    """The crop brightened or dimmed so that its bright end (98th percentile of the lightness of
    the card's inner part) is 240, by at most 3x: the same card under dimmer or brighter light
    reads alike. One gain for all channels, so a dark card's coloured ink keeps its hue."""
    h, w = crop.shape[:2]
    inner = cv2.cvtColor(crop[h // 8 : h - h // 8, w // 8 : w - w // 8], cv2.COLOR_BGR2GRAY)
    top = float(np.percentile(inner, 98))
    gain = float(np.clip(240.0 / max(top, 1.0), 0.6, 3.0))
    return cv2.convertScaleAbs(crop, alpha=gain)


def white_patches(crops: np.ndarray | list[np.ndarray]) -> list[np.ndarray]:
    """``white_patch`` of each crop, the crops of one size measured at once.

    >>> crops = np.random.default_rng(0).integers(0, 200, (3, 64, 48, 3), np.uint8)
    >>> all(np.array_equal(a, white_patch(c)) for a, c in zip(white_patches(crops), crops))
    True
    """
    crops = [np.asarray(c) for c in crops]
    if not crops or any(c.shape != crops[0].shape for c in crops):
        return [white_patch(c) for c in crops]
    n, (h, w) = len(crops), crops[0].shape[:2]
    inner = np.stack([c[h // 8 : h - h // 8, w // 8 : w - w // 8] for c in crops])
    ih, iw = inner.shape[1:3]
    gray = cv2.cvtColor(inner.reshape(n * ih, iw, 3), cv2.COLOR_BGR2GRAY).reshape(n, -1)
    gains = np.clip(240.0 / np.maximum(np.percentile(gray, 98, axis=1), 1.0), 0.6, 3.0)
    return [cv2.convertScaleAbs(c, alpha=float(g)) for c, g in zip(crops, gains)]


#: the colour columns of the crop's own pixels (colour layout, ink hues), without the network's:
#: the network's embedding says which card it is, value included, so a colour read from it alone
#: gives a face without a photo the colour of the deck's enrolled cards of its value
INK_COLUMNS = slice(SHAPE_COLUMNS.stop, crop_features(np.zeros((1, CROP_H, CROP_W, 3), np.uint8)).shape[1])


@dataclass
class LinearDiscriminant:
    """A fitted LDA: features -> a few directions where the classes lie apart, and the class means
    there; a crop's class posterior is a softmax of minus half its squared distances."""

    mean: np.ndarray  # D: the features' mean
    projection: np.ndarray  # D x K
    centroids: np.ndarray  # C x K
    reach: float  # 99th percentile of the training crops' distance to their own class
    temperature: float = 1.0  # distances are divided by this before the softmax (calibration)

    def project(self, features: np.ndarray) -> np.ndarray:
        return (np.asarray(features, np.float32) - self.mean) @ self.projection

    def distances(self, features: np.ndarray) -> np.ndarray:
        z = self.project(features)
        return ((z[:, None, :] - self.centroids[None]) ** 2).sum(axis=2)

    def posteriors(self, features: np.ndarray) -> np.ndarray:
        return self.posteriors_of(self.distances(features))

    def posteriors_of(self, d: np.ndarray) -> np.ndarray:
        """Class posteriors for squared distances ``d`` (N x C) to the class means."""
        logits = -0.5 * d / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)


def fit_lda(features: np.ndarray, classes: np.ndarray, n_classes: int, settings: AdaptSettings = SETTINGS):
    """A shrunk linear discriminant of ``features`` (N x D) into ``classes`` (N ints < n_classes).

    >>> x = np.array([[0.0, 0], [0, 1], [5, 0], [5, 1]]); lda = fit_lda(x, np.array([0, 0, 1, 1]), 2)
    >>> int(lda.posteriors(np.array([[0.2, 0.5]])).argmax())
    0
    """
    x = np.asarray(features, np.float64)
    y = np.asarray(classes)
    mean = x.mean(axis=0)
    centred = x - mean
    present = [c for c in range(n_classes) if (y == c).any()]
    means = np.zeros((n_classes, x.shape[1]))
    within = np.zeros((x.shape[1], x.shape[1]))
    for c in present:
        rows = centred[y == c]
        means[c] = rows.mean(axis=0)
        d = rows - means[c]
        within += d.T @ d
    within /= max(len(x) - len(present), 1)
    avg = float(np.trace(within)) / within.shape[0]
    within = (1 - settings.shrinkage) * within + settings.shrinkage * avg * np.eye(within.shape[0])
    between = (means[present] * np.sqrt(np.bincount(y, minlength=n_classes)[present])[:, None] / np.sqrt(len(x))).T
    between = between @ between.T
    # whiten by the within-class scatter, then the between-class directions are the eigenvectors
    w_val, w_vec = np.linalg.eigh(within)
    whiten = w_vec / np.sqrt(np.maximum(w_val, 1e-12))
    b_val, b_vec = np.linalg.eigh(whiten.T @ between @ whiten)
    k = min(settings.max_dims, len(present) - 1, x.shape[1])
    order = np.argsort(b_val)[::-1][: max(k, 1)]
    projection = whiten @ b_vec[:, order]
    centroids = means @ projection
    z = centred @ projection
    own = ((z - centroids[y]) ** 2).sum(axis=1)
    reach = float(np.percentile(own, 99)) if len(own) else 1.0
    return LinearDiscriminant(
        mean.astype(np.float32), projection.astype(np.float32), centroids.astype(np.float32), reach
    )


def fit_reader(
    features: np.ndarray, classes: np.ndarray, n_classes: int, settings: AdaptSettings = SETTINGS
) -> LinearDiscriminant:
    """The deck's reader: an LDA whose shrinkage is chosen on the training crops themselves (a
    quarter held out; a whole deck wants little, a few labels much more), refitted on all of them,
    its reach (how far a crop of the deck lies from its class) measured on the held-out quarter,
    which is what crops on a real table will look like, not on the crops it was fitted to.

    The shrinkage is the one whose calibrated posteriors give the held-out crops the least negative
    log-likelihood: held-out accuracies of the choices differ by a few crops in hundreds, so
    choosing by them let one crop decide a deck's reader."""
    x = np.asarray(features, np.float32)
    y = np.asarray(classes)
    held = np.arange(len(y)) % 4 == 3
    rows = np.arange(int(held.sum()))
    best = None
    for shrinkage in settings.shrinkage_choices:
        lda = fit_lda(x[~held], y[~held], n_classes, replace(settings, shrinkage=shrinkage))
        d = lda.distances(x[held])
        temperature, loss = _temperature(d, y[held])
        reach = float(np.percentile(d[rows, y[held]], 99))
        if best is None or loss < best[0] - 1e-9:
            best = (loss, shrinkage, reach, temperature)
    _, shrinkage, reach, temperature = best
    final = fit_lda(x, y, n_classes, replace(settings, shrinkage=shrinkage))
    final.reach = max(final.reach, reach)
    final.temperature = temperature
    return final


def _temperature(d: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The temperature that makes held-out crops' posteriors honest (least negative log-likelihood),
    and that log-likelihood: a discriminant is surer of its training crops than of new ones, and the
    referee takes a sure reading as a fact."""
    best, chosen = None, 1.0
    for t in TEMPERATURES:
        logits = -0.5 * d / t
        logits -= logits.max(axis=1, keepdims=True)
        log_post = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        nll = float(-log_post[np.arange(len(y)), y].mean())
        if best is None or nll < best:
            best, chosen = nll, t
    return chosen, float(best)


@dataclass
class FaceFactors:
    """A deck's faces read by their two parts: which colour (from everything but the shapes: the
    colour layout, the ink's hues, the network's view) and which value (from the shapes alone, so
    the value is learned across colours). Each discriminant learns from every photo of that colour
    or value, so a face whose one photo is poor (glare, a colour cast) is still read by what its
    colour and its value share with the rest of the deck. ``colour`` / ``value``: None where the
    deck's photos show only one."""

    colours: list[str]
    colour: LinearDiscriminant | None
    values: list[int]
    value: LinearDiscriminant | None
    #: a second colour reader, on the crop's own colours alone (``INK_COLUMNS``), whose opinion is
    #: joined with the first's: the first knows the deck's cards, this one their ink (None: profiles
    #: made before it)
    ink: LinearDiscriminant | None = None

    def combine(
        self, labels: list[str], joint: np.ndarray, features: np.ndarray, power: float, factor_power: float = 1.0
    ) -> np.ndarray:
        """``joint`` (N x len(labels) posteriors of whole labels) with the faces' share redrawn as
        (colour x value) ** ``factor_power`` x joint ** ``power``; other labels (backs, T! cards)
        keep theirs.

        >>> f = FaceFactors(["red", "blue"], None, [4, 5], None)
        >>> f.combine(["red-4", "back-7"], np.array([[0.6, 0.4]]), np.zeros((1, 1)), 0.5).round(2).tolist()
        [[0.6, 0.4]]
        """
        parts = [_face(label) for label in labels]
        faces = [i for i, p in enumerate(parts) if p and p[0] in self.colours and p[1] in self.values]
        if not faces or (self.colour is None and self.value is None):
            return joint
        part = joint[:, faces]
        score = np.power(np.maximum(part, 1e-30), power)
        if self.colour is not None:
            pc = self.colour.posteriors(features[:, COLOUR_COLUMNS])
            if self.ink is not None:
                pc = np.sqrt(pc * self.ink.posteriors(features[:, INK_COLUMNS]))
                pc /= np.maximum(pc.sum(axis=1, keepdims=True), 1e-30)
            score = score * np.power(pc[:, [self.colours.index(parts[i][0]) for i in faces]], factor_power)
        if self.value is not None:
            pv = self.value.posteriors(features[:, SHAPE_COLUMNS])
            score = score * np.power(pv[:, [self.values.index(parts[i][1]) for i in faces]], factor_power)
        out = joint.copy()
        out[:, faces] = score / np.maximum(score.sum(axis=1, keepdims=True), 1e-30) * part.sum(axis=1, keepdims=True)
        return out


def _face(label: str) -> tuple[str, int] | None:
    if label not in FACES:
        return None
    colour, value = label.split("-")
    return colour, int(value)


def fit_face_factors(
    features: np.ndarray, labels: list[str | None], settings: AdaptSettings = SETTINGS
) -> FaceFactors | None:
    """The colour and value discriminants of the faces among training crops (``labels``: each
    row's label, None for "not a card"). A colour or value is learned only where at least
    ``face_factor_labels`` enrolled faces show it (fewer add nothing to the faces' own readers);
    None where no face has both its colour and its value learned.

    >>> fit_face_factors(np.zeros((4, 1500), np.float32), ["red-1", "red-2", "blue-1", None]) is None
    True
    """
    parts = [_face(label) if label is not None else None for label in labels]
    shown = {p for p in parts if p is not None}
    colours = [c for c in COLOURS if sum(p[0] == c for p in shown) >= settings.face_factor_labels]
    values = [v for v in range(1, 7) if sum(p[1] == v for p in shown) >= settings.face_factor_labels]
    if not colours or not values:
        return None
    x = np.asarray(features, np.float32)
    colour = value = ink = None
    if len(colours) >= 2:
        rows = [i for i, p in enumerate(parts) if p is not None and p[0] in colours]
        y = np.array([colours.index(parts[i][0]) for i in rows])
        colour = fit_reader(x[rows][:, COLOUR_COLUMNS], y, len(colours), settings)
        ink = fit_reader(x[rows][:, INK_COLUMNS], y, len(colours), settings)
    if len(values) >= 2:
        rows = [i for i, p in enumerate(parts) if p is not None and p[1] in values]
        y = np.array([values.index(parts[i][1]) for i in rows])
        value = fit_reader(x[rows][:, SHAPE_COLUMNS], y, len(values), settings)
    return FaceFactors(colours, colour, values, value, ink)


def composed_faces(classes: list[str], centroids: np.ndarray, faces: FaceFactors) -> tuple[list[str], np.ndarray]:
    """Classes for the faces without a photo whose colour and value the deck shows (``faces``),
    each placed where its colour's and its value's enrolled faces say: in the reader's space, the
    enrolled faces' means fitted as a colour's part plus a value's part (least squares), either way
    up. A red 1 with no photo is then read as a red 1, not as the enrolled card nearest to it.

    >>> c = np.array([[0.0, 0], [0, 0], [1, 0], [1, 0], [0, 1], [0, 1], [9, 9]])
    >>> f = FaceFactors(["red", "blue"], None, [1, 2], None)
    >>> classes = ["red-1", "red-1/turned", "red-2", "red-2/turned", "blue-1", "blue-1/turned", "none"]
    >>> names, where = composed_faces(classes, c, f)
    >>> names, where.round(3).tolist()
    (['blue-2', 'blue-2/turned'], [[1.0, 1.0], [1.0, 1.0]])
    """
    index = {name: k for k, name in enumerate(classes)}
    shown = [label for label in FACES if label in index]
    colours = sorted({_face(label)[0] for label in shown}, key=COLOURS.index)
    values = sorted({_face(label)[1] for label in shown})
    missing = [
        label
        for label in FACES
        if label not in index and _face(label)[0] in faces.colours and _face(label)[1] in faces.values
    ]
    if not missing:
        return [], np.zeros((0, centroids.shape[1]), np.float32)

    def parts(label: str) -> np.ndarray:
        colour, value = _face(label)
        row = np.zeros(len(colours) + len(values))
        row[colours.index(colour)] = row[len(colours) + values.index(value)] = 1.0
        return row

    design = np.array([parts(label) for label in shown])
    fitted = {
        turned: np.linalg.lstsq(design, centroids[[index[label + turned] for label in shown]], rcond=None)[0]
        for turned in ("", TURNED)
    }
    names = [label + turned for label in missing for turned in ("", TURNED)]
    rows = [parts(name.removesuffix(TURNED)) @ fitted[TURNED if name.endswith(TURNED) else ""] for name in names]
    return names, np.array(rows, np.float32)


# --- training crops ---------------------------------------------------------------------------


def card_image(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card whose corners (clockwise from a corner of a short side) are given, cut out of
    ``frame`` flat at the renderer's card size: what enrolment learns a card's look from."""
    from scanner.geometry.crops import warp_crop
    from scanner.synth.cards import CARD_H, CARD_W

    return warp_crop(frame, corners, (CARD_W, CARD_H))


@dataclass(frozen=True)
class PhotoDeck:
    """The user's deck as the table renderer draws it: each card is one of its enrolment photos
    (flat, the printed way up), so synthetic tables show the user's own cards."""

    cards: dict[str, list[np.ndarray]]
    font: int = 0
    layout: str = "enrolled"
    heldout: bool = True
    settings: AdaptSettings = SETTINGS  # (the light the photos are drawn in: ``photo_light_share``)

    def render(self, label: str, rng) -> np.ndarray:
        from scanner.synth.cards import CARD_H, CARD_MASK, CARD_W

        photos = self.cards[label]
        img = cv2.resize(photos[rng.randrange(len(photos))], (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
        inside = CARD_MASK > 0
        # (no draw at a share of 0: the cards and tables as before, seed for seed)
        if self.settings.photo_light_share > 0 and rng.random() < self.settings.photo_light_share:
            img = _other_light(img, inside, rng, self.settings)
        img[~inside] = 0
        return img


def _other_light(img: np.ndarray, inside: np.ndarray, rng, settings: AdaptSettings) -> np.ndarray:
    """``img`` with its lightness contrast (about the card's median) and its colourfulness changed
    by random factors (``AdaptSettings.photo_contrast``, ``photo_colourfulness``; the contrast's
    drawn evenly on a log scale)."""
    low, high = settings.photo_contrast
    contrast = float(np.exp(rng.uniform(np.log(low), np.log(high))))
    colourfulness = rng.uniform(*settings.photo_colourfulness)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    middle = float(np.median(lab[..., 0][inside]))
    lab[..., 0] = (lab[..., 0] - middle) * contrast + middle
    lab[..., 1:] = (lab[..., 1:] - 128.0) * colourfulness + 128.0
    return cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)


def training_set(
    cards_by_label: dict[str, list[np.ndarray]],
    label_index: dict[str, int],
    none_class: int,
    margin: float,
    settings: AdaptSettings = SETTINGS,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Crops of the user's cards on synthetic tables (the project's renderer: surfaces, camera
    tilt, light, shadows, glare, blur, hands, touching and overlapping cards), cut as the scanner
    cuts them (outlines a little off), and their classes: ``2 * label_index[label]`` upright,
    ``+ 1`` turned half round, ``none_class`` for card-sized quads on the table or on a part of a
    card. ``cards_by_label``: flat card images, the printed way up."""
    import random

    from scanner.geometry.crops import card_crop, rotate_corners
    from scanner.synth.table import draw_scene, random_conditions, random_scene

    rng = random.Random(settings.seed)
    jitter = np.random.default_rng(settings.seed)
    deck = PhotoDeck(cards_by_label, settings=settings)
    labels = list(cards_by_label)
    wanted = settings.copies * len(labels)
    images: list[np.ndarray] = []
    classes: list[int] = []
    made = 0
    while made < wanted:
        scene = random_scene(rng, uniform_labels=True)
        for placed in scene.cards:
            placed.label = rng.choice(labels)
        cond = random_conditions(rng, harsh=rng.random() < settings.harsh_share)
        rendered = draw_scene(scene, cond, deck, rng, rng.randrange(2**31))
        quads = []
        for card in rendered.truth["cards"]:
            corners = np.array(card["corners"], np.float32)
            quads.append(corners)
            if card["truncated"] or card["occluded"] > 0.25:
                continue
            side = float(np.linalg.norm(corners[1] - corners[0]))
            corners = corners + jitter.normal(0, settings.outline_error * side, (4, 2)).astype(np.float32)
            turned = bool(jitter.random() < 0.5)
            images.append(card_crop(rendered.image, rotate_corners(corners, 2) if turned else corners, margin))
            classes.append(2 * label_index[card["label"]] + int(turned))
            made += 1
            if rng.random() < settings.none_share and quads:  # a part of this card, as if it were one
                centre = corners.mean(axis=0)
                part = (corners - centre) * jitter.uniform(0.3, 0.6) + centre + jitter.normal(0, 0.15 * side, 2)
                images.append(card_crop(rendered.image, part.astype(np.float32), margin))
                classes.append(none_class)
        images_none = _table_quads(rendered.image, quads, jitter, settings.none_share)
        images += [card_crop(rendered.image, q, margin) for q in images_none]
        classes += [none_class] * len(images_none)
        if progress is not None:
            progress(min(made, wanted), wanted)
    return images, np.asarray(classes)


def _table_quads(
    image: np.ndarray, cards: list[np.ndarray], rng: np.random.Generator, share: float
) -> list[np.ndarray]:
    """Card-sized quads lying mostly off the cards (table, or straddling a card's edge)."""
    from scanner.metrics import quad_iou

    if not cards:
        return []
    h, w = image.shape[:2]
    out = []
    for _ in range(int(round(share * len(cards)))):
        model = cards[int(rng.integers(len(cards)))]
        centre = model.mean(axis=0)
        shift = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h]) - centre
        quad = (model + shift).astype(np.float32)
        if max(quad_iou(quad, c) for c in cards) < 0.3:
            out.append(quad)
    return out
