"""`tweak train`'s code on either device: the GPU path's written-out loss and pooling, a tiny
training run of each path exported to ONNX and read by the scanner's classifier, the recipe
checks, and the side-by-side variants script. (No shipped model is trained here: a few scenes,
one epoch.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from scanner.labels import CLASSES, NOT_A_CARD
from scanner.read.classify import CardClassifier
from scanner.train.classifier import make_model, smoothed_cross_entropy, to_tensor, train, training_crops
from scanner.train.dataset import build

ROOT = Path(__file__).resolve().parent.parent


def test_the_gpu_loss_is_the_librarys_weighted_smoothed_cross_entropy_written_out():
    """CUDA has no deterministic NLLLoss: the GPU path computes the same loss, and the same
    gradients, from plain tensor arithmetic."""
    torch.manual_seed(3)
    logits = torch.randn(64, 47, dtype=torch.float64, requires_grad=True)
    target = torch.randint(0, 47, (64,))
    weights = torch.rand(47, dtype=torch.float64) + 0.5
    library = torch.nn.CrossEntropyLoss(weight=weights, label_smoothing=0.05)(logits, target)
    (library_grad,) = torch.autograd.grad(library, logits)
    ours = smoothed_cross_entropy(torch, logits, target, weights, 0.05)
    (our_grad,) = torch.autograd.grad(ours, logits)
    assert torch.allclose(library, ours, atol=1e-12)
    assert torch.allclose(library_grad, our_grad, atol=1e-12)
    # and it is a different number from the loss without weights or smoothing (the test can fail)
    assert not torch.allclose(ours, torch.nn.functional.cross_entropy(logits, target))


def test_the_mean_pooled_network_reads_as_the_pooling_layer_network():
    torch.manual_seed(0)
    layer = make_model(torch, head=32, width=0.5).eval()
    mean = make_model(torch, head=32, width=0.5, pool_by_mean=True).eval()
    mean.load_state_dict(layer.state_dict())
    crops = torch.randn(5, 3, 64, 48)
    with torch.no_grad():
        assert torch.allclose(layer(crops)[0], mean(crops)[0], atol=1e-6)
        assert torch.allclose(layer(crops)[1], mean(crops)[1], atol=1e-6)


def test_width_scales_the_channels_before_the_head():
    narrow, base, wide = (make_model(torch, width=w) for w in (0.5, 1.0, 1.5))
    sizes = [sum(p.numel() for p in m.parameters()) for m in (narrow, base, wide)]
    assert sizes[0] < sizes[1] < sizes[2]
    assert base.features[0].out_channels == 16 and wide.features[0].out_channels == 24


@pytest.fixture(scope="module")
def tiny_crops():
    return training_crops(seed=0, scenes=4, harsh_share=0.5, processes=1, log=lambda *_: None)


@pytest.mark.parametrize("device", ["cpu", "cpu:0"])
def test_a_tiny_training_run_exports_a_classifier_the_scanner_reads(tmp_path, tiny_crops, device):
    """``cpu`` runs the CPU recipe; any other device name (``cpu:0`` here, ``cuda`` on a GPU) runs
    the GPU path (written-out loss, mean pooling, numbers kept on the device)."""
    meta = train(tmp_path, scenes=4, harsh_share=0.5, epochs=1, batch=32, head=16, device=device, crops=tiny_crops)
    assert meta["training"]["crops"] == len(tiny_crops[1]) > 20
    assert meta["training"].get("device", "cpu") == device
    written = json.loads((tmp_path / "card_classifier.json").read_text())
    assert written["training"] == meta["training"]
    classifier = CardClassifier(tmp_path / "card_classifier.onnx")
    readings = classifier.classify(list(tiny_crops[0][:6]))
    assert len(readings) == 6 and all(0 <= r.confidence <= 1 for r in readings)
    probabilities, _, embeddings = classifier.run(list(tiny_crops[0][:3]))
    assert probabilities.shape == (3, 47) and embeddings.shape == (3, 16)


def test_a_network_for_other_decks_is_trained_on_varied_cards_and_parts_of_cards(tmp_path, monkeypatch):
    """``varied_share`` renders that many more scenes a scene of number cards drawn anew, with
    parts of cards as not-a-card, and the recipe says so (its typefaces too)."""
    made = []

    def crops(seed, scenes, harsh_share, coins, stretch, processes, log, **varied):
        made.append(training_crops(seed, scenes, harsh_share, coins, stretch, 1, log, **varied))
        return made[-1]

    monkeypatch.setattr("scanner.train.classifier.training_crops", crops)
    meta = train(tmp_path, scenes=2, harsh_share=0.5, epochs=1, batch=32, head=16, varied_share=1, log=lambda *_: None)
    assert meta["training"]["varied_scenes"] == 2 and meta["training"]["typefaces"][0] == "pillow-default"
    plain = training_crops(seed=0, scenes=2, harsh_share=0.5, processes=1, log=lambda *_: None)
    none = CLASSES.index(NOT_A_CARD)
    assert meta["training"]["crops"] == len(made[0][1]) > len(plain[1])
    # two more scenes' cards, and parts of cards (not cards) in every scene
    assert (made[0][1] != none).sum() > (plain[1] != none).sum()
    assert (made[0][1] == none).sum() > (plain[1] == none).sum()
    assert "varied_dark" not in meta["training"]  # (none drawn: the record of networks before the option)
    # some of the varied cards on a near-black ground: other crops, and the recipe records the share
    dark = train(
        tmp_path / "dark", scenes=2, harsh_share=0.5, epochs=1, batch=32, head=16, varied_share=1, varied_dark=0.5,
        log=lambda *_: None,
    )  # fmt: skip
    assert dark["training"]["varied_dark"] == 0.5 and "varied_backs" not in dark["training"]
    # (the scenes of this project's art are the same; the varied scenes' cards differ)
    assert not np.array_equal(made[1][0], made[0][0]) and np.array_equal(made[1][0][:5], made[0][0][:5])


def test_the_crops_given_to_train_are_the_recipes_own(tiny_crops):
    """Rendering in several processes (the variants script) gives the same crops as one."""
    again = training_crops(seed=0, scenes=4, harsh_share=0.5, processes=2, log=lambda *_: None)
    for ours, theirs in zip(tiny_crops, again):
        assert np.array_equal(ours, theirs)
    assert len(build(range(3), harsh=False, processes=2)) == len(build(range(3), harsh=False))


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("width", 0.1, "--width 0.1"),
        ("batch", 0, "--batch 0"),
        ("device", "cuda", "no CUDA GPU"),
        ("varied_share", 5.0, "--varied-share 5.0: give 0 to 4"),
        ("varied_dark", 1.5, "--varied-dark 1.5: give a share of the varied cards, 0 to 1"),
        ("varied_dark", 0.3, "--varied-dark 0.3: it draws varied cards dark; give --varied-share too"),
        ("varied_backs", True, "--varied-backs: it draws varied backs; give --varied-share too"),
        ("varied_wide_backs", 1.2, "--varied-wide-backs 1.2: give a share of the varied backs, 0 to 1"),
        ("varied_wide_backs", 0.8, "--varied-wide-backs 0.8: it draws varied backs; give --varied-share too"),
    ],
)
def test_tweak_train_refuses_a_bad_recipe_before_rendering(tmp_path, monkeypatch, capsys, option, value, message):
    from companion.cli import build_parser
    from scanner import commands

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr("scanner.train.classifier.train", lambda *a, **k: pytest.fail("trained despite a bad recipe"))
    args = build_parser().parse_args(["train", "--out", str(tmp_path)])
    setattr(args, option, value)
    assert commands._train(args) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def _variants_module():
    spec = importlib.util.spec_from_file_location("classifier_variants", ROOT / "benchmarks" / "classifier_variants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_variants_are_named_recipes_with_checked_options():
    variants = _variants_module()
    assert variants.parse_variant("wide:epochs=30,width=1.5") == ("wide", {"epochs": 30, "width": 1.5})
    assert variants.parse_variant("plain") == ("plain", {})
    with pytest.raises(SystemExit, match="'lr' is not one of"):
        variants.parse_variant("a:lr=3")
    with pytest.raises(SystemExit, match="epochs='many' is not a number"):
        variants.parse_variant("a:epochs=many")
    with pytest.raises(SystemExit, match="start with a name"):
        variants.parse_variant(":epochs=3")


def test_a_classifier_read_back_from_onnx_reads_as_the_file():
    """Fine-tuning starts from the shipped float model, whose batch norms ONNX folded into the
    convolutions: the network read back gives the file's scores and upside-down scores."""
    import onnxruntime as ort

    from scanner.train.classifier import load_classifier
    from scanner.train.quantize import MODELS_DIR

    path = MODELS_DIR / "card_classifier.onnx"
    model = load_classifier(torch, path)
    crops = np.random.default_rng(5).normal(size=(6, 3, 64, 48)).astype(np.float32)
    logits, orientation = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        ["logits", "orientation"], {"crops": crops}
    )
    with torch.no_grad():
        ours = model(torch.from_numpy(crops))
    assert np.abs(logits).max() > 1  # (scores, not zeros)
    assert np.allclose(ours[0].numpy(), logits, atol=1e-4)
    assert np.allclose(ours[1].numpy(), orientation, atol=1e-4)


