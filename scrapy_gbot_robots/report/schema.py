"""The shape of a JSON report (``gbot-robots-report/2``), as its two readers need it.

A report is a file a user may edit, truncate or get from elsewhere, so its readers trust no
field's type. This module describes every field they read, once, in the terms of
``docs/report.md`` (an object's unknown fields are allowed, and so are missing optional ones:
some exist only in observe mode, or only in newer reports of the same schema):

- :func:`problem` names the first field whose type is wrong (``origins[0].usage is a list,
  expected an object or null``): ``gbot-robots report`` refuses such a file with exit status
  2 and that one line, instead of an ``AttributeError`` and a traceback;
- :func:`conform` returns a copy without the fields (and list items) of the wrong type, so the
  HTML page renders any report, showing what is usable and nothing of the rest;
- :func:`upgraded` reads a report of the older schema (``gbot-robots-report/1``) in this
  one's words, for both.

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
    """What one value must be (subclasses say it in words in ``expected``, for the error line).

    ``fits`` is the fast check every reader runs first (no path is built, nothing copied):
    a report as a crawl writes it costs one pass of it. ``problem`` and ``conform`` descend
    only into what does not fit.
    """

    def fits(self, value: Any) -> bool:
        raise NotImplementedError

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
    """A JSON scalar; ``types`` (with ``no_bool``) when ``test`` is exactly that isinstance
    check, which objects then run inline (the fast path of a big report)."""

    expected: str
    test: Callable[[Any], bool]
    types: tuple[type, ...] = ()
    no_bool: bool = False

    def fits(self, value: Any) -> bool:
        return self.test(value)

    def problem(self, value: Any, path: str) -> str | None:
        return None if self.test(value) else f"{path} is {_kind(value)}, expected {self.expected}"

    def conform(self, value: Any) -> Any:
        return value if self.test(value) else _DROP


@dataclass(frozen=True)
class Nullable(Spec):
    """``inner``, or null."""

    inner: Spec

    def fits(self, value: Any) -> bool:
        return value is None or self.inner.fits(value)

    def problem(self, value: Any, path: str) -> str | None:
        found = None if value is None else self.inner.problem(value, path)
        if found is not None and found.startswith(f"{path} is "):  # not a field inside it
            return found + " or null"
        return found

    def conform(self, value: Any) -> Any:
        return None if value is None else self.inner.conform(value)


_ABSENT: Any = object()


@dataclass(frozen=True)
class Obj(Spec):
    """An object: known fields checked, unknown ones kept; ``required`` must be present."""

    fields: dict[str, Spec]
    required: frozenset[str] = field(default_factory=frozenset)
    expected: str = "an object"
    #: (name, types, no_bool, nullable) of the fields whose check is one isinstance.
    _plain: tuple[tuple[str, tuple[type, ...], bool, bool], ...] = field(
        init=False, repr=False, compare=False
    )
    _other: tuple[tuple[str, Spec], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        plain, other = [], []
        for name, spec in self.fields.items():
            nullable = isinstance(spec, Nullable)
            inner = spec.inner if isinstance(spec, Nullable) else spec
            if isinstance(inner, Scalar) and inner.types:
                plain.append((name, inner.types, inner.no_bool, nullable))
            else:
                other.append((name, spec))
        object.__setattr__(self, "_plain", tuple(plain))
        object.__setattr__(self, "_other", tuple(other))

    def fits(self, value: Any) -> bool:
        if not isinstance(value, dict) or not self.required <= value.keys():
            return False
        get = value.get
        for name, types, no_bool, nullable in self._plain:
            item = get(name, _ABSENT)
            if item is _ABSENT or (item is None and nullable):
                continue
            if not isinstance(item, types) or (no_bool and item.__class__ is bool):
                return False
        for name, spec in self._other:
            item = get(name, _ABSENT)
            if item is not _ABSENT and not spec.fits(item):
                return False
        return True

    def problem(self, value: Any, path: str) -> str | None:
        if self.fits(value):
            return None
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
        return None  # pragma: no cover - fits() said otherwise

    def conform(self, value: Any) -> Any:
        if self.fits(value):
            return value
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

    def fits(self, value: Any) -> bool:
        fits = self.item.fits
        return isinstance(value, list) and all(fits(item) for item in value)

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, list):
            return f"{path} is {_kind(value)}, expected {self.expected}"
        fits = self.item.fits
        for i, item in enumerate(value):
            if not fits(item):
                return self.item.problem(item, f"{path}[{i}]")
        return None

    def conform(self, value: Any) -> Any:
        if not isinstance(value, list):
            return _DROP
        if self.fits(value):
            return value
        kept = (self.item.conform(item) for item in value)
        return [item for item in kept if item is not _DROP]


@dataclass(frozen=True)
class Mapping(Spec):
    """An object used as a table: any key, each value fitting ``value``."""

    value: Spec
    expected: str = "an object"

    def fits(self, value: Any) -> bool:
        fits = self.value.fits
        return isinstance(value, dict) and all(fits(item) for item in value.values())

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return f"{path} is {_kind(value)}, expected {self.expected}"
        fits = self.value.fits
        for key, item in value.items():
            if not fits(item):
                return self.value.problem(item, f"{path}[{key!r}]")
        return None

    def conform(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return _DROP
        if self.fits(value):
            return value
        kept = ((key, self.value.conform(item)) for key, item in value.items())
        return {key: item for key, item in kept if item is not _DROP}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


INT = Scalar("an integer", _is_int, (int,), no_bool=True)
NUMBER = Scalar("a number", _is_number)
STR = Scalar("a string", lambda v: isinstance(v, str), (str,))
BOOL = Scalar("a boolean", lambda v: isinstance(v, bool), (bool,))
#: A JSON scalar: what a setting or a stat may be.
SCALAR = Scalar(
    "a string, a number, a boolean or null",
    lambda v: v is None or isinstance(v, (str, bool)) or _is_number(v),
)

_COUNTS = Obj({k: INT for k in ("allowed", "forbidden", "would_stop", "parked", "dropped")})

#: GBOT_ROBOTS_PAGE_RULES: what the pages of an origin (or of the report) said.
_PAGE_COUNTS: dict[str, Spec] = {
    k: INT for k in ("read", "noindex", "nofollow", "disallowed_noindex", "dropped_nofollow")
}
_PAGES = Obj(
    {
        **_PAGE_COUNTS,
        "sources": Mapping(Mapping(INT)),
        "examples": Mapping(Items(STR)),
    }
)

_AI_CRAWLERS = Obj(
    {
        "list": STR,
        "checked": INT,
        "disallowed_count": INT,
        "disallowed": Items(
            Obj(
                {
                    "token": STR,
                    "operator": STR,
                    "function": STR,
                    "group_line": Nullable(INT),
                    "line": Nullable(INT),
                    "rule": STR,
                }
            )
        ),
    }
)
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
        # RSL License: lines, and the AI crawlers kept out of / (gbot-robots agents' table)
        "licenses": Items(STR),
        "ai_crawlers": Nullable(_AI_CRAWLERS),
        "requests": _COUNTS,
        "drop_reasons": Mapping(INT),
        "crawl_delay": Nullable(Obj({"asked": NUMBER, "applied": NUMBER})),
        "pages": Nullable(_PAGES),
        "backoff": Nullable(
            Obj({"times": INT, "seconds": NUMBER, "longest": NUMBER, "waited": INT})
        ),
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
                "tokens": Items(STR),
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
                    "parked",
                    "dropped",
                    "fetches",
                    "from_store",
                    "server_errors",
                    "rules",
                )
            }
        ),
        "origins_by_state": Mapping(INT),
        "page_rules": Obj({"level": STR, **_PAGE_COUNTS}),
        "folded": Obj(
            {
                "origins": INT,
                "rules": INT,
                "other_origins": Obj(
                    {
                        **{k: INT for k in _COUNTS.fields},
                        "by_state": Mapping(INT),
                        "pages": Obj(_PAGE_COUNTS),
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


#: Schema 1's names that schema 2 changed (issue 47, one word per concept): in the request
#: counts, ``deferred`` is ``parked``; in ``crawl``, ``user_agent`` (the tokens joined by
#: ``", "``) is ``tokens`` (a list); in ``crawl.settings``, ``cache`` is ``store``.
_COUNTS_1 = {"deferred": "parked"}


def upgraded(data: Any) -> Any:
    """A report of schema 1 as schema 2 writes it (a copy); any other value as it is.

    Only what changed name is moved, whatever its type: :func:`problem` and :func:`conform`
    judge the result as they judge a report written now.
    """
    if not isinstance(data, dict) or data.get("schema") != "gbot-robots-report/1":
        return data
    out = {**data, "schema": "gbot-robots-report/2"}

    def counts(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {_COUNTS_1.get(key, key): item for key, item in value.items()}

    if "totals" in out:
        out["totals"] = counts(out["totals"])
    folded = out.get("folded")
    if isinstance(folded, dict) and "other_origins" in folded:
        out["folded"] = {**folded, "other_origins": counts(folded["other_origins"])}
    origins = out.get("origins")
    if isinstance(origins, list):
        out["origins"] = [
            {**o, "requests": counts(o["requests"])}
            if isinstance(o, dict) and "requests" in o
            else o
            for o in origins
        ]
    crawl = out.get("crawl")
    if isinstance(crawl, dict):
        crawl = dict(crawl)
        joined = crawl.pop("user_agent", None)  # the tokens, joined by ", "
        if isinstance(joined, str) and "tokens" not in crawl:
            crawl["tokens"] = [token for token in joined.split(", ") if token]
        settings = crawl.get("settings")
        if isinstance(settings, dict) and "cache" in settings:
            crawl["settings"] = {("store" if k == "cache" else k): v for k, v in settings.items()}
        out["crawl"] = crawl
    return out
