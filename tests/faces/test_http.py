"""`kura serve` on an ephemeral loopback port, driven with httpx (and raw http.client
where a URL must reach the server byte for byte)."""

from __future__ import annotations

import http.client
import io
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_registry, merge_tables
from tests.wait import wait_for

ROOT = Path(__file__).resolve().parents[2]

HEARTH = {  # direct-allowed; mode "talk"
    "archive-on-slow-disk": (
        "Archive on the slow disk",
        "the archive lives on the slow disk; the fast one stays scratch",
        "The archive goes on the slow disk.\n\nRelated: [[disk-layout]]",
    ),
    "disk-layout": (
        "Disk layout",
        "two disks: a slow 8 TB archive and a fast NVMe scratch",
        "The slow disk is 8 TB. The fast disk is NVMe.\n\nRelated: [[archive-on-slow-disk]]",
    ),
}
FORGE = {  # distiller-only; mode "build"
    "kiln-temperature": (
        "Kiln temperature",
        "the kiln fires at 1240 C for stoneware; FORGE-ONLY-FACT",
        "Stoneware fires at 1240 C. FORGE-ONLY-FACT",
    ),
}
NAMES = ("hearth", "forge")


class Live:
    def __init__(self, server, reg, log: io.StringIO):
        self.server, self.reg, self.log = server, reg, log
        self.url = server.url
        self.client = httpx.Client(base_url=self.url, timeout=10)

    def raw(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        """One request with the path sent exactly as given."""
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            hdrs = dict(headers or {})
            if body is not None and "Content-Length" not in hdrs:
                hdrs["Content-Length"] = str(len(body))
            for k, v in hdrs.items():
                conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            conn.close()


def _start(tmp_path, *, extra=None, env=None, token=None, log=None):
    from kura_core.faces.http import make_server, start_in_thread

    cfg = {
        "stores": {"hearth": {"write_policy": "direct-allowed"}},
        "modes": {"talk": "hearth", "build": "forge"},
        "server": {"max_body_bytes": 4096},
    }
    merge_tables(cfg, extra or {})
    reg = make_registry(
        tmp_path / "stores", stores={"hearth": HEARTH, "forge": FORGE}, extra=cfg, env=env
    )
    log = log if log is not None else io.StringIO()
    kw = {} if token is None else {"token": token}
    server = make_server(reg, "127.0.0.1", 0, log=log, **kw)
    start_in_thread(server)
    return Live(server, reg, log)


def _stop(live: Live) -> None:
    live.client.close()
    live.server.shutdown()
    live.server.server_close()
    live.reg.close()


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """One server for the tests that change nothing (store setup is the slow part)."""
    lv = _start(tmp_path_factory.mktemp("shared"))
    yield lv
    _stop(lv)


@pytest.fixture
def fresh(tmp_path):
    """A server of one's own, for tests that write."""
    lv = _start(tmp_path)
    yield lv
    _stop(lv)


def _is_json_error(r_status: int, body: bytes, status: int | tuple[int, ...]) -> str:
    want = status if isinstance(status, tuple) else (status,)
    assert r_status in want, (r_status, body[:300])
    obj = json.loads(body)
    assert set(obj) == {"error"} and isinstance(obj["error"], str) and obj["error"], obj
    assert b"Traceback" not in body
    return obj["error"]


def err(r: httpx.Response, status: int | tuple[int, ...]) -> str:
    assert r.headers["content-type"].startswith("application/json"), r.headers
    return _is_json_error(r.status_code, r.content, status)


# --------------------------------------------------------------------------- routes


def test_health_and_head(live):
    r = live.client.get("/health")
    assert r.status_code == 200 and r.json()["ok"] is True and r.json()["name"] == "kura"
    h = live.client.head("/health")
    assert h.status_code == 200 and h.content == b""
    assert live.client.get("/health", params={"store": "talk"}).json()["store"] == "hearth"


def test_recall_answers_with_every_selector_form(live):
    q = {"question": "where does the archive live"}
    forms = [
        ("POST", "/recall?store=hearth", q),
        ("POST", "/recall?mode=talk", q),
        ("POST", "/recall", {**q, "store": "hearth"}),
        ("POST", "/recall", {**q, "mode": "talk"}),
        ("POST", "/s/hearth/recall", q),
        ("POST", "/s/talk/recall", q),
        ("POST", "/s/talk/recall?store=hearth", {**q, "mode": "talk"}),  # all agree: fine
    ]
    for method, path, body in forms:
        r = live.client.request(method, path, json=body)
        assert r.status_code == 200, (path, r.text)
        d = r.json()
        assert d["store"] == "hearth"
        assert d["how"] == "words" and d["degraded"] is True
        assert d["notice"].startswith("⚠ degraded: recalled by words")
        assert d["picked"][0] == "archive-on-slow-disk"
        assert "disk-layout" in d["walked"]  # one hop along [[links]]
        assert "FORGE-ONLY-FACT" not in r.text
    d = live.client.post(
        "/recall", json={"question": "kiln stoneware", "mode": "build", "top": 1, "hops": 0}
    ).json()
    assert d["store"] == "forge" and d["walked"] == ["kiln-temperature"]


def test_default_store_answers_without_a_selector(live):
    assert live.client.post("/recall", json={"question": "archive"}).json()["store"] == "hearth"


@pytest.mark.parametrize(
    "route", ["/index", "/memory/{slug}", "/doctor", "/stores", "/profile", "/health", "/prefill"]
)
def test_get_routes_take_every_selector_form(live, route):
    for name, slug in (("hearth", "disk-layout"), ("forge", "kiln-temperature")):
        mode = {"hearth": "talk", "forge": "build"}[name]
        path = route.format(slug=slug)
        for req in (
            dict(url=path, params={"store": name}),
            dict(url=path, params={"mode": mode}),
            dict(url=f"/s/{name}{path}"),
            dict(url=f"/s/{mode}{path}"),
            dict(
                url=path,
                content=json.dumps({"store": name}),
                headers={"content-type": "application/json"},
            ),
            dict(
                url=path,
                content=json.dumps({"mode": mode}),
                headers={"content-type": "application/json"},
            ),
        ):
            r = live.client.request("GET", **req)
            assert r.status_code == 200, (req, r.text)
            if route == "/index":
                assert r.headers["content-type"].startswith("text/markdown")
                assert f"({slug}.md)" in r.text
            else:
                d = r.json()
                if route == "/stores":
                    assert d["selected"] == name
                else:
                    assert d["store"] == name
        # the other store's content never leaks in
        if route in ("/index", "/memory/{slug}"):
            r = live.client.get(path, params={"store": name})
            assert ("FORGE-ONLY-FACT" in r.text) == (name == "forge")


def test_index_is_the_raw_markdown(live):
    r = live.client.get("/index", params={"store": "hearth"})
    assert r.text == (live.reg.store("hearth").index_path).read_text(encoding="utf-8")


def test_memory_returns_one_memory_in_full(live):
    d = live.client.get("/memory/archive-on-slow-disk").json()
    assert d["slug"] == "archive-on-slow-disk" and d["store"] == "hearth"
    assert "The archive goes on the slow disk." in d["body"]
    assert d["links"] == ["disk-layout"]
    r = live.client.get("/memory/no-such-memory")
    assert "no-such-memory" in err(r, 404)
    # a memory of another store is not found here
    err(live.client.get("/memory/kiln-temperature", params={"store": "hearth"}), 404)


def test_stores_names_roles_and_never_a_secret(tmp_path):
    lv = _start(
        tmp_path,
        extra={
            "models": {
                "thinker": {
                    "url": "http://127.0.0.1:9/v1",
                    "model": "m",
                    "api_key_env": "KURA_TEST_API_KEY",
                }
            }
        },
        env={"KURA_TEST_API_KEY": "sk-never-show-this-value"},
    )
    try:
        for path in ("/stores", "/doctor", "/doctor?all=1", "/profile", "/health"):
            r = lv.client.get(path)
            assert r.status_code == 200, r.text
            assert "sk-never-show-this-value" not in r.text
        d = lv.client.get("/stores").json()
        assert [s["name"] for s in d["stores"]] == ["hearth", "forge"]
        assert d["modes"] == {"talk": "hearth", "build": "forge"}
        assert d["models"]["thinker"]["api_key_env"] == "KURA_TEST_API_KEY"
        assert d["models"]["thinker"]["model"] == "m"
        assert d["models"]["thinker"]["last_error"] is None
        # a failed recall (nothing listens on port 9) is named in /stores, never silently None
        lv.client.post("/recall", json={"question": "archive", "store": "hearth"})
        after = lv.client.get("/stores").json()["models"]["thinker"]
        assert "connection refused" in after["last_error"]
        assert "sk-never-show-this-value" not in json.dumps(after)
    finally:
        _stop(lv)


def test_profile_gives_the_charter_and_only_points_at_the_persona(tmp_path):
    persona = tmp_path / "persona.md"
    persona.write_text("PERSONA-CONTENT-NEVER-RENDERED", encoding="utf-8")
    lv = _start(tmp_path, extra={"stores": {"hearth": {"persona": str(persona)}}})
    try:
        (lv.reg.store("hearth").root / "charter.md").write_text(
            "This store keeps how the house runs.\n"
        )
        d = lv.client.get("/profile", params={"mode": "talk"}).json()
        assert d["store"] == "hearth"
        assert d["charter"] == "This store keeps how the house runs."
        assert d["persona"] == {"path": str(persona), "exists": True}
        assert "PERSONA-CONTENT" not in json.dumps(d)
        assert lv.client.get("/s/forge/profile").json()["persona"] is None
    finally:
        _stop(lv)


def test_doctor_answers_200_with_ok_false_for_an_unhealthy_store(fresh):
    # hearth is healthy; break forge with a dead link and a line with no file
    st = fresh.reg.store("forge")
    st.write(
        "glaze-notes",
        title="Glaze notes",
        description="celadon glaze recipe",
        body="Celadon. See [[does-not-exist]].",
    )
    r = fresh.client.get("/doctor", params={"store": "forge"})
    assert r.status_code == 200
    d = r.json()
    assert d["ok"] is False and d["store"] == "forge"
    assert {"from": "glaze-notes", "to": "does-not-exist"} in d["dead_links"]
    a = fresh.client.get("/doctor", params={"all": "1"})
    assert a.status_code == 200
    da = a.json()
    assert da["ok"] is False and [s["store"] for s in da["stores"]] == ["hearth", "forge"]
    assert "every store" in err(fresh.client.get("/s/forge/doctor?all=1"), 400)
    err(fresh.client.get("/doctor", params={"all": "maybe"}), 400)


def test_remember_writes_only_where_direct_writes_are_allowed(fresh):
    r = fresh.client.post(
        "/remember",
        json={
            "slug": "boiler-service",
            "description": "boiler serviced every May by Ito",
            "body": "The boiler is serviced every May.",
            "type": "project",
            "tags": ["decision"],
            "mode": "talk",
        },
    )
    assert r.status_code == 200, r.text
    assert r.json()["store"] == "hearth" and r.json()["slug"] == "boiler-service"
    got = fresh.client.get("/memory/boiler-service", params={"store": "hearth"}).json()
    assert got["body"].startswith("The boiler is serviced every May.") and got["tags"] == [
        "decision"
    ]
    assert "boiler-service" in fresh.client.get("/index").text

    r = fresh.client.post(
        "/s/forge/remember", json={"slug": "x-fact", "description": "d", "body": "b"}
    )
    msg = err(r, 403)
    assert "distiller-only" in msg
    assert not (fresh.reg.store("forge").root / "x-fact.md").exists()


@pytest.mark.parametrize(
    "body,status",
    [
        ({"description": "d", "body": "b"}, 400),  # missing slug
        ({"slug": "a-b", "body": "b"}, 400),  # missing description
        ({"slug": "a-b", "description": "d"}, 400),  # missing body
        ({"slug": 5, "description": "d", "body": "b"}, 400),  # wrong type
        ({"slug": "a-b", "description": "d", "body": "b", "tags": "x"}, 400),  # tags not a list
        ({"slug": "a-b", "description": "d", "body": "b", "tags": [1]}, 400),
        ({"slug": "a-b", "description": "d", "body": "b", "type": "weird"}, 400),
        ({"slug": "a-b", "description": "d", "body": "b", "colour": "red"}, 400),  # unknown field
        ({"slug": "../escape", "description": "d", "body": "b"}, 400),
        ({"slug": "MEMORY", "description": "d", "body": "b"}, 400),
        ({"slug": "charter", "description": "d", "body": "b"}, 400),
        ({"slug": "profile", "description": "d", "body": "b"}, 400),
        ({"slug": "_still", "description": "d", "body": "b"}, 400),
        ({"slug": "Not A Slug", "description": "d", "body": "b"}, 400),
        ({"slug": "a-b", "description": "   ", "body": "b"}, 400),
    ],
)
def test_remember_refuses_bad_fields(live, body, status):
    before = live.client.get("/index").text
    err(live.client.post("/remember", json=body), status)
    assert live.client.get("/index").text == before
    assert not (live.reg.store("hearth").root / "_still.md").exists()


# --------------------------------------------------------------------------- selectors


def test_conflicting_selectors_are_400(live):
    q = {"question": "archive"}
    cases = [
        ("/s/hearth/recall", {**q, "store": "forge"}),
        ("/s/talk/recall", {**q, "mode": "build"}),
        ("/recall?store=hearth", {**q, "mode": "build"}),
        ("/recall?store=hearth&mode=build", q),
        ("/recall?store=hearth&store=forge", q),
        ("/s/forge/recall?store=hearth", q),
    ]
    for path, body in cases:
        msg = err(live.client.post(path, json=body), 400)
        assert "conflicting selectors" in msg
    msg = err(live.client.get("/s/hearth/index", params={"mode": "build"}), 400)
    assert "conflicting" in msg


_ROUTES = [
    "/recall",
    "/index",
    "/memory/disk-layout",
    "/doctor",
    "/stores",
    "/profile",
    "/prefill",
    "/health",
    "/mcp",
    "/remember",
]
_HOWS = ["query-store", "query-mode", "body-store", "body-mode", "path"]


# An MCP body is a JSON-RPC message, so a store field in it is a tool argument, not a
# selector: those two combinations are covered by the MCP tests instead.
@pytest.mark.parametrize(
    "how,route",
    [(h, r) for r in _ROUTES for h in _HOWS if not (r == "/mcp" and h.startswith("body-"))],
)
def test_unknown_selectors_are_404_and_never_list_the_stores(live, how, route):
    method = "POST" if route in ("/recall", "/mcp", "/remember") else "GET"
    body: dict = {"question": "x"} if route == "/recall" else {}
    if route == "/remember":
        body = {"slug": "a-b", "description": "d", "body": "b"}
    if route == "/mcp":
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    path, params = route, {}
    if how == "query-store":
        params = {"store": "atlantis"}
    elif how == "query-mode":
        params = {"mode": "atlantis"}
    elif how == "body-store":
        body = {**body, "store": "atlantis"}
    elif how == "body-mode":
        body = {**body, "mode": "atlantis"}
    else:
        path = "/s/atlantis" + route
    kw = {"json": body} if body else {}
    r = live.client.request(method, path, params=params, **kw)
    msg = err(r, 404)
    assert "atlantis" in msg
    for name in ("hearth", "forge", "talk", "build"):
        assert name not in r.text


def test_empty_or_wrongly_typed_selectors_are_400(live):
    err(live.client.post("/recall?store=", json={"question": "x"}), 400)
    err(live.client.post("/recall", json={"question": "x", "store": ""}), 400)
    err(live.client.post("/recall", json={"question": "x", "store": 7}), 400)
    err(live.client.post("/recall", json={"question": "x", "mode": ["hearth"]}), 400)
    err(live.client.get("/s//index"), 400)
    err(live.client.request("GET", "/index", content=b'{"store": "hearth", "x": 1}'), 400)


# --------------------------------------------------------------------------- bad input


def test_bad_json_and_wrong_shapes(live):
    for content in (b"{not json", b"", b"[1, 2]", b'"question"', b"null", b"\xff\xfe\xfd"):
        err(
            live.client.post(
                "/recall", content=content, headers={"content-type": "application/json"}
            ),
            400,
        )
    for body in (
        {},
        {"question": ""},
        {"question": 42},
        {"question": "x", "hops": "two"},
        {"question": "x", "hops": True},
        {"question": "x", "top": 0},
        {"question": "x", "hops": 99},
        {"question": "x", "chars": 1.5},
        {"question": "x", "qestion": "typo"},
    ):
        msg = err(live.client.post("/recall", json=body), 400)
        assert msg
    assert "question" in err(live.client.post("/recall", json={}), 400)
    assert "qestion" in err(
        live.client.post("/recall", json={"question": "x", "qestion": "y"}), 400
    )
    assert "hops" in err(live.client.post("/recall", json={"question": "x", "hops": "two"}), 400)


def test_unknown_routes_and_wrong_methods(live):
    assert "no route" in err(live.client.get("/nope"), 404)
    err(live.client.get("/s/hearth/nope"), 404)
    err(live.client.get("/"), 404)
    err(live.client.get("/memory/"), 404)
    r = live.client.get("/recall")
    err(r, 405)
    assert r.headers["allow"] == "POST"
    r = live.client.post("/index", json={})
    err(r, 405)
    assert "GET" in r.headers["allow"]
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        err(live.client.request(method, "/recall"), 405)
    r = live.client.get("/mcp")
    err(r, 405)
    assert r.headers["allow"] == "POST"
    err(live.client.delete("/mcp"), 405)


def test_body_limits(live):
    big = json.dumps({"question": "x" * 5000}).encode()
    msg = err(
        live.client.post("/recall", content=big, headers={"content-type": "application/json"}), 413
    )
    assert "4096" in msg
    # refused from Content-Length alone, before any of the body is read
    s, _, body = live.raw("POST", "/recall", headers={"Content-Length": "999999999"})
    _is_json_error(s, body, 413)
    # a POST body with no Content-Length (chunked) is refused
    s, _, body = live.raw(
        "POST", "/recall", headers={"Transfer-Encoding": "chunked"}, body=b"5\r\nhello\r\n0\r\n\r\n"
    )
    _is_json_error(s, body, 411)
    s, _, body = live.raw("POST", "/recall")
    _is_json_error(s, body, 411)
    s, _, body = live.raw("POST", "/recall", headers={"Content-Length": "ten"})
    _is_json_error(s, body, 400)
    # the server is still fine afterwards
    assert live.client.get("/health").status_code == 200


def test_protocol_garbage_gets_a_json_error(live):
    def send(raw: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", live.server.port), timeout=5) as s:
            s.sendall(raw)
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks)

    # an HTTP/0.9-style line gets a bare body (no status line in 0.9), still JSON
    assert json.loads(send(b"GARBAGE\r\n\r\n"))["error"].startswith("Bad request syntax")
    data = send(b"POST /recall HTTP/1.1\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n")
    assert b" 400 " in data.split(b"\r\n")[0], data[:200]
    data = send(b"GET /health HTTP/1.1\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n")
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0].startswith(b"HTTP/1.") and b" 431 " in head.split(b"\r\n")[0]
    assert json.loads(body)["error"]
    assert live.client.get("/health").status_code == 200


