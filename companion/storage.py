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


# --- damage and backups ------------------------------------------------------------------------

BACKUPS_KEPT = 5  # generations of backups kept beside the database


class StorageDamaged(Exception):
    pass


def backups_folder(path: str) -> str:
    return path + ".backups"


def backup(storage: Storage) -> str | None:
    """A consistent copy of the database (SQLite's backup API) in ``<db>.backups/``, keeping the
    newest BACKUPS_KEPT; taken at every round's end. None for an in-memory database."""
    import os

    if storage.path == ":memory:":
        return None
    folder = backups_folder(storage.path)
    os.makedirs(folder, exist_ok=True)
    name = os.path.join(
        folder, time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{time.time_ns() % 10**9:09d}.sqlite3"
    )
    target = sqlite3.connect(name)
    try:
        with storage._lock:
            storage._db.backup(target)
    finally:
        target.close()
    for old in sorted(f for f in os.listdir(folder) if f.endswith(".sqlite3"))[:-BACKUPS_KEPT]:
        os.remove(os.path.join(folder, old))
    return name


def _check(path: str) -> str | None:
    """What is wrong with the database file at ``path`` (None: it reads as a sound database)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            result = db.execute("PRAGMA quick_check").fetchall()
            if result != [("ok",)]:
                return "; ".join(str(r[0]) for r in result[:3])
            db.execute("SELECT COUNT(*) FROM events").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError as err:
        return str(err)
    return None


def _event_count(path: str) -> int | None:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return None


def open_storage(path: str) -> tuple[Storage, str | None]:
    """The database at ``path``, checked first (``PRAGMA quick_check``; an empty file where backups
    exist counts as damaged: a power cut on an SD card). A damaged file is kept aside and the newest
    sound backup taken instead; the second value says so in one line (None: all was well)."""
    import os
    import shutil

    if path == ":memory:" or not os.path.exists(path):
        return Storage(path), None
    folder = backups_folder(path)
    backups = (
        sorted((f for f in os.listdir(folder) if f.endswith(".sqlite3")), reverse=True) if os.path.isdir(folder) else []
    )
    if os.path.getsize(path) == 0:
        if not backups:
            return Storage(path), None  # a new database
        problem: str | None = "the file is empty"
    else:
        problem = _check(path)
    if problem is None:
        return Storage(path), None
    aside = f"{path}.damaged-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    os.replace(path, aside)
    for extra in ("-wal", "-shm"):
        if os.path.exists(path + extra):
            os.replace(path + extra, aside + extra)
    for name in backups:
        source = os.path.join(folder, name)
        if _check(source) is None:
            shutil.copyfile(source, path)
            kept = _event_count(source) or 0
            when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(os.path.getmtime(source)))
            return Storage(path), (
                f"the database {path} was damaged ({problem}): kept aside as {aside}; started from the backup "
                f"of {when} ({kept} events); what was played after it is lost (at most the round then in play)"
            )
    return Storage(path), (
        f"the database {path} was damaged ({problem}) and no sound backup exists: kept aside as {aside}; "
        "started with no matches"
    )
