"""The one model client: every chat completion kura sends goes through here.

One place for dialects, the plain-body retry, timeouts, reply parsing, schema checks and
failure reasons. A failed call never turns into a silent ``None``: it raises
``ModelUnavailable`` with a short reason a person can act on and a ``kind`` code can branch
on (:data:`kura_core.errors.MODEL_FAILURE_KINDS`); the reason is kept in ``status()`` for
doctor, ``/stores`` and the TUI, and both are in every failed :class:`CallRecord`.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit


def _import_httpx():
    """Import httpx without its command-line tool.

    ``httpx/__init__`` imports ``httpx._main`` whenever rich is installed, which would pull
    rich and pygments into every headless process. A ``None`` entry in ``sys.modules`` makes
    that optional import fail the way httpx expects; the entry is removed afterwards.
    """
    if "httpx" in sys.modules:
        return sys.modules["httpx"]
    blocked = "httpx._main" not in sys.modules
    if blocked:
        sys.modules["httpx._main"] = None
    try:
        import httpx as module
    finally:
        if blocked and sys.modules.get("httpx._main", 0) is None:
            del sys.modules["httpx._main"]
    return module


if TYPE_CHECKING:
    import httpx
else:
    httpx = _import_httpx()

import contextlib

from .errors import ModelFailureKind, ModelUnavailable

ROLES = ("thinker", "brain", "scribe")
#: Default seconds each role may take. The thinker answers recall in seconds (recall falls
#: back to words past it); the brain and the scribe may be a slow local model, and wait.
ROLE_TIMEOUTS = {"thinker": 60.0, "brain": 3600.0, "scribe": 3600.0}
DIALECTS = ("vllm", "openai", "generic")

#: Header naming the task on every request. Real servers ignore it; the scripted test
#: server uses it to recognise a plain retry, which carries no ``response_format``.
TASK_HEADER = "X-Kura-Task"

_BODY_EXCERPT = 200
_KEEP_RECORDS = 256


@dataclass(frozen=True)
class ModelSpec:
    """Everything needed to talk to one role's model.

    ``api_key_env`` names the environment variable holding the key; the key itself is never
    stored here, so a spec can be printed, logged or shown in doctor safely.
    """

    url: str
    model: str
    api_key_env: str = ""
    timeout: float = 60.0
    temperature: float = 0.2
    effort: str = "low"
    thinking: bool = False
    dialect: str = "vllm"
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.dialect not in DIALECTS:
            raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {self.dialect!r}")
        if not self.timeout or self.timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {self.timeout!r}")
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra or {})))

    @property
    def endpoint(self) -> str:
        return f"{self.url.rstrip('/')}/chat/completions"


@dataclass(frozen=True)
class CallRecord:
    """One model call, successful or not. ``reason`` and ``kind`` (one of
    :data:`kura_core.errors.MODEL_FAILURE_KINDS`) are empty when ``ok``."""

    role: str
    task: str
    ok: bool
    reason: str
    elapsed_ms: float
    at: float
    url: str
    model: str
    kind: str = ""


# ---------------------------------------------------------------------------------------
# request bodies


def build_body(spec: ModelSpec, task: str, messages: list[dict], schema: dict) -> dict:
    """The first-attempt body for ``spec.dialect``.

    * ``vllm`` sends every reasoning knob at once (``reasoning_effort``,
      ``thinking_effort``, ``chat_template_kwargs.enable_thinking``/``thinking``) because
      model families each read a different one and ignore the rest; ``extra`` is merged
      last (one level deep for dict values such as ``chat_template_kwargs``).
    * ``openai`` sends model, messages, temperature, response_format and, when ``effort``
      is non-empty, ``reasoning_effort``: OpenAI-style services understand it. A service
      that rejects it answers 400 and the plain retry follows.
    * ``generic`` sends only model, messages, temperature and response_format.
    """
    body: dict[str, Any] = {
        "model": spec.model,
        "messages": messages,
        "temperature": spec.temperature,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": task, "schema": schema, "strict": False},
        },
    }
    if spec.dialect == "vllm":
        if spec.effort:
            body["reasoning_effort"] = spec.effort
            body["thinking_effort"] = spec.effort
        body["chat_template_kwargs"] = {
            "enable_thinking": spec.thinking,
            "thinking": spec.thinking,
        }
        for key, value in spec.extra.items():
            if isinstance(value, Mapping) and isinstance(body.get(key), dict):
                body[key] = {**body[key], **value}
            else:
                body[key] = value
    elif spec.dialect == "openai" and spec.effort:
        body["reasoning_effort"] = spec.effort
    return body


def plain_body(spec: ModelSpec, messages: list[dict]) -> dict:
    """The retry body after a 400: model and messages, nothing a strict service can refuse."""
    return {"model": spec.model, "messages": messages}


# ---------------------------------------------------------------------------------------
# reply parsing and validation

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n?(.*?)```", re.DOTALL)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def _strip_think(text: str) -> str:
    """*text* without its ``<think>…</think>`` blocks. Each block ends at the first closer
    after its opener; an opener with no closer after it ends the search (no later one has
    one either), so an unclosed tag costs one pass, not one pass per tag."""
    out, pos = [], 0
    while (a := _THINK_OPEN.search(text, pos)) and (b := _THINK_CLOSE.search(text, a.end())):
        out.append(text[pos : a.start()])
        pos = b.end()
    out.append(text[pos:])
    return "".join(out)


def _snippet(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_json_reply(text: str) -> dict:
    """The one JSON object in a model reply.

    Accepts the bare object, a fenced block (```json … ``` or plain ```), and prose before
    or after one object. A ``<think>…</think>`` preamble is ignored. Raises ``ValueError``
    with a short reason when no object can be read.
    """
    if text is None:
        raise ValueError("empty content")
    stripped = _strip_think(text).strip()
    if not stripped:
        raise ValueError("empty content")

    first_kind: str | None = None
    try:
        value = json.loads(stripped)
    except ValueError:
        pass
    else:
        if isinstance(value, dict):
            return value
        first_kind = _json_kind(value)

    for match in _FENCE.finditer(stripped):
        inner = match.group(2).strip()
        try:
            value = json.loads(inner)
        except ValueError:
            found = _first_object(inner)
            if found is not None:
                return found
            continue
        if isinstance(value, dict):
            return value
        first_kind = first_kind or _json_kind(value)

    found = _first_object(stripped)
    if found is not None:
        return found
    if first_kind is not None:
        raise ValueError(f"expected a JSON object, got {first_kind}")
    raise ValueError(f"no JSON object in {_snippet(stripped)!r}")


def _first_object(text: str) -> dict | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _end = decoder.raw_decode(text, start)
        except ValueError:
            pass
        else:
            if isinstance(value, dict):
                return value
        start = text.find("{", start + 1)
    return None


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_type(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "null":
        return value is None
    return True


def validate(obj: Any, schema: Mapping[str, Any], path: str = "reply") -> list[str]:
    """Errors found checking ``obj`` against a small JSON Schema subset.

    Understood: ``type`` (a name or a list of names), ``properties``, ``required``,
    ``items``, ``enum`` and ``anyOf``. Other keywords are ignored and extra fields are
    allowed. An empty list means the object fits.
    """
    errors: list[str] = []
    _check(obj, schema or {}, path, errors)
    return errors


def _check(value: Any, schema: Mapping[str, Any], path: str, errors: list[str]) -> None:
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if not any(_is_type(value, k) for k in kinds):
            errors.append(f"{path} should be {' or '.join(kinds)}, got {_json_kind(value)}")
            return
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(v) for v in schema["enum"])
        errors.append(f"{path} should be one of {allowed}, got {_snippet(json.dumps(value), 40)}")
    if "anyOf" in schema and not any(
        not validate(value, option, path) for option in schema["anyOf"]
    ):
        errors.append(f"{path} matches none of the allowed shapes")
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                errors.append(f"{path}.{name} is missing")
        for name, sub in (schema.get("properties") or {}).items():
            if name in value and isinstance(sub, Mapping):
                _check(value[name], sub, f"{path}.{name}", errors)
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", errors)


# ---------------------------------------------------------------------------------------
# the client


class _Failure(Exception):
    """Internal: carries a finished reason and its kind up to the recording code."""

    def __init__(self, reason: str, kind: ModelFailureKind) -> None:
        super().__init__(reason)
        self.kind = kind


def _is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _seconds(value: float) -> str:
    return f"{value:g}"


def _refused(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        current = current.__cause__ or current.__context__
    text = str(exc).lower()
    return "refused" in text or "errno 111" in text or "errno 61" in text


class ModelClient:
    """Sends chat completions for the roles it was given, and remembers how they went.

    Thread-safe: recall asks shards from several threads at once. One ``httpx.Client``
    with keep-alive is kept per base URL.
    """

    def __init__(
        self,
        roles: Mapping[str, ModelSpec | None],
        *,
        env: Mapping[str, str] | None = None,
        recorder: Callable[[CallRecord], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._specs: dict[str, ModelSpec] = {
            role: spec for role, spec in dict(roles).items() if spec is not None
        }
        self._env = env
        self._recorder = recorder
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: dict[str, httpx.Client] = {}
        self._records: deque[CallRecord] = deque(maxlen=_KEEP_RECORDS)
        names = list(ROLES) + [r for r in dict(roles) if r not in ROLES]
        self._status: dict[str, dict[str, Any]] = {role: self._fresh_status(role) for role in names}

    # -- introspection -------------------------------------------------------------------

    def configured(self, role: str) -> bool:
        return role in self._specs

    def spec(self, role: str) -> ModelSpec | None:
        return self._specs.get(role)

    def status(self) -> dict[str, dict[str, Any]]:
        """Per role: configured, url, model, dialect, calls, failures, last_ok_at,
        last_error, last_error_at."""
        with self._lock:
            return {role: dict(entry) for role, entry in self._status.items()}

    def records(self) -> list[CallRecord]:
        """The most recent calls, oldest first (a bounded window)."""
        with self._lock:
            return list(self._records)

    def _fresh_status(self, role: str) -> dict[str, Any]:
        spec = self._specs.get(role)
        return {
            "configured": spec is not None,
            "url": spec.url if spec else "",
            "model": spec.model if spec else "",
            "dialect": spec.dialect if spec else "",
            "calls": 0,
            "failures": 0,
            "last_ok_at": None,
            "last_error": "",
            "last_error_at": None,
        }

    # -- lifecycle -----------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            clients = list(self._clients.values())
            self._clients.clear()
        for client in clients:
            client.close()

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _client(self, spec: ModelSpec) -> httpx.Client:
        key = spec.url.rstrip("/")
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = httpx.Client(
                    limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
                    # A proxy set for the internet must not swallow a model on this machine.
                    trust_env=not _is_loopback(key),
                    follow_redirects=False,
                )
                self._clients[key] = client
            return client

    # -- calls ---------------------------------------------------------------------------

    def ask(
        self,
        role: str,
        task: str,
        messages: list[dict],
        schema: dict,
        *,
        timeout: float | None = None,
    ) -> dict:
        """Ask ``role`` for a JSON object fitting ``schema``; raise ``ModelUnavailable``
        with a short reason when that does not happen."""
        spec = self._specs.get(role)
        started = time.perf_counter()
        at = self._clock()
        secret = ""
        try:
            if spec is None:
                raise _Failure(f"{role} is not configured", "unconfigured")
            headers, secret = self._headers(spec, task)
            budget = float(timeout if timeout is not None else spec.timeout)
            deadline = time.monotonic() + budget
            client = self._client(spec)
            body = build_body(spec, task, messages, schema)
            response = self._send(
                client, "POST", spec, spec.endpoint, headers, body, budget, budget
            )
            if response.status_code == 400:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Failure(f"timed out after {_seconds(budget)}s", "timeout")
                response = self._send(
                    client,
                    "POST",
                    spec,
                    spec.endpoint,
                    headers,
                    plain_body(spec, messages),
                    remaining,
                    budget,
                )
            if not 200 <= response.status_code < 300:
                raise _Failure(self._http_reason(response, secret), "http_status")
            result = self._read_reply(response, task, schema)
        except _Failure as failure:
            reason = self._redact(str(failure), secret)
            self._record(role, task, False, reason, started, at, spec, failure.kind)
            raise ModelUnavailable(reason, kind=failure.kind) from None
        self._record(role, task, True, "", started, at, spec)
        return result

    def probe(self, role: str, timeout: float = 2.0) -> tuple[bool, str]:
        """Cheap reachability check: GET ``{url}/models``. Recorded as task ``probe``."""
        spec = self._specs.get(role)
        started = time.perf_counter()
        at = self._clock()
        secret = ""
        try:
            if spec is None:
                raise _Failure(f"{role} is not configured", "unconfigured")
            headers, secret = self._headers(spec, "probe")
            url = f"{spec.url.rstrip('/')}/models"
            response = self._send(
                self._client(spec), "GET", spec, url, headers, None, timeout, timeout
            )
            if not 200 <= response.status_code < 300:
                raise _Failure(self._http_reason(response, secret), "http_status")
        except _Failure as failure:
            reason = self._redact(str(failure), secret)
            self._record(role, "probe", False, reason, started, at, spec, failure.kind)
            return False, reason
        self._record(role, "probe", True, "", started, at, spec)
        return True, "reachable"

    # -- pieces --------------------------------------------------------------------------

    def _headers(self, spec: ModelSpec, task: str) -> tuple[dict[str, str], str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "kura",
            TASK_HEADER: task,
        }
        secret = ""
        if spec.api_key_env:
            env = self._env if self._env is not None else os.environ
            secret = (env.get(spec.api_key_env) or "").strip()
            if not secret:
                raise _Failure(f"api key variable {spec.api_key_env} is not set", "unconfigured")
            headers["Authorization"] = f"Bearer {secret}"
        return headers, secret

    def _send(
        self,
        client: httpx.Client,
        method: str,
        spec: ModelSpec,
        url: str,
        headers: dict[str, str],
        body: dict | None,
        seconds: float,
        budget: float,
    ) -> httpx.Response:
        limit = httpx.Timeout(seconds, connect=min(5.0, seconds))
        try:
            if body is None:
                return client.request(method, url, headers=headers, timeout=limit)
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
            return client.request(method, url, headers=headers, content=content, timeout=limit)
        except httpx.TimeoutException:
            raise _Failure(f"timed out after {_seconds(budget)}s", "timeout") from None
        except httpx.ConnectError as exc:
            if _refused(exc):
                raise _Failure(f"connection refused at {spec.url}", "connect") from None
            raise _Failure(
                f"cannot connect to {spec.url}: {_snippet(str(exc), 120)}", "connect"
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
            raise _Failure(f"connection dropped by {spec.url} without a reply", "dropped") from None
        except httpx.HTTPError as exc:
            raise _Failure(
                f"cannot reach {spec.url}: {_snippet(str(exc) or type(exc).__name__, 120)}",
                "connect",
            ) from None

    @staticmethod
    def _http_reason(response: httpx.Response, secret: str = "") -> str:
        try:
            text = response.text
        except Exception:
            text = ""
        if secret:
            text = text.replace(secret, "***")
        excerpt = " ".join(text.split())[:_BODY_EXCERPT]
        return (
            f"HTTP {response.status_code}: {excerpt}" if excerpt else f"HTTP {response.status_code}"
        )

    @staticmethod
    def _read_reply(response: httpx.Response, task: str, schema: dict) -> dict:
        try:
            payload = response.json()
        except ValueError:
            raise _Failure(
                f"unparseable reply: response is not JSON ({_snippet(response.text)!r})",
                "unparseable",
            ) from None
        try:
            message = payload["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise _Failure(
                "unparseable reply: no choices[0].message in the response", "unparseable"
            ) from None
        if not isinstance(message, dict):
            raise _Failure("unparseable reply: choices[0].message is not an object", "unparseable")
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if content is not None and not isinstance(content, str):
            raise _Failure(
                f"unparseable reply: content is {_json_kind(content)}, not text", "unparseable"
            )
        if not (content or "").strip():
            if message.get("reasoning_content") or message.get("reasoning"):
                raise _Failure("reasoning-only reply with empty content", "reasoning_only")
            raise _Failure("unparseable reply: empty content", "unparseable")
        try:
            result = parse_json_reply(content or "")
        except ValueError as exc:
            raise _Failure(f"unparseable reply: {exc}", "unparseable") from None
        problems = validate(result, schema)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise _Failure(f"reply does not fit {task}: {problems[0]}{more}", "schema")
        return result

    @staticmethod
    def _redact(reason: str, secret: str) -> str:
        if secret and secret in reason:
            reason = reason.replace(secret, "***")
        return reason

    def _record(
        self,
        role: str,
        task: str,
        ok: bool,
        reason: str,
        started: float,
        at: float,
        spec: ModelSpec | None,
        kind: str = "",
    ) -> None:
        record = CallRecord(
            role=role,
            task=task,
            ok=ok,
            reason=reason,
            elapsed_ms=(time.perf_counter() - started) * 1000.0,
            at=at,
            url=spec.url if spec else "",
            model=spec.model if spec else "",
            kind=kind,
        )
        with self._lock:
            self._records.append(record)
            entry = self._status.get(role)
            if entry is None:
                entry = self._status[role] = self._fresh_status(role)
            entry["calls"] += 1
            if ok:
                entry["last_ok_at"] = at
            else:
                entry["failures"] += 1
                entry["last_error"] = reason
                entry["last_error_at"] = at
        if self._recorder is not None:
            with contextlib.suppress(Exception):
                self._recorder(record)
