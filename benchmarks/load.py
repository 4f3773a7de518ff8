"""Load script (issue: dashboard): 20 phones follow a match live while the referee plays.

    python benchmarks/load.py [--phones 20] [--moves 60]

Starts `tweak serve` (waitress) in a subprocess, opens one server-sent-events stream per phone,
and on every event each phone fetches the new state, as the page does. Prints the update delay
(from the server accepting a move to a phone holding the new state) and the server's memory.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.test_durability import Client, free_port, start_server  # noqa: E402


def follow(port: int, match_id: int, delays: list[float], stop: threading.Event, ready: threading.Barrier) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/api/matches/{match_id}/stream")
    res = conn.getresponse()
    state_conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    first = True
    while not stop.is_set():
        line = res.readline()
        if not line:
            break
        if not line.startswith(b"data: "):
            continue
        event = json.loads(line[6:])
        if first:
            first = False
            ready.wait()
            continue
        state_conn.request("GET", f"/api/matches/{match_id}")
        state = json.loads(state_conn.getresponse().read())
        assert state["version"] >= event["version"]
        delays.append(time.time() - event["at"])
    conn.close()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--pause", type=float, default=0.15)
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(str(Path(tmp) / "load.sqlite3"), port)
        try:
            referee = Client(f"http://127.0.0.1:{port}")
            referee.login()
            match_id = referee.post("/api/matches", {"players": ["Ana", "Ben", "Cai", "Dee"]})[1]["id"]
            rss_idle = rss_mib(proc.pid)
            delays: list[float] = []
            stop = threading.Event()
            ready = threading.Barrier(args.phones + 1)
            phones = [
                threading.Thread(target=follow, args=(port, match_id, delays, stop, ready), daemon=True)
                for _ in range(args.phones)
            ]
            for phone in phones:
                phone.start()
            ready.wait()
            made = 0
            while made < args.moves:
                state = referee.get(f"/api/matches/{match_id}")
                r = state["round"]
                if r["over"]:
                    if state["winner"]:
                        break
                    referee.post(f"/api/matches/{match_id}/next-round", {})
                else:
                    referee.post(
                        f"/api/matches/{match_id}/turn", {"play": "discard", "hand": r["hands"][r["to_move"]][0]}
                    )
                made += 1
                time.sleep(args.pause)
            time.sleep(1.0)
            rss_busy = rss_mib(proc.pid)
            stop.set()
        finally:
            proc.kill()
            proc.wait()
    delays.sort()
    p95 = delays[int(0.95 * (len(delays) - 1))] * 1000
    print(f"phones: {args.phones}, moves: {made}, updates received: {len(delays)} (expected {args.phones * made})")
    print(
        f"update delay: median {statistics.median(delays) * 1000:.1f} ms, p95 {p95:.1f} ms, "
        f"max {delays[-1] * 1000:.1f} ms (goal: p95 <= 200 ms)"
    )
    print(f"server memory (RSS): {rss_idle:.0f} MiB idle, {rss_busy:.0f} MiB with {args.phones} phones")


if __name__ == "__main__":
    main()
