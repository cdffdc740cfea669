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
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from .errors import BusyError, KuraError, ReadOnlyStore, StorageError, StorageFull, WorkshopDamaged
from .fsutil import storage_error
from .secrets import redact_value
from .vocabulary import GateLogKind, SeedState

DB_NAME = "kura.db"

#: Cells of free text, where a secret could have been written before redaction existed.
TEXT_CELLS: tuple[tuple[str, str], ...] = (
    ("gate_log", "title"),
    ("gate_log", "reason"),
    ("gate_log", "detail"),
    ("seeds", "title"),
    ("seeds", "body"),
    ("seeds", "quotes"),
    ("seeds", "source"),
    ("read_log", "question"),
    ("trigger_ledger", "trigger"),
    ("model_calls", "last_error"),
    ("kv", "value"),
)

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
    # 3: an event logged once even when a crashed write is finished by the next reader
    """
    ALTER TABLE gate_log ADD COLUMN key TEXT;
    CREATE UNIQUE INDEX gate_log_key ON gate_log(key) WHERE key IS NOT NULL;
    """,
)


#: how long opening the database keeps retrying while another process creates or migrates it.
OPEN_BUSY_S = 30.0

# primary SQLite result codes (exc.sqlite_errorcode & 0xff)
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = (
    3,
    5,
    6,
    8,
    10,
    11,
    13,
    14,
    26,
)


