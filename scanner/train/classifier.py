"""``tweak train``: render crops, train the small card classifier with PyTorch, export ONNX.

Needs the optional ``train`` extra (``pip install -e '.[train]'``); the runtime never imports
torch. Deterministic from ``--seed`` on a given device (data, initialisation, batch order; torch
runs with deterministic algorithms on the CPU and on a CUDA GPU). The CPU and a GPU compute in a
different order, so the same recipe gives a model as good but not the same bytes on each.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from scanner.geometry.crops import CROP_H, CROP_MARGIN, CROP_W, STRETCH_PERCENTILES, stretch_contrast
from scanner.labels import CLASSES
from scanner.synth.varied import typefaces
from scanner.train.dataset import CropSet, build

MODEL_VERSION = 1
MEAN = [0.5, 0.5, 0.5]
STD = [0.25, 0.25, 0.25]
TRAIN_SEED_BASE = 1_000_000  # training scenes: seed*TRAIN_SEED_BASE-free range, far from evaluation seeds
# fine-tuning's fresh scenes: FINE_TUNE_SEED_BASE + seed * FINE_TUNE_STRIDE on, apart from the training
# scenes of any recipe seed below 400 (1,000,000 + seed * 8,000 * 1.6), evaluation (50,000,000),
# calibration (70,000,000) and the benchmark (90,000,000)
FINE_TUNE_SEED_BASE = 5_000_000
FINE_TUNE_STRIDE = 100_000


def require_torch():
    try:
        import torch  # noqa: F401
    except ModuleNotFoundError:
        raise SystemExit("tweak train needs PyTorch: pip install -e '.[train]' (the CPU wheel torch==2.13.0)") from None
    import torch

    return torch


def make_model(torch, head: int = 96, width: float = 1.0, pool_by_mean: bool = False):
    """The classifier network; ``head`` is the width of its last blocks (the embedding's size),
    ``width`` scales the channels of the blocks before them. ``pool_by_mean`` averages the last
    features with a plain mean, the same numbers as the pooling layer, whose backward pass has no
    deterministic CUDA version."""
    nn = torch.nn

    class GlobalMean(nn.Module):
        def forward(self, x):
            return x.mean((2, 3), keepdim=True)

    c1, c2, c3 = (max(8, round(c * width)) for c in (16, 32, 64))

    def block(cin: int, cout: int, stride: int) -> list:
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    class CardNet(nn.Module):
        """A small CNN: 64x48 BGR crop -> 47 classes (46 labels + not-a-card) and upside-down."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                *block(3, c1, 1),
                *block(c1, c2, 2),
                *block(c2, c2, 1),
                *block(c2, c3, 2),
                *block(c3, c3, 1),
                *block(c3, head, 2),
                *block(head, head, 1),
                GlobalMean() if pool_by_mean else nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.classes = nn.Linear(head, len(CLASSES))
            self.orientation = nn.Linear(head, 2)

        def forward(self, x):
            f = self.features(x)
            return self.classes(f), self.orientation(f)

    return CardNet()


def smoothed_cross_entropy(torch, logits, target, weights, smoothing: float):
    """``CrossEntropyLoss(weight=weights, label_smoothing=smoothing)`` written out as plain tensor
    arithmetic: CUDA has no deterministic NLLLoss, which the library's loss is built on."""
    log_p = torch.log_softmax(logits, 1)
    n_classes = logits.shape[1]
    # (scattered, not F.one_hot: that one checks the labels' range, a read-back on a GPU)
    one_hot = torch.zeros_like(log_p).scatter_(1, target[:, None], 1.0)
    w_target = weights[target]
    nll = -(log_p * one_hot).sum(1) * w_target
    smooth = -(log_p * weights).sum(1) / n_classes
    return ((1 - smoothing) * nll + smoothing * smooth).sum() / w_target.sum()


def to_tensor(torch, images: np.ndarray):
    x = torch.from_numpy(images).float().permute(0, 3, 1, 2) / 255.0
    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - mean) / std


