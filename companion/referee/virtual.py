"""``virtual:SEED`` for the referee: bots play a round, the virtual camera films it.

Each turn is filmed the way the companion asks players to play (README, "At the table"): a T! card
is turned face down in front of its owner and its effect laid in the centre (a stolen or bombed
card, the Shifter's card); the hand card is laid in the centre; then the won cards are picked up,
a TWEAK's T! card is put face up in front of the player and the deck refills. Between these still
moments a hand passes over the table. The truth (each turn and the round's scores) comes along so
that an evaluation can score the referee.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

from companion.bots import make_policy
from companion.engine.cards import Colour, Edition
from companion.engine.setup import deal, default_colours
from companion.engine.state import Discard, Round, Sum, UseBomb, UseShifter, UseThief

FPS = 10.0
STILL_FRAMES = 3  # frames of each still moment (0.3 s at 10 fps)


@dataclass
class VirtualFrame:
    time: float
    image: np.ndarray
    turns_done: int  # turns fully shown when this frame is taken


@dataclass
class VirtualRound:
    """A simulated round and the table states that show it."""

    players: list[str]
    dealer: int
    colours: list[Colour]
    edition: Edition
    seed: int
    truth: Round
    states: list = field(default_factory=list)  # (TableState, turns done)


def _tweak_label(kind) -> str:
    return f"tweak-{kind.value}"


def play_round(
    players: Sequence[str],
    dealer: int,
    seed: int,
    edition: Edition = Edition.CLASSIC,
    colours: Sequence[Colour] | None = None,
    policy: str = "mixed",
) -> VirtualRound:
    """Play a round with bots and list the table states a camera would see, in order."""
    from scanner.synth.table import TableState

    rng = random.Random(seed)
    colours = list(colours) if colours is not None else default_colours(len(players))
    rnd = Round(players, dealer, deal(len(players), colours, edition, rng), edition)
    bot = make_policy(policy)
    n = len(players)
    slots: list[str | None] = [c.name for c in rnd.table]
    tweak_cards: list[list[str]] = [[] for _ in range(n)]
    out = VirtualRound(list(players), dealer, colours, edition, seed, rnd)

    def put(label: str) -> None:
        if None in slots:
            slots[slots.index(None)] = label
        else:
            slots.append(label)

    def take(label: str) -> None:
        slots[slots.index(label)] = None

    def snapshot(deck_back: int | None, done: int, given: list[list[str]] | None = None) -> None:
        state = TableState(
            players=n,
            table=list(slots),
            deck_back=deck_back,
            tweak_pile=rnd.tweak_pile_left,
            tweak_cards=[list(t) for t in tweak_cards],
            won=[len(w) for w in rnd.won],
            given=[list(g) for g in given] if given else [],
        )
        out.states.append((state, done))

    def deck_back() -> int | None:
        return rnd.deck[rnd.deck_pos].back if rnd.deck_left else None

    snapshot(deck_back(), 0)
    while not rnd.is_over():
        turn = bot.choose(rnd, rng)
        p = turn.player
        done = len(rnd.history)
        back = deck_back()
        given: list[list[str]] = [[] for _ in range(n)]
        if turn.tweak is not None:
            held = tweak_cards[p]
            held[held.index(_tweak_label(turn.tweak.kind))] = "tweak-back"
            if isinstance(turn.tweak, UseThief):  # the victim lays the card in front of them first
                given[turn.tweak.victim].append(turn.tweak.stolen.name)
            elif isinstance(turn.tweak, UseBomb):
                for victim, card in turn.tweak.cards:
                    given[victim].append(card.name)
            elif isinstance(turn.tweak, UseShifter):
                put(rnd.deck[rnd.deck_pos].card.name)
                back = rnd.deck[rnd.deck_pos + 1].back if rnd.deck_left > 1 else None
            snapshot(back, done, given)
            for cards in given:  # ... then into the centre
                for label in cards:
                    put(label)
        play = turn.play
        put(play.card.name if isinstance(play, Discard) else play.hand.name)
        snapshot(back, done)
        tweak_before = rnd.tweak_pos
        draws_before = len(rnd.draws)
        rnd.push(turn)
        if isinstance(play, Sum):
            take(play.hand.name)
            for card in play.take:
                take(card.name)
            if rnd.tweak_pos > tweak_before:
                tweak_cards[p].append(_tweak_label(rnd.tweak_pile[tweak_before]))
        for index, player in rnd.draws[draws_before:]:
            if player is None and not (isinstance(turn.tweak, UseShifter) and index == rnd.draws[draws_before][0]):
                if not any(slots):
                    slots[:] = []  # an emptied table is refilled from its first slots
                put(rnd.deck[index].card.name)
        snapshot(deck_back(), done + 1)
    return out


def centre_zone(virtual: VirtualRound):
    """The virtual camera's calibration: where the centre of the table lies in its pictures."""
    import cv2

    from scanner.geometry.calibration import Calibration
    from scanner.synth.cards import REFERENCE_STYLE
    from scanner.synth.table import CENTRE_MM, render_state, state_scene

    state = virtual.states[0][0]
    rendered = render_state(state, virtual.seed, upright=True, style=REFERENCE_STYLE)  # (the style moves no card)
    width, height = state_scene(state, virtual.seed).size_mm
    x0, y0, x1, y1 = CENTRE_MM
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64) + [width / 2, height / 2]
    hom = np.array(rendered.truth["homography"])
    polygon = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), hom).reshape(-1, 2).astype(np.float32)
    return Calibration((rendered.truth["width"], rendered.truth["height"]), {"centre": polygon})


