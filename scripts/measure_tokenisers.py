"""Japanese and Chinese tokenisers against the scope floor: accuracy, throughput and cost.

The scope floor (``kura_core.floors.scope``) refuses a quote when what it leaves out of its
clause is not known to be harmless. For Japanese and Chinese it has no word boundaries: the
left-out run must be covered entirely by its filler list. This script puts a morphological
tokeniser in that one place -- fugashi with unidic-lite (and SudachiPy, when installed) for
Japanese, jieba for Chinese -- and judges the same cases both ways:

* the generated attacks and legitimate candidates of ``tests/core/test_gate_mutations.py``
  (its Japanese and Chinese cases, through the whole gate), and a *fresh* set written here
  from the same seeds with spellings the mutation templates do not use;
* throughput of the scope judgement and of the gate (chars/s, CPU time, best of 3) over that
  corpus and over a larger generated text;
* each tokeniser's import and first-call cost and installed size.

Two readings of "harmless" are measured for the tokenisers. ``pos``: every left-out token is
an interjection or filler, a particle, or punctuation. ``pos+lex``: the same classes less the
particles and auxiliaries that carry an operator (question か/吗, prohibitive な, conjecture
でしょう, …), plus the politeness and discourse words a tag alone does not mark (ください,
まあ, 请, 谢谢 …). Either way a quote that starts or ends inside a token is refused, and the
rule a refusal is named by comes from the floor's own classifier.

The tokenisers are not dependencies of kura; run this with a Python that has them:

    python3 -m venv /tmp/tokvenv
    /tmp/tokvenv/bin/pip install -e . jieba fugashi unidic-lite [sudachipy sudachidict-core]
    /tmp/tokvenv/bin/python scripts/measure_tokenisers.py [--quick]
"""

from __future__ import annotations

import importlib.util
import sys

PIP = "pip install jieba fugashi unidic-lite"
REQUIRED = ("jieba", "fugashi", "unidic_lite")


def _require() -> None:
    missing = [m for m in REQUIRED if importlib.util.find_spec(m) is None]
    if missing:
        sys.stderr.write(
            f"measure_tokenisers: the optional tokenisers are not installed ({', '.join(missing)})."
            f"\nInstall them into a separate virtual environment, not kura's:\n    {PIP}\n"
            "(sudachipy sudachidict-core are measured too when present)\n"
        )
        raise SystemExit(2)


if __name__ == "__main__":
    _require()

# ruff: noqa: E402 -- the check above must run before anything heavy is imported
import contextlib
import random
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import kura_core.floors.scope as scope
from kura_core.distill.evidence import normalize
from kura_core.distill.gate import GateResult
from kura_core.floors.scope import UNKNOWN, Scope
from tests.core import test_gate_mutations as mut

_KANA = range(0x3040, 0x3100)


def _has_kana(text: str) -> bool:
    return any(ord(c) in _KANA for c in text)


def _has_cjk(text: str) -> bool:
    return any("\u3040" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in text)


# =========================================================================== tokenisers


@dataclass(frozen=True)
class Tok:
    start: int
    end: int
    surface: str
    pos: tuple[str, str]  # UniDic's first two levels, or jieba's flag and ""
    lemma: str


class Fugashi:
    name, lang, dists = "fugashi+unidic-lite", "ja", ("fugashi", "unidic-lite")
    STARTUP = "import fugashi; fugashi.Tagger()('テストです')"

    def __init__(self) -> None:
        import fugashi

        self.tagger = fugashi.Tagger()

    def __call__(self, text: str) -> list[Tok]:
        out, at = [], 0
        for w in self.tagger(text):
            s = text.find(w.surface, at)
            at = s + len(w.surface)
            f = w.feature
            out.append(Tok(s, at, w.surface, (f.pos1 or "", f.pos2 or ""), f.lemma or w.surface))
        return out


