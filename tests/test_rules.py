"""One test (or a few) per numbered rule of RULES.md, named after the rule."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.engine import (
    Card,
    Colour,
    Discard,
    Edition,
    Match,
    RuleError,
    Sum,
    Turn,
    TweakKind,
    UseBomb,
    UseJoker,
    UseShifter,
    UseThief,
    deal,
    default_colours,
)
from companion.engine.cards import numeric_cards
from companion.engine.match import check_deal
from companion.engine.setup import default_backs, first_player, goal_for, next_dealer

from .helpers import cards, make_round

C = Card.parse


def raises(code: str, rule: str):
    class _Ctx:
        def __enter__(self):
            self.ctx = pytest.raises(RuleError)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            result = self.ctx.__exit__(*exc)
            assert self.info.value.code == code, self.info.value
            assert self.info.value.rule == rule, self.info.value
            return result

    return _Ctx()


# R1 -------------------------------------------------------------------------------------------


def test_R1_1_numeric_cards_nine_per_colour():
    deck = numeric_cards(list(Colour))
    assert len(deck) == 54
    assert sorted(c.value for c in deck if c.colour is Colour.BLUE) == [1, 1, 2, 2, 3, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="R1.1"):
        Card.parse("red-7")


def test_R1_2_backs_spread_evenly_and_set_the_target():
    backs = default_backs(list(Colour))
    all_backs = Counter(b for colour in backs.values() for b in colour)
    assert set(all_backs) == {7, 8, 9, 10}
    assert max(all_backs.values()) - min(all_backs.values()) <= 2
    for colour_backs in backs.values():
        counts = Counter(colour_backs)
        assert max(counts.values()) - min(counts.values()) <= 1
    rnd = make_round(["red-1 red-2 red-3", "blue-1 blue-2 blue-3"], "green-1 green-2", "green-3/10 green-4/8")
    assert rnd.target == 10


def test_R1_3_points():
    assert [C(n).points for n in ("blue-1", "green-6", "red-1", "red-6", "blue-5", "purple-5", "red-5")] == [
        1,
        1,
        3,
        3,
        4,
        4,
        5,
    ]
    assert TweakKind.BOMB.points == 2


def test_R1_4_tweak_cards_by_edition():
    assert Counter(Edition.CLASSIC.tweak_cards()) == {
        TweakKind.THIEF: 4,
        TweakKind.JOKER: 3,
        TweakKind.SHIFTER: 2,
        TweakKind.BOMB: 1,
    }
    assert len(Edition.EXTENDED.tweak_cards()) == 17
    assert 54 + len(Edition.CLASSIC.tweak_cards()) + 1 == 65
    assert 54 + len(Edition.EXTENDED.tweak_cards()) + 1 == 72


def test_R1_5_special_card_is_the_target_seven_under_the_deck():
    rnd = make_round(["red-1", "blue-1"], "green-6 green-1", "")
    assert rnd.target == 7
    rnd.push(Turn(0, Sum(C("red-1"), cards("green-6"))))
    assert rnd.target == 7


# R2 -------------------------------------------------------------------------------------------


def test_R2_1_two_to_six_players_and_play_passes_in_order():
    for n in (1, 7):
        with pytest.raises(RuleError, match="R2.1"):
            Match([f"P{i}" for i in range(n)])
    rnd = make_round(["red-1 red-2", "blue-1 blue-2", "green-1 green-2"], "yellow-6 yellow-5", "red-3/9 red-4/9")
    order = []
    for _ in range(4):
        order.append(rnd.to_move)
        rnd.push(Turn(rnd.to_move, Discard(rnd.hands[rnd.to_move][0])))
    assert order == [0, 1, 2, 0]


def test_R2_2_colours_by_player_count_and_licence():
    assert [len(default_colours(n)) for n in range(2, 7)] == [4, 4, 5, 6, 6]
    assert all(default_colours(n)[0] is Colour.RED for n in range(2, 7))
    assert [c.value for c in default_colours(3)] == ["red", "orange", "yellow", "green"]
    # the player's licence: any colours as long as red is in
    d = deal(2, [Colour.RED, Colour.PURPLE], Edition.CLASSIC, random.Random(1))
    assert {c.colour for h in d.hands for c in h} <= {Colour.RED, Colour.PURPLE}
    with pytest.raises(RuleError, match="R2.2"):
        deal(2, [Colour.BLUE, Colour.GREEN], Edition.CLASSIC, random.Random(1))
    with pytest.raises(RuleError, match="twice"):
        deal(2, [Colour.RED, Colour.RED], Edition.CLASSIC, random.Random(1))


def test_R2_3_dealer_rotates_to_the_right_and_first_player_follows_dealer():
    assert next_dealer(0, 4) == 3 and next_dealer(3, 4) == 2
    assert first_player(3, 4) == 0
    match = Match(["A", "B", "C"])
    rnd = match.start_round(deal(3, default_colours(3), Edition.CLASSIC, random.Random(2)), dealer=1)
    assert rnd.to_move == 2
    while not rnd.is_over():
        match.push(Turn(rnd.to_move, Discard(rnd.hands[rnd.to_move][0])))
    with raises("bad_deal", "R2.3"):
        match.start_round(deal(3, default_colours(3), Edition.CLASSIC, random.Random(3)), dealer=2)
    assert match.start_round(deal(3, default_colours(3), Edition.CLASSIC, random.Random(3)), dealer=0)


def test_R2_4_the_deal():
    for n in range(2, 7):
        d = deal(n, default_colours(n), Edition.EXTENDED, random.Random(n))
        assert all(len(h) == 3 for h in d.hands) and len(d.table) == 2
        assert len(d.deck) == 9 * len(default_colours(n)) - 3 * n - 2
        check_deal(n, default_colours(n), Edition.EXTENDED, d)
    d = deal(2, default_colours(2), Edition.CLASSIC, random.Random(1))
    bad = type(d)(d.hands, d.table, d.deck[1:], d.tweak_pile)
    with raises("bad_deal", "R2.4"):
        check_deal(2, default_colours(2), Edition.CLASSIC, bad)
    assert deal(3, default_colours(3), Edition.CLASSIC, random.Random(9)) == deal(
        3, default_colours(3), Edition.CLASSIC, random.Random(9)
    )


# R3 -------------------------------------------------------------------------------------------


def test_R3_1_target_is_the_back_of_the_deck_top():
    rnd = make_round(["red-1 red-2 red-3", "blue-1"], "green-6 green-1", "orange-1/8 orange-2/10 orange-3/7")
    assert rnd.target == 8
    rnd.push(Turn(0, Discard(C("red-1"))))  # Ana draws orange-1: the next back sets the target
    assert rnd.target == 10


def test_R3_2_target_is_seven_once_the_deck_is_empty():
    rnd = make_round(["red-1 red-2", "blue-1 blue-3"], "green-5 green-1", "orange-1/8")
    rnd.push(Turn(0, Discard(C("red-2"))))
    assert rnd.deck_left == 0 and rnd.target == 7
    rnd.push(Turn(1, Sum(C("blue-1"), cards("green-5 green-1"))))


def test_R3_3_joker_moves_the_target_for_this_turn_only():
    rnd = make_round(
        ["red-1 red-2", "blue-1"],
        "green-6 green-2",
        "orange-1/8 orange-2/8 orange-3/8 orange-4/8 orange-5/8",
        held={0: "joker"},
    )
    rnd.push(Turn(0, Sum(C("red-1"), cards("green-6 green-2")), UseJoker(1)))
    assert rnd.target == 8


# R4 -------------------------------------------------------------------------------------------


def test_R4_1_sum_one_hand_card_and_table_cards_to_the_target():
    rnd = make_round(["green-2 red-1", "blue-1"], "red-3 orange-4 blue-6", "yellow-1/9 yellow-2/10")
    rnd2 = make_round(["green-2 red-1", "blue-1"], "red-3 orange-4 blue-6", "yellow-1/10 yellow-2/10")
    with raises("wrong_sum", "R4.1") as err:
        rnd2.push(Turn(0, Sum(C("green-2"), cards("red-3 orange-4"))))
    assert err.value.message == "green-2 + red-3 + orange-4 = 9, but the target is 10"
    with raises("no_table_card", "R4.1"):
        rnd2.push(Turn(0, Sum(C("green-2"), ())))
    with raises("not_in_hand", "R4.1"):
        rnd2.push(Turn(0, Sum(C("green-3"), cards("red-3"))))
    with raises("not_on_table", "R4.1"):
        rnd2.push(Turn(0, Sum(C("green-2"), cards("red-3 red-3 red-1"))))
    rnd.push(Turn(0, Sum(C("green-2"), cards("red-3 orange-4"))))
    assert Counter(rnd.won[0]) == Counter(cards("green-2 red-3 orange-4"))
    assert rnd.table == list(cards("blue-6"))


def test_R4_2_tweak_takes_the_whole_table_and_wins_the_top_tweak_card():
    rnd = make_round(
        ["red-2 red-1", "blue-1"], "green-3 orange-4", "yellow-1/9 yellow-2/9 yellow-3/9", pile="bomb thief"
    )
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-4"))))
    assert rnd.tweaks_held[0] == [TweakKind.BOMB] and rnd.tweak_counts[0] == 1


def test_R4_2_tweak_with_empty_pile_still_clears_the_table():
    rnd = make_round(["red-2 red-1 red-6", "blue-1"], "green-3 orange-4", "yellow-1/9 yellow-2/9 yellow-3/9")
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-4"))))
    assert rnd.tweak_counts[0] == 1 and rnd.tweaks_held[0] == []
    assert rnd.table == list(cards("yellow-2 yellow-3"))  # refilled from the deck (R4.6)


def test_R4_3_discard_is_always_legal():
    rnd = make_round(["red-6 red-5 red-4", "blue-1"], "green-1 green-2", "yellow-1/7")
    legal = list(rnd.legal_turns())
    assert {t.play for t in legal if isinstance(t.play, Discard)} == {Discard(c) for c in cards("red-6 red-5 red-4")}
    rnd.push(Turn(0, Discard(C("red-6"))))
    assert C("red-6") in rnd.table


def test_R4_4_missed_sums_are_lost():
    rnd = make_round(["red-1 red-4", "blue-1 blue-2"], "green-6 green-3", "yellow-1/7 yellow-2/10 yellow-3/10")
    rnd.push(Turn(0, Discard(C("red-4"))))  # red-1 + green-6 = 7 was possible
    assert rnd.to_move == 1
    with raises("wrong_player", "R2.1"):
        rnd.push(Turn(0, Sum(C("red-1"), cards("green-6"))))


def test_R4_5_at_most_one_tweak_card_and_not_the_one_won_this_turn():
    rnd = make_round(
        ["red-2 red-1", "blue-1 blue-5"], "green-3 orange-4", "yellow-1/9 yellow-2/9 yellow-3/9", pile="joker thief"
    )
    with raises("tweak_not_held", "R4.5"):
        rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-4")), UseJoker(1)))
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-4"))))
    assert rnd.tweaks_held[0] == [TweakKind.JOKER]
    rnd.push(Turn(1, Discard(C("blue-5"))))
    rnd.push(Turn(0, Discard(C("red-1")), UseJoker(-1)))
    assert rnd.tweaks_used[0] == [TweakKind.JOKER]


def test_R4_6_refill_hand_first_then_table():
    rnd = make_round(["red-2 red-1 red-3", "blue-1"], "green-3 orange-4", "yellow-1/9 yellow-2/9 yellow-3/9")
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-4"))))  # TWEAK: hand 2 -> draws 1, table gets 2
    assert sorted(c.name for c in rnd.hands[0]) == ["red-1", "red-3", "yellow-1"]
    assert rnd.table == list(cards("yellow-2 yellow-3"))
    rnd = make_round(["red-2 red-1", "blue-1"], "green-3 orange-4", "yellow-1/9 yellow-2/9")
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-4"))))  # deck runs out: the hand first
    assert sorted(c.name for c in rnd.hands[0]) == ["red-1", "yellow-1", "yellow-2"]
    assert rnd.table == [] and rnd.deck_left == 0


def test_R4_7_empty_hand_loses_the_turn_but_refills():
    rnd = make_round(
        ["red-1 red-2", "blue-1", "green-1 green-2"],
        "yellow-6 yellow-5",
        "orange-1/9 orange-2/9 orange-3/9 orange-4/9 orange-5/9 orange-6/9",
        held={0: "thief"},
    )
    rnd.push(Turn(0, Discard(C("red-1")), UseThief(1, C("blue-1"))))
    # Ben's turn comes with an empty hand: he loses it but refills (R4.6), and Cai plays
    assert rnd.lost_turns == [1]
    assert len(rnd.hands[1]) == 3 and rnd.to_move == 2


def test_R4_7_empty_hand_is_skipped_once_the_deck_is_empty():
    rnd = make_round(["red-1 red-2", "blue-1", "green-1 green-2"], "yellow-6 yellow-5", "orange-1/9", held={0: "thief"})
    rnd.push(Turn(0, Discard(C("red-1")), UseThief(1, C("blue-1"))))
    assert rnd.to_move == 2
    rnd.push(Turn(2, Discard(C("green-1"))))
    assert rnd.to_move == 0 and rnd.lost_turns == []


def test_R4_8_deck_empty_no_drawing_play_out_hands_with_target_seven():
    rnd = make_round(["red-1 red-2", "blue-3 blue-4"], "green-5 green-6", "")
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-5"))))
    assert len(rnd.hands[0]) == 1 and rnd.target == 7


# R5 -------------------------------------------------------------------------------------------


def test_R5_1_round_ends_when_deck_and_hands_are_empty():
    rnd = make_round(["red-1", "blue-3"], "green-6 green-4", "")
    rnd.push(Turn(0, Sum(C("red-1"), cards("green-6"))))
    assert not rnd.is_over()
    rnd.push(Turn(1, Sum(C("blue-3"), cards("green-4"))))
    assert rnd.is_over()
    with raises("round_over", "R5.1"):
        rnd.push(Turn(0, Discard(C("red-1"))))


def test_R5_2_and_R5_3_table_cards_score_nobody_won_piles_and_tweak_cards_do():
    rnd = make_round(["red-5", "blue-1"], "red-2 blue-5", "", pile="joker")
    rnd.push(Turn(0, Sum(C("red-5"), cards("red-2"))))  # 5 + 3
    rnd.push(Turn(1, Discard(C("blue-1"))))
    assert rnd.is_over()
    assert rnd.scores() == [8, 0]  # blue-5 and blue-1 stay on the table


def test_R5_4_unused_tweak_card_still_scores_two():
    rnd = make_round(["red-2", "blue-1"], "green-3 orange-2", "", pile="bomb")
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-3 orange-2"))))  # TWEAK, wins the bomb
    rnd.push(Turn(1, Discard(C("blue-1"))))
    assert rnd.is_over() and rnd.tweaks_held[0] == [TweakKind.BOMB]
    assert rnd.scores()[0] == 3 + 1 + 1 + 2


def test_R5_5_goal_and_tie_rule():
    assert [goal_for(n) for n in range(2, 7)] == [140, 120, 100, 80, 60]
    match = Match(["A", "B"], goal=5)
    rng = random.Random(0)
    rounds = 0
    while not match.is_over():
        rounds += 1
        dealer = match.expected_dealer() if match.results else 0
        rnd = match.start_round(deal(2, default_colours(2), Edition.CLASSIC, rng), dealer)
        while not rnd.is_over():
            match.push(Turn(rnd.to_move, Discard(rnd.hands[rnd.to_move][0])))  # nobody scores
        if rounds > 3:
            break
    assert match.winner is None and match.totals == [0, 0]  # a tie at 0 < goal: no winner
    match = Match(["A", "B"], goal=5)
    from companion.engine.match import RoundResult

    match.results = [RoundResult(1, 0, (10, 10), (0, 0))]
    assert match.winner is None  # tied for the lead above the goal: another round (R5.5)
    match.results.append(RoundResult(2, 1, (3, 1), (0, 0)))
    assert match.winner == 0
    with raises("match_over", "R5.5"):
        match.start_round(deal(2, default_colours(2), Edition.CLASSIC, rng), 0)


# R6 -------------------------------------------------------------------------------------------


def test_R6_1_thief():
    rnd = make_round(["red-1 red-2", "blue-6 blue-4", "green-1"], "yellow-1 yellow-2", "orange-1/9", held={0: "thief"})
    with raises("bad_tweak", "R6.1"):
        rnd.push(Turn(0, Discard(C("red-1")), UseThief(0, C("red-2"))))
    with raises("bad_tweak", "R6.1"):
        rnd.push(Turn(0, Discard(C("red-1")), UseThief(1, C("green-1"))))
    rnd.push(Turn(0, Sum(C("red-2"), cards("blue-6 yellow-1")), UseThief(1, C("blue-6"))))  # R6.5
    assert rnd.hands[1] == [C("blue-4")] and rnd.tweaks_used[0] == [TweakKind.THIEF]


def test_R6_2_joker_plus_or_minus_one():
    rnd = make_round(["red-1 red-2", "blue-1"], "green-5 green-1", "orange-1/9", held={0: "joker"})
    with raises("bad_tweak", "R6.2"):
        rnd.push(Turn(0, Sum(C("red-1"), cards("green-5 green-1")), UseJoker(2)))
    with raises("wrong_sum", "R4.1") as err:
        rnd.push(Turn(0, Sum(C("red-1"), cards("green-5")), UseJoker(1)))
    assert "the target is 10 (9 +1 with the Joker)" in err.value.message
    assert rnd.tweaks_held[0] == [TweakKind.JOKER]  # a refused turn changes nothing
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-5 green-1")), UseJoker(-1)))


def test_R6_3_shifter_moves_the_deck_top_onto_the_table_and_the_next_back_sets_the_target():
    rnd = make_round(
        ["red-1 red-2", "blue-1"], "green-5 green-1", "orange-3/10 orange-4/8 orange-6/7", held={0: "shifter"}
    )
    assert rnd.target == 10
    rnd.push(Turn(0, Sum(C("red-2"), cards("green-5 green-1")), UseShifter()))  # target now 8
    assert rnd.table == [C("orange-3")]
    empty = make_round(["red-1 red-2", "blue-1"], "green-5 green-1", "", held={0: "shifter"})
    with raises("bad_tweak", "R6.3"):
        empty.push(Turn(0, Discard(C("red-1")), UseShifter()))


def test_R6_4_bomb():
    rnd = make_round(
        ["red-1 red-2", "blue-6 blue-4", "green-1", "yellow-3"],
        "purple-1 purple-2",
        "orange-1/9 orange-2/9",
        held={0: "bomb"},
    )
    with raises("bad_tweak", "R6.4"):
        rnd.push(Turn(0, Discard(C("red-1")), UseBomb(((1, C("blue-6")),))))
    with raises("bad_tweak", "R6.4"):
        rnd.push(Turn(0, Discard(C("red-1")), UseBomb(((1, C("blue-5")), (2, C("green-1")), (3, C("yellow-3"))))))
    rnd.push(
        Turn(
            0,
            Sum(C("red-2"), cards("blue-6 green-1")),
            UseBomb(((1, C("blue-6")), (2, C("green-1")), (3, C("yellow-3")))),
        )
    )
    assert rnd.hands[1] == [C("blue-4")] and rnd.hands[2] == [] and rnd.hands[3] == []
    assert Counter(rnd.table) == Counter(cards("purple-1 purple-2 yellow-3"))


def test_R6_5_moved_cards_are_playable_in_the_same_turn():
    rnd = make_round(["red-3 red-2", "blue-6"], "green-1 green-2", "orange-1/9", held={0: "thief"})
    rnd.push(Turn(0, Sum(C("red-3"), cards("blue-6")), UseThief(1, C("blue-6"))))
    assert C("blue-6") in rnd.won[0]


def test_R6_6_one_tweak_card_per_turn_and_not_without_a_hand():
    rnd = make_round(["red-1 red-2", "blue-1"], "green-5 green-1", "orange-1/9", held={0: "joker joker"})
    uses = rnd.legal_tweak_uses()
    assert uses == [UseJoker(1), UseJoker(-1)]
    rnd.push(Turn(0, Discard(C("red-1")), UseJoker(1)))
    assert rnd.tweaks_held[0] == [TweakKind.JOKER]
    rnd.hands[0].clear()
    rnd.to_move = 0
    assert rnd.legal_tweak_uses() == []


def test_a_rule_error_crosses_to_another_process_whole() -> None:
    """The benchmarks referee rounds in worker processes: an error raised there is pickled back
    with its rule, message and code (before, it could not be unpickled and broke the whole pool)."""
    import pickle

    from companion.engine.record import RecordError

    err = pickle.loads(pickle.dumps(RuleError("R4.1", "green-2 is not on the table", code="not_on_table")))
    assert (err.rule, err.message, err.code, str(err)) == (
        "R4.1",
        "green-2 is not on the table",
        "not_on_table",
        "R4.1: green-2 is not on the table",
    )
    line = pickle.loads(pickle.dumps(RecordError(7, RuleError("R4.1", "wrong sum", code="wrong_sum"))))
    assert (line.line, line.rule, line.code) == (7, "R4.1", "wrong_sum")
