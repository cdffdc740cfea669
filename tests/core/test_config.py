"""kura.toml: where it is found, what it holds, what it refuses; and how selectors resolve."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kura_core.config import (
    DistillConfig,
    PrefillConfig,
    RecallConfig,
    load_config,
    parse_config,
    resolve_config_path,
)
from kura_core.errors import ConfigError, SelectorError
from kura_core.registry import Registry, split_path_prefix
from tests.conftest import write_config

ROOT = Path(__file__).resolve().parents[2]


def _toml(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_config(path, text)


# --------------------------------------------------------------------------- resolution order


@pytest.fixture
def four_places(tmp_path):
    cwd = tmp_path / "cwd"
    home = tmp_path / "home"
    explicit = _toml(tmp_path / "explicit.toml", '[stores.explicit]\npath = "e"\n')
    from_env = _toml(tmp_path / "env.toml", '[stores.env]\npath = "v"\n')
    local = _toml(cwd / "kura.toml", '[stores.local]\npath = "l"\n')
    user = _toml(home / ".config" / "kura" / "kura.toml", '[stores.user]\npath = "u"\n')
    return cwd, home, explicit, from_env, local, user


def test_resolution_order(four_places):
    cwd, home, explicit, from_env, local, user = four_places
    env = {"KURA_CONFIG": str(from_env)}

    assert resolve_config_path(explicit, env, cwd, home)[0] == explicit
    assert list(load_config(explicit, env, cwd=cwd, home=home).stores) == ["explicit"]

    assert resolve_config_path(None, env, cwd, home)[0] == from_env
    assert list(load_config(None, env, cwd=cwd, home=home).stores) == ["env"]

    assert resolve_config_path(None, {}, cwd, home)[0] == local
    assert list(load_config(None, {}, cwd=cwd, home=home).stores) == ["local"]

    local.unlink()
    assert resolve_config_path(None, {}, cwd, home)[0] == user
    assert list(load_config(None, {}, cwd=cwd, home=home).stores) == ["user"]

    user.unlink()
    found, target = resolve_config_path(None, {}, cwd, home)
    assert found is None
    assert target == home / ".config" / "kura" / "kura.toml"
    assert load_config(None, {}, cwd=cwd, home=home).stores == {}


def test_resolution_uses_the_real_environment_and_cwd(four_places, monkeypatch):
    cwd, home, explicit, from_env, local, user = four_places
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(home))
    assert list(load_config().stores) == ["local"]
    monkeypatch.setenv("KURA_CONFIG", str(from_env))
    assert list(load_config().stores) == ["env"]
    assert list(load_config(str(explicit)).stores) == ["explicit"]


def test_named_config_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="no config at"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="no config at"):
        load_config(None, {"KURA_CONFIG": str(tmp_path / "nope.toml")})
    with pytest.raises(ConfigError, match="no config at"):
        load_config(None, {}, required=True, cwd=tmp_path, home=tmp_path)


def test_tilde_expands(tmp_path, monkeypatch):
    home = tmp_path / "h"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    cfg = _toml(
        tmp_path / "k.toml",
        """
        [stores.main]
        path = "~/kura/main"
        charter = "~/charters/main.md"
        [distill.journals]
        claude = "~/.claude/projects"
    """,
    )
    c = load_config(cfg)
    assert c.stores["main"].path == home / "kura" / "main"
    assert c.stores["main"].charter_path == home / "charters" / "main.md"
    assert c.distill.journals[0].root == home / ".claude" / "projects"
    explicit = resolve_config_path("~/x.toml", {})[1]
    assert explicit == home / "x.toml"


def test_relative_paths_are_relative_to_the_config_file(tmp_path):
    cfg = _toml(tmp_path / "conf" / "kura.toml", '[stores.main]\npath = "stores/main"\n')
    assert load_config(cfg).stores["main"].path == tmp_path / "conf" / "stores" / "main"


# --------------------------------------------------------------------------- every section

FULL = """
[server]
host = "127.0.0.2"
port = 9999
default = "eq"
token_env = "KURA_TOKEN"
max_body_bytes = 2048