class Sudachi:
    name, lang, dists = "sudachipy+core", "ja", ("sudachipy", "sudachidict-core")
    STARTUP = (
        "from sudachipy import dictionary;"
        "dictionary.Dictionary(dict='core').tokenizer().tokenize('テストです')"
    )

    def __init__(self) -> None:
        from sudachipy import dictionary

        self.tok = dictionary.Dictionary(dict="core").tokenizer()

    def __call__(self, text: str) -> list[Tok]:
        return [
            Tok(m.begin(), m.end(), m.surface(), tuple(m.part_of_speech()[:2]), m.dictionary_form())
            for m in self.tok.tokenize(text)
        ]


class Jieba:
    name, lang, dists = "jieba", "zh", ("jieba",)
    STARTUP = "import jieba, jieba.posseg; jieba.setLogLevel(60); list(jieba.posseg.cut('测试'))"

    def __init__(self) -> None:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(60)
        jieba.initialize()
        self.cut = jieba.posseg.cut

    def __call__(self, text: str) -> list[Tok]:
        out, at = [], 0
        for p in self.cut(text):
            out.append(Tok(at, at + len(p.word), p.word, (p.flag, ""), p.word))
            at += len(p.word)
        return out


# =========================================================================== harmless by POS

_JA_PUNCT = frozenset({"補助記号", "空白", "記号"})
_JA_OPERATOR_FINAL = frozenset({"か", "かな", "かしら", "かい", "っけ", "な", "の", "な-禁止"})
_JA_POLITE_AUX = frozenset({"です", "ます", "だ", "御座る"})  # lemmas: copula and politeness
_JA_CONJECTURE = ("でしょ", "だろ", "ましょ")
_JA_OPERATOR_CONJ = ("なら", "ば", "たら", "または", "あるいは", "それとも", "もし")
_JA_LEX = frozenset({"まあ", "まぁ", "あと", "下さる", "ください", "了解", "有り難う", "はい"})
_JA_POLITE_RUNS = ("お願いします", "お願い", "ありがとうございます", "ありがとう")

_ZH_POS = ("e", "y", "u", "x", "o")
_ZH_OPERATOR = frozenset({"吗", "嗎", "呢", "么", "麼", "吧", "不", "没", "别", "是否"})
_ZH_OPERATOR_CONJ = frozenset(
    {"如果", "要是", "除非", "假如", "只要", "只有", "万一", "倘若", "若", "或者", "还是", "否则"}
)
_ZH_LEX = frozenset(
    {
        "请",
        "谢谢",
        "麻烦",
        "帮我",
        "好",
        "好的",
        "是的",
        "对",
        "那个",
        "这个",
        "其实",
        "对了",
        "还有",
    }
)


def _ja_pos_only(t: Tok) -> bool:
    return t.pos[0] in _JA_PUNCT or t.pos[0] in ("感動詞", "助詞") or t.pos[1] == "フィラー"


def _ja_fair(t: Tok) -> bool:
    p1, p2 = t.pos
    if p1 in _JA_PUNCT or p1 == "感動詞" or p2 == "フィラー":
        return True
    if p1 == "助詞":
        return p2 == "終助詞" and t.surface not in _JA_OPERATOR_FINAL
    if p1 == "助動詞":
        return t.lemma in _JA_POLITE_AUX and not t.surface.startswith(_JA_CONJECTURE)
    if p1 == "接続詞":
        return not any(w in t.surface for w in _JA_OPERATOR_CONJ)
    return t.lemma in _JA_LEX or t.surface in _JA_LEX


def _zh_pos_only(t: Tok) -> bool:
    return t.pos[0].startswith(_ZH_POS)


def _zh_fair(t: Tok) -> bool:
    if t.surface in _ZH_OPERATOR or t.surface in _ZH_OPERATOR_CONJ:
        return False
    return t.pos[0].startswith(_ZH_POS) or t.pos[0] == "c" or t.surface in _ZH_LEX


def _skip_polite(toks: list[Tok], i: int) -> int:
    """How many tokens from *i* spell a Japanese politeness phrase (0 when none does)."""
    text = ""
    for k in range(i, min(len(toks), i + 5)):
        text += toks[k].surface
        if text in _JA_POLITE_RUNS:
            return k - i + 1
    return 0


