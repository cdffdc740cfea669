"""SQL behind one door: only kura_core/workshop.py speaks SQL; every other module calls the
workshop's named operations (marks, gate log, seeds, batches, heartbeat, read log, trigger
ledger). The journal readers under distill/journals/ are the one exception: they read other
programs' databases (opencode's), never kura's workshop."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given, strategies as st

ROOT = Path(__file__).resolve().parents[2]
DOOR = "kura_core/workshop.py"
FOREIGN = ("kura_core/distill/journals/",)

SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(TABLE|INDEX|UNIQUE)|DROP\s+TABLE|PRAGMA\s+\w+|BEGIN\s+(IMMEDIATE|EXCLUSIVE)"
    r"|WHERE\s+\w+\s*(=|IN\b|<|>)"
    # a column against a placeholder, the shape of a WHERE fragment: ``slug=?``, ``kind IN (?``
    r"|\b[a-z_]+\s*(=|<|>)\s*\?(?=[\s,)]|$)|\b[a-z_]+\s+(?-i:IN)\s*\(\?)",
    re.IGNORECASE | re.DOTALL,
)


def sql_in(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant (f-strings' literal parts too) that reads as SQL."""
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL.search(node.value)
        ):
            out.append((node.lineno, node.value[:60]))
    return out


def test_no_module_but_the_workshop_speaks_sql():
    bad = []
    for pkg in ("kura_core", "kura_tui"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == DOOR or rel.startswith(FOREIGN):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            bad += [f"{rel}:{line}: {text!r}" for line, text in sql_in(tree)]
    assert not bad, "SQL outside the workshop:\n" + "\n".join(bad)


def test_the_workshop_itself_is_found_speaking_sql():
    tree = ast.parse((ROOT / DOOR).read_text(encoding="utf-8"))
    assert len(sql_in(tree)) > 20


@given(
    st.sampled_from(
        [
            "SELECT id FROM seeds",
            "select * from gate_log where kind=?",
            "INSERT OR IGNORE INTO gate_log(at) VALUES(?)",
            "UPDATE seeds SET state=? WHERE id=?",
            "DELETE FROM trigger_ledger WHERE key = ?",
            "PRAGMA user_version",
            "kind IN (?,?,?)",
            "slug=?",
        ]
    ),
    st.text(alphabet=" \n", max_size=5),
)
def test_the_sweep_finds_sql_and_where_fragments_however_they_are_wrapped(stmt, pad):
    tree = ast.parse(f"x = {pad + stmt + pad!r}\ny = f'{{a}} {stmt}'\n")
    assert [line for line, _ in sql_in(tree)] == [1, 2]


def test_the_sweep_leaves_plain_words_alone():
    tree = ast.parse(
        "METHODS = {'GET', 'DELETE', 'UPDATE'}\n"
        "say = 'select a store, then update it'\n"
        "why = 'where it came from'\n"
    )
    assert sql_in(tree) == []
