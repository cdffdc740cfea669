"""Crash-safe file writing: temp file in the same directory, fsync, rename, fsync dir.

Every call kura makes to change the disk goes through one small object, :data:`OPS`
(open, write, fsync, rename, link, unlink). Nothing else in kura calls those directly,
so a test can swap in an :class:`FsOps` that fails at exactly one step — the temp file,
its fsync, the rename, the intent record, the index — and check that the old state
survives and the message says what happened (see :func:`using`).

A failed write raises :class:`~kura_core.errors.StorageError` (or its read-only
subclass) with a message naming the file, the reason (no space, read-only, no
permission) and what to do; the temp file is removed, the target is untouched.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

from .errors import ReadOnlyStore, StorageError, StorageFull

TMP_MARK = ".tmp-"
_SEQ = itertools.count(1)
_HOST = socket.gethostname()


class FsOps:
    """The disk, as kura changes it. Subclass and install with :func:`using` to inject faults."""

    def open(self, path: Path, flags: int, mode: int = 0o644) -> int:
        return os.open(path, flags, mode)

    def write(self, fd: int, data: memoryview, path: Path) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int, path: Path) -> None:
        os.fsync(fd)

    def replace(self, src: Path, dst: Path) -> None:
        os.replace(src, dst)

    def link(self, src: Path, dst: Path) -> None:
        os.link(src, dst)

    def unlink(self, path: Path) -> None:
        os.unlink(path)


#: the operations in use; replace only through :func:`using`.
OPS: FsOps = FsOps()


@contextlib.contextmanager
def using(ops: FsOps) -> Iterator[FsOps]:
    """Route every kura disk change through *ops* for the duration (tests inject faults)."""
    global OPS
    before, OPS = OPS, ops
    try:
        yield ops
    finally:
        OPS = before


# --------------------------------------------------------------------------- errors

READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def storage_error(exc: OSError, action: str, path: os.PathLike | str) -> StorageError:
    """A person's message for a failed disk write: what, where, why, what to do.

    *action* says what kura was doing ("write the memory archive-on-slow-disk"); the
    caller has already made sure nothing half-done is left behind.
    """
    where = Path(path)
    err = exc.errno
    if err == errno.EROFS:
        return ReadOnlyStore(
            f"cannot {action}: {where.parent} is on a read-only filesystem. Nothing was changed. "
            "Remount it read-write (or point the store at a writable directory) and try again; "
            "reading keeps working meanwhile"
        )
    if err in (errno.EACCES, errno.EPERM):
        return ReadOnlyStore(
            f"cannot {action}: permission denied on {where}. Nothing was changed. Give the user "
            f"running kura write access to {where.parent} (chown/chmod) and try again; "
            "reading keeps working meanwhile"
        )
    if err in FULL_ERRNOS:
        return StorageFull(
            f"cannot {action}: no space left on the device holding {where.parent}. Nothing was "
            "changed. Free some space and try again; reading keeps working meanwhile"
        )
    why = exc.strerror or str(exc)
    return StorageError(
        f"cannot {action}: {why} ({where}). Nothing was changed; check the disk and try again"
    )


def reason_of(exc: OSError) -> str:
    """Why the disk refused, in a few words."""
    if exc.errno == errno.EROFS:
        return "the filesystem is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno in FULL_ERRNOS:
        return "no space left on the device"
    return exc.strerror or str(exc)


# --------------------------------------------------------------------------- temp names


def temp_path(path: Path) -> Path:
    """A temp name beside *path*, unique to this process, thread and call."""
    path = Path(path)
    return (
        path.parent
        / f".{path.name}{TMP_MARK}{os.getpid()}-{threading.get_ident() % 100000}-{next(_SEQ)}"
    )


def is_temp_name(name: str) -> bool:
    return name.startswith(".") and TMP_MARK in name


def temp_owner_alive(name: str) -> bool:
    """Whether the process that made temp file *name* may still be writing it."""
    tail = name.rpartition(TMP_MARK)[2]
    pid_s = tail.split("-", 1)[0]
    try:
        pid = int(pid_s)
    except ValueError:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_dead_temps(directory: Path) -> int:
    """Remove temp files whose writer is gone. Returns how many were removed."""
    n = 0
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    for name in names:
        if is_temp_name(name) and not temp_owner_alive(name):
            with contextlib.suppress(OSError):
                OPS.unlink(Path(directory) / name)
                n += 1
    return n


# --------------------------------------------------------------------------- writing


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_temp(path: Path, data: bytes) -> Path:
    """Write *data* to a fresh temp file beside *path*, fsynced; return the temp's path.

    On any failure the temp file is removed and the OSError propagates.
    """
    path = Path(path)
    tmp = temp_path(path)
    fd = OPS.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        view = memoryview(data)
        while view:
            n = OPS.write(fd, view, tmp)
            view = view[n:]
        OPS.fsync(fd, tmp)
    except BaseException:
        os.close(fd)
        discard(tmp)
        raise
    os.close(fd)
    return tmp


def probe_write(directory: Path) -> OSError | None:
    """Whether a new file can be written in *directory* now: None if so, else the error
    (read-only, no permission, no space). Leaves nothing behind."""
    tmp = temp_path(Path(directory) / "probe")
    try:
        fd = OPS.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644
        )
    except OSError as exc:
        return exc
    try:
        OPS.write(fd, memoryview(b"k"), tmp)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)
        discard(tmp)
    return None


def discard(path: Path) -> None:
    """Remove *path* if it is there; never raises."""
    with contextlib.suppress(OSError):
        OPS.unlink(path)


def atomic_write_bytes(path: Path, data: bytes, *, sync_dir: bool = True) -> None:
    """Replace *path* with *data* so that a crash leaves the old file or the new one.

    Raises OSError with nothing changed (the temp file removed) when the disk refuses.
    """
    path = Path(path)
    tmp = write_temp(path, data)
    try:
        OPS.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    if sync_dir:
        fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, sync_dir: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), sync_dir=sync_dir)


#: link(2) errors that mean "this filesystem has no hard links here", not "the disk refused".
NO_LINK_ERRNOS = frozenset(
    {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV}
)


def create_exclusive(path: Path, data: bytes) -> None:
    """Place a new file at *path* with *data*, complete, or raise FileExistsError.

    The content is written and fsynced under a temp name and then hard-linked into place,
    which the kernel refuses when the name is taken: two writers can never overwrite
    each other, and a crash never leaves half a file under the real name. On a
    filesystem without hard links, an exclusive create is used instead.
    """
    path = Path(path)
    tmp = write_temp(path, data)
    try:
        try:
            OPS.link(tmp, path)
        except OSError as exc:
            if exc.errno not in NO_LINK_ERRNOS:
                raise
            _create_exclusive_plain(path, data)
    finally:
        discard(tmp)
    fsync_dir(path.parent)


def _create_exclusive_plain(path: Path, data: bytes) -> None:
    fd = OPS.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[OPS.write(fd, view, path) :]
        OPS.fsync(fd, path)
    except BaseException:
        os.close(fd)
        discard(path)
        raise
    os.close(fd)
