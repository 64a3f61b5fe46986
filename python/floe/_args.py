"""The argument types and checks that floe's modules share (``floe.catalog``,
``floe.table``, ``floe.delta``): internal, not part of the API."""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Union

from . import _errors, _floe
from ._results import WriteProgress

#: A table name: "ns.table", "a.b.table", or a tuple of its parts.
Identifier = Union[str, Sequence[str]]
#: A namespace: "ns", "a.b", or a tuple of its levels.
NamespaceName = Union[str, Sequence[str]]
#: A duration: milliseconds, a timedelta, or text such as "7d", "12h", "30m".
Duration = Union[int, _dt.timedelta, str]
Progress = Union[bool, Callable[[WriteProgress], Any], None]


def namespace_levels(namespace: NamespaceName) -> list[str]:
    if isinstance(namespace, str):
        return namespace.split(".") if namespace else []
    if isinstance(namespace, Iterable):
        levels = list(namespace)
        if all(isinstance(level, str) for level in levels):
            return levels
    raise TypeError(f"a namespace is a str or a tuple of str, not {namespace!r}")


def split_identifier(identifier: Identifier) -> tuple[list[str], str]:
    parts = namespace_levels(identifier)
    if len(parts) < 2:
        raise ValueError(
            f"a table identifier needs a namespace and a name ('db.table'), not {identifier!r}"
        )
    return parts[:-1], parts[-1]


def string_options(options: Mapping[str, Any] | None, what: str = "options") -> dict[str, str]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"{what} must be a mapping of str to str, not {type(options).__name__}")
    out = {}
    for key, value in options.items():
        if not isinstance(key, str):
            raise TypeError(f"{what} keys must be str, not {type(key).__name__}")
        out[key] = value if isinstance(value, str) else json.dumps(value)
    return out


def byte_size(value: int | str | None, what: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"{what} must be an int or text such as '2G', not {type(value).__name__}")
    if isinstance(value, str):
        return int(_floe.parse_byte_size(value))
    if value < 0:
        raise ValueError(f"{what} must be non-negative")
    return value


def duration_ms(value: Duration, what: str) -> int:
    if isinstance(value, _dt.timedelta):
        ms = int(value.total_seconds() * 1000)
    elif isinstance(value, str):
        ms = int(_floe.parse_duration_ms(value))
    elif isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be milliseconds, a timedelta or text such as '7d'")
    else:
        ms = value
    if ms < 0:
        raise _errors.InvalidInputError(f"{what} cannot be negative ({value!r})")
    return ms


def thread_count(threads: int | None) -> int:
    """The write tasks to run; None (the default) is 0, one per core."""
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int or None, not {type(threads).__name__}")
    if not 1 <= threads <= 256:
        raise ValueError(
            f"threads must be between 1 and 256 (or None: one per core), not {threads}"
        )
    return threads


def write_args(
    options: Mapping[str, Any] | None, threads: int | None, memory_limit: int | str | None
) -> Any:
    args = _floe.WriteArgs()
    args.options = string_options(options)
    args.threads = thread_count(threads)
    args.memory_limit = byte_size(memory_limit, "memory_limit")
    return args


def where_text(where: str | None, required: bool) -> str:
    if where is None:
        if required:
            raise ValueError("where is required (a filter such as \"region = 'eu'\")")
        return ""
    if not isinstance(where, str):
        raise TypeError(f"where must be a filter string, not {type(where).__name__}")
    return where


def literal_text(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        # The spellings a floating-point column takes (quoted, as Spark's casts read them).
        return "'NaN'" if math.isnan(value) else ("'Infinity'" if value > 0 else "'-Infinity'")
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "X'" + bytes(value).hex().upper() + "'"  # a binary column's literal
    return "'" + str(value).replace("'", "''") + "'"


def assignments_text(set: str | Mapping[str, Any]) -> str:
    """An update's ``set``: the text as given, or a mapping written as that text."""
    if isinstance(set, str):
        return set
    if not isinstance(set, Mapping):
        raise TypeError(f"set must be a string or a mapping, not {type(set).__name__}")
    if not set:
        raise ValueError("set names no column")
    parts = []
    for name, value in set.items():
        if not isinstance(name, str):
            raise TypeError(f"set's column names must be strings, not {type(name).__name__}")
        parts.append(f"{name} = {literal_text(value)}")
    return ", ".join(parts)
