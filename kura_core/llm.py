"""The one model client: every chat completion kura sends goes through here.

One place for dialects, the structured-output shape each endpoint accepts (learnt from its
own refusals and remembered), the bare retry, ``max_tokens`` and the wall-clock deadline of
every call, reply parsing, schema checks and failure reasons. A failed call never turns
into a silent ``None``: it raises ``ModelUnavailable`` with a short reason a person can act
on and a ``kind`` code can branch on (:data:`kura_core.errors.MODEL_FAILURE_KINDS`); the
reason is kept in ``status()`` for doctor, ``/stores`` and the TUI, and both are in every
failed :class:`CallRecord`.
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol
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
#: Default wall-clock deadline, in seconds, of one call in each role. The thinker answers
#: recall in seconds (recall falls back to words past it); the brain and the scribe may be a
#: slow local model on a CPU, and wait longer, but never without end: with ``max_tokens``
#: bounding the reply, a call past these has gone wrong.
ROLE_TIMEOUTS = {"thinker": 60.0, "brain": 1800.0, "scribe": 900.0}
DIALECTS = ("vllm", "openai", "generic")

#: The ways of asking for JSON, most structured first. A server that refuses one (an error
#: that names ``response_format`` or the shape) is asked again at once in the next, and the
#: shape that worked is remembered for its endpoint.
#:
#: * ``json_schema``: ``{"type": "json_schema", "json_schema": {"name", "schema"}}`` (OpenAI,
#:   vLLM, llama.cpp's llama-server since late 2024, LM Studio, ollama);
#: * ``json_object_schema``: ``{"type": "json_object", "schema": {...}}``, the schema beside the
#:   type (llama-cpp-python and llama-server enforce it by grammar);
#: * ``json_object``: ``{"type": "json_object"}``, any JSON object;
#: * ``plain``: no ``response_format``; the schema is described in the prompt.
SHAPES = ("json_schema", "json_object_schema", "json_object", "plain")

#: Default ``max_tokens`` per task: what that task's answer needs, with room to spare. A
#: model that loops stops here instead of filling its context.
TASK_MAX_TOKENS = {
    "kura_pick": 256,
    "kura_candidates": 2048,
    "kura_seed_check": 384,
    "kura_compose": 1024,
    "kura_judge": 384,
    "kura_trigger": 160,
    "kura_tidy": 1024,
    "kura_profile": 768,
    "kura_probe": 32,
}
#: ``max_tokens`` for a task not named above, by role.
ROLE_MAX_TOKENS = {"thinker": 256, "brain": 2048, "scribe": 512}
#: The most bytes of one reply kura reads; a server that sends more is cut off.
MAX_REPLY_BYTES = 8 * 1024 * 1024

PROBE_TASK = "kura_probe"
#: The longest a probe waits for one role (its own deadline when that is shorter): a tiny
#: request answers in seconds even on a CPU; a server that hangs is reported, not waited out.
PROBE_SECONDS = 60.0
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}

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
    #: ``max_tokens`` for every task of this role; None: each task's own default.
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.dialect not in DIALECTS:
            raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {self.dialect!r}")
        if not self.timeout or self.timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {self.timeout!r}")
        if self.max_tokens is not None and (
            isinstance(self.max_tokens, bool)
            or not isinstance(self.max_tokens, int)
            or self.max_tokens <= 0
        ):
            raise ValueError(f"max_tokens must be a positive whole number, not {self.max_tokens!r}")
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


def max_tokens_for(spec: ModelSpec, role: str, task: str) -> int:
    """The ``max_tokens`` a call of *task* in *role* carries: the role's own setting, else
    the task's default, else the role's."""
    if spec.max_tokens is not None:
        return spec.max_tokens
    return TASK_MAX_TOKENS.get(task, ROLE_MAX_TOKENS.get(role, 512))


def schema_note(schema: Mapping[str, Any]) -> str:
    """The words added to the last message when the server cannot be given the schema."""
    return (
        "\n\nAnswer with one JSON object and nothing else. It must fit this JSON Schema:\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def _with_schema_note(messages: list[dict], schema: Mapping[str, Any]) -> list[dict]:
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            message["content"] = message["content"] + schema_note(schema)
            return out
    out.append({"role": "user", "content": schema_note(schema).strip()})
    return out


def response_format(shape: str, task: str, schema: Mapping[str, Any]) -> dict | None:
    """The ``response_format`` of *shape* (one of :data:`SHAPES`); None for ``plain``."""
    if shape == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": task, "schema": schema, "strict": False},
        }
    if shape == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if shape == "json_object":
        return {"type": "json_object"}
    if shape == "plain":
        return None
    raise ValueError(f"shape must be one of {', '.join(SHAPES)}, not {shape!r}")


def build_body(
    spec: ModelSpec,
    task: str,
    messages: list[dict],
    schema: dict,
    *,
    shape: str = "json_schema",
    max_tokens: int | None = None,
    bare: bool = False,
    tokens_key: str = "max_tokens",
) -> dict:
    """The body of one request for ``spec.dialect``, in *shape* (one of :data:`SHAPES`).

    * ``vllm`` sends every reasoning knob at once (``reasoning_effort``,
      ``thinking_effort``, ``chat_template_kwargs.enable_thinking``/``thinking``) because
      model families each read a different one and ignore the rest; ``extra`` is merged
      last (one level deep for dict values such as ``chat_template_kwargs``).
    * ``openai`` sends model, messages, temperature, response_format and, when ``effort``
      is non-empty, ``reasoning_effort``: OpenAI-style services understand it.
    * ``generic`` sends only model, messages, temperature and response_format.

    Every body carries ``max_tokens`` when given. *bare* (after a 400 that names nothing)
    keeps only model, messages, max_tokens and the shape. The shapes that cannot carry the
    schema (``json_object``, ``plain``) describe it at the end of the last user message.
    """
    if shape in ("json_object", "plain"):
        messages = _with_schema_note(messages, schema)
    body: dict[str, Any] = {"model": spec.model, "messages": messages}
    if not bare:
        body["temperature"] = spec.temperature
    if max_tokens is not None:
        body[tokens_key] = max_tokens
    fmt = response_format(shape, task, schema)
    if fmt is not None:
        body["response_format"] = fmt
    if bare:
        return body
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
    """The most conservative body: model and messages, nothing a strict service can refuse."""
    return {"model": spec.model, "messages": messages}


#: Words in an error body that say the server refused the way kura asked for JSON.
_SHAPE_WORDS = re.compile(
    r"response_format|responseformat|response format|json_schema|json_object|json schema"
    r"|structured output|guided_json|grammar",
    re.IGNORECASE,
)


def names_the_shape(status: int, body: str) -> bool:
    """Whether an HTTP answer refuses the request's structured-output shape: any 4xx or 5xx
    whose body names ``response_format``, a shape, or the schema machinery behind it."""
    return status >= 400 and bool(_SHAPE_WORDS.search(body[:4000]))


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

    def __init__(self, reason: str, kind: ModelFailureKind, tried: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.kind = kind
        self.tried = tried


@dataclass
class _Answer:
    """One HTTP answer, read whole within the call's deadline."""

    status: int
    text: str
    shape: str = "json_schema"
    tried: tuple[str, ...] = ()