def test_fine_tuning_trains_the_given_network_on_fresh_scenes(tmp_path, tiny_crops):
    """A tiny fine-tuning run starts from the given network (its scores change, but little), says in
    its meta what it was fine-tuned on, after the base's own recipe, and the scanner reads it."""
    from scanner.train.classifier import FINE_TUNE_SEED_BASE, FINE_TUNE_STRIDE, export, fine_tune, load_classifier

    base_dir = tmp_path / "base"
    torch.manual_seed(0)
    export(torch, make_model(torch, head=16, width=0.5).eval(), base_dir)
    base = base_dir / "card_classifier.onnx"
    from scanner.train.quantize import MODELS_DIR

    shipped = json.loads((MODELS_DIR / "card_classifier.json").read_text())
    base_meta = {**shipped, "training": {"seed": 7, "epochs": 16, "coins": True}}
    (base_dir / "card_classifier.json").write_text(json.dumps(base_meta))
    first = FINE_TUNE_SEED_BASE + 2 * FINE_TUNE_STRIDE
    fresh = training_crops(seed=2, scenes=3, harsh_share=1.0, processes=1, log=lambda *_: None, first=first)
    assert not np.array_equal(fresh[1][:20], tiny_crops[1][:20])  # other scenes than training's seed 0
    meta = fine_tune(tmp_path / "tuned", base, seed=2, scenes=3, harsh_share=1.0, epochs=1, batch=16, crops=fresh)
    tuned = meta["training"]["fine_tuned"]
    assert meta["training"]["seed"] == 7 and meta["labels"] == shipped["labels"]  # the base's recipe stays
    expected = {"seed": 2, "first_scene": first, "scenes": 3, "harsh_scenes": 3, "crops": len(fresh[1]), "epochs": 1}
    assert tuned == [{**tuned[0], **expected}]
    assert tuned[0]["from"] == str(base_dir)  # (started from another folder than its own: said)
    crops = torch.from_numpy(np.random.default_rng(1).normal(size=(4, 3, 64, 48)).astype(np.float32))
    with torch.no_grad():
        before = load_classifier(torch, base)(crops)[0]
        after = load_classifier(torch, tmp_path / "tuned" / "card_classifier.onnx")(crops)[0]
    assert not torch.allclose(before, after, atol=1e-4)
    readings = CardClassifier(tmp_path / "tuned" / "card_classifier.onnx").classify(list(fresh[0][:5]))
    assert len(readings) == 5 and all(0 <= r.confidence <= 1 for r in readings)


