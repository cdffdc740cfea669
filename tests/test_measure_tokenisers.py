"""The tokeniser measurement script says what to install when its packages are absent."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "measure_tokenisers.py"


def test_without_the_tokenisers_the_script_names_the_pip_command():
    # -S leaves site-packages off the path: a Python without jieba, fugashi or unidic-lite
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-S", str(SCRIPT)], capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 2, out
    assert "pip install jieba fugashi unidic-lite" in out.stderr
    for module in ("jieba", "fugashi", "unidic_lite"):
        assert module in out.stderr.split("\n")[0]
    assert out.stdout == ""
    assert time.monotonic() - started < 2
