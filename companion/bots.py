"""Bots that play TWEAK for simulations: ``random``, ``greedy`` and a ``mixed`` table.

Both policies use a held T! card whenever its use is legal (a Joker: when it makes a better sum,
or at the last chance), so simulations exercise every rule of RULES R6.
"""

from __future__ import annotations

import random
from typing import Protocol

from .engine.cards import TweakKind
from .engine.state import Discard, Play, Round, Sum, Turn, TweakUse, UseBomb, UseJoker, UseShifter, UseThief
from .engine.sums import all_sums, best_sum

POLICIES = ("random", "greedy", "mixed")


class Policy(Protocol):
    def choose(self, rnd: Round, rng: random.Random) -> Turn: ...


def _victims(rnd: Round, player: int) -> list[int]:
    return [i for i in range(len(rnd.players)) if i != player and rnd.hands[i]]


def _non_joker_use(rnd: Round, player: int, kind: TweakKind, rng: random.Random, careful: bool) -> TweakUse | None:
    """A Thief, Shifter or Bomb use; the outcomes a real table decides (the stolen card, the
    victims' choices) are drawn here: the Thief's card at random (R6.1), each Bomb victim's card
    by the victim (their least valuable card when ``careful``)."""
    victims = _victims(rnd, player)
    if kind is TweakKind.SHIFTER:
        return UseShifter() if rnd.deck_left else None
    if kind is TweakKind.THIEF:
        if not victims:
            return None
        victim = max(victims, key=lambda v: (len(rnd.hands[v]), -v)) if careful else rng.choice(victims)
        return UseThief(victim, rng.choice(rnd.hands[victim]))
    if kind is TweakKind.BOMB:
        cards = []
        for victim in victims:
            hand = rnd.hands[victim]
            cards.append((victim, min(hand, key=lambda c: (c.points, c.value)) if careful else rng.choice(hand)))
        return UseBomb(tuple(cards))
    return None


def _after(rnd: Round, player: int, use: TweakUse | None) -> Round:
    if use is None or isinstance(use, UseJoker):
        return rnd
    after = rnd.copy()
    after._apply_tweak(player, use)
    return after


def _last_chance(rnd: Round, player: int) -> bool:
    return rnd.deck_left == 0 and len(rnd.hands[player]) == 1


class RandomBot:
    """Uses a random held T! card when legal, then a uniformly random legal sum or discard."""

    def choose(self, rnd: Round, rng: random.Random) -> Turn:
        player = rnd.to_move
        assert player is not None
        use: TweakUse | None = None
        kinds = sorted(set(rnd.tweaks_held[player]), key=lambda k: k.value)
        rng.shuffle(kinds)
        for kind in kinds:
            use = (
                UseJoker(rng.choice((1, -1)))
                if kind is TweakKind.JOKER
                else _non_joker_use(rnd, player, kind, rng, careful=False)
            )
            if use is not None:
                break
        view = _after(rnd, player, use)
        delta = use.delta if isinstance(use, UseJoker) else 0
        hand = list(dict.fromkeys(rnd.hands[player]))
        plays: list[Play] = [Sum(c, take) for c in hand for take in all_sums(view.table, c, view.target + delta)]
        plays += [Discard(c) for c in hand]
        return Turn(player, rng.choice(plays), use)


class GreedyBot:
    """Takes the sum with the most points (a TWEAK when it can), else discards its least
    valuable card; uses Thief, Shifter and Bomb at once, a Joker when it pays."""

    def choose(self, rnd: Round, rng: random.Random) -> Turn:
        player = rnd.to_move
        assert player is not None
        held = rnd.tweaks_held[player]
        use: TweakUse | None = None
        for kind in (TweakKind.BOMB, TweakKind.THIEF, TweakKind.SHIFTER):
            if kind in held:
                use = _non_joker_use(rnd, player, kind, rng, careful=True)
                if use is not None:
                    break
        view = _after(rnd, player, use)
        joker = use is None and TweakKind.JOKER in held
        hand = rnd.hands[player]
        best = None
        best_key: tuple = ()
        for card in dict.fromkeys(hand):
            choice = best_sum(view.table, card, view.target, joker=joker)
            if choice is None:
                continue
            tweak_bonus = 2 if len(choice.take) == len(view.table) else 0
            key = (choice.points + card.points + tweak_bonus, choice.delta == 0, -card.value)
            if not best_key or key > best_key:
                best_key, best = key, (card, choice)
        if best is not None:
            card, choice = best
            if choice.delta:
                use = UseJoker(choice.delta)
            return Turn(player, Sum(card, choice.take), use)
        if joker and _last_chance(rnd, player):
            use = UseJoker(1)
        return Turn(player, Discard(min(hand, key=lambda c: (c.points, c.value))), use)


class MixedTable:
    """Even seats play greedy, odd seats random."""

    def __init__(self) -> None:
        self.greedy, self.random = GreedyBot(), RandomBot()

    def choose(self, rnd: Round, rng: random.Random) -> Turn:
        bot = self.greedy if (rnd.to_move or 0) % 2 == 0 else self.random
        return bot.choose(rnd, rng)


def make_policy(name: str) -> Policy:
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot()
    if name == "mixed":
        return MixedTable()
    raise ValueError(f"unknown policy {name!r} (one of {', '.join(POLICIES)})")
