"""Frozen reports, built up by a mutable tally.

Long work (a distil run, a drain, a tidy) counts what it does as it goes; what it hands to a
face must not change afterwards. :func:`tally_of` makes, for a frozen report dataclass, a
mutable twin with the same fields (tuples as lists, mappings as dicts) whose ``freeze()``
returns the report. The field list is written once, on the report.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import typing
from types import MappingProxyType
from typing import Any


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, MappingProxyType):
        return dict(value)
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return MappingProxyType(dict(value))
    return value


def tally_of(report: type) -> type:
    """A mutable class with the fields of the frozen dataclass *report*; ``freeze()`` on an
    instance gives the *report* (lists become tuples, dicts read-only mappings)."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    hints = typing.get_type_hints(report)
    for f in dataclasses.fields(report):
        hint = hints.get(f.name)
        origin = typing.get_origin(hint)
        if origin is tuple or hint is tuple:
            fields.append((f.name, list, dataclasses.field(default_factory=list)))
        elif origin in (dict, collections.abc.Mapping) or f.default_factory is dict:
            fields.append((f.name, dict, dataclasses.field(default_factory=dict)))
        elif f.default is not dataclasses.MISSING:
            fields.append((f.name, Any, dataclasses.field(default=_plain(f.default))))
        else:
            fields.append((f.name, Any))

    def freeze(self: Any) -> Any:
        return report(
            **{f.name: _frozen(getattr(self, f.name)) for f in dataclasses.fields(report)}
        )

    return dataclasses.make_dataclass(
        f"{report.__name__}Tally", fields, namespace={"freeze": freeze}
    )