def _harmless_run(toks: list[Tok], ok: Callable[[Tok], bool], fair: bool) -> str:
    """The first left-out token that is not harmless, or "" when all are."""
    i = 0
    while i < len(toks):
        t = toks[i]
        n = _skip_polite(toks, i) if fair else 0
        if n:
            i += n
            continue
        if not t.surface.strip():
            i += 1
            continue
        if not _has_cjk(t.surface):
            # Latin words, figures and identifiers: the floor's own rule
            latin = [x for x in scope._tokens(t.surface) if x.kind != "punct"]
            if latin and not scope._harmless(latin):
                return t.surface
        elif not ok(t):
            return t.surface
        i += 1
    return ""


# =========================================================================== the variant


@dataclass
class Variant:
    """The floor's judgement with the left-out material read by a tokeniser."""

    name: str
    ja: Callable[[str], list[Tok]] | None
    zh: Callable[[str], list[Tok]] | None
    fair: bool

    def left_out(self, seg: str, cs: int, start: int, end: int, ce: int) -> str:
        """Why the clause seg[cs:ce] around the quote seg[start:end] is not harmless."""
        clause = seg[cs:ce]
        tokenise = self.ja if _has_kana(clause) else self.zh
        if tokenise is None or not _has_cjk(seg[cs:start] + seg[end:ce]):
            return "-"  # not this tokeniser's language: the floor's own verdict
        toks = tokenise(clause)
        edges = {t.start for t in toks} | {t.end for t in toks}
        if start - cs not in edges or end - cs not in edges:
            return "starts or ends inside a word"
        ok = (_ja_fair if self.fair else _ja_pos_only) if tokenise is self.ja else None
        ok = ok or (_zh_fair if self.fair else _zh_pos_only)
        out = [t for t in toks if t.end <= start - cs or t.start >= end - cs]
        bad = _harmless_run(out, ok, self.fair)
        return f"leaves out {bad!r} of its clause" if bad else ""

    def inside(self, seg: str, cs: int, start: int, end: int, ce: int, lines: list[int]) -> Scope:
        for p in lines:
            if cs <= p < start:
                cs = p + 1
            elif end <= p < ce:
                ce = p
        own = _ORIGINAL_INSIDE(seg, cs, start, end, ce, [])
        why = self.left_out(seg, cs, start, end, ce)
        if why == "-" or not why:
            return own if why == "-" else Scope()
        return own or Scope(UNKNOWN, why)


_ORIGINAL_INSIDE = scope._inside


@contextlib.contextmanager
def judged_by(variant: Variant | None) -> Iterator[None]:
    """The floor as it is (None), or with *variant* reading what a quote leaves out."""
    if variant is not None:
        scope._inside = variant.inside
    try:
        yield
    finally:
        scope._inside = _ORIGINAL_INSIDE


# =========================================================================== the corpus

#: Spellings the mutation templates do not use, from the same seeds: harmless material a
#: person might add, and operators written another way. Each attack must be dropped.
FRESH_LEGIT = {
    "ja": [
        "えーっと{c}。",
        "{c}ねー。",
        "{c}ですね。",
        "あのー{c}よ。",
        "{c}っす。",
        "{c}ようにお願いします。",
    ],
    "zh": ["嗯嗯{c}。", "{c}哈。", "麻烦{c}一下。", "{c}呀。", "{c}就行了。", "对了，{c}。"],
}
FRESH_ATTACKS = {
    "ja": [
        "{c}のは無理。",
        "{c}必要なし。",
        "{c}なくてもいい。",
        "{c}ことは禁止。",
        "{c}のは反対。",
        "{c}とか言ってた。",
        "{c}んじゃない？",
        "{c}べからず。",
        "{c}なんてありえない。",
        "{c}のかなあ。",
    ],
    "zh": [
        "没必要{c}。",
        "甭{c}。",
        "未必{c}。",
        "不必{c}。",
        "用不着{c}。",
        "禁止{c}。",
        "先别{c}。",
        "谁说要{c}？",
        "他们建议{c}。",
        "{c}是不对的。",
    ],
}


