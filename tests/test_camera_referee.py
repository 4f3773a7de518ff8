"""The dashboard's camera referee: matches whose rounds are dealt at the table and followed by the
camera (companion.web.table + companion.referee), questions answered and moves tapped by the referee."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from companion.engine import Card, Colour
from companion.engine.record import replay
from companion.referee.view import SeenCard, TableView
from companion.referee.virtual import centre_zone, frames, perfect_views, play_round
from companion.web import create_app, get_service
from companion.web.table import TableReferee

from .conftest import PIN

RED2, GREEN3, ORANGE4, RED4 = Card(Colour.RED, 2), Card(Colour.GREEN, 3), Card(Colour.ORANGE, 4), Card(Colour.RED, 4)


def _view(time: float, cards: list[Card], target: int = 7, doubt: dict[int, Card] | None = None) -> TableView:
    centre = [SeenCard(c, (100.0 * i, 0.0)) for i, c in enumerate(cards)]
    for i, alternative in (doubt or {}).items():
        centre[i] = SeenCard(cards[i], (100.0 * i, 0.0), 0.4, (alternative,))
    return TableView(time, centre, target, False, [Counter(), Counter()], [0, 0])


@pytest.fixture
def camera_match(app):
    """A 2-player camera match, Ana dealing: Ben plays first."""
    service = get_service(app)
    return service, service.create_match(["Ana", "Ben"], camera=True, dealer="Ana", seed=5)


def test_a_camera_match_is_refereed_from_the_virtual_tables_frames(tmp_path) -> None:
    """Real scanner, tracker and move inference on the virtual table's frames: the round the
    dashboard scores is the round played, its record replays, and it survives a restart."""
    from scanner.scan import load_scanner

    config = {
        "DATABASE": str(tmp_path / "t.sqlite3"),
        "REFEREE_PIN": PIN,
        "TESTING": True,
        # (not the checkout's instance folder, where `tweak serve` keeps a user's deck profile)
        "CALIBRATION": str(tmp_path / "calibration.json"),
        "PROFILE": str(tmp_path / "deck-profile.json"),
    }
    app = create_app(config)
    service = get_service(app)
    virtual = play_round(["Ana", "Ben"], 0, 3)
    match_id = service.create_match(["Ana", "Ben"], camera=True, dealer="Ana", seed=1)
    assert service.state(match_id)["round"]["dealing"] is True
    scanner, zones = load_scanner(), centre_zone(virtual)
    table = TableReferee(service, lambda: scanner, lambda: zones)
    events = table.feed((f.time, f.image) for f in frames(virtual))
    assert [e.kind for e in events].count("move") == len(virtual.truth.history)
    state = service.state(match_id)
    assert state["rounds"] == [
        {"round": 1, "dealer": "Ana", "scores": virtual.truth.scores(), "tweaks": virtual.truth.tweak_counts}
    ]
    assert state["round"]["over"] and state["totals"] == virtual.truth.scores()
    assert service.camera_match() is None  # the round is scored: the camera follows nothing until the next
    service.next_round(match_id)
    assert service.camera_match() == match_id
    record = service.record(match_id)
    report = replay(record)
    assert report["valid"], report
    assert sum(1 for e in state["log"] if e.get("source") == "camera") >= min(len(virtual.truth.history), 29)
    again = get_service(create_app(config))  # a restart: the same state from the stored events
    assert again.state(match_id)["rounds"] == state["rounds"] and again.record(match_id) == record


def test_the_deal_is_waited_for_then_moves_come_from_views(camera_match) -> None:
    service, match_id = camera_match
    service.see(match_id, _view(0, [RED2]))  # one card dealt so far
    state = service.state(match_id)
    assert state["round"]["dealing"] and "2 centre cards, 1 seen" in state["note"]
    service.see(match_id, _view(1, [RED2, GREEN3]))
    round_ = service.state(match_id)["round"]
    assert round_["table"] == ["red-2", "green-3"] and round_["target"] == 7 and round_["to_move"] == "Ben"
    assert round_["hand_sizes"] == {"Ana": 3, "Ben": 3} and round_["hands"] == {"Ana": [], "Ben": []}
    assert "orange-4" in round_["options"] and "blue-1" not in round_["options"]  # colours in play (R2.2)
    service.see(match_id, _view(2, [RED2, GREEN3, Card(Colour.ORANGE, 1)]))
    service.see(match_id, _view(3, [RED2, GREEN3, Card(Colour.ORANGE, 1), Card(Colour.ORANGE, 5)]))
    state = service.state(match_id)  # orange-1 was a discard: Ana is now playing
    assert state["round"]["to_move"] == "Ana" and state["log"][0]["discard"] == "orange-1"
    assert state["log"][0]["source"] == "camera"


def test_a_doubtful_card_is_asked_and_the_answer_recomputes_the_round(camera_match, referee) -> None:
    service, match_id = camera_match
    service.see(match_id, _view(0, [RED2, GREEN3]))
    service.see(match_id, _view(1, [RED2, GREEN3, ORANGE4], doubt={2: RED4}))
    events = service.see(match_id, _view(2, [RED2]))  # 4 + 3 = 7: orange-4 or red-4?
    assert [e.kind for e in events] == ["question", "move"]
    state = service.state(match_id)
    (question,) = state["questions"]
    assert question["reason"] == "doubtful reading" and question["turn"] == 1
    assert [r["sum"]["hand"] for r in question["readings"]] == ["orange-4", "red-4"]
    assert state["log"][0]["sum"]["hand"] == "orange-4"  # played meanwhile, the round goes on
    path = f"/api/matches/{match_id}/questions/{question['id']}"
    assert referee.post(path, json={"reading": 7}).status_code == 400
    assert referee.post(path, json={}).status_code == 400
    assert referee.post(f"/api/matches/{match_id}/questions/99", json={"reading": 0}).status_code == 404
    assert referee.post(path, json={"reading": 1}).status_code == 200
    state = service.state(match_id)
    assert state["questions"] == [] and state["log"][0]["kind"] == "corrected"
    assert service.get(match_id).seen.turns[0].turn.play.hand == RED4
    assert referee.post(path, json={"reading": 0}).status_code == 409  # answered once


def test_the_referee_taps_a_move_the_camera_missed_and_undoes_it(camera_match, referee) -> None:
    service, match_id = camera_match
    service.see(match_id, _view(0, [RED2, GREEN3]))
    turn = f"/api/matches/{match_id}/turn"
    wrong = referee.post(turn, json={"play": "sum", "hand": "orange-1", "take": ["red-2"]})
    assert wrong.status_code == 422 and wrong.get_json()["rule"] == "R4.1"
    assert "orange-1 + red-2 = 3" in wrong.get_json()["message"]
    ok = referee.post(turn, json={"play": "sum", "hand": "orange-5", "take": ["red-2"]})  # 5 + 2 = 7
    assert ok.status_code == 200, ok.get_json()
    state = service.state(match_id)
    assert state["round"]["table"] == ["green-3"] and state["round"]["won"]["Ben"] == 2
    assert state["log"][0]["source"] == "referee"
    thief = referee.post(turn, json={"play": "discard", "hand": "blue-1", "tweak": {"card": "thief", "victim": "Ben"}})
    assert thief.status_code == 400 and "stolen" in thief.get_json()["message"]
    assert referee.post(f"/api/matches/{match_id}/undo").status_code == 200
    state = service.state(match_id)
    assert state["round"]["table"] == ["red-2", "green-3"] and state["round"]["to_move"] == "Ben"
    assert referee.post(f"/api/matches/{match_id}/undo").status_code == 409


def test_a_camera_match_needs_its_dealer_among_the_players(referee) -> None:
    bad = referee.post("/api/matches", json={"players": ["Ana", "Ben"], "camera": True, "dealer": "Zoe"})
    assert bad.status_code == 400 and "dealer" in bad.get_json()["message"]
    bad = referee.post("/api/matches", json={"players": ["Ana", "Ben"], "camera": "yes"})
    assert bad.status_code == 400 and "camera" in bad.get_json()["message"]
    ok = referee.post("/api/matches", json={"players": ["Ana", "Ben"], "camera": True, "dealer": "Ben"})
    assert ok.status_code == 201
    state = referee.client.get(f"/api/matches/{ok.get_json()['id']}").get_json()
    assert state["camera"] and state["round"]["dealer"] == "Ben" and state["round"]["dealing"]
    early = referee.post(f"/api/matches/{ok.get_json()['id']}/turn", json={"play": "discard", "hand": "red-1"})
    assert early.status_code == 409 and "R2.4" in early.get_json()["message"]


def test_the_virtual_round_camera_films_the_camera_matchs_round(app) -> None:
    """``tweak serve --camera virtual-round``: an empty table until a camera match starts, then
    that round (its players and dealer) played by bots, which the camera referee follows."""
    from companion.web.table import VirtualRoundCamera
    from scanner.scan import load_scanner

    service = get_service(app)
    camera = VirtualRoundCamera(service, seed=2)
    empty = camera.read()
    assert empty.shape == (720, 1280, 3) and (empty == empty[0, 0]).all()  # one colour: no card
    match_id = service.create_match(["Ana", "Ben", "Cai"], camera=True, dealer="Cai", seed=1)
    scanner = load_scanner()
    table = TableReferee(service, lambda: scanner)
    for i in range(12):  # the deal: a hand passes, then the table is still
        table.step(i / 10, camera.read())
    state = service.state(match_id)["round"]
    assert not state["dealing"] and len(state["table"]) == 2 and state["to_move"] == "Ana"
    assert state["hand_sizes"] == {"Ana": 3, "Ben": 3, "Cai": 3}


def test_the_referee_corrects_a_table_card_the_camera_misread(camera_match, referee) -> None:
    service, match_id = camera_match
    service.see(match_id, _view(0, [RED2, GREEN3]))
    fix = f"/api/matches/{match_id}/table"
    assert referee.post(fix, json={"shown": "red-2", "actual": "red-3"}).status_code == 200  # the deal (R2.4)
    assert service.state(match_id)["round"]["table"] == ["red-3", "green-3"]
    assert service.state(match_id)["log"][0]["kind"] == "table_fixed"
    tweak = {"play": "sum", "hand": "red-1", "take": ["red-3", "green-3"]}  # 1 + 3 + 3 = 7: TWEAK (R4.2)
    assert referee.post(f"/api/matches/{match_id}/turn", json=tweak).get_json()["tweak"] is True
    refill = service.state(match_id)["round"]["table"]  # turned from the deck (R4.6), not seen: guesses
    assert len(refill) == 2
    assert referee.post(fix, json={"shown": refill[0], "actual": "yellow-6"}).status_code == 200
    assert "yellow-6" in service.state(match_id)["round"]["table"]
    bad = referee.post(fix, json={"shown": "blue-9", "actual": "red-1"})
    assert bad.status_code == 400 and "shown" in bad.get_json()["message"]
    missing = referee.post(fix, json={"shown": "purple-4", "actual": "red-1"})
    assert missing.status_code == 409 and "not on the table" in missing.get_json()["message"]
    discard = {"play": "discard", "hand": "orange-2"}
    assert referee.post(f"/api/matches/{match_id}/turn", json=discard).status_code == 200
    laid = referee.post(fix, json={"shown": "orange-2", "actual": "orange-3"})
    assert laid.status_code == 409 and "correct that move" in laid.get_json()["message"]


def test_the_referee_corrects_a_t_card_won_that_the_camera_misread(camera_match, referee, app) -> None:
    """Ben's TWEAK wins the T! pile's top card (R4.2); the dashboard shows it as one kind, the
    referee says it is another: Ben holds that kind, can use it, and a restart keeps it."""
    service, match_id = camera_match
    service.see(match_id, _view(0, [RED2, GREEN3]))
    fix = f"/api/matches/{match_id}/tweak-won"
    tweak = {"play": "sum", "hand": "orange-2", "take": ["red-2", "green-3"]}  # 2 + 2 + 3 = 7 (R4.2)
    assert referee.post(f"/api/matches/{match_id}/turn", json=tweak).get_json()["tweak"] is True
    [shown] = service.state(match_id)["round"]["held"]["Ben"]
    actual = "thief" if shown != "thief" else "bomb"
    bad = referee.post(fix, json={"player": "Zoe", "shown": shown, "actual": actual})
    assert bad.status_code == 400 and "player" in bad.get_json()["message"]
    bad = referee.post(fix, json={"player": "Ben", "shown": shown, "actual": "wizard"})
    assert bad.status_code == 400 and "actual" in bad.get_json()["message"] and "R1.4" in bad.get_json()["message"]
    unheld = referee.post(fix, json={"player": "Ana", "shown": shown, "actual": actual})
    assert unheld.status_code == 409 and "Ana holds no unused" in unheld.get_json()["message"]
    assert service.state(match_id)["round"]["held"] == {"Ana": [], "Ben": [shown]}  # nothing changed
    assert referee.post(fix, json={"player": "Ben", "shown": shown, "actual": actual}).status_code == 200
    assert service.state(match_id)["round"]["held"]["Ben"] == [actual]
    entry = service.state(match_id)["log"][0]
    assert (entry["kind"], entry["player"], entry["shown"], entry["actual"]) == ("tweak_fixed", "Ben", shown, actual)
    again = get_service(create_app(app.config))  # a restart keeps the correction
    assert again.state(match_id)["round"]["held"]["Ben"] == [actual]


def test_a_refused_correction_after_a_round_was_scored_leaves_it_scored(app, referee) -> None:
    """A round followed to its end is scored at once (R5.3). A correction after that (a table card,
    a T! card won) with a bad card name, or one the rules refuse, changes nothing: the round was
    reopened before the correction was tried, and its score was gone from the match (also after a
    restart) until the next change by hand."""
    service = get_service(app)
    virtual = play_round(["Ana", "Ben"], 0, 3)
    match_id = service.create_match(["Ana", "Ben"], camera=True, dealer="Ana", seed=1)
    for view in perfect_views(virtual):
        service.see(match_id, view)
    service.settle(match_id, ended=True)  # (the last card laid is a discard, R5.1)
    scored = service.state(match_id)["rounds"]
    assert [r["scores"] for r in scored] == [virtual.truth.scores()]
    api = f"/api/matches/{match_id}"
    on_table = service.state(match_id)["round"]["table"][0]
    attempts = [
        ("/table", {"shown": "blue-9", "actual": "red-1"}, 400),  # no blue with 2 players (R2.2)
        ("/table", {"shown": "purple-4", "actual": "red-1"}, 409),  # not on the table
        ("/table", {"shown": on_table, "actual": on_table.replace("-", "-x")}, 400),
        ("/tweak-won", {"player": "Ana", "shown": "bomb", "actual": "wizard"}, 400),
        ("/tweak-won", {"player": "Ben", "shown": "thief", "actual": "joker"}, 409),  # holds none
    ]
    for path, body, status in attempts:
        answer = referee.post(api + path, json=body)
        assert answer.status_code == status, (path, body, answer.get_json())
        assert service.state(match_id)["rounds"] == scored
    assert get_service(create_app(app.config)).state(match_id)["rounds"] == scored  # a restart too


def test_without_its_camera_a_camera_match_is_entered_by_hand(camera_match, referee) -> None:
    """The camera missing: the referee enters the deal and the target, then taps the moves."""
    service, match_id = camera_match
    deal = f"/api/matches/{match_id}/deal"
    assert referee.post(deal, json={"table": ["red-2"], "target": 7}).status_code == 400
    bad = referee.post(deal, json={"table": ["red-2", "green-3"], "target": 12})
    assert bad.status_code == 400 and "R3.1" in bad.get_json()["message"]
    wrong = referee.post(deal, json={"table": ["red-2", "blue-3"], "target": 7})  # blue not in play
    assert wrong.status_code == 400 and "R2.2" in wrong.get_json()["message"]
    assert referee.post(deal, json={"table": ["red-2", "green-3"], "target": 7}).status_code == 200
    assert referee.post(deal, json={"table": ["red-2", "green-3"], "target": 7}).status_code == 409
    state = service.state(match_id)
    assert state["round"]["table"] == ["red-2", "green-3"] and state["round"]["target"] == 7
    assert referee.post(f"/api/matches/{match_id}/target", json={"target": 9}).status_code == 200
    assert service.state(match_id)["round"]["target"] == 9
    sum_9 = {"play": "sum", "hand": "orange-4", "take": ["red-2", "green-3"]}  # 4 + 2 + 3 = 9: TWEAK
    played = referee.post(f"/api/matches/{match_id}/turn", json=sum_9)
    assert played.status_code == 200 and played.get_json()["tweak"] is True
    again = get_service(create_app({**service_config(service)}))  # a restart keeps all of it
    assert again.state(match_id)["round"]["won"]["Ben"] == 3


def service_config(service) -> dict:
    """A restart's config: the same database, and the calibration and profile beside it (as the
    ``app`` fixture puts them)."""
    folder = Path(service.storage.path).parent
    return {
        "DATABASE": service.storage.path,
        "REFEREE_PIN": PIN,
        "TESTING": True,
        "CALIBRATION": str(folder / "calibration.json"),
        "PROFILE": str(folder / "deck-profile.json"),
    }


def test_camera_only_routes_refuse_a_manual_match_with_a_reason(referee) -> None:
    made = referee.post("/api/matches", json={"players": ["Ana", "Ben"]})
    match_id = made.get_json()["id"]
    for path, body in (
        ("deal", {"table": ["red-2", "green-3"], "target": 7}),
        ("target", {"target": 8}),
        ("table", {"shown": "red-2", "actual": "red-3"}),
    ):
        answer = referee.post(f"/api/matches/{match_id}/{path}", json=body)
        assert answer.status_code == 409 and answer.get_json()["message"], path
        assert referee.post(f"/api/matches/{match_id}/{path}", json=["not", "an", "object"]).status_code == 400
    assert referee.post(f"/api/matches/{match_id}/questions/1", json={"reading": 0}).status_code == 404
    watcher = referee.client.application.test_client()
    assert watcher.post(f"/api/matches/{match_id}/target", json={"target": 8}).status_code in (400, 403)


def test_serve_refuses_a_virtual_round_camera_without_a_whole_number_seed(tmp_path, capsys) -> None:
    from companion.cli import main

    assert main(["serve", "--camera", "virtual-round:x", "--db", str(tmp_path / "s.sqlite3")]) == 2
    assert "virtual-round:SEED" in capsys.readouterr().err


def test_a_table_no_move_fits_tells_the_referee_until_the_round_changes(app, referee) -> None:
    """Ben's red-2 gone and a blue-6 laid: no move fits the target 7 (R4.1). Seen twice, the camera
    says it cannot follow, and the page says so until a move is recorded; a restart keeps it."""
    service = get_service(app)
    match_id = service.create_match(["Ana", "Ben"], camera=True, dealer="Ana", seed=5)
    service.see(match_id, _view(0, [RED2, GREEN3]))
    blue6 = Card(Colour.BLUE, 6)
    service.see(match_id, _view(1, [GREEN3, blue6]))
    assert service.state(match_id)["camera_stuck"] is None  # once: a card missed in one view
    service.see(match_id, _view(2, [GREEN3, blue6]))
    stuck = service.state(match_id)["camera_stuck"]
    assert stuck["player"] == "Ben" and stuck["rule"] == "R4.1" and "the target is 7" in stuck["message"]
    again = get_service(create_app(app.config))  # rebuilt from the stored events
    assert again.state(match_id)["camera_stuck"] == stuck
    turn = f"/api/matches/{match_id}/turn"
    refused = referee.post(turn, json={"play": "sum", "hand": "orange-1", "take": ["red-2"]})
    assert refused.status_code == 422 and service.state(match_id)["camera_stuck"] == stuck  # (the referee's own)
    assert referee.post(turn, json={"play": "sum", "hand": "orange-5", "take": ["red-2"]}).status_code == 200
    assert service.state(match_id)["camera_stuck"] is None


def test_answering_with_the_move_played_settles_a_doubt_that_a_turn_went_by_unseen(camera_match, referee) -> None:
    """The table is first seen with three centre cards (a move may have begun before the deal was
    seen, R2.4): Ben's discard is asked. The referee answers with the reading played, so Ben was
    the one moving, and Ana's discard after it is played without a question."""
    service, match_id = camera_match
    yellow1, orange5, green6, red6, green1 = (
        Card.parse(n) for n in ("yellow-1", "orange-5", "green-6", "red-6", "green-1")
    )
    service.see(match_id, _view(0, [RED2, GREEN3, ORANGE4]))
    service.see(match_id, _view(1, [yellow1, orange5]))
    service.see(match_id, _view(2, [yellow1, orange5, green6]))
    service.see(match_id, _view(3, [yellow1, orange5, green6, red6]))  # Ana lays red-6: Ben discarded
    (question,) = service.state(match_id)["questions"]
    assert question["reason"] == "a turn may have gone by unseen" and question["turn"] == 1
    answer = referee.post(f"/api/matches/{match_id}/questions/{question['id']}", json={"reading": 0})
    assert answer.status_code == 200
    service.see(match_id, _view(4, [yellow1, orange5, green6, red6, green1]))  # Ben lays green-1
    state = service.state(match_id)
    turns = [(e.get("discard"), e.get("asked")) for e in state["log"] if e.get("kind") == "turn"]
    assert turns == [("red-6", False), ("green-6", True)]  # (the log: newest first)
    assert state["questions"] == []
