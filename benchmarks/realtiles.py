"""Real photographs: outlines and the enrolled reader on real Rummikub tiles (issue: recognise any deck).

    python benchmarks/realtiles.py [--data DIR] [--shots 1,3] [--draws 3] [--seed 0] [--no-outlines] [--no-scan]
                                   [--no-photos]

``DIR`` (default ``../shared/realdata/realcards/rummikub_tiles``, not part of the project) holds
230 phone photos of real tiles: cream tiles with a coloured numeral, on wood, stone, a rug, in
racks; ``labels_ours.json`` names each tile (red, orange and blue 1-6 are TWEAK labels, the rest
``other``). Tiles are not cards, but they are real print under real light: what the enrolled
reader must learn from a few photos.

- **Outlines**: the classical outline finder (``detect.detect_cards``, art-blind) on every photo:
  tile recall and precision at IoU 0.5 (any tile), and outlines on the photos with no tile.
- **Enrolled reader**: a deck is enrolled from ``shots`` tiles of each of the 18 labels, cut from
  photos of the ``train`` split drawn with ``--seed`` (as ``tweak enrol`` learns a card: the flat
  tile at its outline, ``profile.enrol_cards``); every labelled tile of the photos no enrolment
  tile came from is then read at its true outline as the scanner cuts it. Prints labels right,
  colour right and value right, the shipped network's reading (zero-shot) of the same crops, and
  how many tiles of no TWEAK label (7-13, black, jokers) are read surely as one (at the profile's
  doubt bar). With 28 labels unenrolled, the shipped network's opinion of them caps every
  confidence: "sure" for the tiles of the 18 labels is taken among those labels (a deck of only
  these), and the other tiles are counted both ways.
- **Enrolment photos**: ``profile.single_card`` (as ``tweak enrol`` finds a photo's card) on every
  photo of exactly one tile: outlined at the tile (IoU 0.8 or more), outlined elsewhere (a card
  learned wrongly, silently), or refused with a message (the user takes it again).
- **Whole scan**: ``Scanner.scan`` on the 21 photos whose tiles are all TWEAK labels
  (``scorer_in_vocab``; its image files are path stubs, so each photo is read from the path its
  JSON names), zero-shot and enrolled from 1 tile a label of other photos: recall, precision
  (IoU 0.5), labels right, photos exact.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from scanner.find.detect import detect_cards  # noqa: E402
from scanner.geometry.crops import card_crop, order_portrait  # noqa: E402
from scanner.metrics import match  # noqa: E402
from scanner.read.adapt import card_image  # noqa: E402
from scanner.read.profile import TURNED, enrol_cards  # noqa: E402
from scanner.scan import load_scanner  # noqa: E402

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "realdata" / "realcards" / "rummikub_tiles"


def load(folder: Path) -> dict[str, dict]:
    labels = folder / "labels_ours.json"
    if not labels.is_file():
        raise SystemExit(f"{labels}: not found (the real tile photos live outside the project: --data DIR)")
    return json.loads(labels.read_text())


def outlines(folder: Path, photos: dict[str, dict]) -> None:
    tiles = found = quads = false = 0
    empty_photos = empty_false = 0
    times = []
    for name, entry in photos.items():
        frame = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        started = time.perf_counter()
        found_quads = [d.corners for d in detect_cards(frame)]
        times.append(time.perf_counter() - started)
        truth = [np.array(t["corners"], np.float32) for t in entry["tiles"]]
        if not truth:
            empty_photos += 1
            empty_false += len(found_quads)
            continue
        pairs = match(truth, found_quads)
        tiles += len(truth)
        found += len(pairs)
        quads += len(found_quads)
        false += len(found_quads) - len(pairs)
    print(
        f"outlines (detect_cards): {tiles} tiles in {len(photos) - empty_photos} photos: recall "
        f"{found / max(tiles, 1):.3f}, precision {(quads - false) / max(quads, 1):.3f}; "
        f"{empty_false} outlines on {empty_photos} photos with no tile; "
        f"{1000 * statistics.median(times):.0f} ms a photo"
    )


def tiles_of(folder: Path, photos: dict[str, dict], names: list[str]):
    """(label, flat tile image, scanner's crop) of every tile in the named photos."""
    for name in names:
        frame = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        for tile in photos[name]["tiles"]:
            yield tile["label"], frame, order_portrait(np.array(tile["corners"], np.float32))


def reader(
    folder: Path, photos: dict[str, dict], shots: int, draw: int, scanner, only: list[str] | None = None
) -> dict[str, float]:
    """The enrolled reader's figures for one enrolment (``draw``) of ``shots`` tiles a label (of
    every TWEAK label the tiles show, or ``only`` these; tiles of the others count as other)."""
    rng = random.Random(draw)
    ours = sorted({t["label"] for e in photos.values() for t in e["tiles"] if t["label"] != "other"})
    ours = [label for label in ours if only is None or label in only]
    train = sorted(n for n in photos if n.startswith("train/"))
    where: dict[str, list[tuple[str, int]]] = {label: [] for label in ours}
    for name in train:
        for k, tile in enumerate(photos[name]["tiles"]):
            if tile["label"] in where:
                where[tile["label"]].append((name, k))
    cards: dict[str, list[np.ndarray]] = {}
    used: set[str] = set()
    for label in ours:
        for name, k in rng.sample(where[label], shots):
            frame = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
            corners = order_portrait(np.array(photos[name]["tiles"][k]["corners"], np.float32))
            cards.setdefault(label, []).append(card_image(frame, corners))
            used.add(name)
    started = time.perf_counter()
    profile = enrol_cards(scanner.classifier, cards, "rummikub", second=scanner.any_deck)
    seconds = time.perf_counter() - started
    rest = sorted(n for n in photos if n not in used)
    truth, crops = [], []
    for label, frame, corners in tiles_of(folder, photos, rest):
        truth.append(label if label in ours else "other")
        crops.append(card_crop(frame, corners, scanner.classifier.margin))
    read, zero = [], []
    for start in range(0, len(crops), 256):
        batch = crops[start : start + 256]
        read += profile.classify(scanner.classifier, batch, scanner.any_deck)
        zero += scanner.classifier.classify(batch)
    # the reading's confidence as a deck of only these 18 labels would give it: with labels left
    # unenrolled, the shipped network's opinion of them caps every reading's confidence
    columns = [scanner.classifier.labels.index(c) for c in profile.classes if not c.endswith(TURNED)]
    within = [float(p.probabilities[p.probabilities.argmax()] / p.probabilities[columns].sum()) for p in read]
    mine = [i for i, t in enumerate(truth) if t != "other"]
    other = [i for i, t in enumerate(truth) if t == "other"]

    def share(ok) -> float:
        return sum(bool(ok(i)) for i in mine) / max(len(mine), 1)

    return {
        "tiles": len(mine),
        "labels": share(lambda i: read[i].label == truth[i]),
        "colour": share(lambda i: read[i].label.split("-")[0] == truth[i].split("-")[0]),
        "value": share(lambda i: read[i].label.split("-")[-1] == truth[i].split("-")[-1]),
        "sure_right": share(lambda i: read[i].label == truth[i] and within[i] >= profile.doubt_below),
        "sure_wrong": share(lambda i: read[i].label != truth[i] and within[i] >= profile.doubt_below),
        "zero_shot": share(lambda i: zero[i].label == truth[i]),
        "others": len(other),
        "others_sure": sum(read[i].label in ours and read[i].confidence >= profile.doubt_below for i in other)
        / max(len(other), 1),
        "others_sure_within": sum(read[i].label in ours and within[i] >= profile.doubt_below for i in other)
        / max(len(other), 1),
        "seconds": seconds,
    }


def whole_scan(folder: Path, photos: dict[str, dict], scanner, seed: int) -> None:
    """``Scanner.scan`` on the photos whose tiles are all TWEAK labels (``scorer_in_vocab``: each
    scene's JSON names its photo), zero-shot and with a deck enrolled from 1 tile a label of other
    ``train`` photos."""
    scenes = sorted((folder / "scorer_in_vocab").glob("*.json"))
    if not scenes:
        print(f"whole scan: no scene in {folder / 'scorer_in_vocab'}")
        return
    truths = [json.loads(p.read_text()) for p in scenes]
    sources = [t["source"].split()[1].rstrip(";") for t in truths]
    rng = random.Random(seed)
    cards: dict[str, list[np.ndarray]] = {}
    for label in sorted({c["label"] for e in photos.values() for c in e["tiles"] if c["label"] != "other"}):
        choices = [
            (name, tile)
            for name in sorted(photos)
            if name.startswith("train/") and name not in sources
            for tile in photos[name]["tiles"]
            if tile["label"] == label
        ]
        name, tile = rng.choice(choices)
        frame = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        cards[label] = [card_image(frame, order_portrait(np.array(tile["corners"], np.float32)))]
    profile = enrol_cards(scanner.classifier, cards, "rummikub", second=scanner.any_deck)
    frames = [cv2.imread(str(folder / source), cv2.IMREAD_COLOR) for source in sources]
    for name, deck in (("zero-shot", None), ("enrolled, 1 tile a label", profile)):
        scanner.profile = deck
        tiles = found = right = reported = exact = 0
        for truth, frame in zip(truths, frames):
            wanted = truth["cards"]
            got = scanner.scan(frame).cards
            pairs = match([np.array(c["corners"], np.float32) for c in wanted], [np.asarray(c.corners) for c in got])
            ok = sum(got[j].label == wanted[i]["label"] for i, j in pairs)
            tiles, found, right, reported = tiles + len(wanted), found + len(pairs), right + ok, reported + len(got)
            exact += len(pairs) == len(wanted) == len(got) == ok
        print(
            f"whole scan, {len(scenes)} photos of TWEAK-label tiles only ({tiles} tiles), {name}: recall "
            f"{found / tiles:.3f}, precision {found / max(reported, 1):.3f}, labels {right / max(found, 1):.3f}, "
            f"photos exact {exact}"
        )
    scanner.profile = None


def enrolment_photos(folder: Path, photos: dict[str, dict], scanner) -> None:
    """``single_card`` on each photo of one tile: right, wrong or refused."""
    from scanner.metrics import quad_iou
    from scanner.read.profile import single_card

    right = wrong = refused = 0
    for name, entry in sorted(photos.items()):
        if len(entry["tiles"]) != 1:
            continue
        tile = np.array(entry["tiles"][0]["corners"], np.float32)
        corners, _ = single_card(cv2.imread(str(folder / name), cv2.IMREAD_COLOR), scanner.finder)
        if corners is None:
            refused += 1
        elif quad_iou(corners, tile) >= 0.8:
            right += 1
        else:
            wrong += 1
    print(
        f"enrolment photos of one tile ({right + wrong + refused}): outlined at the tile {right}, "
        f"elsewhere {wrong}, refused with a message {refused}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--shots", default="1,3", help="enrolment tiles a label, comma-separated")
    parser.add_argument("--draws", type=int, default=3, help="enrolments drawn for each number of shots")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-outlines", action="store_true")
    parser.add_argument("--no-scan", action="store_true", help="leave out the whole scan of scorer_in_vocab")
    parser.add_argument("--no-photos", action="store_true", help="leave out the enrolment photos' outlines")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    photos = load(args.data)
    if not args.no_outlines:
        outlines(args.data, photos)
    scanner = load_scanner()
    if not args.no_photos:
        enrolment_photos(args.data, photos, scanner)
    if not args.no_scan:
        whole_scan(args.data, photos, scanner, args.seed)
    for shots in (int(s) for s in args.shots.split(",")):
        results = [reader(args.data, photos, shots, args.seed + d, scanner) for d in range(args.draws)]

        def mean(key: str, rows=results) -> float:
            return statistics.mean(r[key] for r in rows)

        print(
            f"{shots} tile(s) a label, {args.draws} draws, {results[0]['tiles']} tiles read: "
            f"labels {mean('labels'):.3f} "
            f"(colour {mean('colour'):.3f}, value {mean('value'):.3f}; sure and right {mean('sure_right'):.3f}, "
            f"sure and wrong {mean('sure_wrong'):.3f}) | zero-shot {mean('zero_shot'):.3f} | "
            f"{results[0]['others']} other tiles read surely as a TWEAK label: {mean('others_sure'):.3f} "
            f"(among the 18 labels only: {mean('others_sure_within'):.3f}) | "
            f"enrolment {mean('seconds'):.0f} s"
        )
        print("   draws' labels:", " ".join(f"{r['labels']:.3f}" for r in results))


if __name__ == "__main__":
    main()
