"""Every regular expression in kura_core runs in time linear in its input.

Not a reviewed list: the test imports every module of the package, collects every compiled
pattern reachable from a module or class (directly or inside a dict, list, tuple or set),
and runs each against generated pathological inputs (``linear_inputs``) at two sizes, the
way the code uses it -- ``finditer`` for a pattern that is searched, ``match`` or
``fullmatch`` for one that is only anchored; a pattern handed around is tried every way.
Patterns compiled inside a function at call time cannot be collected, so a second test
forbids them: a function may only use a module-level pattern, or build one from run-time
data through a builder listed in ``DYNAMIC`` below, which this test then exercises.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import kura_core
from tests.core.linear_inputs import common_families, grows_linearly, pattern_families

ROOT = Path(kura_core.__file__).resolve().parent

#: Methods that scan the whole text (cost of a failed search = cost of finditer).
SCANNING = {"search", "finditer", "findall", "sub", "subn", "split"}
RE_CALLS = SCANNING | {"compile", "match", "fullmatch"}


def _dynamic_attribution() -> Iterable[re.Pattern[str]]:
    from kura_core.floors import attribution

    for names in ((), ("Alice",), ("Bob Smith", "佐藤", "小明", "O'Neil")):
        yield from attribution.dynamic_patterns(names)


def _dynamic_retention() -> Iterable[re.Pattern[str]]:
    from kura_core.bench.retention import expect_pattern

    fixture = Path(__file__).resolve().parent.parent / "fixtures/seed-retention/questions.json"
    for q in json.loads(fixture.read_text(encoding="utf-8")):
        yield expect_pattern(str(q["expect"]))


def _dynamic_toml() -> Iterable[re.Pattern[str]]:
    from kura_core.connect import tomledit

    for keys in (["mcp_servers", "kura"], ["a b", "c.d", "x-y"]):
        yield tomledit._header_re(keys)
        yield tomledit._key_re(keys[-1])


def _dynamic_secrets() -> Iterable[re.Pattern[str]]:
    from kura_core import secrets

    yield from (shape.pattern for shape in secrets.provider_shapes())
    yield secrets._partial_shape(secrets.catalogue_entries()).pattern


#: Functions that compile a pattern from run-time data (a configured name, a benchmark's
#: expected answer), each with a maker of representative patterns this test runs.
DYNAMIC: dict[str, Callable[[], Iterable[re.Pattern[str]]]] = {
    "kura_core.floors.attribution:_en_patterns": _dynamic_attribution,
    "kura_core.floors.attribution:_names_re": _dynamic_attribution,
    "kura_core.floors.attribution:_ja_patterns": _dynamic_attribution,
    "kura_core.floors.attribution:_zh_patterns": _dynamic_attribution,
    "kura_core.bench.retention:expect_pattern": _dynamic_retention,
    "kura_core.connect.tomledit:_header_re": _dynamic_toml,
    "kura_core.connect.tomledit:_key_re": _dynamic_toml,
    # the secret shapes; an operator's own patterns are refused unless bounded (unbounded())
    "kura_core.secrets:_shape": _dynamic_secrets,
    "kura_core.secrets:build": _dynamic_secrets,
    "kura_core.secrets:_entry_shape": _dynamic_secrets,
    "kura_core.secrets:_partial_shape": _dynamic_secrets,
}


# --------------------------------------------------------------------------- collection


@dataclass(frozen=True)
class Found:
    where: str
    pattern: re.Pattern
    modes: frozenset[str]  # of "scan", "match", "fullmatch"


ALL_MODES = frozenset({"scan", "fullmatch"})


def _modules() -> list:
    mods = [kura_core]
    for info in pkgutil.walk_packages(kura_core.__path__, "kura_core."):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # running it starts a face
            mods.append(importlib.import_module(info.name))
    return mods


def _patterns_in(obj: object, where: str, depth: int = 3) -> Iterator[tuple[str, re.Pattern]]:
    if isinstance(obj, re.Pattern):
        yield where, obj
    elif depth and isinstance(obj, dict):
        for k, v in obj.items():
            yield from _patterns_in(v, f"{where}[{k!r}]", depth - 1)
    elif depth and isinstance(obj, list | tuple | set | frozenset):
        for i, v in enumerate(obj):
            yield from _patterns_in(v, f"{where}[{i}]", depth - 1)


def _usage(tree: ast.AST) -> tuple[dict[str, set[str]], set[str]]:
    """For each name in a module, how the module uses it: the pattern methods called on it,
    or "any" when it is used another way (passed, iterated, returned); and the names it
    imports from elsewhere. One walk (parents come before their children in it)."""
    uses: dict[str, set[str]] = {}
    imported: set[str] = set()
    called: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.attr in RE_CALLS | _PATTERN_ATTRS:
                called.add(id(node.value))
                mode = (
                    "scan" if node.attr in SCANNING else node.attr if "match" in node.attr else None
                )
                if mode:
                    uses.setdefault(node.value.id, set()).add(mode)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and id(node) not in called:
                uses.setdefault(node.id, set()).add("any")
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                uses.setdefault(alias.asname or alias.name, set()).add("any")
                imported.add(alias.name)
    return uses, imported


_PATTERN_ATTRS = frozenset({"pattern", "flags", "groupindex"})


def collect() -> list[Found]:
    modules = [m for m in _modules() if getattr(m, "__file__", None)]
    usages = [_usage(ast.parse(Path(m.__file__).read_text(encoding="utf-8"))) for m in modules]
    # names imported from one kura_core module into another (their use is not tracked)
    shared = set().union(*(imported for _uses, imported in usages))
    found: dict[tuple[str | bytes, int], Found] = {}

    def add(where: str, p: re.Pattern, modes: frozenset[str]) -> None:
        key = (p.pattern, p.flags)
        if key in found:
            modes = modes | found[key].modes
            where = found[key].where
        found[key] = Found(where, p, modes)

    for mod, (usage, _imported) in zip(modules, usages, strict=True):
        for name, value in vars(mod).items():
            if inspect.isclass(value) and value.__module__ == mod.__name__:
                for attr, av in vars(value).items():
                    for where, p in _patterns_in(av, f"{mod.__name__}.{name}.{attr}"):
                        add(where, p, ALL_MODES)
                continue
            for where, p in _patterns_in(value, f"{mod.__name__}.{name}"):
                direct = where == f"{mod.__name__}.{name}"
                modes = usage.get(name, set())
                if not direct or "any" in modes or name in shared or not modes:
                    add(where, p, ALL_MODES)
                else:
                    add(where, p, frozenset(modes))
    for key, make in DYNAMIC.items():
        for p in make():
            add(f"{key} -> {p.pattern[:40]!r}", p, ALL_MODES)
    return sorted(found.values(), key=lambda f: f.where)


PATTERNS = collect()


def test_the_collection_reaches_the_floors_and_the_adapters():
    wheres = {f.where.rsplit(".", 1)[0] for f in PATTERNS}
    for mod in ("kura_core.floors.quantities", "kura_core.distill.gate", "kura_core.words"):
        assert mod in wheres, f"no pattern collected from {mod}"
    assert len(PATTERNS) > 150


# --------------------------------------------------------------------------- linear time

N = 150


def _runner(p: re.Pattern, mode: str) -> Callable[[str], object]:
    def as_input(s: str):
        return s.encode("utf-8", "replace") if isinstance(p.pattern, bytes) else s

    if mode == "scan":
        return lambda s: sum(1 for _ in p.finditer(as_input(s)))
    if mode == "match":
        return lambda s: p.match(as_input(s))
    return lambda s: p.fullmatch(as_input(s))


COMMON = common_families()


@pytest.mark.slow
@pytest.mark.parametrize("found", PATTERNS, ids=lambda f: f.where)
def test_pattern_runs_in_linear_time(found: Found):
    families = {**COMMON, **pattern_families(found.pattern)}
    slow = []
    for mode in sorted(found.modes):
        run = _runner(found.pattern, mode)
        for name, family in families.items():
            g = grows_linearly(run, family, N)
            if not g.ok:
                slow.append(f"{mode} on {name}: {g.why}")
    assert not slow, f"{found.where} = {found.pattern.pattern!r} is not linear:\n  " + "\n  ".join(
        slow[:10]
    )


# --------------------------------------------------------------------------- no hidden patterns


def _function_compiles(path: Path) -> Iterator[tuple[str, int, str, str]]:
    """(function, line, call, first argument) for each ``re.<call>(...)`` inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def visit(node: ast.AST, func: str | None) -> Iterator[tuple[str, int, str, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from visit(child, child.name if func is None else func)
                continue
            if (
                func is not None
                and isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and isinstance(child.func.value, ast.Name)
                and child.func.value.id == "re"
                and child.func.attr in RE_CALLS
            ):
                arg = ast.unparse(child.args[0]) if child.args else ""
                yield func, child.lineno, child.func.attr, arg
            yield from visit(child, func)

    yield from visit(tree, None)


def test_no_function_compiles_a_pattern_at_call_time():
    """A pattern written in a function is compiled where no test can reach it: it belongs at
    module level. A pattern built from run-time data comes from a builder in DYNAMIC."""
    hidden = []
    builders = set()
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(("kura_core", *path.relative_to(ROOT).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        for func, line, call, arg in _function_compiles(path):
            key = f"{module}:{func}"
            if key in DYNAMIC:
                builders.add(key)
                continue
            hidden.append(f"{path.relative_to(ROOT.parent)}:{line}: {func}: re.{call}({arg[:50]})")
    assert not hidden, "patterns compiled inside functions (move them to module level):\n" + (
        "\n".join(hidden)
    )
    assert builders == set(DYNAMIC), (
        f"DYNAMIC lists builders that no longer exist: {set(DYNAMIC) - builders}"
    )
