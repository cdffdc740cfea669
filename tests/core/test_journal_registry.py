"""One registry of journal adapters: every list derives from it, and a third-party package
adds a format through the ``kura.adapters`` entry-point group without forking kura."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from kura_core.config import adapter_names, parse_config
from kura_core.distill.journals import (
    ADAPTERS,
    DEFAULT_INCLUDE,
    UNITS,
    JournalAdapter,
    JournalError,
    JournalRoot,
    default_roots,
    discover,
    guess_adapter,
    inspect,
    read_journal,
    registry,
)
from kura_core.distill.pipeline import read_stretch
from kura_core.kura import Kura

PLUGIN = """
from kura_core.distill.journals.base import Intake, open_lines
from kura_core.distill.journals.registry import Adapter


def _claims(record, index):
    return record.get("agent") == "fakeagent" and "said" in record


def sniff(head):
    return head.share(_claims)


def read(path, start, *, limit_bytes=None):
    import json
    intake = Intake(str(path), "seq")
    intake.variant = "turns v1"
    lines = open(path, "rb").read().splitlines()
    for i in range(start, len(lines)):
        intake.begin(i, i + 1)
        rec = json.loads(lines[i])
        intake.add("USER" if rec["who"] == "human" else "SELF", rec["said"], i, i + 1)
    return intake.result(start, len(lines))


ADAPTER = Adapter(
    name="fakeagent",
    label="Fake Agent",
    unit="seq",
    read=read,
    sniff=sniff,
    roots={"linux": ("~/.fakeagent/log",), "windows": ("~/AppData/Fake",)},
    include=("**/*.turns",),
    variants=("turns v1",),
)


def broken():
    raise RuntimeError("this plug-in is broken")
"""


def _distribution(site: Path, entry_points: str) -> None:
    """A package installed the way pip installs one: its module and a dist-info directory
    whose entry_points.txt registers adapters."""
    (site / "kura_fake_adapter.py").write_text(PLUGIN)
    info = site / "kura_fake_adapter-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kura-fake-adapter\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    _distribution(
        site,
        """
        [kura.adapters]
        fakeagent = kura_fake_adapter:ADAPTER
        claude = kura_fake_adapter:ADAPTER
        crashes = kura_fake_adapter:broken
        missing = kura_fake_adapter:NOT_THERE
        """,
    )
    monkeypatch.syspath_prepend(str(site))
    registry.refresh()
    yield site
    monkeypatch.undo()
    sys.modules.pop("kura_fake_adapter", None)
    registry.refresh()


def _config(tmp_path: Path) -> dict:
    store = {"path": str(tmp_path / "s"), "journals": {"fakeagent": str(tmp_path / "logs")}}
    return {"stores": {"home": store}}


def _turns(path: Path) -> Path:
    rows = [
        {"agent": "fakeagent", "who": "human", "said": "keep the nightly backup at 02:00"},
        {"agent": "fakeagent", "who": "agent", "said": "NOTHUMAN done"},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_plugin_adapter_is_one_of_the_adapters_everywhere(plugin, tmp_path):
    assert "fakeagent" in registry.names() and "fakeagent" in adapter_names()
    assert UNITS["fakeagent"] == "seq" and DEFAULT_INCLUDE["fakeagent"] == ("**/*.turns",)
    journal = _turns(tmp_path / "logs" / "a.turns")
    assert guess_adapter(journal) == "fakeagent"  # detected from its content
    name, read = read_journal(journal)
    assert name == "fakeagent"
    assert [(s.cls, s.text) for s in read.segments] == [
        ("USER", "keep the nightly backup at 02:00"),
        ("SELF", "NOTHUMAN done"),
    ]
    shown = inspect(journal)
    assert shown.adapter == "fakeagent" and shown.variant == "turns v1"
    found = discover([JournalRoot("fakeagent", tmp_path / "logs")], forbidden_dirs=[])
    assert [f.path.name for f in found] == ["a.turns"]
    stretch = read_stretch("fakeagent", journal, 0, 10_000)
    assert [s.cls for s in stretch.segments] == ["USER", "SELF"] and stretch.end == 2
    cfg = parse_config(_config(tmp_path), source=None)
    assert cfg.stores["home"].distill.journals[0].adapter == "fakeagent"
    assert default_roots("linux")["fakeagent"] == ("~/.fakeagent/log",)
    assert "fakeagent" not in default_roots("darwin")


def test_a_broken_or_clashing_plugin_is_reported_and_harms_nothing(plugin):
    problems = "\n".join(registry.problems())
    assert "'crashes'" in problems and "'missing'" in problems
    assert "'claude'" in problems and "name taken" in problems
    assert registry.get("claude") is not None and registry.get("claude").label == "Claude Code"
    assert set(ADAPTERS) >= {"claude", "codex", "gemini", "opencode", "aider", "evidence"}


def test_without_the_plugin_its_adapter_is_gone(tmp_path):
    registry.refresh()
    assert "fakeagent" not in registry.names()
    with pytest.raises(Exception, match="unknown journal adapter"):
        parse_config(_config(tmp_path), source=None)


def test_every_builtin_adapter_keeps_the_protocol():
    seen = set()
    for name, a in registry.adapters().items():
        assert isinstance(a, JournalAdapter)
        assert a.name == name and name not in seen
        seen.add(name)
        assert a.unit in ("byte", "seq") and a.include and a.variants and a.label
        assert set(a.roots) <= set(registry.OSES)
        assert ADAPTERS[name] is a.read and UNITS[name] == a.unit
    assert list(ADAPTERS) == list(registry.names())
    assert [a for a in registry.adapters().values() if not a.auto] == [registry.get("text")]


def test_each_agent_knows_where_its_journals_live_per_os():
    for platform in ("linux", "darwin", "win32"):
        roots = default_roots(platform)
        assert {"claude", "codex", "gemini", "opencode"} <= set(roots)
        assert "text" not in roots and "aider" not in roots  # no single place
    here = Kura.journal_roots_here("linux")
    assert (
        "claude",
        "~/.claude/projects",
        Path("~/.claude/projects").expanduser().is_dir(),
    ) in here


def test_detection_that_cannot_tell_says_so(tmp_path):
    note = tmp_path / "notes.txt"
    note.write_text("the backup runs at night\n\nkeep eight weekly copies\n")
    with pytest.raises(JournalError, match="cannot tell which agent wrote notes.txt"):
        guess_adapter(note)
    name, read = read_journal(note, "text")  # named: read, each paragraph the person's
    assert name == "text" and [s.cls for s in read.segments] == ["USER", "USER"]
