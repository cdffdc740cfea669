"""The HTTP face: `kura serve`.

HTTP/1.1 with keep-alive and Nagle off, on kura's own connection loop (kura_core.faces.httpd:
one thread for every socket and all local work, a pool for work that may wait). Each
request is parsed as the stdlib's request handler parses it, answered by one call to the
Kura facade, and rendered as JSON. It holds no logic of its own.

    POST /recall    {question, hops, top, chars, store|mode}
    POST /remember  {slug, description, body, type, title, tags, belongs_because, keep, may_fade,
                    store|mode}   (403 unless direct-allowed; 422 when the floors refuse curation)
    GET  /index     the raw index (text/markdown)
    GET  /prefill   the resident block (JSON; format=text for hooks); ETag / If-None-Match
    GET  /memory/<slug>
    GET  /glance/<slug>  one memory in about 150 tokens: its line, KEEP, links (exact slug)
    GET  /doctor    (all=1 for every store; 200 with ok:false for an unhealthy store)
    GET  /stores    stores, modes, model roles (never a secret)
    GET  /profile   the charter, and a pointer to the persona file (never its content)
    GET  /health    liveness (the only route a bearer token does not guard)
    POST /mcp       MCP over streamable HTTP (see kura_core.faces.mcp)

Every route takes a selector as `?store=` / `?mode=`, a `store` / `mode` field in the JSON
body, or the `/s/<name>/…` path prefix. Selectors that disagree are a 400; a selector that
names nothing is a 404 whose message never lists the stores that do exist.

Bad input is always a 4xx JSON `{"error": "…"}`. A disk that refuses a write answers with a
message naming the cause: 403 for a read-only store, 507 for a full disk; a busy workshop
database is a 409. Only an unexpected exception is a 500 `{"error": "internal error"}`,
with the traceback on stderr, never in the response.
"""

from __future__ import annotations

import email.parser
import email.utils
import hashlib
import hmac
import http.client
import io
import ipaddress
import json
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, TextIO
from urllib.parse import parse_qs, unquote, urlsplit

from .. import (
    PATH_PREFIX,
    QUESTION_CHARS,
    RECALL_LIMITS,
    Kura,
    KuraError,
    Registry,
    __version__,
    storage_error,
)
from ..errors import ConfigError
from ..vocabulary import CURATION_FIELDS
from . import httpd
from .mcp import LocalBackend, McpSession, parse_error_reply

#: seconds an idle keep-alive connection is kept before the server closes it.
IDLE_TIMEOUT_S = 30.0
#: after refusing an oversized body, how long (and how much) to drain before closing, so the
#: client reads the 413 instead of a connection reset.
LINGER_S = 1.0
LINGER_BYTES = 16 * 1024 * 1024

