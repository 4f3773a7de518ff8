"""The ``tweak`` command line: one entry point, a subcommand per job (DESIGN.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence

Command = Callable[[argparse.Namespace], int]


def _replay(args: argparse.Namespace) -> int:
    from .engine.record import replay

    try:
        with open(args.file, "rb") as handle:
            data = handle.read()
    except OSError as err:
        print(f"tweak replay: cannot read {args.file}: {err.strerror or err}", file=sys.stderr)
        return 2
    report = replay(data)
    print(json.dumps(report, ensure_ascii=False))
    return 0 if report["valid"] else 1


def _simulate(args: argparse.Namespace) -> int:
    from .engine.cards import Edition
    from .simulate import simulate

    sim = simulate(args.players, args.seed, Edition(args.edition), None if args.match else args.rounds, args.policy)
    sys.stdout.write(sim.record)
    if args.summary:
        sys.stderr.write(sim.summary())
    return 0


def _players(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"2 to 6 players (RULES R2.1), not {value}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tweak", description="TWEAK Table Companion")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="check a game record (RECORD.md)")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(run=_replay)

    p = sub.add_parser("simulate", help="write a simulated game record to stdout")
    p.add_argument("--players", type=_players, required=True, help="2 to 6")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--edition", choices=("classic", "extended"), default="classic")
    how_long = p.add_mutually_exclusive_group()
    how_long.add_argument("--rounds", type=_positive, default=1, help="rounds to play (default 1)")
    how_long.add_argument("--match", action="store_true", help="play until the match is won (R5.5)")
    p.add_argument("--policy", choices=("random", "greedy", "mixed"), default="mixed")
    p.add_argument("--summary", action="store_true", help="a readable summary on stderr")
    p.set_defaults(run=_simulate)

    for register in _extra_commands():
        register(sub)
    return parser


def _extra_commands() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Subcommands of the other packages, registered without importing their heavy parts."""
    registers = []
    for module_name in ("companion.web.commands", "companion.referee.commands", "scanner.commands"):
        try:
            module = __import__(module_name, fromlist=["register"])
        except ModuleNotFoundError as err:
            if err.name and module_name.startswith(err.name):
                continue
            raise
        registers.append(module.register)
    return registers


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