def frames(
    virtual: VirtualRound, still_frames: int = STILL_FRAMES, fps: float = FPS, noise: float = 2.0, style: Any = None
) -> Iterator[VirtualFrame]:
    """The camera's frames: for each state a hand passing, then ``still_frames`` still ones.
    ``style``: the deck's art (default the reference deck; a ``families.FamilyDeck`` for a deck
    of an art no network trained on)."""
    from scanner.synth.cards import REFERENCE_STYLE
    from scanner.synth.table import arm_over, render_state

    style = style or REFERENCE_STYLE
    rng = random.Random(virtual.seed * 31 + 7)
    noise_rng = np.random.default_rng(virtual.seed)
    now = 0.0
    previous = None
    for state, done in virtual.states:
        if previous is not None and state == previous:
            continue
        previous = state
        image = render_state(state, virtual.seed, upright=True, style=style).image
        yield VirtualFrame(now, arm_over(image, rng), done)
        now += 1 / fps
        for _ in range(still_frames):
            grain = noise_rng.normal(0, noise, image.shape).astype(np.float32)
            yield VirtualFrame(now, np.clip(image + grain, 0, 255).astype(np.uint8), done)
            now += 1 / fps


def perfect_views(virtual: VirtualRound) -> Iterator:
    """The table views a flawless camera would give (no rendering, no recognition): for testing
    move inference on its own."""
    from collections import Counter

    from companion.engine.cards import TweakKind

    from .view import SeenCard, SeenTweak, TableView, parse_card

    now = 0.0
    for state, _ in virtual.states:
        centre = [SeenCard(parse_card(label), (100.0 * i, 0.0)) for i, label in enumerate(state.table) if label]
        tweaks, held, used = [], [Counter() for _ in virtual.players], [0] * len(virtual.players)
        for seat, labels in enumerate(state.tweak_cards):
            for k, label in enumerate(labels):
                kind = None if label == "tweak-back" else TweakKind(label.split("-", 1)[1])
                tweaks.append(SeenTweak(kind, (1000.0 * (seat + 1) + 200.0 * k, 500.0), seat))
                if kind is None:
                    used[seat] += 1
                else:
                    held[seat][kind] += 1
        given = [
            (parse_card(label), seat, (1000.0 * (seat + 1) + 200.0 * (len(state.tweak_cards[seat]) + k), 500.0))
            for seat, labels in enumerate(state.given)
            for k, label in enumerate(labels)
        ]
        target = state.deck_back if state.deck_back is not None else 7
        yield TableView(now, centre, target, state.deck_back is None, held, used, 1.0, tweaks, 100.0, given)
        now += 0.4


def missed_views(virtual: VirtualRound, chance: float = 0.0, before_t_turned: bool = False, seed: int = 0) -> list:
    """``perfect_views`` less the ones a camera misses (an arm over the table at the still moment):
    each with ``chance`` (drawn with ``seed``), and with ``before_t_turned`` each view just before
    a T! card is turned face down, so that the turn before ends in the view where it turns. The
    last is never missed: the table lies still at the round's end."""
    views = list(perfect_views(virtual))
    rng = random.Random(seed)
    kept = []
    for view, after in zip(views, [*views[1:], None], strict=True):
        turned = after is not None and any(then < now for then, now in zip(view.used, after.used, strict=True))
        if after is None or (rng.random() >= chance and not (before_t_turned and turned)):
            kept.append(view)
    return kept