RECALL_FIELDS = {"question", "hops", "top", "chars", "store", "mode"}
REMEMBER_FIELDS = {
    "slug",
    "description",
    "body",
    "type",
    "title",
    "tags",
    "store",
    "mode",
    "belongs_because",
    "keep",
    "may_fade",
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_USE_CONFIG = object()


#: what json.dumps(…, ensure_ascii=False) would build on every call; replies are trees, so
#: the check for cycles is skipped
_JSON = json.JSONEncoder(ensure_ascii=False, default=str, check_circular=False)


class HttpError(Exception):
    """A refusal with an HTTP status and a message for the caller."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str | None = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    data = _JSON.encode(obj).encode("utf-8")
    return Response(status, data, headers=headers or {})


def text_response(text: str, content_type: str, headers: dict[str, str] | None = None) -> Response:
    return Response(200, text.encode("utf-8"), f"{content_type}; charset=utf-8", headers or {})


@dataclass
class Request:
    method: str
    raw_path: str
    route: str  # path after any /s/<name> prefix, still percent-encoded
    prefix: str | None  # the /s/<name>/ selector, decoded once
    query: dict[str, list[str]]
    headers: Any = None
    body: Any = None  # parsed JSON, or None

    def q(self, key: str, default: str | None = None) -> str | None:
        vals = self.query.get(key)
        if not vals:
            return default
        if len(set(vals)) > 1:
            raise HttpError(400, f"the query names {key!r} more than once with different values")
        return vals[0]

    def flag(self, key: str) -> bool:
        v = self.q(key)
        if v is None:
            return False
        if v.lower() in _TRUE:
            return True
        if v.lower() in _FALSE:
            return False
        raise HttpError(400, f"?{key}= must be 1 or 0 (got {v[:20]!r})")


# --------------------------------------------------------------------------- selectors


def select_store(reg: Registry, req: Request, *, body_selectors: bool = True) -> str | None:
    """The one store a request names, or None when it names none (the default answers).

    Raises HttpError(400) when selectors disagree or one is empty, SelectorError (404)
    when one names nothing here.
    """
    sources: list[tuple[str, str]] = []
    if req.prefix is not None:
        sources.append(("the path /s/<name>/", req.prefix))
    for key in ("store", "mode"):
        for v in dict.fromkeys(req.query.get(key, [])):
            sources.append((f"?{key}=", v))
    if body_selectors and isinstance(req.body, dict):
        for key in ("store", "mode"):
            if key in req.body:
                v = req.body[key]
                if not isinstance(v, str):
                    raise HttpError(
                        400, f"the body's {key!r} must be a string naming a store or mode"
                    )
                sources.append((f"the body's {key!r}", v))
    if not sources:
        return None
    resolved: list[tuple[str, str, str]] = []
    for where, v in sources:
        if v == "":
            raise HttpError(
                400, f"{where} is empty: name a store or mode, or leave the selector out"
            )
        resolved.append((where, v, reg.resolve(v)))
    first = resolved[0]
    for other in resolved[1:]:
        if other[2] != first[2]:
            raise HttpError(
                400,
                f"conflicting selectors: {first[0]} says {_short(first[1])}, {other[0]} says "
                f"{_short(other[1])}; name one store",
            )
    return first[2]


def _short(s: str) -> str:
    return repr(s if len(s) <= 40 else s[:37] + "...")


# --------------------------------------------------------------------------- body checks


def _object_body(req: Request, allowed: set[str]) -> dict[str, Any]:
    body = req.body
    if body is None:
        raise HttpError(400, "this route needs a JSON object body")
    if not isinstance(body, dict):
        raise HttpError(400, f"the body must be a JSON object, not a JSON {_json_kind(body)}")
    unknown = sorted(k for k in body if k not in allowed)
    if unknown:
        raise HttpError(
            400, f"unknown field {unknown[0]!r} (accepted: {', '.join(sorted(allowed))})"
        )
    return body


def _json_kind(v: Any) -> str:
    return {
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }.get(type(v), type(v).__name__)


def _need_str(body: dict, key: str, *, limit: int = 0) -> str:
    """A string field the request must carry."""
    v = _str_field(body, key, limit=limit)
    if v is None:
        raise HttpError(400, f"missing field {key!r}")
    return v


def _str_field(body: dict, key: str, *, nonempty: bool = True, limit: int = 0) -> str | None:
    """A string field the request may carry; None when it is absent or null."""
    if key not in body or body[key] is None:
        return None
    v = body[key]
    if not isinstance(v, str):
        raise HttpError(400, f"{key!r} must be a string, not a JSON {_json_kind(v)}")
    if nonempty and not v.strip():
        raise HttpError(400, f"{key!r} is empty")
    if limit and len(v) > limit:
        raise HttpError(400, f"{key!r} is longer than {limit} characters")
    return v


def _int_field(body: dict, key: str, lo: int, hi: int) -> int | None:
    if key not in body or body[key] is None:
        return None
    v = body[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise HttpError(400, f"{key!r} must be a whole number, not a JSON {_json_kind(v)}")
    if not lo <= v <= hi:
        raise HttpError(400, f"{key!r} must be between {lo} and {hi} (got {v})")
    return v


# --------------------------------------------------------------------------- routes


def _route_recall(k: Kura, req: Request, name: str | None) -> Response:
    body = _object_body(req, RECALL_FIELDS)
    question = _need_str(body, "question", limit=QUESTION_CHARS)
    res = k.recall(
        question,
        store=name,
        **{key: _int_field(body, key, *RECALL_LIMITS[key]) for key in RECALL_LIMITS},
    )
    out = res.to_json()
    return json_response(out)


def _route_remember(k: Kura, req: Request, name: str | None) -> Response:
    body = _object_body(req, REMEMBER_FIELDS)
    slug = _need_str(body, "slug")
    description = _need_str(body, "description", limit=2000)
    text = _need_str(body, "body", limit=200_000)
    mtype = _str_field(body, "type") or ""
    title = _str_field(body, "title", limit=300) or ""
    tags = body.get("tags")
    if tags is None:
        tags = []
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
        raise HttpError(400, "'tags' must be a list of non-empty strings")
    cur = {f: _str_field(body, f, limit=2000) for f in CURATION_FIELDS}
    mem = k.remember(
        slug,
        description,
        text,
        store=name,
        type=mtype,
        title=title,
        tags=tags,
        **{f: v for f, v in cur.items() if v is not None},
    )
    return json_response(
        {
            "store": k.resolve(name),
            "slug": mem.slug,
            "title": mem.title,
            "description": mem.description,
            "type": mem.type,
            "tags": list(mem.tags),
            **{f: mem.curation(f) for f in cur if mem.curation(f)},
        }
    )


def _route_index(k: Kura, req: Request, name: str | None) -> Response:
    return text_response(k.index(store=name), "text/markdown")


def _route_prefill(k: Kura, req: Request, name: str | None) -> Response:
    fmt = (req.q("format") or "json").lower()
    if fmt not in ("json", "text"):
        raise HttpError(400, f"format must be json or text (got {fmt[:20]!r})")
    p = k.prefill(store=name)
    if fmt == "text":
        body = p.text.encode("utf-8")
        etag = _quote_etag(str(p.etag))
        ctype = "text/plain; charset=utf-8"
    else:
        body = json.dumps(
            {"store": k.resolve(name), **p.to_json()}, ensure_ascii=False, default=str
        ).encode("utf-8")
        etag = _quote_etag(f"{p.etag}-json-{hashlib.sha256(body).hexdigest()[:12]}")
        ctype = "application/json; charset=utf-8"
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if_none_match = req.headers.get("If-None-Match") if req.headers is not None else None
    if if_none_match and _etag_matches(if_none_match, etag):
        return Response(304, b"", None, headers)
    return Response(200, body, ctype, headers)


def _quote_etag(tag: str) -> str:
    tag = tag.strip().removeprefix("W/").strip('"').replace('"', "")
    return f'"{tag}"'


def _etag_matches(header: str, etag: str) -> bool:
    for part in header.split(","):
        part = part.strip()
        if part == "*":
            return True
        if part.removeprefix("W/") == etag:
            return True
    return False


def _route_memory(k: Kura, req: Request, name: str | None) -> Response:
    raw = req.route[len("/memory/") :]
    try:
        slug = unquote(raw, errors="strict")  # decoded exactly once; check_slug does the rest
    except UnicodeDecodeError:
        raise HttpError(400, "the slug is not valid percent-encoded UTF-8") from None
    mem = k.read(slug, store=name)
    return json_response({"store": k.resolve(name), **mem.to_json()})


def _route_glance(k: Kura, req: Request, name: str | None) -> Response:
    raw = req.route[len("/glance/") :]
    try:
        slug = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise HttpError(400, "the slug is not valid percent-encoded UTF-8") from None
    return json_response(k.glance(slug, store=name).to_json())


def _route_doctor(k: Kura, req: Request, name: str | None) -> Response:
    probe = req.flag("probe")
    if req.flag("all"):
        if name is not None:
            raise HttpError(400, "all=1 asks about every store; leave the store selector out")
        return json_response(k.doctor_all(probe=probe).to_json())
    return json_response(k.doctor(store=name, probe=probe).to_json())


def _route_stores(k: Kura, req: Request, name: str | None) -> Response:
    return json_response({**k.stores().to_json(), "selected": k.resolve(name)})


def _route_profile(k: Kura, req: Request, name: str | None) -> Response:
    return json_response(k.profile(store=name).to_json())


def _route_health(k: Kura, req: Request, name: str | None) -> Response:
    out: dict[str, Any] = {"ok": True, "name": "kura", "version": __version__}
    if name is not None:
        out["store"] = name
    return json_response(out)


def _route_mcp(k: Kura, req: Request, name: str | None) -> Response:
    readonly = True
    ro = req.q("readonly")
    if ro is not None:
        if ro.lower() in _FALSE - {""}:
            readonly = False
        elif ro.lower() not in _TRUE:
            raise HttpError(400, f"?readonly= must be 1 or 0 (got {ro[:20]!r})")
    if req.body is _PARSE_FAILED:
        return json_response(parse_error_reply("the body is not valid JSON"), 400)
    session = McpSession(LocalBackend(k), bound=name, readonly=readonly, stateful=False)
    reply = session.handle(req.body)
    if reply is None:
        return Response(202, b"", None)
    return json_response(reply)


_PARSE_FAILED = object()

#: the request line and header lines Handler.parse_request reads itself; anything else
#: goes to the stdlib's parser. The limits are the stdlib's.
_PLAIN_REQUEST_LINE = re.compile(rb"([A-Z]+) ([!-~]+) (HTTP/1\.[01])\r?\n")
_PLAIN_HEADER_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\r\n]*)\r?\n")
_MAX_HEADER_LINE = httpd.MAX_LINE
_MAX_HEADERS = httpd.MAX_HEADERS

ROUTES: dict[str, dict[str, Callable[..., Response]]] = {
    "/recall": {"POST": _route_recall},
    "/remember": {"POST": _route_remember},
    "/index": {"GET": _route_index},
    "/prefill": {"GET": _route_prefill},
    "/doctor": {"GET": _route_doctor},
    "/stores": {"GET": _route_stores},
    "/profile": {"GET": _route_profile},
    "/health": {"GET": _route_health},
    "/mcp": {"POST": _route_mcp},
}
MEMORY_ROUTE = {"GET": _route_memory}
GLANCE_ROUTE = {"GET": _route_glance}
#: body selectors do not apply to /mcp: its body is a JSON-RPC message.
_NO_BODY_SELECTORS = {"/mcp"}
#: routes served on the connection loop itself (kura_core.faces.httpd): local work, bounded by this
#: process's CPU and disk, in arrival order. Every other route may wait — on a model, on
#: another process's lock, on a walk over a whole store — and is served by the pool. A recall
#: that may wait (see Kura.recall_waits) moves to the pool once its store is known.
_LOCAL_ROUTES = {"/recall", "/index", "/prefill", "/profile", "/health"}
_LOCAL_PREFIXES = ("/memory/", "/glance/")


def _split_route(raw_path: str) -> tuple[str, str | None]:
    """(the route, the /s/<name>/ selector still percent-encoded or None) of a request path."""
    if raw_path.startswith(PATH_PREFIX):
        raw_name, _, tail = raw_path[len(PATH_PREFIX) :].partition("/")
        return "/" + tail, raw_name
    return raw_path, None


def _lookup(route: str) -> dict[str, Callable[..., Response]] | None:
    if route in ROUTES:
        return ROUTES[route]
    if route.startswith("/memory/") and len(route) > len("/memory/"):
        return MEMORY_ROUTE
    if route.startswith("/glance/") and len(route) > len("/glance/"):
        return GLANCE_ROUTE
    return None


def _split_target(target: str) -> tuple[str, str]:
    """(path, query) of a request target, as urlsplit gives them. An origin-form target
    ("/path?query", the usual one) is split at its "?"; anything else goes to urlsplit."""
    if target.startswith("/") and not target.startswith("//") and "#" not in target:
        path, _, query = target.partition("?")
        return path, query
    parts = urlsplit(target)
    return parts.path or "/", parts.query


def _is_local(path: str) -> bool:
    route = _split_route(_split_target(path)[0])[0]
    return route in _LOCAL_ROUTES or route.startswith(_LOCAL_PREFIXES)


@dataclass
class _Waits:
    """A route's work that may wait, to be done on the pool rather than the loop."""

    work: Callable[[], Response]


#: the methods a request may carry; any other is a 501, as the stdlib answers a method its
#: handler has no do_<METHOD> for
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

#: (second, formatted) of the last Date header made: one formatting a second, not one a reply
_DATE: tuple[int, str] = (0, "")


# --------------------------------------------------------------------------- the handler


class Handler(BaseHTTPRequestHandler):
    """One request: the stdlib's handler for its parsing and its way of writing a reply, run
    on no socket. The connection loop (kura_core.faces.httpd) hands it the request's head
    (:meth:`start`), then its body (:meth:`respond`); what it writes is collected as bytes
    for the loop to send."""

    # set by the stdlib handler but not declared in its stubs
    raw_requestline: bytes
    _headers_buffer: list[bytes]
    protocol_version = "HTTP/1.1"
    server_version = f"kura/{__version__}"
    sys_version = ""
    #: the server this request came to (never the stdlib's ``server``: there is no socket server)
    app: KuraServer
    rfile: io.BytesIO
    wfile: io.BytesIO
    _local = False  # served on the connection loop itself (see kura_core.faces.httpd)
    _linger = False
    _body_pending: int | None = None
    #: each header's first value by lower-cased name (what headers.get gives, without the
    #: email package's linear, case-folding search on every look-up)
    _fields: dict[str, str] | None = None

    def version_string(self) -> str:
        return self.server_version

    def date_time_string(self, timestamp: float | None = None) -> str:
        global _DATE
        if timestamp is not None:
            return super().date_time_string(timestamp)
        now = int(time.time())
        cached = _DATE
        if cached[0] != now:
            cached = _DATE = (now, email.utils.formatdate(now, usegmt=True))
        return cached[1]

    def log_message(self, format: str, *args: Any) -> None:  # the stdlib names it format
        pass  # one access line per request is written by _access_log instead

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Protocol-level errors from the stdlib parser, as JSON like every other error."""
        self.close_connection = True
        resp = json_response({"error": message or http.client.responses.get(code, "error")}, code)
        self.wfile.write(self._compose(resp, head=False))
        self._access_log(getattr(self, "command", None) or "-", code, 0.0)

    # ---- the loop's side -------------------------------------------------
    @classmethod
    def blank(cls, server: KuraServer, peer: Any) -> Handler:
        """A handler for one request, with nothing read yet."""
        h = cls.__new__(cls)
        h.app, h.client_address = server, peer
        h.rfile, h.wfile = io.BytesIO(), io.BytesIO()
        h.close_connection = True
        h.requestline, h.request_version, h.command = "", h.default_request_version, ""
        return h

    @classmethod
    def start(cls, server: KuraServer, peer: Any, head: bytes) -> httpd.Begun:
        """Read a request's head as the stdlib would (see :meth:`_read_head`) and say what the
        loop is to do next: send an error and close, or read the body and call respond."""
        h = cls.blank(server, peer)
        h.rfile = io.BytesIO(head)
        ok = h._read_head()
        early, h.wfile = h.wfile.getvalue(), io.BytesIO()
        if not ok:
            return httpd.Begun(early=early, go=False)
        h._local = _is_local(h.path)
        return httpd.Begun(
            early=early, body_length=h._body_to_read(), local=h._local, respond=h.respond
        )

    def respond(self, body: bytes) -> httpd.Reply | httpd.Later:
        """The reply to the request whose head :meth:`start` read, given its body."""
        self.rfile = io.BytesIO(body)
        return self._dispatch(self.command)

    def _read_head(self) -> bool:
        """What the stdlib's handle_one_request does before calling do_<METHOD>: the request
        line (414 over 65,536 bytes), then parse_request, then 501 for a method this server
        does not speak (every one it speaks goes through one dispatcher, so a route that
        does not take it is a JSON 405). False when the request ends there."""
        self.raw_requestline = self.rfile.readline(_MAX_HEADER_LINE + 1)
        if len(self.raw_requestline) > _MAX_HEADER_LINE:
            self.requestline, self.request_version, self.command = "", "", ""
            self.send_error(414)
            return False
        if not self.raw_requestline:
            self.close_connection = True
            return False
        if not self.parse_request():
            return False
        if self.command not in _METHODS:
            self.send_error(501, f"Unsupported method ({self.command!r})")
            return False
        return True

    def _field(self, name: str) -> str | None:
        """The first value of the header *name* (lower case), as ``headers.get`` gives it."""
        fields = self._fields
        if fields is None:
            fields = self._fields = {}
            for k, v in self.headers.items():
                fields.setdefault(k.lower(), v)
        return fields.get(name)

    def _body_to_read(self) -> int:
        """How many bytes of body the loop reads before respond: the declared length when it
        is one this server accepts; none for a length that is refused unread (too large, not
        a number) or a framing it does not speak (chunked)."""
        if self._field("transfer-encoding"):
            return 0
        n = self._declared_length()
        return n if n is not None and 0 < n <= self.app.max_body else 0

    # ---- parsing ---------------------------------------------------------
    def parse_request(self) -> bool:
        """The stdlib's parse_request for the common case, without the email package.

        A request line of the usual shape (METHOD /path HTTP/1.1 or HTTP/1.0) and a header
        block of plain ``Name: value`` lines give exactly the request state and HTTPMessage
        the stdlib would (the same limits, the same values); the email parser it uses for
        that costs more than the rest of the request path around recall. Anything else — an
        unusual request line, a folded or odd header line — is parsed by the stdlib itself.
        """
        raw = self.raw_requestline
        m = _PLAIN_REQUEST_LINE.fullmatch(raw)
        if m is None:
            return super().parse_request()
        self.requestline = str(raw, "iso-8859-1").rstrip("\r\n")
        command, path, version = (g.decode("iso-8859-1") for g in m.groups())
        self.command, self.request_version = command, version
        self.path = "/" + path.lstrip("/") if path.startswith("//") else path
        self.close_connection = not (version == "HTTP/1.1" and self.protocol_version >= "HTTP/1.1")
        lines: list[bytes] = []
        while True:
            line = self.rfile.readline(_MAX_HEADER_LINE + 1)
            if len(line) > _MAX_HEADER_LINE:
                self.send_error(
                    431,
                    "Line too long",
                    f"got more than {_MAX_HEADER_LINE} bytes when reading header line",
                )
                return False
            lines.append(line)
            if len(lines) > _MAX_HEADERS:
                self.send_error(431, "Too many headers", f"got more than {_MAX_HEADERS} headers")
                return False
            if line in (b"\r\n", b"\n", b""):
                break
        plain = [
            h for h in (_PLAIN_HEADER_LINE.fullmatch(line) for line in lines[:-1]) if h is not None
        ]
        if lines[-1] and len(plain) == len(lines) - 1:
            headers = self.MessageClass()
            fields: dict[str, str] = {}
            for h in plain:
                name, value = h.group(1).decode("iso-8859-1"), h.group(2).decode("iso-8859-1")
                headers.set_raw(name, value)
                fields.setdefault(name.lower(), value)
            self._fields = fields
        else:
            headers = email.parser.Parser(_class=self.MessageClass).parsestr(
                b"".join(lines).decode("iso-8859-1")
            )
        self.headers = headers
        conntype = (self._field("connection") or "").lower()
        if conntype == "close":
            self.close_connection = True
        elif conntype == "keep-alive" and self.protocol_version >= "HTTP/1.1":
            self.close_connection = False
        if (
            (self._field("expect") or "").lower() == "100-continue"
            and version == "HTTP/1.1"
            and self.protocol_version >= "HTTP/1.1"
        ):
            return self.handle_expect_100()
        return True

    # ---- dispatch --------------------------------------------------------
    def handle_expect_100(self) -> bool:
        n = self._declared_length()
        if n is not None and n > self.app.max_body:
            self.send_error(
                413, f"the body is {n} bytes; this server accepts at most {self.app.max_body}"
            )
            return False
        return super().handle_expect_100()

    def _dispatch(self, method: str) -> httpd.Reply | httpd.Later:
        t0 = time.perf_counter()
        self._linger = False
        self._body_pending = self._declared_length()
        out = self._answer(method, lambda: self._handle(method))
        if isinstance(out, _Waits):
            waits = out.work
            return httpd.Later(lambda: self._reply(method, t0, self._answer(method, waits)))
        return self._reply(method, t0, out)

    def _answer(self, method: str, work: Callable[[], Response | _Waits]) -> Response | _Waits:
        """*work*'s response, or the error reply an exception from it maps to."""
        try:
            return work()
        except HttpError as exc:
            return json_response({"error": exc.message}, exc.status, exc.headers)
        except KuraError as exc:
            return json_response({"error": str(exc)}, getattr(exc, "status", 400) or 400)
        except (ConnectionError, TimeoutError):
            self.close_connection = True
            return json_response({"error": "the connection failed while the request was read"}, 400)
        except OSError as exc:
            # the disk refused something no core path mapped: still say what, never "internal"
            err = storage_error(
                exc, f"answer {method} {urlsplit(self.path).path[:80]}", exc.filename or "."
            )
            return json_response({"error": str(err)}, err.status)
        except Exception:
            self.app.log_line(
                "internal error while answering "
                f"{method} {self._safe_path()}:\n{traceback.format_exc()}".rstrip()
            )
            return json_response({"error": "internal error"}, 500)

    def _reply(self, method: str, t0: float, resp: Response | _Waits) -> httpd.Reply:
        assert isinstance(resp, Response)
        self._settle_body()
        data = self._compose(resp, head=(method == "HEAD"))
        ms = (time.perf_counter() - t0) * 1000
        return httpd.Reply(
            data,
            close=self.close_connection,
            linger=self._linger,
            after=lambda: self._access_log(method, resp.status, ms),
        )

    def _handle(self, method: str) -> Response | _Waits:
        srv = self.app
        raw_path, raw_query = _split_target(self.path)
        route, raw_name = _split_route(raw_path)
        prefix = None if raw_name is None else unquote(raw_name)
        query: dict[str, list[str]] = {}
        if raw_query:
            try:
                query = parse_qs(
                    raw_query,
                    keep_blank_values=True,
                    strict_parsing=False,
                    errors="strict",
                    max_num_fields=64,
                )
            except (ValueError, UnicodeDecodeError):
                raise HttpError(400, "the query string could not be parsed") from None

        self._check_host()
        if srv.token and not (route == "/health" and prefix is None and not query):
            self._check_token()

        methods = _lookup(route)
        if methods is None:
            raise HttpError(
                404,
                f"no route {route[:80]!r}: see GET /health, /stores, /doctor, /index, "
                "/prefill, /profile, /memory/<slug>, /glance/<slug>, POST /recall, /remember, /mcp",
            )
        verb = "GET" if method == "HEAD" else method
        if verb not in methods:
            allow = ", ".join(sorted(set(methods) | ({"HEAD"} if "GET" in methods else set())))
            raise HttpError(405, f"{route[:80]} answers {allow}, not {method}", {"Allow": allow})

        req = Request(method, raw_path, route, prefix, query, self.headers)
        if verb == "POST":
            req.body = self._read_json(route == "/mcp")
        elif self._body_pending:
            req.body = self._read_json(False)  # a GET may carry {"store": …} / {"mode": …}
            if req.body is not None:
                _object_body(req, {"store", "mode"})
        name = select_store(srv.registry, req, body_selectors=route not in _NO_BODY_SELECTORS)
        fn = methods[verb]
        if self._local and route == "/recall" and srv.recall_waits(name):
            # a model to ask, or a word index to build first: not on the connection loop
            return _Waits(lambda: fn(srv.kura, req, name))
        return fn(srv.kura, req, name)

    # ---- checks ----------------------------------------------------------
    def _check_host(self) -> None:
        """Refuse DNS-rebinding: a loopback server answers only to loopback names."""
        origin = self._field("origin")
        if origin and origin != "null":
            host = urlsplit(origin).hostname or ""
            if not _is_loopback_name(host) and host != self.app.host:
                raise HttpError(403, "requests from web pages on other origins are refused")
        if self.app.loopback:
            host_hdr = self._field("host") or ""
            if host_hdr and not _loopback_host(host_hdr):
                raise HttpError(
                    403,
                    "this server listens on loopback and answers only to a loopback "
                    "Host (127.0.0.1, localhost or ::1)",
                )

    def _check_token(self) -> None:
        got = self._field("authorization") or ""
        scheme, _, value = got.partition(" ")
        ok = scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode("utf-8", "replace"), (self.app.token or "").encode("utf-8")
        )
        if not ok:
            raise HttpError(
                401,
                "this server needs a bearer token: send 'Authorization: Bearer <token>'"
                if not got
                else "the bearer token was not accepted",
                {"WWW-Authenticate": 'Bearer realm="kura"'},
            )

    # ---- bodies ----------------------------------------------------------
    def _declared_length(self) -> int | None:
        v = self._field("content-length")
        if v is None:
            return None
        v = v.strip()
        if not v.isdigit() or len(v) > 18:  # no body is longer; int() refuses thousands
            return -1
        return int(v)

    def _read_json(self, for_mcp: bool) -> Any:
        if self._field("transfer-encoding"):
            self.close_connection = True
            raise HttpError(
                411, "send the body with a Content-Length (chunked bodies are not accepted)"
            )
        n = self._body_pending
        if n is None:
            self.close_connection = True
            raise HttpError(411, "a request with a body needs a Content-Length header")
        if n < 0:
            self.close_connection = True
            raise HttpError(400, "Content-Length is not a number")
        if n > self.app.max_body:
            raise HttpError(
                413, f"the body is {n} bytes; this server accepts at most {self.app.max_body}"
            )
        if n == 0:
            return None
        data = self._read_exact(n)
        self._body_pending = 0
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if for_mcp:
                return _PARSE_FAILED
            raise HttpError(400, "the body is not UTF-8 text") from None
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as exc:  # ValueError: a figure too long for int
            if for_mcp:
                return _PARSE_FAILED
            where = (
                f" at line {exc.lineno} column {exc.colno}"
                if isinstance(exc, json.JSONDecodeError)
                else ""
            )
            raise HttpError(400, f"the body is not valid JSON{where}") from None

    def _read_exact(self, n: int) -> bytes:
        """The body, which the loop read whole before the request was handed over."""
        data = self.rfile.read(n)
        if len(data) < n:
            self.close_connection = True
            raise HttpError(400, f"the body ended after {len(data)} of {n} bytes")
        return data

    def _settle_body(self) -> None:
        """Leave the connection at the next request: a body the loop read and the route did
        not is dropped with the request; one refused unread (too large) is still on its way,
        so the connection closes after the reply, draining it first so the client reads the
        reply instead of a reset; a body in a framing this server does not speak closes."""
        if self._field("transfer-encoding"):
            self.close_connection = True
        n = self._body_pending
        if n is not None and n < 0:
            self.close_connection = True
        elif n is not None and n > self.app.max_body:
            self.close_connection = True
            self._linger = True

    # ---- output ----------------------------------------------------------
    def _compose(self, resp: Response, *, head: bool) -> bytes:
        """The whole reply, status line to body, as one piece: one write, one segment. The
        head is what the stdlib's send_response and send_header would write, in their order."""
        body = resp.body if not head and resp.status != 304 else b""
        if self.request_version == "HTTP/0.9":
            return body  # no status line or headers in HTTP/0.9
        lines = [
            f"{self.protocol_version} {resp.status} {self.responses.get(resp.status, ('',))[0]}",
            f"Server: {self.version_string()}",
            f"Date: {self.date_time_string()}",
        ]
        if resp.content_type:
            lines.append(f"Content-Type: {resp.content_type}")
        if resp.status != 304:
            lines.append(f"Content-Length: {len(resp.body)}")
        for k, v in resp.headers.items():
            lines.append(f"{k}: {v}")
        if resp.status >= 400:
            lines.append("Cache-Control: no-store")
        if self.close_connection:
            lines.append("Connection: close")
        lines.append("\r\n")
        data = "\r\n".join(lines).encode("latin-1")
        return data + body if body else data

    def _safe_path(self) -> str:
        """The request path with query values dropped (they could be secrets)."""
        raw = getattr(self, "path", "") or ""
        parts = urlsplit(raw)
        if not parts.query:
            return parts.path[:200]
        keys = [p.partition("=")[0] for p in parts.query.split("&") if p]
        return f"{parts.path[:200]}?{'&'.join(k[:30] for k in keys[:10])}"

    def _access_log(self, method: str, status: int, ms: float) -> None:
        if self.app.log is None:
            return
        self.app.log_line(
            f"{self.client_address[0]} {method} {self._safe_path()} {status} {ms:.1f}ms"
        )