def test_fine_tuning_shows_the_crops_the_base_network_reads_badly_again(tmp_path, tiny_crops, monkeypatch):
    """``hard_below``/``hard_repeat``: the crops the starting network gives under the bar to their
    true label are found by reading them, and trained on ``hard_repeat`` times more; the meta says
    how many there were. Without ``hard_repeat`` the fresh crops are trained on as they come."""
    from scanner.train import classifier as train_module
    from scanner.train.classifier import export, fine_tune, hard_crops, load_classifier

    base_dir = tmp_path / "base"
    torch.manual_seed(0)
    export(torch, make_model(torch, head=16, width=0.5).eval(), base_dir)
    base = base_dir / "card_classifier.onnx"
    from scanner.train.quantize import MODELS_DIR

    shipped = json.loads((MODELS_DIR / "card_classifier.json").read_text())
    (base_dir / "card_classifier.json").write_text(json.dumps({**shipped, "training": {"seed": 7}}))
    network = load_classifier(torch, base)
    with torch.no_grad():
        scores = torch.softmax(network(to_tensor(torch, tiny_crops[0]))[0], 1).numpy()
    truth = scores[np.arange(len(scores)), tiny_crops[1]]
    bar = float(np.median(truth))  # (an untrained network: about half its crops under the median)
    hard = hard_crops(torch, network, tiny_crops, bar)
    assert hard.tolist() == np.flatnonzero(truth < bar).tolist() and 0 < len(hard) < len(truth)

    seen = []
    monkeypatch.setattr(train_module, "fit", lambda torch, model, crops, *a, **k: seen.append(crops[1]))
    meta = fine_tune(tmp_path / "mined", base, seed=2, scenes=4, crops=tiny_crops, hard_below=bar, hard_repeat=3)
    (labels,) = seen
    assert len(labels) == len(truth) + 3 * len(hard)
    assert labels[len(truth) :].tolist() == np.tile(tiny_crops[1][hard], 3).tolist()
    (tuned,) = meta["training"]["fine_tuned"]
    assert (tuned["crops"], tuned["hard"], tuned["hard_repeat"], tuned["hard_below"]) == (len(truth), len(hard), 3, bar)
    meta = fine_tune(tmp_path / "plain", base, seed=2, scenes=4, crops=tiny_crops)
    assert len(seen[1]) == len(truth) and "hard" not in meta["training"]["fine_tuned"][0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--from", "nowhere"], "--from nowhere: no card_classifier.onnx"),
        (["--scenes", "60000"], "at most 100,000 scenes in all"),
        (["--lr", "0"], "--lr 0.0"),
        (["--epochs", "0"], "--epochs 0"),
        (["--hard-below", "1.5"], "--hard-below 1.5: give a score from 0 to 1"),
        (["--hard-repeat", "-1"], "--hard-repeat -1: give 0 or more"),
        (["--varied-share", "-1"], "--varied-share -1.0: give 0 to 4 scenes a scene"),
        (["--scenes", "30000", "--varied-share", "3"], "at most 100,000 scenes in all"),
        (["--varied-share", "1", "--varied-dark", "-0.1"], "--varied-dark -0.1: give a share"),
    ],
)
def test_tweak_fine_tune_refuses_a_bad_request_before_rendering(tmp_path, monkeypatch, capsys, options, message):
    from companion.cli import build_parser
    from scanner import commands

    monkeypatch.setattr(
        "scanner.train.classifier.fine_tune", lambda *a, **k: pytest.fail("fine-tuned despite a bad request")
    )
    args = build_parser().parse_args(["fine-tune", "--out", str(tmp_path), *options])
    assert commands._fine_tune(args) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_model_card_tells_each_fine_tuning_round():
    from scanner.train.evaluate import fine_tuning

    assert fine_tuning({"seed": 0}) == ""
    one = {"seed": 3, "first_scene": 5_300_000, "scenes": 4000, "harsh_scenes": 4000, "crops": 141_000}
    rounds = {"fine_tuned": [{**one, "epochs": 4, "max_lr": 0.001, "batch": 128, "seconds": 900}]}
    text = fine_tuning(rounds)
    assert "`tweak fine-tune --seed 3 --scenes 4000 --harsh-share 1 --epochs 4 --lr 0.001`" in text
    assert "seed 5,300,000 (141000 crops)" in text and "900 s" in text
    assert "hard" not in text
    mined = {**one, "epochs": 3, "max_lr": 0.0005, "batch": 128, "seconds": 450}
    mined |= {"hard_below": 0.8, "hard_repeat": 4, "hard": 1508}
    text = fine_tuning({"fine_tuned": [rounds["fine_tuned"][0], mined]})
    assert text.count("Then `tweak fine-tune") == 2
    assert "--epochs 3 --lr 0.0005 --hard-below 0.8 --hard-repeat 4`" in text
    assert "The 1508 crops the network\nit started from gave under 0.8 to their true label were shown 5 times" in text
    varied = {**one, "epochs": 3, "max_lr": 0.001, "batch": 128, "seconds": 600, "varied_scenes": 1800}
    text = fine_tuning({"fine_tuned": [varied | {"typefaces": ["a.ttf", "b.ttf"]}]})
    assert "--lr 0.001 --varied-share 0.45`" in text and "1800 more scenes (half harsh)" in text
    assert "2 typefaces" in text and "varied" not in fine_tuning(rounds) and "near-black" not in text
    assert "`--from models/second_opinion`, `--out` this model's folder" in fine_tuning(
        {"fine_tuned": [varied | {"from": "second_opinion"}]}
    )
    text = fine_tuning({"fine_tuned": [varied | {"varied_dark": 0.3, "varied_backs": True}]})
    assert (
        "--varied-share 0.45 --varied-dark 0.3 --varied-backs`" in text and "30% of them on a near-black ground" in text
    )
    assert "backs drawn anew too" in text and "wider way" not in text
    text = fine_tuning({"fine_tuned": [varied | {"varied_backs": True, "varied_wide_backs": 0.8}]})
    assert "--varied-backs --varied-wide-backs 0.8`" in text and "80% of backs and T! backs the wider way" in text