class DialectMemory(Protocol):
    """Where a client keeps what it learnt about each endpoint across runs (the workshop is
    one). Both methods may raise; the client then carries on with what it knows."""

    def learnt_dialect(self, key: str) -> Mapping[str, Any] | None: ...

    def learn_dialect(self, key: str, value: Mapping[str, Any]) -> None: ...


@dataclass(frozen=True)
class ProbeResult:
    """What one tiny real request in a role's shape brought back."""

    role: str
    ok: bool
    shape: str = ""
    latency_ms: float = 0.0
    reason: str = ""
    #: the server's refusals on the way, ``shape: HTTP code: body``, first first
    tried: tuple[str, ...] = ()
    max_tokens: int = 0

    @property
    def summary(self) -> str:
        took = f"{self.latency_ms / 1000:.1f}s" if self.latency_ms >= 100 else "<0.1s"
        if self.ok:
            return f"answers in {self.shape} ({took})"
        return self.reason

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "shape": self.shape or None,
            "latency_ms": round(self.latency_ms, 1),
            "reason": self.reason or None,
            "tried": list(self.tried),
            "max_tokens": self.max_tokens,
        }


def probe_line(
    ok: bool | None, reason: str | None, shape: str | None, refused: Sequence[str] = ()
) -> str:
    """How a role's endpoint is shown to a person (doctor, ``kura stores``, the app): what
    the probe brought back -- the shape that works and its time, or the failure with the
    server's own words -- and the first refusal on the way; unprobed, the shape learnt."""
    if ok is None:
        return f"asks in {shape}" if shape else ""
    if not ok:
        return f"fails: {reason}"
    text = reason or f"answers in {shape}"
    if refused:
        text += f"; refused first: {refused[0]}"
    return text


