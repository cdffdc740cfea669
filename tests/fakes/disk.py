"""Disks that fail on purpose, through kura's own seam (``kura_core.fsutil.OPS``).

    with fsutil.using(FailAt(3, errno.ENOSPC)):   # the 4th disk change kura makes fails
        store.write(...)
    with fsutil.using(FullDisk()):                # nothing new fits; renames still work
        ...
    with fsutil.using(Recorder()) as rec:         # what a write does, step by step
        store.write(...)
    rec.steps  ->  [("open", ".alpha.md.tmp-…"), ("write", …), ("fsync", …), ("replace", …), …]

And a real small filesystem when the machine lets this process mount one: ``small_tmpfs``
mounts a tmpfs of a few hundred KiB (read-write, and remountable read-only), and says
whether it could. Tests that use it fall back to the seam when it cannot.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

from kura_core.fsutil import FsOps

CHANGE_OPS = ("open", "write", "fsync", "replace", "link", "unlink")


def _oserror(code: int, path: Path) -> OSError:
    return OSError(code, os.strerror(code), str(path))


class Recorder(FsOps):
    """Records every disk change kura makes, and makes it."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, str]] = []

    def _note(self, op: str, path: Path) -> None:
        self.steps.append((op, Path(path).name))

    def open(self, path, flags, mode=0o644):
        self._note("open", path)
        return super().open(path, flags, mode)

    def write(self, fd, data, path):
        self._note("write", path)
        return super().write(fd, data, path)

    def fsync(self, fd, path):
        self._note("fsync", path)
        return super().fsync(fd, path)

    def replace(self, src, dst):
        self._note("replace", dst)
        return super().replace(src, dst)

    def link(self, src, dst):
        self._note("link", dst)
        return super().link(src, dst)

    def unlink(self, path):
        self._note("unlink", path)
        return super().unlink(path)


class FailAt(Recorder):
    """The *n*-th disk change (0-based) fails with *code*; every other one happens.

    With ``sticky``, every change from the n-th on fails (a disk that stays full).
    """

    def __init__(self, n: int, code: int, *, sticky: bool = False) -> None:
        super().__init__()
        self.n = n
        self.code = code
        self.sticky = sticky
        self.failed: tuple[str, str] | None = None

    def _note(self, op: str, path: Path) -> None:
        i = len(self.steps)
        super()._note(op, path)
        if i == self.n or (self.sticky and i > self.n and op != "unlink"):
            if self.failed is None:
                self.failed = (op, Path(path).name)
            raise _oserror(self.code, Path(path))


class FullDisk(FsOps):
    """No new byte fits: creating or growing a file fails with ENOSPC. Renames and
    removals still work, as they do on a real full disk."""

    def open(self, path, flags, mode=0o644):
        if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR):
            raise _oserror(errno.ENOSPC, Path(path))
        return super().open(path, flags, mode)

    def write(self, fd, data, path):
        raise _oserror(errno.ENOSPC, Path(path))

    def link(self, src, dst):
        raise _oserror(errno.ENOSPC, Path(dst))


class ReadOnlyDisk(FsOps):
    """Every change fails with EROFS, as on a read-only mount (where root cannot write)."""

    def open(self, path, flags, mode=0o644):
        if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR):
            raise _oserror(errno.EROFS, Path(path))
        return super().open(path, flags, mode)

    def write(self, fd, data, path):
        raise _oserror(errno.EROFS, Path(path))

    def fsync(self, fd, path):
        raise _oserror(errno.EROFS, Path(path))

    def replace(self, src, dst):
        raise _oserror(errno.EROFS, Path(dst))

    def link(self, src, dst):
        raise _oserror(errno.EROFS, Path(dst))

    def unlink(self, path):
        raise _oserror(errno.EROFS, Path(path))


# --------------------------------------------------------------------------- a real tmpfs


class SmallFs:
    """A tmpfs mounted at *path* (when the machine allows), sized *size* bytes."""

    def __init__(self, path: Path, size: int = 512 * 1024) -> None:
        self.path = Path(path)
        self.size = size
        self.mounted = False
        self.filler = self.path / "filler.bin"

    def mount(self) -> bool:
        self.path.mkdir(parents=True, exist_ok=True)
        if not shutil.which("mount") or not shutil.which("umount"):
            return False
        try:
            r = subprocess.run(
                [
                    "mount",
                    "-t",
                    "tmpfs",
                    "-o",
                    f"size={self.size},mode=0755",
                    "tmpfs",
                    str(self.path),
                ],
                capture_output=True,
                timeout=20,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        self.mounted = r.returncode == 0
        return self.mounted

    def fill(self) -> int:
        """Write until the disk is full; returns the bytes written."""
        n = 0
        chunk = b"\0" * 4096
        with open(self.filler, "ab", buffering=0) as fh:
            while True:
                try:
                    fh.write(chunk)
                    n += len(chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
        for small in (1024, 256, 64, 16, 1):  # the last partial page too
            with open(self.filler, "ab", buffering=0) as fh:
                while True:
                    try:
                        fh.write(b"\0" * small)
                        n += small
                    except OSError:
                        break
        return n

    def free(self) -> None:
        if self.filler.exists():
            self.filler.unlink()

    def remount(self, mode: str) -> bool:
        r = subprocess.run(
            ["mount", "-o", f"remount,{mode}", str(self.path)], capture_output=True, timeout=20
        )
        return r.returncode == 0

    def unmount(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True, timeout=20)
            self.mounted = False
