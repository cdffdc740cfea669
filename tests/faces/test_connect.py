"""``kura connect`` without the agents' CLIs: byte-preserving edits, undo, journals, hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings, strategies as st

from kura_core.config import load_config
from kura_core.connect import AGENTS, Where, apply, jsonc, plan, status, tomledit, undo, wiring_for

KURA = Path(sys.executable).parent / "kura"
keys = st.text(st.characters(codec="utf-8", exclude_characters='\\"\x00'), min_size=1, max_size=8)
scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=10)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
objects = st.dictionaries(keys, values, min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(objects, st.sampled_from([None, 2, 4]), st.sampled_from(["\n", "\r\n"]))
def test_jsonc_reads_what_json_writes(doc, indent, newline):
    text = json.dumps(doc, indent=indent).replace("\n", newline)
    assert jsonc.load(text) == doc


@settings(max_examples=60, deadline=None)
@given(objects, st.sampled_from([2, 4]), values)
def test_an_added_member_comes_out_to_the_byte(doc, indent, value):
    text = "// the user's comment\n" + json.dumps(doc, indent=indent) + "\n"
    added = jsonc.set_member(text, ["kura-added", "inner"], value)
    assert jsonc.load(added) == {**doc, "kura-added": {"inner": value}}
    assert added.startswith("// the user's comment\n")
    assert jsonc.remove_member(added, ["kura-added"]) == text


@settings(max_examples=60, deadline=None)
@given(st.lists(values, min_size=1, max_size=4), values, st.sampled_from([None, 2]))
def test_an_appended_item_comes_out_to_the_byte(items, item, indent):
    text = json.dumps({"hooks": {"SessionStart": items}}, indent=indent)
    marked = {"kura": item}
    added = jsonc.append_item(text, ["hooks", "SessionStart"], marked)
    assert jsonc.load(added)["hooks"]["SessionStart"] == [*items, marked]
    back = jsonc.remove_items(added, ["hooks", "SessionStart"], lambda v: v == marked)
    assert back == text


tables = st.dictionaries(
    st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
    st.integers(0, 99) | st.text(max_size=8) | st.booleans(),
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), tables, max_size=3), tables)
def test_a_toml_table_comes_out_to_the_byte(doc, ours):
    # a file ending in one line break (one ending in a blank line is put back exactly by
    # the backup; by structure it may lose that blank line)
    blocks = [tomledit.block(["user", k], v) for k, v in doc.items()]
    text = "# the user's comment\n" + "\n".join(blocks)
    added = tomledit.append_table(text, ["mcp_servers", "kura"], ours, "config.toml")
    parsed = tomledit.loads(added, "x")
    assert parsed["mcp_servers"]["kura"] == ours
    assert tomledit.append_table(added, ["mcp_servers", "kura"], ours, "x") == added
    assert tomledit.remove_table(added, ["mcp_servers", "kura"], "x") == text


def test_an_inline_table_is_refused_not_rewritten():
    text = 'mcp_servers = { other = { command = "x" } }\n'
    try:
        tomledit.append_table(text, ["mcp_servers", "kura"], {"command": "k"}, "config.toml")
    except tomledit.TomlEditError as exc:
        assert "by hand" in str(exc)
    else:
        raise AssertionError("an inline table was extended")


def _home(tmp_path: Path, stores: tuple[str, ...] = ("eq",)) -> tuple[Where, Path]:
    cfg = tmp_path / ".config" / "kura" / "kura.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("".join(f'[stores.{s}]\npath = "{tmp_path / s}"\n\n' for s in stores))
    return Where(tmp_path, {"HOME": str(tmp_path), "PATH": ""}), cfg


USER_FILES = {
    "claude-code": (".claude/settings.json", '{\n  // mine\n  "model": "opus"\n}\n'),
    "gemini": (".gemini/settings.json", '{\n  "mcpServers": {"mine": {"command": "x"}}\n}\n'),
    "qwen-code": (".qwen/settings.json", '{"hooks": {"SessionStart": []}}\n'),
    "opencode": (".config/opencode/opencode.json", '{\n  "model": "a/b"\n}\n'),
    "codex": (".codex/config.toml", '# mine\nmodel = "o3"\n\n[mcp_servers.mine]\ncommand = "x"\n'),
    "copilot": (".copilot/mcp-config.json", '{"mcpServers": {}}\n'),
    "crush": (".config/crush/crush.json", '{\n  "options": {"debug": false}\n}\n'),
    "zed": (".config/zed/settings.json", '// Zed settings\n{\n  "theme": "One Dark",\n}\n'),
    "amp": (".config/amp/settings.json", '{\n  "amp.notifications.enabled": true\n}\n'),
}


def test_every_agent_connects_once_and_undoes_to_the_byte(tmp_path):
    where, cfg = _home(tmp_path, ("eq", "work"))
    originals = {cfg: cfg.read_bytes()}
    for rel, text in USER_FILES.values():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        originals[p] = p.read_bytes()
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    for name in AGENTS:
        config = load_config(str(cfg))
        wiring = wiring_for(config, "eq", kura=(str(KURA),), where=where)
        p = plan(name, config, wiring, where)
        assert not p.nothing and p.diff()
        apply(p, where)
        again = plan(name, load_config(str(cfg)), wiring, where)
        assert again.nothing, again.what()
    loaded = load_config(str(cfg))
    assert loaded.stores["work"].distill.journals == ()  # never shared by accident
    assert {j.adapter for j in loaded.stores["eq"].distill.journals} >= {"claude", "codex"}
    rows = {r.agent: r for r in status(where)}
    assert all(r.matches and r.store == "eq" for r in rows.values())
    for name in reversed(list(AGENTS)):
        undo(name, where)
    for p, data in originals.items():
        assert p.read_bytes() == data, p
    left = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    assert all(".local/state" in str(p) for p in left), left


def test_undo_after_the_agent_rewrote_its_file_takes_out_only_kura(tmp_path):
    where, cfg = _home(tmp_path)
    settings_file = tmp_path / ".gemini" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text('{"hooks": {"SessionStart": [{"hooks": [{"command": "mine"}]}]}}')
    config = load_config(str(cfg))
    wiring = wiring_for(config, "eq", kura=(str(KURA),), where=where)
    apply(plan("gemini", config, wiring, where), where)
    doc = json.loads(settings_file.read_text())
    doc["ui"] = {"theme": "dark"}  # the agent (or the person) changed it since
    settings_file.write_text(json.dumps(doc, indent=4))
    undo("gemini", where)
    assert json.loads(settings_file.read_text()) == {
        "hooks": {"SessionStart": [{"hooks": [{"command": "mine"}]}]},
        "ui": {"theme": "dark"},
    }


def test_a_single_store_keeps_its_global_journals(tmp_path):
    where, cfg = _home(tmp_path)
    cfg.write_text(cfg.read_text() + f'[distill.journals]\ntext = "{tmp_path / "notes"}"\n')
    config = load_config(str(cfg))
    wiring = wiring_for(config, "eq", kura=(str(KURA),), where=where)
    apply(plan("claude-code", config, wiring, where), where)
    adapters = {j.adapter for j in load_config(str(cfg)).stores["eq"].distill.journals}
    assert adapters == {"text", "claude"}


def _hook(home: Path, *args: str, env: dict | None = None, stdin: bytes = b""):
    e = {"HOME": str(home), "PATH": os.environ["PATH"], **(env or {})}
    t0 = time.monotonic()
    proc = subprocess.run(
        [str(KURA), "hook", *args], env=e, input=stdin, capture_output=True, timeout=30
    )
    return proc, time.monotonic() - t0


def test_the_hook_fails_open_silently_and_logs_why(tmp_path):
    cfg = tmp_path / "kura.toml"
    cfg.write_text("[stores.eq\n")
    proc, took = _hook(
        tmp_path, "session-start", "--agent", "claude-code", "-c", str(cfg), "--deadline", "20"
    )
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    log = (tmp_path / ".local" / "state" / "kura" / "hooks.log").read_text()
    assert "TOML" in json.loads(log.splitlines()[-1])["reason"]


def test_the_hook_stops_at_its_deadline(tmp_path):
    where, cfg = _home(tmp_path)
    proc, took = _hook(
        tmp_path, "session-start", "--agent", "codex", "-c", str(cfg), "--deadline", "0.1"
    )
    assert proc.returncode == 0 and proc.stdout == b""
    assert took < 1.5
    assert "within 0.1 s" in (tmp_path / ".local" / "state" / "kura" / "hooks.log").read_text()


def test_kura_off_skips_the_session(tmp_path):
    where, cfg = _home(tmp_path)
    args = ("session-start", "--agent", "gemini", "-c", str(cfg), "-s", "eq", "--deadline", "20")
    proc, _ = _hook(tmp_path, *args, env={"KURA_OFF": "1"})
    assert proc.stdout == b""
    subprocess.run([str(KURA), "-c", str(cfg), "init", "eq", "--path", str(tmp_path / "eq")])
    proc, _ = _hook(tmp_path, *args)
    out = json.loads(proc.stdout)
    assert "KURA-MAP store=eq" in out["hookSpecificOutput"]["additionalContext"]


def test_doctor_names_the_wired_agents_and_their_failed_hooks(tmp_path):
    from kura_core.kura import Kura

    home = Path.home()  # the isolated HOME every test gets
    cfg = home / ".config" / "kura" / "kura.toml"
    Kura.init_store("eq", str(tmp_path / "eq"), config=str(cfg))
    where = Where.here()
    k = Kura.open(str(cfg))
    k.connect_apply(k.connect_plan("claude-code", store="eq", where=where), where=where)
    notes = k.doctor(store="eq").notes
    assert any("wired into Claude Code" in n and "matches" in n for n in notes)

    settings_file = home / ".claude" / "settings.json"
    settings_file.write_text('{"hooks": {}}')  # someone took kura's hook out
    cfg.write_text(cfg.read_text())
    _hook(home, "session-start", "--agent", "claude-code", "-c", str(home / "nope"), "-s", "eq")
    notes = Kura.open(str(cfg)).doctor(store="eq").notes
    assert any("changed since kura connect" in n for n in notes)
    assert any("went on without kura 1 time" in n for n in notes)


def test_prompt_recall_answers_by_words_when_the_thinker_hangs(tmp_path):
    import socket

    silent = socket.socket()  # accepts connections (the backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        cfg = tmp_path / "kura.toml"
        cfg.write_text(
            f'[stores.eq]\npath = "{tmp_path / "eq"}"\nwrite_policy = "direct-allowed"\n\n'
            "[models.thinker]\n"
            f'url = "http://127.0.0.1:{silent.getsockname()[1]}/v1"\nmodel = "x"\ntimeout = 60\n'
            # the hang is what is tested: the fastpath would answer this direct question
            "\n[fastpath]\nenabled = false\n"
        )
        kura = [str(KURA), "-c", str(cfg)]
        subprocess.run([*kura, "init", "eq", "--path", str(tmp_path / "eq")], check=True)
        subprocess.run(
            [*kura, "remember", "-s", "eq", "crock-plums", "Plums pickled in a crock each June",
             "They pickle plums in a stoneware crock every June.", "--type", "user"],
            check=True, capture_output=True,
        )  # fmt: skip
        payload = json.dumps({"prompt": "when do I pickle plums?"}).encode()
        args = ("prompt", "--agent", "claude-code", "-c", str(cfg), "-s", "eq")
        proc, took = _hook(tmp_path, *args, "--deadline", "4", stdin=payload)
    finally:
        silent.close()
    assert took < 4 + 2  # the deadline, and the process's own exit
    ctx = json.loads(proc.stdout)["hookSpecificOutput"]
    assert ctx["hookEventName"] == "UserPromptSubmit"
    assert "⚠ degraded" in ctx["additionalContext"]
    assert "stoneware crock" in ctx["additionalContext"]


def test_prompt_recall_answers_a_direct_question_while_the_thinker_hangs(tmp_path):
    """The fastpath answers a question that names its memory without asking the model, so a
    hung thinker costs the hook nothing."""
    import socket

    silent = socket.socket()  # accepts connections (the backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        cfg = tmp_path / "kura.toml"
        cfg.write_text(
            f'[stores.eq]\npath = "{tmp_path / "eq"}"\nwrite_policy = "direct-allowed"\n\n'
            "[models.thinker]\n"
            f'url = "http://127.0.0.1:{silent.getsockname()[1]}/v1"\nmodel = "x"\ntimeout = 60\n'
        )
        kura = [str(KURA), "-c", str(cfg)]
        subprocess.run([*kura, "init", "eq", "--path", str(tmp_path / "eq")], check=True)
        subprocess.run(
            [*kura, "remember", "-s", "eq", "crock-plums", "Plums pickled in a crock each June",
             "They pickle plums in a stoneware crock every June.", "--type", "user"],
            check=True, capture_output=True,
        )  # fmt: skip
        payload = json.dumps({"prompt": "when do I pickle plums?"}).encode()
        args = ("prompt", "--agent", "claude-code", "-c", str(cfg), "-s", "eq")
        proc, took = _hook(tmp_path, *args, "--deadline", "8", stdin=payload)
    finally:
        silent.close()
    assert took < 8  # inside the deadline: no model was waited on
    ctx = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "stoneware crock" in ctx and "⚠ degraded" not in ctx


def test_connect_shows_the_diff_and_writes_only_when_told(tmp_path):
    home = Path.home()
    cfg = home / ".config" / "kura" / "kura.toml"
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([str(KURA), "init", "eq", "--path", str(tmp_path / "eq")], env=env, check=True)
    run = [str(KURA), "connect", "gemini", "-s", "eq"]
    dry = subprocess.run([*run, "--dry-run"], env=env, capture_output=True, text=True)
    assert dry.returncode == 0 and "+++ " in dry.stdout and '"kura"' in dry.stdout
    assert not (home / ".gemini").exists()
    asked = subprocess.run(run, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert asked.returncode == 1 and "--yes" in asked.stderr
    assert not (home / ".gemini").exists()
    done = subprocess.run([*run, "--yes"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([*run, "--yes"], env=env, capture_output=True, text=True)
    assert again.returncode == 2 and "nothing to change" in again.stdout
    rows = json.loads(
        subprocess.run(
            [str(KURA), "connect", "--status", "--json"], env=env, capture_output=True, text=True
        ).stdout
    )
    gemini = next(r for r in rows if r["agent"] == "gemini")
    assert gemini["store"] == "eq" and gemini["matches"] is True
    assert "[stores.eq.journals.gemini]" in cfg.read_text()
    undone = subprocess.run([str(KURA), "connect", "gemini", "--undo"], env=env, text=True)
    assert undone.returncode == 0
    assert not (home / ".gemini" / "settings.json").exists()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='{}[],:"/*\\ \n\tabn0123456789.-etrufl', max_size=40))
def test_any_text_is_read_as_json_or_refused_with_its_place(text):
    try:
        expected, valid = json.loads(text), True
    except ValueError:
        expected, valid = None, False
    try:
        got = jsonc.load(text)
    except jsonc.JsoncError as exc:
        assert "line " in str(exc) and "column " in str(exc)
        assert not valid, f"valid JSON refused: {text!r}"
        return
    if valid:
        assert got == expected


def test_rewiring_to_another_store_moves_the_journal_too(tmp_path):
    where, cfg = _home(tmp_path, ("eq", "work"))
    original = cfg.read_bytes()
    for store in ("eq", "work"):
        config = load_config(str(cfg))
        wiring = wiring_for(config, store, kura=(str(KURA),), where=where)
        apply(plan("claude-code", config, wiring, where), where)
    loaded = load_config(str(cfg))
    assert loaded.stores["eq"].distill.journals == ()  # never both by accident
    assert [j.adapter for j in loaded.stores["work"].distill.journals] == ["claude"]
    undo("claude-code", where)
    assert cfg.read_bytes() == original


def test_a_changed_wiring_keeps_every_other_hook_in_its_place(tmp_path):
    where, cfg = _home(tmp_path, ("eq", "work"))
    hooks = tmp_path / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    config = load_config(str(cfg))
    apply(
        plan("codex", config, wiring_for(config, "eq", kura=("kura",), where=where), where), where
    )
    doc = json.loads(hooks.read_text())
    doc["hooks"]["SessionStart"].append({"hooks": [{"type": "command", "command": "mine"}]})
    hooks.write_text(json.dumps(doc, indent=2))
    config = load_config(str(cfg))
    p = plan("codex", config, wiring_for(config, "work", kura=("kura",), where=where), where)
    apply(p, where)
    groups = json.loads(hooks.read_text())["hooks"]["SessionStart"]
    assert groups[1] == {"hooks": [{"type": "command", "command": "mine"}]}
    assert "-s work" in groups[0]["hooks"][0]["command"]


def test_a_hook_called_wrongly_says_nothing_to_the_agent(tmp_path):
    for args in (("bogus",), ("session-start",), ("prompt", "--agent")):
        proc, _ = _hook(tmp_path, *args)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    log = (tmp_path / ".local" / "state" / "kura" / "hooks.log").read_text().splitlines()
    assert len(log) == 3 and all("bad hook arguments" in json.loads(x)["reason"] for x in log)


def test_the_command_line_offers_every_agent_connect_knows():
    from kura_core.faces.connect import AGENT_NAMES

    assert tuple(AGENTS) == AGENT_NAMES
