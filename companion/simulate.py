"""Simulated matches written as game records (RECORD.md), deterministic from a seed."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from .bots import make_policy
from .engine.cards import Colour, Edition, TweakKind
from .engine.match import Match
from .engine.record import dumps, header_line, round_line, turn_line
from .engine.setup import deal, default_colours, next_dealer

DEFAULT_NAMES = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay")
MAX_MATCH_ROUNDS = 500  # ties at the goal play on (R5.5); this only guards against a runaway loop


@dataclass
class Simulation:
    match: Match
    lines: list[str] = field(default_factory=list)
    tweak_uses: list[Counter] = field(default_factory=list)  # per round: (player, kind) -> uses

    @property
    def record(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def summary(self) -> str:
        """A readable account of the match: per round scores, TWEAKs and T! cards used."""
        match = self.match
        out = [
            f"TWEAK ({match.edition.value}), {len(match.players)} players: {', '.join(match.players)};"
            f" goal {match.goal}"
        ]
        running = [0] * len(match.players)
        for result, uses in zip(match.results, self.tweak_uses):
            running = [a + b for a, b in zip(running, result.scores)]
            out.append(f"Round {result.number} (dealer {match.players[result.dealer]})")
            width = max(len(p) for p in match.players)
            for seat, name in enumerate(match.players):
                used = (
                    ", ".join(
                        f"{n} {k.value}" for (p, k), n in sorted(uses.items(), key=lambda i: i[0][1].value) if p == seat
                    )
                    or "none"
                )
                out.append(
                    f"  {name:<{width}}  {result.scores[seat]:>3} pts  total {running[seat]:>3}  "
                    f"TWEAKs {result.tweaks[seat]}  T! used: {used}"
                )
        winner = match.winner
        out.append(
            f"Winner: {match.players[winner]} with {match.totals[winner]} points"
            if winner is not None
            else "No winner yet: " + ", ".join(f"{p} {t}" for p, t in zip(match.players, match.totals))
        )
        return "\n".join(out) + "\n"


def simulate(
    players: int | Sequence[str],
    seed: int,
    edition: Edition = Edition.CLASSIC,
    rounds: int | None = 1,
    policy: str = "greedy",
    colours: Sequence[Colour] | None = None,
    goal: int | None = None,
) -> Simulation:
    """Play ``rounds`` rounds (``None``: the whole match, R5.5) with bots, from ``seed``.

    >>> a = simulate(3, seed=42).record
    >>> a == simulate(3, seed=42).record
    True
    """
    names = list(DEFAULT_NAMES[:players]) if isinstance(players, int) else list(players)
    rng = random.Random(seed)
    bot = make_policy(policy)
    match = Match(names, edition, goal)
    colours = list(colours) if colours is not None else default_colours(len(names))
    sim = Simulation(match, [dumps(header_line(names, edition, goal))])
    dealer = rng.randrange(len(names))  # the first dealer is drawn at random (R2.3)
    limit = rounds if rounds is not None else MAX_MATCH_ROUNDS
    for number in range(1, limit + 1):
        if match.is_over():
            break
        dealt = deal(len(names), colours, edition, rng)
        sim.lines.append(dumps(round_line(names, number, dealer, colours, dealt)))
        rnd = match.start_round(dealt, dealer, colours, number)
        uses: Counter[tuple[int, TweakKind]] = Counter()
        while not rnd.is_over():
            turn = bot.choose(rnd, rng)
            if turn.tweak is not None:
                uses[(turn.player, turn.tweak.kind)] += 1
            sim.lines.append(dumps(turn_line(names, turn)))
            match.push(turn)
        sim.tweak_uses.append(uses)
        dealer = next_dealer(dealer, len(names))
    return sim
