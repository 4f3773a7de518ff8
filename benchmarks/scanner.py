"""Scanner benchmark (issue: the scanner): detection and recognition on rendered frames, speed.

    python benchmarks/scanner.py [--frames 500] [--detector auto|classical|learned] [--first SEED]

Frames come from a held-out seed range under the harshest conditions, each with 1-16 centre cards
plus the deck, the T! pile, T! cards and won piles. Prints card recall and precision, label
accuracy, the share of frames with every card right, the target read right (where the deck's top
card is in view, as a card must be to count as required; and over all frames), the full pipeline's
median time on a 1280x720 frame with 12 cards on one core, and the tracker's time per frame.
"""

from __future__ import annotations

import argparse
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
from scanner.pipeline import load_scanner  # noqa: E402
from scanner.synth.table import Conditions, render_table  # noqa: E402
from scanner.track import Tracker  # noqa: E402

HELDOUT_SEED = 90_000_000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=500)
    parser.add_argument("--detector", choices=("auto", "classical", "learned"), default="auto")
    parser.add_argument("--finder", help="another card finder model (ONNX) to measure")
    parser.add_argument(
        "--first", type=int, default=HELDOUT_SEED, help="first seed (others: frames no change was tuned on)"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    scanner = load_scanner(detector=args.detector)
    if args.finder:
        from scanner.segment import CardFinder

        scanner.finder = CardFinder(args.finder)
    required_total = found_required = labels_right = found_total = false_pos = 0
    frames_right = target_right = target_total = seen_right = seen_total = 0
    for i in range(args.frames):
        rendered = render_table(args.first + i, harsh=True)
        required, optional = expected_cards(rendered.truth)
        result = scanner.scan(rendered.image)
        quads = [c.corners for c in result.cards]
        pairs = match([np.array(c["corners"]) for c in required], quads)
        used = {j for _, j in pairs}
        rest = [j for j in range(len(quads)) if j not in used]
        opt_pairs = match([np.array(c["corners"]) for c in optional], [quads[j] for j in rest])
        fp = len(rest) - len(opt_pairs)
        right = sum(result.cards[j].label == required[t]["label"] for t, j in pairs)
        required_total += len(required)
        found_required += len(pairs)
        labels_right += right
        found_total += len(pairs) + fp
        false_pos += fp
        frames_right += right == len(required) and fp == 0
        if rendered.truth["target"] is not None:
            target_total += 1
            target_right += result.target == rendered.truth["target"]
            if target_in_view(rendered.truth):
                seen_total += 1
                seen_right += result.target == rendered.truth["target"]
    print(f"{args.frames} harsh frames from seed {args.first}, {required_total} cards, detector: {args.detector}")
    print(
        f"card recall {found_required / required_total:.4f}, precision {1 - false_pos / max(found_total, 1):.4f}, "
        f"label accuracy (found cards) {labels_right / max(found_required, 1):.4f}"
    )
    print(
        f"frames with every card right {frames_right / args.frames:.4f}; "
        f"target read right {seen_right / max(seen_total, 1):.4f} ({seen_total} frames with the deck in view; "
        f"{target_right / max(target_total, 1):.4f} of all {target_total}, decks under a hand included)"
    )
    # speed: 1280x720, 12 centre cards, neutral conditions, one core
    times, track_times = [], []
    tracker = Tracker()
    for i in range(40):
        cond = Conditions(1280, 720, "felt", "neutral", 5000, 0.02, 0.0, 0.1, False, False, 0.0, 2.0, 90, False)
        frame = render_table(HELDOUT_SEED + 10_000 + i, n_centre=12, conditions=cond).image
        t = time.perf_counter()
        result = scanner.scan(frame)
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        tracker.update(i * 0.1, frame, result)
        track_times.append(time.perf_counter() - t)
    print(
        f"full pipeline, 1280x720 with 12 cards: median {statistics.median(times) * 1000:.1f} ms on one core; "
        f"tracker {statistics.median(track_times) * 1000:.2f} ms per frame"
    )


if __name__ == "__main__":
    main()
