"""The Python library: one object that every face uses.

    from kura_core import Kura
    k = Kura.open()                    # kura.toml by the usual resolution order
    k = Kura.open_store("~/kura/main") # a single store, no config file
    k.read("archive-on-slow-disk", store="maker")
    k.doctor(store="eq")

Each method takes an optional ``store`` selector (a store or mode name); without it
the default store answers. Unknown selectors raise SelectorError.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from . import history, sync
from .errors import ConflictError, KuraError, PolicyError
from .handwork.memories import GateEntry
from .llm import ModelClient, probe_line
from .registry import Registry
from .secrets import BUILTIN, SecretRules, redact_value, using_rules
from .store import Memory
from .vocabulary import WritePolicy

if TYPE_CHECKING:
    from .distill.drafts import Draft
    from .distill.journals.inspect import Inspection, SegmentContext
    from .distill.pipeline import CatchupReport
    from .distill.tidy import TidyReport
    from .doctor import DoctorAll, DoctorReport
    from .handwork.adopt import Adopted
    from .handwork.drafts import DraftsView
    from .handwork.journals import JournalExcerpt, JournalsView
    from .handwork.maps import MapView, TrailResult, WeavePreview
    from .handwork.memories import EditResult, MemoryView, RetireResult
    from .handwork.runs import Outcome
    from .handwork.seeds import Seed
    from .handwork.tender import TendStatus
    from .handwork.tidy import TidyReview
    from .history import Change
    from .prefill import Prefill
    from .profile import ProfileApplied, ProfileDraft, ProfileState
    from .recall import RecallResult
    from .scrub import ScrubReport, StoredSecret
    from .sync import SyncReport
    from .warm import WarmReport
    from .weave import WeaveResult


def _recorded(what: str = "", who: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The writes a method makes are recorded in history as *what*, by *who* (when given;
    else the face the process is)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*args: Any, **kw: Any) -> Any:
            with history.acting(who) if who else _nothing(), history.doing(what):
                return fn(*args, **kw)

        return inner

    return wrap


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@dataclass(frozen=True)
class InitResult:
    """A store created and configured."""

    store: str
    path: str
    config: str
    adopted: tuple[str, ...] = ()  # memory files already there, given their index lines
    skipped: tuple[tuple[str, str], ...] = ()  # memory files left out of the index, and why
    history: str = ""  # "on", "off" (history = false), or why there is none

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "path": self.path,
            "config": self.config,
            "adopted": list(self.adopted),
            "skipped": [{"slug": s, "why": w} for s, w in self.skipped],
            "history": self.history,
        }


@dataclass(frozen=True)
class GateReport:
    """The gate run on candidates against one journal, without a model."""

    journal: str
    adapter: str
    segments: int
    results: tuple[Any, ...]  # kura_core.distill.gate.GateResult
    #: the rules the journal was read with, and the raw values its redaction took out:
    #: everything the report shows passes them, so it never repeats a secret
    rules: SecretRules = BUILTIN
    known: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def shown(self, text: str) -> str:
        """*text* as the report may show it: secrets, known or found, as markers."""
        return self.rules.redact(text, self.known).text if text else text

    def to_json(self) -> dict[str, Any]:
        return {
            "journal": self.journal,
            "adapter": self.adapter,
            "segments": self.segments,
            "candidates": redact_value([r.to_json() for r in self.results], self.rules, self.known),
        }


@dataclass(frozen=True)
class TendTick:
    """One tick of the tender, with the exit code a scheduler reads."""

    store: str
    code: int
    tick: Any  # kura_core.tend.Tick

    def to_json(self) -> dict[str, Any]:
        return {"store": self.store, "exit": self.code, **self.tick.to_json()}


@dataclass(frozen=True)
class StoreSummary:
    """One configured store with its cheap counts (no memory is parsed)."""

    name: str
    label: str
    path: str
    write_policy: str
    modes: tuple[str, ...]
    default: bool
    exists: bool
    memories: int
    drafts_waiting: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "path": self.path,
            "write_policy": self.write_policy,
            "modes": list(self.modes),
            "default": self.default,
            "exists": self.exists,
            "memories": self.memories,
            "drafts_waiting": self.drafts_waiting,
        }


@dataclass(frozen=True)
class ModelRole:
    """The model that fills one role, its last unrecovered error, and (when probed) whether
    its endpoint answers now. Never a secret: the key's variable name, not the key."""

    url: str
    model: str
    dialect: str
    api_key_env: str | None
    last_error: str | None = None
    reachable: bool | None = None  # None: not probed
    reason: str | None = None
    #: the structured-output shape its endpoint accepts (learnt; a probe learns afresh)
    shape: str | None = None
    latency_ms: float | None = None  # probed: the time to the answer
    refused: tuple[str, ...] = ()  # probed: the server's refusals on the way

    @property
    def said(self) -> str:
        """What the probe brought back (or the shape learnt), in words."""
        return probe_line(self.reachable, self.reason, self.shape, self.refused)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "url": self.url,
            "model": self.model,
            "dialect": self.dialect,
            "api_key_env": self.api_key_env,
            "last_error": self.last_error,
            "shape": self.shape,
        }
        if self.reachable is not None:
            out["reachable"], out["reason"] = self.reachable, self.reason
        if self.latency_ms is not None:
            out["latency_ms"] = round(self.latency_ms, 1)
            out["refused"] = list(self.refused)
        return out


@dataclass(frozen=True)
class StoresInfo:
    """Every store, the modes that name them, and the model in each role."""

    default: str | None
    stores: tuple[StoreSummary, ...]
    modes: Mapping[str, str]
    models: Mapping[str, ModelRole | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "default": self.default,
            "stores": [s.to_json() for s in self.stores],
            "modes": dict(self.modes),
            "models": {r: (m.to_json() if m else None) for r, m in self.models.items()},
        }


