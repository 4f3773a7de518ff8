"""Won-pile scoring on rendered pictures (issue: automatic end-of-round scoring).

    python benchmarks/scoring.py [--pictures 100] [--first 500000]

Prints the share of pictures whose points come out exact: spread piles of 1-24 cards (touching
allowed), fanned piles (each card overlapping the next, its corner index showing), and the time to
score a 24-card picture.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from scanner.piles import MIN_SCORE_CONFIDENCE, points_of, render_pile, score_labels  # noqa: E402
from scanner.scan import load_scanner  # noqa: E402


def run(scanner, pictures: int, fanned: bool, first: int, n: int | None = None) -> tuple[float, list[float]]:
    exact, times = 0, []
    for seed in range(first, first + pictures):
        image, labels = render_pile(seed, n=n, fanned=fanned)
        started = time.perf_counter()
        result = scanner.scan(image, pile=True)
        score = score_labels(c.label for c in result.cards if c.confidence >= MIN_SCORE_CONFIDENCE)
        times.append((time.perf_counter() - started) * 1000)
        exact += score.points == points_of(labels)
    return exact / pictures, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=int, default=100)
    parser.add_argument("--finder", help="another card finder model (ONNX) to measure")
    parser.add_argument("--first", type=int, default=500_000, help="first seed (other seeds: pictures not tuned on)")
    args = parser.parse_args()
    scanner = load_scanner()
    if args.finder:
        from scanner.find.segment import CardFinder

        scanner.finder = CardFinder(args.finder)
    share, _ = run(scanner, args.pictures, False, args.first)
    print(f"spread piles of 1-24 cards: exact points in {100 * share:.1f} % of {args.pictures} (goal >= 98 %)")
    share24, times = run(scanner, args.pictures // 2, False, args.first + 100_000, n=24)
    print(f"spread piles of 24 cards: exact points in {100 * share24:.1f} % of {args.pictures // 2}")
    median, worst = statistics.median(times), max(times)
    print(f"scoring a 24-card picture: median {median:.0f} ms, max {worst:.0f} ms (goal <= 100 ms)")
    fan, _ = run(scanner, args.pictures // 2, True, args.first + 200_000)
    print(f"fanned piles of 1-24 cards: exact points in {100 * fan:.1f} % of {args.pictures // 2} (stretch: 90 %)")


if __name__ == "__main__":
    main()
