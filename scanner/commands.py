"""The scanner's subcommands of ``tweak``: render, train, evaluate (and more as they come)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scanner.core import MODELS_DIR
from scanner.train import quantize


def _render(args: argparse.Namespace) -> int:
    import cv2

    from scanner.synth.table import render_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.n):
        seed = args.seed + i
        rendered = render_table(
            seed, harsh=args.harsh, heldout_style=args.style == "heldout", uniform_labels=args.uniform
        )
        name = f"table-{seed:08d}"
        cv2.imwrite(str(out / f"{name}.jpg"), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        truth = {"image": f"{name}.jpg", **rendered.truth}
        (out / f"{name}.json").write_text(json.dumps(truth) + "\n")
    print(f"wrote {args.n} images and their ground truth to {out}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from scanner.train.classifier import train

    problems = [
        (not 0 <= args.harsh_share <= 1, f"--harsh-share {args.harsh_share}: give a share of the scenes, 0 to 1"),
        (args.head < 8, f"--head {args.head}: the last blocks need at least 8 channels"),
        (not 0.25 <= args.width <= 4, f"--width {args.width}: give a channel scale from 0.25 to 4"),
        (args.batch < 1, f"--batch {args.batch}: give at least 1 crop a step"),
        (not 0 <= args.varied_share <= 4, f"--varied-share {args.varied_share}: give 0 to 4 scenes a scene"),
        *_varied_problems(args),
    ]
    if args.device == "cuda" and not any(bad for bad, _ in problems):
        from scanner.train.classifier import require_torch

        problems.append((not require_torch().cuda.is_available(), "--device cuda: PyTorch sees no CUDA GPU here"))
    if _refused("train", problems):
        return 2
    train(
        Path(args.out),
        seed=args.seed,
        scenes=args.scenes,
        epochs=args.epochs,
        processes=args.processes,
        harsh_share=args.harsh_share,
        head=args.head,
        coins=args.coins,
        stretch=args.stretch,
        width=args.width,
        batch=args.batch,
        device=args.device,
        varied_share=args.varied_share,
        varied_dark=args.varied_dark,
        varied_backs=args.varied_backs,
        varied_wide_backs=args.varied_wide_backs,
    )
    from scanner.train.quantize import quantize_classifier

    print(f"wrote {quantize_classifier(Path(args.out))} (8-bit, the one the scanner runs)")
    print("now run `tweak evaluate --write` to measure it and update the model card")
    return 0


VARIED_DARK_HELP = "the share of the varied number cards printed on a near-black ground, the colour in their ink"
VARIED_BACKS_HELP = "the varied scenes' backs (their target number) and T! backs drawn anew too"
VARIED_WIDE_BACKS_HELP = (
    "the share of the varied scenes' backs and T! backs drawn anew the wider way (patterns, plates)"
)


def _varied_problems(args: argparse.Namespace) -> list[tuple[bool, str]]:
    """``--varied-dark`` and ``--varied-wide-backs``: shares, and only of varied scenes; ``--varied-backs``
    only with them too."""
    return [
        (not 0 <= args.varied_dark <= 1, f"--varied-dark {args.varied_dark}: give a share of the varied cards, 0 to 1"),
        (
            args.varied_dark > 0 and args.varied_share == 0,
            f"--varied-dark {args.varied_dark}: it draws varied cards dark; give --varied-share too",
        ),
        (
            args.varied_backs and args.varied_share == 0,
            "--varied-backs: it draws varied backs; give --varied-share too",
        ),
        (
            not 0 <= args.varied_wide_backs <= 1,
            f"--varied-wide-backs {args.varied_wide_backs}: give a share of the varied backs, 0 to 1",
        ),
        (
            args.varied_wide_backs > 0 and args.varied_share == 0,
            f"--varied-wide-backs {args.varied_wide_backs}: it draws varied backs; give --varied-share too",
        ),
    ]


def _refused(command: str, problems: list[tuple[bool, str]]) -> bool:
    """Whether any of a command's checks (failed, message) failed; the first one's message is printed."""
    for bad, message in problems:
        if bad:
            print(f"tweak {command}: {message}", file=sys.stderr)
            return True
    return False


def _fine_tuning_problems(args: argparse.Namespace, base: Path) -> list[tuple[bool, str]]:
    """The checks `tweak fine-tune` and `tweak fine-tune-finder` share: (failed, message) each."""
    return [
        (not base.is_file(), f"--from {args.base}: no {base.name} (the float model) there"),
        (
            base.is_file() and not base.with_suffix(".json").is_file(),
            f"--from {args.base}: no {base.with_suffix('.json').name} (its recipe) beside the model",
        ),
        (args.scenes < 1, f"--scenes {args.scenes}: give at least 1 scene"),
        (args.epochs < 1, f"--epochs {args.epochs}: give at least 1"),
        (not 0 < args.lr <= 0.01, f"--lr {args.lr}: give a peak learning rate over 0, at most 0.01"),
        (args.seed < 0, f"--seed {args.seed}: give a seed of 0 or more"),
    ]


def _fine_tune(args: argparse.Namespace) -> int:
    from scanner.train.classifier import FINE_TUNE_STRIDE

    base = Path(args.base) / "card_classifier.onnx"
    problems = [
        *_fine_tuning_problems(args, base),
        (not 0 <= args.harsh_share <= 4, f"--harsh-share {args.harsh_share}: give 0 to 4 harsh scenes a scene"),
        (
            args.scenes * (1 + args.harsh_share + args.varied_share) > FINE_TUNE_STRIDE,
            f"--scenes {args.scenes} --harsh-share {args.harsh_share} --varied-share {args.varied_share}: "
            f"at most {FINE_TUNE_STRIDE:,} scenes in all "
            "(the next seed's scenes start there)",
        ),
        (not 0 <= args.hard_below <= 1, f"--hard-below {args.hard_below}: give a score from 0 to 1"),
        (args.hard_repeat < 0, f"--hard-repeat {args.hard_repeat}: give 0 or more"),
        (not 0 <= args.varied_share <= 4, f"--varied-share {args.varied_share}: give 0 to 4 scenes a scene"),
        *_varied_problems(args),
    ]
    if _refused("fine-tune", problems):
        return 2
    from scanner.train.classifier import fine_tune

    try:
        fine_tune(
            Path(args.out),
            base,
            seed=args.seed,
            scenes=args.scenes,
            harsh_share=args.harsh_share,
            epochs=args.epochs,
            max_lr=args.lr,
            processes=args.processes,
            hard_below=args.hard_below,
            hard_repeat=args.hard_repeat,
            varied_share=args.varied_share,
            varied_dark=args.varied_dark,
            varied_backs=args.varied_backs,
            varied_wide_backs=args.varied_wide_backs,
        )
    except ValueError as error:  # a model of another shape, read before any rendering
        print(f"tweak fine-tune: --from {args.base}: {error}", file=sys.stderr)
        return 2
    from scanner.train.quantize import quantize_classifier

    print(f"wrote {quantize_classifier(Path(args.out))} (8-bit, the one the scanner runs)")
    print("now run `tweak evaluate --write` to measure it and update the model card")
    return 0


def _train_finder(args: argparse.Namespace) -> int:
    from scanner.train.classifier import require_torch
    from scanner.train.finder import train_finder

    if args.harsh_share < 1:
        print(f"tweak train-finder: --harsh-share {args.harsh_share}: give N >= 1 (one in N harsh)", file=sys.stderr)
        return 2
    require_torch()
    train_finder(
        Path(args.out),
        seed=args.seed,
        scenes=args.scenes,
        epochs=args.epochs,
        processes=args.processes,
        width=args.width,
        piles=args.piles,
        arch=args.arch,
        foreign=args.foreign,
        harsh_share=args.harsh_share,
    )
    from scanner.train.quantize import quantize_finder

    print(f"wrote {quantize_finder(Path(args.out))} (8-bit, the one the scanner runs)")
    return 0


def _fine_tune_finder(args: argparse.Namespace) -> int:
    base = Path(args.base) / "card_finder.onnx"
    problems = [
        *_fine_tuning_problems(args, base),
        (args.harsh_share < 1, f"--harsh-share {args.harsh_share}: give N >= 1 (one in N harsh)"),
        (args.abstract_share < 0, f"--abstract-share {args.abstract_share}: give N >= 1, or 0 for none"),
        (args.clutter_share < 0, f"--clutter-share {args.clutter_share}: give N >= 1, or 0 for none"),
        (args.zoom_share < 0, f"--zoom-share {args.zoom_share}: give N >= 1, or 0 for none"),
    ]
    if _refused("fine-tune-finder", problems):
        return 2
    from scanner.train.classifier import require_torch
    from scanner.train.finder import fine_tune_finder

    require_torch()
    try:
        fine_tune_finder(
            Path(args.out),
            base,
            seed=args.seed,
            scenes=args.scenes,
            epochs=args.epochs,
            max_lr=args.lr,
            harsh_share=args.harsh_share,
            processes=args.processes,
            abstract_share=args.abstract_share,
            clutter_share=args.clutter_share,
            zoom_share=args.zoom_share,
        )
    except ValueError as error:  # (a JSONDecodeError too) read before any rendering
        print(f"tweak fine-tune-finder: --from {args.base}: {error}", file=sys.stderr)
        return 2
    from scanner.train.quantize import quantize_finder

    print(f"wrote {quantize_finder(Path(args.out))} (8-bit, the one the scanner runs)")
    return 0


def _quantize(args: argparse.Namespace) -> int:
    from scanner.train.quantize import QuantizeError, quantize_classifier, quantize_finder

    for option, value in (("--frames", args.frames), ("--scenes", args.scenes)):
        if value < 1:
            print(f"tweak quantize: {option} {value}: calibration needs at least 1", file=sys.stderr)
            return 2
    try:
        if args.model in ("finder", "both"):
            print(f"wrote {quantize_finder(Path(args.models), args.seed, args.frames)}")
        if args.model in ("classifier", "both"):
            print(f"wrote {quantize_classifier(Path(args.models), args.seed, args.scenes)}")
    except QuantizeError as err:
        print(f"tweak quantize: {err}", file=sys.stderr)
        return 2
    return 0


def _train_ink(args: argparse.Namespace) -> int:
    from scanner.train.ink import train

    out = Path(args.out)
    problems = [
        (args.tables < 1, f"--tables {args.tables}: give at least 1 table"),
        (args.seed < 0, f"--seed {args.seed}: give a seed of 0 or more"),
        (not out.resolve().parent.is_dir(), f"--out {args.out}: no folder {out.resolve().parent}"),
    ]
    if _refused("train-ink", problems):
        return 2

    def progress(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"tweak train-ink: {done}/{total} tables", file=sys.stderr, flush=True)

    try:
        recipe = train(out, args.tables, args.seed, progress=progress)
    except ValueError as err:  # (too few tables to learn from)
        print(f"tweak train-ink: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out}: {recipe['faces']} faces, colours right on the held-out fifth {recipe['held_out_right']:.4f}")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    import json

    from scanner.read.classify import CardClassifier, ClassifierError
    from scanner.train.calibrate import calibrate, networks_seeds

    model = Path(args.model)
    problems = [
        (not model.is_file(), f"--model {args.model}: no such model file"),
        (model.is_file() and not model.with_suffix(".json").is_file(), f"--model {args.model}: no meta beside it"),
        (args.scenes < 1, f"--scenes {args.scenes}: give at least 1 scene"),
        (not 0 <= args.harsh_share <= 4, f"--harsh-share {args.harsh_share}: give 0 to 4 harsh scenes a scene"),
        (args.seed < 0, f"--seed {args.seed}: give a seed of 0 or more"),
    ]
    if _refused("calibrate", problems):
        return 2
    try:
        classifier = CardClassifier(model)
        second = classifier.second_opinion
        metas = [classifier.meta] + ([json.loads(second.with_suffix(".json").read_text())] if second else [])
    except (ClassifierError, ValueError, KeyError) as error:
        print(f"tweak calibrate: --model {args.model}: {error}", file=sys.stderr)
        return 2
    seen = set().union(*(networks_seeds(m) for m in metas))
    if args.seed in seen:
        print(
            f"tweak calibrate: --seed {args.seed}: the networks were fine-tuned on that seed's scenes "
            f"(seeds {sorted(seen)}); calibrate on scenes they have not seen",
            file=sys.stderr,
        )
        return 2
    calibrate(model, seed=args.seed, scenes=args.scenes, harsh_share=args.harsh_share, processes=args.processes)
    print("now run `tweak evaluate --write` to measure it and update the model card")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from scanner.train.evaluate import evaluate

    evaluate(Path(args.model), scenes=args.scenes, write=args.write, out=sys.stdout)
    return 0


def _open_scanner(args: argparse.Namespace, command: str, detector: str = "auto"):
    """The scanner for ``tweak scan``/``tweak score``; a bad profile, model or calibration is an
    error message (exit status 2), never a traceback."""
    from scanner.find.segment import FinderError
    from scanner.geometry.calibration import CalibrationError
    from scanner.read.classify import ClassifierError
    from scanner.read.profile import ProfileError
    from scanner.scan import load_scanner

    try:
        # (pictures apart: no camera's next frame reads the names a scan leaves unread)
        return load_scanner(args.profile, args.mat, args.players, detector, args.calibration, pictures=True)
    except (ProfileError, FileNotFoundError, CalibrationError, FinderError, ClassifierError) as err:
        print(f"tweak {command}: {err}", file=sys.stderr)
        return None


def _images(paths: list[str], command: str, failed: list[str]):
    """Each readable picture as ``(path, frame)``; unreadable ones are reported and listed in ``failed``."""
    import cv2

    for path in paths:
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            print(f"tweak {command}: cannot read {path} as an image", file=sys.stderr)
            failed.append(path)
            continue
        yield path, frame


def _scan(args: argparse.Namespace) -> int:
    scanner = _open_scanner(args, "scan", args.detector)
    if scanner is None:
        return 2
    failed: list[str] = []
    for path, frame in _images(args.images, "scan", failed):
        result = scanner.scan(frame)
        if args.json:
            print(json.dumps(result.as_json(path)), flush=True)
        else:
            target = "none seen" if result.target is None else result.target
            print(f"{path}: {len(result.cards)} cards, target {target} ({result.milliseconds:.0f} ms)")
            for card in result.cards:
                zone = f" [{card.zone}]" if card.zone else ""
                touch = " (touching)" if card.touching else ""
                print(f"  {card.label:<14} {card.confidence:.3f}{zone}{touch}")
    return 1 if failed else 0


def _score(args: argparse.Namespace) -> int:
    from scanner.piles import PileScore, score_scan

    scanner = _open_scanner(args, "score")
    if scanner is None:
        return 2
    by_zone = bool(args.mat or args.calibration)
    total: dict[str | None, PileScore] = {}
    failed: list[str] = []
    for path, frame in _images(args.images, "score", failed):
        scores = score_scan(scanner.scan(frame, pile=True), by_zone)
        for zone, score in scores.items():
            total[zone] = total.get(zone, PileScore()).add(score)
        whole = PileScore.sum(scores.values())
        if args.json:
            line = {"image": path, **whole.as_json()}
            if by_zone:
                line["zones"] = {str(z): sc.as_json() for z, sc in scores.items()}
            print(json.dumps(line), flush=True)
        else:
            print(f"{path}: {sum(whole.cards.values())} cards, {whole.points} points {whole.breakdown()}")
    if len(args.images) > 1:
        whole = PileScore.sum(total.values())
        if args.json:
            line = {"total": True, "images": len(args.images), **whole.as_json()}
            if by_zone:
                line["zones"] = {str(z): sc.as_json() for z, sc in total.items()}
            print(json.dumps(line))
        else:
            print(f"all {len(args.images)} pictures: {sum(whole.cards.values())} cards, {whole.points} points")
    return 1 if failed else 0


def _enrol(args: argparse.Namespace) -> int:
    from scanner.find.segment import FinderError
    from scanner.read.classify import ClassifierError
    from scanner.read.profile import ProfileError, enrol_folder, progress_bar
    from scanner.scan import load_scanner

    where = Path(args.profile).resolve().parent
    if not where.is_dir():  # (before a minute of learning)
        print(f"tweak enrol: cannot write the profile {args.profile} (no folder {where})", file=sys.stderr)
        return 2
    try:
        scanner = load_scanner(detector=args.detector)
        report = enrol_folder(
            Path(args.folder), scanner, deck=args.deck or Path(args.folder).name, progress=progress_bar
        )
    except (ProfileError, FileNotFoundError, FinderError, ClassifierError) as err:
        print(f"tweak enrol: {err}", file=sys.stderr)
        return 2
    for problem in report.refused:
        print(f"tweak enrol: skipped {problem}", file=sys.stderr)
    for advice in report.advice:
        print(f"tweak enrol: {advice}", file=sys.stderr)
    profile = report.profile
    if profile is None:
        print("tweak enrol: no usable photo: nothing to save", file=sys.stderr)
        return 1
    try:
        profile.save(Path(args.profile))
    except OSError as err:
        print(f"tweak enrol: cannot write the profile {args.profile} ({err.strerror or err})", file=sys.stderr)
        return 2
    kept = _keep_enrolled_cards(Path(args.profile), report.cards)
    missing = profile.missing
    print(
        f"wrote {args.profile}: {len(profile.enrolled)} labels from {report.used} photos in {report.seconds:.1f} s"
        + (f", card aspect {profile.aspect:.2f}" if profile.aspect else "")
        + (
            f"; {len(missing)} labels without photos use the shipped model ({', '.join(missing[:6])}"
            + (", ..." if len(missing) > 6 else "")
            + ")"
            if missing
            else ""
        )
        + (
            f"; no photo of any of the {', '.join(profile.untaught)}: those are read by the any-deck network,"
            " as without a profile"
            if profile.untaught and profile.network_word is not None
            else ""
        )
    )
    if kept:
        print(f"kept the cards it learned from in {kept} (copy it with the profile: the wizard adds to them)")
    return 1 if report.refused else 0


def _keep_enrolled_cards(profile: Path, cards: dict) -> Path | None:
    """The cards a profile was learned from, beside it (``scanner.read.kept``), so that the
    dashboard's wizard can add reads to the profile later without dropping these."""
    from scanner.read.kept import kept_folder, replace_cards

    folder = kept_folder(profile)
    try:
        replace_cards(folder, cards)
    except OSError as err:  # the profile is saved; only adding to it later needs the cards
        print(f"tweak enrol: the cards could not be kept in {folder} ({err})", file=sys.stderr)
        return None
    return folder