[stores.maker]
path = "maker"
label = "maker mode — building things"
write_policy = "direct-allowed"
charter = "charters/maker.md"
persona = "a careful builder"

[stores.maker.distill]
max_items = 3
language = "ja"

[stores.maker.prefill]
budget_fraction = 0.1
hard_fraction = 0.3

[stores.maker.recall]
top = 7

[stores.maker.journals]
claude = { root = "logs/maker", include_glob = "*.jsonl", exclude_glob = "old*" }

[stores.eq]
path = "eq"
label = "EQ mode — talking things through"
write_policy = "frozen"

[modes]
build = "maker"
talk = "eq"
maker = "maker"

[models.thinker]
url = "http://127.0.0.1:8000/v1"
model = "small"
api_key_env = "THINKER_KEY"
timeout = 12
temperature = 0.1
effort = "low"
thinking = false
dialect = "openai"
extra = { top_k = 20 }

[distill]
language = "en"
max_items = 8
chunk_chars = 12000
idle_min = 5
backoff_min = 30.5
yield_on_return = false
human_names = ["Hana"]
min_quote_chars = 10

[distill.journals]
claude = "logs/claude"
text = [ "logs/a.txt", { root = "logs/b" } ]
evidence = { root = "logs/evidence" }

[prefill]
window_tokens = 65536
budget_fraction = 0.04
hard_fraction = 0.15
fresh_days = 7
pinned_types = ["feedback"]
trigger_tokens = 20
header = "What you remember:"

