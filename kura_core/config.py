"""kura.toml: found, parsed, checked and frozen.

Everything is validated at load. An unknown key, a value of the wrong type, or an
inconsistent layout (stores that overlap, a journal root inside a store, a mode that
collides with another store's name) is refused with one line naming the key and what
to do, so a typo never becomes a silently ignored setting.
"""

from __future__ import annotations

import contextvars
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .errors import ConfigError
from .fsutil import atomic_write_text
from .llm import ROLE_TIMEOUTS, ROLES, ModelSpec
from .secrets import SecretRules
from .vocabulary import WRITE_POLICIES, WritePolicy

DIALECTS = ("vllm", "openai", "generic")


def adapter_names() -> tuple[str, ...]:
    """The journal adapters a config may name: every registered one (built-in or plug-in)."""
    from .distill.journals.registry import names

    return names()


DEFAULT_PORT = 8085


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    default: str = ""
    token_env: str = ""
    max_body_bytes: int = 1_048_576


@dataclass(frozen=True)
class JournalSpec:
    adapter: str
    root: Path
    include_glob: str = ""
    exclude_glob: str = ""


@dataclass(frozen=True)
class DistillConfig:
    language: str = ""
    max_items: int = 8
    chunk_chars: int = 24_000
    idle_min: float = 10.0
    backoff_min: float = 20.0
    yield_on_return: bool = True
    human_names: tuple[str, ...] = ()
    min_quote_chars: int = 8
    #: Brain passes over each batch: the first, then coverage_passes - 1 more, each told what
    #: the earlier passes already took and asked for what they missed.
    coverage_passes: int = 1
    #: How long kura's own checks (reading, the gate, the floors; not the model) may take
    #: on one chunk before it is shelved and the next is drunk; 0 means no limit.
    chunk_seconds: float = 60.0
    journals: tuple[JournalSpec, ...] = ()
    #: seeds: each seed check shows the brain the newest this many waiting ideas; a seed
    #: withers after this many days waiting or this many checks unconfirmed (0: never)
    seed_check: int = 30
    seed_wither_days: float = 90.0
    seed_wither_checks: int = 50


@dataclass(frozen=True)
class PrefillConfig:
    window_tokens: int = 131_072
    budget_fraction: float = 0.05
    hard_fraction: float = 0.20
    fresh_days: int = 14
    pinned_types: tuple[str, ...] = ("feedback", "user")
    trigger_tokens: int = 24
    header: str = ""
    #: full: the map (over the ceiling, a stub); constellation: always the sector map;
    #: auto: the map, over the ceiling the sector map, over it too the stub
    resident_mode: str = "auto"
    trail_tokens: int = 200  # the hot trail after the map (0: none)


RESIDENT_MODES = ("full", "constellation", "auto")


#: [recall] thinker: ask the thinker unless the bench found it weak, always, or never
THINKER_MODES = ("auto", "on", "off")


@dataclass(frozen=True)
class RecallConfig:
    hops: int = 1
    top: int = 3
    chars: int = 6000
    shard_tokens: int = 24_000
    #: whether recall asks the thinker: "auto" (unless `kura bench models` found it below the
    #: word tier), "on" (always; a below-words verdict only labels its answers), "off" (never)
    thinker: str = "auto"


# ---- fastpath: tier zero of recall ([fastpath], [stores.X.fastpath]) ----------------


@dataclass(frozen=True)
class FastpathConfig:
    """The deterministic recogniser recall asks before the thinker (kura_core.fastpath)."""

    enabled: bool = True
    gate: float = 1.0  # the least score the best memory needs to be answered
    cues: bool = True  # callsign cues from the human's own words


def _fastpath(t: _Table | None, base: FastpathConfig) -> FastpathConfig:
    if t is None:
        return base
    f = replace(
        base,
        enabled=t.get("enabled", bool, base.enabled),
        gate=t.positive("gate", float, base.gate),
        cues=t.get("cues", bool, base.cues),
    )
    t.done()
    return f


@dataclass(frozen=True)
class CapacityConfig:
    """How much a store may hold, in any of doctor's four units (0: no limit in that unit).

    Doctor reports ``limit`` (the units set) and ``pressure`` (the fullest unit's share of
    its limit) beside the capacity; both are None until a limit is set. What kura does when a
    store is full is not decided: it reports, it never refuses or forgets on its own.
    """

    memories: int = 0
    index_tokens: int = 0
    body_tokens: int = 0
    bytes: int = 0

    def limits(self) -> dict[str, int]:
        return {
            k: v
            for k, v in (
                ("memories", self.memories),
                ("index_tokens", self.index_tokens),
                ("body_tokens", self.body_tokens),
                ("bytes", self.bytes),
            )
            if v
        }


