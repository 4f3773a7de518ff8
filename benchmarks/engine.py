"""Engine benchmark (issue: rules engine): prints figures, asserts nothing.

    python benchmarks/engine.py

- simulated 4-player rounds per second on one core (goal >= 1,000), greedy and random bots;
- the sum finder's best sum on a 20-card table (goal <= 50 us), and listing every sum.
"""

from __future__ import annotations

import random
import time
import timeit

from companion.bots import make_policy
from companion.engine import Edition, Round, deal, default_colours
from companion.engine.cards import ALL_CARDS
from companion.engine.sums import all_sums, best_sum, count_vectors


def rounds_per_second(policy: str, seconds: float = 3.0) -> float:
    rng = random.Random(1)
    bot = make_policy(policy)
    names = ("A", "B", "C", "D")
    colours = default_colours(4)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        rnd = Round(names, rng.randrange(4), deal(4, colours, Edition.CLASSIC, rng))
        while rnd.to_move is not None:
            rnd.push(bot.choose(rnd, rng))
        done += 1
    return done / (time.perf_counter() - start)


def sum_finder_us(cold: bool) -> tuple[float, float]:
    rng = random.Random(2)
    tables = [rng.sample(list(ALL_CARDS) * 2, 20) for _ in range(200)]
    hands = [rng.choice(ALL_CARDS) for _ in range(200)]
    n = 0

    def best() -> None:
        nonlocal n
        if cold:
            count_vectors.cache_clear()
        best_sum(tables[n % 200], hands[n % 200], 10, joker=True)
        n += 1

    per_best = min(timeit.repeat(best, number=2000, repeat=3)) / 2000 * 1e6
    n = 0

    def every() -> None:
        nonlocal n
        all_sums(tables[n % 200], hands[n % 200], 10)
        n += 1

    per_all = min(timeit.repeat(every, number=200, repeat=3)) / 200 * 1e6
    return per_best, per_all


def main() -> None:
    for policy in ("greedy", "random", "mixed"):
        print(f"4-player rounds per second ({policy} bots, one core): {rounds_per_second(policy):,.0f}")
    warm_best, every = sum_finder_us(cold=False)
    cold_best, _ = sum_finder_us(cold=True)
    print(
        f"sum finder, best sum with Joker on a 20-card table: {warm_best:.1f} us (cache warm), "
        f"{cold_best:.1f} us (cache cleared each call)"
    )
    print(f"sum finder, listing every valid set on a 20-card table: {every:.1f} us")


if __name__ == "__main__":
    main()