def _mat(args: argparse.Namespace) -> int:
    from scanner.geometry.mat import write_mat

    path = write_mat(Path(args.out), args.size)
    print(f"wrote the {args.size} play mat to {path}: print it at 100 % (no scaling)")
    return 0


def _fov(args: argparse.Namespace) -> int:
    from scanner.geometry.fov import MIN_CARD_PX, MODULES, RESOLUTIONS, card_pixels, markdown_table, mounting_height_cm

    if args.area is None:
        print(markdown_table())
        return 0
    try:
        width, depth = (float(v) for v in args.area.lower().split("x"))
        camera = MODULES[args.module]
        height = mounting_height_cm(camera, width, depth, margin=args.margin)
    except ValueError:
        print(f"tweak fov: --area {args.area!r}: write WIDTHxDEPTH in centimetres, e.g. 80x60", file=sys.stderr)
        return 2
    print(f"{camera.name}, play area {width:g}x{depth:g} cm: mount the lens {height:.0f} cm above the table")
    for res in RESOLUTIONS:
        px = card_pixels(camera, height, res)
        verdict = "enough" if px >= MIN_CARD_PX else f"too small: the scanner needs {MIN_CARD_PX} px"
        print(f"  {res[0]}x{res[1]}: a card is {px:.0f} px across ({verdict})")
    return 0


