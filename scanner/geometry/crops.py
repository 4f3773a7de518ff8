"""Card crops: a quadrilateral of the frame warped to the classifier's input (portrait)."""

from __future__ import annotations

import cv2
import numpy as np

CROP_W, CROP_H = 48, 64
#: Crops take a little of the table around the card, so a quad a few pixels off never cuts the numeral.
CROP_MARGIN = 1.08


def order_portrait(corners: np.ndarray) -> np.ndarray:
    """Order 4 corners clockwise, starting at a corner of a short side, so the crop is portrait.

    Which of the two short sides is the printed top is left to the classifier's orientation output.

    >>> order_portrait(np.array([[0, 0], [0, 10], [20, 10], [20, 0]])).tolist()
    [[20.0, 0.0], [20.0, 10.0], [0.0, 10.0], [0.0, 0.0]]
    """
    return order_portrait_many(np.asarray(corners, np.float32).reshape(1, 4, 2))[0]


def order_portrait_many(quads: np.ndarray) -> np.ndarray:
    """``order_portrait`` for Q x 4 x 2 corners at once."""
    pts = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    centre = pts.mean(axis=1, keepdims=True)
    angles = np.arctan2(pts[..., 1] - centre[..., 1], pts[..., 0] - centre[..., 0])
    pts = np.take_along_axis(pts, np.argsort(angles, axis=1)[..., None], axis=1)  # clockwise (y down)
    side = np.linalg.norm(pts - np.roll(pts, -1, axis=1), axis=2)  # side i: corner i to i + 1
    # 0-1 is a long side: start one corner later
    long_first = side[:, 0] + side[:, 2] > side[:, 1] + side[:, 3]
    return np.where(long_first[:, None, None], np.roll(pts, -1, axis=1), pts)


def warp_crop(image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
    """The card whose corners are [top-left, top-right, bottom-right, bottom-left] as a w x h image."""
    w, h = size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(corners, np.float32).reshape(4, 2), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


#: A classifier trained with ``stretch_contrast`` (its meta's ``input.stretch``) reads crops whose
#: dark and light ends (these percentiles of the card's inner part) are put at 10 and 245.
STRETCH_PERCENTILES = (1.0, 99.0)


def stretch_contrast(crops: np.ndarray, percentiles: tuple[float, float] = STRETCH_PERCENTILES) -> np.ndarray:
    """Crops (N x H x W x 3 uint8) with their lightness range stretched, the same for the three
    channels: a card washed out by glare or seen through a veil of light gets its numeral's contrast
    back, and colours their saturation. Measured from the crop's inner part (not the table around
    the card; every other pixel, by partial sort: 0.3 ms for 18 crops); a nearly flat crop is
    stretched at most 11.75x (noise is not made into a card).

    >>> flat = np.full((1, 64, 48, 3), 200, np.uint8); flat[0, 20:40, 20:30] = 150
    >>> int(stretch_contrast(flat).max()), int(stretch_contrast(flat).min())
    (245, 10)
    """
    crops = np.asarray(crops)
    n, h, w = crops.shape[:3]
    inner = crops[:, h // 10 : h - h // 10 : 2, w // 10 : w - w // 10 : 2].reshape(n, -1)
    last = inner.shape[1] - 1
    at = (round(last * percentiles[0] / 100), round(last * percentiles[1] / 100))
    ends = np.partition(inner, at, axis=1)
    lo, hi = ends[:, at[0]].astype(np.float32), ends[:, at[1]].astype(np.float32)
    scale = 235.0 / np.maximum(hi - lo, 20.0)
    # one look-up table a crop (OpenCV's LUT: 8x faster than the arithmetic on every pixel)
    luts = np.clip(np.arange(256, dtype=np.float32) * scale[:, None] + (10.5 - lo * scale)[:, None], 0, 255)
    return np.stack([cv2.LUT(crop, lut) for crop, lut in zip(crops, luts.astype(np.uint8))]) if n else crops


def rotate_corners(corners: np.ndarray, quarter_turns: int) -> np.ndarray:
    """The same quadrilateral starting ``quarter_turns`` corners later (2: the card upside down)."""
    return np.roll(np.asarray(corners, np.float32).reshape(4, 2), -quarter_turns, axis=0)


def card_crop(image: np.ndarray, corners: np.ndarray, margin: float = CROP_MARGIN) -> np.ndarray:
    """The classifier's input for a card: its quad grown by ``margin`` about the centre, warped."""
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    centre = quad.mean(axis=0)
    return warp_crop(image, (quad - centre) * margin + centre)
