"""The domain's words are defined once, in kura_core.vocabulary, and spelled through it.

The sweep reads every module's syntax tree: a comparison of a policy, a verdict, a state,
a provenance class or a gate-log kind against a bare string literal that is one of the
vocabulary's words, or a literal tuple of the curation fields, the memory types or the
provenance classes, is a second definition and fails the test."""

from __future__ import annotations

import ast
from enum import StrEnum
from pathlib import Path

import yaml
from hypothesis import given, strategies as st

from kura_core import vocabulary as v
from kura_core.store import render_memory, split_frontmatter

ROOT = Path(__file__).resolve().parents[2]


WORDS: tuple[type[StrEnum], ...] = (
    v.ProvenanceClass,
    v.WritePolicy,
    v.MemoryType,
    v.GateVerdict,
    v.GateLogKind,
    v.SealState,
    v.SeedState,
    v.StretchState,
    v.TenderState,
    v.CurationField,
    v.ClaimKind,
    v.DraftDecision,
)
#: what the other side of a comparison names when it holds one of the words
HOLDERS = ("policy", "verdict", "state", "cls", "kind", "type", "decision", "label")
LISTS = {
    tuple(v.CURATION_FIELDS): "CURATION_FIELDS",
    tuple(v.MEMORY_TYPES): "MEMORY_TYPES",
    tuple(v.PROVENANCE_CLASSES): "PROVENANCE_CLASSES",
    tuple(v.WRITE_POLICIES): "WRITE_POLICIES",
}


def _sources() -> list[Path]:
    out = []
    for pkg in ("kura_core", "kura_tui"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel != "kura_core/vocabulary.py":
                out.append(path)
    return out


def second_spellings(path: Path, tree: ast.AST) -> list[str]:
    """Where *tree* spells a word of the vocabulary itself."""
    words = {str(m) for enum in WORDS for m in enum}
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            said = [s.value for s in sides if isinstance(s, ast.Constant)]
            other = " ".join(ast.unparse(s) for s in sides if not isinstance(s, ast.Constant))
            if any(isinstance(w, str) and w in words for w in said) and any(
                h in other.lower() for h in HOLDERS
            ):
                bad.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
            got = tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
            if got in LISTS:
                bad.append(f"{path.name}:{node.lineno}: {got} is vocabulary.{LISTS[got]}")
    return bad


def test_no_module_spells_the_vocabulary_a_second_time():
    bad = []
    for path in _sources():
        bad += second_spellings(path, ast.parse(path.read_text(encoding="utf-8")))
    assert not bad, "\n".join(bad)


def test_the_sweep_catches_a_literal_word_and_a_literal_list():
    tree = ast.parse(
        "if policy == 'frozen': pass\n"
        "if r.verdict != 'kept': pass\n"
        "KEYS = ('belongs_because', 'keep', 'may_fade')\n"
        "if name == 'frozen': pass\n"  # not a holder of a word: a name that happens to match
    )
    assert second_spellings(Path("m.py"), tree) == [
        "m.py:1: policy == 'frozen'",
        "m.py:2: r.verdict != 'kept'",
        "m.py:3: ('belongs_because', 'keep', 'may_fade') is vocabulary.CURATION_FIELDS",
    ]


def test_each_word_is_its_text_and_each_enum_says_each_text_once():
    for enum in WORDS:
        values = [m.value for m in enum]
        assert len(values) == len(set(values)), enum
        for m in enum:
            assert m == m.value and str(m) == m.value and f"{m}" == m.value
            assert enum(m.value) is m


@given(
    st.sampled_from([m for enum in WORDS for m in enum]),
    st.sampled_from(list(v.CurationField)),
)
def test_a_memory_written_with_words_of_the_vocabulary_reads_back_as_plain_text(word, field):
    text = render_memory({"type": word, field: word, "tags": [word]}, "body")
    meta, body = split_frontmatter(text)
    assert meta == {"type": word.value, field.value: word.value, "tags": [word.value]}
    assert "!!python" not in text and body.strip() == "body"
    assert yaml.safe_load(text.split("---")[1]) == meta


def test_the_tag_check_is_one_definition():
    assert v.tag_passed(v.TAG_OK)
    for other in ("", "okay", "kept", "verified", "pass", "✓", "needs a surviving USER quote"):
        assert not v.tag_passed(other)
