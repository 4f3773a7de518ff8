"""Train several classifier recipes on one set of rendered crops, side by side (a GPU's job).

Each variant is exactly a ``tweak train`` recipe (same data seed, scenes and options) with its own
epochs, batch, head or width, so the one that wins is reproduced by ``tweak train`` with those
options. The crops are rendered once, in ``--processes`` processes, and each variant trains in its
own process (several fit on one GPU at once: these networks are far too small to fill it).

    python benchmarks/classifier_variants.py --out /tmp/variants --scenes 8000 --coins \\
        --device cuda --processes 16 --variant a:epochs=30 --variant b:epochs=30,head=128

Writes ``OUT/NAME/card_classifier.onnx`` and ``.json`` (float models: ``tweak quantize classifier
--models OUT/NAME`` makes the 8-bit one) and prints each variant's log lines prefixed with its name.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANT_KEYS = {"epochs": int, "batch": int, "head": int, "width": float}


def parse_variant(text: str) -> tuple[str, dict]:
    """``name:epochs=30,head=128`` -> ("name", {"epochs": 30, "head": 128})."""
    name, _, rest = text.partition(":")
    if not name.isidentifier():
        raise SystemExit(f"--variant {text!r}: start with a name (letters, digits, _), then ':'")
    options: dict = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key not in VARIANT_KEYS:
            raise SystemExit(f"--variant {text!r}: {key!r} is not one of {', '.join(VARIANT_KEYS)}")
        try:
            options[key] = VARIANT_KEYS[key](value)
        except ValueError:
            raise SystemExit(f"--variant {text!r}: {key}={value!r} is not a number") from None
    return name, options


def _run_variant(name: str, options: dict, recipe: dict, crops_dir: str, out: str, threads: int) -> None:
    from scanner.train.classifier import train

    crops = tuple(np.load(Path(crops_dir) / f"{part}.npy", mmap_mode="r") for part in ("images", "labels", "flipped"))

    def log(line: str) -> None:
        print(f"[{name}] {line}", flush=True)

    train(Path(out) / name, **recipe, **options, processes=threads, crops=crops, log=log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scenes", type=int, default=8000)
    parser.add_argument("--harsh-share", type=float, default=0.6)
    parser.add_argument("--coins", action="store_true")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--processes", type=int, default=2, help="processes rendering the crops")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads of each variant's training")
    parser.add_argument(
        "--variant", action="append", required=True, help="NAME:key=value,... (epochs, batch, head, width)"
    )
    args = parser.parse_args(argv)
    variants = [parse_variant(v) for v in args.variant]
    from scanner.train.classifier import training_crops

    started = time.perf_counter()
    recipe = {"seed": args.seed, "scenes": args.scenes, "harsh_share": args.harsh_share, "coins": args.coins}
    images, labels, flipped = training_crops(**recipe, processes=args.processes)
    print(f"{len(labels)} crops rendered in {time.perf_counter() - started:.0f} s", flush=True)
    recipe["device"] = args.device
    with tempfile.TemporaryDirectory() as crops_dir:
        for part, array in (("images", images), ("labels", labels), ("flipped", flipped)):
            np.save(Path(crops_dir) / f"{part}.npy", array)
        del images
        # (spawned, not forked: a CUDA context does not survive a fork)
        context = multiprocessing.get_context("spawn")
        runs = [
            context.Process(target=_run_variant, args=(name, options, recipe, crops_dir, args.out, args.threads))
            for name, options in variants
        ]
        for run in runs:
            run.start()
        for run in runs:
            run.join()
    failed = [name for (name, _), run in zip(variants, runs) if run.exitcode != 0]
    print(f"all done in {time.perf_counter() - started:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
