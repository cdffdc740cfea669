"""``kura connect`` against the real agent CLIs, run headless against a fake model API.

The CLIs are installed once per machine with npm into a shared cache, keyed by the pinned
versions; when npm or its registry cannot be reached the tests are skipped as "NOT RUN" with
the reason, and the run ends with a banner naming them (tests/unreachable.py): a test that
did not run never looks like a pass. One fake API server serves the whole module. For each agent:
connect, the agent's own ``mcp list`` shows kura, a headless run's model request carries the
map, kura reads the transcript that run wrote with the prompt as USER, a broken kura leaves
the run going with no kura error in the request, and ``--undo`` restores the config bytes.

Claude Code and Codex run in every suite run; Gemini CLI and opencode, the two slowest to
start, and Claude Code's plugin form run in the slow tier (``-m slow``), which .ci/run runs
and fails on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kura_core import Kura
from tests.fakes.agent_apis import AgentApis
from tests.unreachable import registry_unreachable

PINS = {
    "@anthropic-ai/claude-code": "2.1.328",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
    "opencode-ai": "1.18.33",
}
CACHE = Path(os.environ.get("KURA_TEST_NPM_CACHE") or Path("~/.cache/kura-tests/npm").expanduser())
KURA = Path(sys.executable).parent / "kura"
PROMPT = "what do I pickle in June?"
BROKEN = "[stores.eq\npath = \n"  # kura.toml that no longer parses


def _bin_dir() -> Path:
    key = "cli-" + "-".join(PINS.values())
    return CACHE / key / "node_modules" / ".bin"


@pytest.fixture(scope="module")
def clis() -> Path:
    """The pinned agent CLIs, installed into the shared cache on first use."""
    bins = _bin_dir()
    names = ("claude", "codex", "gemini", "opencode")
    if all((bins / n).exists() for n in names):
        return bins
    npm = shutil.which("npm")
    if npm is None:
        registry_unreachable("npm is not installed, so the real agent CLIs cannot be installed")
    prefix = bins.parent.parent
    prefix.mkdir(parents=True, exist_ok=True)
    specs = [f"{k}@{v}" for k, v in PINS.items()]
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *specs],
            capture_output=True,
            text=True,
            timeout=900,
        )
    except subprocess.TimeoutExpired:
        registry_unreachable("npm install of the agent CLIs took over 15 minutes")
    if proc.returncode != 0 or not all((bins / n).exists() for n in names):
        tail = (proc.stderr or proc.stdout)[-400:]
        registry_unreachable(f"the npm registry could not be reached ({tail})")
    return bins


@pytest.fixture(scope="module")
def api():
    with AgentApis() as server:
        yield server


class Home:
    """A temporary HOME with a store that remembers one thing, a git project dir as cwd,
    and the environment an agent runs in."""

    def __init__(self, root: Path, bins: Path):
        self.root = root
        self.project = root / "proj"
        self.project.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=self.project, check=True)
        self.config = root / ".config" / "kura" / "kura.toml"
        self.config.parent.mkdir(parents=True)
        store = root / "eq"
        self.config.write_text(
            f'[stores.eq]\npath = "{store}"\nwrite_policy = "direct-allowed"\n', encoding="utf-8"
        )
        path = os.pathsep.join([str(bins), str(KURA.parent), "/usr/local/bin", "/usr/bin", "/bin"])
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("KURA_", "ANTHROPIC", "XDG_"))
        }
        self.env.update(HOME=str(root), PATH=path, NO_COLOR="1")
        # the store, in this process (a subprocess per step costs seconds on a busy machine)
        Kura.init_store("eq", str(store), config=str(self.config))
        with Kura.open(str(self.config)) as k:
            k.remember(
                "pickled-plums",
                "The user pickles plums every June in a stoneware crock",
                "They pickle plums every June.",
                store="eq",
                type="user",
            )
            k.weave(store="eq")

    def kura(self, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(KURA), *args], env=self.env, cwd=self.project, capture_output=True, text=True
        )
        assert proc.returncode in (0, 2), proc.stderr
        return proc

    def run(self, *argv: str, extra: dict | None = None, timeout: float = 120):
        return subprocess.run(
            list(argv),
            env={**self.env, **(extra or {})},
            cwd=self.project,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def transcript_users(self, path: Path) -> list[str]:
        out = self.kura("journal", "inspect", str(path), "--json").stdout
        return [
            s["text"] for s in json.loads(out)["segments"] if s.get("cls", s.get("class")) == "USER"
        ]

    def hook_log(self) -> list[dict]:
        log = self.root / ".local" / "state" / "kura" / "hooks.log"
        if not log.is_file():
            return []
        return [json.loads(x) for x in log.read_text().splitlines()]


def _connected(home: Home, agent: str) -> None:
    out = home.kura("connect", agent, "-s", "eq", "--yes").stdout
    assert f"{agent} wired to store 'eq'" in out
    again = home.kura("connect", agent, "-s", "eq", "--yes")
    assert again.returncode == 2 and "nothing to change" in again.stdout


def _broken_run_is_clean(home: Home, api: AgentApis, run, marker_free: str = "KURA-MAP") -> None:
    """kura broken: the run still completes, its request has no map and no kura error."""
    good = home.config.read_bytes()
    home.config.write_text(BROKEN, encoding="utf-8")
    try:
        api.clear()
        t0, started = time.monotonic(), time.time()
        proc = run()
        took = time.monotonic() - t0
    finally:
        home.config.write_bytes(good)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Noted." in proc.stdout
    bodies = json.dumps([r["body"] for r in api.requests], ensure_ascii=False)
    assert api.requests, "the agent sent nothing to its model"
    assert marker_free not in bodies
    for words in ("not valid TOML", "Traceback", "ConfigError", "kura:"):
        assert words not in bodies
    # why it went on without kura is in kura's own log: the broken file, or (on a machine
    # too busy to read even that within the deadline) the deadline
    reasons = [r["reason"] for r in home.hook_log() if r["at"] >= started]
    assert reasons and all("TOML" in r or "no answer within" in r for r in reasons), reasons
    assert took < 90


def _undo_restores(home: Home, agent: str, files: dict[Path, bytes | None]) -> None:
    home.kura("connect", agent, "--undo")
    for path, before in files.items():
        if before is None:
            assert not path.exists(), path
        else:
            assert path.read_bytes() == before, path


# --------------------------------------------------------------------------- Claude Code


def test_claude_code(tmp_path, clis, api):
    home = Home(tmp_path, clis)
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n  "hooks": {\n    "SessionStart": [\n      {"hooks": [{"type": "command", '
        '"command": "echo my-own-hook", "timeout": 5}]}\n    ]\n  },\n  "model": "sonnet"\n}\n'
    )
    before = settings.read_bytes()
    _connected(home, "claude-code")

    listed = home.run("claude", "mcp", "list")
    assert "kura" in listed.stdout and "Connected" in listed.stdout, listed.stdout

    env = {
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }

    def run():
        return home.run("claude", "-p", PROMPT, extra=env)

    api.clear()
    proc = run()
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = json.dumps(api.requests[0]["body"], ensure_ascii=False)
    assert "KURA-MAP store=eq" in first and "stoneware crock" in first
    assert "my-own-hook" in first  # the user's own hook still runs beside kura's

    (transcript,) = (tmp_path / ".claude" / "projects").rglob("*.jsonl")
    assert PROMPT in home.transcript_users(transcript)
    toml = home.config.read_text()
    assert "[stores.eq.journals.claude]" in toml

    _broken_run_is_clean(home, api, run)

    _undo_restores(home, "claude-code", {settings: before})
    state = json.loads((tmp_path / ".claude.json").read_text())
    assert "kura" not in state.get("mcpServers", {})
    assert "journals" not in home.config.read_text()


@pytest.mark.slow
def test_claude_code_plugin(tmp_path, clis, api):
    """The plugin shipped in the package installs from its local marketplace directory."""
    home = Home(tmp_path, clis)
    market = home.kura("connect", "--plugin-dir").stdout.strip()
    assert Path(market, ".claude-plugin", "marketplace.json").is_file()
    added = home.run("claude", "plugin", "marketplace", "add", market)
    assert added.returncode == 0, added.stderr
    installed = home.run("claude", "plugin", "install", "kura@kura")
    assert installed.returncode == 0, installed.stderr
    listed = home.run("claude", "mcp", "list")
    assert "plugin:kura:kura" in listed.stdout and "Connected" in listed.stdout, listed.stdout
    assert "the kura plugin for Claude Code" in home.kura("connect", "--status").stdout
    env = {
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    api.clear()
    proc = home.run("claude", "-p", PROMPT, extra=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = json.dumps(api.requests[0]["body"], ensure_ascii=False)
    assert "KURA-MAP store=eq" in first and "stoneware crock" in first


# --------------------------------------------------------------------------- Codex CLI


def test_codex(tmp_path, clis, api):
    home = Home(tmp_path, clis)
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        "# my own codex settings\n"
        'model = "fake-model"\nmodel_provider = "fake"\n\n'
        "[model_providers.fake]\n"
        f'name = "fake"\nbase_url = "{api.url}/v1"\nenv_key = "FAKE_API_KEY"\n'
        'wire_api = "responses"\n'
    )
    before = config.read_bytes()
    _connected(home, "codex")
    assert "trusted_hash" in config.read_text()  # trusted the way Codex's /hooks does

    listed = home.run("codex", "mcp", "list", "--json")
    assert any(s.get("name") == "kura" for s in json.loads(listed.stdout)), listed.stdout

    def run():
        return home.run(
            "codex", "exec", "--skip-git-repo-check", PROMPT, extra={"FAKE_API_KEY": "sk-fake"}
        )

    api.clear()
    proc = run()
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = json.dumps(api.requests[0]["body"], ensure_ascii=False)
    assert "KURA-MAP store=eq" in first and "stoneware crock" in first

    _broken_run_is_clean(home, api, run)
    _undo_restores(home, "codex", {config: before, tmp_path / ".codex" / "hooks.json": None})

    rollouts = sorted((tmp_path / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert any(PROMPT in u for u in home.transcript_users(rollouts[0]))


# --------------------------------------------------------------------------- Gemini CLI


@pytest.mark.slow
def test_gemini(tmp_path, clis, api):
    home = Home(tmp_path, clis)
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        "{\n  // my own settings, with a comment\n"
        '  "security": {"auth": {"selectedType": "gemini-api-key"}}\n}\n'
    )
    (tmp_path / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(home.project): "TRUST_FOLDER"})
    )
    before = settings.read_bytes()
    _connected(home, "gemini")

    listed = home.run("gemini", "mcp", "list")
    assert "kura" in listed.stdout + listed.stderr and "Connected" in listed.stdout + listed.stderr

    env = {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": api.url}

    def run():
        return home.run("gemini", "-p", PROMPT, extra=env)

    api.clear()
    proc = run()
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = json.dumps(api.requests[0]["body"], ensure_ascii=False)
    assert "KURA-MAP store=eq" in first and "stoneware crock" in first

    chats = sorted((tmp_path / ".gemini" / "tmp").rglob("session-*.json*"))
    assert chats
    assert any(PROMPT in u for u in home.transcript_users(chats[-1]))

    _broken_run_is_clean(home, api, run)
    _undo_restores(home, "gemini", {settings: before})


# --------------------------------------------------------------------------- opencode

#: opencode installs its plugin package into ~/.config/opencode on the first run with a
#: plugin present (13-30 s from npm); the tests keep one copy beside the CLIs and lend it
#: to each new HOME.
PLUGIN_SEED = ("node_modules", "package.json", "package-lock.json", ".gitignore")


def _seed_dir() -> Path:
    return _bin_dir().parent.parent / f"opencode-plugin-{PINS['opencode-ai']}"


def _seed_opencode_plugin(dest: Path) -> bool:
    seed = _seed_dir()
    if not (seed / "node_modules").is_dir():
        return False
    for name in PLUGIN_SEED:
        src = seed / name
        if src.is_dir():
            shutil.copytree(src, dest / name, symlinks=True)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    return True


def _keep_opencode_plugin(src: Path) -> None:
    seed = _seed_dir()
    if seed.exists() or not (src / "node_modules").is_dir():
        return
    tmp = seed.with_name(seed.name + f".{os.getpid()}")
    tmp.mkdir(parents=True)
    for name in PLUGIN_SEED:
        if (src / name).is_dir():
            shutil.copytree(src / name, tmp / name, symlinks=True)
        elif (src / name).is_file():
            shutil.copy2(src / name, tmp / name)
    try:
        tmp.rename(seed)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another run kept one first


@pytest.mark.slow
def test_opencode(tmp_path, clis, api):
    home = Home(tmp_path, clis)
    config = tmp_path / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "options": {"baseURL": f"{api.url}/v1", "apiKey": "sk-fake"},
        "models": {"fake-model": {}},
    }
    config.write_text(
        json.dumps(
            {
                "$schema": "https://opencode.ai/config.json",  # opencode adds it when missing
                "provider": {"fake": provider},
                "model": "fake/fake-model",
            },
            indent=2,
        )
        + "\n"
    )
    before = config.read_bytes()
    seeded = _seed_opencode_plugin(config.parent)
    _connected(home, "opencode")

    env = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "npm_config_prefer_offline": "true"}

    def run():
        return home.run("opencode", "run", PROMPT, extra=env, timeout=240)

    api.clear()
    proc = run()  # first: two opencode processes starting at once race on its database
    listed = home.run("opencode", "mcp", "list", extra=env)
    assert "kura" in listed.stdout and "connected" in listed.stdout.lower(), listed.stdout
    if not seeded:
        _keep_opencode_plugin(config.parent)
    if proc.returncode != 0 and "registry" in (proc.stderr + proc.stdout).lower():
        registry_unreachable("opencode could not fetch its plugin package from npm")
    assert proc.returncode == 0, proc.stderr[-2000:]
    turns = [
        json.dumps(r["body"], ensure_ascii=False)
        for r in api.requests
        if r["path"].endswith("/chat/completions") and r["body"].get("tools")
    ]
    assert turns, "opencode sent no turn to its model"
    assert "KURA-MAP store=eq" in turns[0] and "stoneware crock" in turns[0]

    db = tmp_path / ".local" / "share" / "opencode" / "opencode.db"
    assert any(PROMPT in u for u in home.transcript_users(db))

    _broken_run_is_clean(home, api, run)
    _undo_restores(
        home,
        "opencode",
        {config: before, tmp_path / ".config" / "opencode" / "plugins" / "kura.js": None},
    )