def _dropped_by_scope(r: GateResult) -> bool:
    return r.verdict == "dropped" and any(q.status == "cut" for q in r.quotes)


def fresh() -> tuple[list[mut.Case], list[mut.Case]]:
    legit, attacks = [], []
    for s in mut.SEEDS:
        if s.lang == "en":
            continue
        for table, out, expect in (
            (FRESH_LEGIT, legit, mut._kept),
            (FRESH_ATTACKS, attacks, _dropped_by_scope),
        ):
            for t in table[s.lang]:
                out.append(
                    mut.Case(
                        f"{s.lang}/fresh/{t}/{s.clause}",
                        mut._cand("[USER] " + s.clause, body=s.body),
                        mut._segments(("USER", t.format(c=s.clause))),
                        expect,
                    )
                )
    return legit, attacks


def corpus() -> dict[str, list[mut.Case]]:
    cjk = ("ja/", "zh/")
    return {
        "attacks": [c for c in mut.governed() if c.name.startswith(cjk)],
        "legit": [c for c in mut.legitimate() if c.name.startswith(cjk)],
        **dict(zip(("fresh legit", "fresh attacks"), fresh(), strict=True)),
    }


def _user_quote(case: mut.Case) -> tuple[str, int, int]:
    seg = normalize(case.segments[-1].text)
    quote = normalize(case.candidate["quotes"][0].removeprefix("[USER] "))
    at = seg.find(quote)
    return seg, at, at + len(quote)


def large_text(lang: str, chars: int) -> list[tuple[str, list[tuple[int, int]]]]:
    """Paragraphs of about 1,500 characters of generated sentences, with each sentence's
    quote span: every template of the mutation tests and this script, seeds in turn."""
    rng = random.Random(25)
    templates = mut.HARMLESS[lang] + [t for t, _ in mut.GOVERNED[lang]]
    templates += FRESH_LEGIT[lang] + FRESH_ATTACKS[lang]
    seeds = [s for s in mut.SEEDS if s.lang == lang]
    out, total = [], 0
    while total < chars:
        para, spans = "", []
        while len(para) < 1500:
            s, t = rng.choice(seeds), rng.choice(templates)
            sentence = normalize(t.format(c=s.clause))
            at = sentence.find(normalize(s.clause))
            spans.append((len(para) + at, len(para) + at + len(normalize(s.clause))))
            para += sentence
        out.append((para, spans))
        total += len(para)
    return out


# =========================================================================== measuring