@dataclass(frozen=True)
class PersonaFile:
    """Where a store's persona file is, never what it says."""

    path: str
    exists: bool


@dataclass(frozen=True)
class ProfileInfo:
    """A store's charter, where its persona file is, and its learned profile."""

    store: str
    charter: str
    charter_path: str
    persona: PersonaFile | None
    learned: ProfileState

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "charter": self.charter,
            "charter_path": self.charter_path,
            "persona": {"path": self.persona.path, "exists": self.persona.exists}
            if self.persona
            else None,
            "learned": self.learned.to_json(),
        }


class Kura:
    """The application layer: every operation a face performs, each returning a value (a
    frozen result, a memory, or the JSON-ready view of the stores). The CLI, the HTTP and
    MCP servers and the app parse input, call one of these, and render.

    Each operation imports the modules it runs inside its method, on purpose: start-up.
    Measured, constructing a Kura loads 15 kura modules, and a command such as ``kura
    prefill`` (run by a host at every session start) stays near that; importing every
    operation's modules up front loads 60, the distiller, the floors and every journal
    reader included."""

    def __init__(self, registry: Registry):
        self.registry = registry

    @classmethod
    def open(cls, config: str | os.PathLike | None = None, **kw: Any) -> Kura:
        return cls(Registry.open(config, **kw))

    @classmethod
    def open_store(cls, path: str | os.PathLike, name: str = "", **kw: Any) -> Kura:
        return cls(Registry.for_path(path, name, **kw))

    @classmethod
    def without_stores(cls) -> Kura:
        """A Kura with no configuration, for what needs no store (reading a journal file,
        running the gate on one)."""
        from .config import parse_config

        return cls(Registry(parse_config({}, source=None)))

    def close(self) -> None:
        self.registry.close()

    def __enter__(self) -> Kura:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- reading ---------------------------------------------------------
    def stores(self, *, probe: bool = False) -> StoresInfo:
        """Stores (with counts), modes, and which model fills each role with its last error;
        with *probe*, whether each endpoint answers now. Never a secret."""
        reg = self.registry
        info = reg.describe()
        summaries = self._summaries(info)
        calls: dict[str, dict[str, Any]] = {}
        learnt: dict[str, Any] = {}
        for s in summaries:
            if s.exists:
                try:
                    recorded = reg.workshop(s.name).model_calls()
                    learnt.update(reg.workshop(s.name).learnt_dialects())
                except KuraError:
                    recorded = {}  # a busy, read-only or missing workshop never takes /stores down
                for role, c in recorded.items():
                    if c.get("last_error_at") and (
                        role not in calls or c["last_error_at"] > calls[role]["last_error_at"]
                    ):
                        calls[role] = c
        client = reg.models(reg.names()[0]) if probe and reg.names() else None
        models: dict[str, ModelRole | None] = {}
        for role, spec in info["models"].items():
            if spec is None:
                models[role] = None
                continue
            last = calls.get(role) or {}
            failing = bool(last) and (last.get("last_ok_at") or 0) < last["last_error_at"]
            seen: dict[str, Any] = {}
            model_spec = reg.config.models.get(role)
            if model_spec is not None:
                seen["shape"] = (learnt.get(ModelClient.endpoint_key(model_spec)) or {}).get(
                    "shape"
                )
            if client is not None:
                result = client.check(role)
                seen.update(
                    reachable=result.ok,
                    reason=result.summary,
                    shape=result.shape or None,
                    latency_ms=result.latency_ms,
                    refused=result.tried,
                )
            models[role] = ModelRole(
                spec["url"],
                spec["model"],
                spec["dialect"],
                spec["api_key_env"],
                last_error=last["last_error"] if failing else None,
                **seen,
            )
        return StoresInfo(
            info["default"],
            summaries,
            MappingProxyType(dict(info["modes"])),
            MappingProxyType(models),
        )

    def overview(self) -> tuple[StoreSummary, ...]:
        """Every store with its cheap counts (no memory is parsed): for lists and pickers."""
        return self._summaries(self.registry.describe())

    def _summaries(self, info: Mapping[str, Any]) -> tuple[StoreSummary, ...]:
        out = []
        for s in info["stores"]:
            st = self.registry.store(s["name"])
            drafts = st.still / "drafts"
            out.append(
                StoreSummary(
                    name=s["name"],
                    label=s["label"],
                    path=s["path"],
                    write_policy=s["write_policy"],
                    modes=tuple(s["modes"]),
                    default=s["name"] == info["default"],
                    exists=st.index_path.is_file(),
                    memories=len(st.file_slugs()),
                    drafts_waiting=len(list(drafts.glob("*.md"))) if drafts.is_dir() else 0,
                )
            )
        return tuple(out)

    def read(self, slug: str, *, store: str | None = None) -> Memory:
        return self.registry.store(store).read(slug)

    def glance(self, slug: str, *, store: str | None = None) -> Any:
        """An exact look at one memory in about 150 tokens (see kura_core.glance)."""
        from .glance import glance

        name = self.registry.resolve(store)
        return glance(self.registry.store(name), name, slug)

    def index(self, *, store: str | None = None) -> str:
        return self.registry.store(store).index_text()

    @property
    def clock(self) -> Callable[[], float]:
        """The clock every timestamp kura writes is read from (a test may set its own)."""
        return self.registry.clock

    # ---- names ---------------------------------------------------------------
    def names(self) -> list[str]:
        """The configured stores, in the config's order."""
        return self.registry.names()

    def keys(self) -> dict[str, str]:
        """The app's keys a person moved in kura.toml's [keys]: binding id -> key(s)."""
        return dict(self.registry.config.keys)

    def resolve(self, store: str | None = None) -> str:
        """The store a selector (a store or mode name; None: the default) names.
        Unknown selectors raise SelectorError."""
        return self.registry.resolve(store)

    @staticmethod
    def init_store(
        name: str,
        path: str | os.PathLike,
        *,
        label: str = "",
        config: str | os.PathLike | None = None,
    ) -> InitResult:
        """Create a store at *path* and add it to the config (the usual resolution order
        picks the file; ~/.config/kura/kura.toml when there is none). Refused when *name*
        is already configured elsewhere."""
        from .config import append_store, load_config, resolve_config_path
        from .store import Store
        from .workshop import Workshop

        where = Path(path).expanduser().resolve()
        found, target = resolve_config_path(config)
        cfg = load_config(config) if found else None
        if cfg and name in cfg.stores:
            if Path(os.path.realpath(cfg.stores[name].path)) != Path(os.path.realpath(where)):
                raise KuraError(
                    f"store {name!r} is already configured at {cfg.stores[name].path} in {found}; "
                    "choose another name or edit that file"
                )
        else:
            append_store(target, name, where, label)
        store = Store(where, name=name)
        store.init(label=label)
        _ = Workshop(store.still).schema_version  # create the database now, not on first use
        kept = _init_history(store, load_config(target).stores[name].history)
        if set(store.file_slugs()) - set(store.index().by_slug()):
            # memories already in the folder are memories at once: their lines are written
            from .handwork.adopt import adopt

            got = adopt(Registry.open(target), name)
            return InitResult(name, str(where), str(target), got.adopted, got.skipped, kept)
        return InitResult(name, str(where), str(target), history=kept)

    # ---- the gate and the journals --------------------------------------------
    def gate(
        self,
        journal: str | os.PathLike,
        candidates: Sequence[Any] | str | os.PathLike,
        *,
        adapter: str | None = None,
        store: str | None = None,
    ) -> GateReport:
        """The evidence gate on *candidates* (the ``kura_candidates`` shape, or a JSON file
        holding it) against one journal, without a model. With *store*, the store supplies
        echo detection, the human's names and the minimum quote length."""
        from .distill.gate import gate_journal
        from .distill.pipeline import echo_detector

        path = Path(journal)
        if not path.is_file():
            raise KuraError(f"--journal {path}: no such file")
        rules = self.registry.spec(store).secrets if store else self._journal_rules()

        def given() -> list[Any]:
            if isinstance(candidates, (str, os.PathLike)):
                return _load_candidates(Path(candidates))
            return list(candidates)

        def never_an_echo(quote: str) -> bool:
            return False  # with no store, nothing is an echo of it

        is_echo: Callable[[str], bool] = never_an_echo
        names: Sequence[str] = ()
        min_chars = 8
        if store:
            spec = self.registry.spec(store)
            names, min_chars = spec.distill.human_names, spec.distill.min_quote_chars
            is_echo = echo_detector(self.registry.store(store))
        # the distiller's path: the same rules, the same floors
        used, read, results, known = gate_journal(
            path,
            given,
            adapter=adapter,
            rules=rules,
            is_echo=is_echo,
            human_names=names,
            min_quote_chars=min_chars,
        )
        return GateReport(str(path), used, len(read.segments), tuple(results), rules, known)

    def journal_inspect(
        self, path: str | os.PathLike, *, adapter: str | None = None, start: int = 0
    ) -> Inspection:
        """What kura reads in a journal: the classed segments with their positions and every
        skipped, ignored or repaired record with why (an ``Inspection``)."""
        from .distill.journals import inspect

        with using_rules(self._journal_rules()):
            return inspect(path, adapter=adapter, start=start)

    def journal_context(
        self, path: str | os.PathLike, at: int, *, adapter: str | None = None, radius: int = 3
    ) -> SegmentContext:
        """The segments around one position of a journal (a ``SegmentContext``)."""
        from .distill.journals import segment_context

        with using_rules(self._journal_rules()):
            return segment_context(path, at, adapter=adapter, radius=radius)

    def _journal_rules(self) -> SecretRules:
        """The secret rules a journal read with no store named is shown with: the
        default store's (its own patterns and allow-list), else the built-in ones."""
        try:
            name = self.registry.resolve(None)
        except KuraError:
            return BUILTIN
        return self.registry.spec(name).secrets

    # ---- the distiller --------------------------------------------------------
    def catchup(self, *, store: str | None = None) -> CatchupReport:
        """Move every watermark of the store's journals to the present without drinking
        (a ``CatchupReport``)."""
        from .distill.pipeline import catchup

        return catchup(self.registry, store)

    @_recorded("tidy")
    def tidy(self, *, store: str | None = None, dry_run: bool = False) -> TidyReport:
        """Find index lines that do not do their job and have the scribe rewrite them through
        the floors; with *dry_run*, only find them (a ``TidyReport``)."""
        from .distill.tidy import TidyReport, find_weak_lines, tidy

        name = self.registry.resolve(store)
        if dry_run:
            return TidyReport(name, tuple(find_weak_lines(self.registry, name)))
        return tidy(self.registry, name)

    # ---- the tender -------------------------------------------------------------
    @_recorded(who="tender")
    def tend_once(self, *, store: str | None = None, out: Any = None) -> TendTick:
        """One tick of the tender: drain, or distil, and tidy once per quiet spell. Exit
        code 0 did work, 2 nothing to do, 1 a track failed."""
        from .tend import run_once

        name = self.registry.resolve(store)
        code, tick = run_once(self.registry, name, out=out)
        return TendTick(name, code, tick)

    @_recorded(who="tender")
    def tend_forever(
        self, *, store: str | None = None, out: Any = None, poll_s: float = 15.0
    ) -> int:
        """Stay resident and tend the store until SIGTERM/SIGINT (one process per store)."""
        from .tend import run_resident

        return run_resident(self.registry, store, out=out, poll_s=poll_s)

    def profile(self, *, store: str | None = None) -> ProfileInfo:
        """The store's charter text, where its persona file is (never the persona itself),
        and the learned profile's state and text (see :meth:`profile_state`)."""
        name = self.registry.resolve(store)
        spec = self.registry.config.stores[name]
        st = self.registry.store(name)
        persona = None
        if spec.persona:
            p = os.path.expanduser(spec.persona)
            if not os.path.isabs(p) and self.registry.config.source is not None:
                p = os.path.join(os.path.dirname(self.registry.config.source), p)
            persona = PersonaFile(p, os.path.isfile(p))
        return ProfileInfo(
            name, st.charter(), str(st.charter_path), persona, self.profile_state(store=name)
        )

    # ---- the learned profile (kura_core.profile) ---------------------------
    def profile_state(self, *, store: str | None = None) -> ProfileState:
        """Where the store's learned profile stands: the applied text, a waiting draft, and
        whether the store is frozen (a ``ProfileState``; ``.state`` is 'none', 'applied',
        'draft waiting' or 'unreadable')."""
        from .profile import profile_state

        return profile_state(self.registry, store)

    def profile_draft(self, *, store: str | None = None) -> ProfileDraft:
        """Ask the brain to draft a profile from the store's own memories; the draft waits in
        ``_still/profile-draft.md`` for a person (a ``ProfileDraft``). Raises KuraError, or
        ModelUnavailable with the reason when the brain cannot give a profile in sentences."""
        from .profile import draft_profile

        return draft_profile(self.registry, store)

    def profile_apply(
        self, *, store: str | None = None, text: str | None = None, expected: str | None = None
    ) -> ProfileApplied:
        """A person's act: make the waiting draft (or *text*) the store's profile (a
        ``ProfileApplied``). With *expected*, only while the waiting draft is still that text
        (the one the person read): KuraError when no draft waits any more, ConflictError
        when another replaced it. Refused on a frozen store (PolicyError). No HTTP route or
        MCP tool calls this."""
        from .profile import apply_profile

        if expected is not None:
            now = self.profile_state(store=store)
            if not now.draft_present:
                raise KuraError(
                    f"no profile draft is waiting for store {now.store!r} any more (applied or "
                    "removed elsewhere); nothing was changed"
                )
            if now.draft_text != expected:
                raise ConflictError(
                    "the draft changed since it was shown (a new one was drafted meanwhile); "
                    "nothing was changed — read it again, then apply"
                )
        return apply_profile(self.registry, store, text=text)

    def writable(self, *, store: str | None = None) -> bool:
        """Whether direct writes (remember) are allowed: write_policy = "direct-allowed"."""
        name = self.registry.resolve(store)
        return self.registry.config.stores[name].write_policy == WritePolicy.DIRECT_ALLOWED

    def doctor(self, *, store: str | None = None, probe: bool = False) -> DoctorReport:
        """What is in the store and what is broken (``probe``: ask each model endpoint)."""
        from .doctor import diagnose

        return self._with_agents(diagnose(self.registry, store, probe=probe))

    def doctor_all(self, *, probe: bool = False) -> DoctorAll:
        """Every configured store's doctor report."""
        from .doctor import diagnose_all

        every = diagnose_all(self.registry, probe=probe)
        return dataclasses.replace(every, stores=tuple(self._with_agents(r) for r in every.stores))

    @staticmethod
    def _with_agents(rep: DoctorReport) -> DoctorReport:
        """The report, with the agents ``kura connect`` wired to its store (and whether that
        still matches) and their hooks' recent failures among its notes."""
        from .connect import Where, doctor_lines

        try:
            lines = doctor_lines(Where.here(), rep.store)
        except KuraError as exc:
            lines = [f"cannot tell which agents are wired to this store: {exc}"]
        return dataclasses.replace(rep, notes=rep.notes + tuple(lines)) if lines else rep

    # ---- secrets ---------------------------------------------------------------
    def stored_secrets(self, *, store: str | None = None) -> tuple[StoredSecret, ...]:
        """Secrets kept in the store's files and workshop, by place, line and kind (never
        the value); ``kura doctor`` reports them."""
        from .scrub import stored_secrets

        name = self.registry.resolve(store)
        return stored_secrets(
            self.registry.store(name),
            self.registry.workshop(name),
            self.registry.config.stores[name].secrets,
        )

    def scrub(
        self,
        *,
        store: str | None = None,
        backup: str | os.PathLike | None = None,
        dry_run: bool = False,
    ) -> ScrubReport:
        """Redact every stored secret in place, crash-safely, keeping the originals in
        *backup* (default ``$XDG_STATE_HOME/kura/scrub``, outside every store) and logging
        what was done in the gate log. Refused on a frozen store."""
        from .scrub import default_backup_root, scrub

        name = self.registry.resolve(store)
        spec = self.registry.config.stores[name]
        if spec.write_policy == WritePolicy.FROZEN and not dry_run:
            raise PolicyError(
                f"store {name!r} is frozen: nothing is written to it, not even a scrub; "
                f"set another write_policy under [stores.{name}] to scrub it"
            )
        root = Path(backup) if backup else default_backup_root(self.registry.env)
        st = self.registry.store(name)
        if not dry_run and history.enabled(st):
            st.recover()  # a hand edit made before is recorded as its own entry
        rep = scrub(
            st,
            self.registry.workshop(name),
            spec.secrets,
            backup_root=root.expanduser(),
            now=self.registry.clock(),
            dry_run=dry_run,
        )
        if not dry_run and rep.scrubbed:
            with history.doing("scrub"):
                history.record_changed(st, "scrub")
        return rep

    # ---- history, undo, sync --------------------------------------------------
    def history(
        self, slug: str = "", *, store: str | None = None, limit: int = 200, record: bool = True
    ) -> tuple[Change, ...]:
        """The store's changes, newest first (those touching *slug* when given). With
        *record*, a hand edit waiting on disk is recorded first, so it is there too."""
        st = self.registry.store(store)
        if record and history.enabled(st) and self.writable(store=store):
            st.recover()
        return tuple(sync.log(st, slug, limit))

    def change(self, rev: str, *, store: str | None = None) -> Change:
        return sync.change(self.registry.store(store), rev)

    def show_change(self, rev: str, *, store: str | None = None) -> str:
        """One change as a diff, with who, when and what."""
        return sync.show(self.registry.store(store), rev)

    def undo(self, rev: str, *, store: str | None = None) -> Change:
        """Revert one change as a new entry; refused (nothing changed) when something later
        touched the same memory or index line."""
        name = self.registry.resolve(store)
        if self.registry.config.stores[name].write_policy == WritePolicy.FROZEN:
            raise PolicyError(f"store {name!r} is frozen: nothing is written to it, not an undo")
        return sync.undo(self.registry.store(name), rev)

    def enable_history(self, *, store: str | None = None) -> bool:
        """Give an existing store history (idempotent); True when the repository is new."""
        name = self.registry.resolve(store)
        st = self.registry.store(name)
        if not self.registry.config.stores[name].history:
            raise KuraError(f"[stores.{name}] history = false in kura.toml; remove that line first")
        return history.enable(st)

    def sync(self, *, store: str | None = None) -> SyncReport:
        """Fetch the store's remote, merge it, push ([stores.X.sync] remote)."""
        name = self.registry.resolve(store)
        spec = self.registry.config.stores[name]
        if spec.write_policy == WritePolicy.FROZEN:
            raise PolicyError(f"store {name!r} is frozen: nothing is written to it, not a sync")
        with history.doing("sync"):
            return sync.sync(self.registry.store(name), spec.sync_remote)

    def recall(
        self,
        question: str,
        *,
        store: str | None = None,
        hops: int | None = None,
        top: int | None = None,
        chars: int | None = None,
    ) -> RecallResult:
        """Recall by meaning; degraded to words (labelled) when the thinker cannot answer.
        *hops*, *top* and *chars* must lie within :data:`kura_core.recall.RECALL_LIMITS` (None: the
        store's defaults); the question must be words, at most QUESTION_CHARS of them."""
        from .recall import QUESTION_CHARS, check_limits, recall

        if not isinstance(question, str) or not question.strip():
            raise KuraError("the question is empty: ask something in plain words")
        if len(question) > QUESTION_CHARS:
            raise KuraError(
                f"the question is {len(question)} characters; keep it under {QUESTION_CHARS}"
            )
        check_limits(hops=hops, top=top, chars=chars)
        return recall(self.registry, store, question, hops=hops, top=top, chars=chars)

    def recall_waits(self, *, store: str | None = None) -> bool:
        """Whether a recall on this store may wait on more than this process's own CPU and
        disk: on a model (a thinker is configured), or on the first build of its word index.
        A server answers such a recall off its connection loop."""
        from .recall import words_built

        name = self.registry.resolve(store)
        return self.registry.models(name).configured("thinker") or not words_built(
            self.registry, name
        )

    def defer_read_log(self, submit: Callable[..., None] | None) -> None:
        """Write the read log's batches through ``submit(fn, *args)`` instead of from the
        recalling thread (a server hands them to threads that may wait); None: in place."""
        from .recall import defer_read_log

        defer_read_log(self.registry, submit)

    def weave(self, *, store: str | None = None) -> WeaveResult:
        """Re-weave the store's resident map (see kura_core.weave)."""
        from .weave import weave

        res = weave(self.registry, store)
        with contextlib.suppress(KuraError):  # the trail is derived: a weave stands without it
            self.trail(store=store)
        return res

    def trail(self, *, store: str | None = None) -> TrailResult:
        """Rebuild the hot trail (the freshest index lines) from the index as it stands."""
        from .handwork.maps import build_trail

        return build_trail(self.registry, self.registry.resolve(store))

    def warm(self, *, store: str | None = None) -> WarmReport:
        """Refill the thinker's prompt cache with the store's recall prefix (see kura_core.warm)."""
        from .warm import warm

        return warm(self.registry, store)

    def prefill(self, *, store: str | None = None) -> Prefill:
        """The resident map block a host injects (see kura_core.prefill)."""
        from .prefill import build_prefill

        return build_prefill(self.registry, store)

    # ---- writing ---------------------------------------------------------
    @_recorded("remember")
    def remember(
        self,
        slug: str,
        description: str,
        body: str,
        *,
        store: str | None = None,
        type: str = "",
        title: str = "",
        tags: Sequence[str] = (),
        belongs_because: str | None = None,
        keep: str | None = None,
        may_fade: str | None = None,
    ) -> Memory:
        """A direct write, allowed only when the store's write_policy is direct-allowed.

        Tags and the three curation sentences go through the same floors as the
        distiller's text (:func:`kura_core.curation.curation_violations`); the memory's own
        text vouches for them (CurationRefused names what is wrong; nothing is written).
        """
        from .curation import Curation, check_curation

        name = self.registry.resolve(store)
        policy = self.registry.config.stores[name].write_policy
        if policy != WritePolicy.DIRECT_ALLOWED:
            raise PolicyError(
                f"store {name!r} has write_policy {policy!r}: direct writes are refused. "
                "Memories enter through the distiller (kura distill), or set "
                f'write_policy = "direct-allowed" under [stores.{name}]'
            )
        st = self.registry.store(name)
        if not st.index_path.is_file():
            raise PolicyError(
                f"store {name!r} does not exist yet: run `kura init {name} --path {st.root}`"
            )
        cur = Curation(belongs_because, keep, may_fade).given()
        old_tags: Sequence[str] = ()
        manifest = None
        if st.has(slug):
            try:
                old = st.read(slug)
                from .curation import manifest_of

                old_tags, manifest = old.tags, manifest_of(old)
            except KuraError:
                pass
        check_curation(
            st,
            slug=slug,
            description=description,
            body=body,
            manifest_ref=manifest,
            sentences=cur,
            tags=tags,
            allowed_tags=old_tags,
            human_names=self.registry.config.stores[name].distill.human_names,
        )
        return st.write(
            slug,
            title=title or slug.replace("-", " "),
            description=description,
            body=body,
            type=type or "project",
            tags=tags,
            create_only=False,
            meta=_curation_meta(cur),
        )

    @_recorded("annotate")
    def annotate(
        self,
        slug: str,
        *,
        store: str | None = None,
        add_tags: Sequence[str] = (),
        remove_tags: Sequence[str] = (),
        belongs_because: str | None = None,
        keep: str | None = None,
        may_fade: str | None = None,
    ) -> Memory:
        """Set the curation of an existing memory: tags and the three sentences (None leaves
        a sentence as it is, "" clears it). Through the same floors as the distiller's text,
        vouched by the memory's own text and its evidence manifest; written through the
        store's crash-safe write path. Refused on a frozen store."""
        from .curation import Curation, check_curation, manifest_of

        name = self.registry.resolve(store)
        if self.registry.config.stores[name].write_policy == WritePolicy.FROZEN:
            raise PolicyError(f"store {name!r} is frozen: nothing is written to it")
        st = self.registry.store(name)
        mem = st.read(slug)
        cur = Curation(belongs_because, keep, may_fade).given()
        drop = set(remove_tags)
        missing = [t for t in drop if t not in mem.tags]
        if missing:
            raise KuraError(
                f"{slug} has no tag {missing[0]!r} to remove (its tags: "
                f"{', '.join(mem.tags) or 'none'})"
            )
        tags = [t for t in mem.tags if t not in drop] + [t for t in add_tags if t not in mem.tags]
        tags = list(dict.fromkeys(tags))
        if not cur and not add_tags and not drop:
            raise KuraError(
                "nothing to annotate: give --tag, --untag, --belongs-because, --keep or --may-fade"
            )
        new_tags = [t for t in tags if t not in mem.tags]
        check_curation(
            st,
            slug=slug,
            description=mem.description,
            body=mem.body,
            manifest_ref=manifest_of(mem),
            sentences=cur,
            tags=new_tags,
            allowed_tags=mem.tags,
            human_names=self.registry.config.stores[name].distill.human_names,
        )
        entry = st.index().by_slug().get(slug)
        meta = _curation_meta(cur)
        meta.setdefault("metadata", {})["tags"] = tags
        return st.write(
            slug,
            title=entry.title if entry else mem.title,
            description=mem.description,
            body=mem.body,
            type=mem.type,
            tags=tags,
            meta=meta,
        )

    # ---- curation: what a person does by hand (see kura_core.handwork) ----------
    # Each returns frozen values; long work takes progress/should_stop so a face can show
    # how far it is and stop it at a safe point.

    def memory(self, slug: str, *, store: str | None = None) -> MemoryView:
        """One memory with its provenance (gated / hand-edited), evidence, links in, history."""
        from .handwork.memories import memory_view

        return memory_view(self.registry, self.registry.resolve(store), slug)

    @_recorded("edit")
    def edit_memory(
        self,
        slug: str,
        *,
        store: str | None = None,
        base: str,
        by: str = "hand",
        title: str | None = None,
        description: str | None = None,
        body: str | None = None,
        type: str | None = None,
        tags: Sequence[str] | None = None,
        curation: Mapping[str, str | None] | None = None,
    ) -> EditResult:
        """A hand edit: written with its index line, passes no gate, recorded as a hand edit.
        *base* is MemoryView.base of the text the person started from."""
        from .handwork.memories import edit_memory

        return edit_memory(
            self.registry,
            self.registry.resolve(store),
            slug,
            base=base,
            title=title,
            description=description,
            body=body,
            type=type,
            tags=tags,
            curation=curation,
            by=by,
        )

    @_recorded("retire")
    def retire(
        self,
        slug: str,
        reason: str,
        *,
        store: str | None = None,
        by: str = "hand",
        links: str = "keep",
        redirect_to: str = "",
    ) -> RetireResult:
        """Remove a memory and its index line together; the gate log keeps it, who and why.
        The links to it are kept, unlinked (plain text) or redirected to *redirect_to*."""
        from .handwork.memories import retire

        return retire(
            self.registry,
            self.registry.resolve(store),
            slug,
            reason,
            by=by,
            links=links,
            redirect_to=redirect_to,
        )

    def body_warning(self, body: str, *, store: str | None = None) -> str:
        """A warning when *body* is far over the store's body budget (its whole recall
        context); "" when it is within. For a face to show before it saves."""
        from .doctor import body_warning

        name = self.registry.resolve(store)
        return body_warning(body, self.registry.config.stores[name].recall.chars)

    @_recorded("adopt")
    def adopt(self, *, store: str | None = None) -> Adopted:
        """Write the index line of every memory file that has none, through the floors."""
        from .handwork.adopt import adopt

        return adopt(self.registry, self.registry.resolve(store))

    @_recorded("relink")
    def relink(
        self, target: str, *, to: str = "", store: str | None = None, by: str = "hand"
    ) -> tuple[str, ...]:
        """Rewrite every link to *target*: to memory *to*, or as plain text when *to* is empty
        (the fix for links that point at nothing). Returns the memories rewritten."""
        from .handwork.memories import relink

        return relink(self.registry, self.registry.resolve(store), target, to=to, by=by)

    def map_view(self, *, store: str | None = None) -> MapView:
        """The map hosts wear now, line by line with its layer, title and tags."""
        from .handwork.maps import map_view

        return map_view(self.registry, self.registry.resolve(store))

    def weave_preview(self, *, store: str | None = None) -> WeavePreview:
        """The map a weave would write, against the current one. Writes nothing."""
        from .handwork.maps import weave_preview

        return weave_preview(self.registry, self.registry.resolve(store))

    def weave_write(self, *, store: str | None = None, index_sha256: str = "") -> WeaveResult:
        """Weave and write; refused when the index changed since the preview it confirms."""
        from .handwork.maps import weave_write

        return weave_write(self.registry, self.registry.resolve(store), index_sha256=index_sha256)

    def drafts(self, *, store: str | None = None) -> DraftsView:
        """Waiting drafts, unreadable draft files, and what each extension changes."""
        from .handwork.drafts import drafts_view

        return drafts_view(self.registry, self.registry.resolve(store))

    @_recorded("pour")
    def pour(self, slug: str, *, store: str | None = None, by: str = "hand") -> Memory:
        from .distill.drafts import pour

        return pour(self.registry, store, slug, by=by)

    def toss(self, slug: str, reason: str, *, store: str | None = None, by: str = "hand") -> None:
        from .distill.drafts import toss

        toss(self.registry, store, slug, reason, by=by)

    def fix(self, slug: str, *, store: str | None = None, by: str = "hand", **fields: Any) -> Draft:
        """Edit a draft; the floor runs again (FloorRefused names what it refuses)."""
        from .distill.drafts import fix

        return fix(self.registry, store, slug, by=by, **fields)

    def gate_log(self, *, store: str | None = None, limit: int = 500) -> tuple[GateEntry, ...]:
        """The newest *limit* lines of the store's gate log, newest first."""
        if not self.registry.store(store).still.is_dir():
            return ()
        return tuple(
            GateEntry.from_row(r) for r in self.registry.workshop(store).gate_log(limit=limit)
        )

    def seed_list(self, *, store: str | None = None) -> tuple[Seed, ...]:
        """Every seed with where it came from, what confirmed it, and who dismissed it."""
        from .handwork.seeds import seed_list

        return seed_list(self.registry, self.registry.resolve(store))

    def revive_seed(self, seed_id: int, *, store: str | None = None, by: str = "hand") -> Seed:
        """Put a withered idea back among the waiting ideas (checked again, afresh)."""
        from .handwork.seeds import revive_seed

        return revive_seed(self.registry, self.registry.resolve(store), seed_id, by=by)

    def wither_seeds(self, *, store: str | None = None) -> int:
        """Wither the waiting ideas past [distill] seed_wither_days or seed_wither_checks."""
        from .distill.pipeline import wither_seeds

        return wither_seeds(self.registry, self.registry.resolve(store))

    def dismiss_seed(
        self, seed_id: int, reason: str = "", *, store: str | None = None, by: str = "hand"
    ) -> Seed:
        from .handwork.seeds import dismiss_seed

        return dismiss_seed(self.registry, self.registry.resolve(store), seed_id, reason, by=by)

    def tidy_review(
        self,
        *,
        store: str | None = None,
        progress: Callable[[Any], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> TidyReview:
        """Weak index lines with the scribe's rewrites, to review one by one. Writes nothing."""
        from .handwork.tidy import tidy_review

        return tidy_review(
            self.registry, self.registry.resolve(store), progress=progress, should_stop=should_stop
        )

    @_recorded("tidy")
    def apply_tidy(
        self, slug: str, line: str, *, expected: str, store: str | None = None, by: str = "hand"
    ) -> str:
        from .handwork.tidy import apply_tidy

        return apply_tidy(
            self.registry, self.registry.resolve(store), slug, line, expected=expected, by=by
        )

    def reject_tidy(
        self, slug: str, proposed: str, *, store: str | None = None, by: str = "hand"
    ) -> None:
        from .handwork.tidy import reject_tidy

        reject_tidy(self.registry, self.registry.resolve(store), slug, proposed, by=by)

    def needs(self, kind: str, *, store: str | None = None) -> str:
        """Why distil, drain or a profile draft cannot run on this store, or why recall
        answers by words ('' when each has the model it needs)."""
        from .handwork.runs import needs

        return needs(self.registry, self.registry.resolve(store), kind)

    def distil(
        self,
        *,
        store: str | None = None,
        progress: Callable[[Any], None] | None = None,
        max_batches: int | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Outcome:
        """Drink what is new in the store's journals into drafts (as `kura distill run`)."""
        from .handwork.runs import distil

        return distil(
            self.registry,
            self.registry.resolve(store),
            progress=progress,
            should_stop=should_stop,
            max_batches=max_batches,
        )

    @_recorded(who="drain judge")
    def drain(
        self,
        *,
        store: str | None = None,
        progress: Callable[[Any], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Outcome:
        """The scribe reads every waiting draft cold: pour, fix or toss (as `kura distill drain`)."""
        from .handwork.runs import drain

        return drain(
            self.registry, self.registry.resolve(store), progress=progress, should_stop=should_stop
        )

    # ---- wiring into agents (kura_core.connect) ---------------------------
    def connect_plan(
        self,
        agent: str,
        *,
        store: str | None = None,
        deadline: float | None = None,
        recall: bool = False,
        url: str = "",
        where: Any = None,
    ) -> Any:
        """What ``kura connect AGENT`` would change, as a :class:`kura_core.connect.Plan`
        (nothing written). The store is resolved here: an unknown name is refused."""
        from . import connect

        where = where or connect.Where.here()
        name = self.registry.resolve(store)
        if url == "auto":
            server = self.registry.config.server
            url = f"http://{server.host}:{server.port}/s/{name}/mcp"
        wiring = connect.wiring_for(
            self.registry.config,
            name,
            deadline=connect.DEFAULT_DEADLINE if deadline is None else deadline,
            recall=recall,
            url=url,
            where=where,
        )
        return connect.plan(agent, self.registry.config, wiring, where)

    def connect_apply(self, plan: Any, *, where: Any = None) -> Any:
        """Write a plan from :meth:`connect_plan`, keeping backups and the ledger."""
        from . import connect
        from .connect.hook import keep_map, map_of

        where = where or connect.Where.here()
        done = connect.apply(plan, where, self.registry.clock)
        store = plan.wiring.store
        try:  # the first session starts from this map without opening the store
            text, paths = map_of(self.registry, store)
            keep_map(where, str(plan.wiring.config), store, text, paths)
        except (KuraError, RuntimeError, OSError):
            pass  # the hook builds it itself, and logs why it could not
        return done

    @staticmethod
    def connect_undo(agent: str, *, where: Any = None) -> Any:
        """Take kura out of *agent* again (needs no config: it reads kura's ledger)."""
        from . import connect

        return connect.undo(agent, where or connect.Where.here())

    @staticmethod
    def connect_plugin_dir() -> Path:
        """The Claude Code plugin marketplace shipped in the package."""
        from .connect import plugin_dir

        return plugin_dir()

    @staticmethod
    def hook(argv: list[str]) -> int:
        """``kura hook EVENT --agent A …``: what an agent's hook runs (fail-open, a hard
        deadline, silent on trouble; see kura_core.connect.hook). Always 0."""
        from .connect.hook import main

        return main(argv)

    @staticmethod
    def connect_status(*, where: Any = None) -> Any:
        """Every agent: which store it is wired to, and whether that still matches."""
        from . import connect

        return connect.status(where or connect.Where.here())

    def tend_status(self, *, store: str | None = None, lines: int = 200) -> TendStatus:
        """The tender: running or not, its last tick, what it rests, the tail of its log."""
        from .handwork.tender import tend_status

        return tend_status(self.registry, self.registry.resolve(store), lines=lines)

    @staticmethod
    def journal_adapters() -> tuple[str, ...]:
        """The name of every journal adapter, built-in and plug-in."""
        from .distill.journals.registry import names

        return names()

    @staticmethod
    def journal_roots_here(platform: str | None = None) -> list[tuple[str, str, bool]]:
        """``(adapter, root, exists)`` for every place an agent keeps its journals on this
        OS, as each adapter declares it -- what ``kura init`` and the journals pane offer."""
        from .distill.journals import default_roots

        return [
            (adapter, root, Path(root).expanduser().is_dir())
            for adapter, roots in default_roots(platform).items()
            for root in roots
        ]

    def journals(self, *, store: str | None = None) -> JournalsView:
        """The journals a store drinks: watermarks, backlog, held and shelved stretches."""
        from .handwork.journals import journals

        return journals(self.registry, self.registry.resolve(store))

    def journal_excerpt(
        self,
        source: str,
        position: int,
        *,
        store: str | None = None,
        unit: str = "",
        around: int = 4,
    ) -> JournalExcerpt:
        """The journal around a piece of evidence, read with the store's own adapter."""
        from .handwork.journals import journal_excerpt

        return journal_excerpt(
            self.registry, self.registry.resolve(store), source, position, unit=unit, around=around
        )


def _load_candidates(path: Path) -> list[Any]:
    """Candidates from a JSON file: ``{"candidates": [...]}`` or a bare list of objects."""
    import json

    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KuraError(f"--candidates {path}: no such file") from None
    except UnicodeDecodeError:
        raise KuraError(f"--candidates {path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise KuraError(f"--candidates {path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError:
        raise KuraError(f"--candidates {path}: holds a figure too long to be a number") from None
    cands = raw.get("candidates") if isinstance(raw, dict) else raw
    if not isinstance(cands, list) or not all(isinstance(c, dict) for c in cands):
        raise KuraError(
            '--candidates must hold {"candidates": [{...}, ...]} (the kura_candidates shape)'
        )
    return cands


def _curation_meta(cur: dict[str, str]) -> dict[str, Any]:
    """Frontmatter for curation sentences (a cleared one is written empty: the write path
    keeps every key it does not set, so an empty sentence is how a clear is written)."""
    return {k: " ".join(v.split()) for k, v in cur.items()}


def _init_history(store: Any, wanted: bool) -> str:
    """A new store's history: on (a repository), off by choice, or why there is none."""
    if not wanted:
        return "off"
    if not history.available():
        return history.GIT_MISSING
    history.enable(store)
    return "on"