[recall]
hops = 2
top = 4
chars = 5000
shard_tokens = 10000
"""


def test_every_section_is_parsed(tmp_path):
    c = load_config(_toml(tmp_path / "kura.toml", FULL))
    assert c.source == tmp_path / "kura.toml"
    s = c.server
    assert (s.host, s.port, s.default, s.token_env, s.max_body_bytes) == (
        "127.0.0.2",
        9999,
        "eq",
        "KURA_TOKEN",
        2048,
    )
    assert c.default_store == "eq"

    maker = c.stores["maker"]
    assert maker.label == "maker mode — building things"
    assert maker.write_policy == "direct-allowed"
    assert maker.charter_path == tmp_path / "charters" / "maker.md"
    assert maker.persona == "a careful builder"
    assert c.stores["eq"].write_policy == "frozen"
    assert c.stores["eq"].charter_path == tmp_path / "eq" / "charter.md"
    assert dict(c.modes) == {"build": "maker", "talk": "eq", "maker": "maker"}

    t = c.models["thinker"]
    assert (
        t.url,
        t.model,
        t.api_key_env,
        t.timeout,
        t.temperature,
        t.effort,
        t.thinking,
        t.dialect,
    ) == ("http://127.0.0.1:8000/v1", "small", "THINKER_KEY", 12.0, 0.1, "low", False, "openai")
    assert dict(t.extra) == {"top_k": 20}

    d = c.distill
    assert (
        d.language,
        d.max_items,
        d.chunk_chars,
        d.idle_min,
        d.backoff_min,
        d.yield_on_return,
        d.human_names,
        d.min_quote_chars,
    ) == ("en", 8, 12000, 5.0, 30.5, False, ("Hana",), 10)
    journals = {
        (j.adapter, j.root.relative_to(tmp_path).as_posix(), j.include_glob) for j in d.journals
    }
    assert journals == {
        ("claude", "logs/claude", ""),
        ("text", "logs/a.txt", ""),
        ("text", "logs/b", ""),
        ("evidence", "logs/evidence", ""),
    }

    p = c.prefill
    assert (
        p.window_tokens,
        p.budget_fraction,
        p.hard_fraction,
        p.fresh_days,
        p.pinned_types,
        p.trigger_tokens,
        p.header,
    ) == (65536, 0.04, 0.15, 7, ("feedback",), 20, "What you remember:")
    r = c.recall
    assert (r.hops, r.top, r.chars, r.shard_tokens) == (2, 4, 5000, 10000)


def test_per_store_overrides_inherit_the_rest(tmp_path):
    c = load_config(_toml(tmp_path / "kura.toml", FULL))
    maker, eq = c.stores["maker"], c.stores["eq"]

    assert maker.distill.max_items == 3 and maker.distill.language == "ja"
    assert maker.distill.chunk_chars == 12000 and maker.distill.yield_on_return is False
    assert [(j.adapter, j.include_glob, j.exclude_glob) for j in maker.distill.journals] == [
        ("claude", "*.jsonl", "old*")
    ]
    assert maker.prefill.budget_fraction == 0.1 and maker.prefill.hard_fraction == 0.3
    assert maker.prefill.window_tokens == 65536 and maker.prefill.header == "What you remember:"
    assert maker.recall.top == 7 and maker.recall.hops == 2 and maker.recall.chars == 5000

    # two stores: eq names no journals and does not inherit, so it drinks nothing
    assert eq.distill == dataclasses.replace(c.distill, journals=())
    assert eq.journals_from == "none" and maker.journals_from == "own"
    assert eq.prefill == c.prefill
    assert eq.recall == c.recall


def test_defaults_when_sections_are_absent(tmp_path):
    c = load_config(_toml(tmp_path / "kura.toml", '[stores.only]\npath = "only"\n'))
    assert c.server.host == "127.0.0.1" and c.server.port == 8085
    assert c.default_store == "only"
    assert c.stores["only"].write_policy == "distiller-only"
    assert (
        c.distill == DistillConfig() and c.prefill == PrefillConfig() and c.recall == RecallConfig()
    )
    assert (
        c.distill.idle_min == 10
        and c.distill.backoff_min == 20
        and c.distill.yield_on_return is True
    )
    assert c.prefill.budget_fraction == 0.05 and c.prefill.hard_fraction == 0.20
    assert c.recall.hops == 1 and c.recall.top == 3 and c.recall.chars == 6000
    assert dict(c.models) == {"thinker": None, "brain": None, "scribe": None}


# --------------------------------------------------------------------------- model roles


def test_only_thinker_fills_all_three_roles():
    c = parse_config(
        {"models": {"thinker": {"url": "http://h:1/v1", "model": "m", "timeout": 9}}}, source=None
    )
    t, b, s = c.models["thinker"], c.models["brain"], c.models["scribe"]
    assert t is not None and b is not None and s == dataclasses.replace(b, timeout=900.0)
    assert (b.url, b.model) == (t.url, t.model) == ("http://h:1/v1", "m")
    # timeouts fit the role: the thinker's recall budget is not the slow roles' wait
    assert (t.timeout, b.timeout, s.timeout) == (9.0, 1800.0, 900.0)


def test_role_timeouts_default_per_role_and_are_overridable():
    c = parse_config({"models": {"thinker": {"url": "http://h:1/v1", "model": "m"}}}, source=None)
    assert [c.models[r].timeout for r in ("thinker", "brain", "scribe")] == [60.0, 1800.0, 900.0]
    c = parse_config(
        {
            "models": {
                "thinker": {"url": "http://h:1/v1", "model": "m", "timeout": 5},
                "brain": {"timeout": 900},
                "scribe": {"timeout": 7200},
            }
        },
        source=None,
    )
    assert [c.models[r].timeout for r in ("thinker", "brain", "scribe")] == [5.0, 900.0, 7200.0]
    # the scribe inherits the brain's wait (both are the slow seat) unless it names its own
    c = parse_config(
        {"models": {"thinker": {"url": "http://h:1/v1", "model": "m"}, "brain": {"timeout": 1200}}},
        source=None,
    )
    assert c.models["scribe"].timeout == 1200.0


def test_deadline_and_max_tokens_are_per_role():
    c = parse_config(
        {
            "models": {
                "thinker": {"url": "http://h:1/v1", "model": "m", "deadline": 20, "max_tokens": 64},
                "brain": {"max_tokens": 3000, "deadline": 600},
            }
        },
        source=None,
    )
    t, b, s = (c.models[r] for r in ("thinker", "brain", "scribe"))
    assert (t.timeout, t.max_tokens) == (20.0, 64)
    assert (b.timeout, b.max_tokens) == (600.0, 3000)
    # a role's reply length is never handed down: the scribe's tasks keep their own bounds
    assert s is not None and s.max_tokens is None and s.timeout == 600.0
    for bad, why in (
        ({"max_tokens": 0}, "max_tokens must be a whole number above 0"),
        ({"max_tokens": 1.5}, "max_tokens must be"),
        ({"deadline": 0}, "deadline must be greater than 0"),
        ({"deadline": 5, "timeout": 5}, "say the same thing"),
    ):
        with pytest.raises(ConfigError, match=why):
            parse_config(
                {"models": {"thinker": {"url": "http://h:1/v1", "model": "m", **bad}}}, source=None
            )


def test_brain_inherits_thinker_and_scribe_inherits_brain():
    c = parse_config(
        {
            "models": {
                "thinker": {
                    "url": "http://t:1/v1",
                    "model": "small",
                    "api_key_env": "K",
                    "temperature": 0.0,
                },
                "brain": {"model": "big", "effort": "high"},
            }
        },
        source=None,
    )
    t, b, s = c.models["thinker"], c.models["brain"], c.models["scribe"]
    assert t.model == "small" and t.effort == "low"
    assert (b.url, b.model, b.api_key_env, b.temperature, b.effort) == (
        "http://t:1/v1",
        "big",
        "K",
        0.0,
        "high",
    )
    # the same model and knobs; the scribe's own deadline (its tasks are short)
    assert s == dataclasses.replace(b, timeout=900.0)


def test_scribe_overrides_only_what_it_names():
    c = parse_config(
        {
            "models": {
                "thinker": {"url": "http://t:1/v1", "model": "small"},
                "brain": {"url": "http://b:2/v1", "model": "big"},
                "scribe": {"model": "writer"},
            }
        },
        source=None,
    )
    assert c.models["scribe"].url == "http://b:2/v1"
    assert c.models["scribe"].model == "writer"
    assert c.models["thinker"].url == "http://t:1/v1"


# --------------------------------------------------------------------------- refusals, via the CLI

BAD = {
    "unknown top-level key": ('colour = "red"\n[stores.a]\npath = "a"\n', "colour"),
    "unknown key in a store": (
        '[stores.a]\npath = "a"\nwrtie_policy = "frozen"\n',
        "stores.a.wrtie_policy",
    ),
    "unknown key in a section": ('[stores.a]\npath = "a"\n[recall]\nhopz = 2\n', "recall.hopz"),
    "port not an integer": ('[server]\nport = "x"\n[stores.a]\npath = "a"\n', "server.port"),
    "budget_fraction not a number": (
        '[prefill]\nbudget_fraction = "big"\n[stores.a]\npath = "a"\n',
        "prefill.budget_fraction",
    ),
    "yield_on_return not a bool": (
        '[distill]\nyield_on_return = 1\n[stores.a]\npath = "a"\n',
        "distill.yield_on_return",
    ),
    "store override wrong type": (
        '[stores.a]\npath = "a"\n[stores.a.recall]\ntop = "many"\n',
        "stores.a.recall.top",
    ),
    "missing store path": ('[stores.a]\nlabel = "no path"\n', "stores.a.path"),
    "invalid write_policy": (
        '[stores.a]\npath = "a"\nwrite_policy = "anything-goes"\n',
        "stores.a.write_policy",
    ),
    "two stores on one directory": (
        '[stores.a]\npath = "same"\n[stores.b]\npath = "./same/"\n',
        "stores.a.path",
    ),
    "nested stores": (
        '[stores.a]\npath = "outer"\n[stores.b]\npath = "outer/inner"\n',
        "stores.b.path",
    ),
    "journal root inside a store": (
        '[stores.a]\npath = "a"\n[distill.journals]\nclaude = "a/logs"\n',
        "distill.journals.claude",
    ),
    "store journal inside a store": (
        '[stores.a]\npath = "a"\n[stores.b]\npath = "b"\n'
        '[stores.b.journals]\ntext = { root = "a/x" }\n',
        "stores.b.journals.text",
    ),
    "mode colliding with another store": (
        '[stores.a]\npath = "a"\n[stores.b]\npath = "b"\n[modes]\na = "b"\n',
        "modes.a",
    ),
    "mode pointing to no store": (
        '[stores.a]\npath = "a"\n[modes]\ntalk = "nowhere"\n',
        "modes.talk",
    ),
    "bad TOML syntax": ('[stores.a\npath = "a"\n', "line 1"),
    "server.default unknown": (
        '[server]\ndefault = "ghost"\n[stores.a]\npath = "a"\n',
        "server.default",
    ),
    "bad dialect": (
        '[stores.a]\npath = "a"\n[models.thinker]\nurl = "http://h/v1"\nmodel = "m"\n'
        'dialect = "klingon"\n',
        "models.thinker.dialect",
    ),
    "thinker without url": (
        '[stores.a]\npath = "a"\n[models.thinker]\nmodel = "m"\n',
        "models.thinker.url",
    ),
    "unknown model key": (
        '[stores.a]\npath = "a"\n[models.thinker]\nurl = "http://h/v1"\nmodel = "m"\n'
        "temprature = 1\n",
        "models.thinker.temprature",
    ),
    "bad store name": ('[stores."a b"]\npath = "a"\n', "stores.a b"),
    "unknown journal adapter": (
        '[stores.a]\npath = "a"\n[distill.journals]\nslack = "logs"\n',
        "distill.journals.slack",
    ),
}


def _doctor(cfg: Path, home: Path, *, child: bool) -> tuple[int, str, str]:
    """``kura -c CFG doctor``: in a child interpreter (what a person runs), or through the
    command line's own entry in this process (the same output, without an interpreter per
    case)."""
    if child:
        env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
        env.pop("KURA_DEBUG", None)
        proc = subprocess.run(
            [sys.executable, "-m", "kura_core", "-c", str(cfg), "doctor"],
            capture_output=True,
            text=True,
            cwd=home,
            env=env,
            timeout=60,
        )
        return proc.returncode, proc.stdout, proc.stderr
    from kura_core.faces.cli import main as cli_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(["-c", str(cfg), "doctor"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code or 0, out.getvalue(), err.getvalue()


#: The cases also run in a child interpreter: one of each shape of mistake.
_IN_A_CHILD = ("bad TOML syntax", "unknown key in a store", "two stores on one directory")


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_malformed_config_is_one_line_naming_the_key(tmp_path, monkeypatch, case):
    text, key = BAD[case]
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text, encoding="utf-8")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KURA_DEBUG", raising=False)
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = _doctor(cfg, tmp_path, child=case in _IN_A_CHILD)
    assert code == 1, stderr
    assert "Traceback" not in stderr and "Traceback" not in stdout
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert key in lines[0], lines[0]
    assert "internal error" not in lines[0]
    assert stdout == ""


def test_some_malformed_configs_are_run_in_a_child_interpreter():
    assert set(_IN_A_CHILD) <= set(BAD), sorted(BAD)


def test_malformed_config_raises_config_error_in_process(tmp_path):
    for n, (case, (text, key)) in enumerate(BAD.items()):
        cfg = tmp_path / f"case{n}.toml"
        cfg.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError) as exc:
            load_config(cfg)
        assert key in str(exc.value), case


def test_config_that_is_not_utf8_is_one_clear_line(tmp_path):
    cfg = tmp_path / "latin.toml"
    cfg.write_bytes('[stores.a]\npath = "caf\xe9"\n'.encode("latin-1"))
    code, _stdout, stderr = _doctor(cfg, tmp_path, child=True)
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "UTF-8" in lines[0] and "latin.toml" in lines[0]
    assert "internal error" not in lines[0]


def test_append_store_refuses_before_writing(tmp_path):
    from kura_core.config import append_store

    cfg = _toml(tmp_path / "kura.toml", '[stores.a]\npath = "a"\n')
    before = cfg.read_text()
    with pytest.raises(ConfigError, match="nest"):
        append_store(cfg, "b", tmp_path / "a" / "inner")
    assert cfg.read_text() == before
    append_store(cfg, "b", tmp_path / "b", label='quoted "label"')
    c = load_config(cfg)
    assert c.stores["b"].path == tmp_path / "b"
    assert c.stores["b"].label == 'quoted "label"'


# --------------------------------------------------------------------------- selectors


@pytest.fixture
def registry(tmp_path):
    cfg = _toml(
        tmp_path / "kura.toml",
        """
        [stores.maker]
        path = "maker"
        [stores.eq]
        path = "eq"
        [stores.diary]
        path = "diary"
        [modes]
        build = "maker"
        talk = "eq"
    """,
    )
    reg = Registry.open(cfg)
    yield reg
    reg.close()


def test_selector_by_store_and_by_mode(registry, tmp_path):
    assert registry.resolve("maker") == "maker"
    assert registry.resolve("eq") == "eq"
    assert registry.resolve("build") == "maker"
    assert registry.resolve("talk") == "eq"
    assert registry.store("talk") is registry.store("eq")
    assert registry.store("build").root == tmp_path / "maker"
    assert registry.spec("talk").name == "eq"
    assert registry.modes_of("maker") == ["build"]


def test_default_store(registry, tmp_path):
    assert registry.resolve(None) == "maker"
    assert registry.resolve("") == "maker"
    cfg = _toml(
        tmp_path / "k2.toml",
        """
        [server]
        default = "talk"
        [stores.maker]
        path = "m2"
        [stores.eq]
        path = "e2"
        [modes]
        talk = "eq"
    """,
    )
    reg = Registry.open(cfg)
    assert reg.resolve(None) == "eq"
    reg.close()
    empty = Registry(parse_config({}, source=None))
    with pytest.raises(SelectorError, match="kura init"):
        empty.resolve(None)


@pytest.mark.parametrize("selector", ["ghost", "Maker", "maker/", "../eq", "/s/eq/", "x" * 200])
def test_unknown_selector_is_refused_without_listing_stores(registry, selector):
    with pytest.raises(SelectorError) as exc:
        registry.resolve(selector)
    msg = str(exc.value)
    for other in ("eq", "diary", "build", "talk"):
        assert other not in msg.replace(selector[:37], ""), msg
    assert "maker" not in msg.lower().replace(selector[:37].lower(), "")
    assert len(msg) < 200
    with pytest.raises(SelectorError):
        registry.store(selector)
    assert exc.value.status == 404


def test_path_prefix_split():
    assert split_path_prefix("/s/eq/doctor") == ("eq", "/doctor")
    assert split_path_prefix("/s/maker/memories/alpha") == ("maker", "/memories/alpha")
    assert split_path_prefix("/s/eq") == ("eq", "/")
    assert split_path_prefix("/s/eq/") == ("eq", "/")
    assert split_path_prefix("/doctor") == (None, "/doctor")
    assert split_path_prefix("/sx/eq/doctor") == (None, "/sx/eq/doctor")


def test_path_prefix_name_goes_through_the_same_door(registry):
    name, rest = split_path_prefix("/s/talk/recall")
    assert registry.resolve(name) == "eq" and rest == "/recall"
    name, _ = split_path_prefix("/s/nobody/recall")
    with pytest.raises(SelectorError):
        registry.resolve(name)


def test_stores_share_nothing(registry):
    a, b = registry.store("maker"), registry.store("eq")
    a.init()
    b.init()
    a.write("alpha", title="Alpha", description="only in maker", body="b")
    assert b.file_slugs() == []
    assert "alpha" not in b.index().slugs()
    assert registry.workshop("maker").path != registry.workshop("eq").path


def test_registry_for_path(tmp_path):
    reg = Registry.for_path(tmp_path / "My Store!")
    assert reg.names() == ["My-Store"]
    assert reg.store().root == (tmp_path / "My Store!").resolve()
    reg.close()


def test_describe_names_no_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("THINKER_KEY", "sk-very-secret")
    cfg = _toml(
        tmp_path / "kura.toml",
        """
        [stores.a]
        path = "a"
        [models.thinker]
        url = "http://h/v1"
        model = "m"
        api_key_env = "THINKER_KEY"
    """,
    )
    reg = Registry.open(cfg)
    d = reg.describe()
    assert d["models"]["thinker"]["api_key_env"] == "THINKER_KEY"
    assert "sk-very-secret" not in repr(d)
    assert d["stores"][0]["name"] == "a"
    reg.close()