def _table_options(p: argparse.ArgumentParser, mat_help: str, calibration_help: str) -> None:
    """The options of commands that read pictures of the table: deck profile, mat, zones."""
    p.add_argument("--profile", help="a deck profile from tweak enrol")
    p.add_argument("--mat", choices=("A3", "A2"), help=mat_help)
    p.add_argument("--players", type=int, help="players at the table (player zones on the mat)")
    p.add_argument("--calibration", help=calibration_help)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fov", help="camera mounting height and card pixels for a play area")
    p.add_argument("--module", choices=("standard", "wide"), default="standard", help="Camera Module 3 lens")
    p.add_argument("--area", help="the play area WIDTHxDEPTH in cm (default: print the whole table)")
    p.add_argument("--margin", type=float, default=1.1, help="area scale for cards pushed to the edge")
    p.set_defaults(run=_fov)

    p = sub.add_parser("scan", help="the cards in pictures (JSON Lines with --json)")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="one JSON object per image (DESIGN.md)")
    _table_options(
        p, "the printed mat on the table (zones, colour reference)", "zones without a mat: a saved calibration (JSON)"
    )
    p.add_argument(
        "--detector",
        choices=("auto", "classical", "learned"),
        default="auto",
        help="card detection: classical OpenCV, the learned finder, or auto (learned when shipped)",
    )
    p.set_defaults(run=_scan)

    p = sub.add_parser("score", help="won piles in pictures, scored by RULES R1.3 (pictures are added up)")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="one JSON object per picture, then the total")
    _table_options(p, "score per zone of the printed mat", "score per zone of a saved calibration")
    p.set_defaults(run=_score)

    p = sub.add_parser("enrol", help="teach the scanner your deck: DIR/<label>/*.jpg -> a deck profile")
    p.add_argument(
        "folder",
        metavar="DIR",
        help="one sub-folder per label (red-5, back-7, tweak-joker...) with photos of that card, and/or "
        "photos of laid-out cards DIR/<name>.jpg, each with DIR/<name>.txt naming its rows "
        "(one line a row, the labels left to right as the photo shows them)",
    )
    p.add_argument("--profile", required=True, help="the profile file to write (JSON)")
    p.add_argument("--deck", help="a name for the deck (default: the folder's name)")
    p.add_argument("--detector", choices=("auto", "classical", "learned"), default="auto")
    p.set_defaults(run=_enrol)

    p = sub.add_parser("mat", help="the printable play mat with its ArUco markers")
    p.add_argument("--out", required=True, help="a .pdf (or .png) file")
    p.add_argument("--size", choices=("A3", "A2"), default="A2")
    p.set_defaults(run=_mat)

    p = sub.add_parser("render", help="synthetic table photos with ground truth (JSON per image)")
    p.add_argument("--out", required=True)
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--style",
        choices=("training", "heldout"),
        default="training",
        help="art style space: the training one, or the style kept out of training",
    )
    p.add_argument("--harsh", action="store_true", help="the harshest photo conditions")
    p.add_argument("--uniform", action="store_true", help="centre cards drawn from all 46 labels")
    p.set_defaults(run=_render)

    p = sub.add_parser("train", help="train the card classifier (needs the train extra: PyTorch)")
    p.add_argument("--out", default=str(MODELS_DIR))
    # the defaults are the shipped model's recipe (models/MODEL_CARD.md): same seed, same model
    p.add_argument("--seed", type=int, default=0)
    # the defaults are the shipped classifier's recipe (models/card_classifier.json)
    p.add_argument("--scenes", type=int, default=8000)
    p.add_argument("--epochs", type=int, default=16)
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--harsh-share", type=float, default=0.6, help="extra scenes in the harshest conditions")
    p.add_argument("--head", type=int, default=96, help="width of the last blocks (the embedding's size)")
    p.add_argument("--width", type=float, default=1.0, help="scale of the channels before the last blocks")
    p.add_argument("--batch", type=int, default=128, help="crops a training step")
    p.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="train on the CPU or a CUDA GPU (deterministic on each; the two give different bytes: the "
        "shipped classifier was trained with --device cuda)",
    )
    p.add_argument(
        "--coins",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="show it the coins on the table as not-a-card crops (the shipped recipe; --no-coins: the one before)",
    )
    p.add_argument(
        "--stretch",
        action="store_true",
        help="train on crops whose contrast is stretched (crops.stretch_contrast), as the scanner then reads them",
    )
    p.add_argument(
        "--varied-share",
        type=float,
        default=0.0,
        help="scenes whose number cards are each drawn a new way, a scene, and parts of cards as not-a-card "
        "(a network for other decks' art)",
    )
    p.add_argument("--varied-dark", type=float, default=0.0, help=VARIED_DARK_HELP)
    p.add_argument("--varied-backs", action="store_true", help=VARIED_BACKS_HELP)
    p.add_argument("--varied-wide-backs", type=float, default=0.0, help=VARIED_WIDE_BACKS_HELP)
    p.set_defaults(run=_train)

    p = sub.add_parser(
        "fine-tune", help="train a trained card classifier further on fresh scenes (needs the train extra)"
    )
    models = str(MODELS_DIR)
    p.add_argument(
        "--from", dest="base", metavar="DIR", default=models, help="folder of the float classifier to start from"
    )
    p.add_argument("--out", metavar="DIR", default=models, help="folder to write the fine-tuned classifier to")
    # the defaults are the shipped classifier's fine-tuning (models/card_classifier.json: fine_tuned)
    p.add_argument("--seed", type=int, default=3, help="seed of the fresh scenes and of the training order")
    p.add_argument("--scenes", type=int, default=2000, help="fresh scenes in ordinary conditions")
    p.add_argument("--harsh-share", type=float, default=1.0, help="fresh scenes in the harshest conditions, a scene")
    p.add_argument("--epochs", type=int, default=3, help="passes over the fresh crops")
    p.add_argument("--lr", type=float, default=5e-4, help="the peak learning rate (one cycle)")
    p.add_argument(
        "--hard-below",
        type=float,
        default=0.8,
        help="a fresh crop the starting network gives under this score to its true label is a hard one",
    )
    p.add_argument(
        "--hard-repeat", type=int, default=4, help="show each hard crop this many times more an epoch (0: no mining)"
    )
    p.add_argument(
        "--varied-share",
        type=float,
        default=0.0,
        help="scenes whose number cards are each drawn a new way, a scene (for reading other decks' art)",
    )
    p.add_argument("--varied-dark", type=float, default=0.0, help=VARIED_DARK_HELP)
    p.add_argument("--varied-backs", action="store_true", help=VARIED_BACKS_HELP)
    p.add_argument("--varied-wide-backs", type=float, default=0.0, help=VARIED_WIDE_BACKS_HELP)
    p.add_argument("--processes", type=int, default=2)
    p.set_defaults(run=_fine_tune)

    p = sub.add_parser("train-finder", help="train the learned card finder (needs the train extra)")
    p.add_argument("--out", default=str(MODELS_DIR))
    # the defaults are the shipped finder's recipe (models/card_finder.json)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scenes", type=int, default=2400)
    p.add_argument("--epochs", type=int, default=14)
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--width", type=int, default=512, help="network input width in pixels")
    p.add_argument(
        "--piles",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="one scene in 4 is a spread won pile (touching cards)",
    )
    p.add_argument(
        "--foreign",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="one scene in 6 shows another deck's cards (outlines, not TWEAK's art), some seen closer",
    )
    p.add_argument(
        "--arch", choices=("standard", "light"), default="standard", help="light: the upward path convolves first"
    )
    p.add_argument(
        "--harsh-share", type=int, default=4, metavar="N", help="one scene in N under the harshest conditions"
    )
    p.set_defaults(run=_train_finder)

    p = sub.add_parser(
        "fine-tune-finder", help="train a trained card finder further on fresh scenes (needs the train extra)"
    )
    p.add_argument(
        "--from", dest="base", metavar="DIR", default=models, help="folder of the float finder to start from"
    )
    p.add_argument("--out", metavar="DIR", default=models, help="folder to write the fine-tuned finder to")
    # the defaults are the shipped finder's last fine-tuning (models/card_finder.json: fine_tuned)
    p.add_argument("--seed", type=int, default=0, help="seed of the fresh scenes and of the training order")
    p.add_argument("--scenes", type=int, default=2000, help="fresh scenes (one in 4 a spread won pile)")
    p.add_argument(
        "--harsh-share", type=int, default=2, metavar="N", help="one scene in N under the harshest conditions"
    )
    p.add_argument("--epochs", type=int, default=4, help="passes over the fresh scenes")
    p.add_argument("--lr", type=float, default=5e-4, help="the peak learning rate (one cycle)")
    p.add_argument(
        "--abstract-share",
        type=int,
        default=0,
        metavar="N",
        help="one scene in N shows cards of random content of no deck (0: none)",
    )
    p.add_argument(
        "--clutter-share",
        type=int,
        default=0,
        metavar="N",
        help="one plain table in N also holds things that are not cards: a phone, a score pad... (0: none)",
    )
    p.add_argument(
        "--zoom-share",
        type=int,
        default=0,
        metavar="N",
        help="one plain table in N seen from closer or farther (cards 0.6-2.5 times as long; 0: none)",
    )
    p.add_argument("--processes", type=int, default=2)
    p.set_defaults(run=_fine_tune_finder)

    p = sub.add_parser("quantize", help="the 8-bit run-time models from the trained float ones (needs onnx)")
    p.add_argument("model", nargs="?", choices=("finder", "classifier", "both"), default="both")
    p.add_argument("--models", default=str(MODELS_DIR))
    # the defaults are the shipped 8-bit models' recipe (models/*.int8.json)
    p.add_argument("--seed", type=int, default=quantize.CALIBRATION_SEED, help="seed of the calibration renders")
    p.add_argument("--frames", type=int, default=quantize.FINDER_FRAMES, help="calibration frames (finder)")
    p.add_argument("--scenes", type=int, default=quantize.CLASSIFIER_SCENES, help="calibration scenes (classifier)")
    p.set_defaults(run=_quantize)

    p = sub.add_parser("calibrate", help="fit the classifier's label priors on fresh renders (scanner/calibrate.py)")
    p.add_argument("--model", default=str(MODELS_DIR / "card_classifier.int8.onnx"))
    # the defaults are the shipped calibration's (models/card_classifier.int8.json: calibration)
    p.add_argument("--seed", type=int, default=4, help="fine-tuning seed whose fresh scenes to render")
    p.add_argument("--scenes", type=int, default=2000, help="scenes in ordinary conditions")
    p.add_argument("--harsh-share", type=float, default=1.0, help="scenes in the harshest conditions, a scene")
    p.add_argument("--processes", type=int, default=2)
    p.set_defaults(run=_calibrate)

    p = sub.add_parser("train-ink", help="fit the ink colour reader on fresh renders (scanner/train/ink.py)")
    p.add_argument("--tables", type=int, default=400, help="rendered tables to learn from")
    p.add_argument("--seed", type=int, default=0, help="seed of the crops' outline error")
    p.add_argument("--out", default=str(MODELS_DIR / "ink_colour.json"))
    p.set_defaults(run=_train_ink)

    p = sub.add_parser("evaluate", help="measure the card classifier on held-out renders")
    p.add_argument("--model", default=str(MODELS_DIR / "card_classifier.int8.onnx"))
    p.add_argument("--scenes", type=int, default=300, help="scenes per evaluation set")
    p.add_argument("--write", action="store_true", help="store the metrics in the model's JSON and MODEL_CARD.md")
    p.set_defaults(run=_evaluate)
