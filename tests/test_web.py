"""Every dashboard route through Flask's test client, bad input included: 4xx with a message."""

from __future__ import annotations

import json

import pytest

from companion.engine import Card
from companion.engine.record import replay
from companion.engine.sums import best_sum
from companion.web import get_service

from .conftest import PIN, csrf_of


def new_match(referee, players=("Ana", "Ben", "Cai"), **extra):
    res = referee.post("/api/matches", {"players": list(players), **extra})
    assert res.status_code == 201, res.json
    return res.json["id"]


def state(client, match_id):
    return client.get(f"/api/matches/{match_id}").json


def test_pages_render(app, referee):
    client = app.test_client()
    assert "TWEAK" in client.get("/").get_data(as_text=True)
    match_id = new_match(referee)
    assert client.get(f"/matches/{match_id}").status_code == 200
    assert client.get("/matches/999").status_code == 404
    join = client.get("/join").get_data(as_text=True)
    assert "<svg" in join and "http://localhost/" in join
    manifest = json.loads(client.get("/manifest.webmanifest").get_data(as_text=True))
    assert manifest["display"] == "standalone" and manifest["icons"]
    assert client.get("/static/app.js").status_code == 200


def test_language_from_accept_language_and_switch(app):
    client = app.test_client()
    page = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).get_data(as_text=True)
    assert "Parties" in page and 'lang="fr"' in page
    for lang, word in (("es", "Partidas"), ("nl", "Potjes"), ("sv", "Matcher"), ("en", "Matches")):
        token = csrf_of(client)
        client.post("/lang", data={"lang": lang, "csrf_token": token})
        assert word in client.get("/").get_data(as_text=True)


def test_login_needs_the_right_pin_and_csrf(app):
    client = app.test_client()
    token = csrf_of(client)
    assert client.post("/login", data={"pin": PIN}).status_code == 403  # no CSRF token
    client.post("/login", data={"pin": "000000", "csrf_token": token})
    assert client.post("/api/matches", json={"players": ["A", "B"]}, headers={"X-CSRF-Token": token}).status_code == 403
    assert "Wrong PIN" in client.get("/").get_data(as_text=True)


def test_watchers_are_read_only(app, referee):
    match_id = new_match(referee)
    watcher = app.test_client()
    token = csrf_of(watcher)
    for path in (
        "/api/matches",
        f"/api/matches/{match_id}/turn",
        f"/api/matches/{match_id}/undo",
        f"/api/matches/{match_id}/next-round",
    ):
        res = watcher.post(path, json={}, headers={"X-CSRF-Token": token})
        assert res.status_code == 403 and "referee" in res.json["message"]
    assert watcher.get(f"/api/matches/{match_id}").status_code == 200


def test_state_changes_need_csrf(referee):
    match_id = new_match(referee)
    res = referee.client.post(f"/api/matches/{match_id}/undo", json={})
    assert res.status_code == 403 and "CSRF" in res.json["message"]


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"players": ["Solo"]}, "2 to 6"),
        ({"players": "Ana,Ben"}, "list"),
        ({"players": ["A", "A"]}, "different"),
        ({"players": ["A", "B"], "edition": "deluxe"}, "edition"),
        ({"players": ["A", "B"], "colours": ["blue", "green"]}, "red"),
        ({"players": ["A", "B"], "colours": ["red", "pink"]}, "colour"),
        ({"players": ["A", "B"], "goal": "lots"}, "goal"),
        ({"players": ["A", "B", "C", "D", "E", "F"], "colours": ["red", "blue"]}, "too few"),
        ([1, 2], "object"),
    ],
)
def test_create_match_bad_input(referee, body, fragment):
    res = referee.post("/api/matches", body)
    assert res.status_code == 400 and fragment in res.json["message"]


def test_create_match_not_json(referee):
    res = referee.client.post("/api/matches", data="x", headers={"X-CSRF-Token": referee.token})
    assert res.status_code == 400 and "JSON" in res.json["message"]


def test_match_setup_colours_goal_and_random_dealer(referee):
    match_id = new_match(referee, players=("A", "B"), colours=["red", "purple"], goal=30, edition="extended")
    s = state(referee.client, match_id)
    assert s["goal"] == 30 and s["edition"] == "extended"
    assert s["round"]["colours"] == ["red", "purple"] and s["round"]["tweak_pile_left"] == 17
    dealers = {state(referee.client, new_match(referee))["round"]["dealer"] for _ in range(12)}
    assert len(dealers) > 1  # R2.3: the first dealer is drawn at random


