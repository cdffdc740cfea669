"""Fastpath: tier zero of recall, a deterministic recogniser that answers direct questions.

A direct question — "what port does vLLM listen on?", 「自宅NASのRAID1について」,
「MySQL每日凌晨3点全量备份是怎么回事」 — names its memory in the memory's own words. Asking a
model to read the whole index for it costs a model call (0.4 s on a warm GPU, minutes on a
CPU, nothing at all while the model loads). The fastpath answers it in process, in about a
millisecond, and stays silent when it is not sure, so the thinker is asked only then.

How a question is scored against each memory (every head is a share between 0 and 1):

* **name** — the memory's title or slug appears whole in the question (Latin words on word
  boundaries, CJK by characters); a longer name contained beats a shorter one;
* **words** — the question's words (``words.tokenize``: stemmed, stop-words dropped, CJK
  bigrams) found in the title, trigger line and slug, weighted by IDF;
* **grams** — the question's character 3-grams found in the title and trigger, weighted by
  IDF (a word or CJK run of two characters counts whole; CJK bigrams are also words);
* **body** — the question's 3-grams found in the first ``BODY_CHARS`` characters of the body;
* **fit** — the share of the memory's own title words the question holds: a question about
  "vLLM port" fits the memory titled so better than "vLLM port on the new box".

The question-side heads divide by the IDF mass of *every* question gram, and a gram the
store does not know weighs as much as the rarest one: a question about something absent
keeps most of its mass unexplained and scores low. Grams held by more than STOP_SHARE of
the memories (in a store of at least STOP_MIN) are stop-grams and count for nothing.
Question filler ("what is", 「について教えて」, 「是什么」) is dropped before the grams are cut.

The honesty gate answers only when the best memory's score reaches ``gate`` and beats the
runner-up by at least MARGIN; otherwise the verdict is ``no-confident-hit`` and recall falls
through to the thinker. Equal scores never answer.

**Callsign cues.** A short name the human used for a memory — words of its title that occur
in a verified USER quote of the memory's evidence manifest — routes a question holding it
straight to that memory (``how = fastpath-cue``). A cue is kept only while no other memory's
title, trigger or slug holds all its words; the receipt (the manifest and the quote) is
read again on every hit, and a cue whose receipt no longer holds is not used. Cues naming two
different memories mean silence.
"""

from __future__ import annotations

import math
import re
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .words import _CJK, STOPWORDS, tokenize

__all__ = ["FastDoc", "Judgement", "Receipt", "Recognizer", "VERDICTS"]

#: what the fastpath says about a recall
VERDICTS = ("disabled", "ok", "no-confident-hit")
#: the best score must beat the runner-up's by this ratio
MARGIN = 1.5
#: a gram held by more than this share of the memories counts for nothing...
STOP_SHARE = 0.2
#: ...in a store of at least this many memories
STOP_MIN = 20
#: how much of a body the body head reads
BODY_CHARS = 300
#: the candidates fully scored per question, and the postings walked to find them
CANDIDATES = 12
POSTINGS_BUDGET = 3000
#: the longest name (in units: a Latin word or one CJK character) looked for in a question
NAME_UNITS = 24
#: head weights (the gate, 1.0 by default, is in these units; the most a memory can score
#: is their sum)
WEIGHTS = {"name": 1.0, "words": 1.0, "grams": 0.9, "body": 0.3, "fit": 0.6}

_UNIT = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+(?:\.[^\W_{_CJK}]+)*")
_CJK_CHAR = re.compile(rf"[{_CJK}]")

#: question words that carry no subject, beyond words.STOPWORDS
_FILLER_WORDS = frozenset(
    [
        "tell",
        "know",
        "remember",
        "recall",
        "say",
        "said",
        "note",
        "noted",
        "please",
        "whats",
        "what's",
        "anything",
        "something",
        "thing",
        "things",
        "again",
        "remind",
        "memory",
        "memories",
        "kura",
        "mean",
        "means",
        "did",
        "decide",
        "decided",
    ]
)
#: Japanese and Chinese question filler, longest first (dropped from questions only)
_FILLER_CJK = sorted(
    [
        "について教えて",
        "について",
        "を教えて",
        "教えてください",
        "教えて",
        "ください",
        "でしょうか",
        "ですか",
        "ますか",
        "とは",
        "って何",
        "何ですか",
        "なんですか",
        "何",
        "なに",
        "どこ",
        "いつ",
        "どう",
        "どの",
        "どれ",
        "だれ",
        "誰",
        "は",
        "が",
        "を",
        "に",
        "で",
        "と",
        "も",
        "か",
        "の",
        "へ",
        "や",
        "よ",
        "ね",
        "是什么",
        "是怎么回事",
        "怎么回事",
        "怎么样",
        "怎么",
        "什么",
        "哪里",
        "哪儿",
        "哪个",
        "哪些",
        "多少",
        "为什么",
        "告诉我",
        "请问",
        "关于",
        "一下",
        "我们",
        "我的",
        "你",
        "我",
        "是",
        "的",
        "吗",
        "呢",
        "了",
        "吧",
        "请",
        "在",
        "有",
    ],
    key=len,
    reverse=True,
)
_FILLER_RE = re.compile("|".join(map(re.escape, _FILLER_CJK)))


