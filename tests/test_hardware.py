"""The Raspberry Pi side: field-of-view calculator, install script (dry run), systemd unit."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.cli import main
from scanner.geometry.fov import MIN_CARD_PX, MODULES, card_pixels, mounting_height_cm, table

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


INSTALL = ROOT / "hardware" / "install-pi.sh"
UNIT = ROOT / "hardware" / "tweak-companion.service"


def _dry_run(*extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--user", "nobody-here", *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_install_script_dry_run_prints_every_step_and_changes_nothing(tmp_path) -> None:
    done = _dry_run("--port", "8123", "--hostname", "tweak")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    steps = [line for line in out.splitlines() if line.startswith("==> ")]
    assert [s.split()[1] for s in steps[:6]] == ["1/6", "2/6", "3/6", "4/6", "5/6", "6/6"]
    assert "onnxruntime==1.20.1" in out  # the release known to run on a Pi 4 (1.21.0 was not)
    assert "--system-site-packages" in out  # picamera2 comes from apt
    assert "http://tweak.local:8123" in out
    assert "ExecStart=" in out and "--port 8123" in out and "Restart=on-failure" in out
    assert not (ROOT / ".venv" / ".installed-pi").exists()
    assert _dry_run("--port", "8123", "--hostname", "tweak").stdout == out  # the same plan twice


def test_install_script_refuses_bad_options() -> None:
    done = _dry_run("--port", "eighty")
    assert done.returncode == 2 and "--port must be a number" in done.stderr
    done = subprocess.run(["bash", str(INSTALL), "--frobnicate"], capture_output=True, text=True)
    assert done.returncode == 2 and "unknown option --frobnicate" in done.stderr


def test_install_script_is_shellcheck_clean() -> None:
    assert shutil.which("shellcheck"), "./dev test installs shellcheck"
    done = subprocess.run(["shellcheck", str(INSTALL), str(ROOT / "dev")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_systemd_unit_verifies(tmp_path) -> None:
    assert shutil.which("systemd-analyze"), "./dev test installs systemd"
    tweak = ROOT / ".venv" / "bin" / "tweak"
    app = tweak.parent.parent.parent if tweak.exists() else ROOT
    text = UNIT.read_text()
    for key, value in {"@USER@": "root", "@HOME@": "/root", "@APP@": str(app), "@PORT@": "8000"}.items():
        text = text.replace(key, value)
    unit = tmp_path / "tweak-companion.service"
    unit.write_text(text)
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    problems = [line for line in done.stderr.splitlines() if "tweak-companion" in line]
    assert done.returncode == 0 and not problems, done.stderr
