"""A crowd of phones on one live table: `tweak serve` (waitress) with N phones following a match.

    python benchmarks/phones.py [--phones 200] [--turns 30] [--threads T]

Starts the real server on loopback, opens N live streams as the dashboard does (the page's
EventSource; a phone refused a stream polls the state instead, as the page does), then the referee
plays turns (a discard, then its undo) one every --gap seconds. Prints, from each turn's POST to
every phone holding the new state: p50 / p95 / max (goal: p95 <= 200 ms with 200 phones), the
referee's own request times meanwhile (each must be served), phones that never got a version,
and how long a phone that leaves keeps its server thread (dead streams must be noticed in seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

PIN = "80417263"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Referee:
    """The referee's phone: logged in, plays turns through the JSON API."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.csrf = ""

    def request(
        self, method: str, path: str, body: object | None = None, form: dict | None = None
    ) -> tuple[int, object]:
        data = None
        headers = {"X-CSRF-Token": self.csrf}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=30) as res:
                raw = res.read()
                status = res.status
        except urllib.error.HTTPError as err:
            raw, status = err.read(), err.code
        except (OSError, TimeoutError) as err:  # (not served: the crowd holds every thread)
            return 0, str(err)
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def log_in(self) -> None:
        _, page = self.request("GET", "/")
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        self.request("POST", "/login", form={"pin": PIN, "csrf_token": self.csrf})
        _, page = self.request("GET", "/")
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        assert "Log out" in page, "the referee could not log in"


async def _read_chunked_lines(reader: asyncio.StreamReader):
    """The lines of a chunked HTTP body (an SSE stream), as they come."""
    pending = b""
    while True:
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            return
        pending += await reader.readexactly(size)
        await reader.readexactly(2)
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line.decode()


