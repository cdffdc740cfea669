"""The headless core never loads the TUI's libraries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import kura_core, kura_core.cli, kura_core.store, kura_core.config, kura_core.doctor
import kura_core.registry, kura_core.workshop, kura_core.kura, kura_core.fsutil
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "pygments"))
print(json.dumps({"heavy": heavy, "core": "kura_core.store" in sys.modules}))
"""


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)


def test_core_imports_load_neither_textual_nor_rich():
    out = _run(PROBE)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["core"] is True
    assert res["heavy"] == []


def test_cli_doctor_run_loads_neither_textual_nor_rich(tmp_path):
    code = (
        "import sys, json\n"
        "from kura_core.cli import main\n"
        "rc = main(['-c', sys.argv[1], 'doctor', '--json'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "sys.stderr.write(json.dumps({'rc': rc, 'heavy': heavy}))\n"
    )
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{tmp_path / "main"}"\n', encoding="utf-8")
    from kura_core.store import Store

    Store(tmp_path / "main").init()
    out = _run(code, str(cfg))
    res = json.loads(out.stderr.strip().splitlines()[-1])
    assert res["rc"] == 0
    assert res["heavy"] == []


def test_textual_is_installed_so_the_check_means_something():
    out = _run("import textual, rich, sys; print('textual' in sys.modules and 'rich' in sys.modules)")
    assert out.stdout.strip() == "True"
