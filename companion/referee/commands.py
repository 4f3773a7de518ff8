"""``tweak referee SOURCE --players A,B,C --dealer A [--json]``: moves inferred from a camera's frames."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Iterator

from companion.engine.cards import Colour, Edition
from companion.engine.errors import RuleError
from companion.engine.setup import check_colours, check_player_count

FOLDER_FPS = 10.0  # frames of a folder are taken this far apart


def _players(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise argparse.ArgumentTypeError("write the players as A,B,C (no empty names)")
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError("player names must differ")
    try:
        check_player_count(len(names))
    except RuleError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return names


def _colours(text: str) -> list[Colour]:
    try:
        return [Colour(c.strip()) for c in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"colours are {', '.join(c.value for c in Colour)}") from None


def _timed_frames(source: Any, fps: float) -> Iterator[tuple[float, Any]]:
    import time

    count = 0
    started = time.monotonic()
    live = getattr(source, "live", False)
    while True:
        frame = source.read()
        if frame is None:
            return
        yield (time.monotonic() - started if live else count / fps), frame
        count += 1


def _run(args: argparse.Namespace) -> int:
    from scanner.capture.camera import CameraError, open_source
    from scanner.find.segment import FinderError
    from scanner.geometry.calibration import CalibrationError, load_calibration
    from scanner.read.classify import ClassifierError
    from scanner.read.profile import ProfileError
    from scanner.scan import load_scanner

    from .run import referee_frames

    players = args.players
    if args.dealer not in players:
        names = ", ".join(players)
        print(f"tweak referee: --dealer {args.dealer!r} is not one of the players ({names})", file=sys.stderr)
        return 2
    dealer = players.index(args.dealer)
    edition = Edition(args.edition)
    if args.colours is not None:
        try:
            check_colours(args.colours, len(players))
        except RuleError as err:
            print(f"tweak referee: --colours: {err}", file=sys.stderr)
            return 2
    try:
        scanner = load_scanner(args.profile)
        zones = load_calibration(args.calibration) if args.calibration else None
    except (ProfileError, CalibrationError, FileNotFoundError, FinderError, ClassifierError) as err:
        print(f"tweak referee: {err}", file=sys.stderr)
        return 2
    if args.source.startswith("virtual:"):
        from .virtual import centre_zone, frames, play_round

        try:
            seed = int(args.source.split(":", 1)[1])
        except ValueError:
            print(f"tweak referee: {args.source!r}: write virtual:SEED with a whole-number seed", file=sys.stderr)
            return 2
        virtual = play_round(players, dealer, seed, edition, args.colours)
        feed: Iterator[tuple[float, Any]] = ((f.time, f.image) for f in frames(virtual))
        zones = zones or centre_zone(virtual)
    else:
        try:
            source = open_source(args.source)
        except CameraError as err:
            print(f"tweak referee: {err}", file=sys.stderr)
            return 2
        feed = _timed_frames(source, args.fps)
    out = sys.stdout
    for timed in referee_frames(feed, scanner, players, dealer, args.colours, edition, zones=zones):
        event = timed.as_json()
        if event["event"] == "record":
            if args.record:
                lines = [json.dumps({"tweak_record": 1, "edition": edition.value, "players": players})]
                with open(args.record, "w", encoding="utf-8") as fh:
                    fh.write("\n".join(lines + event["lines"]) + "\n")
            continue
        if args.json:
            print(json.dumps(event), file=out, flush=True)
        else:
            print(_readable(event), file=out, flush=True)
    return 0


def _readable(event: dict[str, Any]) -> str:
    kind = event["event"]
    if kind == "move":
        what = (
            f"discards {event['discard']}"
            if "discard" in event
            else f"{event['sum']['hand']} takes {', '.join(event['sum']['take'])}"
        )
        tweak = f" ({event['tweak']['card']})" if "tweak" in event else ""
        flag = " TWEAK!" if event.get("made_tweak") else ""
        return f"#{event['n']} {event['turn']}{tweak} {what}{flag}"
    if kind == "question":
        options = "; ".join(json.dumps(r) for r in event["readings"][:4])
        return f"? {event['player']}: {event['reason']}: {options}"
    if kind == "refused":
        return f"! {event['player']}: {event['rule'] or ''} {event['message']}"
    if kind == "round_over":
        return "round over: " + ", ".join(f"{k} {v}" for k, v in event["scores"].items())
    return json.dumps(event)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("referee", help="moves inferred from camera frames (JSON Lines with --json)")
    p.add_argument("source", metavar="SOURCE", help="a video, a folder of frames, picamera, or virtual:SEED")
    p.add_argument("--players", type=_players, required=True, help="names in seating order: A,B,C")
    p.add_argument("--dealer", required=True, help="the player who dealt this round")
    p.add_argument("--edition", choices=("classic", "extended"), default="classic")
    p.add_argument("--colours", type=_colours, help="colours in play (default RULES R2.2)")
    p.add_argument("--profile", help="a deck profile from tweak enrol")
    p.add_argument("--calibration", help="zones of the camera's picture (a saved calibration)")
    p.add_argument("--fps", type=float, default=FOLDER_FPS, help="frame rate of a folder or video")
    p.add_argument("--record", help="also write the round as a game record (RECORD.md) to this file")
    p.add_argument("--json", action="store_true", help="one JSON object per event")
    p.set_defaults(run=_run)
