"""Shared fixtures. The suite needs no model and no network: models are scripted
servers on real loopback sockets (tests/fakes/model_server.py)."""

from __future__ import annotations

import compileall
import os
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

#: Set by pytest-textual-snapshot in the controlling process for its workers under xdist.
_KEEP = ("TEXTUAL_SNAPSHOT_TEMPDIR",)
for _k in list(os.environ):
    if _k in _KEEP:
        continue
    if _k.startswith(("TEXTUAL", "KURA_")) or _k in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES"):
        del os.environ[_k]


def _keep_bytecode() -> None:
    """Compiled modules are kept for the run, in a cache outside the checkout.

    Without it (``PYTHONDONTWRITEBYTECODE`` set, as some machines do) every worker and
    every CLI a test starts compiles the package from source again: about half a second of
    CPU per process, and the suite starts hundreds of them. The cache lives in the
    checkout's ``.pycache`` (ignored by git, like the linters' caches), apart from the
    sources, so a machine that keeps source trees free of bytecode still does."""
    prefix = ROOT / ".pycache"
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(prefix)


_keep_bytecode()


def pytest_configure(config):
    """Compile the package once, before the workers start, so they and the processes they
    start read it compiled instead of each compiling it at the same moment."""
    if hasattr(config, "workerinput"):
        return
    for package in ("kura_core", "kura_tui"):
        compileall.compile_dir(ROOT / package, quiet=1, workers=os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """No test may read or write the real ~/.config/kura or ./kura.toml."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for k in list(os.environ):
        if k.startswith("KURA_"):
            monkeypatch.delenv(k, raising=False)
    yield home


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """An empty working directory that is the cwd for the test."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_config(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


@pytest.fixture
def kura_bin() -> list[str]:
    """How to run the CLI in a subprocess with this interpreter."""
    return [sys.executable, "-m", "kura_core"]


def make_store(root: Path, name: str = "main", memories: dict | None = None):
    """A real store on disk with the given {slug: (title, description, body)} memories."""
    from kura_core.store import Store

    st = Store(root, name=name)
    st.init()
    for slug, (title, desc, body) in (memories or {}).items():
        st.write(slug, title=title, description=desc, body=body)
    return st


@pytest.fixture
def store(tmp_path):
    return make_store(tmp_path / "main")


@pytest.fixture
def model():
    """A scripted OpenAI-compatible model server on a real loopback socket."""
    from tests.fakes.model_server import ScriptedModel

    with ScriptedModel() as m:
        yield m


def make_registry(
    root: Path,
    *,
    stores: dict | None = None,
    model_url: str | None = None,
    timeout: float = 2.0,
    extra: dict | None = None,
    env: dict | None = None,
    fastpath: bool = False,
):
    """A Registry over real stores under *root*. stores: {name: {slug: (title, desc, body)}}.

    The fastpath (recall's tier zero, on by default in kura) is off here unless *fastpath*
    is set, so tests of the thinker and word tiers ask what they mean to ask."""
    from kura_core.config import parse_config
    from kura_core.registry import Registry

    stores = stores if stores is not None else {"main": {}}
    raw: dict = {"stores": {}}
    for name, mems in stores.items():
        make_store(root / name, name, mems)
        raw["stores"][name] = {"path": str(root / name)}
    if model_url:
        raw["models"] = {"thinker": {"url": model_url, "model": "scripted", "timeout": timeout}}
    if not fastpath:
        raw["fastpath"] = {"enabled": False}
    merge_tables(raw, extra or {})
    return Registry(parse_config(raw, source=None), env=env or {})


def merge_tables(base: dict, extra: dict) -> dict:
    """Merge config tables two levels deep (e.g. extra {"stores": {"x": {...}}} into base)."""
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            for kk, vv in v.items():
                if isinstance(vv, dict) and isinstance(base[k].get(kk), dict):
                    base[k][kk].update(vv)
                else:
                    base[k][kk] = vv
        else:
            base[k] = v
    return base


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """A banner at the very end naming every test that could not run because a registry
    was out of reach (tests/unreachable.py): such a run tested less than it looks."""
    from tests.unreachable import MARK

    missed = []
    for rep in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(rep, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
        if MARK in str(reason):
            missed.append(f"{rep.nodeid}: {reason}")
    if missed:
        terminalreporter.section(f"{len(missed)} test(s) NOT RUN", sep="!", red=True, bold=True)
        for line in missed:
            terminalreporter.line(line, red=True)


#: Files whose tests run longest (real agent CLIs, the README's commands, whole-store
#: benchmarks, generated journals): handed to the workers first, so the run does not end
#: with one worker on a long test while the other idles.
LONG_FIRST = (
    "tests/faces/test_connect_agents.py",
    "tests/faces/test_readme.py",
    "tests/core/test_bench.py",
    "tests/core/test_journals_linear.py",
    "tests/core/test_reliability_drafts.py",
    "tests/faces/test_mcp.py",
    "tests/tui/test_bench.py",
)


def pytest_collection_modifyitems(session, config, items):
    def rank(item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order


def pytest_xdist_auto_num_workers(config):
    """Two workers per core for ``-n auto``: about a third of the suite waits on other
    processes (the real agent CLIs, crash children, the CLI run as a user runs it) and on
    the disk, and a second worker per core keeps the core busy meanwhile."""
    return 2 * (os.cpu_count() or 1)
