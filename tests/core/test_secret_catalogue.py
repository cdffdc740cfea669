"""The provider catalogue (kura_core/secret_catalogue.toml): one case per entry, generated
from the file, so an entry added there is tested without a line here. Each entry's fake
example is caught wherever a session shows it (prose, a JSON string, an env line, a
percent-encoded query) and named by its kind; its look-alike survives untouched."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from kura_core.secrets import BUILTIN, CHECKS, catalogue_entries, marker, provider_shapes, unbounded

ENTRIES = catalogue_entries()
IDS = [e["id"] for e in ENTRIES]


def test_the_catalogue_is_well_formed():
    assert len(ENTRIES) >= 90
    assert len(set(IDS)) == len(IDS), "every id once"
    assert len(provider_shapes()) == len(ENTRIES)
    for e in ENTRIES:
        assert re.fullmatch(r"[a-z][a-z-]{0,40}", e["kind"]), e["id"]
        assert e["description"].strip(), e["id"]
        assert ("pattern" in e) != ("prefix" in e and "body" in e), e["id"]
        assert not e.get("check") or e["check"] in CHECKS, e["id"]
        for source in (e.get("pattern"), e.get("body")):
            assert not source or not unbounded(source), (e["id"], unbounded(source or ""))
        if e["keywords"]:
            assert any(k in e["example"] for k in e["keywords"]), e["id"]
        assert e["lookalike"] and e["lookalike"] != e["example"], e["id"]


def _places(value: str) -> dict[str, str]:
    return {
        "prose": f"here is the credential {value} for the staging box, keep it safe",
        "json": json.dumps({"note": "rotated", "value": value, "ok": True}),
        "env": f"APP_ENV=staging\nSERVICE_VALUE={value}\nLOG_LEVEL=info",
        "query": f"GET /cb?next=1&v={quote(value, safe='')}&x=2 HTTP/1.1",
    }


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_each_provider_s_example_is_caught_everywhere_and_named(entry):
    example = entry["example"]
    for place, text in _places(example).items():
        red = BUILTIN.redact(text)
        assert example not in red.text, (place, red.text)
        assert quote(example, safe="") not in red.text, (place, red.text)
        if place == "prose":
            assert red.kinds() == (entry["kind"],), (place, red.text)
        else:
            assert "[secret:" in red.text, (place, red.text)
    # the words around it are kept
    red = BUILTIN.redact(_places(example)["prose"]).text
    assert red.startswith("here is the credential ") and red.endswith(
        " for the staging box, keep it safe"
    )
    assert marker(entry["kind"]) in red


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_each_provider_s_look_alike_survives(entry):
    text = f"the id {entry['lookalike']} was in the log"
    assert BUILTIN.redact(text).text == text
