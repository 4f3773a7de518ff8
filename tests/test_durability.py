"""Kill the server (SIGKILL) in the middle of a round, restart it: the state is identical."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

PIN = "135790"


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.opener.open(base + "/").read().decode()
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)

    def login(self) -> None:
        data = f"pin={PIN}&csrf_token={self.token}".encode()
        self.opener.open(urllib.request.Request(self.base + "/login", data=data))

    def new_match(self, players: tuple[str, ...] = ("Ana", "Ben", "Cai")) -> int:
        """Log in as the referee and start a match; its id."""
        self.login()
        status, created = self.post("/api/matches", {"players": list(players)})
        assert status == 201, created
        return created["id"]

    def get(self, path: str) -> dict:
        return json.loads(self.opener.open(self.base + path).read())

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.token},
        )
        try:
            with self.opener.open(request) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())


def start_server(db: str, port: int, *extra: str, virtual: bool = False) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            db,
            "--pin",
            PIN,
            *([] if virtual else ["--no-virtual"]),
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sigkill_mid_round_then_restart_resumes_exactly(tmp_path):
    db = str(tmp_path / "kill.sqlite3")
    port = free_port()
    proc = start_server(db, port)
    try:
        client = Client(f"http://127.0.0.1:{port}")
        match_id = client.new_match()
        for _ in range(7):
            r = client.get(f"/api/matches/{match_id}")["round"]
            status, _ = client.post(
                f"/api/matches/{match_id}/turn", {"play": "discard", "hand": r["hands"][r["to_move"]][0]}
            )
            assert status == 200
        client.post(f"/api/matches/{match_id}/turn", {"play": "sum", "hand": "red-1", "take": []})  # refused
        client.post(f"/api/matches/{match_id}/undo", {})
        before = client.get(f"/api/matches/{match_id}")
        record_before = client.opener.open(f"{client.base}/api/matches/{match_id}/record").read()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert not before["round"]["over"] and before["round"]["table"]

    proc = start_server(db, port)
    try:
        client = Client(f"http://127.0.0.1:{port}")
        client.login()  # (the hands and the record in play are the referee's)
        after = client.get(f"/api/matches/{match_id}")
        record_after = client.opener.open(f"{client.base}/api/matches/{match_id}/record").read()
        r = after["round"]
        status, _ = client.post(
            f"/api/matches/{match_id}/turn", {"play": "discard", "hand": r["hands"][r["to_move"]][0]}
        )
        assert status == 200  # and play goes on
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert after == before
    assert record_after == record_before


def test_a_stopped_server_ends_its_live_streams_and_exits_at_once(tmp_path):
    """``systemctl stop`` (SIGTERM) with a phone following a match live: the stream ends and the
    server exits cleanly at once, rather than after waitress has waited for the stream's thread."""
    import threading

    db = str(tmp_path / "stop.sqlite3")
    port = free_port()
    proc = start_server(db, port)
    ended: list[str] = []
    try:
        client = Client(f"http://127.0.0.1:{port}")
        client.login()
        status, created = client.post("/api/matches", {"players": ["Ana", "Ben"]})
        assert status == 201

        def follow() -> None:
            try:
                with urllib.request.urlopen(f"{client.base}/api/matches/{created['id']}/stream", timeout=60) as res:
                    res.read()
                ended.append("closed")
            except Exception as err:  # the connection may also be cut: ended either way
                ended.append(type(err).__name__)

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        time.sleep(1.0)  # the stream is open and waiting for a change
        stopped = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        took = time.monotonic() - stopped
        follower.join(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0
    assert took < 3.0  # waitress alone waits 5 s for a busy thread, then leaves it running
    assert ended  # the follower's stream came to an end
