"""``tweak evaluate``: the card classifier measured on held-out renders (other seeds, the harshest
conditions), under warm and cool light, on the art style kept out of training, on not-a-card crops,
plus model size and speed on one core. ``--write`` stores the figures in the model's JSON and
regenerates ``models/MODEL_CARD.md``."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from scanner.core import MODELS_DIR
from scanner.labels import CLASSES, NOT_A_CARD
from scanner.read.classify import HALF_TURN_BELOW, MIN_CONFIDENCE, SECOND_OPINION_BELOW, CardClassifier
from scanner.train.dataset import CropSet, build

EVAL_SEED = 50_000_000  # far from the training seeds (1,000,000 + ...)
NONE = CLASSES.index(NOT_A_CARD)


def _accuracy(pred: np.ndarray, labels: np.ndarray) -> float:
    cards = labels != NONE
    return float((pred[cards] == labels[cards]).mean()) if cards.any() else float("nan")


def _predict(clf: CardClassifier, data: CropSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    probs, flipped = [], []
    for i in range(0, len(data), 256):
        p, f = clf.raw(data.images[i : i + 256])
        probs.append(p)
        flipped.append(f)
    p = np.concatenate(probs) if probs else np.zeros((0, len(CLASSES)))
    f = np.concatenate(flipped) if flipped else np.zeros(0)
    return p.argmax(axis=1), p.max(axis=1), f


def _first_confidence(clf: CardClassifier, data: CropSet) -> np.ndarray:
    """Each crop's confidence as first read, before any half-turned second reading."""
    batches = range(0, len(data), 256)
    return np.concatenate([clf._once(clf.preprocess(data.images[i : i + 256]))[0].max(axis=1) for i in batches])


def speed(clf: CardClassifier, crops: np.ndarray, repeats: int = 300) -> tuple[float, float]:
    """Median milliseconds per crop and per batch of 12 of ``crops`` (taken in turn), on one core
    (one onnxruntime thread). Unsure crops are read twice (``HALF_TURN_BELOW``), so the figure
    depends on the crops: real ones give the typical cost, noise (every crop unsure) the worst."""
    for _ in range(20):
        clf.raw(crops[:12])
    one, twelve = [], []
    for i in range(repeats):
        start = (i * 12) % max(len(crops) - 12, 1)
        t = time.perf_counter()
        clf.raw(crops[start : start + 1])
        one.append(time.perf_counter() - t)
        t = time.perf_counter()
        clf.raw(crops[start : start + 12])
        twelve.append(time.perf_counter() - t)
    return float(np.median(one) * 1000), float(np.median(twelve) * 1000)


