"""Property-based tests over random matches (hypothesis)."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.bots import make_policy
from companion.engine import Card, Discard, Edition, Match, Sum, Turn, deal, default_colours
from companion.engine.cards import numeric_cards
from companion.engine.record import Replayer, replay
from companion.engine.state import Round
from companion.engine.sums import all_sums, best_sum
from companion.simulate import simulate

PROFILE = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
players_st = st.integers(2, 6)
seed_st = st.integers(0, 2**32 - 1)
edition_st = st.sampled_from(list(Edition))
policy_st = st.sampled_from(["random", "greedy", "mixed"])


def fingerprint(rnd: Round) -> tuple:
    return (
        tuple(tuple(h) for h in rnd.hands),
        tuple(rnd.table),
        rnd.deck_pos,
        rnd.tweak_pos,
        tuple(tuple(t) for t in rnd.tweaks_held),
        tuple(tuple(t) for t in rnd.tweaks_used),
        tuple(tuple(w) for w in rnd.won),
        tuple(rnd.tweak_counts),
        rnd.to_move,
    )


def check_conservation(rnd: Round, colours) -> None:
    places = Counter(c for h in rnd.hands for c in h)
    places.update(rnd.table)
    places.update(dc.card for dc in rnd.deck[rnd.deck_pos :])
    places.update(c for w in rnd.won for c in w)
    assert places == Counter(numeric_cards(colours))
    tweaks = Counter(rnd.tweak_pile[rnd.tweak_pos :])
    for held, used in zip(rnd.tweaks_held, rnd.tweaks_used):
        tweaks.update(held)
        tweaks.update(used)
    assert tweaks == Counter(rnd.edition.tweak_cards())


@PROFILE
@given(players_st, seed_st, edition_st, policy_st)
def test_every_card_is_in_exactly_one_place_at_every_step(players, seed, edition, policy):
    rng = random.Random(seed)
    colours = default_colours(players)
    rnd = Round(
        [f"P{i}" for i in range(players)], rng.randrange(players), deal(players, colours, edition, rng), edition
    )
    bot = make_policy(policy)
    check_conservation(rnd, colours)
    while not rnd.is_over():
        rnd.push(bot.choose(rnd, rng))
        check_conservation(rnd, colours)
    assert not any(rnd.hands) and rnd.deck_left == 0


@PROFILE
@given(players_st, seed_st, edition_st, policy_st)
def test_round_scores_are_won_pile_points_plus_two_per_tweak_card(players, seed, edition, policy):
    sim = simulate(players, seed, edition, rounds=1, policy=policy)
    rnd = sim.match.current
    for seat in range(players):
        expected = sum(c.points for c in rnd.won[seat]) + 2 * len(rnd.tweaks_won(seat))
        assert sim.match.results[0].scores[seat] == expected


@PROFILE
@given(players_st, seed_st, edition_st, policy_st)
def test_simulate_then_replay_agrees_on_every_score(players, seed, edition, policy):
    sim = simulate(players, seed, edition, rounds=None, policy=policy)
    report = replay(sim.record)
    assert report["valid"] and report["complete"]
    names = sim.match.players
    assert [list(r["scores"].values()) for r in report["rounds"]] == [list(r.scores) for r in sim.match.results]
    assert list(report["totals"].values()) == sim.match.totals
    assert report["winner"] == names[sim.match.winner]


@PROFILE
@given(players_st, seed_st, policy_st)
def test_push_then_pop_restores_the_state_and_every_listed_turn_is_legal(players, seed, policy):
    rng = random.Random(seed)
    rnd = Round([f"P{i}" for i in range(players)], 0, deal(players, default_colours(players), Edition.CLASSIC, rng))
    bot = make_policy(policy)
    while not rnd.is_over():
        before = fingerprint(rnd)
        legal = list(rnd.legal_turns())
        for turn in rng.sample(legal, min(4, len(legal))):
            rnd.push(turn)
            rnd.pop()
            assert fingerprint(rnd) == before
        rnd.push(bot.choose(rnd, rng))


@PROFILE
@given(players_st, seed_st, st.data())
def test_a_corrupted_line_is_rejected_with_the_right_code_at_the_right_line(players, seed, data):
    lines = simulate(players, seed, rounds=1, policy="mixed").lines
    turn_indexes = [i for i, line in enumerate(lines) if line.startswith('{"turn"')]
    index = data.draw(st.sampled_from(turn_indexes))
    replayer = Replayer()
    for line in lines[:index]:
        replayer.feed(line)
    rnd = replayer.current_round
    line = json.loads(lines[index])
    player = rnd.to_move
    hand = rnd.hands[player]
    kind = data.draw(st.sampled_from(["json", "player", "hand", "table", "sum", "field"]))
    if kind == "json":
        corrupted, code = lines[index][:-1], "bad_record"
    elif kind == "field":
        corrupted, code = json.dumps({**line, "bonus": 1}), "bad_record"
    elif kind == "player":
        other = data.draw(st.sampled_from([p for i, p in enumerate(rnd.players) if i != player]))
        corrupted, code = json.dumps({**line, "turn": other}), "wrong_player"
    elif kind == "hand":
        absent = next(c for c in Card._interned.values() if c not in hand)
        corrupted, code = json.dumps({"turn": line["turn"], "discard": absent.name}), "not_in_hand"
    elif kind == "table":
        absent = next(c for c in Card._interned.values() if c not in rnd.table)
        corrupted = json.dumps({"turn": line["turn"], "sum": {"hand": hand[0].name, "take": [absent.name]}})
        code = "not_on_table"
    else:
        wrong = [(h, t) for h in hand for t in rnd.table if h.value + t.value != rnd.target]
        if not wrong:
            return
        h, t = data.draw(st.sampled_from(wrong))
        corrupted, code = json.dumps({"turn": line["turn"], "sum": {"hand": h.name, "take": [t.name]}}), "wrong_sum"
    bad = lines[:index] + [corrupted] + lines[index + 1 :]
    report = replay("\n".join(bad))
    assert (report["valid"], report["line"], report["error"]) == (False, index + 1, code)


@PROFILE
@given(
    st.lists(st.sampled_from(sorted(Card._interned.values(), key=lambda c: c.name)), max_size=12),
    st.sampled_from(sorted(Card._interned.values(), key=lambda c: c.name)),
    st.integers(6, 11),
)
def test_sum_finder_matches_brute_force(table, hand, target):
    import itertools

    brute = set()
    for r in range(1, len(table) + 1):
        for combo in itertools.combinations(range(len(table)), r):
            chosen = [table[i] for i in combo]
            if hand.value + sum(c.value for c in chosen) == target:
                brute.add(tuple(sorted(chosen, key=lambda c: c.name)))
    found = {tuple(sorted(s, key=lambda c: c.name)) for s in all_sums(table, hand, target)}
    assert found == brute
    best = best_sum(table, hand, target)
    if brute:
        assert best.points == max(sum(c.points for c in s) for s in brute)
    else:
        assert best is None


def test_match_plays_to_a_single_winner_over_many_seeds():
    for seed in range(20):
        sim = simulate(2 + seed % 5, seed, rounds=None, policy="greedy")
        totals = sim.match.totals
        assert max(totals) >= sim.match.goal and totals.count(max(totals)) == 1


def test_bots_use_every_kind_of_tweak_card():
    used = Counter()
    for seed in range(10):
        sim = simulate(4, seed, Edition.EXTENDED, rounds=3, policy="mixed")
        for uses in sim.tweak_uses:
            for (_, kind), n in uses.items():
                used[kind] += n
    assert set(used) == set(Edition.EXTENDED.tweak_counts)


def test_legal_turns_include_sums_discards_and_tweak_uses():
    rng = random.Random(1)
    match = Match(["A", "B", "C"])
    rnd = match.start_round(deal(3, default_colours(3), Edition.CLASSIC, rng), 0)
    turns = list(rnd.legal_turns())
    assert any(isinstance(t.play, Discard) for t in turns)
    assert all(t.tweak is None for t in turns)  # nobody holds a T! card at the deal
    assert all(rnd.is_legal(t) for t in turns)
    assert all(isinstance(t.play, (Sum, Discard)) and t.player == rnd.to_move for t in turns)
    assert not rnd.is_legal(Turn((rnd.to_move + 1) % 3, turns[0].play))
