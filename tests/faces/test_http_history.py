"""GET /history: the store's changes for hosts, read-only; a write over HTTP says who made it."""

from __future__ import annotations

import pytest

from kura_core import history
from tests.faces.test_http import _start, _stop, err


@pytest.fixture
def lv(tmp_path):
    live = _start(tmp_path)
    yield live
    _stop(live)


def test_history_lists_changes_newest_first_and_writes_nothing(lv):
    st = lv.reg.store("hearth")
    history.enable(st)
    r = lv.client.post(
        "/remember",
        json={
            "slug": "kettle-descale",
            "description": "the kettle is descaled monthly",
            "body": "Monthly, with citric acid.",
            "store": "hearth",
        },
    )
    assert r.status_code == 200, r.text
    (st.root / "disk-layout.md").write_text("changed by hand\n", encoding="utf-8")
    d = lv.client.get("/history", params={"store": "hearth"}).json()
    assert d["store"] == "hearth"
    top = d["changes"][0]
    assert (top["what"], top["who"], top["slugs"]) == (
        "remember",
        "host (http)",
        ["kettle-descale"],
    )
    assert set(top) >= {"rev", "when", "what", "who", "slugs"}
    assert all(c["what"] != "hand edit" for c in d["changes"]), "a GET recorded something"
    one = lv.client.get("/s/hearth/history", params={"slug": "kettle-descale"}).json()
    assert [c["rev"] for c in one["changes"]] == [top["rev"]]
    assert lv.client.get("/history", params={"store": "hearth", "limit": "1"}).json()[
        "changes"
    ] == [top]
    assert "limit" in err(lv.client.get("/history", params={"store": "hearth", "limit": "x"}), 400)
    assert lv.client.post("/history", json={"store": "hearth"}).status_code == 405


def test_history_of_a_store_without_it_says_how_to_start_it(lv):
    assert "history --enable" in err(lv.client.get("/history", params={"store": "forge"}), 409)