def evaluate(model: Path, scenes: int = 300, write: bool = False, out: TextIO | None = None) -> dict[str, Any]:
    def say(text: str = "") -> None:
        if out is not None:
            print(text, file=out, flush=True)

    clf = CardClassifier(model, threads=1)
    say(f"model {model} ({model.stat().st_size / 1024:.0f} KiB), rendering held-out sets...")
    base = EVAL_SEED
    sets = {
        "harsh": build(range(base, base + scenes), harsh=True, processes=2),
        "warm": build(range(base + 100_000, base + 100_000 + scenes // 2), harsh=True, light="warm", processes=2),
        "cool": build(range(base + 200_000, base + 200_000 + scenes // 2), harsh=True, light="cool", processes=2),
        "heldout_style": build(
            range(base + 300_000, base + 300_000 + scenes), harsh=True, heldout_style=True, processes=2
        ),
    }
    metrics: dict[str, Any] = {"scenes_per_set": scenes, "min_confidence": MIN_CONFIDENCE}
    results = {}
    for name, data in sets.items():
        pred, conf, flip = _predict(clf, data)
        results[name] = (data, pred, conf, flip)
        cards = data.labels != NONE
        metrics[name] = {
            "cards": int(cards.sum()),
            "accuracy": round(_accuracy(pred, data.labels), 5),
            "accepted_correct": round(float(((pred == data.labels) & (conf >= MIN_CONFIDENCE))[cards].mean()), 5),
            "orientation": round(float(((flip > 0.5) == data.flipped.astype(bool))[cards].mean()), 5),
        }
        say(
            f"{name:>14}: {cards.sum():5d} cards, accuracy {metrics[name]['accuracy']:.4f} "
            f"(accepted and right {metrics[name]['accepted_correct']:.4f}), orientation "
            f"{metrics[name]['orientation']:.4f}"
        )
    # not-a-card crops, all sets together: accepted as a confident card?
    neg_pred = np.concatenate([r[1][r[0].labels == NONE] for r in results.values()])
    neg_conf = np.concatenate([r[2][r[0].labels == NONE] for r in results.values()])
    accepted = (neg_pred != NONE) & (neg_conf >= MIN_CONFIDENCE)
    metrics["not_a_card"] = {"crops": int(len(neg_pred)), "accepted_as_card": round(float(accepted.mean()), 5)}
    say(f"{'not-a-card':>14}: {len(neg_pred)} crops, accepted as a card {accepted.mean():.4f}")
    if clf.second_opinion is not None:
        # the same sets read by the first network alone: what the second opinion adds
        alone = CardClassifier(model, threads=1, second_opinion=None)
        first: dict[str, Any] = {}
        for name, data in sets.items():
            pred_alone = _predict(alone, data)[0]
            first[name] = round(_accuracy(pred_alone, data.labels), 5)
        first_reading = _first_confidence(alone, sets["harsh"])
        metrics["second_opinion"] = {
            "model": _within_models(clf.second_opinion, model.parent),
            "seed": json.loads(clf.second_opinion.with_suffix(".json").read_text()).get("training", {}).get("seed"),
            "below": SECOND_OPINION_BELOW,
            "read_by_both": round(float((first_reading < SECOND_OPINION_BELOW).mean()), 4),
            "first_alone_accuracy": first,
        }
        say(
            f"second opinion {metrics['second_opinion']['model']} on "
            f"{metrics['second_opinion']['read_by_both']:.1%} of the harsh crops; the first network alone: "
            + ", ".join(f"{name} {value:.4f}" for name, value in first.items())
        )
    # per class and confusions on the harsh training-style set
    data, pred, conf, _ = results["harsh"]
    per_class = {}
    for index, label in enumerate(CLASSES):
        mask = data.labels == index
        if mask.any():
            per_class[label] = round(float((pred[mask] == index).mean()), 4)
    metrics["per_class"] = per_class
    confusions = Counter((CLASSES[t], CLASSES[p]) for t, p in zip(data.labels, pred) if t != p)
    metrics["top_confusions"] = [{"true": t, "predicted": p, "count": n} for (t, p), n in confusions.most_common(10)]
    say("per-class accuracy (harsh set): " + ", ".join(f"{k} {v:.3f}" for k, v in per_class.items()))
    say("top confusions: " + (", ".join(f"{t}->{p} x{n}" for (t, p), n in confusions.most_common(10)) or "none"))
    one, twelve = speed(clf, data.images)
    noise = np.random.default_rng(0).integers(0, 255, (12, clf.size[1], clf.size[0], 3), np.uint8)
    _, worst = speed(clf, noise, repeats=100)
    first_reading = _first_confidence(clf, data)
    read_twice = float((first_reading < HALF_TURN_BELOW).mean())
    metrics["size_kib"] = round(model.stat().st_size / 1024, 1)
    metrics["ms_per_crop"] = round(one, 3)
    metrics["ms_per_batch_12"] = round(twelve, 3)
    metrics["ms_per_batch_12_all_unsure"] = round(worst, 3)
    metrics["read_twice"] = round(read_twice, 4)
    say(
        f"size {metrics['size_kib']} KiB; on the harsh set's crops {one:.3f} ms per crop, {twelve:.3f} ms per "
        f"batch of 12 (one core; {read_twice:.1%} of crops read twice); {worst:.3f} ms per batch of 12 when "
        "every crop is unsure"
    )
    if write:
        meta_path = model.with_suffix(".json")
        meta = json.loads(meta_path.read_text())
        meta["metrics"] = metrics
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        source = meta.get("quantized", {}).get("source")
        float_meta = json.loads((model.parent / source).with_suffix(".json").read_text()) if source else None
        (model.parent / "MODEL_CARD.md").write_text(model_card(meta, float_meta))
        say(f"wrote metrics to {meta_path} and {model.parent / 'MODEL_CARD.md'}")
    return metrics


def fine_tuning(training: dict[str, Any]) -> str:
    """The model card's account of the fine-tuning rounds in ``training`` (none: nothing)."""
    lines = []
    for f in training.get("fine_tuned", []):
        share = f["harsh_scenes"] / f["scenes"]
        mining, mined, varied = "", "", ""
        if f.get("varied_scenes"):
            mining += f" --varied-share {f['varied_scenes'] / f['scenes']:g}"
            dark = f.get("varied_dark", 0)
            mining += f" --varied-dark {dark:g}" if dark else ""
            mining += " --varied-backs" if f.get("varied_backs") else ""
            wide_backs = f.get("varied_wide_backs", 0)
            mining += f" --varied-wide-backs {wide_backs:g}" if wide_backs else ""
            varied = (
                f" {f['varied_scenes']} more scenes (half harsh) had their number cards each drawn a new way\n"
                f"(`synth.varied`: {len(f.get('typefaces', []))} typefaces, numerals, pips, plates, grounds"
                f"{f', {dark:.0%} of them on a near-black ground' if dark else ''}"
                f"{', backs drawn anew too' if f.get('varied_backs') else ''}"
                f"{f', {wide_backs:.0%} of backs and T! backs the wider way' if wide_backs else ''}), "
                "with parts of cards as not-a-card crops."
            )
        if f.get("hard_repeat"):
            mining += f" --hard-below {f['hard_below']:g} --hard-repeat {f['hard_repeat']}"
            mined = (
                f" The {f['hard']} crops the network\nit started from gave under {f['hard_below']:g} to their true "
                f"label were shown {f['hard_repeat'] + 1} times an epoch."
            )
        # (a round that started from another folder's network names it)
        start = f.get("from")
        start = start if start is None or Path(start).is_absolute() else f"models/{start}"
        folders = f"`--from {start}`, `--out`" if start else "`--from` and `--out`"
        lines.append(
            f"Then `tweak fine-tune --seed {f['seed']} --scenes {f['scenes']} --harsh-share {share:g} "
            f"--epochs {f['epochs']} --lr {f['max_lr']:g}{mining}`\n({folders} this model's folder) trained "
            f"it further on scenes it had not seen: {f['scenes']} plus\n{f['harsh_scenes']} harsh ones from seed "
            f"{f['first_scene']:,} ({f['crops']} crops), its batch norms held, peak learning rate\n"
            f"{f['max_lr']:g}; {f['seconds']} s on 2 CPU cores. Deterministic from the network it started from and "
            f"the seed.{varied}{mined}"
        )
    return "".join(f"\n\n{line}" for line in lines)


def label_priors(meta: dict[str, Any]) -> str:
    """The model card's account of the label priors ``tweak calibrate`` fitted (none: nothing)."""
    c = meta.get("calibration")
    if not c:
        return ""
    kept = ", ".join(f"{colour} {bias:+g}" for colour, bias in c["colours"].items()) or "none kept"
    command = (
        f"tweak calibrate --seed {c['seed']} --scenes {c['scenes']} --harsh-share {c['harsh_scenes'] / c['scenes']:g}"
    )
    scenes = f"{c['scenes']} plus {c['harsh_scenes']} harsh scenes from seed {c['first_scene']:,} ({c['crops']} crops"
    return f"""

## Label priors

`{command}` read the crops of
{scenes}; scenes no shipped network was
trained on) as the scanner reads them and fitted one log-prior a colour, added to its six labels
(`scanner/calibrate.py`), kept only where one fitted on either half of the crops lowers the
errors on the other half: {kept} ({c["errors_before"]} -> {c["errors_after"]} crops read wrong). The
networks call yellow too often on hard crops (orange and washed-out cards under warm light and
glare). The scanner multiplies every combined reading by these priors (`label_bias` in this
model's meta); the metrics below include them. A retrained or re-quantized model needs
`tweak calibrate` again."""


def _within_models(path: Path, beside: Path) -> str:
    """``path`` as a model card names it: within the shipped models' folder (or the folder of the
    model it is beside, when elsewhere); else as given."""
    for folder in (MODELS_DIR, beside):
        if path.resolve().is_relative_to(folder.resolve()):
            return path.resolve().relative_to(folder.resolve()).as_posix()
    return str(path)


def _fine_tuned(model: Path) -> bool:
    """Whether the network ``model`` (an 8-bit file or a float one) was fine-tuned after training."""
    try:
        meta = json.loads(model.with_suffix(".json").read_text())
        if source := meta.get("quantized", {}).get("source"):
            meta = json.loads((model.parent / source).with_suffix(".json").read_text())
    except (OSError, ValueError):
        return False
    return bool(meta.get("training", {}).get("fine_tuned"))


def model_card(meta: dict[str, Any], float_meta: dict[str, Any] | None = None) -> str:
    """The classifier's model card; ``float_meta``: the trained float model's metadata, when
    ``meta`` is its 8-bit version's (the one the scanner runs)."""
    m = meta["metrics"]
    t = meta["training"]
    device = t.get("device", "cpu")
    device_option = "" if device == "cpu" else f" --device {device}"
    device_note = "" if device == "cpu" else f", but for --device {device}: the CPU gives other bytes"
    defaults = f"the defaults{device_note}" if t.get("coins") else "the recipe before --coins was the default"
    second_note = ""
    if t.get("seed", 0) != 0:  # (the second opinion: the shipped recipe from another seed)
        defaults = f"the shipped recipe but for the seed{device_note}"
        second_note = (
            "\n\nThis network is the classifier's second opinion: the scanner asks it about the crops the first\n"
            'network reads unsurely (`models/MODEL_CARD.md`, "Two networks"); the figures below are its own.'
        )
    varied = t.get("varied_scenes", 0)
    varied_option = f" --varied-share {varied / t['scenes']:g}" if varied else ""
    varied_option += f" --varied-dark {t['varied_dark']:g}" if t.get("varied_dark") else ""
    varied_option += " --varied-backs" if t.get("varied_backs") else ""
    varied_option += f" --varied-wide-backs {t['varied_wide_backs']:g}" if t.get("varied_wide_backs") else ""
    if varied:  # (the any-deck network: models/any_deck/)
        defaults = f"the shipped recipe with fewer scenes, and cards drawn anew{device_note}"
        second_note = (
            "\n\nThis network reads a deck that has no profile (`Scanner.any_deck`): it was trained on number cards\n"
            "drawn anew in every scene as well as this project's art, and on parts of cards as not-a-card, so it\n"
            "reads other decks' faces better. A deck profile is learned on the first network's features\n"
            "(`models/MODEL_CARD.md`); the figures below are this network's with its second opinion."
        )
    where = "on 2 CPU cores" if device == "cpu" else "of training on a CUDA GPU"
    varied_text = (
        f" and {varied} scenes (half harsh) whose number cards are each drawn anew in one of "
        f"{len(t.get('typefaces', []))} typefaces, with parts of cards as not-a-card in every scene"
        if varied
        else ""
    )
    harsh_text = f"{t['harsh_scenes']} harsh ones{varied_text}"
    coins_option = "" if t.get("coins") else " --no-coins"
    coins_note = ", not-a-card crops on the coins on the table among them" if t.get("coins") else ""
    q = meta.get("quantized")
    name = "card_classifier.int8.onnx" if q else "card_classifier.onnx"
    runtime = ""
    if q:
        cal = q["calibration"]
        runtime = f"""

## Run-time model: 8 bits

The scanner runs `{name}`, made from the trained float model `{q["source"]}`
by `tweak quantize` (onnxruntime static quantization, {q["format"]};
activation ranges by {q["method"]} calibration on the crops of {cal["scenes"]} rendered scenes from seed
{cal["seed"]}). Same labels, inputs and outputs; about 2x faster on CPUs with integer dot products
(x86 VNNI, the Raspberry Pi 5's Cortex-A76). The metrics below are the 8-bit model's""" + (
            f"; the float model's on\nthe same sets: harsh accuracy {fm['harsh']['accuracy']:.4f}, heldout style "
            f"{fm['heldout_style']['accuracy']:.4f}, {fm['ms_per_batch_12']} ms per batch of 12."
            if float_meta and (fm := float_meta.get("metrics"))
            else "."
        )
    if so := m.get("second_opinion"):
        alone = so["first_alone_accuracy"]
        if varied:  # (the any-deck network's second opinion is another recipe's: its own meta says)
            so_tuned = ", then fine-tuned on fresh scenes" if _fine_tuned(MODELS_DIR / so["model"]) else ""
        else:
            so_tuned = ", then fine-tuned likewise on fresh scenes of its own" if t.get("fine_tuned") else ""
        recipe = (
            "the shipped first network's second opinion, trained on this project's art only"
            if varied
            else "the same recipe trained from another seed"
        )
        runtime += f"""

## Two networks

A second network, `{so["model"]}` ({recipe}:
`tweak train --seed {so.get("seed")} --out models/{Path(so["model"]).parent.as_posix()}`{so_tuned}, 8 bits too; its own
model card lies beside it), reads every crop the first reads less surely than {so["below"]}
({so["read_by_both"]:.1%} of the harsh set's crops, whose corners are jittered as a finder's are) and the
two readings are averaged: two networks
trained apart seldom make the same mistake on a hard crop. The metrics below are the pair's; the
first network alone on the same sets: harsh {alone["harsh"]:.4f}, warm {alone["warm"]:.4f}, cool
{alone["cool"]:.4f}, heldout style {alone["heldout_style"]:.4f}."""
    runtime += label_priors(meta)
    rows = "\n".join(f"| {k} | {v:.3f} |" for k, v in m["per_class"].items())
    conf = (
        "\n".join(f"| {c['true']} | {c['predicted']} | {c['count']} |" for c in m["top_confusions"]) or "| - | - | - |"
    )
    return (
        f"""# Model card: `{name}` (version {meta["version"]})

Names the card in a crop of a camera frame: 46 TWEAK labels (DESIGN.md) plus `none` (not a card),
and whether the crop shows the card upside down (so corners can be reported from the printed
top-left). Run with onnxruntime; no PyTorch at run time.{second_note}{runtime}

## Input and output

- Input `crops`: N x 3 x {meta["input"]["height"]} x {meta["input"]["width"]}, BGR, value/255, minus mean
  {meta["input"]["mean"]}, divided by std {meta["input"]["std"]}. A crop is the card's quadrilateral grown by
  8 % about its centre and warped to portrait (`scanner/crops.py: card_crop`).
- Output `logits`: N x {len(meta["labels"])} class scores (softmax); `orientation`: N x 2 (upright, upside down);
  `embedding`: N x 96, the features the scores are computed from (deck profiles, `tweak enrol`).
- A prediction under {m["min_confidence"]} confidence is treated as not recognised.

## Data

No photo of a real TWEAK deck exists: every image is rendered by `scanner/synth/` — cards in
random art styles (fonts, numeral size and position, corner indices, bordered, banded or full-colour
faces, colour shades, patterns) on virtual tables (wood, felt, cloth, gingham, the printed mat,
dark tables) seen by a tilted, rotated camera with lens distortion, warm and cool light, gradients,
shadows, glare, blur, noise, JPEG and a hand over the table. Crops use slightly wrong corners, as a
detector finds them, half of them upside down; not-a-card crops come from the bare table, coins,
mat markers, hands and quads half on a card.

One complete art style is never used in training: the Hershey triplex and script fonts, the
"numeral in a circle" layout and gold-numeral backs (`HELDOUT_*` in `scanner/synth/cards.py`).

## Training

`tweak train --seed {t["seed"]} --scenes {t["scenes"]} --harsh-share {t["harsh_scenes"] / t["scenes"]:g}
--epochs {t["epochs"]}{coins_option}{varied_option}{device_option}` ({defaults}): {t["scenes"]} scenes
plus {harsh_text} ({t["crops"]} crops{coins_note}), a 7-layer CNN (about 200k parameters),
AdamW with one-cycle learning rate, class-balanced loss with label smoothing, brightness/contrast
jitter; {t["seconds"]} s {where}.
Deterministic from the seed on a given device.{fine_tuning(t)}

## Metrics (`tweak evaluate`, {m["scenes_per_set"]} held-out scenes per set, harshest conditions)

| set | cards | accuracy | accepted and right | orientation |
|---|---|---|---|---|
"""
        + "\n".join(
            f"| {name} | {m[name]['cards']} | {m[name]['accuracy']:.4f} | {m[name]['accepted_correct']:.4f} | "
            f"{m[name]['orientation']:.4f} |"
            for name in ("harsh", "warm", "cool", "heldout_style")
        )
        + f"""

Not-a-card crops accepted as a card: {m["not_a_card"]["accepted_as_card"]:.4f} of {m["not_a_card"]["crops"]}.

Size {m["size_kib"]} KiB; on the harsh set's crops {m["ms_per_crop"]} ms per crop and {m["ms_per_batch_12"]} ms
per batch of 12 on one core of the development machine (onnxruntime, one thread). A crop read less
surely than {HALF_TURN_BELOW} is read again turned half a turn and the readings averaged
({m["read_twice"]:.1%} of the harsh set's crops); when every crop of a batch is unsure (noise) a batch of 12
takes {m["ms_per_batch_12_all_unsure"]} ms.

### Per class (harsh set)

| label | accuracy |
|---|---|
{rows}

### Top confusions (harsh set)

| true | predicted | count |
|---|---|---|
{conf}

## Known limits

- Trained on renders only: real inks, gloss and paper texture are unknown. Enrol the real deck
  (`tweak enrol`) to adapt recognition to it.
- Colour under strong tinted light relies on the white balance seen in training (2700-7000 K);
  the scanner's mat colour reference helps beyond that.
- Cards covered by more than a quarter (a hand) are not in the training data: the tracker waits
  for a still, clear table instead.
"""
    )