def test_an_unexpected_exception_is_a_bare_500_logged_to_stderr(live, monkeypatch):
    from kura_core.kura import Kura

    def boom(self, **kw):
        raise RuntimeError("boom with /private/detail")

    start = len(live.log.getvalue())
    monkeypatch.setattr(Kura, "index", boom)
    r = live.client.get("/index")
    assert r.status_code == 500 and r.json() == {"error": "internal error"}
    assert "boom" not in r.text
    log = live.log.getvalue()[start:]
    assert "Traceback" in log and "boom with /private/detail" in log
    assert live.client.get("/health").status_code == 200


# --------------------------------------------------------------------------- containment

OUTSIDE = "OUTSIDE-SECRET-CONTENT"


@pytest.fixture(scope="module")
def trapped(tmp_path_factory):
    """An outside file, a symlink and a hard link to it inside the store, and reserved files."""
    tmp_path = tmp_path_factory.mktemp("trapped")
    live = _start(tmp_path)
    root = live.reg.store("hearth").root
    outside = tmp_path / "outside.md"
    outside.write_text(
        f"---\nname: x\ndescription: {OUTSIDE}\n---\n\n{OUTSIDE}\n", encoding="utf-8"
    )
    os.symlink(outside, root / "sneaky-link.md")
    os.link(outside, root / "hard-link.md")
    (root / "charter.md").write_text(f"charter {OUTSIDE}\n", encoding="utf-8")
    (root / "profile.md").write_text(f"profile {OUTSIDE}\n", encoding="utf-8")
    (root / "_still" / "notes.md").write_text(f"still {OUTSIDE}\n", encoding="utf-8")
    (root.parent / "sibling.md").write_text(f"{OUTSIDE}\n", encoding="utf-8")
    yield live
    _stop(live)


