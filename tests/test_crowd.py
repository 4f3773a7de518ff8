"""A crowd of phones against the real server (waitress): streams are capped below the thread
count so that the referee is always served, and a phone that leaves frees its thread in seconds.
The 200-phone figures come from ``benchmarks/phones.py``."""

from __future__ import annotations

import json
import signal
import socket
import time

from .test_durability import Client, free_port, start_server


def _open_stream(port: int, match_id: int) -> tuple[socket.socket, int]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET /api/matches/{match_id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    return sock, int(head.split()[1])


def _streams(client: Client) -> int:
    return client.get("/api/health")["streams"]


def test_a_crowd_cannot_lock_the_referee_out_and_leavers_free_their_threads(tmp_path):
    port = free_port()
    # 19 threads: 16 kept for the referee and pages, so 3 live streams at most
    proc = start_server(str(tmp_path / "crowd.sqlite3"), port, "--threads", "19")
    phones: list[socket.socket] = []
    try:
        client = Client(f"http://127.0.0.1:{port}")
        match_id = client.new_match()
        statuses = []
        for _ in range(5):
            sock, code = _open_stream(port, match_id)
            phones.append(sock)
            statuses.append(code)
        assert statuses == [200, 200, 200, 503, 503]
        assert _streams(client) == 3
        # the referee is served while the crowd holds its streams, and every stream hears the turn
        started = time.monotonic()
        hand = client.get(f"/api/matches/{match_id}")["round"]
        status, _ = client.post(
            f"/api/matches/{match_id}/turn", {"play": "discard", "hand": hand["hands"][hand["to_move"]][0]}
        )
        assert status == 200 and time.monotonic() - started < 5
        version = client.get(f"/api/matches/{match_id}")["version"]
        for sock in phones[:3]:
            seen = b""
            while f'"version":{version},'.encode() not in seen:
                chunk = sock.recv(65536)
                assert chunk, "the stream ended before the turn arrived"
                seen += chunk
            pushed = seen[seen.rindex(b"data: ") + 6 :].split(b"\n")[0]
            assert json.loads(pushed)["state"]["version"] == version
        # the phones leave: their streams end within a few keepalives (5 s each), not minutes
        for sock in phones:
            sock.close()
        deadline = time.monotonic() + 20
        while _streams(client) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _streams(client) == 0
        assert _open_stream(port, match_id)[1] == 200  # and a new phone gets a stream again
    finally:
        for sock in phones:
            sock.close()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