def normalise(text: str) -> str:
    """NFKC, then case folding: the form every comparison here is made in."""
    return unicodedata.normalize("NFKC", text).casefold()


def units(text: str) -> list[str]:
    """The name units of *text*: each Latin word (dots between letters or digits kept, as in
    2.6t or 192.168.1.10) and each CJK character, normalised."""
    return _UNIT.findall(normalise(text))


_CJK_SPACE = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}])")


def _join(us: Iterable[str]) -> str:
    """Units as one compact string: Latin words spaced, CJK characters run together."""
    return _CJK_SPACE.sub("", " ".join(us))


def compact(text: str) -> str:
    return _join(units(text))


def segments(text: str) -> list[str]:
    """The compact form cut into words and CJK runs."""
    return [s for s in text.split(" ") if s]


def _grams(text: str, n: int) -> set[str]:
    """The character n-grams inside each word or CJK run of compact *text* (a run shorter
    than n, of two characters or more, counts whole)."""
    out = {g for g in {text[i : i + n] for i in range(len(text) - n + 1)} if " " not in g}
    if n > 2:
        out.update(w for w in text.split(" ") if 2 <= len(w) < n)
    elif len(text) == n:
        out.add(text)
    return out


def strip_filler(question: str) -> str:
    """The question's compact form without question filler (Latin stop-words and question
    words; Japanese and Chinese particles and question endings)."""
    kept: list[str] = []
    for seg in compact(question).split(" "):
        if not seg:
            continue
        if _CJK_CHAR.match(seg):
            kept.extend(p for p in _FILLER_RE.split(seg) if p)
        elif seg not in STOPWORDS and seg not in _FILLER_WORDS:
            kept.append(seg)
    return " ".join(kept)


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class Receipt:
    """Why a cue points at a memory: the human's quote in its evidence manifest."""

    cue: str
    slug: str
    manifest: str
    quote: str


@dataclass(frozen=True)
class FastDoc:
    """One memory as the fastpath sees it."""

    slug: str
    title: str
    trigger: str
    body: str
    #: the memory's evidence manifest reference and the human's verified quotes in it
    manifest: str = ""
    user_quotes: tuple[str, ...] = ()


@dataclass
class _Held:
    """One memory as held between questions: compact texts (question grams are looked for
    in them as substrings, which is membership in their gram sets without keeping the sets)
    and its word tokens."""

    slug: str
    name: str  # the compact title
    slug_name: str  # the compact slug
    text: str  # compact title + trigger + slug
    body: str  # compact body lead
    words: frozenset[str]
    fit: tuple[str, ...]  # the title's and slug's word tokens
    cues: tuple[Receipt, ...] = ()

    def grams(self) -> tuple[tuple[str, frozenset[str]], ...]:
        """(head, its grams) for the store-wide document frequencies."""
        return (
            ("words", self.words),
            ("g3", frozenset(_grams(self.text, 3))),
            ("gb", frozenset(_grams(self.body, 3))),
        )


def _names_ok(name: str) -> bool:
    us = _UNIT.findall(name)
    letters = sum(len(u) for u in us)
    return (len(us) >= 2 and letters >= 4) or (len(us) == 1 and letters >= 5)


_KANA = re.compile("[\u3041-\u30ff\u30fc]+")


def _name_like(word: str) -> bool:
    """A single word that reads as a name: letters mixed with digits (cp932, b2), a capital
    inside it (YubiKey, vLLM), or an acronym (NAS, UPS)."""
    if len(word) < 3:
        return False
    mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
    return mixed or any(c.isupper() for c in word[1:])


