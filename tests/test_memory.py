"""The server's memory stays bounded while phones look at the camera picture (a Pi 4 may have
2 GB): glibc's per-thread heaps once grew it by ~60 MB a picture (``commands.bound_malloc``)."""

from __future__ import annotations

import re
import signal
import time
import urllib.request
from pathlib import Path

from .test_durability import free_port, start_server


def _rss_mib(pid: int) -> float:
    return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1)) / 1024


def test_camera_pictures_do_not_grow_the_server(tmp_path):
    port = free_port()
    # the virtual table plays (a new picture at each move), every 0.3 s
    proc = start_server(str(tmp_path / "m.sqlite3"), port, "--interval", "0.3", virtual=True)
    try:
        base = f"http://127.0.0.1:{port}"
        seen = set()
        rss = []
        for k in range(24):
            picture = urllib.request.urlopen(f"{base}/api/matches/1/camera.jpg", timeout=30).read()
            assert picture[:2] == b"\xff\xd8"  # a JPEG
            seen.add(picture)
            if k in (3, 23):
                rss.append(_rss_mib(proc.pid))
            time.sleep(0.35)  # (served from different threads, as many phones would be)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len(seen) >= 16  # the pictures were new ones, each rendered and scanned
    assert rss[1] < 300, f"server RSS {rss[1]:.0f} MiB after {len(seen)} camera pictures (goal < 300)"
    assert rss[1] - rss[0] < 30, f"the server grew {rss[1] - rss[0]:.0f} MiB over 20 pictures"
