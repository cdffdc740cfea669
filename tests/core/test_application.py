"""Kura is the application layer: every operation hands back a typed value that cannot be
changed afterwards. Every record in it, however deep, is a frozen dataclass in a tuple; the
JSON-shaped payloads a record carries as they were stored (a memory's frontmatter, a gate-log
line's detail, the tender's counts) are plain mappings, read-only by convention."""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
from pathlib import Path
from types import MappingProxyType

import pytest

from kura_core.config import load_config
from kura_core.demo import build_demo
from kura_core.kura import Kura
from kura_core.registry import Registry

ROOT = Path(__file__).resolve().parents[2]


#: fields that hold a payload as it was stored (JSON or YAML), not a record of kura's own
PAYLOADS = {
    "meta",
    "detail",
    "counts",
    "resting",
    "last_tick",
    "quotes",
    "gate",
    "curation",
    "extensions",
    "layers",
    "weight",
    "hand_edited",
}


def _mutable_parts(value, where="result", seen=None):
    """Where *value* holds something that can be changed in place (payload fields aside)."""
    seen = set() if seen is None else seen
    if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None), Path)):
        return []
    seen.add(id(value))
    if isinstance(value, (list, dict, set, bytearray)):
        if where.rsplit(".", 1)[-1].split("[")[0] in PAYLOADS:
            return []
        return [f"{where}: a {type(value).__name__}"]
    if isinstance(value, (tuple, frozenset)):
        return [p for i, v in enumerate(value) for p in _mutable_parts(v, f"{where}[{i}]", seen)]
    if isinstance(value, MappingProxyType):
        return [p for k, v in value.items() for p in _mutable_parts(v, f"{where}[{k!r}]", seen)]
    if dataclasses.is_dataclass(value):
        if not value.__dataclass_params__.frozen:
            return [f"{where}: {type(value).__name__} is not frozen"]
        return [
            p
            for f in dataclasses.fields(value)
            for p in _mutable_parts(getattr(value, f.name), f"{where}.{f.name}", seen)
        ]
    return []


@pytest.fixture(scope="module")
def kura(tmp_path_factory):
    day = dt.date(2026, 11, 20)
    cfg = build_demo(tmp_path_factory.mktemp("app") / "demo", today=day)
    k = Kura(Registry(load_config(cfg, {}), env={}, today=lambda: day))
    yield k
    k.close()


CALLS = {
    "stores": lambda k: k.stores(),
    "overview": lambda k: k.overview(),
    "profile": lambda k: k.profile(store="maker"),
    "profile_state": lambda k: k.profile_state(store="maker"),
    "gate_log": lambda k: k.gate_log(store="maker"),
    "doctor": lambda k: k.doctor(store="maker"),
    "recall": lambda k: k.recall("how do I keep glaze from cracking", store="maker"),
    "map_view": lambda k: k.map_view(store="maker"),
    "weave_preview": lambda k: k.weave_preview(store="maker"),
    "prefill": lambda k: k.prefill(store="maker"),
    "drafts": lambda k: k.drafts(store="maker"),
    "seed_list": lambda k: k.seed_list(store="maker"),
    "journals": lambda k: k.journals(store="maker"),
    "tend_status": lambda k: k.tend_status(store="maker"),
    "memory": lambda k: k.memory(k.map_view(store="maker").lines[0].slug, store="maker"),
    "read": lambda k: k.read(k.map_view(store="maker").lines[0].slug, store="maker"),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_what_kura_hands_back_cannot_be_changed(kura, name):
    got = CALLS[name](kura)
    assert got is not None
    assert _mutable_parts(got) == []


def test_the_check_finds_a_list_inside_a_frozen_value():
    @dataclasses.dataclass(frozen=True)
    class Leaky:
        rows: object

    @dataclasses.dataclass
    class Open:
        x: int = 0

    assert _mutable_parts(Leaky((1, [2]))) == ["result.rows[1]: a list"]
    assert _mutable_parts(Leaky(MappingProxyType({"a": {}}))) == ["result.rows['a']: a dict"]
    assert _mutable_parts((Leaky(Open()),)) == ["result[0].rows: Open is not frozen"]


def test_stores_and_the_gate_log_are_typed_with_the_json_faces_send(kura):
    info = kura.stores()
    assert [s.name for s in info.stores] == kura.names()
    assert info.to_json()["stores"][0]["name"] == info.stores[0].name
    assert set(info.to_json()["models"]) >= {"thinker", "brain", "scribe"}
    log = kura.gate_log(store="maker", limit=3)
    assert 0 < len(log) <= 3 and all(e.kind for e in log)
    assert log[0].to_json()["detail"] == dict(log[0].detail)


def test_needs_says_which_model_is_missing_for_each_kind_of_work(kura):
    assert "brain" in kura.needs("profile", store="maker")
    assert "by words" in kura.needs("recall", store="maker")
    assert "scribe" in kura.needs("drain", store="maker")
    assert kura.needs("weave", store="maker") == ""


def test_every_operation_of_kura_declares_what_it_returns():
    tree = ast.parse((ROOT / "kura_core" / "kura.py").read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Kura"]
    bare = [
        f.name
        for f in cls.body
        if isinstance(f, ast.FunctionDef)
        and not f.name.startswith("_")
        and f.name != "close"
        and f.returns is None
    ]
    assert bare == []


def test_every_type_kura_returns_can_be_imported_from_the_package():
    import re

    import kura_core

    tree = ast.parse((ROOT / "kura_core" / "kura.py").read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Kura"]
    named = set()
    for f in cls.body:
        if isinstance(f, ast.FunctionDef) and f.returns is not None and not f.name.startswith("_"):
            text = ast.unparse(f.returns).strip("'\"")
            named |= {
                w
                for w in re.findall(r"[A-Z]\w+", text)
                if w not in ("Kura", "Callable", "None", "Any", "Path")  # not kura's own
            }
    assert named, "no return type was read"
    missing = sorted(n for n in named if n not in kura_core.__all__)
    assert missing == []
    assert all(getattr(kura_core, n).__name__ == n for n in named)
