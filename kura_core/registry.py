"""Stores and modes held by one process, and how a selector finds one.

A selector is a store name or a mode name. It is chosen by the host before the
conversation; nothing here ever reads a message to guess. An unknown selector is an
error at the door, never a silent fallback to the default store, and the error never
lists the other stores (they are none of the caller's business).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .config import Config, StoreConfig, load_config, parse_config
from .errors import SelectorError
from .llm import ROLES, ModelClient
from .store import Store
from .workshop import Workshop

PATH_PREFIX = "/s/"


class Registry:
    """Everything one kura process holds: config, stores, workshops, model clients."""

    def __init__(
        self,
        config: Config,
        *,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.time,
        today: Callable[[], dt.date] = dt.date.today,
    ):
        self.config = config
        self.env = dict(os.environ if env is None else env)
        self.clock = clock
        self.today = today
        self._lock = threading.Lock()
        self._stores: dict[str, Store] = {}
        self._workshops: dict[str, Workshop] = {}
        self._models: dict[str, ModelClient] = {}

    # ---- construction ----------------------------------------------------
    @classmethod
    def open(cls, config_path: str | os.PathLike | None = None, **kw: Any) -> Registry:
        env = kw.get("env")
        return cls(load_config(config_path, env), **kw)

    @classmethod
    def for_path(cls, path: str | os.PathLike, name: str = "", **kw: Any) -> Registry:
        """A registry holding exactly one store at *path* (no config file needed)."""
        p = Path(path).expanduser()
        name = name or _safe_name(p.name)
        cfg = parse_config({"stores": {name: {"path": str(p.resolve())}}}, source=None)
        return cls(cfg, **kw)

    # ---- selectors -------------------------------------------------------
    def names(self) -> list[str]:
        return list(self.config.stores)

    def resolve(self, selector: str | None = None) -> str:
        """Store name for a store or mode selector; the default store for None/''."""
        if selector is None or selector == "":
            name = self.config.default_store
            if not name:
                raise SelectorError(
                    "no stores are configured: run `kura init NAME --path DIR` or add a "
                    "[stores.NAME] table to kura.toml"
                )
            return name
        if not isinstance(selector, str):
            raise SelectorError("a store selector must be a name")
        if selector in self.config.stores:
            return selector
        if selector in self.config.modes:
            return self.config.modes[selector]
        shown = selector if len(selector) <= 40 else selector[:37] + "..."
        raise SelectorError(f"no store or mode named {shown!r} here")

    def spec(self, selector: str | None = None) -> StoreConfig:
        return self.config.stores[self.resolve(selector)]

    def store(self, selector: str | None = None) -> Store:
        name = self.resolve(selector)
        with self._lock:
            s = self._stores.get(name)
            if s is None:
                sc = self.config.stores[name]
                s = Store(
                    sc.path,
                    name=name,
                    charter_path=sc.charter,
                    today=self.today,
                    secrets=sc.secrets,
                )
                self._stores[name] = s
            return s

    def workshop(self, selector: str | None = None) -> Workshop:
        name = self.resolve(selector)
        with self._lock:
            w = self._workshops.get(name)
            if w is None:
                w = Workshop(self.config.stores[name].path / "_still", clock=self.clock)
                self._workshops[name] = w
            return w

    def models(self, selector: str | None = None) -> ModelClient:
        """The model client for a store. Each store has its own, recording into its workshop."""
        name = self.resolve(selector)
        with self._lock:
            m = self._models.get(name)
        if m is None:
            ws = self.workshop(name)
            m = ModelClient(
                self.config.models,
                env=self.env,
                recorder=ws.record_call,
                clock=self.clock,
                dialects=ws,
            )
            with self._lock:
                m = self._models.setdefault(name, m)
        return m

    def modes_of(self, name: str) -> list[str]:
        return [m for m, s in self.config.modes.items() if s == name]

    def describe(self) -> dict[str, Any]:
        """Stores, modes and which model fills each role. Never a secret."""
        roles = {}
        for role in ROLES:
            spec = self.config.models.get(role)
            roles[role] = (
                {
                    "url": spec.url,
                    "model": spec.model,
                    "dialect": spec.dialect,
                    "api_key_env": spec.api_key_env or None,
                }
                if spec
                else None
            )
        return {
            "default": self.config.default_store,
            "stores": [
                {
                    "name": n,
                    "label": s.label,
                    "path": str(s.path),
                    "write_policy": s.write_policy,
                    "modes": self.modes_of(n),
                }
                for n, s in self.config.stores.items()
            ],
            "modes": dict(self.config.modes),
            "models": roles,
        }

    def close(self) -> None:
        with self._lock:
            for m in self._models.values():
                m.close()
            for w in self._workshops.values():
                w.close()
            self._models.clear()


def split_path_prefix(path: str) -> tuple[str | None, str]:
    """'/s/eq/doctor' -> ('eq', '/doctor'); other paths -> (None, path)."""
    if not path.startswith(PATH_PREFIX):
        return None, path
    rest = path[len(PATH_PREFIX) :]
    name, _, tail = rest.partition("/")
    return name, "/" + tail


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _safe_name(s: str) -> str:
    cleaned = _UNSAFE.sub("-", s).strip("-_")
    return cleaned or "store"
