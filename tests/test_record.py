"""Game records (RECORD.md): round trip, `tweak replay` answers and every error code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.engine.record import read_record, replay, split_lines
from companion.simulate import simulate

HEADER = {"tweak_record": 1, "edition": "classic", "players": ["Ana", "Ben"]}


def valid_lines(seed: int = 3, players: int = 2, rounds: int | None = 1) -> list[dict]:
    return [json.loads(line) for line in simulate(players, seed, rounds=rounds, policy="mixed").lines]


def text(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def error_at(lines: list[dict]) -> tuple[int, str]:
    report = replay(text(lines))
    assert report["valid"] is False, report
    return report["line"], report["error"]


def test_valid_record_and_header_only():
    report = replay(text(valid_lines()))
    assert report["valid"] and report["complete"] and len(report["rounds"]) == 1
    assert set(report["totals"]) == {"Ana", "Ben"}
    assert replay(json.dumps(HEADER)) == {
        "valid": True,
        "complete": True,
        "rounds": [],
        "totals": {"Ana": 0, "Ben": 0},
        "winner": None,
    }


def test_incomplete_record_lists_only_finished_rounds():
    lines = valid_lines(rounds=2)
    second_round = max(i for i, line in enumerate(lines) if "round" in line)
    report = replay(text(lines[: second_round + 3]))
    assert report["valid"] and report["complete"] is False and len(report["rounds"]) == 1


def test_writer_round_trips_through_the_reader():
    sim = simulate(4, 11, rounds=None, policy="greedy")
    replayer = read_record(sim.record)
    assert replayer.match.totals == sim.match.totals
    assert [r.scores for r in replayer.match.results] == [r.scores for r in sim.match.results]
    assert replay(sim.record)["winner"] == sim.match.players[sim.match.winner]


@pytest.mark.parametrize(
    "data, line",
    [("", 1), ("\n", 1), (json.dumps(HEADER) + "\n\n", 2), ("[1, 2]", 1), ("{not json", 1), (b"\xff\xfe", 1)],
)
def test_bad_record_form(data, line):
    report = replay(data)
    assert (report["valid"], report["line"], report["error"], report["rule"]) == (False, line, "bad_record", None)


@pytest.mark.parametrize(
    "header",
    [
        {**HEADER, "tweak_record": 2},
        {**HEADER, "edition": "deluxe"},
        {**HEADER, "players": ["Ana"]},
        {**HEADER, "players": ["Ana", "Ana"]},
        {**HEADER, "players": ["Ana", ""]},
        {**HEADER, "players": ["Ana", "x" * 41]},
        {**HEADER, "goal": "100"},
        {**HEADER, "goal": 0},
        {**HEADER, "colour": "red"},
        {"edition": "classic", "players": ["Ana", "Ben"]},
    ],
)
def test_bad_header(header):
    assert error_at([header]) == (1, "bad_record")


def _mutate(lines, index, **changes):
    out = [dict(line) for line in lines]
    out[index] = {**out[index], **changes}
    return out


def first_turn(lines, pred=lambda line: True):
    return next(i for i, line in enumerate(lines) if "turn" in line and pred(line))


def test_bad_record_fields_in_turns_and_rounds():
    lines = valid_lines()
    t = first_turn(lines)
    assert error_at(_mutate(lines, t, turn="Zed")) == (t + 1, "bad_record")
    assert error_at(_mutate(lines, t, extra=1)) == (t + 1, "bad_record")
    assert error_at(_mutate(lines, t, discard="red-9")) == (t + 1, "bad_record")
    assert error_at(_mutate(lines, t, tweak={"card": "joker", "delta": "1"})) == (t + 1, "bad_record")
    assert error_at(_mutate(lines, 1, dealer="Zed")) == (2, "bad_record")
    deck = list(lines[1]["deck"])
    deck[0] = deck[0].split("/")[0]
    assert error_at(_mutate(lines, 1, deck=deck)) == (2, "bad_record")
    assert error_at([lines[0], lines[t]]) == (2, "bad_record")  # a turn before the first round
    assert error_at([lines[0], lines[0]]) == (2, "bad_record")  # a second header
    assert error_at(lines[1:]) == (1, "bad_record")  # no header


def test_bad_deal():
    lines = valid_lines()
    rnd = lines[1]
    hands = dict(rnd["hands"])
    hands.pop("Ben")
    assert error_at(_mutate(lines, 1, hands=hands)) == (2, "bad_deal")
    assert error_at(_mutate(lines, 1, table=[rnd["table"][0], "thief"])) == (2, "bad_deal")
    assert error_at(_mutate(lines, 1, colours=["orange", "yellow", "green", "blue"])) == (2, "bad_deal")
    assert error_at(_mutate(lines, 1, colours=["red", "red", "yellow", "green"])) == (2, "bad_deal")
    assert error_at(_mutate(lines, 1, tweak_pile=rnd["tweak_pile"][1:])) == (2, "bad_deal")
    assert error_at(_mutate(lines, 1, round=2)) == (2, "bad_deal")
    assert error_at(_mutate(lines, 1, table=rnd["table"][:1])) == (2, "bad_deal")


def test_round_over_round_not_over_match_over():
    lines = valid_lines(rounds=2)
    second = max(i for i, line in enumerate(lines) if "round" in line)
    assert error_at(lines[:second] + [lines[second - 1]]) == (second + 1, "round_over")
    assert error_at(lines[:3] + [lines[second]]) == (4, "round_not_over")
    won = simulate(2, 5, rounds=None).lines
    extra = json.loads(simulate(2, 5, rounds=None).lines[1])
    report = replay("\n".join(won) + "\n" + json.dumps(extra))
    assert (report["line"], report["error"], report["rule"]) == (len(won) + 1, "match_over", "R5.5")


def test_turn_errors_in_play_order():
    lines = valid_lines()
    t = first_turn(lines)
    player = lines[t]["turn"]
    other = next(p for p in lines[0]["players"] if p != player)
    hand = lines[1]["hands"][player]
    assert error_at(_mutate(lines, t, turn=other)) == (t + 1, "wrong_player")
    no_play = {"turn": player}
    assert error_at(lines[:t] + [no_play]) == (t + 1, "no_action")
    both = {"turn": player, "discard": hand[0], "sum": {"hand": hand[0], "take": lines[1]["table"][:1]}}
    assert error_at(lines[:t] + [both]) == (t + 1, "no_action")
    assert error_at(lines[:t] + [{"turn": player, "discard": hand[0], "tweak": {"card": "bomb", "cards": {}}}]) == (
        t + 1,
        "tweak_not_held",
    )
    missing = next(f"{c}-{v}" for c in ("red", "orange") for v in range(1, 7) if f"{c}-{v}" not in hand)
    assert error_at(lines[:t] + [{"turn": player, "discard": missing}]) == (t + 1, "not_in_hand")
    assert error_at(lines[:t] + [{"turn": player, "sum": {"hand": hand[0], "take": []}}]) == (t + 1, "no_table_card")
    absent = next(f"{c}-{v}" for c in ("red", "orange") for v in range(1, 7) if f"{c}-{v}" not in lines[1]["table"])
    assert error_at(lines[:t] + [{"turn": player, "sum": {"hand": hand[0], "take": [absent]}}]) == (
        t + 1,
        "not_on_table",
    )


def test_wrong_sum_message_names_cards_and_numbers():
    lines = [
        {"tweak_record": 1, "edition": "classic", "players": ["Ana", "Ben"]},
        {
            "round": 1,
            "dealer": "Ben",
            "colours": ["red", "orange", "yellow", "green"],
            "hands": {"Ana": ["green-2", "red-1", "red-1"], "Ben": ["red-2", "red-2", "red-3"]},
            "table": ["red-3", "orange-4"],
            "deck": [
                f"{c}/10"
                for c in [
                    "red-4",
                    "red-5",
                    "red-6",
                    "orange-1",
                    "orange-1",
                    "orange-2",
                    "orange-2",
                    "orange-3",
                    "orange-3",
                    "orange-5",
                    "orange-6",
                    "yellow-1",
                    "yellow-1",
                    "yellow-2",
                    "yellow-2",
                    "yellow-3",
                    "yellow-3",
                    "yellow-4",
                    "yellow-5",
                    "yellow-6",
                    "green-1",
                    "green-1",
                    "green-2",
                    "green-3",
                    "green-3",
                    "green-4",
                    "green-5",
                    "green-6",
                ]
            ],
            "tweak_pile": ["thief"] * 4 + ["joker"] * 3 + ["shifter"] * 2 + ["bomb"],
        },
        {"turn": "Ana", "sum": {"hand": "green-2", "take": ["red-3", "orange-4"]}},
    ]
    report = replay(text(lines))
    assert report == {
        "valid": False,
        "line": 3,
        "error": "wrong_sum",
        "rule": "R4.1",
        "message": "green-2 + red-3 + orange-4 = 9, but the target is 10",
    }


def test_split_lines_keeps_a_final_newline_only():
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\n\n") == ["a", ""]


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True, input=stdin)


def test_cli_replay_exit_codes(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(simulate(3, 1).record)
    result = run_cli("replay", str(good))
    assert result.returncode == 0 and json.loads(result.stdout)["valid"] is True
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(HEADER) + "\nnot json\n")
    result = run_cli("replay", str(bad))
    assert result.returncode == 1 and json.loads(result.stdout)["error"] == "bad_record"
    assert "Traceback" not in result.stderr
    result = run_cli("replay", str(tmp_path / "missing.jsonl"))
    assert result.returncode == 2 and result.stdout == "" and "cannot read" in result.stderr
    result = run_cli("replay", str(tmp_path))
    assert result.returncode == 2 and result.stdout == ""


def test_cli_simulate_is_deterministic_and_replays(tmp_path):
    a = run_cli("simulate", "--players", "4", "--seed", "9", "--match", "--summary")
    b = run_cli("simulate", "--players", "4", "--seed", "9", "--match")
    assert a.returncode == 0 and a.stdout == b.stdout
    assert "Winner:" in a.stderr and "Round 1" in a.stderr
    path = tmp_path / "m.jsonl"
    path.write_text(a.stdout)
    report = json.loads(run_cli("replay", str(path)).stdout)
    assert report["valid"] and report["complete"] and report["winner"] is not None
    assert run_cli("simulate", "--players", "7", "--seed", "1").returncode == 2
