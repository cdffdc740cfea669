"""The checks that keep the code honest run with the tests: ruff (pyflakes, a complexity
limit, bugbear, pyupgrade, isort and simplify) and ruff's formatter over every Python file,
and mypy over the core. They are configured in pyproject.toml and installed by the ``dev``
extra, so ``ruff check``, ``ruff format --check`` and ``mypy`` in the project's virtual
environment give the same answer as this file."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

#: Functions over the complexity limit that are being split in the same change that
#: reworks their module. Each entry fails the test once its function meets the limit, so
#: the list only shrinks. Nothing else may be added here: split the function instead.
COMPLEX_PENDING: set[tuple[str, str]] = set()

#: Modules whose type errors are being fixed in the same change that reworks them; the
#: same rule: an entry fails once its module is clean.
MYPY_PENDING: set[str] = set()


def _tool(name: str) -> str:
    exe = BIN / name
    assert exe.exists(), f"{name} is not installed beside {sys.executable}: pip install -e '.[dev]'"
    return str(exe)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing():
    out = _run(_tool("ruff"), "check", "--no-cache", "--output-format", "json", ".")
    assert out.returncode in (0, 1), out.stderr
    found = json.loads(out.stdout)
    waived: set[tuple[str, str]] = set()
    left = []
    for f in found:
        path = Path(f["filename"]).resolve().relative_to(ROOT).as_posix()
        name = re.search(r"`([^`]+)`", f["message"])
        key = (path, name.group(1) if name else "")
        if f["code"] == "C901" and key in COMPLEX_PENDING:
            waived.add(key)
            continue
        row = f["location"]["row"]
        left.append(f"{path}:{row}: {f['code']} {f['message']}")
    assert not left, "ruff check:\n" + "\n".join(left)
    assert not COMPLEX_PENDING - waived, (
        f"now within the complexity limit, remove from COMPLEX_PENDING: {sorted(COMPLEX_PENDING - waived)}"
    )


def test_the_tree_is_formatted():
    out = _run(_tool("ruff"), "format", "--check", "--no-cache", ".")
    assert out.returncode == 0, (
        "ruff format would change these (run `ruff format .`):\n" + out.stdout
    )


# eleven seconds of one worker: the slow tier (.ci/run) runs it
@pytest.mark.slow
def test_mypy_finds_nothing_in_the_core():
    out = _run(_tool("mypy"), "--no-error-summary", "--hide-error-context")
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert out.returncode in (0, 1) and (errors or out.returncode == 0), out.stdout + out.stderr
    pending = {line.split(":", 1)[0] for line in errors} & MYPY_PENDING
    left = [line for line in errors if line.split(":", 1)[0] not in MYPY_PENDING]
    assert not left, "mypy:\n" + "\n".join(left)
    assert pending == MYPY_PENDING, (
        f"now clean, remove from MYPY_PENDING: {sorted(MYPY_PENDING - pending)}"
    )


# --------------------------------------------------------------------------- the tests themselves

#: Where waiting may sleep: the polling helpers (they sleep between looks at a condition,
#: or at a forked child that has not exited yet)
#: and the fakes (a scripted model may be slow on purpose).
MAY_SLEEP = ("tests/wait.py", "tests/forked.py", "tests/tui/conftest.py", "tests/fakes/")
#: A sleep elsewhere must say on the line above that the pause itself is under test.
SLEEP_REASON = "# the pause is the thing under test"


def _test_files() -> list[Path]:
    return sorted((ROOT / "tests").rglob("*.py"))


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def cannot_fail(tree: ast.AST) -> list[tuple[int, str]]:
    """Assertions that hold whatever the code does, and skips that hide a result."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            t = node.test
            if isinstance(t, ast.Constant):
                out.append((node.lineno, "asserts a constant"))
            if (
                isinstance(t, ast.BoolOp)
                and isinstance(t.op, ast.Or)
                and any(isinstance(v, ast.Constant) and v.value for v in t.values)
            ):
                out.append((node.lineno, "`or` with a true constant"))
            for c in ast.walk(t):
                if isinstance(c, ast.Compare):
                    sides = [c.left, *c.comparators]
                    if any(_same(a, b) for a, b in zip(sides, sides[1:], strict=False)):
                        out.append((node.lineno, "compares a value with itself"))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in (
            "pytest.skip",
            "pytest.xfail",
            "pytest.importorskip",
            "pytest.mark.skip",
            "pytest.mark.skipif",
            "pytest.mark.xfail",
        ):
            out.append((node.lineno, f"{ast.unparse(node.func)} hides a result"))
        elif isinstance(node, ast.Attribute) and ast.unparse(node) in (
            "pytest.mark.skip",
            "pytest.mark.skipif",
            "pytest.mark.xfail",
        ):
            out.append((node.lineno, f"{ast.unparse(node)} hides a result"))
    return out


def sleeps(path: str, source: str) -> list[int]:
    """Lines of *source* that sleep for a guessed time instead of waiting on a condition."""
    if path.startswith(MAY_SLEEP):
        return []
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        timed = name in ("time.sleep", "asyncio.sleep", "sleep") or (
            name.endswith("pilot.pause") and bool(node.args or node.keywords)
        )
        if timed and SLEEP_REASON not in lines[node.lineno - 2] + lines[node.lineno - 1]:
            out.append(node.lineno)
    return out


#: the one helper allowed to skip: a registry the test needs cannot be reached
MAY_SKIP = ("tests/unreachable.py",)


def test_no_test_asserts_what_cannot_fail_or_skips():
    found = [
        f"{p.relative_to(ROOT)}:{line}: {why}"
        for p in _test_files()
        if p != Path(__file__) and p.relative_to(ROOT).as_posix() not in MAY_SKIP
        for line, why in cannot_fail(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert not found, "\n".join(found)


def test_no_test_sleeps_instead_of_waiting_on_the_condition():
    found = [
        f"{p.relative_to(ROOT)}:{line}: sleeps; wait on the condition (tests/wait.py)"
        for p in _test_files()
        for line in sleeps(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_test_checks_catch_what_they_look_for():
    bad = ast.parse(
        "def test_x(v):\n    assert v == v\n    assert v or True\n    pytest.skip('later')\n"
    )
    assert [why for _, why in cannot_fail(bad)] == [
        "compares a value with itself",
        "`or` with a true constant",
        "pytest.skip hides a result",
    ]
    assert cannot_fail(ast.parse("def test_x(v):\n    assert v == 2 and v != 3\n")) == []
    waits = (
        "import time\ndef test_x(pilot):\n    time.sleep(0.5)\n    pilot.pause(0.3)\n    pilot.pause()\n"
        f"    {SLEEP_REASON}\n    time.sleep(0.1)\n"
    )
    assert sleeps("tests/core/test_x.py", waits) == [3, 4]
    assert sleeps("tests/wait.py", waits) == []