def _best_cpu(fn: Callable[[], object], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return max(best, 1e-9)


@dataclass
class Row:
    name: str
    counts: dict[str, tuple[int, int]]  # corpus part -> (as expected, total)
    right_rule: tuple[int, int]
    scope_cps: float
    gate_cps: float
    large_cps: dict[str, float]
    misses: list[str]


def measure(variant: Variant | None, parts: dict[str, list[mut.Case]], quick: bool) -> Row:
    name = variant.name if variant else "allowlist (kura today)"
    counts, misses, right = {}, [], [0, 0]
    everything = [c for cases in parts.values() for c in cases]
    chars = sum(len(c.segments[-1].text) for c in everything)
    with judged_by(variant):
        for part, cases in parts.items():
            good = 0
            for c in cases:
                r = mut._gate(c.candidate, c.segments, c.store)
                ok = c.expect(r) if part != "attacks" else _dropped_by_scope(r)
                good += ok
                if part == "attacks":
                    right[0] += c.expect(r)
                    right[1] += 1
                if not ok:
                    lang, _, template = c.name.split("/")[:3]
                    misses.append(f"{part}: {lang} {template}")
            counts[part] = (good, len(cases))
        quotes = [_user_quote(c) for c in everything]
        runs = 1 if quick else 3
        scope_t = _best_cpu(lambda: [scope.judge(s, a, b) for s, a, b in quotes], runs)
        gate_t = _best_cpu(
            lambda: [mut._gate(c.candidate, c.segments, c.store) for c in everything], runs
        )
        large = {}
        for lang in ("ja", "zh"):
            paras = large_text(lang, 20_000 if quick else 200_000)
            size = sum(len(p) for p, _ in paras)
            t = _best_cpu(
                lambda p=paras: [scope.judge(x, a, b) for x, sp in p for a, b in sp], runs
            )
            large[lang] = size / t
    return Row(name, counts, (right[0], right[1]), chars / scope_t, chars / gate_t, large, misses)


def startup(cls: type) -> float:
    """CPU seconds a fresh interpreter spends importing the tokeniser, loading its
    dictionary and tokenising once (best of 3; jieba's model cache already built)."""
    return _cpu_of(f"import time;t=time.process_time();{cls.STARTUP};print(time.process_time()-t)")


def _cpu_of(code: str) -> float:
    best = float("inf")
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        best = min(best, float(out.stdout.strip().splitlines()[-1]))
    return best


def installed_mb(dists: tuple[str, ...]) -> float:
    size = 0
    for d in dists:
        with contextlib.suppress(PackageNotFoundError):
            size += sum(f.size or 0 for f in distribution(d).files or ())
    return size / 1e6


def raw_cps(tok: Callable[[str], list[Tok]], lang: str, quick: bool) -> float:
    paras = large_text(lang, 20_000 if quick else 200_000)
    size = sum(len(p) for p, _ in paras)
    return size / _best_cpu(lambda: [tok(p) for p, _ in paras], 1 if quick else 3)


# =========================================================================== report


def _frac(pair: tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def print_rows(rows: list[Row]) -> None:
    head = (
        "variant",
        "attacks dropped",
        "right rule",
        "legit kept",
        "fresh attacks",
        "fresh legit",
        "scope kc/s",
        "gate kc/s",
        "large ja kc/s",
        "large zh kc/s",
        "gate vs today",
    )
    base = rows[0].gate_cps
    lines = [head]
    for r in rows:
        lines.append(
            (
                r.name,
                _frac(r.counts["attacks"]),
                _frac(r.right_rule),
                _frac(r.counts["legit"]),
                _frac(r.counts["fresh attacks"]),
                _frac(r.counts["fresh legit"]),
                f"{r.scope_cps / 1e3:.1f}",
                f"{r.gate_cps / 1e3:.1f}",
                f"{r.large_cps['ja'] / 1e3:.1f}",
                f"{r.large_cps['zh'] / 1e3:.1f}",
                f"{base / r.gate_cps:.2f}x slower",
            )
        )
    widths = [max(len(x[i]) for x in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)))


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    tokenisers: list = [Fugashi(), Jieba()]
    if importlib.util.find_spec("sudachipy") and importlib.util.find_spec("sudachidict_core"):
        tokenisers.insert(1, Sudachi())
    fug, jie = tokenisers[0], tokenisers[-1]
    variants: list[Variant | None] = [
        None,
        Variant("fugashi/jieba pos", fug, jie, fair=False),
        Variant("fugashi/jieba pos+lex", fug, jie, fair=True),
    ]
    if len(tokenisers) == 3:
        variants.append(Variant("sudachi/jieba pos+lex", tokenisers[1], jie, fair=True))
    parts = corpus()
    print("corpus (JA+ZH):", ", ".join(f"{k} {len(v)}" for k, v in parts.items()))
    rows = [measure(v, parts, quick) for v in variants]
    print()
    print_rows(rows)
    print("\ncost of each tokeniser")
    for t in tokenisers:
        print(
            f"  {t.name:20}  start-up {startup(type(t)):.2f} s CPU  "
            f"installed {installed_mb(t.dists):6.1f} MB  "
            f"tokenises {raw_cps(t, t.lang, quick) / 1e3:7.1f} kchars/s"
        )
    for r in rows:
        if r.misses:
            print(f"\n{r.name}: {len(r.misses)} not as expected (cases of each template)")
            for m, n in Counter(r.misses).most_common():
                print(f"  {n:3}  {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
