"""The Raspberry Pi side: field-of-view calculator, install script (dry run), systemd unit."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from companion.cli import main
from scanner.fov import MIN_CARD_PX, MODULES, card_pixels, mounting_height_cm, table

ROOT = Path(__file__).resolve().parent.parent


def test_height_sees_the_whole_area_and_no_more_than_needed() -> None:
    cam = MODULES["standard"]
    h = mounting_height_cm(cam, 100, 100)
    # at that height the short side of the picture (vertical field) spans exactly 100 cm
    assert math.isclose(2 * h * math.tan(math.radians(cam.vfov_deg) / 2), 100, rel_tol=1e-9)
    # and the long side spans more than 100 cm
    assert 2 * h * math.tan(math.radians(cam.hfov_deg) / 2) > 100


def test_wide_lens_mounts_lower_and_height_grows_with_the_area() -> None:
    for size in (50, 75, 100):
        assert mounting_height_cm(MODULES["wide"], size, size) < mounting_height_cm(MODULES["standard"], size, size)
    heights = [mounting_height_cm(MODULES["standard"], s, s) for s in (50, 60, 80, 100)]
    assert heights == sorted(heights)


def test_a_long_area_is_turned_along_the_picture() -> None:
    cam = MODULES["standard"]
    assert mounting_height_cm(cam, 100, 50) == mounting_height_cm(cam, 50, 100)


def test_card_pixels_scale_with_resolution_and_height() -> None:
    cam = MODULES["standard"]
    assert math.isclose(card_pixels(cam, 100, (1920, 1080)), 1.5 * card_pixels(cam, 100, (1280, 720)))
    assert math.isclose(card_pixels(cam, 50, (1280, 720)), 2 * card_pixels(cam, 100, (1280, 720)))


def test_table_flags_areas_too_large_for_720p() -> None:
    rows = {(r["module"], r["area_cm"]): r for r in table()}
    assert rows[("standard", 50)]["ok_720p"] and rows[("standard", 50)]["card_px_720p"] > MIN_CARD_PX
    assert not rows[("standard", 100)]["ok_720p"]
    assert rows[("standard", 100)]["ok_1080p"]


def test_bad_area_is_a_clear_error() -> None:
    with pytest.raises(ValueError):
        mounting_height_cm(MODULES["standard"], 0, 50)


def test_fov_command(capsys) -> None:
    assert main(["fov", "--area", "80x60", "--module", "wide"]) == 0
    out = capsys.readouterr().out
    assert "Camera Module 3 Wide" in out and "cm above the table" in out and "1920x1080" in out
    assert main(["fov", "--area", "eighty"]) == 2
    assert "WIDTHxDEPTH" in capsys.readouterr().err