class Phone:
    """A watcher's phone: the live stream, a state fetch when a message carries none."""

    def __init__(self, port: int, match_id: int) -> None:
        self.port, self.match_id = port, match_id
        self.got: dict[int, float] = {}  # version -> when this phone held that state
        self.refused = 0
        self.polling = False

    async def _get(self, path: str) -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        raw = await reader.read()
        writer.close()
        head, _, body = raw.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        if b"transfer-encoding: chunked" in head.lower():
            out, rest = b"", body
            while rest:
                size_s, _, rest = rest.partition(b"\r\n")
                size = int(size_s or b"0", 16)
                if not size:
                    break
                out, rest = out + rest[:size], rest[size + 2 :]
            body = out
        return status, body

    async def _state(self) -> None:
        status, body = await self._get(f"/api/matches/{self.match_id}")
        if status == 200:
            self.got.setdefault(json.loads(body)["version"], time.perf_counter())

    async def follow(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self._stream(stop)
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                await asyncio.sleep(0.5)

    async def _stream(self, stop: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(
            f"GET /api/matches/{self.match_id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split()[1])
        if status != 200:
            # refused a stream (the server keeps threads for the referee): poll, as the page does
            self.refused += 1
            writer.close()
            self.polling = True
            while not stop.is_set():
                await self._state()
                await asyncio.sleep(2.0)
            return
        lines = _read_chunked_lines(reader)
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while True:
                nxt = asyncio.ensure_future(lines.__anext__())
                done, _ = await asyncio.wait({nxt, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping in done:
                    nxt.cancel()
                    return
                try:
                    line = nxt.result()
                except StopAsyncIteration:
                    return
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if "state" in message:
                        self.got.setdefault(message["version"], time.perf_counter())
                    else:  # the page fetches the state
                        await self._state()
        finally:
            stopping.cancel()
            writer.close()


async def _run(args: argparse.Namespace, base: str, port: int, referee: Referee, match_id: int) -> dict:
    phones = [Phone(port, match_id) for _ in range(args.phones)]
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(p.follow(stop)) for p in phones]
    await asyncio.sleep(args.settle)
    loop = asyncio.get_running_loop()
    posted: dict[int, float] = {}
    referee_ms: list[float] = []
    referee_failed = 0
    for k in range(args.turns):
        t0 = time.perf_counter()
        if k % 2 == 0:
            status, state = await loop.run_in_executor(None, referee.request, "GET", f"/api/matches/{match_id}")
            mover = state["round"]["to_move"]
            card = state["round"]["hands"][mover][0]
            status, out = await loop.run_in_executor(
                None, referee.request, "POST", f"/api/matches/{match_id}/turn", {"play": "discard", "hand": card}
            )
        else:
            status, out = await loop.run_in_executor(None, referee.request, "POST", f"/api/matches/{match_id}/undo", {})
        referee_ms.append(1000 * (time.perf_counter() - t0))
        if status != 200:
            referee_failed += 1
            continue
        _, now = await loop.run_in_executor(None, referee.request, "GET", f"/api/matches/{match_id}")
        posted[now["version"]] = t0
        await asyncio.sleep(args.gap)
    await asyncio.sleep(2.0)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    delays = []
    missed = 0
    for version, t0 in posted.items():
        for phone in phones:
            if version in phone.got:
                delays.append(1000 * (phone.got[version] - t0))
            elif not phone.polling:
                missed += 1
    polled = [1000 * (p.got[v] - t0) for v, t0 in posted.items() for p in phones if p.polling and v in p.got]
    return {
        "delays": sorted(delays),
        "missed": missed,
        "refused": sum(p.refused > 0 for p in phones),
        "polled": polled,
        "referee_ms": referee_ms,
        "referee_failed": referee_failed,
    }


def _proc_status(pid: int, field: str) -> int:
    """A number from /proc/PID/status (Threads; VmRSS in kB); -1 where there is none."""
    try:
        return int(re.search(rf"{field}:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1))
    except (OSError, AttributeError):
        return -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=200)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between the referee's turns")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds for the phones to connect")
    parser.add_argument("--threads", type=int, help="tweak serve --threads (default: its own)")
    args = parser.parse_args()
    port = _free_port()
    folder = Path(tempfile.mkdtemp())
    command = [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--db", str(folder / "t.sqlite3"), "--pin", PIN, "--no-virtual"]
    if args.threads:
        command += ["--threads", str(args.threads)]
    env = dict(os.environ, TWEAK_CALIBRATION=str(folder / "none.json"))
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        referee = Referee(base)
        referee.log_in()
        status, made = referee.request("POST", "/api/matches", {"players": ["Ann", "Bo", "Cai", "Dee"], "seed": 3})
        assert status in (200, 201), made
        match_id = made["id"]
        rss_idle = _proc_status(server.pid, "VmRSS") / 1024
        out = asyncio.run(_run(args, base, port, referee, match_id))
        rss_busy = _proc_status(server.pid, "VmRSS") / 1024
        # the phones have all left (their sockets closed): how long their streams keep a thread
        threads = _proc_status(server.pid, "Threads")
        left_at = time.perf_counter()
        left_s = None
        while time.perf_counter() - left_at < 60:
            status, health = referee.request("GET", "/api/health")
            if status == 200 and health["streams"] == 0:
                left_s = time.perf_counter() - left_at
                break
            time.sleep(0.25)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
    delays = out["delays"]
    ref = sorted(out["referee_ms"])
    print(f"phones: {args.phones}, turns: {args.turns}, server threads: {threads}")
    print(f"server memory (RSS): {rss_idle:.0f} MiB idle, {rss_busy:.0f} MiB with the phones")
    if delays:
        p95 = delays[int(0.95 * (len(delays) - 1))]
        print(
            f"turn -> phone holding the new state: p50 {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms, "
            f"max {delays[-1]:.0f} ms (goal p95 <= 200 ms); streamed deliveries {len(delays) - len(out['polled'])}"
        )
    print(f"phones refused a stream (polling instead): {out['refused']}; stream deliveries missed: {out['missed']}")
    print(
        f"referee requests: {len(ref)}, failed {out['referee_failed']}, "
        f"median {statistics.median(ref):.0f} ms, max {ref[-1]:.0f} ms"
    )
    print("every phone gone: the last stream ended after " + (f"{left_s:.1f} s" if left_s is not None else "over 60 s"))


if __name__ == "__main__":
    main()
