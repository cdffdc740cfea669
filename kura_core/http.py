"""The HTTP face: `kura serve`.

A stdlib ThreadingHTTPServer (daemon threads, HTTP/1.1 keep-alive, Nagle off) that
parses a request, calls the Kura facade, and renders JSON. It holds no logic of its own.

    POST /recall    {question, hops, top, chars, store|mode}
    POST /remember  {slug, description, body, type, title, tags, belongs_because, keep, may_fade,
                    store|mode}   (403 unless direct-allowed; 422 when the floors refuse curation)
    GET  /index     the raw index (text/markdown)
    GET  /prefill   the resident block (JSON; format=text for hooks); ETag / If-None-Match
    GET  /memory/<slug>
    GET  /doctor    (all=1 for every store; 200 with ok:false for an unhealthy store)
    GET  /stores    stores, modes, model roles (never a secret)
    GET  /profile   the charter, and a pointer to the persona file (never its content)
    GET  /health    liveness (the only route a bearer token does not guard)
    POST /mcp       MCP over streamable HTTP (see kura_core.mcp)

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
import hashlib
import hmac
import http.client
import ipaddress
import json
import re
import signal
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, TextIO
from urllib.parse import parse_qs, unquote, urlsplit

from . import __version__
from .errors import ConfigError, KuraError
from .kura import Kura
from .recall import LIMITS, QUESTION_CHARS
from .registry import PATH_PREFIX, Registry
from .turns import Turns

#: seconds an idle keep-alive connection is kept before the server closes it.
IDLE_TIMEOUT_S = 30.0
#: after refusing an oversized body, how long (and how much) to drain before closing, so the
#: client reads the 413 instead of a connection reset.
LINGER_S = 1.0
LINGER_BYTES = 16 * 1024 * 1024

RECALL_FIELDS = {"question", "hops", "top", "chars", "store", "mode"}
REMEMBER_FIELDS = {"slug", "description", "body", "type", "title", "tags", "store", "mode",
                   "belongs_because", "keep", "may_fade"}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_USE_CONFIG = object()


_JSON = json.JSONEncoder(ensure_ascii=False, default=str)  # what json.dumps(…) would build on every call


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
                    raise HttpError(400, f"the body's {key!r} must be a string naming a store or mode")
                sources.append((f"the body's {key!r}", v))
    if not sources:
        return None
    resolved: list[tuple[str, str, str]] = []
    for where, v in sources:
        if v == "":
            raise HttpError(400, f"{where} is empty: name a store or mode, or leave the selector out")
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
        raise HttpError(400, f"unknown field {unknown[0]!r} (accepted: {', '.join(sorted(allowed))})")
    return body


def _json_kind(v: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(v), type(v).__name__)


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
    res = k.recall(question, store=name, **{key: _int_field(body, key, *LIMITS[key]) for key in LIMITS})
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
    cur = {f: _str_field(body, f, limit=2000) for f in ("belongs_because", "keep", "may_fade")}
    mem = k.remember(slug, description, text, store=name, type=mtype, title=title, tags=tags,
                     **{f: v for f, v in cur.items() if v is not None})
    return json_response({"store": k.resolve(name), "slug": mem.slug, "title": mem.title,
                          "description": mem.description, "type": mem.type, "tags": list(mem.tags),
                          **{f: mem.curation(f) for f in cur if mem.curation(f)}})


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
        body = json.dumps({"store": k.resolve(name), **p.to_json()}, ensure_ascii=False,
                          default=str).encode("utf-8")
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
    raw = req.route[len("/memory/"):]
    try:
        slug = unquote(raw, errors="strict")  # decoded exactly once; check_slug does the rest
    except UnicodeDecodeError:
        raise HttpError(400, "the slug is not valid percent-encoded UTF-8") from None
    mem = k.read(slug, store=name)
    return json_response({"store": k.resolve(name), **mem.to_json()})


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
    from .mcp import LocalBackend, McpSession, parse_error_reply

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
_MAX_HEADER_LINE = 65536
_MAX_HEADERS = 100

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
#: body selectors do not apply to /mcp: its body is a JSON-RPC message.
_NO_BODY_SELECTORS = {"/mcp"}
#: routes whose work takes turns in arrival order (kura_core.turns); a recall steps aside
#: while it waits on a model.
_TAKES_TURNS = {"/recall"}


def _lookup(route: str) -> dict[str, Callable[..., Response]] | None:
    if route in ROUTES:
        return ROUTES[route]
    if route.startswith("/memory/") and len(route) > len("/memory/"):
        return MEMORY_ROUTE
    return None


# --------------------------------------------------------------------------- the handler

class Handler(BaseHTTPRequestHandler):
    # set by the stdlib handler but not declared in its stubs
    raw_requestline: bytes
    _headers_buffer: list[bytes]
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = f"kura/{__version__}"
    sys_version = ""

    def version_string(self) -> str:
        return self.server_version
    timeout = IDLE_TIMEOUT_S
    server: "KuraServer"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # one access line per request is written by _access_log instead

    # every method goes through one dispatcher so unknown methods get a JSON 405
    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_OPTIONS(self) -> None:
        self._dispatch("OPTIONS")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Protocol-level errors from the stdlib parser, as JSON like every other error."""
        self.close_connection = True
        try:
            self._write(json_response({"error": message or http.client.responses.get(code, "error")}, code),
                        head=False)
        except OSError:
            pass
        self._access_log(getattr(self, "command", None) or "-", code, 0.0)

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
                self.send_error(431, "Line too long", f"got more than {_MAX_HEADER_LINE} bytes when reading header line")
                return False
            lines.append(line)
            if len(lines) > _MAX_HEADERS:
                self.send_error(431, "Too many headers", f"got more than {_MAX_HEADERS} headers")
                return False
            if line in (b"\r\n", b"\n", b""):
                break
        plain = [h for h in (_PLAIN_HEADER_LINE.fullmatch(line) for line in lines[:-1]) if h is not None]
        if lines[-1] and len(plain) == len(lines) - 1:
            headers = self.MessageClass()
            for h in plain:
                headers.set_raw(h.group(1).decode("iso-8859-1"), h.group(2).decode("iso-8859-1"))
        else:
            headers = email.parser.Parser(_class=self.MessageClass).parsestr(b"".join(lines).decode("iso-8859-1"))
        self.headers = headers
        conntype = headers.get("Connection", "").lower()
        if conntype == "close":
            self.close_connection = True
        elif conntype == "keep-alive" and self.protocol_version >= "HTTP/1.1":
            self.close_connection = False
        if (headers.get("Expect", "").lower() == "100-continue" and version == "HTTP/1.1"
                and self.protocol_version >= "HTTP/1.1"):
            return self.handle_expect_100()
        return True

    # ---- dispatch --------------------------------------------------------
    def handle_expect_100(self) -> bool:
        n = self._declared_length()
        if n is not None and n > self.server.max_body:
            self.send_error(413, f"the body is {n} bytes; this server accepts at most {self.server.max_body}")
            return False
        return super().handle_expect_100()

    def _dispatch(self, method: str) -> None:
        t0 = time.perf_counter()
        self._linger = False
        self._body_pending = self._declared_length()
        try:
            resp = self._handle(method)
        except HttpError as exc:
            resp = json_response({"error": exc.message}, exc.status, exc.headers)
        except KuraError as exc:
            resp = json_response({"error": str(exc)}, getattr(exc, "status", 400) or 400)
        except (ConnectionError, TimeoutError):
            self.close_connection = True
            resp = json_response({"error": "the connection failed while the request was read"}, 400)
        except OSError as exc:
            # the disk refused something no core path mapped: still say what, never "internal"
            from .fsutil import storage_error

            err = storage_error(exc, f"answer {method} {urlsplit(self.path).path[:80]}", exc.filename or ".")
            resp = json_response({"error": str(err)}, err.status)
        except Exception:
            self.server.log_line("internal error while answering "
                                 f"{method} {self._safe_path()}:\n{traceback.format_exc()}".rstrip())
            resp = json_response({"error": "internal error"}, 500)
        self._settle_body()
        try:
            self._write(resp, head=(method == "HEAD"))
        except OSError:
            self.close_connection = True
        self._access_log(method, resp.status, (time.perf_counter() - t0) * 1000)

    def _handle(self, method: str) -> Response:
        srv = self.server
        parts = urlsplit(self.path)
        raw_path = parts.path or "/"
        prefix: str | None = None
        route = raw_path
        if raw_path.startswith(PATH_PREFIX):
            rest = raw_path[len(PATH_PREFIX):]
            raw_name, _, tail = rest.partition("/")
            prefix = unquote(raw_name)
            route = "/" + tail
        try:
            query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=False,
                             errors="strict", max_num_fields=64)
        except (ValueError, UnicodeDecodeError):
            raise HttpError(400, "the query string could not be parsed") from None

        self._check_host()
        if srv.token and not (route == "/health" and prefix is None and not query):
            self._check_token()

        methods = _lookup(route)
        if methods is None:
            raise HttpError(404, f"no route {route[:80]!r}: see GET /health, /stores, /doctor, /index, "
                                 "/prefill, /profile, /memory/<slug>, POST /recall, /remember, /mcp")
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
        if route in _TAKES_TURNS:  # the body is read and the reply not yet sent: local work only
            with srv.turns.turn():
                return methods[verb](srv.kura, req, name)
        return methods[verb](srv.kura, req, name)

    # ---- checks ----------------------------------------------------------
    def _check_host(self) -> None:
        """Refuse DNS-rebinding: a loopback server answers only to loopback names."""
        origin = self.headers.get("Origin")
        if origin and origin != "null":
            host = urlsplit(origin).hostname or ""
            if not _is_loopback_name(host) and host != self.server.host:
                raise HttpError(403, "requests from web pages on other origins are refused")
        if self.server.loopback:
            host_hdr = self.headers.get("Host", "")
            host = (urlsplit("//" + host_hdr).hostname or "") if host_hdr else ""
            if host_hdr and not _is_loopback_name(host):
                raise HttpError(403, "this server listens on loopback and answers only to a loopback "
                                     "Host (127.0.0.1, localhost or ::1)")

    def _check_token(self) -> None:
        got = self.headers.get("Authorization", "")
        scheme, _, value = got.partition(" ")
        ok = scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode("utf-8", "replace"), (self.server.token or "").encode("utf-8"))
        if not ok:
            raise HttpError(401, "this server needs a bearer token: send 'Authorization: Bearer <token>'"
                            if not got else "the bearer token was not accepted",
                            {"WWW-Authenticate": 'Bearer realm="kura"'})

    # ---- bodies ----------------------------------------------------------
    def _declared_length(self) -> int | None:
        v = self.headers.get("Content-Length")
        if v is None:
            return None
        v = v.strip()
        if not v.isdigit():
            return -1
        return int(v)

    def _read_json(self, for_mcp: bool) -> Any:
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise HttpError(411, "send the body with a Content-Length (chunked bodies are not accepted)")
        n = self._body_pending
        if n is None:
            self.close_connection = True
            raise HttpError(411, "a request with a body needs a Content-Length header")
        if n < 0:
            self.close_connection = True
            raise HttpError(400, "Content-Length is not a number")
        if n > self.server.max_body:
            raise HttpError(413, f"the body is {n} bytes; this server accepts at most {self.server.max_body}")
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
        except (json.JSONDecodeError, RecursionError) as exc:
            if for_mcp:
                return _PARSE_FAILED
            where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            raise HttpError(400, f"the body is not valid JSON{where}") from None

    def _read_exact(self, n: int) -> bytes:
        chunks, left = [], n
        while left > 0:
            chunk = self.rfile.read(min(left, 65536))
            if not chunk:
                self.close_connection = True
                raise HttpError(400, f"the body ended after {n - left} of {n} bytes")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _settle_body(self) -> None:
        """Leave the connection at the next request: discard an unread body, or close."""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True  # a body we will not read in a framing we do not speak
        n = self._body_pending
        if not n or n < 0:
            if n is not None and n < 0:
                self.close_connection = True
            return
        if n <= self.server.max_body:
            try:
                self._read_exact(n)
                self._body_pending = 0
                return
            except (HttpError, OSError):
                pass
        self.close_connection = True
        self._linger = True

    # ---- output ----------------------------------------------------------
    def _write(self, resp: Response, *, head: bool) -> None:
        self.send_response(resp.status)
        if resp.content_type:
            self.send_header("Content-Type", resp.content_type)
        if resp.status != 304:
            self.send_header("Content-Length", str(len(resp.body)))
        for k, v in resp.headers.items():
            self.send_header(k, v)
        if resp.status >= 400:
            self.send_header("Cache-Control", "no-store")
        if self.close_connection:
            self.send_header("Connection", "close")
        body = resp.body if not head and resp.status != 304 else b""
        if body and self.request_version != "HTTP/0.9" and isinstance(getattr(self, "_headers_buffer", None), list):
            # head and body in one write: one syscall and one segment per reply, not two
            self._headers_buffer += (b"\r\n", body)
            self.flush_headers()
        else:
            self.end_headers()
            if body:
                self.wfile.write(body)
        self.wfile.flush()
        if getattr(self, "_linger", False):
            self._linger = False
            _linger_close(self.connection)

    def _safe_path(self) -> str:
        """The request path with query values dropped (they could be secrets)."""
        raw = getattr(self, "path", "") or ""
        parts = urlsplit(raw)
        if not parts.query:
            return parts.path[:200]
        keys = [p.partition("=")[0] for p in parts.query.split("&") if p]
        return f"{parts.path[:200]}?{'&'.join(k[:30] for k in keys[:10])}"

    def _access_log(self, method: str, status: int, ms: float) -> None:
        if self.server.log is None:
            return
        self.server.log_line(f"{self.client_address[0]} {method} {self._safe_path()} {status} {ms:.1f}ms")