CONTAINMENT_PATHS = [
    "/memory/..%2fsibling",
    "/memory/%2e%2e%2fsibling",
    "/memory/%2e%2e%2F%2e%2e%2Foutside",
    "/memory/%2E%2E/sibling",
    "/memory/../sibling",
    "/memory/..",
    "/memory/%2e%2e",
    "/memory/%252e%252e%252fsibling",
    "/memory/%2Fetc%2Fpasswd",
    "/memory//etc/passwd",
    "/memory/%2fetc%2fpasswd",
    "/memory/..%5csibling",
    "/memory/sibling%00",
    "/memory/%00",
    "/memory/sneaky-link",
    "/memory/sneaky-link.md",
    "/memory/hard-link",
    "/memory/MEMORY",
    "/memory/MEMORY.md",
    "/memory/memory",
    "/memory/charter",
    "/memory/Charter.md",
    "/memory/profile",
    "/memory/_still",
    "/memory/_still%2fnotes",
    "/memory/_still/notes",
    "/memory/%5fstill%2fnotes",
    "/memory/readme",
    "/memory/%ff%fe",
    "/s/hearth/memory/..%2fsibling",
    "/s/..%2fhearth/memory/disk-layout",
    "/s/%2e%2e/memory/disk-layout",
]


@pytest.mark.parametrize("path", CONTAINMENT_PATHS)
def test_memory_never_serves_a_file_outside_or_reserved(trapped, path):
    status, headers, body = trapped.raw("GET", path)
    _is_json_error(status, body, (400, 404))
    assert OUTSIDE.encode() not in body
    assert b"root:" not in body


