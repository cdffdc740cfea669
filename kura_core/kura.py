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

import os
from typing import Any, Sequence

from .errors import KuraError, PolicyError
from .registry import Registry
from .store import Memory


class Kura:
    def __init__(self, registry: Registry):
        self.registry = registry

    @classmethod
    def open(cls, config: str | os.PathLike | None = None, **kw: Any) -> "Kura":
        return cls(Registry.open(config, **kw))

    @classmethod
    def open_store(cls, path: str | os.PathLike, name: str = "", **kw: Any) -> "Kura":
        return cls(Registry.for_path(path, name, **kw))

    def close(self) -> None:
        self.registry.close()

    def __enter__(self) -> "Kura":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- reading ---------------------------------------------------------
    def stores(self, *, probe: bool = False) -> dict[str, Any]:
        """Stores (with counts), modes, and which model fills each role with its last error;
        with *probe*, whether each endpoint answers now. Never a secret."""
        reg = self.registry
        info = reg.describe()
        info["stores"] = self.overview()
        calls: dict[str, dict[str, Any]] = {}
        for s in info["stores"]:
            if s["exists"]:
                try:
                    recorded = reg.workshop(s["name"]).model_calls()
                except KuraError:
                    recorded = {}  # a busy, read-only or missing workshop never takes /stores down
                for role, c in recorded.items():
                    if c.get("last_error_at") and (role not in calls
                                                   or c["last_error_at"] > calls[role]["last_error_at"]):
                        calls[role] = c
        client = reg.models(reg.names()[0]) if probe and reg.names() else None
        for role, spec in info["models"].items():
            if spec is None:
                continue
            c = calls.get(role)
            spec["last_error"] = c["last_error"] if c and (c.get("last_ok_at") or 0) < c["last_error_at"] else None
            if client is not None:
                spec["reachable"], spec["reason"] = client.probe(role)
        return info

    def overview(self) -> list[dict[str, Any]]:
        """Every store with its cheap counts (no memory is parsed): for lists and pickers."""
        info = self.registry.describe()
        out = []
        for s in info["stores"]:
            st = self.registry.store(s["name"])
            drafts = st.still / "drafts"
            out.append({**s, "default": s["name"] == info["default"],
                        "exists": st.index_path.is_file(),
                        "memories": len(st.file_slugs()),
                        "drafts_waiting": len(list(drafts.glob("*.md"))) if drafts.is_dir() else 0})
        return out

    def seeds(self, *, store: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Ideas waiting in the seeds table (newest first); they never enter the store."""
        if not self.registry.store(store).still.is_dir():
            return []
        rows = self.registry.workshop(store).query(
            "SELECT id, at, title, body, state, source FROM seeds ORDER BY id DESC LIMIT ?", (limit,))
        return [dict(r) for r in rows]

    def read(self, slug: str, *, store: str | None = None) -> Memory:
        return self.registry.store(store).read(slug)

    def index(self, *, store: str | None = None) -> str:
        return self.registry.store(store).index_text()

    def profile(self, *, store: str | None = None) -> dict[str, Any]:
        """The store's charter text, and where its persona file is (never the persona itself)."""
        name = self.registry.resolve(store)
        spec = self.registry.config.stores[name]
        st = self.registry.store(name)
        persona = None
        if spec.persona:
            p = os.path.expanduser(spec.persona)
            if not os.path.isabs(p) and self.registry.config.source is not None:
                p = os.path.join(os.path.dirname(self.registry.config.source), p)
            persona = {"path": p, "exists": os.path.isfile(p)}
        return {"store": name, "charter": st.charter(), "charter_path": str(st.charter_path),
                "persona": persona}

    def writable(self, *, store: str | None = None) -> bool:
        """Whether direct writes (remember) are allowed: write_policy = "direct-allowed"."""
        name = self.registry.resolve(store)
        return self.registry.config.stores[name].write_policy == "direct-allowed"

    def doctor(self, *, store: str | None = None, probe: bool = False) -> dict[str, Any]:
        from .doctor import diagnose

        return diagnose(self.registry, store, probe=probe)

    def doctor_all(self, *, probe: bool = False) -> dict[str, Any]:
        from .doctor import diagnose_all

        return diagnose_all(self.registry, probe=probe)

    def recall(self, question: str, *, store: str | None = None, hops: int | None = None,
               top: int | None = None, chars: int | None = None):
        """Recall by meaning; degraded to words (labelled) when the thinker cannot answer."""
        from .recall import recall

        return recall(self.registry, store, question, hops=hops, top=top, chars=chars)

    def weave(self, *, store: str | None = None):
        """Re-weave the store's resident map (see kura_core.weave)."""
        from .weave import weave

        return weave(self.registry, store)

    def prefill(self, *, store: str | None = None):
        """The resident map block a host injects (see kura_core.prefill)."""
        from .prefill import build_prefill

        return build_prefill(self.registry, store)

    # ---- writing ---------------------------------------------------------
    def remember(self, slug: str, description: str, body: str, *, store: str | None = None,
                 type: str = "", title: str = "", tags: Sequence[str] = ()) -> Memory:
        """A direct write, allowed only when the store's write_policy is direct-allowed."""
        name = self.registry.resolve(store)
        policy = self.registry.config.stores[name].write_policy
        if policy != "direct-allowed":
            raise PolicyError(
                f"store {name!r} has write_policy {policy!r}: direct writes are refused. "
                "Memories enter through the distiller (kura distill), or set "
                f"write_policy = \"direct-allowed\" under [stores.{name}]"
            )
        st = self.registry.store(name)
        if not st.index_path.is_file():
            raise PolicyError(f"store {name!r} does not exist yet: run `kura init {name} --path {st.root}`")
        return st.write(slug, title=title or slug.replace("-", " "), description=description,
                        body=body, type=type or "project", tags=tags, create_only=False)