def test_turn_bad_input(referee):
    match_id = new_match(referee)
    s = state(referee.client, match_id)
    hand = s["round"]["hands"][s["round"]["to_move"]]
    cases = [
        ({"play": "fold", "hand": hand[0]}, 400, "play"),
        ({"play": "discard", "hand": "red-9"}, 400, "unknown card"),
        ({"play": "discard", "hand": 5}, 400, "card name"),
        ({"play": "sum", "hand": hand[0], "take": "red-1"}, 400, "list"),
        ({"play": "discard", "hand": hand[0], "tweak": {"card": "wild"}}, 400, "T! card"),
        ({"play": "discard", "hand": hand[0], "tweak": {"card": "joker", "delta": 2}}, 400, "+1 or -1"),
        ({"play": "discard", "hand": hand[0], "player": "Zed"}, 400, "unknown player"),
        ({"play": "discard", "hand": hand[0], "tweak": {"card": "joker", "delta": 1}}, 422, "holds no unused"),
        ({"play": "sum", "hand": hand[0], "take": []}, 422, "at least one table card"),
    ]
    for body, status, fragment in cases:
        res = referee.post(f"/api/matches/{match_id}/turn", body)
        assert res.status_code == status and fragment in res.json["message"], (body, res.json)
    assert referee.post("/api/matches/999/turn", {"play": "discard", "hand": hand[0]}).status_code == 404
    assert referee.post(f"/api/matches/{match_id}/turn", [1]).status_code == 400


def test_invalid_sum_is_refused_with_numbers_logged_and_changes_nothing(referee):
    match_id = new_match(referee)
    before = state(referee.client, match_id)
    r = before["round"]
    hand = r["hands"][r["to_move"]]
    wrong = next(
        ((h, t) for h in hand for t in r["table"] if int(h.split("-")[1]) + int(t.split("-")[1]) != r["target"]), None
    )
    assert wrong is not None
    res = referee.post(f"/api/matches/{match_id}/turn", {"play": "sum", "hand": wrong[0], "take": [wrong[1]]})
    assert res.status_code == 422 and res.json["error"] == "wrong_sum" and res.json["rule"] == "R4.1"
    assert f"but the target is {r['target']}" in res.json["message"]
    after = state(referee.client, match_id)
    assert after["round"] == before["round"]
    assert after["log"][0]["kind"] == "rejected" and after["log"][0]["rule"] == "R4.1"


def play_round(referee, match_id) -> int:
    """Play the round out with the best sums (a TWEAK when possible); returns the TWEAKs made."""
    tweaks = 0
    while True:
        r = state(referee.client, match_id)["round"]
        if r["over"]:
            return tweaks
        hand = [Card.parse(c) for c in r["hands"][r["to_move"]]]
        table = [Card.parse(c) for c in r["table"]]
        options = [(best_sum(table, h, r["target"]), h) for h in hand]
        options = [(s, h) for s, h in options if s is not None]
        if options:
            choice, h = max(options, key=lambda o: (len(o[0].take), o[0].points))
            res = referee.post(
                f"/api/matches/{match_id}/turn", {"play": "sum", "hand": h.name, "take": [c.name for c in choice.take]}
            )
            tweaks += res.json["tweak"]
        else:
            res = referee.post(f"/api/matches/{match_id}/turn", {"play": "discard", "hand": hand[0].name})
        assert res.status_code == 200, res.json


def test_a_whole_round_undo_next_round_and_export(referee):
    match_id = new_match(referee)
    assert referee.post(f"/api/matches/{match_id}/undo").status_code == 409  # nothing yet
    assert referee.post(f"/api/matches/{match_id}/next-round").status_code == 409  # not over (R5.1)
    r = state(referee.client, match_id)["round"]
    referee.post(f"/api/matches/{match_id}/turn", {"play": "discard", "hand": r["hands"][r["to_move"]][0]})
    assert referee.post(f"/api/matches/{match_id}/undo").status_code == 200
    assert state(referee.client, match_id)["round"]["hands"] == r["hands"]
    play_round(referee, match_id)
    s = state(referee.client, match_id)
    assert s["round"]["over"] and len(s["rounds"]) == 1 and sum(s["totals"]) > 0
    assert referee.post(f"/api/matches/{match_id}/turn", {"play": "discard", "hand": "red-1"}).status_code == 409
    assert referee.post(f"/api/matches/{match_id}/next-round").status_code == 200
    s2 = state(referee.client, match_id)
    players = s2["players"]
    assert s2["round"]["dealer"] == players[(players.index(s["round"]["dealer"]) - 1) % 3]  # R2.3
    exported = referee.client.get(f"/api/matches/{match_id}/record")
    assert exported.mimetype == "application/x-ndjson"
    report = replay(exported.get_data())
    assert report["valid"] and report["rounds"][0]["scores"] == dict(zip(players, s["rounds"][0]["scores"]))


def test_match_runs_to_the_goal_and_history_lists_it(referee):
    match_id = new_match(referee, players=("A", "B"), goal=25)
    while True:
        play_round(referee, match_id)
        s = state(referee.client, match_id)
        if s["winner"]:
            break
        assert referee.post(f"/api/matches/{match_id}/next-round").status_code == 200
    assert max(s["totals"]) >= 25
    res = referee.post(f"/api/matches/{match_id}/next-round")
    assert res.status_code == 409 and "won" in res.json["message"]
    listed = referee.client.get("/api/matches").json
    assert listed[0]["id"] == match_id and listed[0]["winner"] == s["winner"]


