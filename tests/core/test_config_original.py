"""A config written for the original loads: its keys kura has are read with their meaning,
the ones it ignores are named in a warning, never a load error."""

from __future__ import annotations

from kura_core.config import load_config


def test_a_config_of_the_original_loads(tmp_path):
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f"""
[fastpath]
enabled = true
gate = 1.0
cues = true

[prefill]
resident_mode = "constellation"
trail_tokens = 120

[model_profiles.private.thinker]
url = "http://127.0.0.1:9000/v1"
model = "tiny"

[stores.main]
path = "{tmp_path / "main"}"
model_profile = "private"
metrics_file = "_still/metrics.jsonl"

[stores.main.fastpath]
enabled = false
""",
        encoding="utf-8",
    )
    c = load_config(cfg)
    main = c.stores["main"]
    assert main.prefill.resident_mode == "constellation" and main.prefill.trail_tokens == 120
    assert main.model_profile == "private"
    assert c.models_for("main")["thinker"].url == "http://127.0.0.1:9000/v1"
    assert c.models["thinker"] is None  # the profile is the store's own, not the shared one
    said = "\n".join(c.warnings)
    assert "stores.main.metrics_file" in said and "SQLite metrics table" in said
