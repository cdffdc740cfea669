"""Recall: question → whole index in one prompt → picked slugs → walk [[links]].

The thinker reads every index line (a recognition trigger) and names the memories that
bear on the question by meaning. When it cannot — unconfigured, unreachable, past its
timeout, or answering nonsense — recall falls back to ranked word retrieval and says so
(`how: "words"`, `degraded: true`). It never raises to the caller because a model failed.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Callable, NamedTuple, Sequence

from .errors import ContainmentError, KuraError, MemoryFormatError, ModelUnavailable, NotFound
from .prompts import messages as build_messages, preamble
from .registry import Registry
from .store import Entry, Memory, Store
from .tokens import estimate_tokens
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

#: after this long without a full content check, the word index re-verifies every file.
RECHECK_S = 5.0
#: a memory file changed (or a directory entry moved) this recently may be mid-save: a read
#: of it that fails is retried, for at most RETRY_S in all.
RACE_WINDOW_S = 2.0
RETRY_S = 0.5


class Skipped(NamedTuple):
    """A memory recall picked (or walked to) but could not include, and why."""

    slug: str
    reason: str


@dataclass(frozen=True)
class RecallResult:
    store: str
    question: str
    how: str  # "meaning" | "words"
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

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("picked", "walked", "dropped"):
            d[k] = list(d[k])
        d["skipped"] = [{"slug": s.slug, "reason": s.reason} for s in self.skipped]
        d["scores"] = [[s, round(v, 4)] for s, v in self.scores]
        d["elapsed_ms"] = round(self.elapsed_ms, 2)
        d["model_ms"] = round(self.model_ms, 2)
        return d


class _Cached:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.words: dict[str, tuple[tuple, str, float, WordIndex]] = {}
        self.prompts: dict[str, tuple[Any, tuple, tuple]] = {}
        self.building: dict[str, threading.Lock] = {}


_CACHE_ATTR = "_recall_cache"


def _cache(reg: Registry) -> _Cached:
    c = getattr(reg, _CACHE_ATTR, None)
    if c is None:
        c = _Cached()
        setattr(reg, _CACHE_ATTR, c)
    return c


# --------------------------------------------------------------------------- prompts

def index_shards(entries: Sequence[Entry], shard_tokens: int) -> list[str]:
    """The index as it stands in MEMORY.md, cut into shards of at most shard_tokens.

    Entry lines are sent exactly as written; each shard repeats the `## ` sector
    heading its first line belongs to, so a sector's meaning survives the cut.
    """
    shards: list[list[str]] = [[]]
    used = 0
    sector = None
    for e in entries:
        cost = estimate_tokens(e.raw) + 1
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


def pick_messages(charter: str, shard: str, question: str, top: int) -> list[dict[str, str]]:
    task = f"Question: {question}\n\nName at most {top} slugs."
    return build_messages(charter, PICK_INSTRUCTIONS, task, stable=shard)


# --------------------------------------------------------------------------- the word tier

def word_index(reg: Registry, name: str) -> WordIndex:
    """The store's word index, built once and shared; rebuilt when the store changes.

    Concurrent callers that find it missing or stale wait for one build instead of each
    building their own.
    """
    store = reg.store(name)
    cache = _cache(reg)
    fresh = _fresh_words(cache, store, name)
    if fresh is not None:
        return fresh
    with _build_lock(cache, name):
        fresh = _fresh_words(cache, store, name)
        if fresh is not None:
            return fresh
        return _build_words(cache, store, name)


def _build_lock(cache: _Cached, name: str) -> threading.Lock:
    with cache.lock:
        return cache.building.setdefault(name, threading.Lock())


def _fresh_words(cache: _Cached, store: Store, name: str) -> WordIndex | None:
    fp = store.fingerprint()
    now = time.monotonic()
    with cache.lock:
        hit = cache.words.get(name)
    if not hit or hit[0] != fp:
        return None
    if now - hit[2] < RECHECK_S:
        return hit[3]
    full = store.content_fingerprint()
    if full != hit[1]:
        return None
    with cache.lock:
        cache.words[name] = (fp, full, now, hit[3])
    return hit[3]


def _build_words(cache: _Cached, store: Store, name: str) -> WordIndex:
    fp = store.fingerprint()
    now = time.monotonic()
    full = store.content_fingerprint()
    scan = store.scan()
    entries = scan.index.by_slug()
    docs = []
    for m in scan.memories:
        e = entries.get(m.slug)
        docs.append(Doc(m.slug, e.title if e else m.title, e.description if e else m.description, m.body))
    idx = WordIndex(docs)
    with cache.lock:
        cache.words[name] = (fp, full, now, idx)
    return idx


# --------------------------------------------------------------------------- recall

def recall(reg: Registry, selector: str | None, question: str, *, hops: int | None = None,
           top: int | None = None, chars: int | None = None) -> RecallResult:
    t0 = time.perf_counter()
    name = reg.resolve(selector)
    store = reg.store(name)
    rc = reg.config.stores[name].recall
    hops = rc.hops if hops is None else max(0, int(hops))
    top = rc.top if top is None else max(1, int(top))
    chars = rc.chars if chars is None else max(200, int(chars))
    question = " ".join(str(question).split())

    if not store.index_path.is_file():
        from .errors import NotFound

        raise NotFound(f"store {name!r} has no MEMORY.md at {store.root}: run `kura init {name} --path {store.root}`")
    idx = store.index()
    shard_tokens = reg.config.stores[name].recall.shard_tokens
    known, valid, shards = _prepared(reg, name, store, idx, shard_tokens)

    how, reason, model_ms, nshards = "meaning", "", 0.0, 0
    picked: list[str] = []
    dropped: list[str] = []
    scores: list[tuple[str, float]] = []
    models = reg.models(name)

    if not models.configured("thinker"):
        how, reason = "words", "thinker is not configured"
    elif not valid:
        how = "meaning"  # nothing to pick from; asking a model would be theatre
    else:
        nshards = len(shards)
        charter = preamble(store)
        tm = time.perf_counter()
        try:
            replies = _ask_shards(models, charter, shards, question, top)
        except ModelUnavailable as exc:
            how, reason = "words", str(exc)
        model_ms = (time.perf_counter() - tm) * 1000
        if how == "meaning":
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
            if named and not picked:
                how, reason = "words", "the thinker named only slugs that are not in the store"
                _record_nonsense(reg, name, reason)
            picked = picked[:top]

    if how == "words":
        hits = word_index(reg, name).search(question, top)
        scores = hits
        picked = [s for s, _ in hits]

    reader = _Reader(store)
    walked = _walk(store, reader, picked, hops)
    context, walked = _context(store, reader, walked, question, chars)
    elapsed = (time.perf_counter() - t0) * 1000
    res = RecallResult(
        store=name, question=question, how=how, degraded=how == "words", picked=tuple(picked),
        walked=tuple(walked), context=context, tokens_est=estimate_tokens(context),
        elapsed_ms=elapsed, model_ms=model_ms, reason=reason, shards=nshards,
        dropped=tuple(dropped), scores=tuple(scores), skipped=tuple(Skipped(s, why) for s, why in reader.skipped.items()),
    )
    _log_read(reg, name, res)
    return res


def _prepared(reg: Registry, name: str, store: Store, idx: Any, shard_tokens: int):
    """(known slugs, valid entries, prompt shards), cached until the index or the files change."""
    files_key = store.fingerprint()
    cache = _cache(reg)
    with cache.lock:
        hit = cache.prompts.get(name)
    if hit and hit[0] is idx and hit[1] == (files_key, shard_tokens):
        return hit[2]
    present = set(store.file_slugs())
    valid = [e for e in idx.entries if e.slug in present]
    known = frozenset({e.slug for e in valid} | present)
    out = (known, valid, index_shards(valid, shard_tokens) if valid else [])
    with cache.lock:
        cache.prompts[name] = (idx, (files_key, shard_tokens), out)
    return out


_POOL_LOCK = threading.Lock()
_POOL: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(max_workers=8, thread_name_prefix="kura-shard"))
        return _POOL[0]


def _ask_shards(models: Any, charter: str, shards: list[str], question: str, top: int) -> list[dict]:
    if len(shards) == 1:
        return [models.ask("thinker", "kura_pick", pick_messages(charter, shards[0], question, top), PICK_SCHEMA)]
    pool = _pool()
    futs = [pool.submit(models.ask, "thinker", "kura_pick",
                        pick_messages(charter, s, question, top), PICK_SCHEMA) for s in shards]
    out, first_error = [], None
    for i, f in enumerate(futs):
        try:
            out.append(f.result())
        except ModelUnavailable as exc:
            first_error = first_error or ModelUnavailable(f"shard {i + 1}/{len(shards)}: {exc}")
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
    from .llm import CallRecord

    spec = reg.config.models.get("thinker")
    reg.workshop(name).record_call(CallRecord(
        role="thinker", task="kura_pick", ok=False, reason=reason, elapsed_ms=0.0,
        at=reg.clock(), url=spec.url if spec else "", model=spec.model if spec else ""))


class _Reader:
    """Reads memories for one recall, each once, and remembers why any could not be read."""

    def __init__(self, store: Store):
        self.store = store
        self.mems: dict[str, Memory] = {}
        self.skipped: dict[str, str] = {}

    def get(self, slug: str) -> Memory | None:
        if slug in self.mems:
            return self.mems[slug]
        if slug in self.skipped:
            return None
        mem, why = read_settled(self.store, slug)
        if mem is None:
            self.skipped[slug] = why
        else:
            self.mems[slug] = mem
        return mem


def read_settled(store: Store, slug: str, *, retry_s: float = RETRY_S,
                 wall: Callable[[], float] = time.time) -> tuple[Memory | None, str]:
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
            mem = store.read(slug)
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


def _context(store: Store, reader: _Reader, walked: Sequence[str], question: str,
             chars: int) -> tuple[str, list[str]]:
    mems: list[Memory] = []
    for slug in walked:
        mem = reader.get(slug)
        if mem is not None:
            mems.append(mem)
    if not mems:
        return "", []
    entries = store.index().by_slug()
    per = max(300, chars // len(mems))
    blocks = []
    for m in mems:
        e = entries.get(m.slug)
        title = e.title if e else m.title
        head = f"## {title} ({m.slug})\n{m.description}\n"
        body = relevant_paragraphs(m.body, question, max(100, per - len(head)))
        blocks.append(head + "\n" + body.strip() + "\n")
    return "\n".join(blocks), [m.slug for m in mems]


def _log_read(reg: Registry, name: str, res: RecallResult) -> None:
    import json

    try:
        reg.workshop(name).execute(
            "INSERT INTO read_log(at, question, how, picked, elapsed_ms) VALUES(?,?,?,?,?)",
            (reg.clock(), res.question[:500], res.how, json.dumps(list(res.picked)), res.elapsed_ms),
        )
    except Exception:
        pass  # the read log is a convenience; a locked or read-only workshop never fails a recall