def training_crops(
    seed: int = 0,
    scenes: int = 8000,
    harsh_share: float = 0.6,
    coins: bool = False,
    stretch: bool = False,
    processes: int = 2,
    log=print,
    first: int | None = None,
    varied_share: float = 0.0,
    varied_dark: float = 0.0,
    varied_backs: bool = False,
    varied_wide_backs: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The recipe's training crops: (images, labels, flipped), deterministic from the seed (the
    scenes from seed ``first`` on when given: fine-tuning's fresh scenes). ``varied_share``: that
    many more scenes a scene (half of them harsh) whose number cards are each drawn anew
    (``synth.varied``), after the others' seeds; ``varied_dark`` of those cards on a near-black ground;
    ``varied_backs``: their backs drawn anew too, ``varied_wide_backs`` of their backs and T! backs the
    wider way (``synth.varied``)."""
    if first is None:
        first = TRAIN_SEED_BASE + seed * scenes
    # (a fine-tuning round for other decks' art shows parts of cards as not-a-card in every scene)
    kinds = {"processes": processes, "coins": coins, "parts": varied_share > 0}
    log(f"rendering {scenes} training scenes (seeds {first}..{first + scenes - 1})...")
    data: CropSet = build(range(first, first + scenes), harsh=False, **kinds)
    # a share of the scenes again under the harshest conditions
    n_harsh = round(scenes * harsh_share)
    harsh = build(range(first + scenes, first + scenes + n_harsh), harsh=True, **kinds)
    sets = [data, harsh]
    n_varied = round(scenes * varied_share)
    if n_varied:
        start = first + scenes + n_harsh
        log(f"rendering {n_varied} scenes of varied number cards (seeds {start}..{start + n_varied - 1})...")
        half = n_varied // 2
        drawn = {
            "varied": True,
            "varied_dark": varied_dark,
            "varied_backs": varied_backs,
            "varied_wide_backs": varied_wide_backs,
        }
        sets.append(build(range(start, start + half), harsh=False, **drawn, **kinds))
        sets.append(build(range(start + half, start + n_varied), harsh=True, **drawn, **kinds))
    images = np.concatenate([p.images for p in sets])
    labels = np.concatenate([p.labels for p in sets])
    flipped = np.concatenate([p.flipped for p in sets])
    if stretch:  # the crops as the scanner will give them to this model (classify.CardClassifier.preprocess)
        images = np.concatenate([stretch_contrast(images[i : i + 4096]) for i in range(0, len(images), 4096)])
    return images, labels, flipped


def train(
    out_dir: Path,
    seed: int = 0,
    scenes: int = 8000,
    epochs: int = 16,
    batch: int = 128,
    processes: int = 2,
    harsh_share: float = 0.6,
    head: int = 96,
    coins: bool = False,
    stretch: bool = False,
    width: float = 1.0,
    device: str = "cpu",
    crops: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    log=print,
    varied_share: float = 0.0,
    varied_dark: float = 0.0,
    varied_backs: bool = False,
    varied_wide_backs: float = 0.0,
) -> dict[str, Any]:
    """Train the recipe and write ``card_classifier.onnx`` and its meta to ``out_dir``. ``crops``,
    when given, must be ``training_crops`` of the same recipe (rendered once for several runs).
    ``varied_share``: scenes of number cards each drawn anew, a scene, with parts of cards as
    not-a-card in every scene (``training_crops``): a network for decks of other art; ``varied_dark``
    of their number cards on a near-black ground, ``varied_backs``: their backs drawn anew too,
    ``varied_wide_backs`` of their backs and T! backs the wider way (``synth.varied``)."""
    torch = require_torch()
    if device != "cpu":
        # cuBLAS is deterministic only with a fixed workspace, set before its first use
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.backends.cudnn.benchmark = False
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(processes)
    started = time.perf_counter()
    n_harsh = round(scenes * harsh_share)
    if crops is None:
        crops = training_crops(
            seed,
            scenes,
            harsh_share,
            coins,
            stretch,
            processes,
            log,
            varied_share=varied_share,
            varied_dark=varied_dark,
            varied_backs=varied_backs,
            varied_wide_backs=varied_wide_backs,
        )
    labels = crops[1]
    log(f"{len(labels)} crops in {time.perf_counter() - started:.0f} s; training on {device}...")
    model = make_model(torch, head, width, pool_by_mean=device != "cpu").to(device)
    fit(torch, model, crops, epochs, batch, 3e-3, seed, device, started, log=log)
    onnx_path = export(torch, model, out_dir)
    meta = {
        "version": MODEL_VERSION,
        "labels": list(CLASSES),
        "not_a_card": "none",
        "input": {
            "width": CROP_W,
            "height": CROP_H,
            "channels": "BGR",
            "layout": "NCHW",
            "scale": 1 / 255,
            "mean": MEAN,
            "std": STD,
            "margin": CROP_MARGIN,
            **({"stretch": list(STRETCH_PERCENTILES)} if stretch else {}),
        },
        "outputs": {
            "logits": "class scores (softmax)",
            "orientation": "[upright, upside down] scores",
            "embedding": "the features the scores are computed from (deck profiles, tweak enrol)",
        },
        "training": {
            "seed": seed,
            "scenes": scenes,
            "harsh_scenes": n_harsh,
            "head": head,
            **({"width": width} if width != 1.0 else {}),
            **({"device": device} if device != "cpu" else {}),
            **({"coins": True} if coins else {}),  # (the shipped recipe predates the option)
            **({"stretch": True} if stretch else {}),
            **(
                _varied_recipe(scenes, varied_share, varied_dark, varied_backs, varied_wide_backs)
                if varied_share
                else {}
            ),
            "crops": int(len(labels)),
            "epochs": epochs,
            "batch": batch,
            "seconds": round(time.perf_counter() - started),
        },
    }
    return _write_meta(meta, onnx_path, started, log)


def _write_meta(meta: dict[str, Any], onnx_path: Path, started: float, log) -> dict[str, Any]:
    """Write ``meta`` beside the model it describes (``card_classifier.json``) and say so."""
    onnx_path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    return meta


def onnx_convolutions(path: Path, not_ours: ValueError) -> tuple[dict[str, np.ndarray], list]:
    """The initializers of the ONNX file at ``path`` by name, and each convolution's (weight, bias)
    in graph order; ``not_ours`` is raised for a file that is not ONNX or has a convolution
    without both."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except Exception as error:  # (protobuf's DecodeError and kin: not an ONNX file at all)
        raise not_ours from error
    weights = {t.name: np.array(numpy_helper.to_array(t)) for t in graph.initializer}
    # (the exporter stores equal tensors once, e.g. the zero biases of an untrained network, and
    # names the others by Identity nodes)
    for node in graph.node:
        if node.op_type == "Identity" and node.input[0] in weights:
            weights[node.output[0]] = weights[node.input[0]]
    try:
        return weights, [(weights[n.input[1]], weights[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    except (KeyError, IndexError) as error:
        raise not_ours from error


def hold_folded_norm(torch, norm, bias: np.ndarray) -> None:
    """Make ``norm`` pass its input on plus ``bias``: the exporter folded the trained norm into the
    convolution before it (mean 0, variance 1 - eps, scale 1; held while fine-tuning)."""
    norm.weight.fill_(1.0)
    norm.bias.copy_(torch.from_numpy(bias))
    norm.running_mean.zero_()
    norm.running_var.fill_(1.0 - norm.eps)


def load_classifier(torch, path: Path):
    """The float classifier ONNX file at ``path`` as a PyTorch network of ``make_model``'s shape,
    reading as the file does. The file's convolutions carry their batch norms folded in, so each
    norm here passes its input on plus the folded bias (mean 0, variance 1 - eps, scale 1): train
    it with ``fit(..., frozen_norms=True)``.

    >>> import torch
    >>> net = load_classifier(torch, Path("models/card_classifier.onnx"))  # doctest: +SKIP
    """
    not_ours = ValueError(f"{path}: not a float card classifier as `tweak train` writes one")
    weights, convs = onnx_convolutions(path, not_ours)
    try:
        heads = {name: (weights[f"{name}.weight"], weights[f"{name}.bias"]) for name in ("classes", "orientation")}
        model = make_model(torch, head=convs[-1][0].shape[0], width=convs[0][0].shape[0] / 16)
    except (KeyError, IndexError) as error:  # (no convolutions, or no class scores)
        raise not_ours from error
    layers = [m for m in model.features if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.features if isinstance(m, torch.nn.BatchNorm2d)]
    shapes = [tuple(c.weight.shape) for c in layers] + [tuple(getattr(model, n).weight.shape) for n in heads]
    if shapes != [w.shape for w, _ in convs] + [w.shape for w, _ in heads.values()]:
        raise not_ours
    with torch.no_grad():
        for layer, norm, (w, b) in zip(layers, norms, convs):
            layer.weight.copy_(torch.from_numpy(w))
            hold_folded_norm(torch, norm, b)
        for name, (w, b) in heads.items():
            getattr(model, name).weight.copy_(torch.from_numpy(w))
            getattr(model, name).bias.copy_(torch.from_numpy(b))
    return model.eval()


def fine_tune(
    out_dir: Path,
    base: Path,
    seed: int = 0,
    scenes: int = 4000,
    harsh_share: float = 1.0,
    epochs: int = 4,
    max_lr: float = 1e-3,
    batch: int = 128,
    processes: int = 2,
    crops: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    log=print,
    hard_below: float = 0.0,
    hard_repeat: int = 0,
    varied_share: float = 0.0,
    varied_dark: float = 0.0,
    varied_backs: bool = False,
    varied_wide_backs: float = 0.0,
) -> dict[str, Any]:
    """Train the float classifier ``base`` (a ``card_classifier.onnx``) further on fresh scenes,
    never shown to it, and write the result with its meta to ``out_dir``: more data for a fraction
    of a whole run's time. Deterministic from the base file and ``seed`` (on the CPU).

    ``hard_below``, ``hard_repeat``: the fresh crops the base network gives under ``hard_below`` to
    their true label (its wrong and unsure readings) are shown ``hard_repeat`` times more each
    epoch, so the few hard crops (glare, washed-out numerals) weigh more than the many it already
    reads well. ``varied_share``: scenes of number cards each drawn anew, a scene
    (``training_crops``): for reading decks of other art, ``varied_dark`` of their number cards on a
    near-black ground, ``varied_backs``: their backs drawn anew too, ``varied_wide_backs`` of their
    backs and T! backs the wider way (``synth.varied``)."""
    torch = require_torch()
    meta_path = base.with_suffix(".json")
    base_meta = json.loads(meta_path.read_text())
    missing = [field for field in ("training", "input") if field not in base_meta]
    if missing:
        raise ValueError(
            f"{meta_path}: no {' or '.join(repr(f) for f in missing)} field (not a meta `tweak train` wrote)"
        )
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(processes)
    started = time.perf_counter()
    recipe = base_meta["training"]
    stretch = "stretch" in base_meta["input"]
    first = FINE_TUNE_SEED_BASE + seed * FINE_TUNE_STRIDE
    model = load_classifier(torch, base)  # (before rendering: a file of another shape fails at once)
    if crops is None:
        crops = training_crops(
            seed,
            scenes,
            harsh_share,
            recipe.get("coins", False),
            stretch,
            processes,
            log,
            first=first,
            varied_share=varied_share,
            varied_dark=varied_dark,
            varied_backs=varied_backs,
            varied_wide_backs=varied_wide_backs,
        )
    fresh = len(crops[1])
    log(f"{fresh} crops in {time.perf_counter() - started:.0f} s; fine-tuning {base}...")
    hard = hard_crops(torch, model, crops, hard_below) if hard_repeat > 0 else np.zeros(0, np.int64)
    if len(hard):
        log(f"{len(hard)} crops read under {hard_below:g} by the base network: shown {hard_repeat + 1} times")
        every = np.concatenate([np.arange(fresh), *[hard] * hard_repeat])
        crops = (crops[0][every], crops[1][every], crops[2][every])
    fit(torch, model, crops, epochs, batch, max_lr, seed, "cpu", started, frozen_norms=True, log=log)
    onnx_path = export(torch, model, out_dir)
    mining = {"hard_below": hard_below, "hard_repeat": hard_repeat, "hard": int(len(hard))} if hard_repeat > 0 else {}
    meta = {
        **{k: v for k, v in base_meta.items() if k != "metrics"},  # (the base's metrics are not the new one's)
        "training": {
            **recipe,
            # (a list: a fine-tuned network can be fine-tuned again)
            "fine_tuned": [
                *recipe.get("fine_tuned", []),
                {
                    "seed": seed,
                    # (the network it started from, where that is another folder than the result's)
                    **({"from": _folder_name(base.parent)} if base.parent.resolve() != out_dir.resolve() else {}),
                    "first_scene": first,
                    "scenes": scenes,
                    "harsh_scenes": round(scenes * harsh_share),
                    "crops": fresh,
                    **mining,
                    **(
                        _varied_recipe(scenes, varied_share, varied_dark, varied_backs, varied_wide_backs)
                        if varied_share
                        else {}
                    ),
                    "epochs": epochs,
                    "max_lr": max_lr,
                    "batch": batch,
                    "seconds": round(time.perf_counter() - started),
                },
            ],
        },
    }
    return _write_meta(meta, onnx_path, started, log)


def _folder_name(folder: Path) -> str:
    """``folder`` within the shipped models' folder (``second_opinion``), else as given."""
    from scanner.core import MODELS_DIR

    within = folder.resolve().is_relative_to(MODELS_DIR.resolve())
    return folder.resolve().relative_to(MODELS_DIR.resolve()).as_posix() if within else str(folder)


def _varied_recipe(
    scenes: int, varied_share: float, varied_dark: float, varied_backs: bool, varied_wide_backs: float = 0.0
) -> dict[str, Any]:
    """The meta's record of the varied scenes (the dark share and the backs only where asked for:
    the networks trained before the options drew neither)."""
    return {
        "varied_scenes": round(scenes * varied_share),
        **({"varied_dark": varied_dark} if varied_dark else {}),
        **({"varied_backs": True} if varied_backs else {}),
        **({"varied_wide_backs": varied_wide_backs} if varied_wide_backs else {}),
        "typefaces": [Path(f).name for f in typefaces()],
    }


def hard_crops(torch, model, crops: tuple[np.ndarray, np.ndarray, np.ndarray], below: float) -> np.ndarray:
    """The indices of ``crops`` that ``model`` gives under ``below`` to their true label
    (``hard_crops(torch, model, crops, 0.8)``: the ones it reads wrong or unsure)."""
    images, labels, _ = crops
    model.eval()
    truth = []
    with torch.no_grad():
        for i in range(0, len(labels), 4096):
            scores = torch.softmax(model(to_tensor(torch, np.array(images[i : i + 4096])))[0], 1)
            truth.append(scores[torch.arange(len(scores)), torch.from_numpy(np.asarray(labels[i : i + 4096]))].numpy())
    return np.flatnonzero(np.concatenate(truth) < below) if truth else np.zeros(0, np.int64)


def fit(
    torch,
    model,
    crops: tuple[np.ndarray, np.ndarray, np.ndarray],
    epochs: int,
    batch: int,
    max_lr: float,
    seed: int,
    device: str,
    started: float,
    frozen_norms: bool = False,
    log=print,
) -> None:
    """Train ``model`` on ``crops`` in place: AdamW under a one-cycle rate peaking at ``max_lr``,
    brightness and contrast jitter per crop, the class loss (weighted, smoothed) and the
    upside-down loss. ``frozen_norms`` leaves the batch norms as they are (fine-tuning a network
    read back from ONNX, whose norms were folded into its convolutions)."""
    images, labels, flipped = crops
    counts = np.bincount(labels, minlength=len(CLASSES)).astype(np.float32)
    weights = torch.tensor((counts.max() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    on_cpu = device == "cpu"
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * ((len(labels) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.15)
    ce = torch.nn.CrossEntropyLoss(weight=weights.to(device), label_smoothing=0.05)
    ce_orient = torch.nn.CrossEntropyLoss()
    gen = np.random.default_rng(seed)
    # (in slices: the whole set as floats at once would take 4 bytes a pixel twice over)
    slices = range(0, len(labels), 8192)
    x_all = torch.cat([to_tensor(torch, np.array(images[i : i + 8192])).to(device) for i in slices])
    y_all = torch.from_numpy(np.asarray(labels)).to(device)
    o_all = torch.from_numpy(np.asarray(flipped)).to(device)
    is_card = y_all != CLASSES.index("none")
    for epoch in range(epochs):
        model.train()
        if frozen_norms:
            for module in model.modules():
                if isinstance(module, torch.nn.BatchNorm2d):
                    module.eval()
        order = torch.from_numpy(gen.permutation(len(labels))).to(device)
        # (summed on the device: reading a number back each step would stall a GPU)
        total, correct, loss_sum = 0, torch.zeros((), device=device), torch.zeros((), device=device)
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            x = x_all[idx]
            # photometric jitter per crop: brightness and contrast (white balance is in the renders)
            gain = torch.empty(len(idx), 1, 1, 1, device=device).uniform_(0.8, 1.2)
            x = x * gain + torch.empty(len(idx), 1, 1, 1, device=device).uniform_(-0.2, 0.2)
            logits, orient = model(x)
            y = y_all[idx]
            cards = is_card[idx]
            if on_cpu:
                loss = ce(logits, y)
                if cards.any():
                    loss = loss + 0.3 * ce_orient(orient[cards], o_all[idx][cards])
            else:  # the same losses without reading the card mask back (it would stall the GPU)
                loss = smoothed_cross_entropy(torch, logits, y, ce.weight, 0.05)
                per_card = torch.nn.functional.cross_entropy(orient, o_all[idx], reduction="none")
                mask = cards.to(per_card.dtype)
                loss = loss + 0.3 * (per_card * mask).sum() / mask.sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.detach() * len(idx)
            total += len(idx)
            correct += (logits.argmax(1) == y).sum()
        log(
            f"epoch {epoch + 1}/{epochs}: loss {float(loss_sum) / total:.4f}, "
            f"train accuracy {float(correct) / total:.4f} ({time.perf_counter() - started:.0f} s)"
        )


def export(torch, model, out_dir: Path) -> Path:
    """Write ``model`` as ``out_dir/card_classifier.onnx``: batch norms folded into the
    convolutions, the embedding as a third output."""
    model = model.cpu().eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / "card_classifier.onnx"
    dummy = torch.zeros(1, 3, CROP_H, CROP_W)
    torch.onnx.export(
        model,
        (dummy,),
        str(onnx_path),
        input_names=["crops"],
        output_names=["logits", "orientation"],
        dynamic_axes={"crops": {0: "batch"}, "logits": {0: "batch"}, "orientation": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    add_embedding_output(onnx_path)
    return onnx_path


def add_embedding_output(path: Path) -> None:
    """Expose the features feeding the class scores as a third output, ``embedding``, so deck
    profiles (scanner.read.profile) can compare crops without PyTorch. The scores are unchanged."""
    import onnx

    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == "embedding" for o in graph.output):
        return
    gemm = next(n for n in graph.node if n.op_type == "Gemm" and "logits" in n.output)
    features = gemm.input[0]
    graph.node.append(onnx.helper.make_node("Identity", [features], ["embedding"], name="embedding"))
    graph.output.append(onnx.helper.make_tensor_value_info("embedding", onnx.TensorProto.FLOAT, ["batch", None]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