def _cue_candidates(title: str) -> set[str]:
    """Runs of a title that can be callsigns: two or three Latin words with no stop-word at
    either end, a single word only when it reads as a name, CJK runs of three to six
    characters that are not kana alone. Plain words ("live", "throughput") never are: they
    name a subject, not a memory."""
    raw = _UNIT.findall(unicodedata.normalize("NFKC", title))
    us = [u.casefold() for u in raw]
    out: set[str] = set()
    for i in range(len(us)):
        cjk = bool(_CJK_CHAR.fullmatch(us[i]))
        for k in range(3 if cjk else 1, 7 if cjk else 4):
            run = us[i : i + k]
            if len(run) < k or any(bool(_CJK_CHAR.fullmatch(u)) != cjk for u in run):
                break
            cue = _join(run)
            if cjk:
                if not _KANA.fullmatch(cue):
                    out.add(cue)
                continue
            edges = (run[0], run[-1])
            if any(w in STOPWORDS or w in _FILLER_WORDS or w.isdigit() for w in edges):
                continue
            if k > 1 or _name_like(raw[i]):
                out.add(cue)
    return out


def _in_words(cue: str, text: str) -> bool:
    """Whether *cue* occurs in compact *text*: CJK by containment, Latin on word edges."""
    if _CJK_CHAR.match(cue):
        return cue in text
    return f" {cue} " in f" {text} "


def learn_cues(doc: FastDoc) -> tuple[Receipt, ...]:
    """The callsign cues the human's own words tie to *doc*: runs of its title that occur in
    one of its verified USER quotes. Each comes with its receipt."""
    if not doc.manifest or not doc.user_quotes:
        return ()
    quotes = [(q, compact(q)) for q in doc.user_quotes]
    out = []
    for cue in sorted(_cue_candidates(doc.title)):
        for raw, q in quotes:
            if _in_words(cue, q):
                out.append(Receipt(cue, doc.slug, doc.manifest, raw))
                break
    return tuple(out)


def _hold(doc: FastDoc, cues: bool) -> _Held:
    slug_name = compact(doc.slug.replace("-", " ").replace("_", " "))
    return _Held(
        slug=doc.slug,
        name=compact(doc.title),
        slug_name=slug_name,
        text=compact(f"{doc.title} {doc.trigger} {slug_name}"),
        body=compact(doc.body[:BODY_CHARS]),
        words=frozenset(tokenize(f"{doc.title} {doc.trigger} {slug_name}")),
        fit=tuple(dict.fromkeys(tokenize(f"{doc.title} {slug_name}"))),
        cues=learn_cues(doc) if cues else (),
    )


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class Judgement:
    """What the fastpath made of one question."""

    verdict: str  # "ok" | "no-confident-hit" | "disabled"
    slug: str = ""
    how: str = ""  # "fastpath" | "fastpath-cue" when it answered
    score: float = 0.0
    runner_up: float = 0.0
    ms: float = 0.0
    #: the best few (slug, score), best first — what the gate looked at
    scores: tuple[tuple[str, float], ...] = ()
    receipt: Receipt | None = None
    why: str = ""


@dataclass
class _Question:
    words: dict[str, float]
    g3: dict[str, float]
    gb: dict[str, float] = field(default_factory=dict)
    mass: dict[str, float] = field(default_factory=dict)
    windows: set[str] = field(default_factory=set)


