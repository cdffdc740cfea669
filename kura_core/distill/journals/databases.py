"""Reading the SQLite databases and zstd frames agents keep their sessions in, without ever
changing them.

* :func:`read_only` opens a database with a read-only URI connection (``mode=ro``): it
  never writes the database file, never checkpoints its write-ahead log, and still sees
  the rows an agent has committed to that log but not yet checkpointed. When the
  read-only open cannot work -- a database in WAL mode whose ``-shm`` index is missing in
  a directory kura may not write -- the database and its log are copied to a private
  temporary directory and the copy is read instead. Either way the agent's files keep
  their bytes and their modification times.
* :func:`unzstd` decompresses a zstd frame: the standard library's ``compression.zstd``
  on Python 3.14 and later, else the ``backports.zstd`` wheel (the same module, back-
  ported; a dependency of kura on older Pythons). Without either it raises
  :class:`JournalError` naming the package to install.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import JournalError

#: The first four bytes of every zstd frame (RFC 8878 magic number, little-endian).
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

#: The package that provides zstd on Pythons before 3.14.
ZSTD_PACKAGE = "backports.zstd"


def _zstd() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:
            from backports import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            return None
    return zstd


def unzstd(data: bytes, *, limit: int = 1 << 30) -> bytes:
    """The bytes of the zstd frame(s) *data* holds (at most *limit* of them).

    Raises :class:`JournalError` when no zstd module is installed, when *data* is not
    zstd, when its last frame is cut short, or when it would decompress to more than
    *limit* bytes."""
    out, whole = unzstd_frames(data, limit=limit)
    if not whole:
        raise JournalError("zstd frame cut short (still being written?)")
    return out


def unzstd_frames(data: bytes, *, limit: int = 1 << 30) -> tuple[bytes, bool]:
    """``(decoded, whole)``: the bytes of every complete zstd frame at the start of *data*,
    and whether the last frame was complete too (a writer appends one frame per batch; a
    frame still being written is left for a later read)."""
    zstd = _zstd()
    if zstd is None:
        raise JournalError(
            f"this journal is zstd-compressed: install the {ZSTD_PACKAGE} package "
            f"(pip install {ZSTD_PACKAGE}) or run kura on Python 3.14 or later"
        )
    out = bytearray()
    rest = data
    while rest.strip(b"\x00"):
        d = zstd.ZstdDecompressor()
        try:
            piece = d.decompress(rest, max_length=limit + 1 - len(out))
        except zstd.ZstdError as exc:
            if out:
                return bytes(out), False  # a torn frame after good ones
            raise JournalError(f"not a readable zstd frame: {exc}") from exc
        if len(out) + len(piece) > limit:
            raise JournalError(f"zstd data larger than {limit} bytes once decompressed")
        if not d.eof:
            return bytes(out), False
        out += piece
        rest = d.unused_data
    return bytes(out), True


def is_zstd(data: bytes) -> bool:
    return data[:4] == ZSTD_MAGIC


@contextlib.contextmanager
def read_only(
    path: str | os.PathLike[str], *, timeout: float = 5.0
) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the SQLite database at *path* (see the module doc).

    Raises :class:`sqlite3.Error` when the file cannot be read as a database at all."""
    p = Path(path)
    con = None
    try:
        con = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout)
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        if con is not None:
            con.close()
        con = None
    if con is not None:
        try:
            yield con
        finally:
            con.close()
        return
    with tempfile.TemporaryDirectory(prefix="kura-db-") as tmp:
        copy = Path(tmp) / p.name
        shutil.copyfile(p, copy)
        for suffix in ("-wal", "-shm"):
            side = p.with_name(p.name + suffix)
            if side.is_file():
                shutil.copyfile(side, copy.with_name(copy.name + suffix))
        con = sqlite3.connect(str(copy), timeout=timeout)
        try:
            yield con
        finally:
            con.close()


def nothing_yet(path: str | os.PathLike[str]) -> bool:
    """True when *path* is an empty file (created, not written yet): nothing to read, and
    nothing wrong with it."""
    try:
        return os.path.getsize(path) == 0
    except OSError:
        return False


def tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