#: What each role is asked when probed: a tiny request in the role's own shape.
PROBES: dict[str, tuple[str, dict]] = {
    "thinker": (
        "Memories:\n- deploy-freeze: no deploys on Friday\n- tabs: the team uses tabs\n"
        "Question: can we deploy on Friday? Name the memory slugs that answer it.",
        {
            "type": "object",
            "properties": {"slugs": {"type": "array", "items": {"type": "string"}}},
            "required": ["slugs"],
        },
    ),
    "brain": (
        "Evidence:\n[USER] we never deploy on Fridays\nPropose what is worth remembering "
        "as candidates with a kind, a title and quotes.",
        {
            "type": "object",
            "properties": {"candidates": {"type": "array", "items": {"type": "object"}}},
            "required": ["candidates"],
        },
    ),
    "scribe": (
        "Draft: 'No deploys on Friday.' Quote: 'we never deploy on Fridays'. Give a verdict "
        "(keep or drop) and a short reason.",
        {
            "type": "object",
            "properties": {"verdict": {"type": "string"}, "reason": {"type": "string"}},
            "required": ["verdict"],
        },
    ),
}


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


class Way(NamedTuple):
    """How one endpoint is asked: the structured-output shape, whether the body is bare
    (no reasoning knobs, no temperature), and the name of the reply bound."""

    shape: str = "json_schema"
    bare: bool = False
    tokens: str = "max_tokens"


#: The names of the reply bound: OpenAI's newer models refuse ``max_tokens`` and read
#: ``max_completion_tokens``; every local server reads ``max_tokens``.
TOKEN_KEYS = ("max_tokens", "max_completion_tokens")
FIRST_WAY = Way()


def _next_try(way: Way, answer: _Answer) -> Way | None:
    """Where to go after a refusal: the other name of the reply bound when the server asks
    for it, the next shape when it named the shape, the bare body after a 400 that names
    nothing, then the plain bare body; None when the refusal is not about how kura asked."""
    if answer.status == 400 and way.tokens == TOKEN_KEYS[0] and TOKEN_KEYS[1] in answer.text[:4000]:
        return way._replace(tokens=TOKEN_KEYS[1])
    index = SHAPES.index(way.shape)
    if names_the_shape(answer.status, answer.text) and index + 1 < len(SHAPES):
        return way._replace(shape=SHAPES[index + 1])
    if answer.status == 400 and not way.bare:
        return way._replace(bare=True)
    if answer.status == 400 and way.shape != "plain":
        return way._replace(shape="plain")
    return None


