"""Japanese loanwords compared with the English words they come from (floors/loanwords)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, strategies as st

from kura_core.floors.attribution import _stem
from kura_core.floors.loanwords import same_loanword

LOANS = [
    ("commit", "コミット"),
    ("vaccine", "ワクチン"),
    ("notice", "ノーティス"),
    ("cancel", "キャンセル"),
    ("shift", "シフト"),
    ("plan", "プラン"),
    ("print", "プリント"),
    ("price", "プライス"),
    ("staff", "スタッフ"),
    ("menu", "メニュー"),
    ("coupon", "クーポン"),
    ("table", "テーブル"),
    ("server", "サーバー"),
    ("card", "カード"),
    ("delivery", "デリバリー"),
    ("window", "ウィンドウ"),
    ("check", "チェック"),
    ("release", "リリース"),
    ("backup", "バックアップ"),
    ("database", "データベース"),
    ("deploy", "デプロイ"),
    ("password", "パスワード"),
    ("invoice", "インボイス"),
    ("campaign", "キャンペーン"),
    ("ticket", "チケット"),
    ("hotel", "ホテル"),
    ("member", "メンバー"),
    ("lunch", "ランチ"),
    ("dinner", "ディナー"),
    ("message", "メッセージ"),
    ("review", "レビュー"),
    ("test", "テスト"),
    ("update", "アップデート"),
    ("upload", "アップロード"),
    ("version", "バージョン"),
    ("option", "オプション"),
    ("feedback", "フィードバック"),
    ("branch", "ブランチ"),
    ("budget", "バジェット"),
    ("flower", "フラワー"),
    ("implant", "インプラント"),
]

#: Loans that share consonants with the word but are other words.
NOT_LOANS = [
    ("commit", "コメント"),
    ("cancel", "コンソール"),
    ("print", "プラント"),
    ("shift", "ショップ"),
    ("delete", "デリバリー"),
    ("keep", "キャップ"),
    ("staff", "ストップ"),
    ("plan", "プリン"),
    ("send", "サンド"),
    ("test", "テキスト"),
    ("post", "ペースト"),
    ("price", "プレス"),
    ("month", "マンション"),
    ("start", "ストップ"),
    ("open", "クローズ"),
    ("delete", "デプロイ"),
    ("back", "ワクチン"),
    ("plan", "プール"),
    ("price", "プロセス"),
    ("cake", "コーク"),
]


@pytest.mark.parametrize(("english", "katakana"), LOANS)
def test_a_loan_is_its_english_word(english: str, katakana: str) -> None:
    assert same_loanword(_stem(english), katakana)


@pytest.mark.parametrize(("english", "katakana"), NOT_LOANS)
def test_a_near_sound_is_another_word(english: str, katakana: str) -> None:
    assert not same_loanword(_stem(english), katakana)


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", max_size=3),
    st.text(alphabet="アイウエオカキクケコサシスセソタチツテトナニヌネノンッー", max_size=8),
)
def test_a_short_stem_never_matches(stem: str, katakana: str) -> None:
    # three letters or fewer say too little to be a loan
    assert not same_loanword(stem, katakana)


def _cpu(word: str) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        same_loanword("commi", word)
        best = min(best, time.process_time() - t0)
    return best


@pytest.mark.parametrize("piece", ["ア", "ン", "ッ", "ー", "キャ", "ウィ"])
def test_linear_on_long_katakana(piece: str) -> None:
    # ten times the word costs at most about ten times the time (CPU time, best of three:
    # a busy machine does not make it fail), never the square
    small, big = _cpu(piece * 2000), _cpu(piece * 20000)
    assert big <= 15 * max(small, 0.005), (piece, small, big)