def test_containment_errors_say_what_was_wrong(trapped):
    _, _, body = trapped.raw("GET", "/memory/sneaky-link")
    assert "symbolic link" in json.loads(body)["error"]
    _, _, body = trapped.raw("GET", "/memory/hard-link")
    assert "hard-linked" in json.loads(body)["error"]
    _, _, body = trapped.raw("GET", "/memory/charter")
    assert "reserved" in json.loads(body)["error"]
    _, _, body = trapped.raw("GET", "/memory/%2e%2e%2fsibling")
    assert "'..'" in json.loads(body)["error"] or "separator" in json.loads(body)["error"]


# --------------------------------------------------------------------------- the guard


def test_bearer_token_guards_everything_but_health(tmp_path):
    lv = _start(
        tmp_path,
        extra={"server": {"token_env": "KURA_TEST_TOKEN"}},
        env={"KURA_TEST_TOKEN": "tok-3f9a7c0e5d"},
    )
    try:
        assert lv.server.token == "tok-3f9a7c0e5d"
        assert lv.client.get("/health").status_code == 200
        for method, path in (
            ("GET", "/stores"),
            ("GET", "/index"),
            ("GET", "/memory/disk-layout"),
            ("POST", "/recall"),
            ("POST", "/mcp"),
            ("GET", "/nope"),
            ("GET", "/health?store=hearth"),
            ("GET", "/s/hearth/health"),
        ):
            r = lv.client.request(
                method, path, json={"question": "x"} if method == "POST" else None
            )
            err(r, 401)
            assert r.headers["www-authenticate"].startswith("Bearer")
            assert "hearth" not in r.text
        for bad in (
            "Bearer wrong",
            "Bearer tok-3f9a7c0e5",
            "Basic dG9rLTNmOWE3YzBlNWQ=",
            "tok-3f9a7c0e5d",
            "",
        ):
            err(lv.client.get("/stores", headers={"Authorization": bad}), 401)
        ok = lv.client.get("/stores", headers={"Authorization": "Bearer tok-3f9a7c0e5d"})
        assert ok.status_code == 200
        r = lv.client.post(
            "/recall",
            json={"question": "archive"},
            headers={"Authorization": "bearer tok-3f9a7c0e5d"},
        )
        assert r.status_code == 200
        assert "tok-3f9a7c0e5d" not in lv.log.getvalue()
    finally:
        _stop(lv)