@dataclass(frozen=True)
class StoreConfig:
    name: str
    path: Path
    label: str = ""
    write_policy: str = WritePolicy.DISTILLER_ONLY.value
    charter: Path | None = None
    persona: str = ""
    distill: DistillConfig = field(default_factory=DistillConfig)
    prefill: PrefillConfig = field(default_factory=PrefillConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    capacity: CapacityConfig = field(default_factory=CapacityConfig)
    fastpath: FastpathConfig = field(default_factory=FastpathConfig)
    inherit_global_journals: bool = False
    #: Where this store's journals come from: "own", "global" (the only store, or it
    #: inherits), "own+global", or "none" (two or more stores, and it names none).
    journals_from: str = "none"
    #: What counts as a secret here beyond the built-in shapes ([stores.X.secrets]).
    secrets: SecretRules = field(default_factory=SecretRules)
    #: record every change in the store's git history ([stores.X] history = false: off)
    history: bool = True
    #: the git remote `kura sync` (and the tender) fetch from and push to ([stores.X.sync])
    sync_remote: str = ""
    #: how often the tender syncs when a remote is set, in minutes ([stores.X.sync] every_min)
    sync_every_min: float = 15.0
    #: [stores.X] model_profile: the [model_profiles.<p>] whose endpoints this store's
    #: recall, distil, weave and tender use ("" = the top-level [models]); its roles below
    model_profile: str = ""
    profile_models: Mapping[str, ModelSpec | None] | None = None

    @property
    def charter_path(self) -> Path:
        return self.charter if self.charter is not None else self.path / "charter.md"

    def models_or(self, shared: Mapping[str, ModelSpec | None]) -> Mapping[str, ModelSpec | None]:
        """This store's model roles: its profile's, else the *shared* [models]."""
        return self.profile_models if self.profile_models is not None else shared


@dataclass(frozen=True)
class Config:
    source: Path | None
    server: ServerConfig
    stores: Mapping[str, StoreConfig]
    modes: Mapping[str, str]
    models: Mapping[str, ModelSpec | None]
    distill: DistillConfig = field(default_factory=DistillConfig)
    prefill: PrefillConfig = field(default_factory=PrefillConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    #: [model_profiles.<p>.<role>]: named sets of model roles a store may choose
    model_profiles: Mapping[str, Mapping[str, ModelSpec | None]] = field(default_factory=dict)
    capacity: CapacityConfig = field(default_factory=CapacityConfig)
    fastpath: FastpathConfig = field(default_factory=FastpathConfig)
    #: the app's keys a person moved: binding id -> key(s), from [keys]
    keys: Mapping[str, str] = field(default_factory=dict)
    #: what loading said without refusing (the original's keys kura ignores, and why)
    warnings: tuple[str, ...] = ()

    @property
    def default_store(self) -> str:
        if self.server.default:
            return self.server.default
        return next(iter(self.stores), "")

    def models_for(self, store: str) -> Mapping[str, ModelSpec | None]:
        """The model roles store *store* uses: its model_profile's, else [models]."""
        sc = self.stores.get(store)
        return sc.models_or(self.models) if sc is not None else self.models


# --------------------------------------------------------------------------- finding


def default_paths(cwd: Path | None = None, home: Path | None = None) -> list[Path]:
    cwd = cwd or Path.cwd()
    home = home or Path.home()
    return [cwd / "kura.toml", home / ".config" / "kura" / "kura.toml"]


def resolve_config_path(
    explicit: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
) -> tuple[Path | None, Path]:
    """Return (existing config file or None, the path a new config would be written to).

    Order: --config, $KURA_CONFIG, ./kura.toml, ~/.config/kura/kura.toml.
    """
    env = os.environ if env is None else env
    if explicit:
        p = Path(explicit).expanduser()
        return (p if p.exists() else None), p
    if env.get("KURA_CONFIG"):
        p = Path(env["KURA_CONFIG"]).expanduser()
        return (p if p.exists() else None), p
    candidates = default_paths(cwd, home)
    for p in candidates:
        if p.is_file():
            return p, p
    return None, candidates[-1]


def load_config(
    explicit: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    *,
    required: bool = False,
    cwd: Path | None = None,
    home: Path | None = None,
) -> Config:
    found, target = resolve_config_path(explicit, env, cwd, home)
    if found is None:
        if required or explicit or (env if env is not None else os.environ).get("KURA_CONFIG"):
            raise ConfigError(
                f"no config at {target}: create one (cp kura.example.toml {target}) "
                "or run `kura init NAME --path DIR`"
            )
        return parse_config({}, source=None)
    try:
        raw = tomllib.loads(found.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{found}: not valid TOML ({exc}); fix the syntax there") from None
    except OSError as exc:
        raise ConfigError(f"{found}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{found}: not UTF-8 text; save it as UTF-8") from None
    try:
        return parse_config(raw, source=found)
    except ConfigError as exc:
        msg = str(exc)
        if found.name != "kura.toml" and msg.startswith("kura.toml:"):
            raise ConfigError(f"{found}:" + msg[len("kura.toml:") :]) from None
        raise


# --------------------------------------------------------------------------- parsing

_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, (int, float)):
        return "a number"
    return "a string" if isinstance(v, str) else type(v).__name__


class _Table:
    """A TOML table being consumed key by key, so leftovers can be named."""

    def __init__(self, raw: Any, where: str):
        if not isinstance(raw, dict):
            raise ConfigError(f"kura.toml: {where} must be a table (got {_type_name(raw)})")
        self.raw = dict(raw)
        self.where = where
        self.seen: set[str] = set()

    def key(self, k: str) -> str:
        return f"{self.where}.{k}" if self.where else k

    def get(self, k: str, kind: type, default: Any) -> Any:
        self.seen.add(k)
        if k not in self.raw:
            return default
        v = self.raw[k]
        ok = isinstance(v, kind) and not (kind in (int, float) and isinstance(v, bool))
        if kind is float and isinstance(v, int) and not isinstance(v, bool):
            v, ok = float(v), True
        if not ok:
            raise ConfigError(
                f"kura.toml: {self.key(k)} must be {_TYPE_NAMES[kind]} (got {_type_name(v)})"
            )
        return v

    def strings(self, k: str, default: tuple[str, ...]) -> tuple[str, ...]:
        v = self.get(k, list, None)
        if v is None:
            return default
        if not all(isinstance(x, str) for x in v):
            raise ConfigError(f"kura.toml: {self.key(k)} must be a list of strings")
        return tuple(v)

    def positive(self, k: str, kind: type, default: Any, *, zero_ok: bool = False) -> Any:
        v = self.get(k, kind, default)
        if v < 0 or (v == 0 and not zero_ok):
            raise ConfigError(f"kura.toml: {self.key(k)} must be greater than 0 (got {v})")
        return v

    def sub(self, k: str) -> _Table | None:
        self.seen.add(k)
        if k not in self.raw:
            return None
        return _Table(self.raw[k], self.key(k))

    def done(self) -> None:
        extra = [k for k in self.raw if k not in self.seen]
        for k in [k for k in extra if k in _IGNORED]:  # safe to leave out: say so, go on
            _warn(
                f"kura.toml: {self.key(k)} is the original's setting, which kura ignores: {_IGNORED[k]}"
            )
            extra.remove(k)
        for k in extra:
            why = _NOT_SUPPORTED.get(k)
            if why:
                raise ConfigError(
                    f"kura.toml: {self.key(k)} is the original's setting, which kura "
                    f"deliberately does not support: {why}"
                )
        if extra:
            known = ", ".join(sorted(self.seen)) or "none"
            raise ConfigError(
                f"kura.toml: unknown key {self.key(extra[0])} (known here: {known}); "
                "remove it or fix its spelling"
            )


#: Keys the original documents that kura handles another way, where leaving them out changes
#: nothing a user relies on (where a file goes, where the host puts the map): a config written
#: for the original loads, with a warning that says what to use instead.
_IGNORED = {
    "metrics": "kura records each batch in the workshop's SQLite metrics table "
    "(_still/kura.db), not _still/metrics.jsonl; `kura bench compress` reads it. "
    "Remove the key",
    "metrics_file": "kura records each batch in the workshop's SQLite metrics table "
    "(_still/kura.db), not a metrics.jsonl file; `kura bench compress` reads it. "
    "Remove the key",
    "seed_file": "ideas live in the workshop's SQLite seeds table (_still/kura.db), not a seed "
    "file; `kura seeds`, the TUI and `kura doctor` show them. Remove the key",
    "seeds_file": "ideas live in the workshop's SQLite seeds table (_still/kura.db), not a seed "
    "file; `kura seeds`, the TUI and `kura doctor` show them. Remove the key",
    "alive_file": "the tender's heartbeat is a row in the workshop's SQLite database, not a "
    "tending.alive file; `kura doctor` reads it. Remove the key",
    "promptOrder": "where the map goes in the prompt is the host preset's setting, not kura's; "
    "put it in the host's preset and remove it here",
}

#: Keys the original documents that kura handles another way and that are not safe to
#: ignore (a store meant read-only, or bound to one session, would not be): a load error
#: saying what to use instead.
_NOT_SUPPORTED = {
    "readonly": "read-only is the client's own switch (KURA_READONLY for `kura mcp`); the "
    'store\'s authority is write_policy = "distiller-only" | "direct-allowed" | '
    '"frozen"',
    "allowSwitch": "switching stores is the host's choice: leave KURA_STORE unset and kura_use "
    "switches; set it to bind a session to one store. Remove the key",
    "store": "a host names its store with KURA_STORE, ?store= or -s; in kura.toml each store "
    "is a [stores.NAME] table",
}


#: the warnings of the config being parsed (parse_config collects them into Config.warnings)
_WARNINGS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "kura_config_warnings", default=None
)


def _warn(text: str) -> None:
    got = _WARNINGS.get()
    if got is not None and text not in got:
        got.append(text)


def _path(v: str, base: Path | None) -> Path:
    p = Path(v).expanduser()
    if not p.is_absolute() and base is not None:
        p = base / p
    return Path(os.path.abspath(p))


def _journals(t: _Table | None, base: Path | None) -> tuple[JournalSpec, ...]:
    if t is None:
        return ()
    out = []
    for adapter in list(t.raw):
        t.seen.add(adapter)
        known = adapter_names()
        if adapter not in known:
            raise ConfigError(
                f"kura.toml: unknown journal adapter {t.key(adapter)}; use one of "
                + ", ".join(known)
            )
        v = t.raw[adapter]
        if isinstance(v, str):
            out.append(JournalSpec(adapter, _path(v, base)))
            continue
        entries = v if isinstance(v, list) else [v]
        for i, entry in enumerate(entries):
            where = t.key(adapter) + (f"[{i}]" if isinstance(v, list) else "")
            if isinstance(entry, str):
                out.append(JournalSpec(adapter, _path(entry, base)))
                continue
            jt = _Table(entry, where)
            root = jt.get("root", str, None)
            if not root:
                raise ConfigError(f"kura.toml: {where}.root is required (a directory or file)")
            out.append(
                JournalSpec(
                    adapter,
                    _path(root, base),
                    jt.get("include_glob", str, ""),
                    jt.get("exclude_glob", str, ""),
                )
            )
            jt.done()
    return tuple(out)


def _distill(t: _Table | None, base: DistillConfig, root: Path | None) -> DistillConfig:
    if t is None:
        return base
    d = replace(
        base,
        language=t.get("language", str, base.language),
        max_items=t.positive("max_items", int, base.max_items),
        chunk_chars=t.positive("chunk_chars", int, base.chunk_chars),
        idle_min=t.positive("idle_min", float, base.idle_min, zero_ok=True),
        backoff_min=t.positive("backoff_min", float, base.backoff_min, zero_ok=True),
        yield_on_return=t.get("yield_on_return", bool, base.yield_on_return),
        human_names=t.strings("human_names", base.human_names),
        min_quote_chars=t.positive("min_quote_chars", int, base.min_quote_chars),
        coverage_passes=t.positive("coverage_passes", int, base.coverage_passes),
        chunk_seconds=t.positive("chunk_seconds", float, base.chunk_seconds, zero_ok=True),
        seed_check=t.positive("seed_check", int, base.seed_check),
        seed_wither_days=t.positive("seed_wither_days", float, base.seed_wither_days, zero_ok=True),
        seed_wither_checks=t.positive(
            "seed_wither_checks", int, base.seed_wither_checks, zero_ok=True
        ),
    )
    js = _journals(t.sub("journals"), root)
    if js:
        d = replace(d, journals=js)
    t.done()
    return d


def _prefill(t: _Table | None, base: PrefillConfig) -> PrefillConfig:
    if t is None:
        return base
    p = replace(
        base,
        window_tokens=t.positive("window_tokens", int, base.window_tokens),
        budget_fraction=t.positive("budget_fraction", float, base.budget_fraction),
        hard_fraction=t.positive("hard_fraction", float, base.hard_fraction),
        fresh_days=t.positive("fresh_days", int, base.fresh_days, zero_ok=True),
        pinned_types=t.strings("pinned_types", base.pinned_types),
        trigger_tokens=t.positive("trigger_tokens", int, base.trigger_tokens),
        header=t.get("header", str, base.header),
        resident_mode=t.get("resident_mode", str, base.resident_mode),
        trail_tokens=t.positive("trail_tokens", int, base.trail_tokens, zero_ok=True),
    )
    if p.resident_mode not in RESIDENT_MODES:
        raise ConfigError(
            f"kura.toml: {t.where}.resident_mode must be one of {', '.join(RESIDENT_MODES)} "
            f"(got {p.resident_mode!r})"
        )
    if p.budget_fraction > 1 or p.hard_fraction > 1:
        raise ConfigError(
            f"kura.toml: {t.where}.budget_fraction and hard_fraction must be at most 1"
        )
    if p.hard_fraction < p.budget_fraction:
        raise ConfigError(
            f"kura.toml: {t.where}.hard_fraction ({p.hard_fraction}) must not be below "
            f"budget_fraction ({p.budget_fraction})"
        )
    t.done()
    return p


def _recall(t: _Table | None, base: RecallConfig) -> RecallConfig:
    if t is None:
        return base
    r = replace(
        base,
        hops=t.positive("hops", int, base.hops, zero_ok=True),
        top=t.positive("top", int, base.top),
        chars=t.positive("chars", int, base.chars),
        shard_tokens=t.positive("shard_tokens", int, base.shard_tokens),
        thinker=t.get("thinker", str, base.thinker),
    )
    if r.thinker not in THINKER_MODES:
        raise ConfigError(
            f"kura.toml: {t.where}.thinker must be one of "
            + ", ".join(f'"{m}"' for m in THINKER_MODES)
            + f" (got {r.thinker!r})"
        )
    t.done()
    return r


def _capacity(t: _Table | None, base: CapacityConfig) -> CapacityConfig:
    if t is None:
        return base
    c = replace(
        base,
        memories=t.positive("memories", int, base.memories, zero_ok=True),
        index_tokens=t.positive("index_tokens", int, base.index_tokens, zero_ok=True),
        body_tokens=t.positive("body_tokens", int, base.body_tokens, zero_ok=True),
        bytes=t.positive("bytes", int, base.bytes, zero_ok=True),
    )
    t.done()
    return c


_MODEL_KEYS = {
    "url": str,
    "model": str,
    "api_key_env": str,
    "timeout": float,
    "temperature": float,
    "effort": str,
    "thinking": bool,
    "dialect": str,
    "extra": dict,
    "max_tokens": int,
    "deadline": float,
}


def _model_table(t: _Table) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, kind in _MODEL_KEYS.items():
        v = t.get(k, kind, None)
        if v is not None:
            out[k] = v
    if "dialect" in out and out["dialect"] not in DIALECTS:
        raise ConfigError(f"kura.toml: {t.key('dialect')} must be one of " + ", ".join(DIALECTS))
    named = "timeout"
    if "deadline" in out:
        named = "deadline"
        if "timeout" in out:
            raise ConfigError(
                f"kura.toml: {t.key('deadline')} and {t.key('timeout')} say the same thing; "
                "keep deadline"
            )
        out["timeout"] = out.pop("deadline")
    if "timeout" in out and out["timeout"] <= 0:
        raise ConfigError(f"kura.toml: {t.key(named)} must be greater than 0 seconds")
    if "max_tokens" in out and out["max_tokens"] <= 0:
        raise ConfigError(f"kura.toml: {t.key('max_tokens')} must be a whole number above 0")
    t.done()
    return out


def _models(t: _Table | None) -> dict[str, ModelSpec | None]:
    tables: dict[str, dict[str, Any]] = {}
    if t is not None:
        for role in ROLES:
            sub = t.sub(role)
            if sub is not None:
                tables[role] = _model_table(sub)
        t.done()
    out: dict[str, ModelSpec | None] = {}
    inherited: dict[str, Any] = {}
    for role in ROLES:  # brain inherits thinker, scribe inherits brain
        if role == "brain":
            # timeouts fit the role: the thinker's is a recall budget, never the brain's
            inherited.pop("timeout", None)
        inherited.pop("max_tokens", None)  # each role's replies are bounded for its tasks
        if role in tables:
            inherited = {**inherited, **tables[role]}
        if role in tables or (inherited and role != "thinker"):
            if "url" not in inherited or "model" not in inherited:
                missing = "url" if "url" not in inherited else "model"
                where = t.where if t is not None else "models"
                raise ConfigError(f"kura.toml: {where}.{role}.{missing} is required")
            out[role] = ModelSpec(**{"timeout": ROLE_TIMEOUTS[role], **inherited})
        else:
            out[role] = None
    return out


def _model_profiles(t: _Table | None) -> dict[str, Mapping[str, ModelSpec | None]]:
    """[model_profiles.<p>.<role>]: each profile is read as [models] is (brain inherits the
    thinker, the scribe the brain) and nothing from [models]: a store that names a profile
    sends its text to that profile's endpoints only. A profile must define thinker.url."""
    out: dict[str, Mapping[str, ModelSpec | None]] = {}
    if t is None:
        return out
    for name in list(t.raw):
        _check_name(name, f"model_profiles.{name}")
        sub = t.sub(name)
        assert sub is not None
        thinker = sub.raw.get("thinker")
        if not isinstance(thinker, dict) or "url" not in thinker:
            raise ConfigError(
                f"kura.toml: model_profiles.{name}.thinker.url is required (a profile must "
                "name its own thinker: a store using it never falls back to [models])"
            )
        out[name] = MappingProxyType(_models(sub))
    t.done()
    return out


def _secrets(t: _Table | None) -> SecretRules:
    """[stores.X.secrets]: ``patterns`` (kind = bounded regex) and ``allow`` (values that
    are never secrets)."""
    if t is None:
        return SecretRules()
    pt = t.sub("patterns")
    patterns: dict[str, str] = {}
    if pt is not None:
        for kind in list(pt.raw):
            patterns[kind] = pt.get(kind, str, "")
        pt.done()
    rules = SecretRules.build(patterns, t.strings("allow", ()), where=t.where)
    t.done()
    return rules


def _server(st: _Table | None) -> ServerConfig:
    server = ServerConfig()
    if st is None:
        return server
    server = ServerConfig(
        host=st.get("host", str, server.host),
        port=st.get("port", int, server.port),
        default=st.get("default", str, server.default),
        token_env=st.get("token_env", str, server.token_env),
        max_body_bytes=st.positive("max_body_bytes", int, server.max_body_bytes),
    )
    if not 0 <= server.port <= 65535:
        raise ConfigError(f"kura.toml: server.port must be 0..65535 (got {server.port})")
    st.done()
    return server


@dataclass(frozen=True)
class _Defaults:
    """The top-level tables a store's own tables start from."""

    distill: DistillConfig
    prefill: PrefillConfig
    recall: RecallConfig
    capacity: CapacityConfig
    fastpath: FastpathConfig = field(default_factory=FastpathConfig)
    profiles: Mapping[str, Mapping[str, ModelSpec | None]] = field(default_factory=dict)


def _store(name: str, s: _Table, top: _Defaults, base: Path | None) -> StoreConfig:
    path = s.get("path", str, None)
    if not path:
        raise ConfigError(f"kura.toml: stores.{name}.path is required (the store's directory)")
    policy = s.get("write_policy", str, WritePolicy.DISTILLER_ONLY.value)
    if policy not in WRITE_POLICIES:
        raise ConfigError(
            f"kura.toml: stores.{name}.write_policy must be one of "
            + ", ".join(WRITE_POLICIES)
            + f" (got {policy!r})"
        )
    charter = s.get("charter", str, None)
    sd = _distill(s.sub("distill"), replace(top.distill, journals=()), base)
    own = sd.journals + _journals(s.sub("journals"), base)
    inherit = s.get("inherit_global_journals", bool, False)
    # journals are settled once every store is known (see _settle_journals)
    sd = replace(sd, journals=own)
    store = StoreConfig(
        name=name,
        path=_path(path, base),
        label=s.get("label", str, ""),
        write_policy=policy,
        charter=_path(charter, base) if charter else None,
        persona=s.get("persona", str, ""),
        distill=sd,
        prefill=_prefill(s.sub("prefill"), top.prefill),
        recall=_recall(s.sub("recall"), top.recall),
        capacity=_capacity(s.sub("capacity"), top.capacity),
        fastpath=_fastpath(s.sub("fastpath"), top.fastpath),
        inherit_global_journals=inherit,
        secrets=_secrets(s.sub("secrets")),
        history=s.get("history", bool, True),
        **_sync(s.sub("sync")),
    )
    profile = s.get("model_profile", str, "")
    if profile:
        if profile not in top.profiles:
            known = ", ".join(sorted(top.profiles)) or "none is defined"
            raise ConfigError(
                f"kura.toml: stores.{name}.model_profile names {profile!r}, which is not a "
                f"profile ([model_profiles.*]: {known}); define [model_profiles.{profile}."
                "thinker] or fix the name"
            )
        store = replace(store, model_profile=profile, profile_models=top.profiles[profile])
    s.done()
    return store


def _sync(t: _Table | None) -> dict[str, Any]:
    if t is None:
        return {}
    remote = t.get("remote", str, "").strip()
    if not remote or remote.startswith("-") or "\n" in remote:
        raise ConfigError(
            f"kura.toml: {t.key('remote')} must name a git remote: a path, an ssh or https "
            f"address (got {remote!r})"
        )
    every = t.positive("every_min", float, 15.0)
    t.done()
    return {"sync_remote": remote, "sync_every_min": every}


def _stores(stt: _Table | None, top: _Defaults, base: Path | None) -> dict[str, StoreConfig]:
    stores: dict[str, StoreConfig] = {}
    if stt is None:
        return stores
    for name in list(stt.raw):
        stt.seen.add(name)
        _check_name(name, f"stores.{name}")
        stores[name] = _store(name, _Table(stt.raw[name], f"stores.{name}"), top, base)
    return _settle_journals(stores, top.distill.journals)


def _modes(mt: _Table | None, stores: Mapping[str, StoreConfig]) -> dict[str, str]:
    modes: dict[str, str] = {}
    if mt is None:
        return modes
    for mode in list(mt.raw):
        target = mt.get(mode, str, None)
        _check_name(mode, f"modes.{mode}")
        if target not in stores:
            raise ConfigError(
                f"kura.toml: modes.{mode} points at {target!r}, which is not a store; "
                "add [stores." + str(target) + "] or fix the name"
            )
        if mode in stores and mode != target:
            raise ConfigError(
                f"kura.toml: modes.{mode} names store {target!r} but a different store is "
                f"called {mode!r}; rename the mode or the store"
            )
        modes[mode] = target
    mt.done()
    return modes


def parse_config(raw: Mapping[str, Any], *, source: Path | None) -> Config:
    said: list[str] = []
    token = _WARNINGS.set(said)
    try:
        cfg = _parse_config(raw, source=source)
    finally:
        _WARNINGS.reset(token)
    return replace(cfg, warnings=tuple(said)) if said else cfg


def _parse_config(raw: Mapping[str, Any], *, source: Path | None) -> Config:
    base = source.parent if source is not None else None
    top = _Table(dict(raw), "")

    server = _server(top.sub("server"))
    distill = _distill(top.sub("distill"), DistillConfig(), base)
    prefill = _prefill(top.sub("prefill"), PrefillConfig())
    recall = _recall(top.sub("recall"), RecallConfig())
    capacity = _capacity(top.sub("capacity"), CapacityConfig())
    models = _models(top.sub("models"))
    profiles = _model_profiles(top.sub("model_profiles"))
    keys = _keys(top.sub("keys"))
    fastpath = _fastpath(top.sub("fastpath"), FastpathConfig())
    defaults = _Defaults(distill, prefill, recall, capacity, fastpath=fastpath, profiles=profiles)
    stores = _stores(top.sub("stores"), defaults, base)
    modes = _modes(top.sub("modes"), stores)
    top.done()

    if server.default and server.default not in stores and server.default not in modes:
        raise ConfigError(f"kura.toml: server.default {server.default!r} is not a store or mode")
    if server.default in modes:
        server = replace(server, default=modes[server.default])

    _check_layout(stores, distill)
    return Config(
        source=source,
        server=server,
        stores=stores,
        modes=modes,
        models=models,
        distill=distill,
        prefill=prefill,
        recall=recall,
        capacity=capacity,
        fastpath=fastpath,
        keys=keys,
        model_profiles=profiles,
    )


_BINDING_ID = re.compile(r"[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*")


def _keys(t: _Table | None) -> dict[str, str]:
    """[keys]: binding id = "key" for the app (``"ctrl+s"``; several keys: ``"f2,ctrl+s"``).
    A dotted id written bare (``main.tab.map = "f1"``) is read as TOML reads it, as nested
    tables, and joined back."""
    if t is None:
        return {}
    out: dict[str, str] = {}

    def walk(raw: Mapping[str, Any], prefix: str) -> None:
        for k, v in raw.items():
            bid = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(v, bid + ".")
                continue
            if not _BINDING_ID.fullmatch(bid):
                raise ConfigError(
                    f"kura.toml: keys.{bid!r} is not a binding id: ids are dotted lowercase "
                    'words such as "main.tab.map" (docs/KEYS.md lists every one)'
                )
            keys = [p.strip() for p in v.split(",")] if isinstance(v, str) else []
            if not keys or not all(keys):
                raise ConfigError(
                    f'kura.toml: keys.{bid} must be a key such as "f2" or "ctrl+s" (several: '
                    f'"f2,ctrl+s"), got {v!r}'
                )
            out[bid] = ",".join(keys)

    walk(t.raw, "")
    t.seen.update(t.raw)
    t.done()
    return out


def _settle_journals(
    stores: dict[str, StoreConfig], global_journals: tuple[JournalSpec, ...]
) -> dict[str, StoreConfig]:
    """Which journals each store drinks. Journals are never shared by accident.

    One store: its own table, else the global ``[distill.journals]``. Two or more: kura
    does not guess whose the global journals are; a store drinks its own table, plus the
    global ones only when it sets ``inherit_global_journals = true``; a store with neither
    drinks nothing (doctor says so).
    """
    out: dict[str, StoreConfig] = {}
    single = len(stores) == 1
    for name, sc in stores.items():
        own = sc.distill.journals
        if own and sc.inherit_global_journals:
            js, src = own + tuple(j for j in global_journals if j not in own), "own+global"
        elif own:
            js, src = own, "own"
        elif (single or sc.inherit_global_journals) and global_journals:
            js, src = global_journals, "global"
        else:
            js, src = (), "none"
        out[name] = replace(sc, distill=replace(sc.distill, journals=js), journals_from=src)
    return out


def shared_journal_roots(config: Config) -> list[dict[str, Any]]:
    """Journal roots two or more stores drink (one contains or is the other), each with
    the stores that drink it: allowed when written down, always named by doctor."""
    drinkers: list[tuple[str, Path, JournalSpec]] = []
    for name, sc in config.stores.items():
        for j in sc.distill.journals:
            drinkers.append((name, Path(os.path.realpath(j.root)), j))
    out: dict[str, set[str]] = {}
    for i, (a, ra, _ja) in enumerate(drinkers):
        for b, rb, _jb in drinkers[i + 1 :]:
            if a == b:
                continue
            if ra == rb or _inside(ra, rb) or _inside(rb, ra):
                key = str(rb if _inside(ra, rb) else ra)
                out.setdefault(key, set()).update((a, b))
    return [{"root": root, "stores": sorted(names)} for root, names in sorted(out.items())]


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def _check_name(name: str, key: str) -> None:
    if not _NAME.fullmatch(name):
        raise ConfigError(
            f"kura.toml: {key}: a name must be letters, digits, '-' or '_' (got {name!r})"
        )


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.relative_to(parent)
        return True
    except ValueError:
        return False


def _check_layout(stores: Mapping[str, StoreConfig], distill: DistillConfig) -> None:
    real = {n: Path(os.path.realpath(s.path)) for n, s in stores.items()}
    names = list(stores)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            pa, pb = real[a], real[b]
            if pa == pb:
                raise ConfigError(
                    f"kura.toml: stores.{a}.path and stores.{b}.path are the same directory; "
                    "give each store its own"
                )
            if _inside(pa, pb) or _inside(pb, pa):
                inner, outer = (a, b) if _inside(pa, pb) else (b, a)
                raise ConfigError(
                    f"kura.toml: stores.{inner}.path is inside stores.{outer}.path; "
                    "stores must not nest"
                )
    specs = [("distill.journals", j) for j in distill.journals]
    for n, s in stores.items():
        specs += [(f"stores.{n}.journals", j) for j in s.distill.journals]
    for key, j in specs:
        jr = Path(os.path.realpath(j.root))
        for n, p in real.items():
            if _inside(jr, p):
                raise ConfigError(
                    f"kura.toml: {key}.{j.adapter} root {j.root} is inside store {n!r}; "
                    "a store must never drink itself — point the journal elsewhere"
                )


def append_store(config_path: Path, name: str, path: Path, label: str = "") -> None:
    """Add a [stores.NAME] table to a config file, creating it if needed (atomic)."""

    text = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    if text and not text.endswith("\n"):
        text += "\n"
    block = f"\n[stores.{name}]\npath = {_toml_str(str(path))}\n"
    if label:
        block += f"label = {_toml_str(label)}\n"
    new = text + block
    parse_config(tomllib.loads(new), source=config_path)  # refuse before writing
    config_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(config_path, new)


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
