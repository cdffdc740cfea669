"""Recall: question → whole index in one prompt → picked slugs → walk [[links]].

The thinker reads every index line (a recognition trigger) and names the memories that
bear on the question by meaning. When it cannot — unconfigured, unreachable, past its
timeout, or answering nonsense — recall falls back to ranked word retrieval and says so
(`how: "words"`, `degraded: true`). It never raises to the caller because a model failed.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import (
    BusyError,
    ContainmentError,
    KuraError,
    MemoryFormatError,
    ModelUnavailable,
    NotFound,
)
from .fastpath import FastDoc, Judgement, Receipt, Recognizer
from .profile import preamble
from .prompts import Preamble, messages as build_messages
from .registry import Registry
from .store import Entry, Index, Listing, Memory, Store, changed_since, memory_slug
from .tokens import estimate_tokens, from_parts, token_parts
from .verdict import for_thinker, weak_notice
from .vocabulary import ProvenanceClass
from .words import Doc, WordIndex, relevant_paragraphs

PICK_SCHEMA = {
    "type": "object",
    "properties": {"slugs": {"type": "array", "items": {"type": "string"}}},
    "required": ["slugs"],
}

PICK_INSTRUCTIONS = """\
You are the thinker of a long-term memory. Below is its index: one line per memory,
each a recognition trigger written as `- [Title](slug.md) — trigger`.
You will be given a question. Name the memories whose subject bears on it by meaning,
even when they share no word with the question (a question about "SSD inference chips"
bears on a memory about "running the 2.6T model off an SSD tier").
Reply with JSON only: {"slugs": ["slug", ...]} — the slugs (file names without .md),
most relevant first, at most the number asked for. Reply {"slugs": []} if nothing bears.
Never invent a slug that is not in the index."""

#: after this long without a full check, the word index re-verifies every file's identity
#: (a hand edit made in place changes neither the directory nor the index).
RECHECK_S = 5.0
#: when more than this share of a store changed at once (a checkout, a restore), rebuilding
#: the word index is cheaper than updating it memory by memory.
REBUILD_SHARE = 0.25
#: the read log is written in batches: at once after a quiet spell, then at most this often
#: or when this many recalls are waiting, so a busy server does not queue on SQLite's lock.
READ_LOG_EVERY_S = 0.5
READ_LOG_BATCH = 256
#: how many busy timeouts a batch written on a server's pool waits out before it goes back
READ_LOG_TRIES = 3
#: the most rows that wait for the read log when the workshop stays locked
READ_LOG_KEEP = 4 * READ_LOG_BATCH
#: a memory file changed (or a directory entry moved) this recently may be mid-save: a read
#: of it that fails is retried, for at most RETRY_S in all.
RACE_WINDOW_S = 2.0
RETRY_S = 0.5


#: The bounds a caller may ask for, the same on every face: how far [[links]] are walked,
#: how many memories may be picked, how many characters of context come back.
RECALL_LIMITS: dict[str, tuple[int, int]] = {
    "hops": (0, 10),
    "top": (1, 100),
    "chars": (200, 1_000_000),
}
#: What a recall question may hold, in characters.
QUESTION_CHARS = 8000


def check_limits(**values: int | None) -> None:
    """Refuse a hops/top/chars outside :data:`RECALL_LIMITS` (None: the store's default)."""
    for key, v in values.items():
        if v is None:
            continue
        lo, hi = RECALL_LIMITS[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise KuraError(f"{key} must be a whole number from {lo} to {hi} (got {v!r})")


def degraded_notice(reason: str) -> str:
    """The one line every face shows when recall fell back to words."""
    return f"⚠ degraded: recalled by words, not meaning ({reason or 'the thinker did not answer'})"


class Skipped(NamedTuple):
    """A memory recall picked (or walked to) but could not include, and why."""

    slug: str
    reason: str


@dataclass(frozen=True)
class RecallResult:
    store: str
    question: str
    how: str  # "fastpath" | "fastpath-cue" | "meaning" | "words"
    degraded: bool
    picked: tuple[str, ...]
    walked: tuple[str, ...]
    context: str
    tokens_est: int
    elapsed_ms: float
    model_ms: float = 0.0
    reason: str = ""  # why recall degraded, when it did
    shards: int = 0
    dropped: tuple[str, ...] = ()  # slugs the thinker named that are not in the store
    scores: tuple[tuple[str, float], ...] = ()
    #: every memory picked or walked that could not be included, with why
    skipped: tuple[Skipped, ...] = ()
    #: what tier zero made of the question: "disabled" | "ok" | "no-confident-hit"
    fastpath_verdict: str = "disabled"
    fastpath_ms: float = 0.0
    #: why this answer's thinker is not to be trusted ("" when nothing says so): it named
    #: memories that do not exist, or `kura bench models` found it below the word tier
    weak: str = ""

    @property
    def notice(self) -> str:
        """The lines to show above the answer: degraded, weak thinker ("" when neither)."""
        lines = [degraded_notice(self.reason)] if self.degraded else []
        if self.weak:
            lines.append(weak_notice(self.weak))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON, in field order, then ``notice`` when degraded (written out
        rather than walked: it is on the path of every recall a server answers)."""
        d: dict[str, Any] = {
            "store": self.store,
            "question": self.question,
            "how": self.how,
            "degraded": self.degraded,
            "picked": list(self.picked),
            "walked": list(self.walked),
            "context": self.context,
            "tokens_est": self.tokens_est,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "model_ms": round(self.model_ms, 2),
            "reason": self.reason,
            "shards": self.shards,
            "dropped": list(self.dropped),
            "scores": [[s, round(v, 4)] for s, v in self.scores],
            "skipped": [{"slug": s.slug, "reason": s.reason} for s in self.skipped],
            "fastpath_verdict": self.fastpath_verdict,
            "fastpath_ms": round(self.fastpath_ms, 3),
            "weak": self.weak,
        }
        if self.degraded or self.weak:
            d["notice"] = self.notice
        return d


class _Words:
    """A store's word index and what it was made from; changed only under the build lock."""

    __slots__ = ("index", "dir", "checked", "files", "listing", "entries", "fast")

    def __init__(
        self,
        index: WordIndex,
        dir: tuple | None,
        checked: float,
        files: dict[str, tuple],
        entries: Index,
        listing: Listing,
    ):
        self.index = index
        self.dir = dir  # the store directory's identity when the index last caught up
        self.checked = checked  # monotonic time of the last check of every file
        self.files = files  # slug -> (inode, mtime_ns, size) of each file as it was read
        self.listing = listing  # the scan of the directory taken before those files were read
        self.entries = entries  # the parsed MEMORY.md the titles and trigger lines came from
        #: the fastpath's recogniser, once a recall asked for it; it follows the same writes
        self.fast: Recognizer | None = None


class _Cached:
    def __init__(self, reg: Registry) -> None:
        self.lock = threading.Lock()
        self.words: dict[str, _Words] = {}
        self.prompts: dict[str, tuple[Any, tuple, tuple, dict[str, int]]] = {}
        self.building: dict[str, threading.Lock] = {}
        self.reads: dict[str, list[tuple]] = {}
        self.reads_written: dict[str, float] = {}
        #: where batches of the read log are written from (None: by the recalling thread)
        self.defer: Callable[..., None] | None = None
        self.registry = weakref.ref(reg)


_CACHE_ATTR = "_recall_cache"
_LIVE: weakref.WeakSet[_Cached] = weakref.WeakSet()


def _cache(reg: Registry) -> _Cached:
    c = getattr(reg, _CACHE_ATTR, None)
    if c is None:
        with _POOL_LOCK:
            c = getattr(reg, _CACHE_ATTR, None)
            if c is None:
                c = _Cached(reg)
                setattr(reg, _CACHE_ATTR, c)
                _LIVE.add(c)
    return c


# --------------------------------------------------------------------------- prompts


def index_shards(
    entries: Sequence[Entry], shard_tokens: int, costs: dict[str, int] | None = None
) -> list[str]:
    """The index as it stands in MEMORY.md, cut into shards of at most shard_tokens.

    Entry lines are sent exactly as written; each shard repeats the `## ` sector
    heading its first line belongs to, so a sector's meaning survives the cut. *costs*,
    when given, remembers each line's token estimate across calls (it is filled in), so
    cutting the index again after one line changed estimates one line.
    """
    shards: list[list[str]] = [[]]
    used = 0
    sector = None
    memo = {} if costs is None else costs
    last_line = -1
    for e in entries:
        if e.line_no == last_line:
            continue  # a grouped line names several memories: it is sent once
        last_line = e.line_no
        cost = memo.get(e.raw)
        if cost is None:
            cost = memo[e.raw] = estimate_tokens(e.raw) + 1
        if shards[-1] and used + cost > shard_tokens:
            shards.append([])
            used = 0
            sector = None
        if e.sector != sector:
            if e.sector:
                shards[-1].append(f"## {e.sector}")
                used += estimate_tokens(e.sector) + 2
            sector = e.sector
        shards[-1].append(e.raw)
        used += cost
    return ["# Index\n\n" + "\n".join(s) for s in shards if s]


def pick_messages(
    charter: str | Preamble, shard: str, question: str, top: int
) -> list[dict[str, str]]:
    task = f"Question: {question}\n\nName at most {top} slugs."
    return build_messages(charter, PICK_INSTRUCTIONS, task, stable=shard)


# --------------------------------------------------------------------------- the word tier


def word_index(reg: Registry, name: str, *, index: Index | None = None) -> WordIndex:
    """The store's word index, built once, shared, and kept up to date with the store.

    After a write only the memories that changed are re-read and re-indexed: a file whose
    inode differs (every kura write replaces the file) or whose index line changed, plus
    files added or removed. A hand edit made in place, which changes neither, is found by a
    full check of every file's identity at most every RECHECK_S seconds. A change touching
    more than REBUILD_SHARE of the store rebuilds instead, which is then cheaper. Either way
    the index answers exactly as one built from scratch would.

    Concurrent callers that find it missing or stale wait for one update instead of each
    making their own. *index* is the parsed MEMORY.md a caller just fetched (a recall has),
    so the file is not looked at twice.
    """
    store = reg.store(name)
    cache = _cache(reg)
    entries = store.index() if index is None else index
    here = _dir_key(store)
    with cache.lock:
        state = cache.words.get(name)
    if (
        state is not None
        and state.dir == here
        and state.entries is entries
        and time.monotonic() - state.checked < RECHECK_S
    ):
        return state.index
    with _build_lock(cache, name):
        with cache.lock:
            state = cache.words.get(name)
        if state is None:
            state = _build_words(store)
            with cache.lock:
                cache.words[name] = state
        else:
            _catch_up(store, state)
        return state.index


def words_built(reg: Registry, name: str) -> bool:
    """Whether this process has built the store's word index, and its fastpath recogniser
    when the store uses one (later recalls follow writes)."""
    cache = _cache(reg)
    with cache.lock:
        state = cache.words.get(name)
    if state is None:
        return False
    fp = reg.config.stores[name].fastpath
    return not fp.enabled or (state.fast is not None and state.fast.cues_on == fp.cues)


def fast_index(
    reg: Registry, name: str, *, index: Index | None = None, cues: bool = True
) -> Recognizer:
    """The store's fastpath recogniser: built lazily beside the word index, from the same
    reads, and brought up to date with it after every write (see word_index)."""
    word_index(reg, name, index=index)
    cache = _cache(reg)
    with cache.lock:
        state = cache.words[name]
    fast = state.fast
    if fast is not None and fast.cues_on == cues:
        return fast
    with _build_lock(cache, name):
        with cache.lock:
            state = cache.words[name]
        if state.fast is None or state.fast.cues_on != cues:
            state.fast = _build_fast(reg.store(name), state, cues)
        return state.fast


def _build_fast(store: Store, state: _Words, cues: bool) -> Recognizer:
    by_slug = state.entries.by_slug()
    docs = [_fast_doc(store, slug, by_slug, cues) for slug in state.index.slugs]
    return Recognizer([d for d in docs if d is not None], cues=cues)


def _fast_doc(store: Store, slug: str, entries: dict[str, Entry], cues: bool) -> FastDoc | None:
    """One memory as the fastpath reads it; with *cues*, the human's verified quotes in its
    evidence manifest come along (a memory written directly has none)."""
    try:
        m = store.read(slug)
    except KuraError:
        return None
    e = entries.get(slug)
    title, trigger = (e.title, e.description) if e else (m.title, m.description)
    manifest = ""
    quotes_: tuple[str, ...] = ()
    if cues:
        md = m.meta.get("metadata")
        ref = md.get("evidence_manifest") if isinstance(md, dict) else None
        quotes_ = _user_quotes(store, ref)
        manifest = ref if quotes_ and isinstance(ref, str) else ""
    return FastDoc(slug, title, trigger, m.body, manifest, quotes_)


_MANIFEST_REF = re.compile(r"sha256:[0-9a-f]{64}")


def _user_quotes(store: Store, ref: Any) -> tuple[str, ...]:
    """The human's verified quotes in an evidence manifest (none when it is missing or not
    one). Read here, as JSON, rather than through the floors, whose import a one-shot
    `kura recall` would pay for."""
    if not isinstance(ref, str) or not _MANIFEST_REF.fullmatch(ref):
        return ()
    try:
        with open(store.still / "manifests" / f"{ref[7:]}.json", encoding="utf-8") as f:
            payload = json.load(f)
    except (OSError, ValueError):
        return ()
    if not isinstance(payload, dict):
        return ()
    ev = payload.get("evidence")
    if isinstance(ev, dict):  # [class, quote, segment] triples, as the gate wrote them
        found = [
            q[1]
            for q in ev.get("quotes") or []
            if isinstance(q, list)
            and len(q) == 3
            and q[0] == ProvenanceClass.USER
            and isinstance(q[1], str)
        ]
    else:  # the older form: quotes with a status and a class
        found = [
            q["text"]
            for q in payload.get("quotes") or []
            if isinstance(q, dict)
            and q.get("status") == "verified"
            and q.get("class", q.get("cls")) == ProvenanceClass.USER
            and isinstance(q.get("text"), str)
        ]
    return tuple(dict.fromkeys(found))


def receipt_holds(store: Store, r: Receipt) -> bool:
    """Whether a cue's receipt still holds: the memory still points at the same evidence
    manifest, the manifest still holds the human's quote, and the cue is still learnt
    from it (its title still holds the cue)."""
    from .fastpath import learn_cues

    d = _fast_doc(store, r.slug, store.index().by_slug(), True)
    if d is None or d.manifest != r.manifest or r.quote not in d.user_quotes:
        return False
    return any(x.cue == r.cue and x.quote == r.quote for x in learn_cues(d))


def _build_lock(cache: _Cached, name: str) -> threading.Lock:
    with cache.lock:
        return cache.building.setdefault(name, threading.Lock())


def _dir_key(store: Store, *, fresh: bool = False) -> tuple | None:
    """The store directory's identity: every create, rename and delete in it changes it.
    Unless *fresh*, the status the store's latest index() took serves (it was taken before
    anything this reader goes on to list)."""
    st = None if fresh else store.root_status()
    if st is None:
        try:
            st = os.stat(store.root)
        except FileNotFoundError:
            return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _file_ids(store: Store, slugs: Sequence[str]) -> dict[str, tuple]:
    """slug -> (inode, mtime_ns, size) of each memory file that is still there."""
    root = str(store.root) + os.sep
    out = {}
    for slug in slugs:
        try:
            st = os.stat(root + slug + ".md")
        except OSError:
            continue
        out[slug] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return out


def _doc(store: Store, slug: str, entries: dict[str, Entry]) -> Doc | None:
    try:
        m = store.read(slug)
    except KuraError:
        return None  # unreadable or gone: left out, as a scan leaves it out
    e = entries.get(slug)
    return Doc(m.slug, e.title if e else m.title, e.description if e else m.description, m.body)


def _build_words(store: Store) -> _Words:
    here = _dir_key(store, fresh=True)
    now = time.monotonic()
    entries = store.index()
    listing = store.listing()  # the scan before the identities, the identities before the reads:
    files = _file_ids(store, store.file_slugs())  # a change after any of them is seen next time
    by_slug = entries.by_slug()
    docs = [d for d in (_doc(store, slug, by_slug) for slug in files) if d is not None]
    return _Words(WordIndex(docs), here, now, files, entries, listing)


def _entries_changed(older: Index, newer: Index) -> set[str]:
    """The slugs whose title or trigger differ between two parses of MEMORY.md, or whose
    entry appeared or went: only the entries the newer parse says it re-read when it was made
    from the older (store.changed_since), else every entry."""
    was, now = older.by_slug(), newer.by_slug()
    maybe = changed_since(older, newer)
    out = set()
    for slug in now if maybe is None else maybe:
        e, o = now.get(slug), was.get(slug)
        if o is not e and (
            o is None or e is None or o.title != e.title or o.description != e.description
        ):
            out.add(slug)
    if maybe is None:
        out.update(was.keys() - now.keys())
    return out


def _catch_up(store: Store, state: _Words) -> None:
    """Bring *state* up to the store as it is now, re-reading only what changed."""
    here = _dir_key(store, fresh=True)
    now = time.monotonic()
    full = now - state.checked >= RECHECK_S
    entries = store.index()
    if here == state.dir and entries is state.entries and not full:
        return
    listing = store.listing()  # one scan of the directory, shared with the store's own look
    if full:
        ids = _file_ids(store, store.file_slugs())
        changed = {slug for slug, fid in ids.items() if state.files.get(slug) != fid}
        removed = [slug for slug in state.files if slug not in ids]
    else:
        # Only the directory or MEMORY.md moved. A write replaces files, and a replaced
        # file has a new inode, which the directory listing carries without a stat.
        moved, went = listing.changed_since(state.listing)
        ids = _file_ids(store, [slug for slug in map(memory_slug, moved) if slug])
        changed = set(ids)
        removed = [slug for slug in map(memory_slug, went) if slug and slug in state.files]
    by_slug = entries.by_slug()
    if entries is not state.entries:
        changed |= _entries_changed(state.entries, entries)
    changed.difference_update(removed)
    if len(changed) + len(removed) > max(64, REBUILD_SHARE * len(state.index)):
        fresh = _build_words(store)
        state.index, state.files, state.listing = fresh.index, fresh.files, fresh.listing
        state.entries, state.dir, state.checked = fresh.entries, fresh.dir, fresh.checked
        if state.fast is not None:
            state.fast = _build_fast(store, state, state.fast.cues_on)
        return
    docs, gone = [], list(removed)
    for slug in removed:
        state.files.pop(slug, None)
    for slug in changed:
        if slug not in ids:
            ids.update(_file_ids(store, (slug,)))  # an index line changed; the file did not
        fid = ids.get(slug)
        if fid is None:  # no such file (any more)
            state.files.pop(slug, None)
            gone.append(slug)
            continue
        state.files[slug] = fid
        d = _doc(store, slug, by_slug)
        if d is None:
            gone.append(slug)
        else:
            docs.append(d)
    state.index.update(docs, remove=gone)
    if state.fast is not None:
        fast = [_fast_doc(store, d.slug, by_slug, state.fast.cues_on) for d in docs]
        state.fast.update([d for d in fast if d is not None], remove=gone)
    state.entries = entries
    state.listing = listing
    state.dir = here
    if full:
        state.checked = now


# --------------------------------------------------------------------------- recall


def recall(
    reg: Registry,
    selector: str | None,
    question: str,
    *,
    hops: int | None = None,
    top: int | None = None,
    chars: int | None = None,
) -> RecallResult:
    """The ladder: the fastpath answers a direct question it is sure of; otherwise the
    thinker reads the index; without a thinker (or when it fails) the word tier answers."""
    t0 = time.perf_counter()
    name = reg.resolve(selector)
    store = reg.store(name)
    rc = reg.config.stores[name].recall
    hops = rc.hops if hops is None else max(0, int(hops))
    top = rc.top if top is None else max(1, int(top))
    chars = rc.chars if chars is None else max(200, int(chars))
    question = " ".join(str(question).split())

    idx = store.index()
    if not idx.lines and not store.index_path.is_file():
        raise NotFound(
            f"store {name!r} has no MEMORY.md at {store.root}: run `kura init {name} --path {store.root}`"
        )
    fast, fast_ms = _fastpath(reg, name, store, idx, question)
    tier = _Tier()
    if fast.verdict == "ok":
        tier.how, tier.picked = fast.how, [fast.slug]
        tier.scores = [(fast.slug, fast.score)]
    else:
        _by_thinker(reg, name, store, idx, question, top, tier)
    if tier.how == "words":
        hits = word_index(reg, name, index=idx).search(question, top)
        tier.scores = hits
        tier.picked = [s for s, _ in hits]

    reader = _Reader(
        store, idx
    )  # the walk and the context read each memory once, against one index
    walked = _walk(store, reader, tier.picked, hops)
    context, walked, tokens = _context(store, reader, walked, question, chars)
    elapsed = (time.perf_counter() - t0) * 1000
    res = RecallResult(
        store=name,
        question=question,
        how=tier.how,
        degraded=tier.how == "words" and not tier.off,
        picked=tuple(tier.picked),
        walked=tuple(walked),
        context=context,
        tokens_est=tokens,
        elapsed_ms=elapsed,
        model_ms=tier.model_ms,
        reason=tier.reason,
        shards=tier.shards,
        dropped=tuple(tier.dropped),
        scores=tuple(tier.scores),
        skipped=tuple(Skipped(s, why) for s, why in reader.skipped.items()),
        fastpath_verdict=fast.verdict,
        fastpath_ms=fast_ms,
        weak=tier.weak,
    )
    _log_read(reg, name, res)
    return res


@dataclass
class _Tier:
    """What the tier that answered found."""

    how: str = "meaning"
    reason: str = ""
    model_ms: float = 0.0
    shards: int = 0
    picked: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    scores: list[tuple[str, float]] = field(default_factory=list)
    #: why this answer's thinker is not to be trusted (see :func:`_thinker_plan`)
    weak: str = ""
    #: the store asked no thinker on purpose: words are its answer, not a degradation
    off: bool = False


def _fastpath(
    reg: Registry, name: str, store: Store, idx: Index, question: str
) -> tuple[Judgement, float]:
    """Tier zero: (its judgement, the milliseconds it took, a first build included)."""
    fp = reg.config.stores[name].fastpath
    if not fp.enabled:
        return Judgement("disabled"), 0.0
    t0 = time.perf_counter()
    if not question:
        return Judgement("no-confident-hit", why="no question"), 0.0
    rec = fast_index(reg, name, index=idx, cues=fp.cues)
    j = rec.judge(question, gate=fp.gate, cues=fp.cues, check=lambda r: receipt_holds(store, r))
    if j.verdict == "ok" and not store.has(j.slug):
        j = Judgement("no-confident-hit", why=f"{j.slug}.md is gone")
    return j, (time.perf_counter() - t0) * 1000


def _by_thinker(
    reg: Registry, name: str, store: Store, idx: Index, question: str, top: int, tier: _Tier
) -> None:
    """Ask the thinker to pick from the whole index; say "words" in *tier* when it cannot."""
    models = reg.models(name)
    if not models.configured("thinker"):
        tier.how, tier.reason = "words", "thinker is not configured"
        return
    ask, tier.weak, off_reason = _thinker_plan(reg, name, store, models)
    if not ask:
        tier.how, tier.reason, tier.off = "words", off_reason, True
        return
    shard_tokens = reg.config.stores[name].recall.shard_tokens
    known, valid, shards = _prepared(reg, name, store, idx, shard_tokens)
    if not valid:
        return  # nothing to pick from; asking a model would be theatre
    tier.shards = len(shards)
    tm = time.perf_counter()
    try:
        replies = _ask_shards(models, preamble(store), shards, question, top)
    except ModelUnavailable as exc:
        tier.how, tier.reason = "words", str(exc)
        return
    finally:
        tier.model_ms = (time.perf_counter() - tm) * 1000
    named = _sort_named(replies, known, tier.picked, tier.dropped)
    if named and not tier.picked:
        tier.how, tier.reason = "words", "the thinker named only slugs that are not in the store"
        _record_nonsense(reg, name, tier.reason)
    tier.picked = tier.picked[:top]
    invented = _invented(tier.dropped)
    tier.weak = invented + ("; " if tier.weak and invented else "") + tier.weak


def _prepared(reg: Registry, name: str, store: Store, idx: Any, shard_tokens: int):
    """(known slugs, valid entries, prompt shards), cached until the index or the files change.

    Each line's token estimate is remembered, so after a write only the changed line is
    estimated again.
    """
    files_key = store.fingerprint()
    cache = _cache(reg)
    with cache.lock:
        hit = cache.prompts.get(name)
    if hit and hit[0] is idx and hit[1] == (files_key, shard_tokens):
        return hit[2]
    present = set(store.file_slugs())
    valid = [e for e in idx.entries if e.slug in present]
    known = frozenset({e.slug for e in valid} | present)
    costs = hit[3] if hit else {}
    if len(costs) > 2 * len(valid) + 1024:
        costs = {}  # lines long gone: start the memo again
    out = (known, valid, index_shards(valid, shard_tokens, costs) if valid else [])
    with cache.lock:
        cache.prompts[name] = (idx, (files_key, shard_tokens), out, costs)
    return out


def _thinker_plan(reg: Registry, name: str, store: Store, models: Any) -> tuple[bool, str, str]:
    """(ask the thinker?, the weak label for its answers, why it is not asked) from the
    store's ``[recall] thinker`` and what `kura bench models` found about this thinker."""
    mode = reg.config.stores[name].recall.thinker
    if mode == "off":
        return False, "", 'the thinker is off for this store ([recall] thinker = "off")'
    spec = models.spec("thinker")
    found = for_thinker(store.still, spec.url, spec.model) if spec is not None else None
    if found is None or not found.below_words:
        return True, "", ""
    if mode == "on":
        return True, f"it {found.summary()}", ""
    why = f"the thinker {found.summary()}, so this store answers by words"
    return False, why, why


def _sort_named(replies: list[dict], known: frozenset, picked: list, dropped: list) -> int:
    """Sort the slugs the thinker named into *picked* (in the store) and *dropped* (not);
    returns how many it named."""
    named = 0
    for reply in replies:
        for raw in reply.get("slugs", []):
            slug = _clean_slug(raw)
            named += 1
            if slug in known:
                if slug not in picked:
                    picked.append(slug)
            elif slug not in dropped:
                dropped.append(slug)
    return named


def _invented(dropped: list[str]) -> str:
    """The label of an answer whose thinker named memories that do not exist."""
    if not dropped:
        return ""
    shown = ", ".join(dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
    n = len(dropped)
    what = "memory that does" if n == 1 else "memories that do"
    return f"the thinker named {n} {what} not exist ({shown})"


_POOL_LOCK = threading.Lock()
_POOL: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(max_workers=8, thread_name_prefix="kura-shard"))
        return _POOL[0]


def _ask_shards(
    models: Any, charter: str | Preamble, shards: list[str], question: str, top: int
) -> list[dict]:
    if len(shards) == 1:
        return [
            models.ask(
                "thinker",
                "kura_pick",
                pick_messages(charter, shards[0], question, top),
                PICK_SCHEMA,
            )
        ]
    pool = _pool()
    futs = [
        pool.submit(
            models.ask,
            "thinker",
            "kura_pick",
            pick_messages(charter, s, question, top),
            PICK_SCHEMA,
        )
        for s in shards
    ]
    out, first_error = [], None
    for i, f in enumerate(futs):
        try:
            out.append(f.result())
        except ModelUnavailable as exc:
            first_error = first_error or ModelUnavailable(
                f"shard {i + 1}/{len(shards)}: {exc}", kind=exc.kind
            )
    if first_error:
        raise first_error
    return out


def _clean_slug(raw: Any) -> str:
    if not isinstance(raw, str):
        return ""
    s = raw.strip().strip("[]()`'\" ")
    if s.endswith(".md"):
        s = s[:-3]
    return s


def _record_nonsense(reg: Registry, name: str, reason: str) -> None:
    from .llm import CallRecord  # lazy: start-up (httpx, for a recall that thinks only)

    spec = reg.config.models_for(name).get("thinker")
    reg.workshop(name).record_call(
        CallRecord(
            role="thinker",
            task="kura_pick",
            ok=False,
            reason=reason,
            elapsed_ms=0.0,
            at=reg.clock(),
            url=spec.url if spec else "",
            model=spec.model if spec else "",
        )
    )


class _Reader:
    """Reads memories for one recall, each once and against the index the recall started
    from, and remembers why any could not be read."""

    def __init__(self, store: Store, index: Index | None = None):
        self.store = store
        self.index = index
        self.mems: dict[str, Memory] = {}
        self.skipped: dict[str, str] = {}

    def get(self, slug: str) -> Memory | None:
        if slug in self.mems:
            return self.mems[slug]
        if slug in self.skipped:
            return None
        mem, why = read_settled(self.store, slug, index=self.index)
        if mem is None:
            self.skipped[slug] = why
        else:
            self.mems[slug] = mem
        return mem


def read_settled(
    store: Store,
    slug: str,
    *,
    retry_s: float = RETRY_S,
    wall: Callable[[], float] = time.time,
    index: Index | None = None,
) -> tuple[Memory | None, str]:
    """Read one memory, retrying a read that raced a save: an editor rewriting the file in
    place (empty or half-written for an instant), or a rename that briefly leaves no file.

    A failure is retried while the file (or the directory) changed within RACE_WINDOW_S
    or keeps changing between attempts, for at most *retry_s*. Returns (memory, '') or
    (None, why it could not be read).
    """
    deadline = time.monotonic() + retry_s
    pause = 0.002
    seen = None
    while True:
        try:
            mem = store.read(slug, index=index)
            if mem.form == "lines" and time.monotonic() < deadline:
                # a file half-written by an in-place save often reads as YAML-ish: while it
                # is still changing, wait for it to settle rather than take half of it
                sig = _signature(store, slug)
                if (seen is not None and sig != seen) or _recent(store, sig, wall()):
                    seen = sig
                    time.sleep(pause)
                    pause = min(pause * 2, 0.05)
                    continue
            return mem, ""
        except NotFound:
            why = f"{slug}.md is gone (deleted or renamed while recall read it)"
        except ContainmentError as exc:
            why = str(exc)
            if "hard-linked" not in why:
                return None, why  # a symbolic link or a non-file stays what it is
        except MemoryFormatError as exc:
            why = str(exc) if str(exc).startswith(f"{slug}.md") else f"{slug}.md: {exc}"
        except KuraError as exc:
            why = str(exc)
        except OSError as exc:
            why = f"cannot read {slug}.md: {exc.strerror or exc}"
        sig = _signature(store, slug)
        racing = (seen is not None and sig != seen) or _recent(store, sig, wall())
        if not racing or time.monotonic() >= deadline:
            return None, why
        seen = sig
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _signature(store: Store, slug: str) -> tuple | None:
    try:
        st = os.lstat(store.root / f"{slug}.md")
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_nlink)


def _recent(store: Store, sig: tuple | None, now: float) -> bool:
    if sig is not None:
        # a hard link an editor makes for its backup shows in ctime; a save shows in mtime
        changed = (max(sig[2], sig[3]) if sig[4] > 1 else sig[2]) / 1e9
    else:
        try:
            st = os.stat(store.root)
        except OSError:
            return False
        changed = max(st.st_mtime_ns, st.st_ctime_ns) / 1e9
    return now - changed < RACE_WINDOW_S


def _walk(store: Store, reader: _Reader, picked: Sequence[str], hops: int) -> list[str]:
    order = list(dict.fromkeys(picked))
    seen = set(order)
    frontier = list(order)
    for _ in range(hops):
        nxt: list[str] = []
        for slug in frontier:
            mem = reader.get(slug)
            if mem is None:
                continue
            for target in mem.links:
                if target not in seen and store.has(target):
                    seen.add(target)
                    order.append(target)
                    nxt.append(target)
        frontier = nxt
        if not frontier:
            break
    return order


#: the marks of a context head, "## {title} ({slug})", each a token
_HEAD_MARKS = 4


def _context(
    store: Store, reader: _Reader, walked: Sequence[str], question: str, chars: int
) -> tuple[str, list[str], int]:
    """The context returned for *walked*: each memory trimmed to its share of *chars*, the
    slugs that made it in, and the context's token estimate."""
    mems: list[Memory] = []
    for slug in walked:
        mem = reader.get(slug)
        if mem is not None:
            mems.append(mem)
    if not mems:
        return "", [], 0
    entries = (reader.index or store.index()).by_slug()
    per = max(300, chars // len(mems))
    blocks = []
    cjk = other = 0
    for m in mems:
        e = entries.get(m.slug)
        title = e.title if e else m.title
        head = f"## {title} ({m.slug})\n{m.description}\n"
        budget = max(100, per - len(head))
        body = relevant_paragraphs(m.body, question, budget).strip()
        blocks.append(head + "\n" + body + "\n")
        # The estimate's parts add up over pieces that whitespace or a mark separates: the
        # head is its four marks ("##", "(", ")"), its title and the memory's own parts for
        # slug and trigger; the body's are the memory's own when it came back whole (it fit).
        for part in (
            token_parts(title),
            m.head_token_parts,
            m.body_token_parts if len(m.body.strip()) <= budget else token_parts(body),
        ):
            cjk, other = cjk + part[0], other + part[1]
        other += _HEAD_MARKS
    return "\n".join(blocks), [m.slug for m in mems], from_parts((cjk, other))


def _log_read(reg: Registry, name: str, res: RecallResult) -> None:
    """Note the recall in the store's read log: at once after a quiet spell; under load in
    batches (every READ_LOG_EVERY_S or READ_LOG_BATCH recalls), one transaction each."""
    cache = _cache(reg)
    row = (
        reg.clock(),
        res.question[:500],
        res.how,
        res.picked,
        res.elapsed_ms,
    )  # picked: JSON when written
    now = time.monotonic()
    with cache.lock:
        waiting = cache.reads.setdefault(name, [])
        waiting.append(row)
        if (
            len(waiting) < READ_LOG_BATCH
            and now - cache.reads_written.get(name, -READ_LOG_EVERY_S) < READ_LOG_EVERY_S
        ):
            return
        rows = waiting[:]
        waiting.clear()
        cache.reads_written[name] = now
        defer = cache.defer
    if defer is not None:
        defer(_write_reads, reg, name, rows, READ_LOG_TRIES)
    else:
        _write_reads(reg, name, rows, 1)


def defer_read_log(reg: Registry, submit: Callable[..., None] | None) -> None:
    """Have batches of the read log written by ``submit(fn, *args)`` — a server's threads
    that may wait — instead of by the thread that recalled: the write may wait up to the
    workshop's busy timeout on another process's lock. None writes them in place again."""
    cache = _cache(reg)
    with cache.lock:
        cache.defer = submit


def _write_reads(reg: Registry, name: str, rows: list[tuple], tries: int) -> None:
    """Write *rows* to the read log. A lock another process holds past the workshop's busy
    timeout is waited out again, up to *tries* times in all; rows that still could not be
    written go back to wait for the next batch, so a long pour does not lose what recalls
    noted meanwhile (at most READ_LOG_KEEP rows wait; the oldest go first)."""
    for _ in range(tries):
        try:
            reg.workshop(name).log_reads(  # may wait on another process's lock
                [(at, q, how, json.dumps(list(picked)), ms) for at, q, how, picked, ms in rows]
            )
            return
        except BusyError:
            continue
        except Exception:
            return  # the read log is a convenience; a read-only workshop never fails a recall
    cache = _cache(reg)
    with cache.lock:
        waiting = cache.reads.setdefault(name, [])
        waiting[:0] = rows
        del waiting[: max(0, len(waiting) - READ_LOG_KEEP)]


def flush_read_log(reg: Registry) -> None:
    """Write every recall still waiting for the read log (a process about to exit calls this)."""
    cache = getattr(reg, _CACHE_ATTR, None)
    if cache is None:
        return
    with cache.lock:
        waiting = {n: rows[:] for n, rows in cache.reads.items() if rows}
        for rows in cache.reads.values():
            rows.clear()
    for name, rows in waiting.items():
        _write_reads(reg, name, rows, 1)


@atexit.register
def _flush_at_exit() -> None:
    for cache in list(_LIVE):
        reg = cache.registry()
        if reg is not None:
            flush_read_log(reg)
