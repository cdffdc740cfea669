"""Word-level recall: the degraded tier used when no model can be reached.

Recall normally works by meaning: a small model reads the whole index. When that model is
unreachable, recall falls back to this module, which ranks memories by the words they share
with the question. It has to work for English, Japanese and Chinese stores alike, so the
tokeniser is Unicode-aware:

* Latin, Cyrillic, Greek and other spaced scripts become case-folded words, lightly stemmed
  so that "disks" meets "disk" and "archived" meets "archive";
* Chinese, Japanese and Korean, which have no spaces, become overlapping character bigrams,
  plus single characters for Han ideographs.

Ranking is BM25F over three fields (title, trigger line, body), computed from inverted
postings built once. Everything here is standard library only and read-only after build, so
one index can serve concurrent searches from several threads.

``relevant_paragraphs`` trims a memory to a character budget by keeping the paragraphs that
bear on the question, never by cutting the tail.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping

__all__ = ["Doc", "WordIndex", "relevant_paragraphs", "tokenize"]

# --------------------------------------------------------------------------------------
# Tokenisation
# --------------------------------------------------------------------------------------

_HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_HIRAGANA = "\u3041-\u309f"
_KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_CJK = _HAN + _HIRAGANA + _KATAKANA + _HANGUL

# A CJK run, or a word: letters and digits (never CJK, never "_"), where a "." or "," sitting
# between two digits stays inside the word so 43.7, 2.6t and 192.168.1.10 survive; a "," is
# kept only as a thousands separator (20,000), then dropped.
_TOKEN = re.compile(
    rf"([{_CJK}]+)"
    rf"|([^\W_{_CJK}]+(?:(?:(?<=\d)\.(?=\d)|(?<=\d),(?=\d{{3}}(?!\d)))[^\W_{_CJK}]+)*)"
)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_HAN_CHAR = re.compile(rf"[{_HAN}]")

#: Function words that carry no meaning for recall. Deliberately short: negations ("not",
#: "no", "never") and quantities stay, because memories about landmines hinge on them.
STOPWORDS = frozenset(
    """
    a an and are as at be been being but by can could did do does doing for from had has
    have having he her hers him his how i if in into is it its itself me my myself of on or
    our ours she should so than that the their theirs them then there these they this those
    to too us was we were what when where which while who whom why will with would you your
    yours about after also any because before both each just more most other over same some
    such up down out off very s t d ll m re ve
    """.split()
)

_VOWELS = frozenset("aeiouy")
_NO_STRIP = frozenset(
    """
    this his has was is as us yes bus gas plus thus always perhaps news series species
    analysis basis status bonus campus virus canvas atlas alias lens corpus chaos
    process access address class glass less loss boss pass mass miss kiss cross gross
    bring thing string spring king ring sing wing nothing something anything everything
    morning evening during ceiling
    need feed seed speed red bed shed bleed breed
    only early daily family apply reply supply july italy fly ally rely belly jelly holy
    """.split()
)


def _has_vowel(part: str) -> bool:
    return any(ch in _VOWELS for ch in part)


def _undouble(part: str) -> str:
    """Collapse a doubled final consonant left by -ing/-ed ("runn" -> "run")."""
    if len(part) >= 3 and part[-1] == part[-2] and part[-1] not in "aeioulsz":
        return part[:-1]
    return part


def stem(word: str) -> str:
    """Light, deterministic English suffix stripping for an ASCII lower-case word.

    Only a handful of inflections are removed: plurals (-s, -es, -ies), -ing, -ed, -ly.
    A trailing silent "e" is then dropped from every stem of four letters or more, which is
    what makes "archive", "archived", "archives" and "archiving" all meet at "archiv".
    Words shorter than four letters and a short list of exceptions are left alone, so
    "status", "this" and "morning" keep their shape. Non-ASCII or non-alphabetic words are
    returned unchanged. The rules trade recall for predictability: they never touch a
    stem so short that two unrelated words would collide.
    """
    if len(word) < 4 or not word.isascii() or not word.isalpha() or word in _NO_STRIP:
        return word
    w = word
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith(("ches", "shes", "xes", "zzes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) >= 6 and _has_vowel(w[:-3]):
        w = _undouble(w[:-3])
    elif w.endswith("eed"):
        pass
    elif w.endswith("ed") and len(w) >= 5 and _has_vowel(w[:-2]):
        w = _undouble(w[:-2])
    elif w.endswith("ed") and len(w) == 4 and w[0] in _VOWELS:
        w = w[:-1]  # "used" -> "use", "aged" -> "age"
    elif w.endswith("ly") and len(w) >= 6:
        w = w[:-2]
    if len(w) >= 4 and w.endswith("e") and not w.endswith(("ee", "ye")):
        w = w[:-1]
    return w


def _is_hiragana(ch: str) -> bool:
    return "\u3041" <= ch <= "\u309f"


_HIRAGANA_CHAR = re.compile(rf"[{_HIRAGANA}]")
_HIRAGANA_PAIR = re.compile(rf"[{_HIRAGANA}]{{2}}")


def _cjk_tokens(run: str, out: list[str]) -> None:
    """Append the n-grams of one unbroken run of CJK characters.

    Every adjacent pair becomes a bigram, except pairs made only of hiragana, which are
    almost always grammar (particles, verb endings) rather than content. Han ideographs are
    also emitted one by one: a Chinese or Japanese paraphrase often keeps the key character
    while changing the word around it (车 in 开车 and 车牌, 票 in 车票 and 高铁票), and BM25's
    idf keeps very common characters from dominating. Kana and hangul syllables are not
    emitted alone (too ambiguous), except when the run is a single character that is not
    hiragana (a lone hiragana between Latin words is a particle, as in "NASは").

    On the bundled evaluation set, Han unigrams raise hit@3 for Japanese and Chinese
    questions markedly; katakana unigrams, hiragana unigrams and trigrams each lower it, and
    keeping all-hiragana bigrams makes no difference beyond a larger index.
    """
    if len(run) == 1:
        if not _is_hiragana(run):
            out.append(run)
        return
    pairs = [a + b for a, b in zip(run, run[1:])]
    if _HIRAGANA_CHAR.search(run):
        pairs = [p for p in pairs if not _HIRAGANA_PAIR.fullmatch(p)]
    out.extend(pairs)
    out.extend(_HAN_CHAR.findall(run))


_WORD_CACHE: dict[str, str] = {}
_WORD_CACHE_MAX = 200_000


def _word_token(word: str) -> str:
    """The token for one case-folded word, or "" for a stopword (memoised)."""
    tok = _WORD_CACHE.get(word)
    if tok is None:
        if "," in word:
            word_ = _THOUSANDS.sub("", word)
        else:
            word_ = word
        tok = "" if word_ in STOPWORDS else stem(word_)
        if len(_WORD_CACHE) >= _WORD_CACHE_MAX:
            _WORD_CACHE.clear()
        _WORD_CACHE[word] = tok
    return tok


def tokenize(text: str) -> list[str]:
    """Split *text* into recall tokens, in order of appearance (duplicates kept).

    NFKC first (fullwidth ＡＢＣ１２３ become ABC123, halfwidth katakana become fullwidth),
    then case folding. Spaced scripts give words of letters and digits; "cp932" and "x1"
    stay whole, decimals (43.7, 2.6T) and digit-grouped numbers (20,000 -> 20000) stay
    one token, "_" and "-" split. English words then pass through ``stem`` and a short
    stopword list. CJK runs give bigrams and Han unigrams (see ``_cjk_tokens``).
    """
    if not text:
        return []
    norm = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for run, word in _TOKEN.findall(norm):
        if run:
            _cjk_tokens(run, out)
        else:
            tok = _word_token(word)
            if tok:
                out.append(tok)
    return out


# --------------------------------------------------------------------------------------
# BM25F index
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    """One memory as the word index sees it: its slug and three text fields."""

    slug: str
    title: str
    description: str
    body: str


_FIELDS = ("title", "description", "body")
# A posting during build: document number << 40 | title count << 30 | description
# count << 20 | body count.
_DOC_SHIFT, _TITLE_SHIFT, _DESC_SHIFT = 40, 30, 20
_BODY_MASK = (1 << 20) - 1
_SMALL_MASK = (1 << 10) - 1
_HIGH_MASK = ((1 << 20) - 1) << 20
_DOC_MAX = (1 << 24) - 1
_DEFAULT_WEIGHTS: Mapping[str, float] = {"title": 2.0, "description": 2.0, "body": 1.0}


class WordIndex:
    """BM25F ranking over title, trigger line (description) and body.

    For each term and document the field frequencies are combined into one pseudo
    frequency, each field's count weighted by ``field_weights`` and normalised by that
    field's length relative to its average (parameter ``b``), then saturated with ``k1``:

        tf' = sum_f w_f * tf_f / (1 - b + b * len_f / avglen_f)
        score(q, d) = sum_{t in q} idf(t) * tf' * (k1 + 1) / (k1 + tf')
        idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))

    The saturated part depends only on the document, so it is computed once at build time.
    Storage is two flat arrays holding every posting grouped by term (document numbers as
    32-bit integers, weights as 32-bit floats) plus one dict mapping each term to where its
    postings start and how many there are: a few bytes per posting and no Python object per
    posting. A search is one pass over the postings of the question's terms. The index never
    changes after construction, so concurrent searches need no lock. Repeated query terms
    count once.
    """

    __slots__ = ("_slugs", "_terms", "_doc_ids", "_weights", "field_weights", "k1", "b")

    def __init__(
        self,
        docs: Iterable[Doc],
        *,
        field_weights: Mapping[str, float] | None = None,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        weights = dict(_DEFAULT_WEIGHTS if field_weights is None else field_weights)
        unknown = set(weights) - set(_FIELDS)
        if unknown:
            raise ValueError(f"unknown field(s) in field_weights: {sorted(unknown)}")
        if any(not (float(v) >= 0.0) or math.isinf(float(v)) for v in weights.values()):
            raise ValueError("field_weights must be finite and not negative")
        self.field_weights = {f: float(weights.get(f, 0.0)) for f in _FIELDS}
        self.k1 = float(k1)
        self.b = float(b)

        # Pass 1: tokenise once. Each posting is one 64-bit integer holding the document
        # number and the term's count in each field (see _pack).
        slugs: list[str] = []
        seen: set[str] = set()
        lengths = (array("I"), array("I"), array("I"))
        postings: dict[str, array] = {}
        for doc_id, doc in enumerate(docs):
            if doc.slug in seen:
                raise ValueError(f"duplicate slug in word index: {doc.slug!r}")
            if doc_id > _DOC_MAX:
                raise ValueError(f"a word index holds at most {_DOC_MAX + 1} documents")
            seen.add(doc.slug)
            slugs.append(doc.slug)
            title = tokenize(doc.title or "")
            desc = tokenize(doc.description or "")
            body = tokenize(doc.body or "")
            lengths[0].append(len(title))
            lengths[1].append(len(desc))
            lengths[2].append(len(body))
            counts = Counter(body)
            if len(body) > _BODY_MASK:
                for term, c in counts.items():
                    counts[term] = min(c, _BODY_MASK)
            for term, c in Counter(desc).items():
                counts[term] += min(c, _SMALL_MASK) << _DESC_SHIFT
            for term, c in Counter(title).items():
                counts[term] += min(c, _SMALL_MASK) << _TITLE_SHIFT
            base = doc_id << _DOC_SHIFT
            get = postings.get
            for term, packed in counts.items():
                plist = get(term)
                if plist is None:
                    postings[term] = array("Q", (base | packed,))
                else:
                    plist.append(base | packed)

        # Pass 2: field-length normalisation per document, then saturated weights per
        # posting, laid out term after term in two flat arrays.
        n = len(slugs)
        k1, b = self.k1, self.b
        norms = []
        for field, name in enumerate(_FIELDS):
            w = self.field_weights[name]
            lens = lengths[field]
            avg = max(sum(lens) / n, 1.0) if n else 1.0
            norms.append([w / (1.0 - b + b * ln / avg) if w else 0.0 for ln in lens])
        n_title, n_desc, n_body = norms
        k1p = k1 + 1.0
        has_zero_weight = not all(self.field_weights.values())
        body_mask, small_mask, high = _BODY_MASK, _SMALL_MASK, _HIGH_MASK
        d_shift, s_desc, s_title = _DOC_SHIFT, _DESC_SHIFT, _TITLE_SHIFT

        terms: dict[str, int] = {}
        doc_ids = array("I")
        weights_out = array("f")
        for term in sorted(postings):
            plist = postings.pop(term)
            tfp = [
                (v & body_mask) * n_body[v >> d_shift]
                + (
                    ((v >> s_desc) & small_mask) * n_desc[v >> d_shift]
                    + ((v >> s_title) & small_mask) * n_title[v >> d_shift]
                    if v & high
                    else 0.0
                )
                for v in plist
            ]
            ids = [v >> d_shift for v in plist]
            if has_zero_weight and not all(tfp):
                kept = [(d, x) for d, x in zip(ids, tfp) if x > 0.0]
                if not kept:
                    continue
                ids = [d for d, _ in kept]
                tfp = [x for _, x in kept]
            terms[term] = (len(doc_ids) << 32) | len(ids)
            doc_ids.extend(ids)
            weights_out.extend([x * k1p / (k1 + x) for x in tfp])

        self._slugs: tuple[str, ...] = tuple(slugs)
        self._terms = terms
        self._doc_ids = memoryview(doc_ids)
        self._weights = memoryview(weights_out)

    def __len__(self) -> int:
        return len(self._slugs)

    @property
    def slugs(self) -> tuple[str, ...]:
        """The indexed slugs, in the order the documents were given."""
        return self._slugs

    @property
    def vocabulary_size(self) -> int:
        """How many distinct terms the index holds."""
        return len(self._terms)

    def search(self, query: str, top: int = 3) -> list[tuple[str, float]]:
        """The *top* best slugs for *query* with their scores, best first.

        Only documents with a positive score appear, so a question sharing no term with
        the store returns ``[]``. Equal scores are ordered by slug, so results are
        identical from run to run and thread to thread.
        """
        if top <= 0 or not self._slugs:
            return []
        n = len(self._slugs)
        plan: list[tuple[float, int, int]] = []
        touched = 0
        for term in dict.fromkeys(tokenize(query)):
            where = self._terms.get(term)
            if where is None:
                continue
            start, df = where >> 32, where & 0xFFFFFFFF
            plan.append((math.log(1.0 + (n - df + 0.5) / (df + 0.5)), start, start + df))
            touched += df
        if not plan:
            return []
        ids, weights, slugs = self._doc_ids, self._weights, self._slugs
        if touched * 4 < n:
            # Few postings: a sparse accumulator avoids walking every document.
            acc: dict[int, float] = {}
            get = acc.get
            for idf, start, end in plan:
                for doc_id, weight in zip(ids[start:end], weights[start:end]):
                    acc[doc_id] = get(doc_id, 0.0) + idf * weight
            scored = ((-score, slugs[d]) for d, score in acc.items() if score > 0.0)
        else:
            # Many postings: a dense list is about twice as fast as a dict.
            dense = [0.0] * n
            for idf, start, end in plan:
                for doc_id, weight in zip(ids[start:end], weights[start:end]):
                    dense[doc_id] += idf * weight
            scored = ((-score, slugs[d]) for d, score in enumerate(dense) if score > 0.0)
        return [(slug, -neg) for neg, slug in heapq.nsmallest(top, scored)]


# --------------------------------------------------------------------------------------
# Trimming a memory to a budget
# --------------------------------------------------------------------------------------

_PARA_SPLIT = re.compile(r"\n[ \t]*\n+")
_ELLIPSIS = "…"
_SEP = "\n\n"
# A sentence ends after . ! ? followed by space (so 43.7 and e.g. 2.6T never end one), after
# CJK full stops, or at a line break.
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s)|[。！？][」』）]*|\n")


def _paragraphs(body: str) -> list[str]:
    """Blank-line separated paragraphs; a fenced code block is never split."""
    parts = [p.strip("\n") for p in _PARA_SPLIT.split(body.strip())]
    parts = [p for p in parts if p.strip()]
    merged: list[str] = []
    open_fence = False
    for part in parts:
        if open_fence:
            merged[-1] = merged[-1] + _SEP + part
        else:
            merged.append(part)
        if part.count("```") % 2 == 1:
            open_fence = not open_fence
    return merged


def _assemble(paras: list[str], keep: Iterable[int]) -> str:
    pieces: list[str] = []
    prev = None
    for i in sorted(keep):
        if prev is not None and i != prev + 1:
            pieces.append(_ELLIPSIS)
        pieces.append(paras[i])
        prev = i
    return _SEP.join(pieces)


def _cut(text: str, limit: int) -> str:
    """Shorten one paragraph to at most *limit* characters, ending with a "…" mark.

    Prefers the last sentence boundary that fits, then the last space, then (for runs
    without spaces, such as CJK) the last character that is not inside a number or a
    word. Never returns an empty string: if the budget is smaller than the first word, that
    word is returned whole rather than split.
    """
    text = text.strip()
    if len(text) <= limit:
        return text
    room = limit - 2  # space for " …"
    if room > 0:
        end = 0
        for m in _SENTENCE_END.finditer(text, 0, room + 1):
            if m.end() <= room:
                end = m.end()
        if end:
            return _mark(text[:end])
        space = max(text.rfind(" ", 0, room + 1), text.rfind("\n", 0, room + 1))
        if space > 0:
            return _mark(text[:space])
        cut = room
        while cut > 0 and _inside_token(text, cut):
            cut -= 1
        if cut > 0:
            return _mark(text[:cut])
    end = max(1, limit)
    while end < len(text) and _inside_token(text, end):
        end += 1
    return text[:end]


def _is_wide(ch: str) -> bool:
    """CJK ideographs, kana, hangul and fullwidth punctuation."""
    return ch >= "\u2e80" and not ("\ud800" <= ch <= "\uf8ff")


def _mark(kept: str) -> str:
    """*kept* followed by the cut mark: " …" after spaced text, "…" right after CJK."""
    kept = kept.rstrip()
    return kept + ("" if _is_wide(kept[-1]) else " ") + _ELLIPSIS


def _inside_token(text: str, i: int) -> bool:
    """True if a cut between text[i-1] and text[i] would split a number or a word."""
    left, right = text[i - 1], text[i]
    if left.isdigit() and (right.isdigit() or right in ".,"):
        return True
    if left in ".," and right.isdigit() and i >= 2 and text[i - 2].isdigit():
        return True
    return (
        left.isalnum() and right.isalnum() and not _is_wide(left) and not _is_wide(right)
    )


def relevant_paragraphs(body: str, question: str, budget_chars: int) -> str:
    """Trim *body* to at most *budget_chars* characters, keeping what bears on *question*.

    The body is split into paragraphs at blank lines (fenced code blocks stay whole). If
    it all fits it is returned as is (without surrounding blank lines). Otherwise:

    1. the first paragraph is kept if it fits: it usually states the fact;
    2. the other paragraphs are ranked by how much they share with the question (shared
       tokens, each weighted by how rare it is among this body's paragraphs; ties go to
       the earlier paragraph) and added while the result still fits; paragraphs sharing
       nothing come last, in their original order, and only fill leftover room;
    3. kept paragraphs are output in their original order, with a "…" line wherever
       paragraphs were skipped between two kept ones.

    When the first paragraph is too long and nothing else bears on the question more, or
    when no paragraph fits whole, the most relevant paragraph (the first, on a tie) is cut
    instead, at a sentence boundary where possible, never inside a number, and marked with
    "…". The result is never empty for a non-empty body.
    """
    text = (body or "").strip()
    if not text:
        return ""
    if len(text) <= budget_chars:
        return text
    paras = _paragraphs(text)
    if len(paras) == 1:
        return _cut(paras[0], budget_chars)

    q = set(tokenize(question or ""))
    para_tokens = [set(tokenize(p)) for p in paras]
    df: Counter[str] = Counter()
    for toks in para_tokens:
        df.update(toks & q)
    count = len(paras)
    relevance = [
        sum(math.log(1.0 + count / df[t]) for t in toks & q) for toks in para_tokens
    ]

    best = min(range(count), key=lambda i: (-relevance[i], i))
    keep: set[int] = set()
    if len(paras[0]) <= budget_chars:
        keep.add(0)
    elif best == 0:
        return _cut(paras[0], budget_chars)
    order = sorted(range(1, count), key=lambda i: (-relevance[i], i))
    for i in order:
        if len(_assemble(paras, keep | {i})) <= budget_chars:
            keep.add(i)
    if keep:
        return _assemble(paras, keep)
    return _cut(paras[best], budget_chars)
