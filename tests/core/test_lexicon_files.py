"""The floors' word lists are data files: every list the code asks for exists, ships in
the wheel, and reads back exactly as written."""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

import pytest

from kura_core.floors import lexicon
from kura_core.floors.text import fold

ROOT = Path(__file__).resolve().parents[2]
FLOORS = ROOT / "kura_core" / "floors"
LEXICON = FLOORS / "lexicon"


def _requested() -> list[tuple[str, str, tuple[str, ...]]]:
    """(module, name, languages) of every ``lexicon.words``/``lexicon.pattern`` call."""
    found = []
    for path in sorted(FLOORS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"words", "pattern"}
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "lexicon"
            ):
                continue
            name = node.args[0]
            assert isinstance(name, ast.Constant), f"{path.name}: a lexicon is named by a literal"
            assert isinstance(name.value, str)
            langs: tuple[str, ...] = lexicon.LANGUAGES
            if len(node.args) > 1:
                langs = ast.literal_eval(node.args[1])
            found.append((path.name, name.value, langs))
    return found


REQUESTED = _requested()


def test_the_floors_ask_for_lists() -> None:
    # The scan above must see the calls, or the next test checks nothing.
    assert len({name for _, name, _ in REQUESTED}) >= 35


@pytest.mark.parametrize(("module", "name", "langs"), REQUESTED)
def test_every_requested_list_has_a_file(module: str, name: str, langs: tuple[str, ...]) -> None:
    files = [LEXICON / lang / f"{name}.txt" for lang in langs]
    assert any(f.is_file() for f in files), (
        f"{module} asks for lexicon {name!r}: no file in {langs}"
    )
    assert lexicon.words(name, langs), f"lexicon {name!r} is empty"


def test_package_data_ships_every_list() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["kura_core"]
    files = sorted(LEXICON.glob("*/*.txt"))
    assert files
    for f in files:
        rel = f.relative_to(ROOT / "kura_core").as_posix()
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not in package-data"


@pytest.mark.parametrize(
    "path", sorted(LEXICON.glob("*/*.txt")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_entries_read_back_as_written(path: Path) -> None:
    # An entry the loader would fold or lower-case silently differs from what a reader of
    # the file sees; write entries in the form they are compared in.
    assert path.parent.name in lexicon.LANGUAGES
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        folded = fold(entry)
        folded = folded.lower() if folded.isascii() else folded
        assert folded == entry, f"{path.name}:{n}: {entry!r} is read as {folded!r}"
