"""The layers import in one direction, and nothing imports in a circle.

The table of layers in docs/DESIGN.md is :data:`LAYERS` here, top to bottom: a module may
import its own layer and the layers below it, never one above (the few lazy exceptions are
:data:`UPWARD`, each with its reason). Every module of both packages must sit in a layer, so
a new one is placed on purpose. The faces (``kura_core.faces``, the entries, the app) talk to
the core through :class:`kura_core.kura.Kura`, the package's exports and the vocabulary
only; the core never imports a face's libraries or the app.

Every module is found by walking the package directories, and every ``import`` in it is
read from its syntax tree, including the ones inside functions, so a lazy import cannot
hide. A second check imports every core module in a fresh interpreter and looks at what
came along with it."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE, APP = "kura_core", "kura_tui"

#: Libraries of the full-screen face.
FACE_LIBRARIES = ("textual", "rich")
#: The one core module that may reach a face's code, and only inside functions: the CLI
#: prints with rich and opens the app (``kura``, ``kura tui``).
CLI = "kura_core.faces.cli"
#: What a face may import from the core: the application object, the error family, the
#: vocabulary and the package's own exports (plus the faces themselves).
FACES_MAY_USE = {CORE, "kura_core.kura", "kura_core.errors", "kura_core.vocabulary"}
APP_MAY_USE = FACES_MAY_USE

#: The layers, top to bottom, each with the module prefixes it holds (the longest prefix
#: decides). docs/DESIGN.md's table says what each one owns.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("measurement", ("kura_core.bench", "kura_tui.bench")),
    ("faces", ("kura_core.faces", "kura_core.mcp", "kura_core.__main__", "kura_tui")),
    ("application", ("kura_core", "kura_core.kura", "kura_core.connect")),
    (
        "metabolism",
        (
            "kura_core.distill",
            "kura_core.tend",
            "kura_core.handwork",
            "kura_core.curation",
            "kura_core.glance",
            "kura_core.doctor",
            "kura_core.sync",
            "kura_core.demo",
        ),
    ),
    (
        "reading and wearing",
        (
            "kura_core.recall",
            "kura_core.fastpath",
            "kura_core.verdict",
            "kura_core.warm",
            "kura_core.words",
            "kura_core.weave",
            "kura_core.prefill",
            "kura_core.resident",
            "kura_core.cloth",
            "kura_core.profile",
            "kura_core.prompts",
        ),
    ),
    ("floors", ("kura_core.floors",)),
    ("evidence", ("kura_core.distill.journals", "kura_core.distill.evidence")),
    (
        "state",
        (
            "kura_core.store",
            "kura_core.history",
            "kura_core.workshop",
            "kura_core.config",
            "kura_core.registry",
            "kura_core.fsutil",
            "kura_core.llm",
            "kura_core.secrets",
            "kura_core.secret_views",
            "kura_core.scrub",
            "kura_core.errors",
            "kura_core.vocabulary",
            "kura_core.shapes",
            "kura_core.tokens",
            "kura_core.reports",
            "kura_core.budget",
            "kura_core.script",
            "kura_core.normal",
        ),
    ),
)

#: Imports that point up the table, each inside a function and only when asked for.
UPWARD: dict[tuple[str, str], str] = {
    (CLI, "kura_core.bench"): "`kura bench` loads the bench when it is asked to measure",
    (APP, "kura_tui.bench"): "the app hands `kura bench` its first-paint probe when asked",
    ("kura_core.config", "kura_core.distill.journals.registry"): (
        "a config names journal adapters; the adapter registry (built-in and plug-in) is the "
        "one list of them, asked only when a config is checked"
    ),
}

#: Imports that break the contract today and are removed in the same change that reworks
#: the importing module; each fails the test once it is gone, so the list only shrinks.
PENDING: set[tuple[str, str]] = set()

#: Import circles in code being rewritten elsewhere, each named by its sorted members; the
#: test fails once one is gone, so the list only shrinks.
PENDING_CYCLES: set[tuple[str, ...]] = set()


def modules(package: str) -> dict[str, Path]:
    """Every module of *package*, by dotted name, found on disk."""
    base = ROOT / package
    out = {}
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(
    name: str, path: Path, known: set[str] | frozenset[str] = frozenset()
) -> list[tuple[str, int, bool]]:
    """``(imported module, line, at module level)`` for every import in the file, with
    relative imports resolved; ``from a import b`` is read as ``a.b`` when that is one of
    the *known* modules (a submodule), else as ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = {id(n) for n in tree.body}
    top |= {
        id(n) for node in tree.body if isinstance(node, (ast.If, ast.Try)) for n in ast.walk(node)
    }  # TYPE_CHECKING and try/except ImportError blocks
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = {
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            }
            out += [(t, node.lineno, id(node) in top) for t in sorted(targets)]
    return out


