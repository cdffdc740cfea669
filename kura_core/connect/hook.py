"""``kura hook EVENT``: what an agent runs at session start (and, when asked, per prompt).

Fail-open under a hard deadline. The work runs in a worker thread; the main thread waits at
most the deadline (1.5 s unless ``--deadline`` says otherwise) from the process's start, then
prints the answer, or nothing at all and exits 0. Nothing kura says about its own trouble goes
to stdout or stderr, which the agent may show to its model: the reason goes to kura's hook log
(``~/.local/state/kura/hooks.log``), which ``kura doctor`` reads. ``KURA_OFF=1`` skips kura for
a session: the hook answers nothing at once.

Per-prompt recall asks the thinker first; when it has not answered by 60 % of the deadline,
the degraded tier (recall by words, no model) answers instead, labelled as degraded.

The store machinery (registry, prefill, recall) is imported inside the functions that need
it, on purpose: start-up counts against the deadline, and the kept map answers without it.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from .base import DEFAULT_DEADLINE, Where


def _process_started() -> float:
    """When this process began, on the monotonic clock (Linux: from /proc; elsewhere the
    moment this module was imported), so the deadline counts Python's own start-up too."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        age = uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return now - max(0.0, min(age, 5.0))
    except (OSError, ValueError, IndexError):
        return now


_STARTED = _process_started()
EVENTS = ("session-start", "prompt")
LOG_CAP = 256 * 1024
#: How old a kept map may be and still be served when the store does not answer in time.
STALE_MAP_SECONDS = 7 * 86400
OFF_VALUES = ("1", "true", "yes", "on")

