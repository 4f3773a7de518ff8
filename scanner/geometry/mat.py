"""The printable play mat: four ArUco markers give the homography from the camera to the mat
(a top-down view in millimetres) and named zones: centre, deck, T! pile, one area per player.
White and black patches give a colour reference.

``tweak mat --out mat.pdf --size A3|A2`` writes it at its real size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
PAPER = {"A3": (420.0, 297.0), "A2": (594.0, 420.0)}
#: an outline larger than this many of the mat's markers' area is the mat's, not a card: a marker's
#: side is 0.085 of the mat's width (36 mm on A3, 50 on A2), so a card (63 x 88 mm) is 4.3 markers
#: on A3 and 2.2 on A2; the mat's border is about 100, its deck and T! boxes 8.3 on A3 (4.3 on A2, where
#: their printed line shows no edge of a card)
MAT_PART_AREA = 6.0


@dataclass(frozen=True)
class MatLayout:
    """Sizes in millimetres; the mat is landscape, origin at its top-left corner."""

    width: float
    height: float
    marker: float
    inset: float

    @classmethod
    def paper(cls, size: str) -> MatLayout:
        w, h = PAPER[size]
        return cls(w, h, marker=round(w * 0.085), inset=10.0)

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The marker's 4 corners (clockwise from its top-left) in mat millimetres."""
        m, i = self.marker, self.inset
        x0 = i if marker_id in (0, 3) else self.width - i - m
        y0 = i if marker_id in (0, 1) else self.height - i - m
        return np.array([[x0, y0], [x0 + m, y0], [x0 + m, y0 + m], [x0, y0 + m]], np.float32)

    def on_marker(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Whether the mat point (x, y) mm lies on one of the markers (grown by ``margin`` mm)."""
        for marker_id in MARKER_IDS:
            (x0, y0), (x1, y1) = self.marker_corners(marker_id)[[0, 2]]
            if x0 - margin <= x <= x1 + margin and y0 - margin <= y <= y1 + margin:
                return True
        return False

    # zones ------------------------------------------------------------------------------------
    @property
    def deck_box(self) -> tuple[float, float, float, float]:
        cw, ch = 63 * 1.5, 88 * 1.3
        return (self.width / 2 - cw - 8, self.height * 0.08, self.width / 2 - 8, self.height * 0.08 + ch)

    @property
    def tweak_pile_box(self) -> tuple[float, float, float, float]:
        cw, ch = 63 * 1.5, 88 * 1.3
        return (self.width / 2 + 8, self.height * 0.08, self.width / 2 + 8 + cw, self.height * 0.08 + ch)

    @property
    def centre_box(self) -> tuple[float, float, float, float]:
        top = self.deck_box[3] + 10
        return (self.width * 0.18, top, self.width * 0.82, self.height * 0.86)

    def zone(self, point: tuple[float, float], players: int | None = None) -> str:
        """The zone of a point in mat millimetres: deck, tweak_pile, centre, player-N or table."""
        x, y = point
        for name, box in (("deck", self.deck_box), ("tweak_pile", self.tweak_pile_box), ("centre", self.centre_box)):
            if box[0] <= x <= box[2] and box[1] <= y <= box[3]:
                return name
        if not players:
            return "table"
        # player areas: sectors around the mat's centre, player 0 at the bottom, then clockwise
        angle = math.atan2(x - self.width / 2, y - self.height / 2)  # 0 = straight down
        sector = (-angle) % (2 * math.pi) / (2 * math.pi) * players
        return f"player-{int(sector + 0.5) % players}"


def mat_image(layout: MatLayout, px_per_mm: float = 150 / 25.4) -> np.ndarray:
    """The mat as a BGR image at ``px_per_mm``."""
    w, h = round(layout.width * px_per_mm), round(layout.height * px_per_mm)
    img = np.full((h, w, 3), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    s = px_per_mm
    for marker_id in MARKER_IDS:
        corners = layout.marker_corners(marker_id) * s
        side = int(round(layout.marker * s))
        tile = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        x0, y0 = int(round(corners[0][0])), int(round(corners[0][1]))
        img[y0 : y0 + side, x0 : x0 + side] = tile[..., None]
    grey = (150, 150, 150)
    for box, name in ((layout.deck_box, "DECK"), (layout.tweak_pile_box, "T!"), (layout.centre_box, "TWEAK")):
        p0 = (int(box[0] * s), int(box[1] * s))
        p1 = (int(box[2] * s), int(box[3] * s))
        cv2.rectangle(img, p0, p1, grey, max(2, int(s)), cv2.LINE_AA)
        cv2.putText(
            img,
            name,
            (p0[0] + int(4 * s), p1[1] - int(4 * s)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.9 * s / 3,
            grey,
            max(1, int(s / 2)),
            cv2.LINE_AA,
        )
    # colour reference: a white patch (the paper) and a black one, beside the bottom markers
    m = layout.marker_corners(3)
    x0, y0 = int((m[1][0] + 6) * s), int(m[0][1] * s)
    cv2.rectangle(img, (x0, y0), (x0 + int(layout.marker * s), y0 + int(layout.marker * s)), (0, 0, 0), -1)
    return img


def write_mat(path: Path, size: str = "A3") -> Path:
    """The mat as a PDF (or PNG) at its real size."""
    from PIL import Image

    layout = MatLayout.paper(size)
    dpi = 150
    img = mat_image(layout, dpi / 25.4)
    pil = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".pdf":
        pil.save(path, "PDF", resolution=dpi)
    else:
        pil.save(path, dpi=(dpi, dpi))
    return path


@dataclass
class MatView:
    """Where the mat is in a frame: homography frame -> mat mm, and colour reference."""

    layout: MatLayout
    to_mat: np.ndarray  # 3x3, frame pixels -> mat millimetres
    markers: int  # how many of the 4 markers were seen
    white: np.ndarray | None = None  # BGR of the paper around the markers, as seen
    black: np.ndarray | None = None  # BGR of the markers' black, as seen

    def to_mat_points(self, pts: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), self.to_mat).reshape(-1, 2)

    def zone_of(self, corners: np.ndarray, players: int | None = None) -> str:
        centre = self.to_mat_points(corners).mean(axis=0)
        return self.layout.zone((float(centre[0]), float(centre[1])), players)

    def top_down(self, frame: np.ndarray, px_per_mm: float = 1.0) -> np.ndarray:
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (int(self.layout.width * px_per_mm), int(self.layout.height * px_per_mm))
        return cv2.warpPerspective(frame, scale @ self.to_mat, size)

    def normalise_colour(self, image: np.ndarray) -> np.ndarray:
        """Map the mat's black to 0 and its white to 255 per channel (white balance and exposure)."""
        if self.white is None or self.black is None:
            return image
        lo = self.black.astype(np.float32)
        span = np.maximum(self.white.astype(np.float32) - lo, 20.0)
        out = (image.astype(np.float32) - lo) * (235.0 / span)
        return np.clip(out, 0, 255).astype(np.uint8)


def find_markers(gray: np.ndarray, min_perimeter: float | None = None) -> list[tuple[int, np.ndarray]]:
    """The mat's ArUco markers seen in ``gray``: (id, 4 x 2 corners) for each of ``MARKER_IDS``.
    ``min_perimeter``: markers whose perimeter is under this share of the picture's longer side are
    not looked for (a search around one outline, where a marker is the outline's size: a dark
    card's print makes many small candidates, each decoded at a cost)."""
    parameters = cv2.aruco.DetectorParameters()
    if min_perimeter is not None:
        parameters.minMarkerPerimeterRate = min_perimeter
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), parameters)
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return []
    return [(int(i), quad.reshape(4, 2)) for quad, i in zip(corners, ids.ravel()) if int(i) in MARKER_IDS]


