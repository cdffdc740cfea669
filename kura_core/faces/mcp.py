"""MCP: the memory as tools for any MCP host, written on the stdlib.

JSON-RPC 2.0 over stdio (`kura mcp`: one message per line on stdin and stdout, nothing
else on stdout) and over streamable HTTP (`POST /mcp` on `kura serve`: one JSON reply per
POST, 202 for notifications, no sessions).

Tools: kura_recall, kura_glance, kura_read, kura_map, kura_doctor, kura_list, kura_use, and
kura_remember only when the store is writable (write_policy = "direct-allowed") and the
client is not read-only.

Environment of `kura mcp`:

    KURA_URL       bridge to a running `kura serve` over HTTP (unset: in-process)
    KURA_TOKEN     bearer token for KURA_URL, when that server has [server] token_env
    KURA_STORE     bound mode: this session is one store; the `store` argument, kura_use
                   and kura_list disappear
    KURA_READONLY  default on; "0", "false" or "no" turns it off (kura_remember may appear)

Over HTTP there is no session to remember a choice in, so kura_use is not offered there:
pass `store` on each call, or connect to /s/<name>/mcp (bound). `?readonly=0` on the URL
plays the part KURA_READONLY plays for stdio.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO
from urllib.parse import quote

import httpx

from .. import (
    RECALL_LIMITS,
    Kura,
    KuraError,
    Registry,
    __version__,
    acting,
    degraded_notice,
    missing_map_note,
    storage_error,
)
from ..vocabulary import MEMORY_TYPES, WritePolicy
from .guard import guarded

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]
INSTRUCTIONS_LIMIT = 2048
#: after stdin closes, how long a request already being answered may take to finish.
STDIN_CLOSE_GRACE_S = 0.5

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)


class ToolFailure(Exception):
    """A tool call that failed in a way the agent should read (an isError result)."""


class RemoteError(KuraError):
    """A kura server reached through KURA_URL refused the request."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Unreachable(KuraError):
    """The kura server named by KURA_URL could not be reached."""

    status = 503


def env_readonly(value: str | None) -> bool:
    """KURA_READONLY: on unless it says 0 / false / no / off."""
    if value is None:
        return True
    return value.strip().lower() not in ("0", "false", "no", "off")


def parse_error_reply(message: str) -> dict[str, Any]:
    return _error(None, PARSE_ERROR, message)


def _error(mid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}}