#: The event names each agent expects in JSON answers (None: plain stdout is the context).
JSON_EVENTS: dict[str, dict[str, str] | None] = {
    "claude-code": {"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
    "gemini": {"session-start": "SessionStart", "prompt": "BeforeAgent"},
    "qwen-code": {"session-start": "SessionStart", "prompt": "BeforeAgent"},
    "codex": None,
    "opencode": None,
    "copilot": None,
}


def log_failure(where: Where, agent: str, event: str, store: str, reason: str) -> None:
    """One line in kura's hook log (kept under LOG_CAP by dropping its older half)."""
    try:
        path = where.hook_log
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(
            {"at": time.time(), "agent": agent, "event": event, "store": store, "reason": reason},
            ensure_ascii=False,
        )
        if path.is_file() and path.stat().st_size > LOG_CAP:
            keep = path.read_bytes()[-LOG_CAP // 2 :]
            keep = keep[keep.find(b"\n") + 1 :]
            path.write_bytes(keep)
        with path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
    except OSError:
        pass  # the log is best effort: the agent's session must go on regardless


def read_log(where: Where, since: float = 0.0) -> list[dict[str, Any]]:
    try:
        lines = where.hook_log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and float(rec.get("at", 0)) >= since:
            out.append(rec)
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kura hook", add_help=True)
    p.add_argument("event", choices=EVENTS)
    p.add_argument("--agent", required=True)
    p.add_argument("-c", "--config", default=None)
    p.add_argument("-s", "--store", default=None)
    p.add_argument("--deadline", type=float, default=None)
    return p


def answer(agent: str, event: str, text: str) -> str:
    """*text* in the form *agent* puts into the model's context for *event*."""
    names = JSON_EVENTS.get(agent)
    if names is None:
        if agent == "copilot":
            return json.dumps({"additionalContext": text}, ensure_ascii=False)
        return text
    out = {"hookSpecificOutput": {"hookEventName": names[event], "additionalContext": text}}
    return json.dumps(out, ensure_ascii=False)


def _prompt_of(stdin: BinaryIO | None) -> str:
    if stdin is None:
        return ""
    raw = stdin.read()
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:
        return ""
    if not isinstance(payload, dict):
        return ""
    for k in ("prompt", "user_prompt", "userPrompt", "message"):
        v = payload.get(k)
        if isinstance(v, str) and v.strip():
            return v
    return ""


def _registry(config: str | None, env: Mapping[str, str]) -> Any:
    from ..registry import Registry

    return Registry.open(config, env=env)


def _map_cache(where: Where, config: str, store: str) -> Path:
    key = hashlib.sha256(f"{Path(config).resolve()}\0{store}".encode()).hexdigest()[:16]
    return where.state / "hooks" / f"map-{key}.json"


def _identity(paths: list[str]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append([p, st.st_mtime_ns, st.st_size])
        except OSError:
            out.append([p, None, None])
    return out


def cached_map(
    where: Where, config: str | None, store: str | None, *, max_age: float | None = None
) -> str | None:
    """The map the last answer held. Without *max_age*: only while every file it was built
    from (kura.toml, MEMORY.md, the woven map) is unchanged; with it: however old it is,
    up to *max_age* seconds, while kura.toml is unchanged (what the hook serves when the
    store is slow; a changed or broken configuration gets no old map)."""
    if not config or not store:
        return None
    try:
        doc = json.loads(_map_cache(where, config, store).read_text(encoding="utf-8"))
        if max_age is None:
            return str(doc["text"]) if _identity(doc["paths"]) == doc["identity"] else None
        same_config = _identity(doc["paths"][:1]) == doc["identity"][:1]
        young = time.time() - float(doc["at"]) <= max_age
        return str(doc["text"]) if same_config and young else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def keep_map(where: Where, config: str, store: str, text: str, paths: list[str]) -> None:
    doc = {"text": text, "paths": paths, "identity": _identity(paths), "at": time.time()}
    try:
        path = _map_cache(where, config, store)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a cache only


def map_of(reg: Any, store: str | None) -> tuple[str, list[str]]:
    """The store's map as a session starts with it, and the files it was built from."""
    from ..prefill import build_prefill

    name = reg.resolve(store)
    paths = [str(reg.config.source)] if reg.config.source else []
    st = reg.store(name)
    paths += [str(st.index_path), str(st.still / "woven.md")]
    p = build_prefill(reg, name)
    if p.source == "none":
        raise RuntimeError(p.warning or "no map could be read")
    return p.text, paths


def session_text(config: str | None, store: str | None, env: Mapping[str, str]) -> str:
    reg = _registry(config, env)
    text, paths = map_of(reg, store)
    if config and store:
        where = Where(Path(env.get("HOME") or Path.home()), env)
        keep_map(where, config, store, text, paths)
    return text


def recall_text(
    config: str | None,
    store: str | None,
    env: Mapping[str, str],
    prompt: str,
    budget: float,
) -> str:
    """What recall finds for *prompt*: by meaning when the thinker answers within *budget*
    seconds, else by words (the degraded tier, labelled)."""
    from ..recall import recall
    from ..registry import Registry

    reg = _registry(config, env)
    name = reg.resolve(store)
    question = " ".join(prompt.split())[:2000]
    if not reg.models(name).configured("thinker"):
        return _recall_block(recall(reg, name, question))
    no_model = replace(
        reg.config,
        models=dict.fromkeys(reg.config.models),
        stores={n: replace(s, profile_models=None) for n, s in reg.config.stores.items()},
    )
    box: dict[str, Any] = {}

    def ask(tier: str, r: Any) -> None:
        try:
            box[tier] = recall(r, name, question)
        except Exception as exc:  # the other tier answers instead
            box[f"{tier}-error"] = exc

    # both tiers start at once: the words are ready by the time the thinker is given up on
    meaning = threading.Thread(target=ask, args=("meaning", reg), daemon=True)
    words = threading.Thread(target=ask, args=("words", Registry(no_model, env=env)), daemon=True)
    meaning.start()
    words.start()
    meaning.join(max(0.0, budget))
    res = box.get("meaning")
    if res is None:
        words.join()
        res = box.get("words")
        if res is None:
            raise RuntimeError(f"recall failed: {box.get('words-error')}")
        reason = "the thinker did not answer within the hook's deadline"
        if "meaning-error" in box:
            reason = f"the thinker failed: {box['meaning-error']}"
        res = replace(res, degraded=True, reason=reason, how="words")
    return _recall_block(res)


def _recall_block(res: Any) -> str:
    if not res.picked:
        return ""
    notice = res.notice if hasattr(res, "notice") else ""
    head = f"{notice}\n" if notice else ""
    return f"{head}<<<KURA-RECALL store={res.store}>>>\n{res.context}\n<<<END KURA-RECALL>>>"


def _work(
    args: argparse.Namespace,
    env: Mapping[str, str],
    stdin: BinaryIO | None,
    box: dict[str, Any],
    deadline: float,
) -> None:
    try:
        if args.event == "session-start":
            text = session_text(args.config, args.store, env)
        else:
            prompt = _prompt_of(stdin)
            if not prompt:
                box["text"] = ""
                return
            left = deadline - (time.monotonic() - _STARTED)
            text = recall_text(args.config, args.store, env, prompt, left * 0.6)
        box["text"] = answer(args.agent, args.event, text) if text else ""
    except BaseException as exc:
        box["error"] = f"{type(exc).__name__}: {exc}"


def run_hook(argv: list[str]) -> int:
    """``kura hook …`` as the command line runs it: whatever happens, exit 0 and no word
    on stderr (an agent may show it to its model)."""
    try:
        return main(argv)
    except BaseException as exc:  # a bug here must not reach the agent either
        env = dict(os.environ)
        where = Where(Path(env.get("HOME") or Path.home()), env)
        log_failure(where, "?", " ".join(argv[:1]), "", f"{type(exc).__name__}: {exc}")
        return 0


def main(
    argv: list[str],
    *,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
    started: float | None = None,
    hard_exit: Callable[[int], Any] = os._exit,
) -> int:
    """Run one hook. Always exits 0; prints the context or nothing."""
    env = dict(os.environ if env is None else env)
    out = stdout if stdout is not None else sys.stdout
    where = Where(Path(env.get("HOME") or Path.home()), env)
    if env.get("KURA_OFF", "").strip().lower() in OFF_VALUES:
        return 0
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # argparse's usage: not for the agent
            args = _parser().parse_args(argv)
    except SystemExit:
        log_failure(where, "?", "?", "", f"bad hook arguments: {' '.join(argv)}")
        return 0
    deadline = args.deadline
    if deadline is None:
        try:
            deadline = float(env.get("KURA_HOOK_DEADLINE") or DEFAULT_DEADLINE)
        except ValueError:
            deadline = DEFAULT_DEADLINE
    start = _STARTED if started is None else started
    if args.event == "session-start":
        hit = cached_map(where, args.config, args.store)
        if hit is not None:  # nothing it was built from has changed: no store opened
            out.write(answer(args.agent, args.event, hit) + "\n")
            out.flush()
            return 0
    box: dict[str, Any] = {}
    inp = stdin if stdin is not None else (sys.stdin.buffer if args.event == "prompt" else None)
    worker = threading.Thread(target=_work, args=(args, env, inp, box, deadline), daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - (time.monotonic() - start)))
    store = args.store or ""
    if worker.is_alive():
        stale = None
        if args.event == "session-start":
            stale = cached_map(where, args.config, args.store, max_age=STALE_MAP_SECONDS)
        served = "; served the map kept from before" if stale is not None else ""
        log_failure(
            where, args.agent, args.event, store, f"no answer within {deadline:g} s{served}"
        )
        if stale is not None:  # the last map this store gave, rather than none
            out.write(answer(args.agent, args.event, stale) + "\n")
        out.flush()
        hard_exit(0)  # the worker may hold a lock or a socket: do not wait for it
        return 0
    if "error" in box:
        log_failure(where, args.agent, args.event, store, box["error"])
        return 0
    if box.get("text"):
        out.write(box["text"] + "\n")
        out.flush()
    return 0