def _linger_close(conn: socket.socket) -> None:
    """Half-close, then read and drop what the client is still sending, for a bounded time."""
    try:
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(0.2)
        deadline = time.monotonic() + LINGER_S
        got = 0
        while time.monotonic() < deadline and got < LINGER_BYTES:
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += len(chunk)
    except OSError:
        pass


def _is_loopback_name(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --------------------------------------------------------------------------- the server

class KuraServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, registry: Registry, host: str, port: int, *, token: str | None,
                 max_body: int, log: TextIO | None):
        self.registry = registry
        self.kura = Kura(registry)
        self.host = host
        self.token = token or None
        self.max_body = max_body
        self.log = log
        self.loopback = _is_loopback_name(host)
        self._log_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self.connections = 0
        self.turns = Turns()
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._count_lock:
            self.connections += 1
        super().process_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, socket.timeout)):
            return
        self.log_line(f"connection from {client_address[0]} failed:\n{traceback.format_exc()}".rstrip())

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


def make_server(reg: Registry, host: str | None = None, port: int | None = None, *,
                token: Any = _USE_CONFIG, log: TextIO | None = sys.stderr) -> KuraServer:
    """A bound, not yet serving, server. port 0 picks an ephemeral port (see .port / .url)."""
    cfg = reg.config.server
    tok = server_token(reg) if token is _USE_CONFIG else token
    host = cfg.host if host is None else host
    port = cfg.port if port is None else port
    try:
        return KuraServer(reg, host, port, token=tok, max_body=cfg.max_body_bytes, log=log)
    except OSError as exc:
        raise KuraError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port "
                        "or stop what is using it") from None


def start_in_thread(server: KuraServer) -> threading.Thread:
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                         name="kura-serve", daemon=True)
    t.start()
    return t


def serve_forever(reg: Registry, host: str | None = None, port: int | None = None, *,
                  log: TextIO = sys.stderr) -> int:
    """Run until SIGTERM or SIGINT, then shut down cleanly. For `kura serve`."""
    server = make_server(reg, host, port, log=log)
    stop = threading.Event()
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        worker = start_in_thread(server)
        guard = "bearer token required" if server.token else "no token"
        server.log_line(f"listening on {server.url} ({guard}; default store {reg.config.default_store or '-'})")
        if not server.loopback and not server.token:
            server.log_line(f"⚠ {server.host} is not loopback and no token_env is set: anyone who can reach "
                            "this port can read every store")
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
