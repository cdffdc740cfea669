"""A module binds each of its top-level names once.

A regular expression or a function defined twice under one name in a long module is a
silent bug: the later one replaces the earlier at import, and the code written beside the
earlier one runs with the later one's meaning. Python and the linter allow it for plain
assignments, so it is read here from every module's syntax tree."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bound_twice(source: str) -> list[tuple[str, int, int]]:
    """The top-level names *source* binds more than once, each with both line numbers."""
    seen: dict[str, int] = {}
    twice: list[tuple[str, int, int]] = []
    for node in ast.parse(source).body:
        names: list[str] = []
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            names = [node.target.id] if isinstance(node.target, ast.Name) else []
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        for name in names:
            if name in seen and name != "__all__":
                twice.append((name, seen[name], node.lineno))
            seen[name] = node.lineno
    return twice


def test_no_module_binds_a_top_level_name_twice():
    found = [
        f"{path.relative_to(ROOT)}: {name} at lines {first} and {second}"
        for package in ("kura_core", "kura_tui")
        for path in sorted((ROOT / package).rglob("*.py"))
        for name, first, second in _bound_twice(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_an_assignment_and_a_function_bound_again():
    source = "import re\nA = re.compile('x')\ndef f(): pass\nA = re.compile('y')\ndef f(): pass\n"
    assert _bound_twice(source) == [("A", 2, 4), ("f", 3, 5)]
    assert _bound_twice("A: int = 1\nB = 2\n__all__ = []\n__all__ = ['B']\n") == []
