"""SQLite event log: every accepted event is on disk (WAL, synchronous=FULL) before it is
acknowledged, so killing the server loses nothing and a restart rebuilds each match exactly.

Events of a match, in order: ``line`` (a game-record line, RECORD.md), ``undo`` (takes the last
turn line back) and ``rejected`` (a refused attempt, kept for the verdict log).

>>> store = Storage(":memory:")
>>> mid = store.create_match("Demo", {"tweak_record": 1, "edition": "classic", "players": ["A", "B"]}, seed=1)
>>> store.append(mid, "undo", {})
2
>>> [e.kind for e in store.events(mid)]
['line', 'undo']
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any

SCHEMA_VERSION = 3
# v2: 'pile_check' (the camera's count of a won pile); v3: camera rounds ('mode', 'seen_round',
# 'seen', 'question', 'answer', 'commit', 'reopen': companion.web.service)
KINDS = (
    *("line", "undo", "rejected", "pile_check"),
    *("mode", "seen_round", "seen", "question", "answer", "commit", "reopen"),
)
SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    seed INTEGER NOT NULL,
    autoplay INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ({kinds})),
    body TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
);
""".format(kinds=", ".join(f"'{kind}'" for kind in KINDS))


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    body: dict[str, Any]
    created: float


@dataclass(frozen=True)
class MatchRow:
    id: int
    name: str
    seed: int
    autoplay: bool
    created: float


class Storage:
    """One SQLite file; safe to share between the server's threads."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """A file from an older version whose events table does not allow every kind of event gets
        the new table, its rows kept."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        sql = self._db.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()[0]
        if version < SCHEMA_VERSION and any(f"'{kind}'" not in sql for kind in KINDS):
            self._db.executescript(
                "BEGIN; ALTER TABLE events RENAME TO events_v1;\n"
                + "CREATE TABLE IF NOT EXISTS events"
                + SCHEMA.split("CREATE TABLE IF NOT EXISTS events", 1)[1]
                + """
                INSERT INTO events SELECT * FROM events_v1;
                DROP TABLE events_v1;
                COMMIT;
                """
            )
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create_match(self, name: str, header: dict[str, Any], seed: int, autoplay: bool = False) -> int:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO matches (name, seed, autoplay, created) VALUES (?, ?, ?, ?)",
                    (name, seed, int(autoplay), time.time()),
                )
                match_id = int(cur.lastrowid or 0)
                self._db.execute(
                    "INSERT INTO events VALUES (?, 1, 'line', ?, ?)", (match_id, json.dumps(header), time.time())
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return match_id

    def append(self, match_id: int, kind: str, body: dict[str, Any]) -> int:
        """Write one event durably and return its sequence number."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?", (match_id,)
                ).fetchone()
                self._db.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                    (match_id, last + 1, kind, json.dumps(body, ensure_ascii=False), time.time()),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return last + 1

    def events(self, match_id: int, after: int = 0) -> list[Event]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, body, created FROM events WHERE match_id = ? AND seq > ? ORDER BY seq",
                (match_id, after),
            ).fetchall()
        return [Event(seq, kind, json.loads(body), created) for seq, kind, body, created in rows]

    def matches(self) -> list[MatchRow]:
        with self._lock:
            rows = self._db.execute("SELECT id, name, seed, autoplay, created FROM matches ORDER BY id DESC").fetchall()
        return [MatchRow(i, n, s, bool(a), c) for i, n, s, a, c in rows]

    def match(self, match_id: int) -> MatchRow | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, name, seed, autoplay, created FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
        return MatchRow(row[0], row[1], row[2], bool(row[3]), row[4]) if row else None
