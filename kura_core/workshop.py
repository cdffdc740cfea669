"""The workshop database: `_still/kura.db`, SQLite in WAL mode.

Operational state only — watermarks and reservations, distiller metrics, the gate log,
seeds, the trigger ledger, the recall read log, model call outcomes and the tender
heartbeat. Deleting this file loses no memory; it only forgets progress and history.

SQLite gives us transactions and cross-process locking, so nothing here invents lock
files. Each connection is per thread; migrations are numbered and run once.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .errors import KuraError

DB_NAME = "kura.db"

MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema
    """
    CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE watermarks (
        journal TEXT PRIMARY KEY,       -- adapter + ':' + resolved path
        adapter TEXT NOT NULL,
        unit TEXT NOT NULL,             -- 'byte' | 'seq'
        mark INTEGER NOT NULL,
        identity TEXT NOT NULL DEFAULT '',
        updated REAL NOT NULL
    );
    CREATE TABLE reservations (
        id INTEGER PRIMARY KEY,
        journal TEXT NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        owner TEXT NOT NULL,
        state TEXT NOT NULL,            -- 'held' | 'shelved'
        reason TEXT NOT NULL DEFAULT '',
        attempts INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX reservations_journal ON reservations(journal, state);
    CREATE TABLE batches (
        id INTEGER PRIMARY KEY,
        journal TEXT NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        unit TEXT NOT NULL,
        segments INTEGER NOT NULL,
        raw_tokens INTEGER NOT NULL,
        candidates INTEGER NOT NULL DEFAULT 0,
        drafts INTEGER NOT NULL DEFAULT 0,
        dropped INTEGER NOT NULL DEFAULT 0,
        seeds INTEGER NOT NULL DEFAULT 0,
        at REAL NOT NULL
    );
    CREATE TABLE gate_log (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        kind TEXT NOT NULL,             -- 'dropped' | 'tossed' | 'refused' | 'fixed' | 'poured' | ...
        title TEXT NOT NULL DEFAULT '',
        slug TEXT NOT NULL DEFAULT '',
        reason TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX gate_log_at ON gate_log(at);
    CREATE TABLE seeds (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        quotes TEXT NOT NULL DEFAULT '[]',
        state TEXT NOT NULL DEFAULT 'waiting',   -- 'waiting' | 'graduated' | 'withered'
        source TEXT NOT NULL DEFAULT '',
        updated REAL NOT NULL
    );
    CREATE TABLE trigger_ledger (
        key TEXT PRIMARY KEY,           -- digest of description + budget + ledger version
        trigger TEXT NOT NULL,
        source TEXT NOT NULL,           -- 'scribe' | 'mechanical'
        at REAL NOT NULL
    );
    CREATE TABLE read_log (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        question TEXT NOT NULL,
        how TEXT NOT NULL,
        picked TEXT NOT NULL DEFAULT '[]',
        elapsed_ms REAL NOT NULL DEFAULT 0
    );
    CREATE TABLE model_calls (
        role TEXT PRIMARY KEY,
        calls INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        last_ok_at REAL,
        last_error TEXT NOT NULL DEFAULT '',
        last_error_at REAL,
        url TEXT NOT NULL DEFAULT '',
        model TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE heartbeat (
        name TEXT PRIMARY KEY,          -- 'tend'
        pid INTEGER NOT NULL,
        host TEXT NOT NULL DEFAULT '',
        started REAL NOT NULL,
        beat REAL NOT NULL,
        state TEXT NOT NULL DEFAULT '',
        counts TEXT NOT NULL DEFAULT '{}'
    );
    """,
    # 2: the furthest point ever reserved, so the mark can settle behind stretches in flight
    """
    ALTER TABLE watermarks ADD COLUMN reserved_to INTEGER NOT NULL DEFAULT 0;
    """,
)


class Workshop:
    """Access to one store's `_still/kura.db`. Thread-safe: a connection per thread."""

    def __init__(self, still: Path, *, clock: Callable[[], float] = time.time):
        self.still = Path(still)
        self.path = self.still / DB_NAME
        self.clock = clock
        self._local = threading.local()
        self._migrated = False
        self._migrate_lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        self.still.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
        except sqlite3.DatabaseError as exc:
            raise KuraError(
                f"the workshop database {self.path} cannot be opened ({exc}); it holds only "
                "derived state — move it aside and kura will start a fresh one"
            ) from None
        conn.row_factory = sqlite3.Row
        self._local.conn = conn
        if not self._migrated:
            with self._migrate_lock:
                if not self._migrated:
                    self._migrate(conn)
                    self._migrated = True
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise KuraError(
                    f"{self.path} was written by a newer kura (schema {version}); upgrade kura"
                )
            for i in range(version, len(MIGRATIONS)):
                for stmt in _statements(MIGRATIONS[i]):
                    conn.execute(stmt)
                conn.execute(f"PRAGMA user_version = {i + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        return self._connect().execute("PRAGMA user_version").fetchone()[0]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT: one writer at a time across processes."""
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    def query(self, sql: str, params: tuple | Mapping = ()) -> list[sqlite3.Row]:
        return self._connect().execute(sql, params).fetchall()

    def execute(self, sql: str, params: tuple | Mapping = ()) -> int:
        cur = self._connect().execute(sql, params)
        return cur.lastrowid or 0

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # ---- small helpers shared by several parts --------------------------
    def get(self, key: str, default: Any = None) -> Any:
        row = self._connect().execute("SELECT value FROM kv WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def put(self, key: str, value: Any) -> None:
        self._connect().execute(
            "INSERT INTO kv(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, json.dumps(value, ensure_ascii=False)),
        )

    def log_gate(self, kind: str, *, title: str = "", slug: str = "", reason: str = "",
                 detail: Mapping[str, Any] | None = None) -> int:
        return self.execute(
            "INSERT INTO gate_log(at, kind, title, slug, reason, detail) VALUES(?,?,?,?,?,?)",
            (self.clock(), kind, title, slug, reason, json.dumps(detail or {}, ensure_ascii=False)),
        )

    def gate_log(self, limit: int = 200, kinds: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        sql = "SELECT id, at, kind, title, slug, reason, detail FROM gate_log"
        params: tuple = ()
        if kinds:
            sql += " WHERE kind IN (" + ",".join("?" * len(kinds)) + ")"
            params = tuple(kinds)
        sql += " ORDER BY id DESC LIMIT ?"
        rows = self.query(sql, params + (limit,))
        return [{**dict(r), "detail": json.loads(r["detail"])} for r in rows]

    def record_call(self, rec: Any) -> None:
        """Store a model CallRecord so doctor can show it from another process."""
        if getattr(rec, "task", "") == "probe" and rec.ok:
            return
        if rec.ok:
            sql = ("INSERT INTO model_calls(role, calls, failures, last_ok_at, url, model) VALUES(?,1,0,?,?,?) "
                   "ON CONFLICT(role) DO UPDATE SET calls=calls+1, last_ok_at=excluded.last_ok_at, "
                   "url=excluded.url, model=excluded.model")
            params = (rec.role, rec.at, rec.url, rec.model)
        else:
            sql = ("INSERT INTO model_calls(role, calls, failures, last_error, last_error_at, url, model) "
                   "VALUES(?,1,1,?,?,?,?) ON CONFLICT(role) DO UPDATE SET calls=calls+1, "
                   "failures=failures+1, last_error=excluded.last_error, "
                   "last_error_at=excluded.last_error_at, url=excluded.url, model=excluded.model")
            params = (rec.role, rec.reason, rec.at, rec.url, rec.model)
        with contextlib.suppress(sqlite3.Error):
            self.execute(sql, params)

    def model_calls(self) -> dict[str, dict[str, Any]]:
        return {r["role"]: dict(r) for r in self.query("SELECT * FROM model_calls")}


def _statements(script: str) -> list[str]:
    out, buf = [], []
    for line in script.splitlines():
        code = line.split("--", 1)[0]
        buf.append(code)
        if code.rstrip().endswith(";"):
            stmt = "\n".join(buf).strip().rstrip(";")
            if stmt:
                out.append(stmt)
            buf = []
    tail = "\n".join(buf).strip()
    if tail:
        out.append(tail)
    return out