class Workshop:
    """Access to one store's `_still/kura.db`. Thread-safe: a connection per thread.

    Every connection checks, before each use, that `kura.db` is still the file it opened:
    a database deleted (or replaced) under a running process is opened afresh and
    migrated, never queried as an empty file. Errors from SQLite reach callers as
    KuraError subclasses with a message that says what is wrong: busy (another process
    holds it), read-only, full, or damaged — never "internal error", and a healthy
    database is never called damaged.
    """

    def __init__(self, still: Path, *, clock: Callable[[], float] = time.time):
        self.still = Path(still)
        self.path = self.still / DB_NAME
        self.clock = clock
        self._local = threading.local()
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None  # the file this process last opened
        #: True once the database vanished under this process and a fresh one was started.
        self.recreated = False
        #: True when the directory refuses writes and the database was opened read-only.
        self.readonly = False
        #: how many times opening found the database busy (another process creating it) and waited.
        self.busy_waits = 0

    # ---- connections -------------------------------------------------------
    def _identity(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        ident = self._identity()
        if conn is not None:
            if ident is not None and ident == getattr(self._local, "ident", None):
                return conn
            # kura.db was deleted or replaced under us: never query a file that is gone
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            self._local.conn = None
        conn = self._open()
        ident = self._identity()
        with self._lock:
            if self._seen is not None and ident != self._seen:
                self.recreated = True
            self._seen = ident
        self._local.conn, self._local.ident = conn, ident
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            self.still.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _dir_error(exc, self.still, "create the workshop directory") from None
        if not _writable(self.still) or (self.path.exists() and not _writable(self.path)):
            return self._open_readonly()
        deadline = time.monotonic() + OPEN_BUSY_S
        pause = 0.005
        while True:
            conn = None
            try:
                conn = sqlite3.connect(
                    self.path, timeout=30.0, isolation_level=None, check_same_thread=False
                )
                conn.execute("PRAGMA busy_timeout=30000")
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.row_factory = sqlite3.Row
                self._migrate(conn)
                return conn
            except sqlite3.Error as exc:
                if conn is not None:
                    with contextlib.suppress(sqlite3.Error):
                        conn.close()
                # two processes opening a fresh database at once: one is switching it to WAL
                # or migrating it; SQLite reports that as busy without waiting. Wait for it.
                if _primary(exc) in (_BUSY, _LOCKED) and time.monotonic() < deadline:
                    with self._lock:
                        self.busy_waits += 1
                    time.sleep(pause)
                    pause = min(pause * 2, 0.1)
                    continue
                raise self._translate(exc, "open the workshop database") from None
            except BaseException:
                if conn is not None:
                    with contextlib.suppress(sqlite3.Error):
                        conn.close()
                raise

    def _open_readonly(self) -> sqlite3.Connection:
        """The database of a store whose directory refuses writes: read it, write nothing."""
        if not self.path.exists():
            raise ReadOnlyStore(
                f"the workshop database {self.path} does not exist and cannot be created: {self.still} "
                "is read-only (a read-only filesystem, or no write permission). Memories can still be "
                "read; make the directory writable to distil, pour or keep a gate log"
            )
        uri = "file:" + urllib.parse.quote(str(self.path))
        last: sqlite3.Error | None = None
        for extra in ("?mode=ro", "?mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(
                    uri + extra,
                    uri=True,
                    timeout=30.0,
                    isolation_level=None,
                    check_same_thread=False,
                )
                conn.row_factory = sqlite3.Row
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            except sqlite3.Error as exc:
                last = exc
                continue
            if version > len(MIGRATIONS):
                raise KuraError(
                    f"{self.path} was written by a newer kura (schema {version}); upgrade kura"
                )
            if version < len(MIGRATIONS):
                conn.close()
                raise ReadOnlyStore(
                    f"the workshop database {self.path} needs an upgrade to this kura's schema, but "
                    f"{self.still} is read-only: make it writable once so kura can upgrade it"
                )
            self.readonly = True
            return conn
        raise self._translate(last, "open the workshop database read-only")  # type: ignore[arg-type]

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise KuraError(
                f"{self.path} was written by a newer kura (schema {version}); upgrade kura"
            )
        if version == len(MIGRATIONS):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[
                0
            ]  # another process may have done it
            for i in range(version, len(MIGRATIONS)):
                for stmt in _statements(MIGRATIONS[i]):
                    conn.execute(stmt)
                conn.execute(f"PRAGMA user_version = {i + 1}")
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    def _translate(self, exc: sqlite3.Error, doing: str) -> KuraError:
        """A person's message for an SQLite error. Busy is busy, never 'damaged'."""
        code = _primary(exc)
        text = str(exc)
        low = text.lower()
        if code in (_BUSY, _LOCKED) or "locked" in low or "busy" in low:
            return BusyError(
                f"cannot {doing}: the workshop database {self.path} is busy — another kura process has "
                f"held it for more than {OPEN_BUSY_S:.0f} s. It is not damaged; try again, and if it "
                "persists see which kura process is stuck (`kura doctor` shows the tender)"
            )
        if code == _READONLY or "readonly" in low or "read-only" in low:
            return ReadOnlyStore(
                f"cannot {doing}: the workshop database {self.path} is read-only (a read-only filesystem "
                f"or no write permission on {self.still}). Nothing was changed and nothing is lost; make "
                "it writable and try again"
            )
        if code == _FULL or "full" in low:
            return StorageFull(
                f"cannot {doing}: no space left for the workshop database {self.path}. Nothing was "
                "changed; free some space and try again"
            )
        if code in (_CORRUPT, _NOTADB) or "malformed" in low or "not a database" in low:
            return WorkshopDamaged(
                f"the workshop database {self.path} is damaged ({text}). Memories are untouched. "
                f"Restore it from a backup, or move it aside and run `kura distill catchup` "
                "(watermarks, the gate log and seeds then start over)"
            )
        if code in (_CANTOPEN, _PERM, _IOERR) or "unable to open" in low or "disk i/o" in low:
            if not _writable(self.still):
                return ReadOnlyStore(
                    f"cannot {doing}: {self.still} refuses writes (a read-only filesystem or no "
                    "permission). Nothing was changed; make it writable and try again"
                )
            return StorageError(
                f"cannot {doing}: the workshop database {self.path} cannot be reached ({text}). "
                f"Check that {self.still} exists and the disk is healthy; memories are untouched"
            )
        return KuraError(f"cannot {doing}: the workshop database {self.path} answered: {text}")

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise self._translate(exc, doing) from None
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.IntegrityError):
                raise
            raise self._translate(exc, doing) from None

    @property
    def schema_version(self) -> int:
        with self._guard("read the workshop database"):
            return self._connect().execute("PRAGMA user_version").fetchone()[0]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT: one writer at a time across processes."""
        with self._guard("write to the workshop database"):
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            else:
                try:
                    conn.execute("COMMIT")
                except sqlite3.Error:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise

    def _query(self, sql: str, params: tuple | Mapping = ()) -> list[sqlite3.Row]:
        with self._guard("read the workshop database"):
            return self._connect().execute(sql, params).fetchall()

    def _execute(self, sql: str, params: tuple | Mapping = ()) -> int:
        with self._guard("write to the workshop database"):
            cur = self._connect().execute(sql, params)
            return cur.lastrowid or 0

    #: Raw SQL, for tests and a person inspecting a workshop by hand. kura's own modules
    #: call the named operations below (a test finds SQL in any other module).
    query = _query
    execute = _execute

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            self._local.conn = None

    # ---- small helpers shared by several parts --------------------------
    def get(self, key: str, default: Any = None) -> Any:
        rows = self._query("SELECT value FROM kv WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def put(self, key: str, value: Any) -> None:
        self._execute(
            "INSERT INTO kv(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, json.dumps(value, ensure_ascii=False)),
        )

    # ---- what each model endpoint accepts (learnt by the model client) ----------------
    _DIALECT = "dialect:"

    def learnt_dialect(self, key: str) -> dict[str, Any] | None:
        """The structured-output shape learnt for one endpoint (``url model``), or None."""
        value = self.get(self._DIALECT + key)
        return value if isinstance(value, dict) else None

    def learn_dialect(self, key: str, value: Mapping[str, Any]) -> None:
        self.put(self._DIALECT + key, dict(value))

    def learnt_dialects(self) -> dict[str, dict[str, Any]]:
        """Every endpoint's learnt shape, by key."""
        rows = self._query(
            "SELECT key, value FROM kv WHERE key >= ? AND key < ?",
            (self._DIALECT, self._DIALECT[:-1] + ";"),
        )
        return {r[0][len(self._DIALECT) :]: json.loads(r[1]) for r in rows}

    def log_gate(
        self,
        kind: str,
        *,
        title: str = "",
        slug: str = "",
        reason: str = "",
        detail: Mapping[str, Any] | None = None,
        key: str | None = None,
        at: float | None = None,
    ) -> int:
        """Add one gate-log row. With *key*, at most one row ever carries it: logging the
        same event again (a crashed write finished by the next reader) adds nothing. Its
        text passes redaction first: a model's dropped candidate never logs a secret."""
        return self._execute(
            "INSERT OR IGNORE INTO gate_log(at, kind, title, slug, reason, detail, key) VALUES(?,?,?,?,?,?,?)",
            (
                self.clock() if at is None else at,
                kind,
                redact_value(title),
                slug,
                redact_value(reason),
                json.dumps(redact_value(dict(detail or {})), ensure_ascii=False),
                key,
            ),
        )

    def logged(self, key: str) -> bool:
        """Whether a gate-log row with this key exists."""
        return bool(self._query("SELECT 1 FROM gate_log WHERE key=?", (key,)))

    def gate_log(self, limit: int = 200, kinds: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        sql = "SELECT id, at, kind, title, slug, reason, detail FROM gate_log"
        params: tuple = ()
        if kinds:
            sql += " WHERE kind IN (" + ",".join("?" * len(kinds)) + ")"
            params = tuple(kinds)
        sql += " ORDER BY id DESC LIMIT ?"
        rows = self._query(sql, params + (limit,))
        return [{**dict(r), "detail": json.loads(r["detail"])} for r in rows]

    # ---- text that may hold what a person typed (kura.scrub) ---------------
    def text_cells(self) -> list[tuple[str, str, int, str]]:
        """``(table, column, rowid, text)`` of every cell that holds free text: gate log,
        seeds, recall questions, triggers, model errors, settings."""
        out: list[tuple[str, str, int, str]] = []
        for table, column in TEXT_CELLS:
            rows = self._query(f"SELECT rowid, {column} FROM {table}")
            out += [(table, column, r[0], r[1]) for r in rows if isinstance(r[1], str)]
        return out

    def rewrite_cells(self, cells: Sequence[tuple[str, str, int, str]]) -> None:
        """Replace the text of *cells* (as :meth:`text_cells` names them) in one
        transaction, then rebuild the file so no old page keeps what was replaced."""
        known = set(TEXT_CELLS)
        with self.transaction() as conn:
            conn.execute("PRAGMA secure_delete=ON")
            for table, column, rowid, text in cells:
                if (table, column) not in known:
                    raise KuraError(f"{table}.{column} is not a text cell of the workshop")
                conn.execute(f"UPDATE {table} SET {column}=? WHERE rowid=?", (text, rowid))
        with self._guard("compact the workshop database"):
            conn = self._connect()
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def record_call(self, rec: Any) -> None:
        """Store a model CallRecord so doctor can show it from another process."""
        if getattr(rec, "task", "") == "probe" and rec.ok:
            return
        if rec.ok:
            sql = (
                "INSERT INTO model_calls(role, calls, failures, last_ok_at, url, model) VALUES(?,1,0,?,?,?) "
                "ON CONFLICT(role) DO UPDATE SET calls=calls+1, last_ok_at=excluded.last_ok_at, "
                "url=excluded.url, model=excluded.model"
            )
            params: tuple[Any, ...] = (rec.role, rec.at, rec.url, rec.model)
        else:
            sql = (
                "INSERT INTO model_calls(role, calls, failures, last_error, last_error_at, url, model) "
                "VALUES(?,1,1,?,?,?,?) ON CONFLICT(role) DO UPDATE SET calls=calls+1, "
                "failures=failures+1, last_error=excluded.last_error, "
                "last_error_at=excluded.last_error_at, url=excluded.url, model=excluded.model"
            )
            params = (rec.role, redact_value(rec.reason), rec.at, rec.url, rec.model)
        with contextlib.suppress(KuraError, sqlite3.Error):
            self._execute(sql, params)

    def model_calls(self) -> dict[str, dict[str, Any]]:
        return {r["role"]: dict(r) for r in self._query("SELECT * FROM model_calls")}

    # ---- the gate log, further -------------------------------------------------------
    def unlog_gate(self, row_id: int) -> None:
        """Take back one gate-log row (its change failed after it was logged)."""
        self._execute("DELETE FROM gate_log WHERE id=?", (row_id,))

    def gate_rows(
        self, *, slug: str | None = None, kinds: tuple[str, ...] = (), limit: int = 200
    ) -> list[sqlite3.Row]:
        """The newest gate-log rows, as stored (``detail`` still JSON), of one memory
        (*slug*) and/or of some *kinds*."""
        where, params = [], []
        if slug is not None:
            where.append("slug=?")
            params.append(slug)
        if kinds:
            where.append("kind IN (" + ",".join("?" * len(kinds)) + ")")
            params.extend(kinds)
        sql = "SELECT id, at, kind, title, slug, reason, detail FROM gate_log"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return self._query(sql + " ORDER BY id DESC LIMIT ?", (*params, limit))

    # ---- seeds -------------------------------------------------------------------------
    def seed_waiting(self, title: str) -> bool:
        """Whether an idea with this title is already waiting."""
        return bool(
            self._query("SELECT 1 FROM seeds WHERE title=? AND state=?", (title, SeedState.WAITING))
        )

    def plant_seed(
        self, *, title: str, body: str, quotes: str, source: str, at: float | None = None
    ) -> int:
        """Keep an idea as a waiting seed (*quotes*: its verified quotes, as JSON)."""
        now = self.clock() if at is None else at
        try:
            quotes = json.dumps(redact_value(json.loads(quotes)), ensure_ascii=False)
        except ValueError:
            quotes = redact_value(quotes)
        return self._execute(
            "INSERT INTO seeds(at, title, body, quotes, state, source, updated) "
            "VALUES(?,?,?,?,?,?,?)",
            (now, redact_value(title), redact_value(body), quotes, SeedState.WAITING, source, now),
        )

    def seeds(self, *, limit: int = 500) -> list[sqlite3.Row]:
        """The newest seeds, whatever their state."""
        return self._query(
            "SELECT id, at, title, body, quotes, state, source, updated FROM seeds "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )

    def waiting_seeds(self, *, limit: int = 50) -> list[sqlite3.Row]:
        """The oldest ideas still waiting (id, title, body)."""
        return self._query(
            "SELECT id, title, body FROM seeds WHERE state=? ORDER BY id LIMIT ?",
            (SeedState.WAITING, limit),
        )

    def count_waiting_seeds(self) -> int:
        rows = self._query("SELECT COUNT(*) AS n FROM seeds WHERE state=?", (SeedState.WAITING,))
        return int(rows[0]["n"])

    def graduate_seed(self, seed_id: int) -> None:
        self._execute(
            "UPDATE seeds SET state=?, updated=? WHERE id=?",
            (SeedState.GRADUATED, self.clock(), seed_id),
        )

    def dismiss_seed(self, seed_id: int, *, reason: str, by: str) -> sqlite3.Row | None:
        """Dismiss a waiting seed and log it, in one transaction. Returns the seed's row as
        it was (None when there is no such seed; a seed not waiting is left as it is)."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT id, title, body, state FROM seeds WHERE id=?", (seed_id,)
            ).fetchone()
            if row is None or row["state"] != SeedState.WAITING:
                return row
            now = self.clock()
            conn.execute(
                "UPDATE seeds SET state=?, updated=? WHERE id=?",
                (SeedState.DISMISSED, now, seed_id),
            )
            conn.execute(
                "INSERT INTO gate_log(at, kind, title, slug, reason, detail) VALUES(?,?,?,?,?,?)",
                (
                    now,
                    GateLogKind.SEED_DISMISSED,
                    row["title"],
                    "",
                    reason,
                    json.dumps(
                        {"seed": seed_id, "by": by, "body": row["body"]}, ensure_ascii=False
                    ),
                ),
            )
            return row

    # ---- batches (what each distilled stretch held and gave) ---------------------------
    def add_batch(
        self, *, journal: str, start: int, end: int, unit: str, segments: int, raw_tokens: int
    ) -> int:
        return self._execute(
            "INSERT INTO batches(journal, start, end, unit, segments, raw_tokens, at) "
            "VALUES(?,?,?,?,?,?,?)",
            (journal, start, end, unit, segments, raw_tokens, self.clock()),
        )

    def finish_batch(
        self, batch_id: int, *, candidates: int, drafts: int, dropped: int, seeds: int
    ) -> None:
        self._execute(
            "UPDATE batches SET candidates=?, drafts=?, dropped=?, seeds=? WHERE id=?",
            (candidates, drafts, dropped, seeds, batch_id),
        )

    def batches(self) -> list[sqlite3.Row]:
        """Every batch's id, raw tokens and segment count."""
        return self._query("SELECT id, raw_tokens, segments FROM batches")

    # ---- the tender's heartbeat --------------------------------------------------------
    def heartbeat(self, name: str = "tend") -> dict[str, Any] | None:
        rows = self._query("SELECT * FROM heartbeat WHERE name=?", (name,))
        return dict(rows[0]) if rows else None

    def beat(
        self, *, pid: int, host: str, started: float, state: str, counts: str, name: str = "tend"
    ) -> None:
        """Say the tender is alive and what it is doing (*counts*: JSON)."""
        self._execute(
            "INSERT INTO heartbeat(name, pid, host, started, beat, state, counts) "
            "VALUES(?,?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET pid=excluded.pid, "
            "host=excluded.host, started=excluded.started, beat=excluded.beat, "
            "state=excluded.state, counts=excluded.counts",
            (name, pid, host, started, self.clock(), state, counts),
        )

    # ---- the read log ------------------------------------------------------------------
    def log_reads(self, rows: list[tuple[float, str, str, str, float]]) -> None:
        """Add ``(at, question, how, picked as JSON, elapsed ms)`` rows (may wait on another
        process's lock)."""
        clean = [(at, redact_value(q), how, picked, ms) for at, q, how, picked, ms in rows]
        with self.transaction() as conn:
            conn.executemany(
                "INSERT INTO read_log(at, question, how, picked, elapsed_ms) VALUES(?,?,?,?,?)",
                clean,
            )

    # ---- the trigger ledger ------------------------------------------------------------
    def ledger(self, keys: Iterable[str]) -> dict[str, tuple[str, str, float]]:
        """``{key: (trigger, source, at)}`` for the *keys* the ledger holds."""
        wanted = list(dict.fromkeys(keys))
        out: dict[str, tuple[str, str, float]] = {}
        if len(wanted) > 200:  # one pass over the table beats many IN lists
            want = set(wanted)
            for r in self._query("SELECT key, trigger, source, at FROM trigger_ledger"):
                if r["key"] in want:
                    out[r["key"]] = (r["trigger"], r["source"], r["at"])
            return out
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            rows = self._query(
                "SELECT key, trigger, source, at FROM trigger_ledger WHERE key IN ("
                + ",".join("?" * len(chunk))
                + ")",
                tuple(chunk),
            )
            for r in rows:
                out[r["key"]] = (r["trigger"], r["source"], r["at"])
        return out

    def ledger_keys_before(self, before: float) -> list[str]:
        return [
            r["key"] for r in self._query("SELECT key FROM trigger_ledger WHERE at < ?", (before,))
        ]

    def forget_ledger(self, keys: list[str]) -> None:
        with self.transaction() as conn:
            conn.executemany("DELETE FROM trigger_ledger WHERE key = ?", [(k,) for k in keys])

    def fill_ledger(self, rows: list[tuple[str, str, str]], at: float) -> None:
        """Write ``(key, trigger, source)`` rows, replacing what the keys held."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT INTO trigger_ledger(key, trigger, source, at) VALUES(?,?,?,?) "
                "ON CONFLICT(key) DO UPDATE SET trigger=excluded.trigger, "
                "source=excluded.source, at=excluded.at",
                [(k, t, src, at) for k, t, src in rows],
            )

    # ---- watermarks and reservations (see distill/marks.py for the rules) --------------
    def mark_of(self, journal: str) -> int:
        """Where *journal*'s watermark stands (0 before anything was drunk)."""
        rows = self._query("SELECT mark FROM watermarks WHERE journal=?", (journal,))
        return rows[0]["mark"] if rows else 0

    def watermarks(self) -> dict[str, dict[str, Any]]:
        """Every journal's watermark row, by journal key."""
        return {r["journal"]: dict(r) for r in self._query("SELECT * FROM watermarks")}

    def reservations(self) -> list[dict[str, Any]]:
        """Every stretch held or shelved, by journal and start."""
        return [dict(r) for r in self._query("SELECT * FROM reservations ORDER BY journal, start")]

    def waiting_stretch(self, journal: str) -> bool:
        """Whether *journal* has a stretch held or shelved."""
        return bool(
            self._query(
                "SELECT 1 FROM reservations WHERE journal=? AND state IN ('shelved','held') "
                "LIMIT 1",
                (journal,),
            )
        )

    def frontier(self, journal: str) -> tuple[int, int]:
        """``(mark, furthest point reserved)`` of *journal*, read now."""
        with self._guard("read the workshop database"):
            return _frontier(self._connect(), journal)

    def reserve(
        self,
        journal: str,
        *,
        adapter: str,
        unit: str,
        owner: str,
        measure: Callable[[int], int],
        alive: Callable[[str], bool],
        skip: Collection[int] = (),
    ) -> Stretch | None:
        """Claim the next stretch of *journal*, or a shelved one not in *skip*, under the
        write lock (``alive(owner)`` says whether a holder still runs; ``measure(start)``
        where a stretch from *start* ends). None when nothing is waiting."""
        now = self.clock()
        with self.transaction() as conn:
            # stretches held by dead processes are shelved: nothing reserved is ever skipped
            for r in conn.execute(
                "SELECT id, owner FROM reservations WHERE journal=? AND state='held'", (journal,)
            ).fetchall():
                if not alive(r["owner"]):
                    conn.execute(
                        "UPDATE reservations SET state='shelved', reason='its distiller died', "
                        "updated=? WHERE id=?",
                        (now, r["id"]),
                    )
            shelved = next(
                (
                    r
                    for r in conn.execute(
                        "SELECT * FROM reservations WHERE journal=? AND state='shelved' "
                        "ORDER BY start",
                        (journal,),
                    )
                    if r["id"] not in skip
                ),
                None,
            )
            if shelved is not None:
                conn.execute(
                    "UPDATE reservations SET state='held', owner=?, attempts=attempts+1, "
                    "updated=? WHERE id=?",
                    (owner, now, shelved["id"]),
                )
                return Stretch(
                    shelved["id"],
                    journal,
                    shelved["start"],
                    shelved["end"],
                    shelved["attempts"] + 1,
                    True,
                )
            _, start = _frontier(conn, journal)
            end = measure(start)
            if end <= start:
                return None
            cur = conn.execute(
                "INSERT INTO reservations(journal, start, end, owner, state, attempts, created, "
                "updated) VALUES(?,?,?,?, 'held', 1, ?, ?)",
                (journal, start, end, owner, now, now),
            )
            conn.execute(
                "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) "
                "VALUES(?,?,?,?,?,?) ON CONFLICT(journal) DO UPDATE SET "
                "reserved_to=MAX(reserved_to, excluded.reserved_to), updated=excluded.updated",
                (journal, adapter, unit, 0, end, now),
            )
            return Stretch(cast(int, cur.lastrowid), journal, start, end, 1, False)

    def release(self, stretch: Stretch, *, adapter: str, unit: str) -> None:
        """The stretch has been drunk: release it and move the watermark forward."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM reservations WHERE id=?", (stretch.id,))
            _settle(conn, stretch.journal, adapter, unit, self.clock())

    def shelve(self, stretch: Stretch, reason: str) -> None:
        """The stretch could not be drunk now: keep it for the next run."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE reservations SET state='shelved', reason=?, updated=? WHERE id=?",
                (reason[:500], self.clock(), stretch.id),
            )

    def catch_up(self, journal: str, *, adapter: str, unit: str, end: int) -> bool:
        """Move the mark to *end* without drinking. Returns True if it moved."""
        with self.transaction() as conn:
            _, frontier = _frontier(conn, journal)
            outstanding = conn.execute(
                "SELECT COUNT(*) FROM reservations WHERE journal=?", (journal,)
            ).fetchone()[0]
            if outstanding or end <= frontier:
                return False
            conn.execute(
                "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) "
                "VALUES(?,?,?,?,?,?) ON CONFLICT(journal) DO UPDATE SET "
                "mark=MAX(mark, excluded.mark), reserved_to=MAX(reserved_to, "
                "excluded.reserved_to), updated=excluded.updated",
                (journal, adapter, unit, end, end, self.clock()),
            )
            return True


