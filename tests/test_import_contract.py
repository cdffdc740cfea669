"""The layers import in one direction: the core never imports a face's libraries or the
app, and the app talks to the core through :class:`kura_core.kura.Kura` and the package's
public values only.

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
CLI = "kura_core.cli"
#: What the app may import from the core: the application object, the error family and
#: the package's own exports.
APP_MAY_USE = {CORE, "kura_core.kura", "kura_core.errors"}
#: The benchmark plug-in of the app drives the benchmark package.
APP_BENCH, BENCH = "kura_tui.bench", "kura_core.bench"

#: Imports that break the contract today and are removed in the same change that reworks
#: the importing module; each fails the test once it is gone, so the list only shrinks.
PENDING: set[tuple[str, str]] = set()


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


def violations() -> tuple[list[str], set[tuple[str, str]]]:
    """What breaks the contract: messages for new breaks, and the pending pairs seen."""
    bad: list[str] = []
    seen: set[tuple[str, str]] = set()
    core, app = modules(CORE), modules(APP)
    known = {*core, *app}

    def report(name: str, path: Path, line: int, target: str, why: str) -> None:
        if (name, target) in PENDING:
            seen.add((name, target))
        else:
            bad.append(f"{path.relative_to(ROOT)}:{line}: imports {target}: {why}")

    for name, path in core.items():
        for target, line, at_top in imports(name, path, known):
            if not _within(target, (*FACE_LIBRARIES, APP)):
                continue
            if name == CLI and not at_top and (_within(target, ("rich",)) or target == APP):
                continue
            report(name, path, line, target, "the core never loads the app or its libraries")
    for name, path in app.items():
        for target, line, _ in imports(name, path, known):
            if not _within(target, (CORE,)) or target in APP_MAY_USE:
                continue
            if name == APP_BENCH and _within(target, (BENCH,)):
                continue
            report(
                name, path, line, target, "the app talks to the core through Kura (kura_core.kura)"
            )
    return bad, seen


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
    (pkg / "late.py").write_text("def show():\n    from textual.app import App\n    return App\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / APP).mkdir()
    bad, _ = violations()
    assert bad == [
        "kura_core/late.py:2: imports textual.app: the core never loads the app or its libraries"
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
        "kura_tui/pane.py:2: imports kura_core.weave: the app talks to the core through Kura "
        "(kura_core.kura)"
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
    names = sorted(modules(CORE))
    out = _python(PROBE, *names)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(names) <= set(res["core"])
    assert res["loaded"] == []


def test_cli_doctor_run_loads_neither_textual_nor_rich(tmp_path):
    code = (
        "import sys, json\n"
        "from kura_core.cli import main\n"
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


def test_textual_and_rich_are_installed_so_the_checks_mean_something():
    out = _python(
        "import textual, rich, kura_tui, sys; print(all(m in sys.modules for m in ('textual', 'rich')))"
    )
    assert out.stdout.strip() == "True", out.stderr


def test_the_package_exports_resolve_lazily_and_match_all():
    code = (
        "import json, sys, kura_core\n"
        "before = 'kura_core.doctor' in sys.modules\n"
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
    assert res["before"] is False  # importing the package does not load the doctor
    assert set(res["lazy"]) <= set(res["all"]) and set(res["all"]) <= set(res["dir"])
    assert "NoSuchThing" in out.stderr