def _read_within(response: httpx.Response, deadline: float, budget: float) -> str:
    """The body of *response*, read by *deadline* and at most :data:`MAX_REPLY_BYTES`."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if time.monotonic() > deadline:
            raise _Failure(f"timed out after {_seconds(budget)}s", "timeout")
        if size > MAX_REPLY_BYTES:
            raise _Failure(
                f"unparseable reply: longer than {MAX_REPLY_BYTES // (1024 * 1024)} MB",
                "unparseable",
            )
    return b"".join(chunks).decode("utf-8", errors="replace")


#: The key a salvaged reply carries: where it was cut (see ``ModelClient.ask``'s *salvage*).
CUT_OFF_KEY = "_cut_off"


def salvage_items(text: str, key: str) -> list[Any]:
    """The items of the JSON list under *key* that were written whole before *text* was cut
    off; empty when there is no such list. One pass: each item is decoded once."""
    start = text.find(f'"{key}"')
    if start == -1:
        return []
    pos = start + len(key) + 2
    while pos < len(text) and text[pos] in " \t\r\n:":
        pos += 1
    if pos >= len(text) or text[pos] != "[":
        return []
    pos += 1
    decoder = json.JSONDecoder()
    items: list[Any] = []
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            item, pos = decoder.raw_decode(text, pos)
        except ValueError:
            break
        items.append(item)
    return items


def _whole_json(content: str) -> bool:
    """Whether *content* (without its thinking) is one whole JSON value."""
    try:
        json.loads(_strip_think(content).strip())
    except ValueError:
        return False
    return True


def _salvaged(content: str, key: str | None, schema: dict, cut: str) -> dict:
    """The whole items of a reply cut off mid-list, or the cut-off failure."""
    if not key:
        raise _Failure(cut, "cut_off")
    result: dict[str, Any] = {key: salvage_items(_strip_think(content), key), CUT_OFF_KEY: cut}
    if not result[key] or validate(result, schema):
        raise _Failure(cut, "cut_off")
    return result


def _cut_off(payload: Any, choice: Any, limit: int) -> str:
    """ "cut off at N tokens" when the reply stopped at its token limit, else ""."""
    if not isinstance(choice, dict) or choice.get("finish_reason") != "length":
        return ""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    used = usage.get("completion_tokens") if isinstance(usage, dict) else None
    count = used if isinstance(used, int) and not isinstance(used, bool) and used > 0 else limit
    if not count:
        return "cut off at the token limit before the answer was complete"
    return f"cut off at {count} tokens before the answer was complete"


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
        dialects: DialectMemory | None = None,
    ) -> None:
        self._dialects = dialects
        self._learnt: dict[str, Way] = {}
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
            "shape": "",
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

    # -- what each endpoint accepts --------------------------------------------------

    @staticmethod
    def endpoint_key(spec: ModelSpec) -> str:
        """The key a learnt dialect is kept under: the base URL and the model."""
        return f"{spec.url.rstrip('/')} {spec.model}"

    def learnt(self, spec: ModelSpec) -> Way:
        """How to ask *spec*'s endpoint: what was learnt in this process, else in an earlier
        run, else the most structured shape with every knob and ``max_tokens``."""
        key = self.endpoint_key(spec)
        with self._lock:
            known = self._learnt.get(key)
        if known is not None:
            return known
        found = FIRST_WAY
        if self._dialects is not None:
            try:
                kept = self._dialects.learnt_dialect(key)
            except Exception:
                kept = None
            if kept and kept.get("shape") in SHAPES:
                tokens = kept.get("tokens")
                found = Way(
                    str(kept["shape"]),
                    bool(kept.get("bare")),
                    tokens if tokens in TOKEN_KEYS else TOKEN_KEYS[0],
                )
        with self._lock:
            self._learnt.setdefault(key, found)
            return self._learnt[key]

    def _note_shape(self, spec: ModelSpec, shape: str) -> None:
        key = self.endpoint_key(spec)
        with self._lock:
            for role, entry in self._status.items():
                other = self._specs.get(role)
                if other is not None and self.endpoint_key(other) == key:
                    entry["shape"] = shape

    def _learn(self, spec: ModelSpec, way: Way, tried: tuple[str, ...]) -> None:
        key = self.endpoint_key(spec)
        with self._lock:
            changed = self._learnt.get(key) != way
            self._learnt[key] = way
        self._note_shape(spec, way.shape)
        if changed and self._dialects is not None:
            value = {
                "shape": way.shape,
                "bare": way.bare,
                "tokens": way.tokens,
                "at": self._clock(),
                "refused": list(tried),
            }
            with contextlib.suppress(Exception):
                self._dialects.learn_dialect(key, value)

    # -- calls ---------------------------------------------------------------------------

    def ask(
        self,
        role: str,
        task: str,
        messages: list[dict],
        schema: dict,
        *,
        timeout: float | None = None,
        max_tokens: int | None = None,
        check: dict | None = None,
        salvage: str | None = None,
    ) -> dict:
        """Ask ``role`` for a JSON object fitting ``schema``; raise ``ModelUnavailable``
        with a short reason when that does not happen. With *check*, the reply is held to
        that looser schema instead (the server is still given ``schema``): a caller that
        judges each item of a list on its own asks so, and one bad item sinks only itself.
        With *salvage* (the key of a list), a reply cut off at its ``max_tokens`` mid-list
        gives the items written whole before the cut, and :data:`CUT_OFF_KEY` says where it
        was cut (a model that repeats one item until its bound loses only the repeats).

        The call carries ``max_tokens`` (*max_tokens*, else :func:`max_tokens_for`) and
        ends by its deadline (*timeout*, else the role's): past it the connection is
        closed, so the server can drop the work and the next call does not queue behind it.
        """
        spec = self._specs.get(role)
        started = time.perf_counter()
        at = self._clock()
        secret = ""
        try:
            if spec is None:
                raise _Failure(f"{role} is not configured", "unconfigured")
            headers, secret = self._headers(spec, task)
            budget = float(timeout if timeout is not None else spec.timeout)
            limit = max_tokens if max_tokens is not None else max_tokens_for(spec, role, task)
            answer = self._exchange(spec, task, messages, schema, headers, secret, budget, limit)
            result = self._read_reply(
                answer, task, schema if check is None else check, limit, salvage
            )
        except _Failure as failure:
            reason = self._redact(str(failure), secret)
            self._record(role, task, False, reason, started, at, spec, failure.kind)
            raise ModelUnavailable(reason, kind=failure.kind) from None
        self._record(role, task, True, "", started, at, spec)
        return result

    def check(self, role: str, timeout: float | None = None) -> ProbeResult:
        """Send *role* one tiny real request in its own shape, learning afresh which
        structured-output shape its endpoint accepts. Recorded as task ``probe``."""
        spec = self._specs.get(role)
        started = time.perf_counter()
        at = self._clock()
        secret = ""
        instructions, schema = PROBES.get(role, PROBES["scribe"])
        limit = TASK_MAX_TOKENS[PROBE_TASK] * 4
        try:
            if spec is None:
                raise _Failure(f"{role} is not configured", "unconfigured")
            headers, secret = self._headers(spec, PROBE_TASK)
            budget = float(timeout if timeout is not None else min(spec.timeout, PROBE_SECONDS))
            messages = [
                {"role": "system", "content": "Answer with one JSON object."},
                {"role": "user", "content": instructions},
            ]
            answer = self._exchange(
                spec, PROBE_TASK, messages, schema, headers, secret, budget, limit, fresh=True
            )
            self._read_reply(answer, PROBE_TASK, schema, limit)
        except _Failure as failure:
            reason = self._redact(str(failure), secret)
            self._record(role, "probe", False, reason, started, at, spec, failure.kind)
            return ProbeResult(
                role,
                False,
                latency_ms=(time.perf_counter() - started) * 1000.0,
                reason=reason,
                tried=tuple(self._redact(t, secret) for t in failure.tried),
                max_tokens=limit,
            )
        self._record(role, "probe", True, "", started, at, spec)
        return ProbeResult(
            role,
            True,
            shape=answer.shape,
            latency_ms=(time.perf_counter() - started) * 1000.0,
            tried=tuple(self._redact(t, secret) for t in answer.tried),
            max_tokens=limit,
        )

    def probe(self, role: str, timeout: float | None = None) -> tuple[bool, str]:
        """:meth:`check` as ``(ok, what a person reads)``."""
        result = self.check(role, timeout)
        return result.ok, result.summary

    # -- pieces --------------------------------------------------------------------------

    def _exchange(
        self,
        spec: ModelSpec,
        task: str,
        messages: list[dict],
        schema: dict,
        headers: dict[str, str],
        secret: str,
        budget: float,
        limit: int,
        *,
        fresh: bool = False,
    ) -> _Answer:
        """Post the request, stepping down :data:`SHAPES` while the server refuses the
        shape, and learn the shape that was answered. Raises ``_Failure`` otherwise."""
        deadline = time.monotonic() + budget
        client = self._client(spec)
        way = FIRST_WAY if fresh else self.learnt(spec)
        first = way
        tried: list[str] = []
        while True:
            body = build_body(
                spec,
                task,
                messages,
                schema,
                shape=way.shape,
                max_tokens=limit,
                bare=way.bare,
                tokens_key=way.tokens,
            )
            answer = self._send(
                client, "POST", spec, spec.endpoint, headers, body, deadline, budget
            )
            if 200 <= answer.status < 300:
                answer.shape, answer.tried = way.shape, tuple(tried)
                if fresh or way != first:
                    self._learn(spec, way, tuple(tried))
                else:
                    self._note_shape(spec, way.shape)
                return answer
            reason = self._http_reason(answer, secret)
            step = _next_try(way, answer)
            tried.append(f"{way.shape}{' (bare)' if way.bare else ''}: {reason}")
            if step is None:
                more = f" (after {len(tried) - 1} other shapes)" if len(tried) > 1 else ""
                raise _Failure(reason + more, "http_status", tuple(tried))
            way = step

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
        deadline: float,
        budget: float,
    ) -> _Answer:
        """One request, read whole by *deadline*. Giving up closes the connection: a
        server that watches its client (llama-server, vLLM) stops generating, and the next
        call opens a fresh connection instead of waiting behind this one."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Failure(f"timed out after {_seconds(budget)}s", "timeout")
        limit = httpx.Timeout(remaining, connect=min(5.0, remaining))
        content = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            with client.stream(
                method, url, headers=headers, content=content, timeout=limit
            ) as response:
                return _Answer(response.status_code, _read_within(response, deadline, budget))
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
    def _http_reason(answer: _Answer, secret: str = "") -> str:
        text = answer.text
        if secret:
            text = text.replace(secret, "***")
        excerpt = " ".join(text.split())[:_BODY_EXCERPT]
        return f"HTTP {answer.status}: {excerpt}" if excerpt else f"HTTP {answer.status}"

    @staticmethod
    def _read_reply(
        answer: _Answer, task: str, schema: dict, limit: int = 0, salvage: str | None = None
    ) -> dict:
        try:
            payload = json.loads(answer.text)
        except ValueError:
            raise _Failure(
                f"unparseable reply: response is not JSON ({_snippet(answer.text)!r})",
                "unparseable",
            ) from None
        try:
            choice = payload["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise _Failure(
                "unparseable reply: no choices[0].message in the response", "unparseable"
            ) from None
        if not isinstance(message, dict):
            raise _Failure("unparseable reply: choices[0].message is not an object", "unparseable")
        cut = _cut_off(payload, choice, limit)
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if content is not None and not isinstance(content, str):
            raise _Failure(
                f"unparseable reply: content is {_json_kind(content)}, not text", "unparseable"
            )
        if not (content or "").strip():
            if cut:
                raise _Failure(cut, "cut_off")
            if message.get("reasoning_content") or message.get("reasoning"):
                raise _Failure("reasoning-only reply with empty content", "reasoning_only")
            raise _Failure("unparseable reply: empty content", "unparseable")
        if cut and not _whole_json(content or ""):
            # an object found inside a reply cut off mid-way is a piece of it, not the answer
            return _salvaged(content or "", salvage, schema, cut)
        try:
            result = parse_json_reply(content or "")
        except ValueError as exc:
            if cut:
                return _salvaged(content or "", salvage, schema, cut)
            raise _Failure(f"unparseable reply: {exc}", "unparseable") from None
        problems = validate(result, schema)
        if problems:
            if cut:
                return _salvaged(content or "", salvage, schema, cut)
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
