"""Field of view: how high to mount a camera module over the play area, and how many pixels a
card then gets. ``tweak fov`` prints the table of ``hardware/README.md``.

Pinhole model, camera looking straight down, the picture's long side along the play area's width.
The Camera Module 3 figures are Raspberry Pi's published horizontal and vertical fields of view of
the full 16:9 sensor (4608x2592), which the 1280x720 and 1920x1080 modes keep (binned, not cropped).

>>> cam = MODULES["standard"]
>>> round(mounting_height_cm(cam, 100, 100))
134
>>> round(card_pixels(cam, mounting_height_cm(cam, 100, 100), (1280, 720)))
46
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CARD_MM = (63.0, 88.0)  # a TWEAK card, short and long side
MIN_CARD_PX = 48  # the card's short side must cover the classifier's crop width (48x64 crops)
RESOLUTIONS = ((1280, 720), (1920, 1080))


@dataclass(frozen=True)
class CameraModule:
    name: str
    hfov_deg: float
    vfov_deg: float


MODULES = {
    "standard": CameraModule("Camera Module 3", 66.0, 41.0),
    "wide": CameraModule("Camera Module 3 Wide", 102.0, 67.0),
}


def mounting_height_cm(camera: CameraModule, width_cm: float, depth_cm: float, margin: float = 1.0) -> float:
    """The lowest height (lens above the table) that sees the whole ``width x depth`` area.

    ``margin`` scales the area (1.1: 10 % more than the play area, for cards pushed to the edge).
    """
    if width_cm <= 0 or depth_cm <= 0:
        raise ValueError("the play area's width and depth must be positive")
    half_h = math.tan(math.radians(camera.hfov_deg) / 2)
    half_v = math.tan(math.radians(camera.vfov_deg) / 2)
    long_side, short_side = max(width_cm, depth_cm), min(width_cm, depth_cm)  # long side along the picture
    return max(margin * long_side / 2 / half_h, margin * short_side / 2 / half_v)


def card_pixels(camera: CameraModule, height_cm: float, resolution: tuple[int, int]) -> float:
    """Pixels across a card's short side, seen from ``height_cm`` at ``resolution``."""
    ground_width_mm = 2 * height_cm * 10 * math.tan(math.radians(camera.hfov_deg) / 2)
    return CARD_MM[0] * resolution[0] / ground_width_mm


def table(sizes_cm: tuple[int, ...] = (50, 60, 70, 80, 90, 100)) -> list[dict]:
    """One row per camera module and square play area: height and card pixels per resolution."""
    rows = []
    for key, camera in MODULES.items():
        for size in sizes_cm:
            height = mounting_height_cm(camera, size, size)
            row = {"module": key, "area_cm": size, "height_cm": round(height)}
            for res in RESOLUTIONS:
                px = card_pixels(camera, height, res)
                row[f"card_px_{res[1]}p"] = round(px)
                row[f"ok_{res[1]}p"] = px >= MIN_CARD_PX
            rows.append(row)
    return rows


def markdown_table() -> str:
    lines = [
        "| module | play area | lens height | card at 1280x720 | card at 1920x1080 |",
        "|---|---|---|---|---|",
    ]
    for row in table():
        cells = []
        for res in ("720p", "1080p"):
            mark = "" if row[f"ok_{res}"] else " (too small)"
            cells.append(f"{row[f'card_px_{res}']} px{mark}")
        name = MODULES[row["module"]].name
        area = f"{row['area_cm']}x{row['area_cm']} cm"
        lines.append(f"| {name} | {area} | {row['height_cm']} cm | {cells[0]} | {cells[1]} |")
    lines.append("")
    lines.append(f"Card pixels: across a card's short side ({CARD_MM[0]:.0f} mm); the scanner needs {MIN_CARD_PX} px.")
    return "\n".join(lines)
