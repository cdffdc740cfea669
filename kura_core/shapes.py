"""Reading one field of parsed JSON or YAML whose shape is not trusted.

Journals, frontmatter and model replies are written by other programs and by hand; a
field that should hold a mapping may hold a string, a list or nothing. These readers
return the field when it has the expected shape and an empty value of that shape when it
does not, so callers read nested fields without a chain of ``isinstance`` checks and the
type checker knows what they hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def dict_at(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``obj[key]`` when it is a mapping, else an empty dict."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def str_at(obj: Mapping[str, Any], key: str, default: str = "") -> str:
    """``obj[key]`` when it is a string, else *default*."""
    value = obj.get(key)
    return value if isinstance(value, str) else default


def list_at(obj: Mapping[str, Any], key: str) -> list[Any]:
    """``obj[key]`` when it is a list, else an empty list."""
    value = obj.get(key)
    return value if isinstance(value, list) else []