#: Host header values already judged (clients send the same one again and again); bounded
_HOST_VERDICTS: dict[str, bool] = {}


def _loopback_host(host_hdr: str) -> bool:
    """Whether a Host header names this machine's loopback (a port may follow)."""
    verdict = _HOST_VERDICTS.get(host_hdr)
    if verdict is None:
        try:
            verdict = _is_loopback_name(urlsplit("//" + host_hdr).hostname or "")
        except ValueError:  # not a host at all ("[::1" and the like)
            verdict = False
        if len(_HOST_VERDICTS) >= 256:
            _HOST_VERDICTS.clear()
        _HOST_VERDICTS[host_hdr] = verdict
    return verdict


def _is_loopback_name(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --------------------------------------------------------------------------- the server


class KuraServer:
    """`kura serve`: the HTTP face on kura_core.faces.httpd's connection loop.

    One thread (:meth:`serve_forever`) owns every connection and serves local work; work that
    may wait goes to the loop's pool (see kura_core.faces.httpd), and so do the read log's writes,
    which may wait on another process's database lock."""

    #: the handler each request is read and answered by
    RequestHandlerClass = Handler

    def __init__(
        self,
        registry: Registry,
        host: str,
        port: int,
        *,
        token: str | None,
        max_body: int,
        log: TextIO | None,
    ):
        self.registry = registry
        self.kura = Kura(registry)
        self.host = host
        self.token = token or None
        self.max_body = max_body
        self.log = log
        self.loopback = _is_loopback_name(host)
        self._log_lock = threading.Lock()
        self._local_recall: set[str] = (
            set()
        )  # stores whose recalls are local work (see recall_waits)
        self.socket = httpd.listen(host, port, backlog=128)
        self.server_address = self.socket.getsockname()[:2]
        self.loop = httpd.Loop(
            self.socket,
            self,
            idle_timeout=IDLE_TIMEOUT_S,
            linger_s=LINGER_S,
            linger_bytes=LINGER_BYTES,
        )
        self.kura.defer_read_log(self.loop.pool.submit)

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def connections(self) -> int:
        """Connections accepted since the server started."""
        return self.loop.connections

    def recall_waits(self, name: str | None) -> bool:
        """Kura.recall_waits, remembered once it says no: the models are fixed for the life
        of the server, and a word index once built is followed, never dropped."""
        key = name or ""
        if key in self._local_recall:
            return False
        if self.kura.recall_waits(store=name):
            return True
        self._local_recall.add(key)
        return False

    # ---- what the loop asks of the application ---------------------------
    def begin(self, head: bytes, peer: Any) -> httpd.Begun:
        return Handler.start(self, peer, head)

    def refuse(self, status: int, message: str, peer: Any) -> bytes:
        h = Handler.blank(self, peer)
        h.request_version = h.protocol_version
        h.send_error(status, message)
        return h.wfile.getvalue()

    # ---- running ---------------------------------------------------------
    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self.loop.serve_forever(poll_interval)

    def shutdown(self) -> None:
        self.loop.shutdown()

    def server_close(self) -> None:
        self.loop.close()
        self.kura.defer_read_log(None)

    def log_line(self, line: str) -> None:
        if self.log is None:
            return
        with self._log_lock:
            try:
                self.log.write(f"kura serve: {line}\n")
                self.log.flush()
            except (OSError, ValueError):
                pass


def server_token(reg: Registry, env: dict[str, str] | None = None) -> str | None:
    """The bearer token named by [server] token_env, or None when none is configured.

    Refuses (ConfigError) when token_env names a variable that is unset or empty: a server
    that was meant to be guarded must not quietly run open.
    """
    var = reg.config.server.token_env
    if not var:
        return None
    value = (reg.env if env is None else env).get(var, "")
    if not value.strip():
        raise ConfigError(
            f"[server] token_env names ${var}, which is unset or empty: export {var}=<a long random "
            "token> (every client then sends 'Authorization: Bearer <token>'), or remove token_env. "
            "The server will not start without it."
        )
    return value.strip()


def make_server(
    reg: Registry,
    host: str | None = None,
    port: int | None = None,
    *,
    token: Any = _USE_CONFIG,
    log: TextIO | None = sys.stderr,
) -> KuraServer:
    """A bound, not yet serving, server. port 0 picks an ephemeral port (see .port / .url)."""
    cfg = reg.config.server
    tok = server_token(reg) if token is _USE_CONFIG else token
    host = cfg.host if host is None else host
    port = cfg.port if port is None else port
    try:
        return KuraServer(reg, host, port, token=tok, max_body=cfg.max_body_bytes, log=log)
    except OSError as exc:
        raise KuraError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port "
            "or stop what is using it"
        ) from None


def start_in_thread(server: KuraServer) -> threading.Thread:
    t = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.1}, name="kura-serve", daemon=True
    )
    t.start()
    return t


def serve_forever(
    reg: Registry, host: str | None = None, port: int | None = None, *, log: TextIO = sys.stderr
) -> int:
    """Run until SIGTERM or SIGINT, then shut down cleanly. For `kura serve`."""
    server = make_server(reg, host, port, log=log)
    stop = threading.Event()
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        worker = start_in_thread(server)
        guard = "bearer token required" if server.token else "no token"
        server.log_line(
            f"listening on {server.url} ({guard}; default store {reg.config.default_store or '-'})"
        )
        if not server.loopback and not server.token:
            server.log_line(
                f"⚠ {server.host} is not loopback and no token_env is set: anyone who can reach "
                "this port can read every store"
            )
        while not stop.wait(0.5):
            if not worker.is_alive():
                break
        crashed = not stop.is_set()
        server.log_line("the server loop ended unexpectedly" if crashed else "stopping")
    finally:
        server.shutdown()
        server.server_close()
        for sig, h in previous.items():
            signal.signal(sig, h)
    return 1 if crashed else 0
