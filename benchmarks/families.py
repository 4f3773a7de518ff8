"""Unseen art: the scanner on decks of art families nobody trained on (issue: recognise any deck).

    python benchmarks/families.py [--families pips,texture,...] [--tables 40] [--deck 1] [--first SEED] [--clutter]
        [--few] [--zoom Z] [--enrol-zoom Z] [--no-enrol] [--no-retake | --retakes N] [--ignore-advice] [--shots N]
        [--laid-out N]
        [--leave-out N] [--finder PATH] [--only KINDS] [--pictures]

For each family (``scanner/synth/families.py``: tuning families first, then the families kept for
checking), one deck is drawn; it is enrolled from one photo per label (a card anywhere on a table,
everyday light; a photo enrolment refuses or advises against (``profile.photo_advice``: the card
burnt white by glare) is taken again, up to twice (``--retakes N``: N times), as a user would, unless
``--no-retake``; ``--ignore-advice``: only refused photos) and its tables (1-16 centre cards plus deck, T! pile and won
piles; mixed light) are scanned zero-shot and with the profile. Prints card recall and precision
(IoU 0.5, required cards: complete, at most a quarter hidden), labels right of the cards found,
frames all right, the enrolment's time and the scan's median time a frame. ``--clutter``: things
that are not cards lie on the tables too (``scanner/synth/clutter.py``); the cards found on them are
counted by kind. ``--few``: tables of 1-4 centre cards and nothing else (no deck, no piles; seeds
from 42,000,000). ``--zoom Z``: the camera Z times closer than one framing the table (cards Z times
as long: another camera height or lens). ``--enrol-zoom Z``: the enrolment photos taken Z times
closer (a person photographing each card close, the card nearer the photo's middle). ``--shots N``:
N photos of each card to enrol from, each elsewhere in other light (the first taken again where
refused, the others kept as taken). ``--no-enrol``: zero-shot only. ``--laid-out N``: the deck
enrolled from N photos of each of the two sheets of the standard layout (``scanner.read.layout``:
the cards laid out in rows) instead of one photo a card (a sheet's photo whose rows do not match its
list is laid and taken again, up to twice, unless ``--no-retake``). ``--leave-out N``: N faces
enrolled without a photo (a partly enrolled deck: each colour and each value left out as evenly as N
allows, ``left_out``); how often those faces are read right is printed too.
``--only KINDS``: only the photos of these kinds of card enrolled (``scanner.labels.label_kind``:
faces, backs, tweak, special; e.g. ``--only tweak``, the five T! cards' photos): the other kinds
are read by the any-deck network's word (``DeckProfile.network_word``).
``--pictures``: each table scanned as a picture apart, as ``tweak scan`` does (every card asked
for a T! name or its print read, none left to a camera's next frame: ``load_scanner(pictures=True)``).
``--finder PATH``: another card finder (an ``.onnx`` file ``tweak fine-tune-finder`` wrote) in
place of the shipped one.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from scanner.labels import COLOURS, FACES, KINDS, LABELS, label_kind  # noqa: E402
from scanner.metrics import expected_cards, match  # noqa: E402
from scanner.read.profile import enrol_folder  # noqa: E402
from scanner.scan import load_scanner  # noqa: E402
from scanner.synth.families import CHECK_FAMILIES, TUNING_FAMILIES, deck  # noqa: E402
from scanner.synth.table import draw_scene, random_conditions, random_scene, render_table  # noqa: E402
from scanner.train.enrol_eval import enrol_layout_photos, enrol_photos  # noqa: E402


def score(scanner, tables, watched: frozenset[str] = frozenset()) -> dict[str, float]:
    """The scan's figures on ``tables``; ``watched``: labels whose found cards' reading is counted apart."""
    required = found = right = total = false = frames_right = watched_found = watched_right = 0
    times = []
    on_clutter: Counter = Counter()  # false cards, by the thing they lie on
    for rendered in tables:
        req, opt = expected_cards(rendered.truth)
        started = time.perf_counter()
        cards = scanner.scan(rendered.image).cards
        times.append(time.perf_counter() - started)
        quads = [c.corners for c in cards]
        pairs = match([np.array(c["corners"]) for c in req], quads)
        used = {j for _, j in pairs}
        rest = [j for j in range(len(quads)) if j not in used]
        opt_pairs = match([np.array(c["corners"]) for c in opt], [quads[j] for j in rest])
        ok = sum(cards[j].label == req[i]["label"] for i, j in pairs)
        watched_found += sum(req[i]["label"] in watched for i, _ in pairs)
        watched_right += sum(req[i]["label"] in watched and cards[j].label == req[i]["label"] for i, j in pairs)
        fp = len(rest) - len(opt_pairs)
        matched_opt = {rest[j] for _, j in opt_pairs}
        for j in rest:
            if j not in matched_opt:
                on_clutter[_lies_on(rendered.truth, quads[j])] += 1
        required += len(req)
        found += len(pairs)
        right += ok
        total += len(quads) - len(opt_pairs)
        false += fp
        frames_right += len(pairs) == len(req) and ok == len(pairs) and fp == 0
    return {
        "recall": found / max(required, 1),
        "precision": (total - false) / max(total, 1),
        "labels": right / max(found, 1),
        "frames": frames_right / max(len(tables), 1),
        "watched": watched_right / max(watched_found, 1),
        "watched_found": watched_found,
        "ms": 1000 * statistics.median(times),
        "false": dict(on_clutter),
    }


def _lies_on(truth: dict, quad) -> str:
    """What a false card lies on: the kind of the thing under its middle, or "table"."""
    middle = np.asarray(quad, np.float32).reshape(4, 2).mean(axis=0)
    for item in truth.get("clutter", []):
        polygon = np.asarray(item["corners"], np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(polygon, (float(middle[0]), float(middle[1])), False) >= 0:
            return item["kind"]
    return "table"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join(TUNING_FAMILIES + CHECK_FAMILIES))
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--deck", type=int, default=1)
    parser.add_argument("--first", type=int, default=40_000_000)
    parser.add_argument("--detector", choices=("auto", "classical", "learned"), default="auto")
    parser.add_argument("--clutter", action="store_true", help="things that are not cards on the tables too")
    parser.add_argument("--few", action="store_true", help="tables of 1-4 centre cards and nothing else")
    parser.add_argument("--zoom", type=float, default=1.0, help="the camera this many times closer (cards longer)")
    parser.add_argument("--enrol-zoom", type=float, default=1.0, help="enrolment photos this many times closer")
    parser.add_argument("--no-enrol", action="store_true", help="zero-shot only")
    parser.add_argument("--no-retake", action="store_true", help="keep the first photo of each label, even refused")
    parser.add_argument("--retakes", type=int, default=2, help="times a refused photo is taken again")
    parser.add_argument("--ignore-advice", action="store_true", help="retake refused photos only")
    parser.add_argument("--shots", type=int, default=1, help="photos of each card to enrol from")
    parser.add_argument("--leave-out", type=int, default=0, help="N faces enrolled without a photo")
    parser.add_argument("--finder", help="another card finder's .onnx file")
    parser.add_argument("--only", help="enrol only these kinds of card (comma list of faces, backs, tweak, special)")
    parser.add_argument(
        "--laid-out", type=int, default=0, help="enrol from N photos of each laid-out sheet instead of one photo a card"
    )
    parser.add_argument("--pictures", action="store_true", help="each table scanned as a picture apart (tweak scan)")
    args = parser.parse_args()
    if args.retakes < 0:
        parser.error(f"--retakes {args.retakes}: give 0 or more")
    if args.zoom <= 0 or args.enrol_zoom <= 0:
        parser.error(f"--zoom {args.zoom}, --enrol-zoom {args.enrol_zoom}: give factors above 0 (1: as rendered)")
    if args.shots < 1:
        parser.error(f"--shots {args.shots}: give 1 or more photos of each card")
    if args.laid_out < 0:
        parser.error(f"--laid-out {args.laid_out}: give 1 or more photos of each sheet (0: one photo a card)")
    if not 0 <= args.leave_out <= len(FACES):
        parser.error(f"--leave-out {args.leave_out}: give 0 to {len(FACES)} faces")
    only = None if args.only is None else args.only.split(",")
    if only is not None and (not only or set(only) - set(KINDS)):
        parser.error(f"--only {args.only}: give kinds of card among {', '.join(KINDS)}")
    if args.finder and not Path(args.finder).is_file():
        parser.error(f"--finder {args.finder}: no such file (a card_finder .onnx file)")
    cv2.setNumThreads(1)
    scanner = load_scanner(detector=args.detector, pictures=args.pictures)
    if args.finder:
        from scanner.find.segment import CardFinder

        scanner.finder = CardFinder(args.finder)
    clutter = ", clutter" if args.clutter else ""
    first = FEW_FIRST if args.few else args.first
    shown = ", 1-4 cards alone" if args.few else clutter
    shown += f", zoom {args.zoom:g}" if args.zoom != 1.0 else ""
    shown += f", enrolment photos at zoom {args.enrol_zoom:g}" if args.enrol_zoom != 1.0 else ""
    shown += f", finder {args.finder}" if args.finder else ""
    shown += f", {args.shots} photos a card" if args.shots != 1 else ""
    shown += f", enrolled from {args.laid_out} photos of each laid-out sheet" if args.laid_out else ""
    shown += f", {args.leave_out} faces without a photo" if args.leave_out else ""
    shown += f", only the {args.only} photos enrolled" if only else ""
    shown += ", pictures apart" if args.pictures else ""
    print(f"{args.tables} tables a family from seed {first}, deck {args.deck}, detector {args.detector}{shown}")
    print("family     kind    | zero-shot: recall precision labels frames | enrolled: recall precision labels frames")
    for family in args.families.split(","):
        d = deck(family, args.deck)
        if args.few:
            tables = [few_cards_table(FEW_FIRST + i, d, args.zoom) for i in range(args.tables)]
        else:
            tables = [
                render_table(args.first + i, style=d, clutter=args.clutter, zoom=args.zoom) for i in range(args.tables)
            ]
        zero = score(scanner, tables, frozenset(left_out(args.leave_out)))
        kind = "tuning" if family in TUNING_FAMILIES else "check"
        if args.no_enrol:
            print(
                f"{family:10s} {kind:7s} | {zero['recall']:.4f} {zero['precision']:.4f} {zero['labels']:.4f} "
                f"{zero['frames']:.3f} | scan {zero['ms']:.0f} ms"
            )
            continue
        retakes = 0 if args.no_retake else args.retakes
        with tempfile.TemporaryDirectory() as tmp:
            if args.laid_out:
                retaken = enrol_layout_photos(
                    d, Path(tmp), args.deck, args.laid_out, None if args.no_retake else scanner, retakes
                )
            else:
                retaken = enrol_photos(
                    d,
                    Path(tmp),
                    scanner.finder,
                    args.deck,
                    retakes,
                    args.shots,
                    args.enrol_zoom,
                    not args.ignore_advice,
                )
            for label in left_out(args.leave_out):
                shutil.rmtree(Path(tmp) / label, ignore_errors=True)
            for label in LABELS if only else ():
                if label_kind(label) not in only:
                    shutil.rmtree(Path(tmp) / label, ignore_errors=True)
            report = enrol_folder(Path(tmp), scanner)
        scanner.profile = report.profile
        enrolled = score(scanner, tables, frozenset(left_out(args.leave_out)))
        scanner.profile = None
        print(
            f"{family:10s} {kind:7s} | {zero['recall']:.4f} {zero['precision']:.4f} {zero['labels']:.4f} "
            f"{zero['frames']:.3f} | {enrolled['recall']:.4f} {enrolled['precision']:.4f} {enrolled['labels']:.4f} "
            f"{enrolled['frames']:.3f} | enrol {report.seconds:.1f} s, {report.used} photos, "
            f"{retaken} taken again, {len(report.refused)} refused; scan {zero['ms']:.0f} / {enrolled['ms']:.0f} ms"
        )
        if args.leave_out:
            print(
                f"{'':18s} | faces without a photo read right: zero-shot {zero['watched']:.4f}, "
                f"enrolled {enrolled['watched']:.4f} ({enrolled['watched_found']} found)"
            )
        if args.clutter:
            false = f"zero-shot {_kinds(zero['false'])} | enrolled {_kinds(enrolled['false'])}"
            print(f"{'':18s} | false cards on: {false}")


FEW_FIRST = 42_000_000


def left_out(n: int) -> list[str]:
    """``n`` faces, each colour and each value as evenly left out as ``n`` allows (a Latin square).

    >>> left_out(7)
    ['red-1', 'orange-2', 'yellow-3', 'green-4', 'blue-5', 'purple-6', 'red-4']
    >>> len(set(left_out(36)))
    36
    """
    shifts = (0, 3, 1, 4, 2, 5)
    return [f"{COLOURS[k % 6]}-{(k % 6 + shifts[k // 6]) % 6 + 1}" for k in range(n)]


def few_cards_table(seed: int, style, zoom: float = 1.0):
    """A table with 1-4 centre cards and nothing else: the deck, the T! pile and the won piles
    taken away (a photo of a few cards, where no other card tells a card's size)."""
    rng = random.Random(seed)
    scene = random_scene(rng, n_centre=rng.randint(1, 4))
    scene.cards = [card for card in scene.cards if card.role == "centre"]
    return draw_scene(scene, replace(random_conditions(rng), zoom=zoom), style, rng, seed)


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"


if __name__ == "__main__":
    main()
