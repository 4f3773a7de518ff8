"""Deck enrolment on the held-out art style (issue: deck enrolment).

    python benchmarks/enrol.py [--decks 3] [--scenes 40]

For each deck (one held-out style), prints per-card accuracy zero-shot and with profiles from 1
and 3 photos per label, and the time `tweak enrol` takes for 46 labels (one core: run with
OMP_NUM_THREADS=1 taskset -c 0 for the strict figure).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from scanner.scan import load_scanner  # noqa: E402
from scanner.train.enrol_eval import evaluate_deck  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=3)
    parser.add_argument("--scenes", type=int, default=40)
    args = parser.parse_args()
    scanner = load_scanner()
    results = [evaluate_deck(scanner, deck, args.scenes) for deck in range(1, args.decks + 1)]
    cards = sum(r["cards"] for r in results)

    def mean(key: str) -> float:
        return sum(r[key] * r["cards"] for r in results) / cards

    print(f"held-out style, {len(results)} decks, {cards} card crops from rendered tables:")
    print(f"  zero-shot (no profile): {100 * mean('zero_shot'):.2f} %")
    print(f"  1 photo per label:      {100 * mean('photos_1'):.2f} % (goal >= 99 %)")
    print(f"  3 photos per label:     {100 * mean('photos_3'):.2f} % (goal >= 99.5 %)")
    seconds = [r["enrol_seconds_3"] for r in results]
    print(f"  enrolment of 46 labels x 3 photos: {statistics.median(seconds):.1f} s median (goal <= 60 s)")


if __name__ == "__main__":
    main()
