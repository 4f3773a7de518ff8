"""The scan's time by stage, on one core (issue: recognise any deck; goal: 30 ms a 1280x720 frame
with 12 cards, on the unseen art as on the project's own).

    python benchmarks/stages.py [--frames 30] [--families pips,wallpaper] [--enrol]

Frames: 1280x720, 12 centre cards plus the deck, the T! pile and players' cards, on felt in
neutral light (``benchmarks/scanner.py``'s speed frames), in the project's own art and in each
given art family no network trained on (``scanner/synth/families.py``), zero-shot; ``--enrol``:
also with that deck enrolled from one photo a card (about a minute a family). Each stage is
timed where the scan calls it (a timing wrapper, removed afterwards); a stage called inside
another (the second look's re-reading of its quads) counts as that other's, so the stages and
"rest" (the scan's own bookkeeping) add up to the whole scan. Prints the mean milliseconds a
frame of each stage, and the whole scan's mean and median.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import scanner.scan as scan_module  # noqa: E402
from scanner.synth.families import FAMILIES, deck  # noqa: E402
from scanner.synth.table import speed_frame  # noqa: E402

#: (where the scan calls it, its name there, the stage's name)
STAGES: tuple[tuple[Any, str, str], ...] = (
    (scan_module, "detect_cards", "classical outlines"),
    (scan_module.Scanner, "_find", "learned finder"),
    (scan_module, "fuse_outlines", "fusion"),
    (scan_module, "card_crop", "crops"),
    (scan_module.Scanner, "_classify", "classifier (first read)"),
    (scan_module.Scanner, "_second_look", "second look"),
    (scan_module.Scanner, "_split_merged", "split joined cards"),
    (scan_module.Scanner, "_read_ink", "ink colour"),
    (scan_module.Scanner, "_named_by_word", "T! names"),
    (scan_module.Scanner, "_numbered", "back numbers"),
    (scan_module.Scanner, "_by_print", "no card's print"),
    (scan_module, "_on_mat_marker", "marker check"),
)


class StageClock:
    """Seconds spent in each stage; a stage called inside another counts as the outer one's."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._depth = 0

    def timed(self, function: Callable[..., Any], stage: str) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            self._depth += 1
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.seconds[stage] += time.perf_counter() - started

        return run

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """The wrappers in place for the duration, the scan's own functions back afterwards."""
        saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in STAGES]
        try:
            for owner, name, stage in STAGES:
                setattr(owner, name, self.timed(owner.__dict__[name], stage))
            yield
        finally:
            for owner, name, original in saved:
                setattr(owner, name, original)


def frames_of(style: Any, count: int) -> list[np.ndarray]:
    return [speed_frame(i, style) for i in range(count)]


def measure(scanner: Any, frames: list[np.ndarray]) -> tuple[dict[str, float], list[float]]:
    """Mean milliseconds a frame by stage, and each frame's whole scan in milliseconds, on one core
    (the finder not in a thread of its own beside the outlines)."""
    threaded, scanner.threaded = scanner.threaded, False
    try:
        for frame in frames[:3]:  # (warm-up: the networks' first runs are slower)
            scanner.scan(frame)
        clock = StageClock()
        whole: list[float] = []
        with clock.installed():
            for frame in frames:
                started = time.perf_counter()
                scanner.scan(frame)
                whole.append((time.perf_counter() - started) * 1000)
    finally:
        scanner.threaded = threaded
    stages = {stage: clock.seconds.get(stage, 0.0) * 1000 / len(frames) for _, _, stage in STAGES}
    stages["rest"] = statistics.mean(whole) - sum(stages.values())
    return stages, whole


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=30, help="frames of each art")
    parser.add_argument("--families", default="pips,wallpaper", help="art families no network trained on")
    parser.add_argument("--enrol", action="store_true", help="also with each family's deck enrolled")
    args = parser.parse_args()
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or args.frames < 1:
        parser.error(f"--families: one of {', '.join(FAMILIES)}" if unknown else "--frames: give at least 1")
    cv2.setNumThreads(1)
    scanner = scan_module.load_scanner()
    columns: dict[str, tuple[dict[str, float], list[float]]] = {}
    columns["own art"] = measure(scanner, frames_of(None, args.frames))
    for family in families:
        style = deck(family, 1)
        frames = frames_of(style, args.frames)
        columns[f"{family} zero-shot"] = measure(scanner, frames)
        if args.enrol:
            from scanner.read.profile import enrol_folder
            from scanner.train.enrol_eval import enrol_photos

            with tempfile.TemporaryDirectory() as tmp:
                enrol_photos(style, Path(tmp), scanner.finder)
                scanner.profile = enrol_folder(Path(tmp), scanner).profile
            columns[f"{family} enrolled"] = measure(scanner, frames)
            scanner.profile = None
    names = list(columns)
    width = max(len(n) for n in names) + 2
    print(f"1280x720, 12 centre cards, {args.frames} frames each, one core: mean ms a frame")
    print(f"{'stage':26s}" + "".join(f"{n:>{width}s}" for n in names))
    for _, _, stage in (*STAGES, (None, None, "rest")):
        print(f"{stage:26s}" + "".join(f"{columns[n][0][stage]:>{width}.1f}" for n in names))
    print(f"{'whole scan, mean':26s}" + "".join(f"{statistics.mean(columns[n][1]):>{width}.1f}" for n in names))
    print(f"{'whole scan, median':26s}" + "".join(f"{statistics.median(columns[n][1]):>{width}.1f}" for n in names))


if __name__ == "__main__":
    main()
