"""Names in Latin letters vouched by the readings of the evidence's Chinese or Japanese
(floors/readings.py, used by the name floor)."""

from __future__ import annotations

import time

import pytest

from kura_core.floors.entities import NameVouchers


@pytest.mark.parametrize(
    ("evidence", "text"),
    [
        ("新生 12 月 1 日入组，李伟老师带。", "New students join Li Wei's group."),
        ("刘畅说她一周能接一万五千字。", "Yesterday Liu Chang said she can take 15k."),
        ("曾丽老师负责报名。", "The sign-up is run by Zeng Li."),  # 曾: zeng as well as ceng
        (
            "鈴木さんには楽天トラベルだけ見せたい。",
            "New staff Suzuki gets Rakuten Travel access only.",
        ),
        ("団体（15名、金沢）の発券", "The group of 15 goes to Kanazawa."),
        ("来週は田中さんが振込します。", "Next week Tanaka makes the transfers."),
    ],
)
def test_a_name_read_from_the_evidence_is_vouched(evidence, text):
    assert NameVouchers([evidence]).unvouched(text) == []


@pytest.mark.parametrize(
    ("evidence", "text", "name"),
    [
        ("新生 12 月 1 日入组，李伟老师带。", "New students join Li Ming's group.", "Ming"),
        ("刘畅说她一周能接一万五千字。", "Yesterday Liu Yang said so.", "Yang"),
        ("鈴木さんには楽天トラベルだけ見せたい。", "New staff Sato gets access.", "Sato"),
        ("団体（15名、金沢）の発券", "The group of 15 goes to Kyoto.", "Kyoto"),
        ("来週は田中さんが振込します。", "Next week Yamada makes the transfers.", "Yamada"),
    ],
)
def test_a_name_no_reading_gives_stays_unvouched(evidence, text, name):
    assert name in NameVouchers([evidence]).unvouched(text)


def test_readings_stay_linear_on_a_long_evidence():
    evidence = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就" * 4000
    t0 = time.process_time()
    NameVouchers([evidence]).unvouched("Then Zhang Xiaoming and Ouyang Na met Wang Fang.")
    assert time.process_time() - t0 < 5.0


def test_a_spaced_em_dash_is_kept_beside_any_character_and_a_close_one_folds():
    # a private-use character (a terminal font's icon) beside the dashes changes nothing
    from kura_core.floors.text import fold_numbers

    raw = "\ue000 KCX482Q — 29 days \ue001 10—20元 ——  ok"
    assert fold_numbers(raw) == "\ue000 KCX482Q — 29 days \ue001 10–20元 ——  ok"
