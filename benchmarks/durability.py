"""Power cuts: `tweak serve` killed with SIGKILL while the referee is playing, N times in a row.

    python benchmarks/durability.py [--runs 20] [--seed 1]

Each run starts the server on the same database, plays turns (discards, refused sums, undos) from a
thread as fast as the server answers, kills it (SIGKILL) at a random moment, restarts it and
checks: every turn the server acknowledged (200) is in the record, the match answers, and its state
after the restart is the same after a second restart (replaying the stored events is exact).
Prints acknowledged turns, lost ones (goal 0) and runs whose state differed (goal 0).
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.test_durability import Client, free_port, start_server  # noqa: E402


def _play(client: Client, match_id: int, rng: random.Random, acked: list[str], stop: threading.Event) -> None:
    """Turns until the server dies; each acknowledged discard's record line is remembered."""
    while not stop.is_set():
        try:
            state = client.get(f"/api/matches/{match_id}")
            r = state["round"]
            if r is None or r["over"]:
                client.post(f"/api/matches/{match_id}/next-round", {})
                continue
            roll = rng.random()
            if roll < 0.1:
                client.post(f"/api/matches/{match_id}/turn", {"play": "sum", "hand": "red-1", "take": []})
            elif roll < 0.2 and r["can_undo"]:
                acked.append("undo?")  # an undo sent: if the server dies before it answers, it may be stored
                status, _ = client.post(f"/api/matches/{match_id}/undo", {})
                acked.pop()
                if status == 200:  # an acknowledged undo takes the last turn back
                    if acked and acked[-1] != "undo":
                        acked.pop()
                    else:
                        acked.append("undo")  # (of a turn from before this run)
            else:
                hand = r["hands"][r["to_move"]]
                status, _ = client.post(f"/api/matches/{match_id}/turn", {"play": "discard", "hand": hand[0]})
                if status == 200:
                    acked.append(f"{r['to_move']} discards {hand[0]}")
        except OSError:  # the server is gone
            return


def _discards(record: str) -> list[str]:
    lines = [json.loads(line) for line in record.splitlines() if line.strip()]
    return [f"{line['turn']} discards {line['discard']}" for line in lines if "discard" in line and "turn" in line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    db = str(Path(tempfile.mkdtemp()) / "power.sqlite3")
    port = free_port()
    acked_total = lost_total = differed = 0
    match_id = None
    for run in range(args.runs):
        proc = start_server(db, port)
        client = Client(f"http://127.0.0.1:{port}")
        client.login()
        if match_id is None:
            status, created = client.post("/api/matches", {"players": ["Ana", "Ben", "Cai"], "goal": 10000})
            match_id = created["id"]
        before = _discards(client.opener.open(f"{client.base}/api/matches/{match_id}/record").read().decode())
        acked: list[str] = []
        stop = threading.Event()
        player = threading.Thread(target=_play, args=(client, match_id, random.Random(rng.random()), acked, stop))
        player.start()
        time.sleep(rng.uniform(0.3, 2.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        player.join(timeout=30)
        states = []
        for _ in range(2):
            proc = start_server(db, port)
            client = Client(f"http://127.0.0.1:{port}")
            client.login()
            states.append(
                (
                    client.get(f"/api/matches/{match_id}"),
                    client.opener.open(f"{client.base}/api/matches/{match_id}/record").read().decode(),
                )
            )
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        after = _discards(states[0][1])
        # every acknowledged discard of this run is in the record, in order, after those kept from before
        if acked and acked[-1] == "undo?":  # killed with an undo unanswered: its turn may be taken back
            acked = acked[:-2] if len(acked) > 1 and acked[-2] != "undo" else acked[:-1]
        undone = acked.count("undo")
        acked = [line for line in acked if line != "undo"]
        lost = 0
        position = len(before) - undone
        for line in acked:
            try:
                position = after.index(line, position) + 1
            except ValueError:
                lost += 1
        same = states[0] == states[1]
        acked_total += len(acked)
        lost_total += lost
        differed += not same
        print(f"run {run + 1}: {len(acked)} turns acknowledged, {lost} lost, state after restarts same: {same}")
    print(
        f"runs: {args.runs}; acknowledged turns: {acked_total}; lost: {lost_total} (goal 0); "
        f"runs whose restarted state differed: {differed} (goal 0)"
    )


if __name__ == "__main__":
    main()
