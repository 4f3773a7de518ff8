"""How sure an enrolled deck's readings may be taken: the bar behind ``AdaptSettings.sure_confidence``.

    python benchmarks/profile_confidence.py [--families pips,texture] [--tables 40] [--deck 1]

For each art family (``scanner/synth/families.py``), its deck is enrolled from one photo a label
(as ``benchmarks/families.py``), then every complete card of its tables is cut at its true outline
and read with the profile. Prints, for confidence bars, the share of readings at or above the bar
and how many of those were wrong. The referee asks about a move that uses a reading under the bar,
so the bar is chosen where the *tuning* families (pips, texture) show no wrong reading above it,
then checked on the other families, which it was not chosen on.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from scanner.geometry.crops import card_crop  # noqa: E402
from scanner.labels import LABELS  # noqa: E402
from scanner.metrics import expected_cards  # noqa: E402
from scanner.read.adapt import SETTINGS  # noqa: E402
from scanner.read.profile import enrol_folder  # noqa: E402
from scanner.scan import load_scanner  # noqa: E402
from scanner.synth.families import TUNING_FAMILIES, deck  # noqa: E402
from scanner.synth.table import render_table  # noqa: E402
from scanner.train.enrol_eval import card_photo  # noqa: E402

BARS = (0.6, 0.9, 0.99, 0.995, 0.999, 0.9995, 0.9999)


def readings(family: str, tables: int, deck_seed: int, first: int, scanner) -> list[tuple[bool, float]]:
    """(right, confidence) of each complete card of the family's tables, read by its profile."""
    d = deck(family, deck_seed)
    with tempfile.TemporaryDirectory() as tmp:
        for k, label in enumerate(LABELS):
            (Path(tmp) / label).mkdir()
            photo = card_photo(label, d, 7_000_000 + 100 * deck_seed + k)
            cv2.imwrite(str(Path(tmp) / label / "0.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
        profile = enrol_folder(Path(tmp), scanner).profile
    classifier = scanner.classifier
    out = []
    for i in range(tables):
        table = render_table(first + i, style=d)
        required, _ = expected_cards(table.truth)
        crops = [card_crop(table.image, np.array(c["corners"], np.float32), classifier.margin) for c in required]
        if not crops:
            continue
        probs, _ = profile.probabilities(classifier, crops, scanner.any_deck)
        for card, p in zip(required, probs):
            best = int(p.argmax())
            out.append((classifier.labels[best] == card["label"], float(p[best])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join(TUNING_FAMILIES))
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--deck", type=int, default=1)
    parser.add_argument("--first", type=int, default=40_000_000)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    scanner = load_scanner()
    print(f"shipped bar (AdaptSettings.sure_confidence): {SETTINGS.sure_confidence}")
    for family in args.families.split(","):
        rows = readings(family, args.tables, args.deck, args.first, scanner)
        right = np.array([r for r, _ in rows])
        conf = np.array([c for _, c in rows])
        kind = "tuning" if family in TUNING_FAMILIES else "check"
        print(f"{family} ({kind}): {len(rows)} cards, read right {right.mean():.4f}")
        for bar in BARS:
            kept = conf >= bar
            print(f"  >= {bar}: {kept.mean():.3f} of readings, wrong {int((~right[kept]).sum())} of {int(kept.sum())}")


if __name__ == "__main__":
    main()
