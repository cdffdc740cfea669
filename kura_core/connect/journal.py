"""The agent's transcripts as a journal root of the chosen store, and of that store only.

kura.toml gains ``[stores.NAME.journals.ADAPTER] root = "…"`` at its end: the store's own
table, so with two or more stores no other store drinks it (SPEC: journals are never shared
by accident). A single store that drank the global ``[distill.journals]`` keeps them: its
table gains ``inherit_global_journals = true`` in the same change.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from ..config import Config, adapter_names, parse_config
from ..errors import ConfigError
from .base import FileChange, Undo, read_bytes
from .tomledit import TomlEditError, append_table, loads, lookup, remove_table, set_in_table


def _covers(root: Path, path: Path) -> bool:
    a, b = Path(os.path.realpath(root)), Path(os.path.realpath(path))
    return a == b or a in b.parents


def journal_change(
    config: Config, store: str, adapter: str, root: Path | None, previous: str = ""
) -> tuple[FileChange | None, str]:
    """The kura.toml change that makes *store* drink *root* with *adapter*, and a note.
    *previous* is the store an earlier connect of this agent wired: the table it added
    there goes, so a re-wired agent's transcripts are not drunk by both stores."""
    if config.source is None:
        return None, "no kura.toml to add the journal to"
    if adapter and root is None:
        return None, (
            f"this agent keeps its transcripts in each project: add a project's folder as a "
            f"{adapter} journal (connect from inside the project, or list it under "
            "[distill.journals] in kura.toml)"
        )
    if not adapter or root is None:
        return None, "this agent's transcripts have no journal reader in kura"
    if adapter not in adapter_names():
        return None, f"kura has no {adapter!r} journal reader yet; transcripts are not drunk"
    spec = config.stores[store]
    path = config.source
    before = read_bytes(path)
    text = (before or b"").decode("utf-8")
    where = str(path)
    undo: list[Undo] = []
    what: list[str] = []
    try:
        old = ("stores", previous, "journals", adapter)
        if (
            previous
            and previous != store
            and lookup(loads(text, where), old) == {"root": str(root)}
        ):
            text = remove_table(text, old, where)
            what.append(f"store {previous!r} no longer drinks the {adapter} transcripts")
        same = [j for j in spec.distill.journals if j.adapter == adapter]
        if any(_covers(j.root, root) for j in same):
            if not what:
                return None, f"store {store!r} already drinks {adapter} journals from {root}"
            return _change(path, before, text, what, undo), ""
        if spec.journals_from == "global" and not spec.inherit_global_journals:
            text = set_in_table(text, ("stores", store), "inherit_global_journals", True, where)
            undo.append(Undo("key", ("stores", store, "inherit_global_journals")))
            what.append(f"store {store!r} keeps drinking the global journals")
        keys = ("stores", store, "journals", adapter)
        text = append_table(text, keys, {"root": str(root)}, where)
        undo.append(Undo("table", keys))
        what.append(f"journal root of store {store!r}: {adapter} transcripts in {root}")
        # the config module's own checks: a root inside a store, an unknown adapter, …
        parse_config(tomllib.loads(text), source=path)
    except (TomlEditError, ConfigError) as exc:
        return None, f"journal not added ({exc})"
    return _change(path, before, text, what, undo), ""


def _change(
    path: Path, before: bytes | None, text: str, what: list[str], undo: list[Undo]
) -> FileChange:
    return FileChange(path, before, text.encode("utf-8"), tuple(what), tuple(undo), "toml")