@dataclass(frozen=True)
class Stretch:
    """A stretch of one journal a distiller holds (``retry``: a shelved one drunk again)."""

    id: int
    journal: str
    start: int
    end: int
    attempts: int
    retry: bool


def _frontier(conn: sqlite3.Connection, journal: str) -> tuple[int, int]:
    row = conn.execute(
        "SELECT mark, reserved_to FROM watermarks WHERE journal=?", (journal,)
    ).fetchone()
    mark, reserved_to = (row[0], row[1]) if row else (0, 0)
    top = conn.execute("SELECT MAX(end) FROM reservations WHERE journal=?", (journal,)).fetchone()
    return mark, max(mark, reserved_to, top[0] or 0)


def _settle(conn: sqlite3.Connection, journal: str, adapter: str, unit: str, now: float) -> None:
    """Move the watermark to the earliest outstanding start (never backwards)."""
    mark, frontier = _frontier(conn, journal)
    low = conn.execute(
        "SELECT MIN(start) FROM reservations WHERE journal=?", (journal,)
    ).fetchone()[0]
    new = max(frontier if low is None else min(low, frontier), mark)
    conn.execute(
        "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) "
        "VALUES(?,?,?,?,?,?) ON CONFLICT(journal) DO UPDATE SET mark=MAX(mark, excluded.mark), "
        "reserved_to=MAX(reserved_to, excluded.reserved_to), updated=excluded.updated",
        (journal, adapter, unit, new, frontier, now),
    )


def _primary(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _writable(path: Path) -> bool:
    """Whether this process may write *path* (access(2) also says no on a read-only mount)."""
    return os.access(path, os.W_OK)


def _dir_error(exc: OSError, path: Path, doing: str) -> KuraError:

    return storage_error(exc, doing, path / ".")


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
