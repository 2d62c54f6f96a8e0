"""The shape of a JSON report (``gbot-robots-report/1``), as its two readers need it.

A report is a file a user may edit, truncate or get from elsewhere, so its readers trust no
field's type. This module describes every field they read, once, in the terms of
``docs/report.md`` (an object's unknown fields are allowed, and so are missing optional ones:
some exist only in observe mode, or only in newer reports of the same schema):

- :func:`problem` names the first field whose type is wrong (``origins[0].usage is a list,
  expected an object or null``): ``gbot-robots report`` refuses such a file with exit status
  2 and that one line, instead of an ``AttributeError`` and a traceback;
- :func:`conform` returns a copy without the fields (and list items) of the wrong type, so the
  HTML page renders any report, showing what is usable and nothing of the rest.

Pure: the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

#: Returned by a spec's ``conform`` for a value that does not fit: the caller drops it.
_DROP: Any = object()


class Spec:
    """What one value must be (subclasses say it in words in ``expected``, for the error line)."""

    def problem(self, value: Any, path: str) -> str | None:
        """``None`` when ``value`` fits, else one line naming ``path`` and what was wrong."""
        raise NotImplementedError

    def conform(self, value: Any) -> Any:
        """``value`` with its misfitting parts dropped, or ``_DROP`` when it does not fit."""
        raise NotImplementedError


def _kind(value: Any) -> str:
    """A JSON value's type in the words of the error line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


@dataclass(frozen=True)
class Scalar(Spec):
    expected: str
    fits: Callable[[Any], bool]

    def problem(self, value: Any, path: str) -> str | None:
        return None if self.fits(value) else f"{path} is {_kind(value)}, expected {self.expected}"

    def conform(self, value: Any) -> Any:
        return value if self.fits(value) else _DROP


@dataclass(frozen=True)
class Nullable(Spec):
    """``inner``, or null."""

    inner: Spec

    def problem(self, value: Any, path: str) -> str | None:
        found = None if value is None else self.inner.problem(value, path)
        if found is not None and found.startswith(f"{path} is "):  # not a field inside it
            return found + " or null"
        return found

    def conform(self, value: Any) -> Any:
        return None if value is None else self.inner.conform(value)


@dataclass(frozen=True)
class Obj(Spec):
    """An object: known fields checked, unknown ones kept; ``required`` must be present."""

    fields: dict[str, Spec]
    required: frozenset[str] = field(default_factory=frozenset)
    expected: str = "an object"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return f"{path} is {_kind(value)}, expected {self.expected}"
        for name in sorted(self.required):
            if name not in value:
                return f"{path}.{name} is missing"
        for name, spec in self.fields.items():
            if name in value:
                found = spec.problem(value[name], f"{path}.{name}")
                if found is not None:
                    return found
        return None

    def conform(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return _DROP
        out = dict(value)
        for name, spec in self.fields.items():
            if name in out:
                kept = spec.conform(out[name])
                if kept is _DROP:
                    del out[name]
                else:
                    out[name] = kept
        if any(name not in out for name in self.required):
            return _DROP
        return out


@dataclass(frozen=True)
class Items(Spec):
    """A list whose every item fits ``item`` (``conform`` drops the others)."""

    item: Spec
    expected: str = "a list"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, list):
            return f"{path} is {_kind(value)}, expected {self.expected}"
        for i, item in enumerate(value):
            found = self.item.problem(item, f"{path}[{i}]")
            if found is not None:
                return found
        return None

    def conform(self, value: Any) -> Any:
        if not isinstance(value, list):
            return _DROP
        kept = (self.item.conform(item) for item in value)
        return [item for item in kept if item is not _DROP]