def test_server_refuses_to_start_when_token_env_is_unset(tmp_path):
    from kura_core.errors import ConfigError
    from kura_core.faces.http import make_server

    for env in ({}, {"KURA_TEST_TOKEN": ""}, {"KURA_TEST_TOKEN": "   "}):
        reg = make_registry(
            tmp_path / f"s{len(env)}{len(next(iter(env.values()), ''))}",
            stores={"hearth": {}},
            extra={"server": {"token_env": "KURA_TEST_TOKEN"}},
            env=env,
        )
        with pytest.raises(ConfigError, match="KURA_TEST_TOKEN"):
            make_server(reg, "127.0.0.1", 0, log=None)
        reg.close()


def test_kura_serve_refuses_to_start_open_and_stops_cleanly_on_sigterm(tmp_path):
    store = tmp_path / "hearth"
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[server]\ntoken_env = "KURA_TEST_TOKEN"\n[stores.hearth]\npath = "{store}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), KURA_CONFIG=str(cfg))
    subprocess.run(
        [sys.executable, "-m", "kura_core", "init", "hearth", "--path", str(store)],
        env=env,
        capture_output=True,
        check=True,
        timeout=30,
    )
    p = subprocess.run(
        [sys.executable, "-m", "kura_core", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert p.returncode == 1
    assert "KURA_TEST_TOKEN" in p.stderr and "will not start" in p.stderr
    assert "Traceback" not in p.stderr

    env["KURA_TEST_TOKEN"] = "tok-abc-123"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kura_core", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stderr.readline()
        assert "listening on http://127.0.0.1:" in line, line
        url = line.split("listening on ")[1].split()[0]
        assert httpx.get(url + "/health", timeout=5).status_code == 200
        r = httpx.get(url + "/stores", headers={"Authorization": "Bearer tok-abc-123"}, timeout=5)
        assert r.status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        rest = proc.stderr.read()
        assert "GET /health 200" in rest and "stopping" in rest
        assert proc.stdout.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_loopback_server_refuses_foreign_hosts_and_origins(live):
    err(live.client.get("/health", headers={"Host": "evil.example"}), 403)
    err(live.client.get("/stores", headers={"Host": "evil.example:8085"}), 403)
    err(
        live.client.post(
            "/recall", json={"question": "x"}, headers={"Origin": "http://evil.example"}
        ),
        403,
    )
    assert live.client.get("/health", headers={"Host": "localhost"}).status_code == 200
    assert (
        live.client.get("/health", headers={"Origin": "http://127.0.0.1:3000"}).status_code == 200
    )


# --------------------------------------------------------------------------- behaviour


def test_access_log_has_one_line_per_request_without_query_values(live):
    start = len(live.log.getvalue())
    live.client.get("/index", params={"store": "hearth", "token": "qv-secret-123"})
    live.client.post("/recall", json={"question": "archive"})
    live.client.get("/nope")
    # each line is written just after its response is sent
    wait_for(lambda: live.log.getvalue()[start:].count("\n") >= 3, "three access-log lines")
    log = live.log.getvalue()[start:]
    lines = log.strip().splitlines()
    assert len(lines) == 3
    assert "GET /index?store&token 200" in lines[0]
    assert "POST /recall 200" in lines[1] and lines[1].endswith("ms")
    assert "GET /nope 404" in lines[2]
    assert "qv-secret-123" not in log and "hearth" not in log


def test_keep_alive_reuses_one_connection(live):
    before = live.server.connections
    with httpx.Client(base_url=live.url, timeout=10) as c:
        for _ in range(5):
            assert c.post("/recall", json={"question": "archive"}).status_code == 200
            assert c.get("/health").status_code == 200
        # errors do not cost the connection either
        assert c.post("/recall", json={"nope": 1}).status_code == 400
        assert c.get("/nope").status_code == 404
        r = c.post("/recall", json={"question": "archive"})
        assert r.status_code == 200 and r.http_version == "HTTP/1.1"
        # Nagle is off on the server's side of every connection (else each reply waits ~40 ms)
        open_sockets = live.server.loop.open_sockets()
        assert open_sockets and all(
            sk.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for sk in open_sockets
        )
    assert live.server.connections - before == 1


# --------------------------------------------------------------------------- prefill


def test_prefill_json_text_and_etag(fresh):
    r = fresh.client.get("/prefill", params={"store": "hearth"})
    assert r.status_code == 200, r.text
    d = r.json()
    for key in (
        "text",
        "source",
        "stale",
        "tokens_est",
        "over_budget",
        "over_ceiling",
        "map_shown",
        "etag",
    ):
        assert key in d, key
    assert d["store"] == "hearth"
    assert "<<<KURA-MAP" in d["text"] and "<<<END KURA-MAP>>>" in d["text"]
    etag = r.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    r304 = fresh.client.get("/prefill", params={"store": "hearth"}, headers={"If-None-Match": etag})
    assert r304.status_code == 304 and r304.content == b"" and r304.headers["etag"] == etag

    t = fresh.client.get("/s/talk/prefill", params={"format": "text"})
    assert t.status_code == 200 and t.headers["content-type"].startswith("text/plain")
    assert t.text == d["text"]
    assert "archive-on-slow-disk" in t.text and "FORGE-ONLY-FACT" not in t.text
    tag = t.headers["etag"]
    assert tag != etag
    assert (
        fresh.client.get(
            "/s/talk/prefill?format=text", headers={"If-None-Match": f'W/{tag}, "x"'}
        ).status_code
        == 304
    )
    assert (
        fresh.client.get(
            "/s/talk/prefill?format=text", headers={"If-None-Match": '"other"'}
        ).status_code
        == 200
    )

    # a change to the store changes the map and its tag
    fresh.client.post(
        "/remember",
        json={
            "slug": "boiler-service",
            "description": "boiler serviced every May",
            "body": "The boiler is serviced every May.",
            "store": "hearth",
        },
    )
    t2 = fresh.client.get("/s/talk/prefill?format=text", headers={"If-None-Match": tag})
    assert t2.status_code == 200 and "boiler" in t2.text and t2.headers["etag"] != tag
    err(fresh.client.get("/prefill", params={"format": "yaml"}), 400)
    f = fresh.client.get("/prefill", params={"mode": "build", "format": "text"})
    assert "kiln" in f.text.lower() and "archive-on-slow-disk" not in f.text
