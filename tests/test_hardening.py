"""The dashboard against a hostile but fair user (issue: hardening): no request answers 5xx or
loses accepted data, watchers see what the players at the table see, the PIN holds."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.web import create_app, get_service
from companion.web.auth import LoginThrottle

from .conftest import PIN, Referee, csrf_of


def new_match(referee, players=("Ana", "Ben", "Cai")) -> int:
    res = referee.post("/api/matches", {"players": list(players)})
    assert res.status_code == 201, res.json
    return res.json["id"]


def raw_post(referee, path: str, text: str):
    headers = {"X-CSRF-Token": referee.token, "Content-Type": "application/json"}
    return referee.client.post(path, data=text, headers=headers)


def test_odd_pins_and_tokens_are_refused_not_errors(app) -> None:
    client = app.test_client()
    token = csrf_of(client)
    assert client.post("/login", data={"pin": "٢٤٦٨", "csrf_token": token}).status_code == 302
    assert client.post("/login", data={"pin": "1", "csrf_token": "٢٤٦٨"}).status_code == 403
    assert client.post("/api/matches", json={}, headers={"X-CSRF-Token": "ß" * 40}).status_code == 403


def test_a_huge_match_id_is_not_found(app) -> None:
    assert app.test_client().get("/api/matches/99999999999999999999").status_code == 404
    assert app.test_client().get("/api/matches/99999999999999999999/stream").status_code == 404


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("[" * 5000 + "]" * 5000, "nested deeper"),
        ('{"players": ["a", "b"], "goal": 1e400}', "too large"),
        ('{"players": ["a", "b"], "goal": NaN}', "not a number"),
        ('{"players": ["a\\ud800", "b"]}', "body.players[0]: not valid text"),
        ('{"players": ["a", "b"], "goal": true}', "goal must be a whole number"),
        ('{"players": ["a", "b"], "goal": 1000000000000000000000000000000000000000000000000}', "goal must be 1 to"),
        ('{"players": ["a/b", "c"]}', "'/'"),
        ('{"players": ["a\\u0007", "c"]}', "control characters"),
    ],
)
def test_bad_bodies_name_the_field(referee, body, said) -> None:
    res = raw_post(referee, "/api/matches", body)
    assert res.status_code == 400 and said in res.json["message"], res.json
    assert referee.client.get("/api/matches").json == []  # nothing was stored


def test_a_joker_with_a_float_delta_is_refused_before_anything_is_stored(app, referee) -> None:
    match_id = new_match(referee)
    before = referee.client.get(f"/api/matches/{match_id}").json
    hand = before["round"]["hands"][before["round"]["to_move"]]
    body = {"play": "discard", "hand": hand[0], "tweak": {"card": "joker", "delta": 1.0}}
    res = referee.post(f"/api/matches/{match_id}/turn", body)
    assert res.status_code == 400 and "+1 or -1" in res.json["message"]
    assert referee.client.get(f"/api/matches/{match_id}").json["version"] == before["version"]
    # and after a restart the same state is served
    again = create_app(app.config | {"TESTING": True})
    assert again.test_client().get(f"/api/matches/{match_id}").json["version"] == before["version"]


def test_a_stored_event_that_cannot_be_replayed_is_reported_and_the_rest_serves(app, referee, capsys) -> None:
    good, bad = new_match(referee), new_match(referee, ("Dee", "Eve"))
    storage = get_service(app).storage
    storage.append(bad, "line", {"turn": "Dee", "play": "discard", "hand": "red-99"})  # as a bug once stored
    restarted = create_app(app.config | {"TESTING": True})
    client = restarted.test_client()
    assert client.get("/").status_code == 200
    assert {m["id"] for m in client.get("/api/matches").json} == {good, bad}
    shown = client.get(f"/api/matches/{bad}").json
    assert f"match {bad}: stored event" in shown["note"] and "read-only" in shown["note"] and shown["read_only"]
    assert client.get(f"/api/matches/{good}").json["read_only"] is False
    assert "cannot be replayed" in capsys.readouterr().err
    referee2 = Referee(restarted.test_client())
    hand = referee2.client.get(f"/api/matches/{bad}").json["round"]["hands"]["Dee"]
    res = referee2.post(f"/api/matches/{bad}/turn", {"play": "discard", "hand": hand[0]})
    assert res.status_code == 409 and "cannot be replayed" in res.json["message"]
    assert client.get(f"/api/matches/{good}").status_code == 200


def test_watchers_see_hand_sizes_not_hands_and_no_deck_order(app, referee) -> None:
    match_id = new_match(referee)
    watcher = app.test_client()
    seen = watcher.get(f"/api/matches/{match_id}").json["round"]
    assert all(cards == [] for cards in seen["hands"].values())
    assert seen["hand_sizes"] == {"Ana": 3, "Ben": 3, "Cai": 3}  # as dealt (R2.4), cards not shown
    assert all(
        len(cards) == 3 for cards in referee.client.get(f"/api/matches/{match_id}").json["round"]["hands"].values()
    )
    res = watcher.get(f"/api/matches/{match_id}/record")
    assert res.status_code == 403 and "still to come" in res.json["message"]
    assert referee.client.get(f"/api/matches/{match_id}/record").status_code == 200


def test_wrong_pins_slow_down_per_client_and_for_everyone() -> None:
    now = [0.0]
    throttle = LoginThrottle(clock=lambda: now[0])
    for _ in range(LoginThrottle.PER_CLIENT_FREE):
        assert throttle.wait("a") == 0
        throttle.failed("a")
    throttle.failed("a")
    assert throttle.wait("a") == pytest.approx(2.0)  # 2^(4 - 3) s
    assert throttle.wait("b") == 0  # another client is not blocked by a's failures alone
    for k in range(LoginThrottle.GLOBAL_BURST):
        throttle.failed(f"c{k}")
    assert throttle.wait("d") > 0  # everyone waits once the burst of wrong tries is spent
    now[0] += LoginThrottle.GLOBAL_EVERY
    assert throttle.wait("d") == 0
    # months for half the 6-digit space, from any number of addresses
    assert 500_000 * LoginThrottle.GLOBAL_EVERY / 86400 > 30


def test_the_login_route_is_throttled(app) -> None:
    client = app.test_client()
    token = csrf_of(client)
    for _ in range(LoginThrottle.PER_CLIENT_FREE + 1):
        client.post("/login", data={"pin": "000000", "csrf_token": token})
    client.post("/login", data={"pin": PIN, "csrf_token": token})  # the right PIN, too soon
    assert "Too many wrong PINs" in client.get("/").get_data(as_text=True)
    assert client.post("/api/matches", json={"players": ["A", "B"]}, headers={"X-CSRF-Token": token}).status_code == 403


def test_logout_and_a_new_pin_end_referee_sessions(app, tmp_path) -> None:
    referee = Referee(app.test_client())
    copied = app.test_client()
    cookie = referee.client.get_cookie("session")
    copied.set_cookie("session", cookie.value)
    token = referee.token
    post = lambda c: c.post("/api/matches", json={"players": ["A", "B"]}, headers={"X-CSRF-Token": token})
    assert post(copied).status_code == 201  # a stolen cookie works while the session lives
    referee.client.post("/logout", data={"csrf_token": token})
    assert post(copied).status_code == 403  # ... not after the referee logs out
    again = Referee(app.test_client())
    assert again.post("/api/matches", {"players": ["A", "B"]}).status_code == 201
    other_pin = create_app(app.config | {"REFEREE_PIN": "913402"})
    later = other_pin.test_client()
    later.set_cookie("session", again.client.get_cookie("session").value)
    assert (
        later.post("/api/matches", json={"players": ["A", "B"]}, headers={"X-CSRF-Token": again.token}).status_code
        == 403
    )


def test_a_weak_pin_is_refused(capsys) -> None:
    assert main(["serve", "--pin", "1", "--no-virtual"]) == 2
    assert "weak PIN (shorter than 6 digits)" in capsys.readouterr().err
    assert main(["serve", "--pin", "123456", "--no-virtual"]) == 2
    assert "a run of digits" in capsys.readouterr().err


ROUTES = [
    ("GET", "/api/matches"),
    ("POST", "/api/matches"),
    ("GET", "/api/matches/{id}"),
    ("POST", "/api/matches/{id}/turn"),
    ("POST", "/api/matches/{id}/undo"),
    ("POST", "/api/matches/{id}/next-round"),
    ("GET", "/api/matches/{id}/record"),
    ("POST", "/api/matches/{id}/deal"),
    ("POST", "/api/matches/{id}/target"),
    ("POST", "/api/matches/{id}/table"),
    ("POST", "/api/matches/{id}/tweak-won"),
    ("POST", "/api/matches/{id}/questions/{id}"),
    ("POST", "/api/matches/{id}/piles/{name}"),
    ("GET", "/api/matches/{id}/piles/{name}.jpg"),
    ("GET", "/api/camera"),
    ("POST", "/api/camera/calibrate"),
    ("GET", "/api/matches/{id}/stream"),
    ("POST", "/logout"),
    ("GET", "/calibrate"),
    ("GET", "/enrol"),
    ("GET", "/api/enrol"),
    ("POST", "/api/enrol/confirm"),
    ("POST", "/api/enrol/save"),
    ("POST", "/login"),
    ("POST", "/lang"),
    ("GET", "/join"),
    ("GET", "/matches/{id}"),
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
bodies = (
    json_values.map(json.dumps)
    | st.sampled_from(["[" * 3000, '{"goal": 1e999}', "\\ud800", '{"players": "x"}', "", "null", '{"a": NaN}'])
    | st.text(max_size=30)
)
ids = st.integers(min_value=-5, max_value=5) | st.integers(min_value=2**62, max_value=2**80) | st.just(1)


@settings(
    max_examples=int(os.environ.get("TWEAK_FUZZ_EXAMPLES", "300")),  # benchmarks: 5000
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(route=st.sampled_from(ROUTES), match=ids, other=ids, name=st.text(max_size=10), body=bodies)
def test_no_request_is_answered_with_a_server_error(app, referee, route, match, other, name, body) -> None:
    method, path = route
    path = path.replace("{id}", str(match), 1).replace("{id}", str(other)).replace("{name}", name or "x")
    if not get_service(app).storage.matches():
        new_match(referee)
    headers = {"X-CSRF-Token": referee.token, "Content-Type": "application/json"}
    res = referee.client.open(path, method=method, data=body, headers=headers)
    assert res.status_code < 500, (method, path, body, res.get_data(as_text=True)[:300])


def play_a_round_to_its_end(referee, match_id: int) -> None:
    from companion.engine.sums import best_sum

    for _ in range(200):
        r = referee.client.get(f"/api/matches/{match_id}").json["round"]
        if r["over"]:
            return
        hand = r["hands"][r["to_move"]]
        res = referee.post(f"/api/matches/{match_id}/turn", {"play": "discard", "hand": hand[0]})
        assert res.status_code == 200, res.json
    del best_sum
    raise AssertionError("the round did not end")


def test_a_round_end_is_backed_up_and_a_damaged_database_starts_from_the_backup(tmp_path, capsys) -> None:
    import os

    from companion.storage import backups_folder

    db = str(tmp_path / "t.sqlite3")
    config = {"DATABASE": db, "REFEREE_PIN": PIN, "TESTING": True, "CALIBRATION": str(tmp_path / "c.json")}
    app = create_app(config | {"PROFILE": str(tmp_path / "p.json")})
    referee = Referee(app.test_client())
    match_id = new_match(referee)
    play_a_round_to_its_end(referee, match_id)
    backups = os.listdir(backups_folder(db))
    assert len(backups) == 1
    assert referee.post(f"/api/matches/{match_id}/next-round").status_code == 200
    after_backup = referee.client.get(f"/api/matches/{match_id}").json["version"]
    get_service(app).storage.close()

    with open(db, "r+b") as f:  # a power cut: garbage over the file's header
        f.write(b"\0garbage" * 64)
    restarted = create_app(config | {"PROFILE": str(tmp_path / "p.json")})
    said = capsys.readouterr().err
    assert "was damaged" in said and "started from the backup" in said and "kept aside as" in said
    assert any(name.startswith("t.sqlite3.damaged-") for name in os.listdir(tmp_path))
    shown = restarted.test_client().get(f"/api/matches/{match_id}")
    assert shown.status_code == 200 and shown.json["round"]["over"]  # the round as backed up
    assert shown.json["version"] < after_backup


def test_an_empty_database_file_with_backups_is_damage_not_a_fresh_start(tmp_path, capsys) -> None:
    db = str(tmp_path / "t.sqlite3")
    config = {"DATABASE": db, "REFEREE_PIN": PIN, "TESTING": True, "PROFILE": str(tmp_path / "p.json")}
    app = create_app(config)
    referee = Referee(app.test_client())
    match_id = new_match(referee)
    play_a_round_to_its_end(referee, match_id)
    get_service(app).storage.close()
    open(db, "wb").close()
    restarted = create_app(config)
    assert "the file is empty" in capsys.readouterr().err
    assert [m["id"] for m in restarted.test_client().get("/api/matches").json] == [match_id]


def test_the_join_page_shows_the_servers_own_address_not_the_host_header(app) -> None:
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000/"
    page = app.test_client().get("/join", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "http://192.168.1.20:8000/" in page and "evil.example" not in page