class Recognizer:
    """The fastpath's index of one store; updated in place after a write (``update``).

    Safe to use from several threads: one lock guards changes and questions.
    """

    def __init__(self, docs: Iterable[FastDoc] = (), *, cues: bool = True) -> None:
        self.cues_on = cues
        self._lock = threading.Lock()
        self._held: dict[str, _Held] = {}
        self._df: dict[str, Counter[str]] = {h: Counter() for h in ("words", "g3", "gb")}
        self._post: dict[str, set[str]] = {}  # word token -> slugs (candidates)
        self._names: dict[str, set[str]] = {}  # compact name -> slugs
        self._cues: dict[str, dict[str, Receipt]] = {}  # cue -> slug -> receipt
        self._first: Counter[str] = Counter()  # first units of names and cues
        for d in docs:
            self._add(_hold(d, cues))

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, slug: object) -> bool:
        return slug in self._held

    def update(self, docs: Iterable[FastDoc] = (), remove: Iterable[str] = ()) -> None:
        """Remove *remove*, then add each of *docs* (replacing one held under its slug)."""
        held = [_hold(d, self.cues_on) for d in docs]  # the slow part, outside the lock
        with self._lock:
            for slug in remove:
                self._remove(slug)
            for h in held:
                self._remove(h.slug)
                self._add(h)

    def _keys(self, h: _Held) -> list[str]:
        return [k for k in {h.name, h.slug_name} if k and _names_ok(k)]

    def _add(self, h: _Held) -> None:
        self._held[h.slug] = h
        for head, grams in h.grams():
            self._df[head].update(grams)
        for w in h.words:
            self._post.setdefault(w, set()).add(h.slug)
        for k in self._keys(h):
            self._names.setdefault(k, set()).add(h.slug)
            self._first[_UNIT.match(k).group()] += 1  # type: ignore[union-attr]
        for r in h.cues:
            self._cues.setdefault(r.cue, {})[h.slug] = r
            self._first[_UNIT.match(r.cue).group()] += 1  # type: ignore[union-attr]

    def _remove(self, slug: str) -> None:
        h = self._held.pop(slug, None)
        if h is None:
            return
        for head, grams in h.grams():
            df = self._df[head]
            df.subtract(grams)
            for g in grams:
                if df[g] <= 0:
                    del df[g]
        for w in h.words:
            s = self._post.get(w)
            if s is not None:
                s.discard(slug)
                if not s:
                    del self._post[w]
        for k in self._keys(h):
            self._drop(self._names, k, slug)
        for r in h.cues:
            got = self._cues.get(r.cue)
            if got is not None:
                got.pop(slug, None)
                if not got:
                    del self._cues[r.cue]
            self._unfirst(r.cue)

    def _drop(self, table: dict[str, set[str]], key: str, slug: str) -> None:
        s = table.get(key)
        if s is not None:
            s.discard(slug)
            if not s:
                del table[key]
        self._unfirst(key)

    def _unfirst(self, key: str) -> None:
        first = _UNIT.match(key).group()  # type: ignore[union-attr]
        self._first[first] -= 1
        if self._first[first] <= 0:
            del self._first[first]

    # ---- questions -------------------------------------------------------
    def _idf(self, head: str, grams: Iterable[str]) -> dict[str, float]:
        """Each question gram's weight in one head; stop-grams left out, unknown grams as
        heavy as the rarest gram can be."""
        n = len(self._held)
        df = self._df[head]
        stop = STOP_SHARE * n if n >= STOP_MIN else n + 1
        out = {}
        for g in grams:
            c = df.get(g, 0)
            if c > stop:
                continue
            out[g] = math.log(1.0 + (n + 1) / (c + 0.5))
        return out

    def _question(self, question: str) -> _Question:
        plain = strip_filler(question)
        q = _Question(
            words=self._idf("words", set(tokenize(plain))),
            g3=self._idf("g3", _grams(plain, 3)),
        )
        q.mass = {"words": sum(q.words.values()), "g3": sum(q.g3.values())}
        q.gb = self._idf("gb", q.g3)
        q.mass["gb"] = sum(q.gb.values())
        q.windows = self._windows(units(question))
        return q

    def _windows(self, us: list[str]) -> set[str]:
        """Every run of the question's units that could be a name or a cue."""
        out: set[str] = set()
        first = self._first
        for i, u in enumerate(us):
            if u not in first:
                continue
            run: list[str] = []
            for v in us[i : i + NAME_UNITS]:
                run.append(v)
                out.add(_join(run))
        return out

    def _candidates(self, q: _Question) -> dict[str, float]:
        """Memories worth scoring: those holding the question's rarest words, then names."""
        acc: dict[str, float] = {}
        walked = 0
        post = self._post
        for w, idf in sorted(q.words.items(), key=lambda kv: -kv[1]):
            slugs = post.get(w)
            if not slugs:
                continue
            if walked and walked + len(slugs) > POSTINGS_BUDGET:
                break
            walked += len(slugs)
            for s in slugs:
                acc[s] = acc.get(s, 0.0) + idf
        best = sorted(acc.items(), key=lambda kv: (-kv[1], kv[0]))[:CANDIDATES]
        return dict(best)

    def _score(self, h: _Held, q: _Question, name: float) -> float:
        def cov(head: str, weights: dict[str, float], text: str) -> float:
            mass = q.mass.get(head, 0.0)
            if mass <= 0:
                return 0.0
            return sum(w for g, w in weights.items() if g in text) / mass

        words = q.mass["words"]
        got = sum(w for g, w in q.words.items() if g in h.words) / words if words else 0.0
        fit_w = self._idf("words", h.fit)
        fit_mass = sum(fit_w.values())
        fit = sum(w for g, w in fit_w.items() if g in q.words) / fit_mass if fit_mass else 0.0
        return (
            WEIGHTS["name"] * name
            + WEIGHTS["words"] * got
            + WEIGHTS["grams"] * cov("g3", q.g3, h.text)
            + WEIGHTS["body"] * cov("gb", q.gb, h.body)
            + WEIGHTS["fit"] * fit
        )

    def _cue_route(self, q: _Question, check: Callable[[Receipt], bool] | None) -> Judgement | None:
        """The cue route's answer, a silence when cues disagree, or None to go on."""
        found: dict[str, Receipt] = {}
        for w in q.windows:
            for slug, r in self._cues.get(w, {}).items():
                if self._cue_unique(r):
                    prev = found.get(slug)
                    if prev is None or len(r.cue) > len(prev.cue):
                        found[slug] = r
        if not found:
            return None
        if len(found) > 1:
            return Judgement(
                "no-confident-hit",
                why="cues naming different memories: " + ", ".join(sorted(found)),
            )
        r = next(iter(found.values()))
        if check is not None and not check(r):
            return None  # the receipt no longer holds: the cue is not used
        return Judgement("ok", slug=r.slug, how="fastpath-cue", score=1.0, receipt=r)

    def _cue_unique(self, r: Receipt) -> bool:
        """No other memory's title, trigger or slug holds every word of the cue."""
        toks = set(tokenize(r.cue))
        if not toks:
            return False
        holders: set[str] | None = None
        for t in toks:
            s = self._post.get(t, set())
            holders = set(s) if holders is None else holders & s
            if not holders:
                return False
        return holders == {r.slug}

    def judge(
        self,
        question: str,
        *,
        gate: float = 1.0,
        cues: bool = True,
        check: Callable[[Receipt], bool] | None = None,
    ) -> Judgement:
        """The fastpath's answer to *question*: a slug when it is sure, else silence.

        *check* re-reads a cue's receipt (a callable that returns whether it still holds).
        """
        t0 = time.perf_counter()
        with self._lock:
            j = self._judge(question, gate, cues, check)
        ms = (time.perf_counter() - t0) * 1000
        return Judgement(**{**j.__dict__, "ms": ms})

    def _judge(
        self, question: str, gate: float, cues: bool, check: Callable[[Receipt], bool] | None
    ) -> Judgement:
        if not self._held:
            return Judgement("no-confident-hit", why="the store is empty")
        q = self._question(question)
        heads = self._heads(q, gate)
        if cues and self.cues_on and self._cues:
            routed = self._cue_route(q, check)
            if routed is not None and heads.verdict == "ok" and routed.slug != heads.slug:
                return Judgement(
                    "no-confident-hit",
                    scores=heads.scores,
                    why=f"a cue names {routed.slug}, the question's words {heads.slug}",
                )
            if routed is not None:
                return routed
        return heads

    def _heads(self, q: _Question, gate: float) -> Judgement:
        """The heads' vote and the honesty gate."""
        names: dict[str, float] = {}
        for w in q.windows:
            for slug in self._names.get(w, ()):
                names[slug] = max(names.get(slug, 0.0), float(len(w)))
        longest = max(names.values(), default=0.0)
        cands = self._candidates(q)
        for slug in names:
            cands.setdefault(slug, 0.0)
        scored = sorted(
            (
                (
                    slug,
                    self._score(
                        self._held[slug], q, names.get(slug, 0.0) / longest if longest else 0.0
                    ),
                )
                for slug in cands
            ),
            key=lambda kv: (-kv[1], kv[0]),
        )
        top = tuple((s, round(v, 4)) for s, v in scored[:3])
        if not scored:
            return Judgement("no-confident-hit", why="no memory shares a word with the question")
        best, score = scored[0]
        runner = scored[1][1] if len(scored) > 1 else 0.0
        if score < gate:
            return Judgement(
                "no-confident-hit",
                score=score,
                runner_up=runner,
                scores=top,
                why=f"best score {score:.2f} is under the gate {gate:g}",
            )
        if runner > 0 and score < MARGIN * runner:
            return Judgement(
                "no-confident-hit",
                score=score,
                runner_up=runner,
                scores=top,
                why=f"{best} does not clearly beat {scored[1][0]}",
            )
        return Judgement("ok", slug=best, how="fastpath", score=score, runner_up=runner, scores=top)

    def explain(self) -> dict[str, Any]:
        with self._lock:
            return {
                "memories": len(self._held),
                "names": len(self._names),
                "cues": sum(len(v) for v in self._cues.values()),
            }
