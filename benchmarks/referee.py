"""Referee end to end: virtual rounds (2-6 players) filmed, scanned, tracked and refereed.

    python benchmarks/referee.py [--seeds 20] [--jobs 2] [--family F [--enrol [--shots N]]]
    python benchmarks/referee.py --flawless [--miss 0.1] [--before-t] [--seeds 60 --first 0]

Prints, over all rounds: moves inferred right without asking, moves asked (and right once the
referee answered), refusals (after one, the referee taps the move made, as on the dashboard),
wrong moves passed silently (the goal is none), rounds with exact scores, and the delay from the
table becoming still to the verdict. ``--family``: the deck is drawn in that art family
(``scanner/synth/families.py``, deck 1), which no network trained on; ``--enrol``: it is enrolled
first from one photo a label, as a user would (``--shots N``: from N photos a label, each
elsewhere in other light).

``--flawless``: move inference alone, on the table views as they are (no rendering, no
recognition), less the ones a camera misses (an arm over the table at the still moment): each
with ``--miss``'s chance, drawn with the round's seed, and with ``--before-t`` each one just
before a T! card is turned face down (the turn before then ends in the view where it turns).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

# benchmarks/scanner.py would shadow the scanner package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

_scanner = None


def _one(args: tuple[int, int, str | None, int, str | None, tuple[float, bool] | None]) -> dict:
    global _scanner
    from companion.referee.evaluate import evaluate_round
    from companion.referee.virtual import missed_views

    seed, players, family, deck_seed, profile, flawless = args
    if flawless is not None:  # no rendering, no scanner: the table views as they are, some missed
        chance, before_t = flawless
        views = partial(missed_views, chance=chance, before_t_turned=before_t, seed=seed)
        report = evaluate_round(seed, players, None, answer_with_truth=True, views=views)
    else:
        from scanner.scan import load_scanner
        from scanner.synth.families import deck

        if _scanner is None:
            _scanner = load_scanner(profile)
        style = deck(family, deck_seed) if family else None
        report = evaluate_round(seed, players, _scanner, answer_with_truth=True, style=style)
    out = report.as_json()
    out["latencies"] = report.latencies if flawless is None else []  # (views given are decided at once)
    out["silent"] = report.silent
    return out


def _enrolled(family: str, shots: int = 1, deck_seed: int = 1) -> str:
    """A profile of the family's deck ``deck_seed`` from ``shots`` photos a label (as benchmarks/families.py),
    a refused photo taken again as its message asks (``enrol_eval.enrol_photos``)."""
    import tempfile

    from scanner.read.profile import enrol_folder
    from scanner.scan import load_scanner
    from scanner.synth.families import deck
    from scanner.train.enrol_eval import enrol_photos

    folder = Path(tempfile.mkdtemp())
    scanner = load_scanner()
    retaken = enrol_photos(deck(family, deck_seed), folder, scanner.finder, shots=shots)
    report = enrol_folder(folder, scanner)
    path = folder / "profile.json"
    report.profile.save(path)
    print(
        f"enrolled {family} deck {deck_seed}: {report.used} photos ({retaken} taken again), "
        f"{len(report.refused)} refused, {report.seconds:.0f} s; the profile: {path}"
    )
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--family", help="draw the deck in this art family (scanner/synth/families.py)")
    parser.add_argument("--deck", type=int, default=1, help="with --family: which of its decks (its seed)")
    parser.add_argument("--enrol", action="store_true", help="enrol the family's deck first (one photo a label)")
    parser.add_argument("--shots", type=int, default=1, help="with --enrol: photos of each card to enrol from")
    parser.add_argument("--profile", help="scan with this deck profile (e.g. one --enrol made before)")
    parser.add_argument("--flawless", action="store_true", help="referee the table views as they are, not scanned")
    parser.add_argument("--miss", type=float, default=0.0, help="with --flawless: the chance a view is missed")
    parser.add_argument("--before-t", action="store_true", help="with --flawless: miss each view before a T! turned")
    args = parser.parse_args()
    if args.shots < 1:
        parser.error(f"--shots {args.shots}: give 1 or more photos of each card")
    if not 0 <= args.miss < 1:
        parser.error(f"--miss {args.miss}: give a chance from 0 up to (not including) 1")
    if (args.miss or args.before_t) and not args.flawless:
        parser.error("--miss and --before-t miss views of --flawless: give --flawless too")
    if args.deck < 1:
        parser.error(f"--deck {args.deck}: give a deck's seed, 1 or more")
    profile = _enrolled(args.family, args.shots, args.deck) if args.enrol and args.family else args.profile
    flawless = (args.miss, args.before_t) if args.flawless else None
    work = [(args.first + i, 2 + i % 5, args.family, args.deck, profile, flawless) for i in range(args.seeds)]
    with ProcessPoolExecutor(args.jobs) as pool:
        reports = list(pool.map(_one, work))
    moves = sum(r["moves"] for r in reports)
    right = sum(r["right"] for r in reports)
    asked = sum(r["asked"] for r in reports)
    answered = sum(r["answered_right"] for r in reports)
    silent = sum(r["wrong_silent"] for r in reports)
    missing = sum(r["missing"] for r in reports)
    refused = sum(r["refused"] for r in reports)
    tapped = sum(r["tapped"] for r in reports)
    undone = sum(r["undone"] for r in reports)
    rewritten = sum(r["rewritten"] for r in reports)
    fixed = [sum(r[key] for r in reports) for key in ("table_fixed", "target_fixed", "tweak_fixed")]
    exact = sum(r["scores_exact"] for r in reports)
    latencies = sorted(x for r in reports for x in r["latencies"])
    for r in reports:
        print(json.dumps({k: r[k] for k in r if k not in ("latencies", "silent")}))
    print(f"rounds: {len(reports)} (2-6 players), true moves: {moves}, frames: {sum(r['frames'] for r in reports)}")
    print(f"moves right without asking: {right} ({100 * right / moves:.2f} %)")
    print(f"moves asked: {asked} ({100 * asked / moves:.2f} %), right once answered or tapped: {answered}")
    print(
        f"refusals shown: {refused}; moves the referee tapped in (a refusal, or no right reading offered; "
        f"counted as asked): {tapped}; before tapping, table cards corrected: {fixed[0]}, targets set: {fixed[1]}, "
        f"T! cards won corrected: {fixed[2]}"
    )
    print(f"moves asked with no right reading, taken back as not made yet (the referee waits for them): {undone}")
    print(f"times the referee rewrote the round as played (a move tapped in did not fit even so): {rewritten}")
    print(f"moves right in the end (asked ones answered): {100 * (right + answered) / moves:.2f} % (goal >= 99 %)")
    print(f"wrong moves passed silently: {silent} (goal 0); moves never inferred: {missing}")
    unasked = [c for r in reports for c in r["silent"]]
    for low, high in ((0, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 0.99), (0.99, 1.01)):
        band = [ok for c, ok in unasked if low <= c < high]
        if band:
            print(f"  moves not asked, confidence {low:.2f}-{min(high, 1):.2f}: {len(band)}, wrong {band.count(False)}")
    reasons = Counter(reason for r in reports for reason, n in r["reasons"].items() for _ in range(n))
    for reason, n in reasons.most_common():
        print(f"  questions asked because {reason}: {n}")
    print(f"rounds with exact scores: {exact}/{len(reports)} ({100 * exact / len(reports):.0f} %, goal >= 95 %)")
    if latencies:
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        print(
            f"still -> verdict: median {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms, "
            f"max {latencies[-1]:.0f} ms (goal <= 300 ms)"
        )
    print(f"seconds per round: {statistics.mean(r['seconds'] for r in reports):.1f}")


if __name__ == "__main__":
    main()
