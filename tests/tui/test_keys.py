"""Keys a person moves in kura.toml's [keys] (binding id = "key") drive the app, the help
screen shows them where they were moved, and docs/KEYS.md lists every binding id."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from textual.widgets import TabbedContent

import kura_tui
from kura_core.config import parse_config
from kura_core.errors import ConfigError
from kura_tui.app import KuraApp
from kura_tui.commands import KuraCommands
from kura_tui.screens.help import binding_ids, bindings_of
from tests.tui.conftest import run, settle
from tests.tui.workspace import open_kura

ROOT = Path(__file__).resolve().parents[2]


def _with_keys(cfg: Path, table: str) -> Path:
    cfg.write_text(cfg.read_text(encoding="utf-8") + "[keys]\n" + table, encoding="utf-8")
    return cfg


def test_a_key_moved_in_kura_toml_drives_its_binding_and_the_old_key_does_not(tui_config):
    cfg = _with_keys(tui_config, 'main.tab.drafts = "f6"\n"main.tab.gatelog" = "f7,ctrl+g"\n')
    kura = open_kura(cfg)
    app = KuraApp(kura, watch=False, frozen=True)

    async def script(pilot):
        tabs = app.main.query_one(TabbedContent)
        seen = []
        for key in ("f6", "1", "2", "ctrl+g", "1", "f7"):
            await pilot.press(key)
            await settle(pilot)
            seen.append(tabs.active)
        rows = dict((d, k) for _, section in app.help_sections() for k, d in section)
        palette = {text: help for text, help, _ in KuraCommands(app.screen)._commands()}
        return seen, rows, palette

    try:
        seen, rows, palette = run(app, script)
    finally:
        kura.close()
    # "2" no longer opens the drafts: the key moved to f6; gate log answers to f7 and ctrl+g
    assert seen == ["tab-drafts", "tab-map", "tab-map", "tab-gatelog", "tab-map", "tab-gatelog"]
    assert rows["Drafts"] == "f6"
    assert rows["Gate log"].replace(" ", "") in ("f7/ctrl+g", "f7/^g")
    assert palette["Show drafts"].endswith("key f6")
    assert palette["Show the gate log"].endswith("key f7 / ctrl+g")
    assert palette["Show the map"].endswith("key 1")  # not moved: its own key


def test_an_unknown_id_in_keys_is_named_on_screen(tui_config):
    cfg = _with_keys(tui_config, '"main.tab.nowhere" = "f9"\n')
    kura = open_kura(cfg)
    app = KuraApp(kura, watch=False, frozen=True)

    async def script(pilot):
        return list(app.notes_seen)

    try:
        said = run(app, script)
    finally:
        kura.close()
    assert any("main.tab.nowhere" in m and "docs/KEYS.md" in m for m in said), said


@given(
    st.lists(
        st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z0-9_]{1,6}){0,3}", fullmatch=True),
        min_size=1,
        max_size=5,
        unique=True,
    ),
    st.sampled_from(["f2", "ctrl+s", "f2,ctrl+s", " f3 , x "]),
)
def test_keys_read_dotted_ids_as_written_quoted_or_bare(ids, key):
    # a bare dotted id is a nested table in TOML; one that is a prefix of another cannot be
    # both a key and a table, so only ids that are no other id's prefix are written bare
    quoted = {i: key for i in ids}
    got = parse_config({"keys": quoted}, source=None).keys
    want = ",".join(k.strip() for k in key.split(","))
    assert got == {i: want for i in ids}
    nested: dict = {}
    bare = [i for i in ids if not any(o != i and o.startswith(i + ".") for o in ids)]
    bare = [i for i in bare if not any(i != o and i.startswith(o + ".") for o in bare)]
    for i in bare:
        node = nested
        *parents, leaf = i.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = key
    assert parse_config({"keys": nested}, source=None).keys == {i: want for i in bare}


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"Main.Tab": "f2"}, "not a binding id"),
        ({"main.tab.map": ""}, "must be a key"),
        ({"main.tab.map": "f2,,x"}, "must be a key"),
        ({"main.tab.map": 3}, "must be a key"),
    ],
)
def test_a_bad_keys_table_says_what_to_write(table, says):
    with pytest.raises(ConfigError) as exc:
        parse_config({"keys": table}, source=None)
    assert says in str(exc.value) and "kura.toml: keys." in str(exc.value)


def _every_binding() -> list[tuple[str, str, str]]:
    """``(id, default key, what it does)`` for every binding the app declares."""
    for mod in pkgutil.walk_packages(kura_tui.__path__, "kura_tui."):
        importlib.import_module(mod.name)
    rows: dict[str, tuple[str, str]] = {}
    for modname, module in sorted(sys.modules.items()):
        if modname == "kura_tui" or modname.startswith("kura_tui."):
            for obj in vars(module).values():
                if isinstance(obj, type) and obj.__module__ == modname:
                    for b in bindings_of(obj):
                        if b.id:
                            rows.setdefault(b.id, (b.key, b.tooltip or b.description or b.action))
    assert set(rows) == binding_ids()
    return [(bid, key, what) for bid, (key, what) in sorted(rows.items())]


def keys_doc() -> str:
    lines = [
        "# Keys",
        "",
        "Every key of the app, by the id a person names in kura.toml's `[keys]` table to move",
        'it (`main.tab.drafts = "f6"`; several keys: `"f6,ctrl+d"`). This file is checked',
        "against the app's bindings by `tests/tui/test_keys.py`, so it lists exactly what the",
        "app has.",
        "",
        "| id | default key | what it does |",
        "|---|---|---|",
    ]
    for bid, key, what in _every_binding():
        lines.append(f"| `{bid}` | `{key}` | {what} |")
    return "\n".join(lines) + "\n"


def test_docs_keys_lists_every_binding_id_with_its_default_key():
    doc = (ROOT / "docs" / "KEYS.md").read_text(encoding="utf-8")
    assert doc == keys_doc(), "regenerate: python -m tests.tui.test_keys > docs/KEYS.md"


if __name__ == "__main__":
    print(keys_doc(), end="")