@pytest.mark.parametrize("model", ["card_finder.onnx", "not onnx"])
def test_tweak_fine_tune_refuses_a_model_that_is_not_a_classifier(tmp_path, capsys, model):
    """The finder's network, or a file that is no ONNX at all, in --from's folder: a message and
    exit status 2 before any rendering, nothing written."""
    from companion.cli import build_parser
    from scanner import commands
    from scanner.train.quantize import MODELS_DIR

    base = tmp_path / "base"
    base.mkdir()
    target = base / "card_classifier.onnx"
    if model == "not onnx":
        target.write_text("a classifier, honest")
    else:
        target.write_bytes((MODELS_DIR / model).read_bytes())
    (base / "card_classifier.json").write_text((MODELS_DIR / "card_classifier.json").read_text())
    out = tmp_path / "out"
    args = build_parser().parse_args(["fine-tune", "--from", str(base), "--out", str(out)])
    assert commands._fine_tune(args) == 2
    assert "not a float card classifier" in capsys.readouterr().err
    assert not out.exists()


def test_tweak_fine_tune_names_a_recipe_file_without_its_fields(tmp_path, capsys):
    from companion.cli import build_parser
    from scanner import commands
    from scanner.train.quantize import MODELS_DIR

    base = tmp_path / "base"
    base.mkdir()
    (base / "card_classifier.onnx").write_bytes((MODELS_DIR / "card_classifier.onnx").read_bytes())
    (base / "card_classifier.json").write_text('{"labels": []}')
    args = build_parser().parse_args(["fine-tune", "--from", str(base), "--out", str(tmp_path / "out")])
    assert commands._fine_tune(args) == 2
    err = capsys.readouterr().err
    assert "card_classifier.json: no 'training' or 'input' field" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
