"""``tweak train-finder``: train the learned card finder (``scanner.segment``) on rendered tables."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import cv2
import numpy as np

from .segment import GEOMETRY_CHANNELS, INPUT_WIDTH, downscale, geometry_target, input_size, interior_mask
from .synth.table import RenderedTable, render_table

FINDER_SEED_BASE = 20_000_000


GEOMETRY_WEIGHT = 1.0  # the geometry head's loss beside the inner-card mask's
PILE_SHARE = 4  # one scene in PILE_SHARE is a won pile spread out, cards touching (scanner.piles)
HARSH_SHARE = 4  # one scene in HARSH_SHARE (seeds 0 mod HARSH_SHARE) is under the harshest conditions
FOREIGN_SHARE = 6  # one scene in FOREIGN_SHARE (seeds 2 mod 6, never a pile's) shows another deck


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
    seed: int, width: int = INPUT_WIDTH, piles: bool = False, foreign: bool = False, harsh_share: int = HARSH_SHARE
) -> tuple[np.ndarray, ...]:
    """One rendered scene: the network's input, the inner-card target and its loss weight, and the
    geometry head's target (float16, to keep thousands of scenes in memory) and where it counts.
    ``foreign``: one scene in ``FOREIGN_SHARE`` shows another deck's cards (``render_foreign_card``),
    so the finder learns what a card looks like, not only TWEAK's art; one in ``harsh_share`` is
    rendered under the harshest conditions."""
    if piles and seed % PILE_SHARE == 1:
        from .piles import render_pile_table
        from .synth.cards import random_style

        rendered, _ = render_pile_table(seed, style=random_style(random.Random(seed)))
    elif foreign and seed % FOREIGN_SHARE == 2:
        rendered = _closer(render_table(seed, harsh=seed % harsh_share == 0, foreign=True), random.Random(seed + 1))
    else:
        rendered = render_table(seed, harsh=seed % harsh_share == 0)
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
    import multiprocessing

    # (spawned, not forked: see dataset.build)
    with multiprocessing.get_context("spawn").Pool(processes, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        samples = pool.starmap(
            _sample, [(i, width, piles, foreign, harsh_share) for i in range(first, first + scenes)], chunksize=8
        )
    log(f"{scenes} scenes rendered in {time.perf_counter() - started:.0f} s; training...")
    by_size: dict[tuple, list[int]] = {}
    for i, sample in enumerate(samples):
        image = sample[0]
        by_size.setdefault(image.shape, []).append(i)
    model = make_model(torch, arch)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 8
    steps = epochs * sum((len(v) + batch - 1) // batch for v in by_size.values())
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    gen = np.random.default_rng(seed)
    pos_weight = torch.tensor(3.0)
    for epoch in range(epochs):
        model.train()
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
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y, weight=w, pos_weight=pos_weight)
            per_pixel = torch.nn.functional.smooth_l1_loss(geometry, g, reduction="none", beta=0.1)
            loss = loss + GEOMETRY_WEIGHT * (per_pixel * m).sum() / (m.sum() * GEOMETRY_CHANNELS).clamp(min=1.0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(b)
        log(f"epoch {epoch + 1}/{epochs}: loss {total / scenes:.4f}")
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
