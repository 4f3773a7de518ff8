"""Detector benchmark on rendered frames: recall, precision, how well the outlines fit, time per frame.

python benchmarks/detector.py [--frames 200] [--seed 70000000] [--harsh] [--detector learned|classical]

Detection only (no classifier): the learned card finder (``scanner.find.segment``, the default) or the
classical OpenCV detector (``scanner.find.detect``). Outline fit: for every required card, the overlap
(IoU) of the best quad found with the true outline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scanner.find.detect import detect_cards  # noqa: E402
from scanner.metrics import expected_cards, match, quad_iou  # noqa: E402
from scanner.synth.table import render_table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=70_000_000)
    parser.add_argument("--harsh", action="store_true")
    parser.add_argument("--detector", choices=("learned", "classical"), default="learned")
    args = parser.parse_args()
    if args.detector == "learned":
        from scanner.find.segment import CardFinder

        detect = CardFinder().find
    else:
        detect = detect_cards
    fits: list[float] = []
    found_required = required_total = false_pos = found_total = 0
    perfect = 0
    times = []
    misses: Counter[str] = Counter()
    for i in range(args.frames):
        rendered = render_table(args.seed + i, harsh=args.harsh)
        required, optional = expected_cards(rendered.truth)
        t = time.perf_counter()
        detections = detect(rendered.image)
        times.append(time.perf_counter() - t)
        quads = [d.corners for d in detections]
        req_q = [np.array(c["corners"]) for c in required]
        opt_q = [np.array(c["corners"]) for c in optional]
        pairs = match(req_q, quads)
        fits += [max((quad_iou(t, q) for q in quads), default=0.0) for t in req_q]
        matched_found = {j for _, j in pairs}
        rest = [q for j, q in enumerate(quads) if j not in matched_found]
        opt_pairs = match(opt_q, rest)
        fp = len(rest) - len(opt_pairs)
        found_required += len(pairs)
        required_total += len(req_q)
        false_pos += fp
        found_total += len(quads) - len(opt_pairs)
        matched_t = {i for i, _ in pairs}
        for k, card in enumerate(required):
            if k not in matched_t:
                misses[f"{card['role']}/{rendered.truth['conditions']['surface']}"] += 1
        perfect += len(pairs) == len(req_q) and fp == 0
    recall = found_required / max(required_total, 1)
    precision = (found_total - false_pos) / max(found_total, 1)
    print(
        f"{args.detector} detector, {args.frames} frames ({'harsh' if args.harsh else 'mixed'} conditions) "
        f"from seed {args.seed}: cards {required_total}"
    )
    print(f"recall {recall:.4f}, precision {precision:.4f}, frames with every card right {perfect / args.frames:.3f}")
    fit = np.array(fits)
    print(
        f"outline fit: mean IoU {fit.mean():.3f}; IoU >= 0.8 for {(fit >= 0.8).mean():.3f}, "
        f">= 0.9 for {(fit >= 0.9).mean():.3f} of the cards"
    )
    print(f"detector time per frame: median {statistics.median(times) * 1000:.1f} ms")
    print("misses by role/surface:", dict(misses.most_common(8)))


if __name__ == "__main__":
    main()
