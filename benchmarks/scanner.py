"""Scanner benchmark (issue: the scanner): detection and recognition on rendered frames, speed.

    python benchmarks/scanner.py [--frames 500] [--sets 1] [--processes 1] [--first SEED]
        [--detector auto|classical|learned] [--finder ONNX] [--classifier ONNX] [--cache DIR]

Frames come from a held-out seed range under the harshest conditions, each with 1-16 centre cards
plus the deck, the T! pile, T! cards and won piles. Prints card recall and precision, label
accuracy, the share of frames with every card right, the target read right (where the deck's top
card is in view, as a card must be to count as required; and over all frames), the full pipeline's
median time on a 1280x720 frame with 12 cards on one core (and, with more cores, with the finder in
a thread of its own beside the outlines, as `tweak` runs), and the tracker's time per frame.

A 500-frame set moves by 2-4 frames with changes that should be neutral: judge a change on
several sets (``--sets 7``: seeds FIRST, FIRST + 1,000,000, ...; one line each, then all of them
together), measured side by side in ``--processes`` processes (the timing runs alone afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from scanner.metrics import expected_cards, match, target_in_view  # noqa: E402
from scanner.scan import load_scanner  # noqa: E402
from scanner.synth.table import render_table, speed_frame  # noqa: E402
from scanner.track import Tracker  # noqa: E402

HELDOUT_SEED = 90_000_000
SET_STEP = 1_000_000
COUNTS = ("frames", "required", "found", "labels_right", "found_total", "false_pos", "frames_right")
COUNTS += ("target_right", "target_total", "seen_right", "seen_total")


def load(detector: str, finder: str | None, classifier: str | None):
    """The shipped scanner, with another finder or classifier model when asked."""
    cv2.setNumThreads(1)
    scanner = load_scanner(detector=detector)
    if finder:
        from scanner.find.segment import CardFinder

        scanner.finder = CardFinder(finder)
    if classifier:
        from scanner.read.classify import CardClassifier

        scanner.classifier = CardClassifier(classifier, second_opinion=None)
        scanner.any_deck = None  # (the given network reads every card)
    return scanner


def harsh_frame(seed: int, cache: str | None) -> tuple[np.ndarray, dict]:
    """The harsh frame of ``seed`` and its truth, rendered once into ``cache`` (a folder) when
    one is given: rendering is most of a run's time, and a change to the pipeline is then measured
    on the same frames in a fraction of it."""
    path = Path(cache) / f"{seed}.npz" if cache else None
    if path is not None and path.exists():
        with np.load(path) as stored:
            return stored["image"], json.loads(str(stored["truth"]))
    rendered = render_table(seed, harsh=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part.npz")  # (a run stopped while writing leaves no half file)
        np.savez(partial, image=rendered.image, truth=json.dumps(rendered.truth))
        partial.replace(path)
    return rendered.image, rendered.truth


def measure_set(
    first: int, frames: int, detector: str, finder: str | None, classifier: str | None, cache: str | None = None
) -> dict:
    """The counts of one set of ``frames`` harsh frames from seed ``first``."""
    scanner = load(detector, finder, classifier)
    n = dict.fromkeys(COUNTS, 0)
    n["frames"] = frames
    for i in range(frames):
        image, truth = harsh_frame(first + i, cache)
        required, optional = expected_cards(truth)
        result = scanner.scan(image)
        quads = [c.corners for c in result.cards]
        pairs = match([np.array(c["corners"]) for c in required], quads)
        used = {j for _, j in pairs}
        rest = [j for j in range(len(quads)) if j not in used]
        opt_pairs = match([np.array(c["corners"]) for c in optional], [quads[j] for j in rest])
        fp = len(rest) - len(opt_pairs)
        right = sum(result.cards[j].label == required[t]["label"] for t, j in pairs)
        n["required"] += len(required)
        n["found"] += len(pairs)
        n["labels_right"] += right
        n["found_total"] += len(pairs) + fp
        n["false_pos"] += fp
        n["frames_right"] += right == len(required) and fp == 0
        if truth["target"] is not None:
            n["target_total"] += 1
            n["target_right"] += result.target == truth["target"]
            if target_in_view(truth):
                n["seen_total"] += 1
                n["seen_right"] += result.target == truth["target"]
    return n


def report(name: str, n: dict) -> None:
    print(
        f"{name}: card recall {n['found'] / n['required']:.4f}, "
        f"precision {1 - n['false_pos'] / max(n['found_total'], 1):.4f}, "
        f"label accuracy (found cards) {n['labels_right'] / max(n['found'], 1):.4f}; "
        f"frames with every card right {n['frames_right'] / n['frames']:.4f}; "
        f"target read right {n['seen_right'] / max(n['seen_total'], 1):.4f} "
        f"({n['seen_right']} of {n['seen_total']} frames with the deck in view; "
        f"{n['target_right'] / max(n['target_total'], 1):.4f} of all {n['target_total']}, decks under a hand included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=500, help="frames a set")
    parser.add_argument("--sets", type=int, default=1, help="sets of frames, a million seeds apart")
    parser.add_argument("--processes", type=int, default=1, help="sets measured at once")
    parser.add_argument("--detector", choices=("auto", "classical", "learned"), default="auto")
    parser.add_argument("--finder", help="another card finder model (ONNX) to measure")
    parser.add_argument(
        "--classifier", help="another card classifier model (ONNX) to measure (alone: no second opinion)"
    )
    parser.add_argument(
        "--cache", help="a folder keeping the rendered frames (about 2.5 MB each) for the next run to reuse"
    )
    parser.add_argument(
        "--first", type=int, default=HELDOUT_SEED, help="first seed (others: frames no change was tuned on)"
    )
    args = parser.parse_args()
    for option in ("frames", "sets", "processes"):
        if getattr(args, option) < 1:
            parser.error(f"--{option} {getattr(args, option)}: give at least 1")
    for option in ("finder", "classifier"):
        path = getattr(args, option)
        if path and not Path(path).is_file():
            parser.error(f"--{option} {path}: no such model file")
    firsts = [args.first + k * SET_STEP for k in range(args.sets)]
    jobs = [(first, args.frames, args.detector, args.finder, args.classifier, args.cache) for first in firsts]
    if args.processes > 1 and len(jobs) > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(min(args.processes, len(jobs))) as pool:
            counts = pool.starmap(measure_set, jobs)
    else:
        counts = [measure_set(*job) for job in jobs]
    total = dict.fromkeys(COUNTS, 0)
    print(f"{args.frames} harsh frames a set, detector: {args.detector}")
    for first, n in zip(firsts, counts):
        report(f"seeds {first}..{first + args.frames - 1} ({n['required']} cards)", n)
        for key in COUNTS:
            total[key] += n[key]
    if len(counts) > 1:
        report(f"all {len(counts)} sets ({total['frames']} frames, {total['required']} cards)", total)
    scanner = load(args.detector, args.finder, args.classifier)
    # speed: 1280x720, 12 centre cards, neutral conditions, one core (the finder not in a thread of
    # its own); then, where there are more cores, with it beside the outlines as `tweak` runs
    threaded, scanner.threaded = scanner.threaded, False
    times, track_times = [], []
    tracker = Tracker()
    frames = [speed_frame(i) for i in range(40)]
    for i, frame in enumerate(frames):
        t = time.perf_counter()
        result = scanner.scan(frame)
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        tracker.update(i * 0.1, frame, result)
        track_times.append(time.perf_counter() - t)
    beside = ""
    if threaded:
        scanner.threaded = True
        both = []
        for frame in frames:
            t = time.perf_counter()
            scanner.scan(frame)
            both.append(time.perf_counter() - t)
        beside = f" ({statistics.median(both) * 1000:.1f} ms with the finder in a thread beside the outlines)"
    print(
        f"full pipeline, 1280x720 with 12 cards: median {statistics.median(times) * 1000:.1f} ms on one core{beside}; "
        f"tracker {statistics.median(track_times) * 1000:.2f} ms per frame"
    )


if __name__ == "__main__":
    main()
