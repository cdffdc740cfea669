"""`kura warm`: refill the thinker's prompt cache before the next recall needs it.

A local server keeps the prompt it last read and reuses its longest common prefix. Every
recall sends the same system message — charter, profile, instructions, then the index —
and only the question differs, at the end; so once the index is in the cache a recall
reads a few dozen tokens instead of thousands (about 0.8 s against 40–70 s for a 4k-token
index on two CPU cores). After a pour and a weave the index changed, and the first recall
would pay the whole read inside its own timeout. A warm-up sends that system message
(every shard of it) with a one-token reply and nothing else, so the server reads the new
index now and the next recall finds it cached.

The request asks for no JSON (one token of anything will do), so every server takes it
whatever structured output it accepts. It is not a thinker call: it is not counted among the
thinker's calls and its failure is never the thinker's last error; it is reported here.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from .errors import KuraError
from .profile import preamble
from .registry import Registry

#: the question a warm-up carries: only the part before it matters to the cache
WARM_QUESTION = "(warm-up: read the index; no answer is needed)"
#: how long one warm-up request may take (no recall waits on it; a cold index on a CPU
#: takes a minute)
WARM_TIMEOUT_S = 600.0
TASK = "kura_warm"


@dataclass(frozen=True)
class WarmReport:
    store: str
    sent: int = 0  # shards sent
    warmed: int = 0  # shards the server answered
    elapsed_ms: float = 0.0
    skipped: str = ""  # why nothing was sent
    errors: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "sent": self.sent,
            "warmed": self.warmed,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "skipped": self.skipped,
            "errors": list(self.errors),
        }

    def line(self) -> str:
        if self.skipped:
            return f"{self.store}: not warmed — {self.skipped}"
        head = f"{self.store}: warmed {self.warmed}/{self.sent} shard(s) in {self.elapsed_ms / 1000:.1f} s"
        return head + (f" — {self.errors[0]}" if self.errors else "")


def warm_messages(reg: Registry, name: str) -> list[list[dict[str, str]]]:
    """The messages of a warm-up, one list per index shard: exactly the system message a
    recall sends, then the warm-up question."""
    from .recall import _prepared, pick_messages  # the recall's own prompt, cut the same way

    store = reg.store(name)
    idx = store.index()
    shard_tokens = reg.config.stores[name].recall.shard_tokens
    _, valid, shards = _prepared(reg, name, store, idx, shard_tokens)
    if not valid:
        return []
    charter = preamble(store)
    return [pick_messages(charter, s, WARM_QUESTION, 1) for s in shards]


def warm(reg: Registry, selector: str | None, *, timeout: float = WARM_TIMEOUT_S) -> WarmReport:
    """Send the store's recall prefix to its thinker; never raises because the model failed."""
    from .recall import _thinker_plan

    name = reg.resolve(selector)
    store = reg.store(name)
    models = reg.models(name)
    spec = models.spec("thinker")
    if spec is None:
        return WarmReport(name, skipped="no thinker is configured")
    ask, _weak, why = _thinker_plan(reg, name, store, models)
    if not ask:
        return WarmReport(name, skipped=why)
    try:
        prompts = warm_messages(reg, name)
    except KuraError as exc:
        return WarmReport(name, skipped=str(exc))
    if not prompts:
        return WarmReport(name, skipped="the index is empty")
    t0 = time.perf_counter()
    errors, warmed = [], 0
    for msgs in prompts:
        err = _send(spec, msgs, reg.env, timeout)
        if err:
            errors.append(err)
        else:
            warmed += 1
    ms = (time.perf_counter() - t0) * 1000
    return WarmReport(name, len(prompts), warmed, ms, errors=tuple(errors))


def _send(spec: Any, msgs: list[dict[str, str]], env: Any, timeout: float) -> str:
    """One warm-up request; '' when the server answered 2xx, else why not."""
    from .llm import TASK_HEADER, _is_loopback, httpx

    headers = {"Content-Type": "application/json", "User-Agent": "kura", TASK_HEADER: TASK}
    if spec.api_key_env:
        key = ((env if env is not None else os.environ).get(spec.api_key_env) or "").strip()
        if not key:
            return f"api key variable {spec.api_key_env} is not set"
        headers["Authorization"] = f"Bearer {key}"
    body = {"model": spec.model, "messages": msgs, "max_tokens": 1, "temperature": 0}
    try:
        with httpx.Client(trust_env=not _is_loopback(spec.url), follow_redirects=False) as client:
            r = client.post(spec.endpoint, json=body, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        return f"timed out after {timeout:g}s"
    except httpx.HTTPError as exc:
        return f"cannot reach {spec.url}: {str(exc)[:120] or type(exc).__name__}"
    if not 200 <= r.status_code < 300:
        return f"HTTP {r.status_code}: {' '.join(r.text.split())[:160]}"
    return ""