@dataclass(frozen=True)
class Mapping(Spec):
    """An object used as a table: any key, each value fitting ``value``."""

    value: Spec
    expected: str = "an object"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return f"{path} is {_kind(value)}, expected {self.expected}"
        for key, item in value.items():
            found = self.value.problem(item, f"{path}[{key!r}]")
            if found is not None:
                return found
        return None

    def conform(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return _DROP
        kept = ((key, self.value.conform(item)) for key, item in value.items())
        return {key: item for key, item in kept if item is not _DROP}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


INT = Scalar("an integer", _is_int)
NUMBER = Scalar("a number", _is_number)
STR = Scalar("a string", lambda v: isinstance(v, str))
BOOL = Scalar("a boolean", lambda v: isinstance(v, bool))
ANY = Scalar("anything", lambda v: True)
#: A JSON scalar: what a setting or a stat may be.
SCALAR = Scalar(
    "a string, a number, a boolean or null",
    lambda v: v is None or isinstance(v, (str, bool)) or _is_number(v),
)

_COUNTS = Obj({k: INT for k in ("allowed", "forbidden", "would_stop", "deferred", "dropped")})

_PREFERENCE = Obj(
    {
        "category": STR,
        "allowed": BOOL,
        "value": Nullable(STR),
        "mechanism": STR,
        "line": INT,
        "text": STR,
        "path": STR,
    }
)

_LINT = Obj(
    {
        "counts": Mapping(INT),
        "findings": Items(
            Obj(
                {
                    "code": STR,
                    "name": STR,
                    "severity": STR,
                    "count": INT,
                    "lines": Items(INT),
                },
                required=frozenset({"code", "name", "count"}),
            )
        ),
    }
)

RULE = Obj(
    {
        "rank": INT,
        "origin": STR,
        "line": INT,
        "rule": STR,
        "directive": STR,
        "value": STR,
        "pattern": STR,
        "group": STR,
        "token": STR,
        "by": STR,
        "forbidden": INT,
        "examples": Items(STR),
    },
    required=frozenset({"rank", "origin", "line", "rule", "forbidden"}),
)

ORIGIN = Obj(
    {
        "origin": STR,
        "robots_url": Nullable(STR),
        "state": STR,
        "reason": STR,
        "summary": STR,
        "status": Nullable(INT),
        "source": Nullable(STR),
        "chain": Items(Obj({"url": STR, "status": Nullable(INT), "error": Nullable(STR)})),
        "bytes": Nullable(INT),
        "truncated": BOOL,
        "sha256": Nullable(STR),
        "fetched_at": Nullable(STR),
        "refresh_at": Nullable(STR),
        "valid_seconds": Nullable(NUMBER),
        "good_at": Nullable(STR),
        "error_since": Nullable(STR),
        "errors": INT,
        "fetches": INT,
        "from_store": INT,
        "server_errors": INT,
        "lint": Nullable(_LINT),
        "usage": Nullable(Obj({"group": STR, "count": INT, "preferences": Items(_PREFERENCE)})),
        "requests": _COUNTS,
        "drop_reasons": Mapping(INT),
        "crawl_delay": Nullable(Obj({"asked": NUMBER, "applied": NUMBER})),
    },
    required=frozenset({"origin"}),
)

REPORT = Obj(
    {
        "schema": STR,
        "generated_at": Nullable(STR),
        "crawl": Obj(
            {
                "spider": Nullable(STR),
                "finish_reason": Nullable(STR),
                "user_agent": Nullable(STR),
                "start_time": Nullable(STR),
                "mode": STR,
                "global_group": BOOL,
                "uses": Items(STR),
                "stats": Mapping(SCALAR),
                "settings": Mapping(SCALAR),
            }
        ),
        "limits": Mapping(INT),
        "totals": Obj(
            {
                k: INT
                for k in (
                    "origins",
                    "checked",
                    "allowed",
                    "forbidden",
                    "would_stop",
                    "deferred",
                    "dropped",
                    "fetches",
                    "from_store",
                    "server_errors",
                    "rules",
                )
            }
        ),
        "origins_by_state": Mapping(INT),
        "folded": Obj(
            {
                "origins": INT,
                "rules": INT,
                "other_origins": Obj(
                    {
                        **{k: INT for k in _COUNTS.fields},
                        "by_state": Mapping(INT),
                    }
                ),
                "other_rules": Obj({"forbidden": INT}),
            }
        ),
        "rules": Items(RULE),
        "origins": Items(ORIGIN),
    },
    required=frozenset({"schema", "totals", "origins_by_state", "rules", "origins"}),
)


def problem(data: Any) -> str | None:
    """The first field of ``data`` whose shape is wrong, in one line; None for a good report.

    Paths are written as in ``jq``: ``origins[0].usage``, ``crawl.stats['robotstxt/x']``.
    """
    found = REPORT.problem(data, "report")
    return None if found is None else found.removeprefix("report.")


def conform(data: Any) -> dict[str, Any]:
    """``data`` without the fields and list items of the wrong type; never raises.

    A required section that is missing or of the wrong type is given empty, so a renderer
    can read every section it draws: what is left fits :data:`REPORT`.
    """
    kept: dict[str, Any] = _LENIENT.conform(data if isinstance(data, dict) else {})
    for name, empty in _EMPTY.items():
        kept.setdefault(name, empty)
    return kept


_LENIENT = replace(REPORT, required=frozenset())
_EMPTY: dict[str, Any] = {"totals": {}, "origins_by_state": {}, "rules": [], "origins": []}