def _within(target: str, roots: set[str] | tuple[str, ...]) -> bool:
    return any(target == r or target.startswith(r + ".") for r in roots)


def layer_of(name: str) -> int | None:
    """The index in :data:`LAYERS` of *name*'s layer (the longest matching prefix wins;
    ``kura_core`` names the package's ``__init__`` alone)."""
    best: tuple[int, int] | None = None
    for rank, (_, roots) in enumerate(LAYERS):
        for root in roots:
            if root == CORE and name != CORE:  # the package itself, not all it holds
                continue
            if _within(name, (root,)) and (best is None or len(root) > best[0]):
                best = (len(root), rank)
    return None if best is None else best[1]


def _known(target: str, known: set[str]) -> str | None:
    """The module of ours that *target* names (``kura_core.store.TYPES`` is the store)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def graph(core: dict[str, Path], app: dict[str, Path]) -> dict[str, list[tuple[str, int, bool]]]:
    """Every module of ours and the modules of ours it imports, lazily or not."""
    known = {*core, *app}
    out: dict[str, list[tuple[str, int, bool]]] = {}
    for name, path in {**core, **app}.items():
        edges = []
        for target, line, at_top in imports(name, path, known):
            mod = _known(target, known)
            if mod and mod != name:
                edges.append((mod, line, at_top))
        out[name] = edges
    return out


def _face_libraries(core, known, report) -> None:
    for name, path in core.items():
        for target, line, at_top in imports(name, path, known):
            if not _within(target, (*FACE_LIBRARIES, APP)):
                continue
            if name == CLI and not at_top and (_within(target, ("rich",)) or target == APP):
                continue
            report(name, path, line, target, "the core never loads the app or its libraries")


def _layer_breaks(core, app, report) -> None:
    faces = LAYERS[1][1]
    for name, edges in graph(core, app).items():
        path = {**core, **app}[name]
        here = layer_of(name)
        if here is None:
            report(name, path, 1, name, "a module with no layer: place it in LAYERS (and DESIGN)")
            continue
        for target, line, at_top in edges:
            there = layer_of(target)
            if (name, target) in UPWARD and not at_top:
                continue
            if there is not None and there < here:
                report(
                    name,
                    path,
                    line,
                    target,
                    f"{LAYERS[here][0]} never imports {LAYERS[there][0]}, which sits above it",
                )
            elif (
                here == 1
                and _within(target, (CORE,))
                and not _within(target, faces)
                and target not in FACES_MAY_USE
            ):
                report(
                    name,
                    path,
                    line,
                    target,
                    "a face talks to the core through Kura (kura_core.kura), the package's "
                    "exports and the vocabulary",
                )


def violations() -> tuple[list[str], set[tuple[str, str]]]:
    """What breaks the contract: messages for new breaks, and the pending pairs seen."""
    bad: list[str] = []
    seen: set[tuple[str, str]] = set()
    core, app = modules(CORE), modules(APP)

    def report(name: str, path: Path, line: int, target: str, why: str) -> None:
        if (name, target) in PENDING:
            seen.add((name, target))
        else:
            bad.append(f"{path.relative_to(ROOT)}:{line}: imports {target}: {why}")

    _face_libraries(core, {*core, *app}, report)
    _layer_breaks(core, app, report)
    return bad, seen


def cycles(edges: dict[str, list[tuple[str, int, bool]]]) -> list[tuple[str, ...]]:
    """Every import circle (a strongly connected set of two or more modules, or a module
    importing itself), each as its sorted members (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[tuple[str, ...]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted({t for t, _, _ in edges.get(start, [])})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted({t for t, _, _ in edges.get(nxt, [])}))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    members.append(m)
                    if m == node:
                        break
                selfloop = any(t == node for t, _, _ in edges.get(node, []))
                if len(members) > 1 or selfloop:
                    found.append(tuple(sorted(members)))
    return sorted(found)


def test_nothing_imports_in_a_circle():
    found = set(cycles(graph(modules(CORE), modules(APP))))
    new = found - PENDING_CYCLES
    assert not new, "import circles (lazy imports count):\n" + "\n".join(
        " -> ".join(c) for c in sorted(new)
    )
    assert found >= PENDING_CYCLES, f"gone, remove from PENDING_CYCLES: {PENDING_CYCLES - found}"


def test_the_mcp_entry_reaches_neither_the_command_line_nor_the_bench():
    edges = graph(modules(CORE), modules(APP))
    seen, todo = set(), ["kura_core.mcp.__main__"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [t for t, _, _ in edges.get(name, [])]
    assert "kura_core.faces.mcp" in seen
    assert not [m for m in seen if _within(m, (CLI, "kura_core.bench", APP))]


def test_the_circle_finder_finds_circles_and_only_circles():
    def e(*targets):
        return [(t, 1, True) for t in targets]

    edges = {"a": e("b"), "b": e("c"), "c": e("a", "d"), "d": e("e"), "e": e(), "f": e("f")}
    assert cycles(edges) == [("a", "b", "c"), ("f",)]
    assert cycles({"a": e("b"), "b": e("c"), "c": e()}) == []


def test_every_layer_in_design_is_the_layer_table_here():
    design = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    table = design[design.index("| layer | modules | owns |") :].split("\n\n")[0]
    rows = [r.split("|")[1].strip() for r in table.splitlines()[2:]]
    assert rows == [name for name, _ in LAYERS]


def test_every_module_keeps_the_layers():
    bad, seen = violations()
    assert not bad, "\n".join(bad)
    assert seen == PENDING, f"no longer imported, remove from PENDING: {sorted(PENDING - seen)}"


def test_the_contract_reads_every_module_and_every_kind_of_import(tmp_path):
    core = modules(CORE)
    assert {
        "kura_core",
        "kura_core.kura",
        "kura_core.distill.journals.claude",
        "kura_core.bench",
    } <= set(core)
    assert len(core) == len(list((ROOT / CORE).rglob("*.py")))
    pkg = tmp_path / "kura_core" / "sub"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "leaf.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import other\n"
        "from ..errors import KuraError\n"
        "if TYPE_CHECKING:\n"
        "    import rich.console\n"
        "def late():\n"
        "    import textual.app as t\n"
        "    from kura_tui import run\n"
    )
    found = imports(
        "kura_core.sub.leaf", pkg / "leaf.py", {"kura_core.sub.other", "kura_core.errors"}
    )
    assert [(t, top) for t, _, top in found if t.startswith(("kura", "rich", "textual"))] == [
        ("kura_core.sub.other", True),
        ("kura_core.errors", True),
        ("rich.console", True),
        ("textual.app", False),
        ("kura_tui", False),
    ]


def test_the_contract_catches_a_lazy_import_of_textual(tmp_path, monkeypatch):
    pkg = tmp_path / CORE
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "weave.py").write_text("def show():\n    from textual.app import App\n    return App\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / APP).mkdir()
    bad, _ = violations()
    assert bad == [
        "kura_core/weave.py:2: imports textual.app: the core never loads the app or its libraries"
    ]


def test_the_contract_catches_the_app_reaching_past_kura(tmp_path, monkeypatch):
    for pkg, files in {CORE: ("__init__", "kura", "weave"), APP: ("__init__", "pane")}.items():
        (tmp_path / pkg).mkdir()
        for f in files:
            (tmp_path / pkg / f"{f}.py").write_text("")
    (tmp_path / APP / "pane.py").write_text(
        "from kura_core.kura import Kura\nfrom kura_core import weave\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    bad, _ = violations()
    assert bad == [
        "kura_tui/pane.py:2: imports kura_core.weave: a face talks to the core through Kura "
        "(kura_core.kura), the package's exports and the vocabulary"
    ]


def test_the_contract_catches_an_import_up_the_table_a_face_past_kura_and_a_stray(
    tmp_path, monkeypatch
):
    files = {
        "kura_core/__init__.py": "",
        "kura_core/kura.py": "from . import store\n",
        "kura_core/store.py": "def later():\n    from .recall import recall\n",
        "kura_core/recall.py": "from .store import Store\n",
        "kura_core/faces/__init__.py": "",
        "kura_core/faces/cli.py": "from .. import Kura\nfrom ..store import Store\n"
        "def bench():\n    from .. import bench\n",
        "kura_core/faces/http.py": "from ..bench import perf\n",
        "kura_core/bench/__init__.py": "from ..faces import http\n",
        "kura_core/stray.py": "",
        "kura_tui/__init__.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    bad, _ = violations()
    assert sorted(bad) == [
        "kura_core/faces/cli.py:2: imports kura_core.store: a face talks to the core through "
        "Kura (kura_core.kura), the package's exports and the vocabulary",
        "kura_core/faces/http.py:1: imports kura_core.bench: faces never imports measurement, "
        "which sits above it",
        "kura_core/store.py:2: imports kura_core.recall: state never imports reading and "
        "wearing, which sits above it",
        "kura_core/stray.py:1: imports kura_core.stray: a module with no layer: place it in "
        "LAYERS (and DESIGN)",
    ]
    assert cycles(graph(modules(CORE), modules(APP))) == [
        ("kura_core.bench", "kura_core.faces.http"),
        ("kura_core.recall", "kura_core.store"),
    ]


PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"textual", "rich", "kura_tui"})
print(json.dumps({"loaded": loaded, "core": sorted(m for m in sys.modules if m.startswith("kura_core"))}))
"""


def _python(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def test_importing_every_core_module_loads_neither_the_app_nor_its_libraries():
    names = sorted(n for n in modules(CORE) if not n.endswith("__main__"))  # entries run
    out = _python(PROBE, *names)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(names) <= set(res["core"])
    assert res["loaded"] == []


def test_cli_doctor_run_loads_neither_textual_nor_rich(tmp_path):
    code = (
        "import sys, json\n"
        "from kura_core.faces.cli import main\n"
        "rc = main(['-c', sys.argv[1], 'doctor', '--json'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'kura_tui'))\n"
        "sys.stderr.write(json.dumps({'rc': rc, 'heavy': heavy}))\n"
    )
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{tmp_path / "main"}"\n', encoding="utf-8")
    from kura_core.store import Store

    Store(tmp_path / "main").init()
    out = _python(code, str(cfg))
    res = json.loads(out.stderr.strip().splitlines()[-1])
    assert res["rc"] == 0
    assert res["heavy"] == []


def test_the_command_line_starts_without_the_distiller_the_floors_or_the_journal_readers():
    code = (
        "import json, sys, kura_core.faces.cli\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('kura_core'))))\n"
    )
    out = _python(code)
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout)
    heavy = ("kura_core.distill", "kura_core.floors", "kura_core.doctor", "kura_core.demo")
    assert [m for m in loaded if _within(m, heavy)] == []
    assert "kura_core.kura" in loaded  # what every command calls


def test_textual_and_rich_are_installed_so_the_checks_mean_something():
    out = _python(
        "import textual, rich, kura_tui, sys; print(all(m in sys.modules for m in ('textual', 'rich')))"
    )
    assert out.stdout.strip() == "True", out.stderr


def test_the_package_exports_resolve_lazily_and_match_all():
    code = (
        "import json, sys, kura_core\n"
        "before = sorted(m for m in sys.modules if m.split('.')[0] in ('kura_core', 'httpx'))\n"
        "names = {n: type(getattr(kura_core, n)).__name__ for n in kura_core.__all__}\n"
        "print(json.dumps({'before': before, 'all': sorted(kura_core.__all__), 'dir': sorted(dir(kura_core)),\n"
        "                  'lazy': sorted(kura_core._RETURNED)}))\n"
        "try:\n"
        "    kura_core.NoSuchThing\n"
        "except AttributeError as e:\n"
        "    sys.stderr.write(str(e))\n"
    )
    out = _python(code)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["before"] == ["kura_core"]  # importing the package loads none of its names
    assert set(res["lazy"]) <= set(res["all"]) and set(res["all"]) <= set(res["dir"])
    assert "NoSuchThing" in out.stderr
