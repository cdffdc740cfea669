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
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import BusyError, KuraError, ReadOnlyStore, StorageError, StorageFull, WorkshopDamaged

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

    def query(self, sql: str, params: tuple | Mapping = ()) -> list[sqlite3.Row]:
        with self._guard("read the workshop database"):
            return self._connect().execute(sql, params).fetchall()

    def execute(self, sql: str, params: tuple | Mapping = ()) -> int:
        with self._guard("write to the workshop database"):
            cur = self._connect().execute(sql, params)
            return cur.lastrowid or 0

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            self._local.conn = None

    # ---- small helpers shared by several parts --------------------------
    def get(self, key: str, default: Any = None) -> Any:
        rows = self.query("SELECT value FROM kv WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def put(self, key: str, value: Any) -> None:
        self.execute(
            "INSERT INTO kv(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, json.dumps(value, ensure_ascii=False)),
        )

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
        same event again (a crashed write finished by the next reader) adds nothing."""
        return self.execute(
            "INSERT OR IGNORE INTO gate_log(at, kind, title, slug, reason, detail, key) VALUES(?,?,?,?,?,?,?)",
            (
                self.clock() if at is None else at,
                kind,
                title,
                slug,
                reason,
                json.dumps(detail or {}, ensure_ascii=False),
                key,
            ),
        )

    def logged(self, key: str) -> bool:
        """Whether a gate-log row with this key exists."""
        return bool(self.query("SELECT 1 FROM gate_log WHERE key=?", (key,)))

    def gate_log(self, limit: int = 200, kinds: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        sql = "SELECT id, at, kind, title, slug, reason, detail FROM gate_log"
        params: tuple = ()
        if kinds:
            sql += " WHERE kind IN (" + ",".join("?" * len(kinds)) + ")"
            params = tuple(kinds)
        sql += " ORDER BY id DESC LIMIT ?"
        rows = self.query(sql, params + (limit,))
        return [{**dict(r), "detail": json.loads(r["detail"])} for r in rows]

    # ---- text that may hold what a person typed (kura.scrub) ---------------
    def text_cells(self) -> list[tuple[str, str, int, str]]:
        """``(table, column, rowid, text)`` of every cell that holds free text: gate log,
        seeds, recall questions, triggers, model errors, settings."""
        out: list[tuple[str, str, int, str]] = []
        for table, column in TEXT_CELLS:
            rows = self.query(f"SELECT rowid, {column} FROM {table}")
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
            params = (rec.role, rec.reason, rec.at, rec.url, rec.model)
        with contextlib.suppress(KuraError, sqlite3.Error):
            self.execute(sql, params)

    def model_calls(self) -> dict[str, dict[str, Any]]:
        return {r["role"]: dict(r) for r in self.query("SELECT * FROM model_calls")}


def _primary(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _writable(path: Path) -> bool:
    """Whether this process may write *path* (access(2) also says no on a read-only mount)."""
    return os.access(path, os.W_OK)


def _dir_error(exc: OSError, path: Path, doing: str) -> KuraError:
    from .fsutil import storage_error

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
