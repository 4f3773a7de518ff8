"""Enrolment from photos of laid-out cards (``scanner.read.layout``): the rows found and named in
reading order, a photo that does not match its list refused before any card is named, the deck
learned from two photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.cli import main
from scanner.labels import LABELS
from scanner.metrics import quad_iou
from scanner.read.layout import (
    STANDARD_LAYOUT,
    LayoutError,
    layout_text,
    name_cards,
    parse_layout,
    reading_order,
)
from scanner.read.profile import load_profile
from scanner.scan import load_scanner
from scanner.synth.families import deck as family_deck
from scanner.synth.table import render_layout
from scanner.train.enrol_eval import card_photo

ROWS = [["red-3", "purple-3", "blue-5"], ["back-9", "tweak-bomb"]]


@pytest.fixture(scope="module")
def scanner():
    return load_scanner()


def test_the_standard_layout_holds_every_label_once_and_no_turned_photo_matches_it() -> None:
    """Each sheet's rows' counts differ from its own counts turned half round (a photo from the
    other side of the table) and a quarter round (its columns' counts, either way)."""
    laid = [label for sheet in STANDARD_LAYOUT for row in sheet for label in row]
    assert sorted(laid) == sorted(LABELS)
    for sheet in STANDARD_LAYOUT:
        counts = [len(row) for row in sheet]
        columns = [sum(len(row) > c for row in sheet) for c in range(max(counts))]
        assert counts not in (counts[::-1], columns, columns[::-1])
        assert parse_layout(layout_text(sheet), "sheet") == [list(row) for row in sheet]


def test_a_layout_list_names_its_line_when_wrong() -> None:
    with pytest.raises(LayoutError, match=r"t\.txt, line 2: 'red-7' is not a card label"):
        parse_layout("red-1\nred-7", "t.txt")
    with pytest.raises(LayoutError, match=r"line 3: red-1 is named twice \(also on line 1\)"):
        parse_layout("red-1\n\nred-2 red-1", "t.txt")
    with pytest.raises(LayoutError, match="no labels"):
        parse_layout("# nothing\n", "t.txt")
    # rows that read the same turned round: a photo from the other side would name them backwards
    with pytest.raises(LayoutError, match="rows of 2, 1, 2 cards read the same turned round"):
        parse_layout("red-1 red-2\nred-3\nred-4 red-5", "t.txt")


def test_rows_are_read_across_a_turned_photo() -> None:
    """A grid of portrait cards photographed 20 degrees turned, given in shuffled order: rows top
    to bottom, each left to right in the picture (sorting by y alone mixes the rows' ends)."""
    card = np.array([[-31, -44], [31, -44], [31, 44], [-31, 44]], np.float32)
    turn = np.deg2rad(20)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    places = [(x * 92.0, y * 114.0) for y in range(3) for x in range(5)]
    quads = [(card + p) @ rot.T + 500 for p in places]
    order = np.random.default_rng(1).permutation(len(quads))
    rows = reading_order([quads[i] for i in order])
    assert [[int(order[i]) for i in row] for row in rows] == [list(range(r * 5, r * 5 + 5)) for r in range(3)]


def test_laid_out_cards_of_an_unseen_art_are_named_in_their_places(scanner) -> None:
    """The dark family (no network trained on it), both sheets of the standard layout, on a dark
    table and on wood: every card named at its own place."""
    dark = family_deck("dark", 3)
    for sheet, (rows, surface) in enumerate(zip(STANDARD_LAYOUT, ("dark", "wood"))):
        rendered = render_layout([list(row) for row in rows], dark, 60 + sheet, surface=surface)
        truth = {c["label"]: np.array(c["corners"], np.float32) for c in rendered.truth["cards"]}
        named = name_cards(rendered.image, [list(row) for row in rows], scanner, "sheet")
        assert sorted(named) == sorted(truth)
        assert all(quad_iou(quad, truth[label]) >= 0.6 for label, quad in named.items())


def test_a_photo_that_does_not_match_its_list_is_refused(scanner) -> None:
    """A row with a card fewer than the list says: naming on would shift every name after it."""
    dark = family_deck("dark", 3)
    rendered = render_layout(ROWS, dark, 7)
    wanted = [ROWS[0], [*ROWS[1], "green-2"]]
    with pytest.raises(LayoutError, match="found rows of 3, 2 cards, the layout list has 3, 3"):
        name_cards(rendered.image, wanted, scanner, "p.jpg")


def test_a_deck_is_learned_from_a_photo_of_laid_out_cards(scanner, tmp_path, capsys) -> None:
    """``tweak enrol`` on a folder holding a laid-out photo and its list (and a single card's photo
    beside it), an art no network trained on: every label learned, and the profile reads the
    laid-out cards' single photos (other light, elsewhere) as their labels; a photo without its
    list is named, not guessed."""
    art = family_deck("wallpaper", 3)
    rendered = render_layout(ROWS, art, 11)
    photos = tmp_path / "photos"
    (photos / "yellow-2").mkdir(parents=True)
    cv2.imwrite(str(photos / "sheet.jpg"), rendered.image)
    (photos / "sheet.txt").write_text(layout_text(ROWS))
    cv2.imwrite(str(photos / "stray.jpg"), rendered.image)
    cv2.imwrite(str(photos / "yellow-2" / "0.jpg"), card_photo("yellow-2", art, 5))
    profile_path = tmp_path / "deck.json"
    assert main(["enrol", str(photos), "--profile", str(profile_path)]) == 1  # (a photo refused)
    out, err = capsys.readouterr()
    assert "stray.jpg: a photo of laid-out cards needs its layout list stray.txt" in err
    laid = [label for row in ROWS for label in row]
    # (a card whose edge does not show in the photo, under glare, is left out and named)
    hidden = {label for label in laid if f"{label}'s edge hardly shows" in err}
    learned = [label for label in laid if label not in hidden]
    assert len(learned) >= 4
    assert f"{len(learned) + 1} labels from 2 photos" in out  # the laid-out photo and the single card's
    profile = load_profile(profile_path, scanner.classifier)
    assert sorted(profile.enrolled) == sorted([*learned, "yellow-2"])
    scanner.profile = profile
    try:
        read = 0
        for k, label in enumerate(learned):
            cards = scanner.scan(card_photo(label, art, 900 + k)).cards
            read += len(cards) == 1 and cards[0].label == label
    finally:
        scanner.profile = None
    assert read >= len(learned) - 1, (read, learned)


def test_the_wizard_names_laid_out_cards_by_their_sheet(referee, app) -> None:
    """The dashboard's wizard with a sheet of the standard layout under the camera: each card
    proposed as its place's label; the other sheet's rows are refused with what was seen; a sheet
    that is not one is a 400. (On a plain table: on a checked cloth a square may be found as a
    card, and the rows are then refused.)"""
    from tests.helpers import camera_showing

    rows = [list(row) for row in STANDARD_LAYOUT[1]]
    rendered = render_layout(rows, family_deck("wallpaper", 3), 21, surface="felt")
    truth = {c["label"]: np.array(c["corners"], np.float32) for c in rendered.truth["cards"]}
    with camera_showing(app, rendered.image):
        read = referee.post("/api/enrol/capture", json={"sheet": 2})
        assert read.status_code == 200, read.get_json()
        cards = read.get_json()["cards"]
        assert sorted(c["proposed"] for c in cards) == sorted(truth)
        for card in cards:
            assert quad_iou(np.array(card["corners"], np.float32), truth[card["proposed"]]) >= 0.6
        wrong = referee.post("/api/enrol/capture", json={"sheet": 1})
        assert wrong.status_code == 422
        assert "found rows of 6, 6, 4, 4 cards, the layout list has 6, 6, 6, 6, 2" in wrong.get_json()["message"]
        assert referee.post("/api/enrol/capture", json={"sheet": 3}).status_code == 400
        assert referee.post("/api/enrol/capture", json={"sheet": True}).status_code == 400
        # the proposals confirmed as they are
        labels = [c["proposed"] for c in cards]
        assert referee.post("/api/enrol/confirm", json={"labels": labels}).status_code == 200
        assert referee.client.get("/api/enrol").get_json()["pending"] == dict.fromkeys(labels, 1)


def test_cards_laid_out_on_a_checked_cloth_are_refused(scanner) -> None:
    """On a checked cloth every card's outline is off (the cloth's edges), and one laid-out photo
    would teach a whole sheet wrong: refused, naming the table, not learned."""
    rendered = render_layout(ROWS, family_deck("wallpaper", 3), 3, surface="checked")
    with pytest.raises(LayoutError, match="the table around the cards is patterned"):
        name_cards(rendered.image, ROWS, scanner, "p.jpg")
    for surface in ("wood", "felt", "mat", "dark", "cloth"):  # plain tables, and the printed mat
        rendered = render_layout(ROWS, family_deck("wallpaper", 3), 3, surface=surface)
        assert sorted(name_cards(rendered.image, ROWS, scanner, surface)) == sorted(sum(ROWS, []))