def the_mats_own(gray: np.ndarray, quads: list[np.ndarray]) -> list[bool]:
    """Which of ``quads`` are the play mat's own outlines (its border, its zones): where the mat's
    markers are in view, an outline over MAT_PART_AREA markers' area is larger than a card on any
    paper size, whatever its shape.

    >>> the_mats_own(np.full((200, 300), 255, np.uint8), [np.zeros((4, 2), np.float32)])  # no marker seen
    [False]
    """
    markers = find_markers(gray)
    if not markers:
        return [False] * len(quads)
    marker = float(np.median([cv2.contourArea(m.astype(np.float32)) for _, m in markers]))
    return [float(cv2.contourArea(np.asarray(q, np.float32).reshape(4, 2))) > MAT_PART_AREA * marker for q in quads]


def find_mat(frame: np.ndarray, layout: MatLayout) -> MatView | None:
    """Detect the mat's ArUco markers; None when fewer than 2 are seen (no reliable homography)."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    src, dst, seen = [], [], 0
    whites, blacks = [], []
    for marker_id, quad in find_markers(gray):
        seen += 1
        src.append(quad)
        dst.append(layout.marker_corners(marker_id))
        # colour reference: the marker's black border and the paper just outside it
        centre = quad.mean(axis=0)
        inner = centre + (quad - centre) * 0.9
        outer = centre + (quad - centre) * 1.25
        for p in inner:
            blacks.append(_sample(frame, p))
        for p in outer:
            whites.append(_sample(frame, p))
    if seen < 2:
        return None
    hom, _ = cv2.findHomography(np.concatenate(src), np.concatenate(dst), cv2.RANSAC, 5.0)
    if hom is None:
        return None
    white = np.median([w for w in whites if w is not None], axis=0) if whites else None
    black = np.median([b for b in blacks if b is not None], axis=0) if blacks else None
    return MatView(layout, hom, seen, white, black)


def _sample(frame: np.ndarray, point: np.ndarray) -> np.ndarray | None:
    x, y = int(round(point[0])), int(round(point[1]))
    h, w = frame.shape[:2]
    if not (1 <= x < w - 1 and 1 <= y < h - 1):
        return None
    return frame[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, frame.shape[2]).mean(axis=0)
