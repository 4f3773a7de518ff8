"""``tweak train-finder``: train the learned card finder (``scanner.find.segment``) on rendered tables."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import cv2
import numpy as np

from scanner.find.segment import GEOMETRY_CHANNELS, INPUT_WIDTH, downscale, geometry_target, input_size, interior_mask
from scanner.synth.table import RenderedTable, render_table

FINDER_SEED_BASE = 20_000_000
FINE_TUNE_SEED_BASE = 21_000_000  # fine-tuning's fresh scenes (tweak fine-tune-finder), apart from training's


GEOMETRY_WEIGHT = 1.0  # the geometry head's loss beside the inner-card mask's
PILE_SHARE = 4  # one scene in PILE_SHARE is a won pile spread out, cards touching (scanner.piles)
HARSH_SHARE = 4  # one scene in HARSH_SHARE (seeds 0 mod HARSH_SHARE) is under the harshest conditions
FOREIGN_SHARE = 6  # one scene in FOREIGN_SHARE (seeds 2 mod 6, never a pile's) shows another deck
# a plain table seen from another height (zoom_share): the camera this many times closer, log-uniform;
# the shipped finder saw card lengths of 0.042-0.095 of the frame's width (1st-99th percentile)
ZOOM_RANGE = (0.6, 2.5)


def _closer(rendered: RenderedTable, rng: random.Random) -> RenderedTable:
    """Half the time, the frame seen 1.3-3x closer about one of its cards (the part around it
    enlarged to the full frame, the truth's corners with it): cards a quarter of the frame wide,
    as in photographs taken by hand."""
    truth = rendered.truth
    if rng.random() < 0.5 or not truth["cards"]:
        return rendered
    w, h = truth["width"], truth["height"]
    zoom = rng.uniform(1.3, 3.0)
    cw, ch = w / zoom, h / zoom
    cx, cy = np.mean(rng.choice(truth["cards"])["corners"], axis=0)
    x0 = float(np.clip(cx - cw * rng.uniform(0.2, 0.8), 0, w - cw))
    y0 = float(np.clip(cy - ch * rng.uniform(0.2, 0.8), 0, h - ch))
    m = np.array([[zoom, 0, -x0 * zoom], [0, zoom, -y0 * zoom]], np.float32)
    image = cv2.warpAffine(rendered.image, m, (w, h), flags=cv2.INTER_LINEAR)
    cards = []
    for card in truth["cards"]:
        corners = (np.array(card["corners"], np.float32) - [x0, y0]) * zoom
        cut = bool((corners < 0).any() or (corners[:, 0] >= w).any() or (corners[:, 1] >= h).any())
        cards.append(card | {"corners": corners.tolist(), "truncated": card["truncated"] or cut})
    return RenderedTable(image, truth | {"cards": cards})


def _sample(
    seed: int,
    width: int = INPUT_WIDTH,
    piles: bool = False,
    foreign: bool = False,
    harsh_share: int = HARSH_SHARE,
    abstract_share: int = 0,
    clutter_share: int = 0,
    zoom_share: int = 0,
) -> tuple[np.ndarray, ...]:
    """One rendered scene: the network's input, the inner-card target and its loss weight, and the
    geometry head's target (float16, to keep thousands of scenes in memory) and where it counts.
    ``foreign``: one scene in ``FOREIGN_SHARE`` shows another deck's cards (``render_foreign_card``),
    so the finder learns what a card looks like, not only TWEAK's art; one in ``harsh_share`` is
    rendered under the harshest conditions. ``abstract_share``: one scene in that many (never a
    pile's) shows cards of random content of no deck (``families.render_abstract_card``): the
    finder learns that a card is its outline, whatever is printed on it. ``clutter_share``: one
    plain table in that many also holds things that are not cards (``synth.clutter``: a phone, a
    score pad, tiles, another game's card...), which the finder learns to leave out. ``zoom_share``:
    one plain table in that many is seen from closer or farther (``ZOOM_RANGE``), so that a card is
    a card at the size a user's camera shows it, not only at the size the renders framed it."""
    if abstract_share and seed % abstract_share == abstract_share - 1 and not (piles and seed % PILE_SHARE == 1):
        rendered = _closer(render_table(seed, harsh=seed % harsh_share == 0, abstract=True), random.Random(seed + 1))
    elif piles and seed % PILE_SHARE == 1:
        from scanner.piles import render_pile_table
        from scanner.synth.cards import random_style

        rendered, _ = render_pile_table(seed, style=random_style(random.Random(seed)))
    elif foreign and seed % FOREIGN_SHARE == 2:
        rendered = _closer(render_table(seed, harsh=seed % harsh_share == 0, foreign=True), random.Random(seed + 1))
    else:
        clutter = bool(clutter_share) and random.Random(seed).randrange(clutter_share) == 0
        zoom = 1.0
        if zoom_share and random.Random(seed + 2).randrange(zoom_share) == 0:
            zoom = float(np.exp(random.Random(seed + 3).uniform(*np.log(ZOOM_RANGE))))
        rendered = render_table(seed, harsh=seed % harsh_share == 0, clutter=clutter, zoom=zoom)
    truth = rendered.truth
    size = input_size(truth["width"], truth["height"], width)
    image = downscale(rendered.image, size)  # as the finder does at run time
    out = (size[0] // 2, size[1] // 2)
    frame_size = (truth["width"], truth["height"])
    target, weight = interior_mask(truth["cards"], frame_size, out)
    geometry, counts = geometry_target(truth["cards"], frame_size, out)
    return image, target, weight, geometry.astype(np.float16), counts


ARCHITECTURES = ("standard", "light")


def make_model(torch, arch: str = "standard"):
    """The finder network. ``light``: the two upward steps convolve before upsampling, not after
    (a quarter of their work; the upward path is most of the network's cost at 512 px)."""
    nn = torch.nn

    def conv(cin, cout, stride=1, dilation=1):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, dilation, dilation, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
        )

    class Finder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.down1 = conv(3, 16, 2)  # 1/2
            self.down2 = nn.Sequential(conv(16, 24, 2), conv(24, 24))  # 1/4
            self.down3 = nn.Sequential(conv(24, 48, 2), conv(48, 48, dilation=2), conv(48, 48, dilation=4))  # 1/8

            def up(cin, cout):
                upsample = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
                return (
                    nn.Sequential(conv(cin, cout), upsample)
                    if arch == "light"
                    else nn.Sequential(upsample, conv(cin, cout))
                )

            self.up3 = up(48, 24)
            self.up2 = up(48, 16)
            self.head = nn.Conv2d(32, 1, 1)
            # where each inner pixel's card lies (its centre, angle and size): the quad without a
            # search. Pointwise layers: a 3x3 convolution at this resolution would double the cost
            self.geometry = nn.Sequential(
                nn.Conv2d(32, 32, 1), nn.ReLU(inplace=True), nn.Conv2d(32, GEOMETRY_CHANNELS, 1)
            )

        def forward(self, x):
            d1 = self.down1(x)
            d2 = self.down2(d1)
            d3 = self.down3(d2)
            u2 = torch.cat([self.up3(d3), d2], 1)
            u1 = torch.cat([self.up2(u2), d1], 1)
            return self.head(u1), self.geometry(u1)

    return Finder()


def train_finder(
    out_dir: Path,
    seed: int = 0,
    scenes: int = 1200,
    epochs: int = 12,
    processes: int = 2,
    log=print,
    width: int = INPUT_WIDTH,
    piles: bool = False,
    arch: str = "standard",
    foreign: bool = False,
    harsh_share: int = HARSH_SHARE,
) -> dict:
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(processes)
    started = time.perf_counter()
    first = FINDER_SEED_BASE + seed * scenes
    samples = _render(range(first, first + scenes), width, piles, foreign, harsh_share, processes)
    log(f"{scenes} scenes rendered in {time.perf_counter() - started:.0f} s; training...")
    model = make_model(torch, arch)
    _fit(torch, model, samples, epochs, 3e-3, seed, log)
    path = _export(torch, model, out_dir, width)
    meta = {
        "version": 2,
        "geometry": {"channels": GEOMETRY_CHANNELS},
        "input_width": width,
        "output_scale": 0.5,
        "shrink": 0.7,
        "training": {
            "seed": seed,
            "scenes": scenes,
            "epochs": epochs,
            "piles": piles,
            "foreign": foreign,
            "arch": arch,
            **({"harsh_share": harsh_share} if harsh_share != HARSH_SHARE else {}),
            "seconds": round(time.perf_counter() - started),
        },
    }
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")
    return meta


def fine_tune_finder(
    out_dir: Path,
    base: Path,
    seed: int = 0,
    scenes: int = 2000,
    epochs: int = 4,
    max_lr: float = 5e-4,
    harsh_share: int = 2,
    processes: int = 2,
    log=print,
    abstract_share: int = 0,
    clutter_share: int = 0,
    zoom_share: int = 0,
) -> dict:
    """Train the float finder ``base`` (a ``card_finder.onnx``) further on fresh scenes from
    ``FINE_TUNE_SEED_BASE + seed * scenes`` (won piles among them, one in ``harsh_share`` harsh),
    its batch norms held, and write it with its meta to ``out_dir``. Deterministic from the base
    file and ``seed``. ``fine_tune_finder(Path("tuned"), Path("models/card_finder.onnx"))`` is
    ``tweak fine-tune-finder --out tuned`` without the quantizing."""
    import torch

    meta_path = base.with_suffix(".json")
    try:
        base_meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{meta_path}: not JSON ({error})") from error
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(processes)
    started = time.perf_counter()
    model = load_finder(torch, base)  # (before rendering: a file of another shape fails at once)
    missing = [f for f in ("training", "input_width") if f not in base_meta] if isinstance(base_meta, dict) else ["any"]
    if missing:
        fields = " or ".join(repr(f) for f in missing)
        raise ValueError(f"{meta_path}: no {fields} field (not a meta `tweak train-finder` wrote)")
    first = FINE_TUNE_SEED_BASE + seed * scenes
    samples = _render(
        range(first, first + scenes),
        base_meta["input_width"],
        True,
        False,
        harsh_share,
        processes,
        abstract_share,
        clutter_share,
        zoom_share,
    )
    log(f"{scenes} scenes rendered in {time.perf_counter() - started:.0f} s; fine-tuning {base}...")
    _fit(torch, model, samples, epochs, max_lr, seed, log, frozen_norms=True)
    path = _export(torch, model, out_dir, base_meta["input_width"])
    recipe = base_meta["training"]
    tuned = {"seed": seed, "first_scene": first, "scenes": scenes, "harsh_share": harsh_share, "epochs": epochs}
    tuned |= {"abstract_share": abstract_share} if abstract_share else {}
    tuned |= {"clutter_share": clutter_share} if clutter_share else {}
    tuned |= {"zoom_share": zoom_share, "zoom_range": list(ZOOM_RANGE)} if zoom_share else {}
    tuned |= {"max_lr": max_lr, "seconds": round(time.perf_counter() - started)}
    meta = {**base_meta, "training": {**recipe, "fine_tuned": [*recipe.get("fine_tuned", []), tuned]}}
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")
    return meta


def load_finder(torch, path: Path):
    """The float finder ONNX file at ``path`` as a PyTorch network of ``make_model``'s shape,
    reading as the file does. Its convolutions carry their batch norms folded in, so each norm
    here passes its input on plus the folded bias: train it with ``_fit(..., frozen_norms=True)``."""
    from scanner.train.classifier import hold_folded_norm, onnx_convolutions

    not_ours = ValueError(f"{path}: not a float card finder as `tweak train-finder` writes one")
    _, convs = onnx_convolutions(path, not_ours)
    model = make_model(torch)
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if [tuple(c.weight.shape) for c in layers] != [w.shape for w, _ in convs]:
        raise not_ours
    with torch.no_grad():
        for k, (layer, (w, b)) in enumerate(zip(layers, convs)):
            layer.weight.copy_(torch.from_numpy(w))
            if k < len(norms):  # (a convolution followed by its norm, in the order both were made)
                hold_folded_norm(torch, norms[k], b)
            else:  # the heads' own biases
                layer.bias.copy_(torch.from_numpy(b))
    return model.eval()


def _render(
    seeds: range,
    width: int,
    piles: bool,
    foreign: bool,
    harsh_share: int,
    processes: int,
    abstract_share: int = 0,
    clutter_share: int = 0,
    zoom_share: int = 0,
) -> list:
    import multiprocessing

    # (spawned, not forked: see dataset.build)
    with multiprocessing.get_context("spawn").Pool(processes, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        jobs = [(i, width, piles, foreign, harsh_share, abstract_share, clutter_share, zoom_share) for i in seeds]
        return pool.starmap(_sample, jobs, chunksize=8)


def _fit(torch, model, samples: list, epochs: int, max_lr: float, seed: int, log, frozen_norms: bool = False) -> None:
    """Train ``model`` on rendered ``samples`` in place: AdamW under a one-cycle rate peaking at
    ``max_lr``, batches of one frame size. ``frozen_norms`` leaves the batch norms as they are."""
    import torch.nn.functional as F

    by_size: dict[tuple, list[int]] = {}
    for i, sample in enumerate(samples):
        by_size.setdefault(sample[0].shape, []).append(i)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    batch = 8
    steps = epochs * sum((len(v) + batch - 1) // batch for v in by_size.values())
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.15)
    gen = np.random.default_rng(seed)
    pos_weight = torch.tensor(3.0)
    for epoch in range(epochs):
        model.train()
        if frozen_norms:
            for module in model.modules():
                if isinstance(module, torch.nn.BatchNorm2d):
                    module.eval()
        batches = []
        for idx in by_size.values():
            order = gen.permutation(idx)
            batches += [order[i : i + batch] for i in range(0, len(order), batch)]
        gen.shuffle(batches)
        total = 0.0
        for b in batches:
            x = torch.from_numpy(np.stack([samples[i][0] for i in b])).float().permute(0, 3, 1, 2) / 255.0
            x = (x - 0.5) / 0.25
            y = torch.from_numpy(np.stack([samples[i][1] for i in b])).float()[:, None]
            w = torch.from_numpy(np.stack([samples[i][2] for i in b]))[:, None]
            g = torch.from_numpy(np.stack([samples[i][3] for i in b])).float()
            m = torch.from_numpy(np.stack([samples[i][4] for i in b])).float()[:, None]
            logits, geometry = model(x)
            loss = F.binary_cross_entropy_with_logits(logits, y, weight=w, pos_weight=pos_weight)
            per_pixel = F.smooth_l1_loss(geometry, g, reduction="none", beta=0.1)
            loss = loss + GEOMETRY_WEIGHT * (per_pixel * m).sum() / (m.sum() * GEOMETRY_CHANNELS).clamp(min=1.0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(b)
        log(f"epoch {epoch + 1}/{epochs}: loss {total / len(samples):.4f}")


def _export(torch, model, out_dir: Path, width: int) -> Path:
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "card_finder.onnx"
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, input_size(1280, 720, width)[1], width),),
        str(path),
        input_names=["frames"],
        output_names=["inner", "geometry"],
        dynamic_axes={"frames": {0: "batch", 2: "height", 3: "width"}},
        opset_version=17,
        dynamo=False,
    )
    return path
