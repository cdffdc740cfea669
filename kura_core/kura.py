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

from .errors import PolicyError
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
    def stores(self) -> dict[str, Any]:
        return self.registry.describe()

    def read(self, slug: str, *, store: str | None = None) -> Memory:
        return self.registry.store(store).read(slug)

    def index(self, *, store: str | None = None) -> str:
        return self.registry.store(store).index_text()

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
