"""The resident block a host injects into the system prompt: the map, between markers.

    <<<KURA-MAP store=NAME>>>
    header (how to read the map)

    the woven cloth, or the index lines as they stand
    <<<END KURA-MAP>>>

A prefix cache is lost from the first changed byte, so the block carries nothing that
ticks: no date, clock, counter or session id. A configured header that contains one is
refused when the block is built. The block never hands over half a map:

    all well                      the map
    over budget_fraction          the whole map; ``over_budget`` and a warning in the JSON only
    over hard_fraction            resident_mode auto (the default): the constellation, one
                                  line per sector (:mod:`kura_core.resident`); full, or a
                                  constellation over the ceiling too: a stub with no index
                                  lines, saying the map is missing
    kura unreachable              :func:`missing_map_note`, never an empty string

``resident_mode = constellation`` always shows the sector map. A fresh hot trail
(``<<<KURA-TRAIL>>>``) follows the block when it fits under the ceiling; the block's bytes
are the same with it or without it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import threading
from dataclasses import dataclass
from typing import Any

from .cloth import index_sha as sha_of, read_cloth
from .config import PrefillConfig
from .errors import ConfigError
from .resident import (
    TRAIL_FILE,
    constellation_body,
    read_text,
    store_sectors,
    trail_block,
    trail_from_text,
)
from .tokens import estimate_tokens

OPEN = "<<<KURA-MAP{name}>>>"
CLOSE = "<<<END KURA-MAP>>>"

DEFAULT_HEADER = """\
This is the map of your long-term memory: one line per memory, `- [Title](slug.md) — trigger`.
Pinned and recent memories are shown in full; older ones by a compressed recognition trigger,
not their whole content. The ladder: this map, then a glance at a line that bears on the
task (kura_glance or GET /glance/<slug>, about 150 tokens), then a read of that memory in
full, and a recall (kura_recall or POST /recall) when the map names nothing; check before
relying on a line. If this map is ever missing, the memory is not empty: say so and recall
instead of guessing."""


@dataclass(frozen=True)
class Prefill:
    store: str
    text: str
    source: str  # "woven" | "canonical" | "none" (no map could be read)
    stale: bool
    tokens_est: int
    over_budget: bool
    over_ceiling: bool
    map_shown: bool
    etag: str
    budget_tokens: int = 0
    ceiling_tokens: int = 0
    warning: str = ""
    map_tokens_est: int = 0  # the whole map's size, even when only the stub is shown
    constellation_shown: bool = False  # the sector map stands in for the map
    trail_shown: bool = False  # the hot trail follows the block

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "source": self.source,
            "stale": self.stale,
            "tokens_est": self.tokens_est,
            "over_budget": self.over_budget,
            "over_ceiling": self.over_ceiling,
            "map_shown": self.map_shown,
            "etag": self.etag,
            "store": self.store,
            "budget_tokens": self.budget_tokens,
            "ceiling_tokens": self.ceiling_tokens,
            "warning": self.warning,
            "map_tokens_est": self.map_tokens_est,
            "constellation_shown": self.constellation_shown,
            "trail_shown": self.trail_shown,
        }


# =========================================================================== volatility

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_VOLATILE: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (what, re.compile(pat, re.IGNORECASE))
    for what, pat in (
        ("a date", r"\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"),
        ("a date", r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"),
        ("a date", rf"\b{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"),
        ("a date", rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\b"),
        ("a date", r"\d{4}\s*年|\d{1,2}\s*月\s*\d{1,2}\s*[日号]"),
        (
            "a weekday",
            r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|[月火水木金土日]曜|星期[一二三四五六日天]",
        ),
        ("a clock time", r"(?<![\d.])\d{1,2}:\d{2}(?::\d{2})?(?![\d])"),
        ("a clock time", r"\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z])"),
        ("a clock time", r"\d{1,2}\s*[時点]\s*\d{1,2}\s*分|\d{1,2}\s*時(?!間)"),
        ("an epoch-like number", r"(?<![\d.])\d{9,}(?![\d])"),
        ("a uuid", r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
        ("an id-like hex string", r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b"),
        (
            "a session or request id",
            r"\b(?:session|request|req|trace|conversation|chat|thread|run|turn|message|msg|call|"
            r"span|correlation)[ _-]?(?:id|no|number)\b",
        ),
        (
            "a counter",
            r"\b(?:turn|message|msg|request|iteration|session)\s*(?:#|no\.?|number)?\s*\d+",
        ),
        (
            "a time after 'today' or 'now'",
            rf"\b(?:today|now|tonight|yesterday|tomorrow|currently)\b\s*(?:is|was|it\s+is|:|=|—|-)?\s*"
            rf"(?:\d|{_MONTHS}\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day|\{{|\$|%)",
        ),
        (
            "a time announcement",
            r"\b(?:as\s+of|last\s+updated|updated\s+(?:at|on)|generated\s+(?:at|on)|current\s+(?:time|date)|"
            r"timestamp|the\s+(?:time|date)\s+is)\b",
        ),
        (
            "a time after 'today' or 'now'",
            r"(?:今日|本日|現在|今天|现在|目前|今)\s*(?:は|:|：|是)?\s*[\d０-９]",
        ),
        (
            "a template placeholder",
            # the inside of a placeholder holds no brace: each brace starts at most one scan
            r"\{\{[^{}]*+\}\}|\$\{[^{}]*+\}|\{\s*+(?:date|time|now|today|timestamp|clock|session|"
            r"turn|request|uuid|id)[^{}]*+\}|%[YmdHMSjaAbBcxX](?![a-z])",
        ),
    )
)


def volatile_in(text: str) -> list[str]:
    """What in *text* would change from one turn to the next (a date, clock time,
    epoch-like number, uuid, session or request id, counter, "today"/"now" followed by a
    time, a template placeholder), as readable reasons. Empty: nothing volatile."""
    out: list[str] = []
    for what, pat in _VOLATILE:
        m = pat.search(text or "")
        if m:
            reason = f"{what} ({m.group(0).strip()!r})"
            if reason not in out:
                out.append(reason)
    return out


def check_header(header: str) -> str:
    """*header* if it holds nothing volatile; ConfigError naming what it holds if not."""
    found = volatile_in(header)
    if found:
        raise ConfigError(
            "prefill.header contains something that changes from turn to turn: "
            + "; ".join(found)
            + ". The map sits in front of the prompt's prefix cache, so it must not tick: "
            "remove it from [prefill] header (put clocks and ids after the map, in the persona)"
        )
    return header


def header_text(cfg: PrefillConfig) -> str:
    return (cfg.header or DEFAULT_HEADER).strip("\n")


# =========================================================================== framing


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _marker_name(name: str) -> str:
    clean = _UNSAFE.sub("-", name or "").strip("-")[:64]
    return f" store={clean}" if clean else ""


def frame(name: str, header: str, body: str) -> str:
    parts = [OPEN.format(name=_marker_name(name))]
    if header.strip():
        parts.append(header.strip("\n"))
        parts.append("")
    if body.strip("\n"):
        parts.append(body.strip("\n"))
    parts.append(CLOSE)
    return "\n".join(parts)


def frame_overhead(name: str, header: str) -> int:
    """Tokens the markers and header add around a map body."""
    return estimate_tokens(frame(name, header, ""))


def etag_of(text: str) -> str:
    return '"' + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32] + '"'


def missing_map_note(store_name: str = "") -> str:
    """What a host wears when kura cannot be reached: an explicit "the map is missing",
    never an empty string."""
    name = _UNSAFE.sub("-", store_name or "").strip("-")[:64]
    which = f' of store "{name}"' if name else ""
    body = (
        f"The memory map{which} is missing from this prompt: kura could not be reached to "
        "provide it. This does not mean the memory is empty; it may hold memories that bear "
        "on this task. Do not assume nothing is remembered: recall with kura_recall (or "
        "POST /recall) when it is back, and say that the memory could not be consulted "
        "rather than guessing."
    )
    return frame(name, "", body)


def _stub(name: str) -> str:
    which = f' of store "{name}"' if name else ""
    body = (
        f"The memory map{which} is missing from this prompt: it is too large to wear here. "
        "The memory is not empty: it holds memories that are not listed. Recall with "
        "kura_recall (or POST /recall) to find what bears on the task; do not assume "
        "nothing is remembered."
    )
    return frame(name, "", body)


# =========================================================================== building

_CACHE: dict[tuple, Prefill] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_MAX = 64


def _missing(name: str, budget: int, ceiling: int, warning: str) -> Prefill:
    """What a host wears when there is no map to show: the note saying so."""
    text = missing_map_note(name)
    return Prefill(
        name,
        text,
        "none",
        False,
        estimate_tokens(text),
        False,
        False,
        False,
        etag_of(text),
        budget,
        ceiling,
        warning,
    )


def build_prefill(reg: Any, selector: str | None = None, *, unreachable: bool = False) -> Prefill:
    """The resident block for store *selector*.

    ``unreachable=True`` builds what a host wears when the map could not be fetched.
    A configured header holding anything volatile raises ConfigError.
    """
    name = reg.resolve(selector)
    cfg = reg.spec(name).prefill
    header = check_header(header_text(cfg))
    budget = int(cfg.window_tokens * cfg.budget_fraction)
    ceiling = int(cfg.window_tokens * cfg.hard_fraction)
    if unreachable:
        return _missing(name, budget, ceiling, "kura could not be reached: the map is missing")
    store = reg.store(name)
    if not store.index_path.is_file():
        why = f"store {name!r} has no index yet: run `kura init {name} --path {store.root}`"
        return _missing(name, budget, ceiling, why)
    index_text = store.index_text()
    index_sha = sha_of(index_text)
    built_from, cloth = read_cloth(store.still)
    trail_raw = read_text(store.still / TRAIL_FILE) if cfg.trail_tokens else None
    key = (
        str(store.root),
        name,
        index_sha,
        built_from,
        sha_of(cloth),
        header,
        budget,
        ceiling,
        cfg.resident_mode,
        cfg.trail_tokens,
        trail_raw,
        store.fingerprint() if cfg.resident_mode != "full" else None,
    )
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    if built_from == index_sha:
        source, stale, body = "woven", False, cloth
    else:
        source, stale, body = "canonical", built_from is not None, index_text
    text = frame(name, header, body)
    tokens = estimate_tokens(text)
    shown = _resident(reg, name, store, cfg, text, tokens, budget, ceiling, source)
    if stale and not shown.warning:
        shown = dataclasses.replace(
            shown,
            warning="the woven map was built from an older MEMORY.md: showing the index "
            "lines as they stand; run kura weave",
        )
    text = shown.text
    if shown.map_shown or shown.constellation_shown:
        text = _with_trail(text, name, index_text, trail_raw, cfg.trail_tokens, ceiling)
    result = Prefill(
        name,
        text,
        shown.source,
        stale,
        estimate_tokens(text),
        tokens > budget,
        tokens > ceiling,
        shown.map_shown,
        etag_of(text),
        budget,
        ceiling,
        shown.warning,
        tokens,
        shown.constellation_shown,
        text != shown.text,
    )
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        _CACHE[key] = result
    return result


@dataclass(frozen=True)
class _Shown:
    """What the block shows in place of (or as) the map."""

    text: str
    source: str
    map_shown: bool
    constellation_shown: bool
    warning: str


def _resident(
    reg: Any,
    name: str,
    store: Any,
    cfg: PrefillConfig,
    text: str,
    tokens: int,
    budget: int,
    ceiling: int,
    source: str,
) -> _Shown:
    """The map, the constellation or the stub, as ``resident_mode`` and the ceiling say."""
    over_ceiling = tokens > ceiling
    mode = cfg.resident_mode
    if mode == "constellation" or (mode == "auto" and over_ceiling):
        sky = frame(name, "", constellation_body(name, store_sectors(store)))
        if estimate_tokens(sky) <= ceiling:
            why = ""
            if over_ceiling:
                why = (
                    f"the map is ~{tokens} tokens, over the ceiling of {ceiling} (hard_fraction "
                    f"{cfg.hard_fraction} of window_tokens {cfg.window_tokens}): the agent gets "
                    "the constellation, one line per sector; run kura weave, lower fresh_days "
                    "or trigger_tokens, or raise hard_fraction to wear the map"
                )
            return _Shown(sky, "constellation", False, True, why)
        if mode == "constellation" or over_ceiling:
            return _Shown(
                _stub(name),
                source,
                False,
                False,
                f"even the constellation is over the ceiling of {ceiling} tokens: the agent "
                "gets a stub saying the map is missing; group the index under fewer `## ` "
                "headings, or raise hard_fraction",
            )
    if over_ceiling:
        return _Shown(
            _stub(name),
            source,
            False,
            False,
            f"the map is ~{tokens} tokens, over the ceiling of {ceiling} (hard_fraction "
            f"{cfg.hard_fraction} of window_tokens {cfg.window_tokens}): the agent gets a "
            "stub saying the map is missing; run kura weave, lower fresh_days or "
            'trigger_tokens, raise hard_fraction, or set resident_mode = "auto"',
        )
    warning = ""
    if tokens > budget:
        warning = (
            f"the map is ~{tokens} tokens, over the budget of {budget} (budget_fraction "
            f"{cfg.budget_fraction} of window_tokens {cfg.window_tokens}); it is worn whole. "
            + (
                "Run kura weave to see where the weight is."
                if source == "canonical"
                else "See kura weave for where the weight is."
            )
        )
    return _Shown(text, source, True, False, warning)


def _with_trail(
    block: str, name: str, index_text: str, trail_raw: str | None, trail_tokens: int, ceiling: int
) -> str:
    """*block* and, after it, the hot trail when it is fresh and fits under the ceiling
    (the map outranks it). The block's own bytes never change."""
    lines = trail_from_text(trail_raw, index_text) if trail_tokens else None
    if not lines:
        return block
    kept: list[str] = []
    used = 0
    for line in lines:  # the budget as configured now, whatever it was when built
        used += estimate_tokens(line) + 1
        if used > trail_tokens:
            break
        kept.append(line)
    with_trail = block + "\n\n" + trail_block(_marker_name(name), kept)
    if not kept or estimate_tokens(with_trail) > ceiling:
        return block
    return with_trail