def test_thief_joker_shifter_bomb_through_the_api(app, referee):
    match_id = new_match(referee, players=("A", "B", "C"))
    live = get_service(app).get(match_id)
    rnd = live.match.current
    player = rnd.to_move
    name = live.match.players[player]
    from companion.engine import TweakKind

    rnd.tweaks_held[player].extend([TweakKind.THIEF])  # as if won earlier (in memory only)
    victim = live.match.players[(player + 1) % 3]
    res = referee.post(
        f"/api/matches/{match_id}/turn",
        {"play": "discard", "hand": rnd.hands[player][0].name, "tweak": {"card": "thief", "victim": victim}},
    )
    assert res.status_code == 200
    assert state(referee.client, match_id)["round"]["used"][name] == ["thief"]


def test_stream_sends_versions(app, referee):
    match_id = new_match(referee)
    body = referee.client.get(f"/api/matches/{match_id}/stream").get_data(as_text=True)
    assert body.startswith("data: ")
    message = json.loads(body.split("\n")[0][len("data: ") :])
    assert message["version"] == 2 and message["state"] == state(referee.client, match_id)
    assert referee.client.get("/api/matches/999/stream").status_code == 404


def test_a_watchers_stream_carries_no_hands(app, referee):
    """The state pushed to a watcher's phone is the watcher's view (R2.4: hands are hidden)."""
    match_id = new_match(referee)
    body = app.test_client().get(f"/api/matches/{match_id}/stream").get_data(as_text=True)
    pushed = json.loads(body.split("\n")[0][len("data: ") :])["state"]
    assert all(hand == [] for hand in pushed["round"]["hands"].values())
    assert sum(pushed["round"]["hand_sizes"].values()) > 0


def test_streams_beyond_the_limit_are_refused_and_the_referee_is_served(app, referee):
    """Each stream holds a server thread: past STREAM_LIMIT a phone is told to poll (503), so the
    referee's requests always find a thread."""
    match_id = new_match(referee)
    app.config.update(STREAM_LIMIT=0)
    res = app.test_client().get(f"/api/matches/{match_id}/stream")
    assert res.status_code == 503 and res.json["error"] == "busy" and res.headers["Retry-After"]
    assert referee.client.get(f"/api/matches/{match_id}").status_code == 200
    assert referee.client.get("/api/health").json == {"ok": True, "streams": 0, "stream_limit": 0}


def test_live_streams_end_when_the_server_stops(app, referee):
    """A phone's live stream waits for news; when the server stops (the hub closes) it ends at
    once instead of writing to a closed server later."""
    import threading
    import time

    match_id = new_match(referee)
    app.config.update(STREAM_TIMEOUT=30.0, KEEPALIVE=30.0)
    closer = threading.Timer(0.3, get_service(app).hub.close)
    closer.start()
    started = time.monotonic()
    body = referee.client.get(f"/api/matches/{match_id}/stream").get_data(as_text=True)
    assert time.monotonic() - started < 5  # not the 30 s of the stream's timeout
    assert body.startswith("data: ")  # the version it was opened with, then the end
    assert get_service(app).hub.wait(match_id, 99, 30.0) is None  # no stream waits again


def test_unknown_routes_and_methods_are_4xx(app):
    client = app.test_client()
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/matches/1/turn").status_code == 405
    assert client.delete("/api/matches").status_code == 405


def test_camera_view_of_the_virtual_table(referee):
    match_id = new_match(referee)
    res = referee.client.get(f"/api/matches/{match_id}/camera.jpg")
    assert res.status_code == 200 and res.mimetype == "image/jpeg"
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(res.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (540, 960, 3)
    assert referee.client.get("/api/matches/999/camera.jpg").status_code == 404


def test_forms_only_redirect_within_the_site(app):
    client = app.test_client()
    token = csrf_of(client)
    res = client.post("/lang", data={"lang": "fr", "csrf_token": token, "next": "https://evil.example/"})
    assert res.status_code == 302 and res.headers["Location"] == "/"
    res = client.post("/lang", data={"lang": "fr", "csrf_token": token, "next": "/matches/1"})
    assert res.headers["Location"] == "/matches/1"


def test_stream_rejects_a_bad_since(referee):
    match_id = new_match(referee)
    res = referee.client.get(f"/api/matches/{match_id}/stream?since=abc")
    assert res.status_code == 400 and "since" in res.json["message"]


def test_servers_starting_at_once_share_one_whole_secret_key(tmp_path):
    """CI's test workers once read the key file between its creation and its write, got an empty
    key and no sessions. Every starter gets the same whole key; an empty file left by a crash is
    renewed, not used."""
    from concurrent.futures import ThreadPoolExecutor

    from companion.web import _instance_secret

    for attempt in range(5):
        folder = tmp_path / f"instance-{attempt}"
        folder.mkdir()
        with ThreadPoolExecutor(8) as pool:
            keys = set(pool.map(_instance_secret, [str(folder)] * 32))
        assert len(keys) == 1 and len(keys.pop()) == 64
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    (crashed / "secret_key").write_text("")
    key = _instance_secret(str(crashed))
    assert len(key) == 64 and (crashed / "secret_key").read_text() == key
    assert oct((crashed / "secret_key").stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in crashed.iterdir()] == ["secret_key"]  # no draft left behind