def _result(mid: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": mid, "result": result}


# --------------------------------------------------------------------------- backends


class LocalBackend:
    """In-process: every tool calls the Kura facade directly."""

    remote = False

    def __init__(self, kura: Any):
        self.kura = kura

    def resolve(self, selector: str | None) -> str:
        return self.kura.resolve(selector)

    def stores(self) -> dict[str, Any]:
        return self.kura.stores().to_json()

    def writable(self, selector: str | None) -> bool:
        return self.kura.writable(store=selector)

    def recall(
        self, question: str, selector: str | None, hops: int | None, top: int | None
    ) -> dict[str, Any]:
        return self.kura.recall(question, store=selector, hops=hops, top=top).to_json()

    def read(self, slug: str, selector: str | None) -> dict[str, Any]:
        mem = self.kura.read(slug, store=selector)
        return {"store": self.resolve(selector), **mem.to_json()}

    def glance(self, slug: str, selector: str | None) -> dict[str, Any]:
        return self.kura.glance(slug, store=selector).to_json()

    def map(self, selector: str | None) -> str:
        return self.kura.prefill(store=selector).text

    def doctor(self, selector: str | None) -> dict[str, Any]:
        return self.kura.doctor(store=selector).to_json()

    def remember(self, selector: str | None, **fields: Any) -> dict[str, Any]:
        mem = self.kura.remember(
            fields.pop("slug"),
            fields.pop("description"),
            fields.pop("body"),
            store=selector,
            **fields,
        )
        return {"store": self.resolve(selector), "slug": mem.slug}

    def close(self) -> None:
        pass


class HttpBackend:
    """A bridge: every tool is one request to a running `kura serve` (KURA_URL)."""

    remote = True

    def __init__(self, url: str, *, token: str | None = None, timeout: float = 60.0):
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(
            base_url=self.url, headers=headers, timeout=timeout, trust_env=False
        )

    def _call(
        self,
        method: str,
        path: str,
        *,
        selector: str | None = None,
        params: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        params = dict(params or {})
        if selector:
            params["store"] = selector
        try:
            r = self._client.request(method, path, params=params, json=body)
        except httpx.HTTPError as exc:
            raise Unreachable(
                f"kura at {self.url} is unreachable ({type(exc).__name__}); is `kura serve` "
                "running?"
            ) from None
        if r.status_code >= 400:
            try:
                msg = r.json().get("error") or r.text
            except (ValueError, AttributeError):
                msg = r.text[:300]
            raise RemoteError(str(msg), r.status_code)
        ctype = r.headers.get("content-type", "")
        return r.json() if ctype.startswith("application/json") else r.text

    def resolve(self, selector: str | None) -> str:
        return self._call("GET", "/stores", selector=selector)["selected"]

    def stores(self) -> dict[str, Any]:
        return self._call("GET", "/stores")

    def writable(self, selector: str | None) -> bool:
        info = self._call("GET", "/stores", selector=selector)
        return any(
            s["name"] == info["selected"] and s["write_policy"] == WritePolicy.DIRECT_ALLOWED
            for s in info["stores"]
        )

    def recall(
        self, question: str, selector: str | None, hops: int | None, top: int | None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"question": question}
        if hops is not None:
            body["hops"] = hops
        if top is not None:
            body["top"] = top
        return self._call("POST", "/recall", selector=selector, body=body)

    def read(self, slug: str, selector: str | None) -> dict[str, Any]:
        return self._call("GET", "/memory/" + quote(slug, safe=""), selector=selector)

    def glance(self, slug: str, selector: str | None) -> dict[str, Any]:
        return self._call("GET", "/glance/" + quote(slug, safe=""), selector=selector)

    def map(self, selector: str | None) -> str:
        try:
            return self._call("GET", "/prefill", selector=selector, params={"format": "text"})
        except Unreachable:
            return missing_map_note(selector or "")

    def doctor(self, selector: str | None) -> dict[str, Any]:
        return self._call("GET", "/doctor", selector=selector)

    def remember(self, selector: str | None, **fields: Any) -> dict[str, Any]:
        return self._call("POST", "/remember", selector=selector, body=fields)

    def close(self) -> None:
        self._client.close()


# --------------------------------------------------------------------------- the tools


@dataclass(frozen=True)
class Param:
    """One argument of a tool: its JSON schema and its check are both made from this."""

    name: str
    kind: str  # "string" | "integer" | "words" (a list of non-empty strings)
    description: str = ""
    required: bool = False
    bounds: tuple[int, int] | None = None
    choices: tuple[str, ...] = ()
    blank_ok: bool = True  # an optional string may be given empty

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any]
        if self.kind == "words":
            out = {"type": "array", "items": {"type": "string"}}
        else:
            out = {"type": self.kind}
        if self.bounds:
            out["minimum"], out["maximum"] = self.bounds
        if self.choices:
            out["enum"] = list(self.choices)
        if self.description:
            out["description"] = self.description
        return out

    def check(self, value: Any) -> Any:
        if value is None:
            if self.required:
                raise ToolFailure(f"missing argument {self.name!r}")
            return None
        if self.kind == "string":
            if not isinstance(value, str) or (
                (self.required or not self.blank_ok) and not value.strip()
            ):
                raise ToolFailure(f"{self.name!r} must be a non-empty string")
            if self.choices and value and value not in self.choices:
                raise ToolFailure(f"{self.name} must be one of {', '.join(self.choices)}")
            return value
        if self.kind == "integer":
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            lo, hi = self.bounds or (-(2**63), 2**63)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ToolFailure(f"{self.name!r} must be a whole number from {lo} to {hi}")
            return value
        if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
            raise ToolFailure(f"{self.name} must be a list of words")
        return value


_STORE = Param(
    "store", "string", "store or mode name (default: this session's store)", blank_ok=False
)
_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the table describes it: what it says, what it takes, when it is offered
    (``always``, ``unbound`` sessions only, ``stateful`` ones, or when a store is
    ``writable``), and whether it takes a ``store`` argument. Its JSON schema and the check
    of a call's arguments are both made from this one description."""

    name: str
    title: str
    description: str
    params: tuple[Param, ...] = ()
    annotations: Mapping[str, Any] = field(default_factory=lambda: dict(_READ_ONLY))
    when: str = "always"
    store_arg: bool = True

    def _params(self, store_arg: bool) -> tuple[Param, ...]:
        return self.params + ((_STORE,) if store_arg else ())

    def schema(self, *, store_arg: bool) -> dict[str, Any]:
        ps = self._params(store_arg)
        out: dict[str, Any] = {"type": "object", "properties": {p.name: p.schema() for p in ps}}
        required = [p.name for p in ps if p.required]
        if required:
            out["required"] = required
        out["additionalProperties"] = False
        return out

    def check(self, args: Mapping[str, Any], *, store_arg: bool) -> dict[str, Any]:
        ps = {p.name: p for p in self._params(store_arg)}
        for k in args:
            if k not in ps:
                if not ps:
                    raise ToolFailure(f"{self.name} takes no arguments")
                raise ToolFailure(
                    f"unknown argument {k[:40]!r} (accepted: {', '.join(sorted(ps))})"
                )
        return {name: p.check(args.get(name)) for name, p in ps.items()}


def _tool_specs() -> dict[str, ToolSpec]:
    specs = (
        ToolSpec(
            "kura_recall",
            "Recall from memory",
            "Recall the memories that bear on a question, by meaning (the store's model reads the "
            "whole index), with their [[links]] walked. Says '⚠ degraded' when it fell back to "
            "matching words.",
            (
                Param("question", "string", "what you want to know, in plain words", required=True),
                Param(
                    "hops",
                    "integer",
                    "how far to walk [[links]] (default from the store)",
                    bounds=RECALL_LIMITS["hops"],
                ),
                Param(
                    "top",
                    "integer",
                    "at most this many picked memories",
                    bounds=RECALL_LIMITS["top"],
                ),
            ),
        ),
        ToolSpec(
            "kura_glance",
            "Glance at one memory",
            "One memory by its exact slug in about 150 tokens: its map line, what it must keep, "
            "its links. Glance at a map line before reading it whole.",
            (Param("slug", "string", "the exact slug, as the map writes it", required=True),),
        ),
        ToolSpec(
            "kura_read",
            "Read one memory",
            "One memory in full, by its slug (the file name in the map, without .md).",
            (Param("slug", "string", "e.g. archive-on-slow-disk", required=True),),
        ),
        ToolSpec(
            "kura_map",
            "The memory map",
            "The resident map of the store: one recognition line per memory, between KURA-MAP "
            "markers. Read it first; recall or read what it points at.",
        ),
        ToolSpec(
            "kura_doctor",
            "Store health",
            "Health of the store: counts, dead links, index drift, waiting drafts, model "
            "reachability, tender heartbeat.",
        ),
        ToolSpec(
            "kura_list",
            "Stores and modes",
            "The stores and modes this kura holds, and which one this session uses.",
            when="unbound",
            store_arg=False,
        ),
        ToolSpec(
            "kura_use",
            "Switch store",
            "Switch this session to another store or mode; later calls without `store` use it.",
            (Param("store", "string", "store or mode name", required=True),),
            annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
            when="stateful",
            store_arg=False,
        ),
        ToolSpec(
            "kura_remember",
            "Write a memory",
            "Write one memory directly (one fact per memory). Write only what the user said or "
            "confirmed; the description is the one line that makes it recognisable in the map.",
            (
                Param("slug", "string", "lower-case words joined by '-'", required=True),
                Param("description", "string", "the recognition line for the map", required=True),
                Param("body", "string", "the memory itself, in Markdown", required=True),
                Param("type", "string", choices=MEMORY_TYPES),
                Param("title", "string"),
                Param("tags", "words"),
                Param(
                    "belongs_because",
                    "string",
                    "one sentence: why this memory belongs in this store",
                ),
                Param("keep", "string", "one sentence: what meaning must outlive any shortening"),
                Param("may_fade", "string", "one sentence: what detail may fade"),
            ),
            annotations={
                "readOnlyHint": False,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
            when="writable",
        ),
    )
    return {s.name: s for s in specs}


TOOL_SPECS: dict[str, ToolSpec] = _tool_specs()


# --------------------------------------------------------------------------- a session


class McpSession:
    """One MCP conversation: which store it uses, what it may do, and the tools it offers.

    bound     a store (or mode) this session is fixed to; hides `store`, kura_use, kura_list
    readonly  hides kura_remember
    stateful  whether kura_use can be remembered between calls (stdio: yes; HTTP: no)
    """

    def __init__(
        self,
        backend: Any,
        *,
        bound: str | None = None,
        readonly: bool = True,
        stateful: bool = True,
        log: TextIO | None = None,
    ):
        self.backend = backend
        self.bound = bound or None
        self.readonly = readonly
        self.stateful = stateful
        self.current: str | None = None  # chosen with kura_use
        self.log = log
        self._lock = threading.Lock()

    # ---- JSON-RPC --------------------------------------------------------
    def handle(self, payload: Any) -> Any:
        """One parsed message (or a batch) in; the reply (or None for notifications) out."""
        if isinstance(payload, list):
            if not payload:
                return _error(None, INVALID_REQUEST, "an empty batch is not a request")
            replies = [r for r in (self._one(m) for m in payload) if r is not None]
            return replies or None
        return self._one(payload)

    def handle_line(self, line: bytes | str) -> Any:
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
            payload = json.loads(text)
        except (ValueError, RecursionError):  # bad UTF-8 or JSON, or a figure too long for int
            return parse_error_reply("the message is not valid JSON")
        return self.handle(payload)

    def _one(self, msg: Any) -> dict[str, Any] | None:
        if not isinstance(msg, dict):
            return _error(None, INVALID_REQUEST, "a JSON-RPC message must be an object")
        mid = msg.get("id")
        method = msg.get("method")
        if method is None and ("result" in msg or "error" in msg):
            return None  # a response to something we never asked; nothing to say
        is_request = "id" in msg
        good_id = isinstance(mid, (str, int)) and not isinstance(mid, bool)
        if (
            msg.get("jsonrpc") != "2.0"
            or not isinstance(method, str)
            or (is_request and not good_id)
        ):
            return _error(
                mid if good_id else None,
                INVALID_REQUEST,
                'not a JSON-RPC 2.0 request: it needs jsonrpc "2.0", a method and a string or '
                "number id",
            )
        params = msg.get("params") or {}
        if not isinstance(params, dict):
            return _error(mid, INVALID_PARAMS, "params must be an object") if is_request else None
        if not is_request:
            return None  # notifications/initialized, cancelled, …: nothing to answer
        try:
            if method == "initialize":
                return _result(mid, self.initialize(params))
            if method == "ping":
                return _result(mid, {})
            if method == "tools/list":
                return _result(mid, {"tools": self.tools()})
            if method == "tools/call":
                with acting("agent (mcp)"):
                    return self._call_reply(mid, params)
            if method == "logging/setLevel":
                return _result(mid, {})
            return _error(mid, METHOD_NOT_FOUND, f"method {method[:60]!r} is not implemented here")
        except Exception:
            self._log(f"internal error in {method}:\n{traceback.format_exc()}".rstrip())
            return _error(mid, INTERNAL_ERROR, "internal error")

    def initialize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in SUPPORTED_VERSIONS else LATEST_VERSION
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {
                "name": "kura",
                "title": "kura — long-term memory",
                "version": __version__,
            },
            "instructions": self.instructions(),
        }

    def instructions(self) -> str:
        where = f" (store {self.bound})" if self.bound else ""
        parts = [
            f"kura is your long-term memory{where}. Call kura_map at the start of a conversation: it "
            "returns the map, one line per memory, so you know what is there before you need it. "
            "The ladder: map, then kura_glance at a line that looks relevant (its slug, about "
            "150 tokens), then kura_read for the memory in full; when the map names nothing, call "
            "kura_recall with a plain question to get the memories that bear on it, links walked. "
            "If recall says '⚠ degraded' it matched by words, not meaning: ask "
            "again with the words the memory would use.",
        ]
        if not self.bound:
            parts.append(
                "kura_list shows the stores; pass store=NAME to use another one"
                + (", or kura_use to switch this session." if self.stateful else ".")
            )
        if self._remember_offered():
            parts.append(
                "kura_remember writes a memory directly: write only what the user said or "
                "confirmed, one fact per memory."
            )
        text = " ".join(parts)
        return text[:INSTRUCTIONS_LIMIT]

    # ---- tools -----------------------------------------------------------
    def _remember_offered(self) -> bool:
        if self.readonly:
            return False
        try:
            if self.bound:
                return bool(self.backend.writable(self.bound))
            return any(
                s.get("write_policy") == WritePolicy.DIRECT_ALLOWED
                for s in self.backend.stores()["stores"]
            )
        except KuraError:
            return False

    def offers(self, name: str) -> bool:
        spec = TOOL_SPECS.get(name)
        if spec is None:
            return False
        if spec.when == "unbound":
            return not self.bound
        if spec.when == "stateful":
            return not self.bound and self.stateful
        if spec.when == "writable":
            return self._remember_offered()
        return True

    def tools(self) -> list[dict[str, Any]]:
        out = []
        for spec in TOOL_SPECS.values():
            if not self.offers(spec.name):
                continue
            description = spec.description
            if spec.name == "kura_remember" and not self.bound:
                try:
                    names = [
                        s["name"]
                        for s in self.backend.stores()["stores"]
                        if s.get("write_policy") == WritePolicy.DIRECT_ALLOWED
                    ]
                    description += f" Stores that accept it: {', '.join(names)}."
                except KuraError:
                    pass
            out.append(
                {
                    "name": spec.name,
                    "title": spec.title,
                    "description": description,
                    "inputSchema": spec.schema(store_arg=spec.store_arg and not self.bound),
                    "annotations": dict(spec.annotations),
                }
            )
        return out

    def _call_reply(self, mid: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        args = params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(name, str):
            return _error(mid, INVALID_PARAMS, "tools/call needs a tool name")
        if not self.offers(name):
            return _error(
                mid, INVALID_PARAMS, f"unknown tool {name[:60]!r}{self._why_hidden(name)}"
            )
        spec = TOOL_SPECS[name]
        try:
            if not isinstance(args, dict):
                raise ToolFailure("arguments must be an object")
            if "store" in args and self.bound and spec.store_arg:
                raise ToolFailure(
                    f"this session is bound to store {self.bound!r}; it takes no store argument"
                )
            checked = spec.check(args, store_arg=spec.store_arg and not self.bound)
            text = getattr(self, "_tool_" + name.removeprefix("kura_"))(checked)
            return _result(mid, {"content": [{"type": "text", "text": text}], "isError": False})
        except (ToolFailure, KuraError) as exc:
            return _result(mid, {"content": [{"type": "text", "text": str(exc)}], "isError": True})
        except OSError as exc:
            text = str(storage_error(exc, name.removeprefix("kura_"), exc.filename or "."))
            return _result(mid, {"content": [{"type": "text", "text": text}], "isError": True})
        except Exception:
            self._log(f"internal error in {name}:\n{traceback.format_exc()}".rstrip())
            return _result(
                mid,
                {
                    "content": [
                        {
                            "type": "text",
                            "text": f"{name} failed: internal error (the server log has details)",
                        }
                    ],
                    "isError": True,
                },
            )

    def _why_hidden(self, name: str) -> str:
        if name == "kura_remember":
            if self.readonly:
                return ": this session is read-only (KURA_READONLY=0, or ?readonly=0 over HTTP, turns writing on)"
            return ": the store does not accept direct writes (write_policy is not direct-allowed)"
        if name in ("kura_use", "kura_list") and self.bound:
            return f": this session is bound to store {self.bound!r}"
        if name == "kura_use":
            return ": HTTP sessions keep no state; pass store=NAME on each call or connect to /s/NAME/mcp"
        return ""

    def _target(self, args: Mapping[str, Any]) -> str | None:
        return self.bound or args.get("store") or self.current

    # ---- the tools (arguments already checked against their spec) ----------
    def _tool_recall(self, args: Mapping[str, Any]) -> str:
        res = self.backend.recall(
            args["question"], self._target(args), args.get("hops"), args.get("top")
        )
        return render_recall(res)

    def _tool_glance(self, args: Mapping[str, Any]) -> str:
        return render_glance(self.backend.glance(args["slug"], self._target(args)))

    def _tool_read(self, args: Mapping[str, Any]) -> str:
        return render_memory(self.backend.read(args["slug"], self._target(args)))

    def _tool_map(self, args: Mapping[str, Any]) -> str:
        return self.backend.map(self._target(args))

    def _tool_doctor(self, args: Mapping[str, Any]) -> str:
        return render_doctor(self.backend.doctor(self._target(args)))

    def _tool_list(self, args: Mapping[str, Any]) -> str:
        info = self.backend.stores()
        using = self.backend.resolve(self.current)
        return render_stores(info, using)

    def _tool_use(self, args: Mapping[str, Any]) -> str:
        sel = args["store"]
        name = self.backend.resolve(sel)  # an unknown name fails here, at the door
        with self._lock:
            self.current = sel
        return (
            f"this session now uses store {name!r}"
            + (f" (mode {sel!r})" if sel != name else "")
            + ". Call kura_map to see what it holds."
        )

    def _tool_remember(self, args: Mapping[str, Any]) -> str:
        fields = {k: v for k, v in args.items() if k != "store" and v not in (None, "")}
        out = self.backend.remember(self._target(args), **fields)
        return f"remembered {out['slug']} in store {out['store']!r}"

    def _log(self, line: str) -> None:
        if self.log is not None:
            try:
                self.log.write(f"kura mcp: {line}\n")
                self.log.flush()
            except (OSError, ValueError):
                pass


# --------------------------------------------------------------------------- rendering


def render_recall(d: Mapping[str, Any]) -> str:
    lines = []
    if d.get("notice"):
        lines.append(str(d["notice"]))
    elif d.get("degraded"):
        lines.append(degraded_notice(str(d.get("reason") or "")))
    picked = ", ".join(d.get("picked") or []) or "—"
    walked = ", ".join(d.get("walked") or []) or "—"
    lines.append(
        f"store: {d.get('store')} · how: {d.get('how')} · picked: {picked} · walked: {walked} · "
        f"~{d.get('tokens_est', 0)} tokens · fastpath: {d.get('fastpath_verdict', 'disabled')}"
        f" ({d.get('fastpath_ms', 0)} ms)"
    )
    for item in d.get("skipped") or []:
        lines.append(f"⚠ skipped {item.get('slug')}: {item.get('reason')}")
    if not d.get("walked"):
        lines.append(
            "Nothing could be included: every memory picked was unreadable (see skipped)."
            if d.get("skipped")
            else "Nothing in this store bears on the question."
        )
    context = (d.get("context") or "").rstrip()
    if context:
        lines.append("")
        lines.append(context)
    return "\n".join(lines)


def render_glance(d: Mapping[str, Any]) -> str:
    head = f"glance {d.get('slug')} · store: {d.get('store')} · ~{d.get('tokens_est', 0)} tokens"
    return head + "\n" + str(d.get("text") or "")


def render_memory(d: Mapping[str, Any]) -> str:
    head = [f"# {d.get('title') or d.get('slug')}", ""]
    facts = [f"slug: {d.get('slug')}", f"store: {d.get('store')}"]
    if d.get("type"):
        facts.append(f"type: {d['type']}")
    if d.get("tags"):
        facts.append("tags: " + ", ".join(d["tags"]))
    head.append(" · ".join(facts))
    if d.get("description"):
        head += ["", f"> {d['description']}"]
    return "\n".join(head) + "\n\n" + (d.get("body") or "").rstrip() + "\n"


def render_doctor(r: Mapping[str, Any]) -> str:
    badge = "ok" if r.get("ok") else "BROKEN"
    lines = [f"store {r.get('store')}: {badge}"]
    for p in r.get("problems") or []:
        lines.append(f"✗ {p}")
    for n in r.get("notes") or []:
        lines.append(f"· {n}")
    lines.append("")
    lines.append(json.dumps(r, ensure_ascii=False, indent=1, default=str))
    return "\n".join(lines)


def render_stores(info: Mapping[str, Any], using: str) -> str:
    lines = []
    for s in info.get("stores", []):
        mark = "*" if s["name"] == using else " "
        modes = f"  modes: {', '.join(s['modes'])}" if s.get("modes") else ""
        write = (
            "  (accepts kura_remember)"
            if s.get("write_policy") == WritePolicy.DIRECT_ALLOWED
            else ""
        )
        label = f" — {s['label']}" if s.get("label") else ""
        lines.append(f"{mark} {s['name']}{label}{modes}{write}")
    lines.append(f"this session uses: {using} (default: {info.get('default')})")
    return "\n".join(lines)


# --------------------------------------------------------------------------- stdio


def serve_stdio(session: McpSession, inp: BinaryIO, out: BinaryIO) -> None:
    """Answer newline-delimited JSON-RPC on *inp* until it closes. Replies go to *out* only.

    Messages are answered in order by one worker, so the reader notices a closed stdin at
    once; a request still being answered then gets STDIN_CLOSE_GRACE_S to finish.
    """
    work: queue.Queue[bytes | None] = queue.Queue()
    write_lock = threading.Lock()

    def worker() -> None:
        while True:
            line = work.get()
            if line is None:
                return
            reply = session.handle_line(line)
            if reply is None:
                continue
            data = (
                json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
            )
            try:
                with write_lock:
                    out.write(data)
                    out.flush()
            except (BrokenPipeError, ValueError, OSError):
                return

    t = threading.Thread(target=worker, name="kura-mcp", daemon=True)
    t.start()
    while True:
        try:
            line = inp.readline()
        except (OSError, ValueError):
            break
        if not line:
            break
        if line.strip():
            work.put(line)
    work.put(None)
    t.join(timeout=STDIN_CLOSE_GRACE_S)


def run_stdio(
    open_registry: Callable[[], Any],
    selector: str | None,
    env: Mapping[str, str] | None = None,
    *,
    err: TextIO = sys.stderr,
) -> int:
    """`kura mcp`: protocol on the real stdout, everything else (even stray prints) on stderr."""
    env = os.environ if env is None else env
    readonly = env_readonly(env.get("KURA_READONLY"))
    url = (env.get("KURA_URL") or "").strip()
    if url:
        backend: Any = HttpBackend(url, token=(env.get("KURA_TOKEN") or "").strip() or None)
        bound = selector
        where = f"bridge to {url}"
        if selector:
            try:
                backend.resolve(selector)  # an unknown store fails here when the server can say so
            except Unreachable:
                pass  # the server may come later; until then each tool says it is unreachable
            except KuraError:
                backend.close()
                raise
    else:
        reg = open_registry()
        backend = LocalBackend(Kura(reg))
        bound = (
            reg.resolve(selector) if selector else None
        )  # an unknown store fails here, at the door
        where = "in-process"
    session = McpSession(backend, bound=bound, readonly=readonly, stateful=True, log=err)

    proto = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        err.write(
            f"kura mcp: {where}; store {bound or '(unbound)'}; "
            f"{'read-only' if readonly else 'writes allowed where the store permits'}\n"
        )
        err.flush()
        serve_stdio(session, sys.stdin.buffer, proto)
    finally:
        backend.close()
        with contextlib.suppress(OSError):
            proto.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m kura_core.mcp``: the same server as ``kura mcp`` (the form MCP host
    configurations use). Honours ``-c/--config`` and ``-s/--store`` like the CLI, and
    KURA_CONFIG, KURA_STORE, KURA_URL and KURA_READONLY."""
    parser = argparse.ArgumentParser(
        prog="python -m kura_core.mcp", description="kura's MCP server over stdio"
    )
    parser.add_argument("-c", "--config", default=None, help="path to kura.toml")
    parser.add_argument("-s", "--store", default=None, help="store or mode name")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    selector = args.store or os.environ.get("KURA_STORE") or None
    opened: list[Registry] = []

    def open_registry() -> Registry:
        opened.append(Registry.open(args.config))
        return opened[-1]

    def warn(text: str) -> None:
        sys.stderr.write(text + "\n")

    try:
        return guarded(lambda: run_stdio(open_registry, selector, os.environ), warn)
    finally:
        for reg in opened:
            reg.close()
