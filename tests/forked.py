"""Child processes forked from the test process, for tests about processes and kills.

A crash test wants a second process that dies — killed from inside at a chosen disk step, or
from outside at a random moment — and then looks at what it left on disk. Starting a fresh
interpreter for each child costs an import of kura every time; a fork of the test process,
which has kura imported already, costs a few milliseconds. The child is a real process:
its own pid, its own file descriptors, killed by a real signal, its writes racing the
parent's for real. What it runs is a function, not a string of code.

:func:`run` waits for the child like :func:`subprocess.run`; :func:`spawn` gives a
:class:`Child` with the parts of :class:`subprocess.Popen` the tests use.
"""

from __future__ import annotations

import contextlib
import io
import os
import selectors
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Child", "Finished", "run", "spawn"]


@dataclass(frozen=True)
class Finished:
    """What a child that ran to its end (or was killed) left: like CompletedProcess."""

    returncode: int
    stdout: str
    stderr: str


def _child_main(fn: Callable[..., Any], args: tuple, fds: tuple[int, int, int]) -> None:
    """In the child: wire the three pipes to fds 0-2 and to fresh sys streams, run *fn*, and
    leave with its exit code without running the parent's exit handlers."""
    code = 0
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False), encoding="utf-8", line_buffering=True
        )
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False), encoding="utf-8", line_buffering=True
        )
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        fn(*args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # the parent reads what went wrong from stderr
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: nothing more to say
                stream.flush()
        os._exit(code)


class Child:
    """A forked child running a function; ``stdin``, ``stdout`` and ``stderr`` are text pipes."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:  # the child never returns from here
            for fd in (in_w, out_r, err_r):
                os.close(fd)
            _child_main(fn, args, (in_r, out_w, err_w))
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        self.pid = pid
        self.returncode: int | None = None
        # the pipes live as long as the child: close() closes them
        self.stdin = os.fdopen(in_w, "w", encoding="utf-8")
        self.stdout = os.fdopen(out_r, encoding="utf-8")
        self.stderr = os.fdopen(err_r, encoding="utf-8")

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it ended on its own a moment ago
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                self.kill()
                os.waitpid(self.pid, 0)
                raise TimeoutError(f"child {self.pid} still ran after {timeout} s; killed")
            time.sleep(0.002)
        assert self.returncode is not None
        return self.returncode

    def communicate(self, text: str = "", timeout: float = 60.0) -> tuple[str, str]:
        """Send *text*, close stdin, read both pipes to their end, wait for the exit."""
        if text:
            self.stdin.write(text)
        self.stdin.close()
        out = _drain(self.stdout, self.stderr)
        self.wait(timeout)
        return out

    def close(self) -> None:
        for f in (self.stdin, self.stdout, self.stderr):
            if not f.closed:
                f.close()


def _drain(out: io.TextIOBase, err: io.TextIOBase) -> tuple[str, str]:
    """Read two pipes to their end without one of them filling up and stalling the child."""
    sel = selectors.DefaultSelector()
    got: dict[int, list[bytes]] = {out.fileno(): [], err.fileno(): []}
    for f in (out, err):
        sel.register(f.fileno(), selectors.EVENT_READ)
    while sel.get_map():
        for key, _ in sel.select():
            chunk = os.read(key.fd, 65536)
            if chunk:
                got[key.fd].append(chunk)
            else:
                sel.unregister(key.fd)
    sel.close()
    return (
        b"".join(got[out.fileno()]).decode("utf-8", "replace"),
        b"".join(got[err.fileno()]).decode("utf-8", "replace"),
    )


def spawn(fn: Callable[..., Any], *args: Any) -> Child:
    """Fork a child that runs ``fn(*args)``; it exits 0, its SystemExit code, or 1 on error."""
    return Child(fn, *args)


def run(fn: Callable[..., Any], *args: Any, timeout: float = 120.0) -> Finished:
    """Fork a child that runs ``fn(*args)`` and wait for it; its output comes back as text."""
    child = spawn(fn, *args)
    try:
        out, err = child.communicate(timeout=timeout)
    finally:
        child.close()
    assert child.returncode is not None
    return Finished(child.returncode, out, err)
