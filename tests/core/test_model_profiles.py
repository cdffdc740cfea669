"""[model_profiles.<p>.<role>] and [stores.X] model_profile: a store's own endpoints."""

from __future__ import annotations

import json

import pytest

from kura_core.config import parse_config
from kura_core.doctor import diagnose
from kura_core.errors import ConfigError
from kura_core.handwork.runs import needs
from kura_core.registry import Registry
from tests.conftest import make_store
from tests.fakes.model_server import ScriptedModel


def _raw(tmp_path, shared_url: str, private_url: str) -> dict:
    make_store(tmp_path / "open", "open")
    make_store(tmp_path / "private", "private")
    return {
        "stores": {
            "open": {"path": str(tmp_path / "open")},
            "private": {"path": str(tmp_path / "private"), "model_profile": "local"},
        },
        "models": {"thinker": {"url": shared_url, "model": "hosted"}},
        "model_profiles": {
            "local": {
                "thinker": {"url": private_url, "model": "small"},
                "brain": {"model": "big"},
            }
        },
    }


def test_a_store_with_a_profile_talks_to_its_endpoints_only(tmp_path):
    with ScriptedModel() as shared, ScriptedModel() as private:
        reg = Registry(parse_config(_raw(tmp_path, shared.url, private.url), source=None))
        try:
            mine = reg.models("private")
            assert mine.spec("thinker").url == private.url
            # the brain inherits the profile's thinker, the scribe the brain: never [models]
            assert mine.spec("brain").url == private.url and mine.spec("brain").model == "big"
            assert mine.spec("scribe").model == "big"
            assert reg.models("open").spec("thinker").url == shared.url
            assert reg.models("open").spec("brain").url == shared.url
            assert mine.probe("thinker")[0]
            assert private.count() == 1 and shared.count() == 0
            assert reg.models("open").probe("thinker")[0]
            assert shared.count() == 1 and private.count() == 1
            # what can run is judged by the store's own roles
            assert needs(reg, "private", "distil") == ""
            rep = diagnose(reg, "private")
            assert rep.model_profile == "local"
            assert rep.models["thinker"].url == private.url
            assert json.loads(json.dumps(rep.to_json()))["model_profile"] == "local"
            assert diagnose(reg, "open").models["thinker"].url == shared.url
            stores = {s["name"]: s for s in reg.describe()["stores"]}
            assert stores["private"]["model_profile"] == "local"
            assert stores["open"]["model_profile"] is None
        finally:
            reg.close()


def test_needs_reads_the_store_own_roles(tmp_path):
    raw = _raw(tmp_path, "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")
    del raw["models"]
    reg = Registry(parse_config(raw, source=None))
    try:
        assert needs(reg, "private", "distil") == ""
        assert "brain" in needs(reg, "open", "distil")
    finally:
        reg.close()


def test_an_undefined_profile_is_a_load_error_naming_it(tmp_path):
    raw = _raw(tmp_path, "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")
    raw["stores"]["private"]["model_profile"] = "lcoal"
    with pytest.raises(ConfigError, match=r"stores\.private\.model_profile names 'lcoal'.*local"):
        parse_config(raw, source=None)


def test_a_profile_must_define_its_thinker_url(tmp_path):
    raw = _raw(tmp_path, "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")
    raw["model_profiles"]["local"] = {"brain": {"url": "http://127.0.0.1:3/v1", "model": "m"}}
    with pytest.raises(ConfigError, match=r"model_profiles\.local\.thinker\.url is required"):
        parse_config(raw, source=None)
    raw["model_profiles"]["local"] = {"thinker": {"url": "http://127.0.0.1:3/v1"}}
    with pytest.raises(ConfigError, match=r"model_profiles\.local\.thinker\.model is required"):
        parse_config(raw, source=None)
