"""The faces' colour read from their ink (scanner.read.ink, tweak train-ink)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.cli import main
from scanner.labels import FACES
from scanner.metrics import expected_cards, match
from scanner.read.ink import DEFAULT_MODEL, InkError, frame_gains, load_ink_colour
from scanner.scan import load_scanner
from scanner.synth.families import deck
from scanner.synth.table import render_table
from scanner.train.ink import create_dataset, evaluate, fit


def _faces_read_right(scanner, tables) -> tuple[int, int]:
    right = found = 0
    for rendered in tables:
        req, _ = expected_cards(rendered.truth)
        cards = scanner.scan(rendered.image).cards
        for i, j in match([np.array(c["corners"]) for c in req], [c.corners for c in cards]):
            if req[i]["label"] in FACES:
                found += 1
                right += cards[j].label == req[i]["label"]
    return right, found


def test_a_deck_printed_in_coloured_ink_on_black_is_read_by_its_ink_colour() -> None:
    """The dark family (the first network never saw a dark face) prints each face's colour as a frame
    and a numeral on a black card; the network reads its numerals but mostly not its colours."""
    scanner = load_scanner()
    assert scanner.ink is not None  # shipped
    # (the first network's readings: the any-deck network, taught number cards on near-black grounds,
    # reads all 65 of these faces right with the ink or without it; RESULTS, twenty-sixth session)
    scanner.any_deck = None
    tables = [render_table(40_900_000 + i, style=deck("dark", 2)) for i in range(8)]
    with_ink, found = _faces_read_right(scanner, tables)
    scanner.ink = None
    without, found_without = _faces_read_right(scanner, tables)
    assert found == found_without > 50
    assert with_ink >= without + 0.15 * found, (with_ink, without, found)


def test_the_ink_reader_learns_the_colours_from_a_few_tables() -> None:
    features, colours = create_dataset(3, first=64_000_000)
    model = fit(features, colours, 6, steps=500)
    check_features, check_colours = create_dataset(2, first=64_100_000)
    assert len(check_colours) > 10
    assert evaluate(model, check_features, check_colours) > 0.7  # chance: 1 in 6


def test_the_frames_light_is_made_neutral_by_its_cards_white() -> None:
    white = np.full((64, 48, 3), (120, 180, 240), np.uint8)  # a white card under warm light
    red = np.full((64, 48, 3), (30, 40, 200), np.uint8)
    gains = frame_gains([white, red] * 3)
    balanced = white[0, 0] * gains
    assert np.ptp(balanced) < 2.0, balanced  # white again
    # a few cards cannot tell the light from the print: one red card's brightest pixels are its ink
    assert frame_gains([red]).tolist() == frame_gains([]).tolist() == [1.0, 1.0, 1.0]


def test_train_ink_writes_a_model_the_scanner_reads(tmp_path, capsys) -> None:
    out = tmp_path / "ink.json"
    assert main(["train-ink", "--tables", "2", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    model = load_ink_colour(out)
    assert json.loads(out.read_text())["recipe"]["tables"] == 2
    assert model.weights.shape == (len(model.mean), 6)
    assert main(["train-ink", "--tables", "0", "--out", str(out)]) == 2
    assert "--tables 0" in capsys.readouterr().err
    assert main(["train-ink", "--out", str(tmp_path / "no" / "ink.json")]) == 2
    assert "no folder" in capsys.readouterr().err


def test_train_ink_names_tables_without_a_face(monkeypatch, tmp_path, capsys) -> None:
    import scanner.train.ink as training

    monkeypatch.setattr(training, "FACES", frozenset())  # (as if no face lay on the tables)
    assert main(["train-ink", "--tables", "1", "--out", str(tmp_path / "ink.json")]) == 2
    assert "no face lies whole on the 1 tables" in capsys.readouterr().err
    assert not (tmp_path / "ink.json").exists()


def test_the_shipped_ink_model_is_the_one_its_recipe_makes() -> None:
    recipe = json.loads(DEFAULT_MODEL.read_text())["recipe"]
    assert recipe["tables"] == 400 and recipe["seed"] == 0 and recipe["held_out_right"] > 0.95


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("not json", "not JSON"),
        ('{"format": "other"}', "not an ink colour model"),
        ('{"format": "tweak-ink-colour", "colours": ["red"]}', "missing or malformed"),
    ],
)
def test_a_broken_ink_model_is_refused_naming_the_file(tmp_path, text, said) -> None:
    path = tmp_path / "ink.json"
    path.write_text(text)
    with pytest.raises(InkError, match=said) as err:
        load_ink_colour(path)
    assert str(path) in str(err.value)


def test_an_ink_model_of_other_colours_is_refused(tmp_path) -> None:
    data = json.loads(DEFAULT_MODEL.read_text())
    data["colours"] = ["red", "orange", "yellow", "green", "blue", "pink"]
    path = tmp_path / "ink.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InkError, match="six colours"):
        load_ink_colour(path)
