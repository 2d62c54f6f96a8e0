"""Every ``GBOT_ROBOTS_*`` setting, read once into one frozen, validated :class:`Config`.

Validation happens at start-up, so a typo stops the crawl before the first request with a
:class:`ConfigError` (a ``ValueError``) whose message names the setting, instead of
surfacing hours later. The per-request hot path then reads plain attributes.

Pure: reads settings through a ``get(name)`` callable, imports nothing from Scrapy.
"""

from __future__ import annotations

import importlib
import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ._redact import redacted
from .engine.tokens import is_valid_token, product_token
from .policy.states import PolicyConfig

PREFIX = "GBOT_ROBOTS_"

#: ``GBOT_ROBOTS_SLOW_FETCHES = 0``: the slow lane holds this many times the budget's start.
SLOW_LANE_FACTOR = 4

#: ``GBOT_ROBOTS_CONCURRENT_FETCHES = 0``: the fetch budget's ceiling is this many times
#: ``CONCURRENT_REQUESTS``. A robots.txt download costs a socket and a few KiB; what it
#: costs the crawl is its latency, which more of them in flight hide.
CEILING_FACTOR = 8
#: ``GBOT_ROBOTS_CONCURRENT_FETCHES_MIN = 0``: the floor is ``CONCURRENT_REQUESTS`` divided by
#: this, so that a downloader slower than the decisions can slow them down.
FLOOR_DIVISOR = 4

#: name -> (default, kind, minimum); kind is "float" or "int". The single source of defaults.
NUMERIC: dict[str, tuple[float, str, float]] = {
    "DOWNLOAD_TIMEOUT": (30.0, "float", 0.001),
    "RETRY_TIMES": (1, "int", 0),
    "MAX_REDIRECTS": (5, "int", 0),
    "MAX_BYTES": (512_000, "int", 1),
    "TTL": (86_400.0, "float", 0.0),
    "MIN_TTL": (60.0, "float", 0.0),
    "MAX_TTL": (30 * 86_400.0, "float", 0.0),
    "STORE_SIZE": (10_000, "int", 1),
    "STORE_COMPACT_BYTES": (64 * 1024 * 1024, "int", 0),
    "ERROR_STOP": (12 * 3_600.0, "float", 0.0),
    "ERROR_GRACE": (30 * 86_400.0, "float", 0.0),
    "RETRY_BACKOFF": (60.0, "float", 0.001),
    "RETRY_BACKOFF_MAX": (3_600.0, "float", 0.001),
    "PARK_TIMEOUT": (600.0, "float", 0.001),
    "TICK": (1.0, "float", 0.01),
    "RELEASE_PER_TURN": (1, "int", 0),
    "CONCURRENT_FETCHES": (0, "int", 0),
    "CONCURRENT_FETCHES_MIN": (0, "int", 0),
    "SLOW_FETCH_AFTER": (2.0, "float", 0.0),
    "SLOW_FETCHES": (0, "int", 0),
    "LOCK_TTL": (0.0, "float", 0.0),
    "STORE_KEEP": (0.0, "float", 0.0),
    "REPORT_MAX_ORIGINS": (10_000, "int", 1),
    "REPORT_MAX_RULES": (1_000, "int", 1),
    "REPORT_EXAMPLES": (5, "int", 0),
    "CRAWL_DELAY_MAX": (30.0, "float", 0.0),
    "BACKOFF_MAX": (300.0, "float", 0.001),
}

#: The other settings: name -> default as written in docs/settings.md.
OTHER: dict[str, str] = {
    "CLOCK": "time.time",
    "STORE": "None",
    "FLEET_PARKING": "True",
    "REPORT": "None",
    "MODE": '"enforce"',
    "GLOBAL_GROUP": "True",
    "USAGE": "[]",
    "USAGE_META": "False",
    "CRAWL_DELAY": "False",
    "BACKOFF": "True",
    "PAGE_RULES": '"off"',
    "DIAGNOSTIC_STATS": "False",
}

#: The names 0.2 used: old name -> new name. An old name is still read until 0.4 (the new one
#: wins when both are set), never called unknown, and each one set gets a deprecation warning
#: at start naming the new one (:func:`renamed_settings`; the crawl warns).
RENAMED: dict[str, str] = {
    PREFIX + "CACHE": PREFIX + "STORE",
    PREFIX + "CACHE_SIZE": PREFIX + "STORE_SIZE",
    PREFIX + "CACHE_COMPACT_BYTES": PREFIX + "STORE_COMPACT_BYTES",
    PREFIX + "CACHE_KEEP": PREFIX + "STORE_KEEP",
    PREFIX + "CACHE_TTL": PREFIX + "TTL",
    PREFIX + "CACHE_MIN_TTL": PREFIX + "MIN_TTL",
    PREFIX + "CACHE_MAX_TTL": PREFIX + "MAX_TTL",
}
_OLD_NAME = {new: old for old, new in RENAMED.items()}

#: GBOT_ROBOTS_MODE: obey robots.txt, or only record what it would have done.
MODES = ("enforce", "observe")
#: GBOT_ROBOTS_PAGE_RULES: robots meta tags and X-Robots-Tag not read, read, or obeyed.
PAGE_RULES = ("off", "read", "obey")


def known_settings() -> frozenset[str]:
    """Every ``GBOT_ROBOTS_*`` name this version understands."""
    return frozenset(PREFIX + name for name in (*NUMERIC, *OTHER))


def unknown_settings(names: Iterable[str]) -> list[tuple[str, str | None]]:
    """``GBOT_ROBOTS_*`` names nobody reads, each with the closest known name (or None).

    We own the prefix, so a name under it that we do not know is a typo or a setting of
    another version: silently running on the default would hide it.
    """
    known = known_settings() | RENAMED.keys()
    suffixes = sorted(name[len(PREFIX) :] for name in known)
    found: list[tuple[str, str | None]] = []
    for name in sorted(set(names)):
        if name.startswith(PREFIX) and name not in known:
            import difflib  # only for a misspelt name: no cost to every crawl

            close = difflib.get_close_matches(name[len(PREFIX) :], suffixes, n=1, cutoff=0.6)
            guess = PREFIX + close[0] if close else None
            found.append((name, RENAMED.get(guess, guess) if guess else None))
    return found


def renamed_settings(names: Iterable[str]) -> list[tuple[str, str]]:
    """The 0.2 names among ``names``, each with its new name, for the deprecation warnings."""
    return [(name, RENAMED[name]) for name in sorted(set(names)) if name in RENAMED]


def _read(get: Callable[[str], Any], setting: str) -> tuple[str, Any]:
    """``setting``'s value, or its 0.2 name's when only that is set: (the name read, value)."""
    value = get(setting)
    old = _OLD_NAME.get(setting)
    if value is None and old is not None:
        found = get(old)
        if found is not None:
            return old, found
    return setting, value


class ConfigError(ValueError):
    """A setting has a value the plugin cannot use; the message names the setting."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(f"{setting}: {message}")
        self.setting = setting


@dataclass(frozen=True, slots=True)
class Config:
    """The plugin's configuration for one crawler (per-spider ``custom_settings`` included)."""

    obey: bool = True
    #: ROBOTSTXT_USER_AGENT: one token (or a User-Agent value), or several, most specific first.
    configured_tokens: str | tuple[str, ...] | None = None
    user_agent: str = "Scrapy"  # USER_AGENT
    download_timeout: float = 30.0
    retry_times: int = 1
    memory_size: int = 10_000  # GBOT_ROBOTS_STORE_SIZE: origin states kept in memory
    #: GBOT_ROBOTS_STORE_COMPACT_BYTES: states the LRU forgot, kept encoded (0: none).
    compact_bytes: int = 64 * 1024 * 1024
    park_timeout: float = 600.0
    tick: float = 1.0
    #: GBOT_ROBOTS_RELEASE_PER_TURN: parked requests released per turn of the event loop
    #: (0: all of an origin's at once).
    release_per_turn: int = 1
    #: The fetch budget's floor, start and ceiling (GBOT_ROBOTS_CONCURRENT_FETCHES_MIN,
    #: CONCURRENT_REQUESTS and GBOT_ROBOTS_CONCURRENT_FETCHES, see :func:`fetch_bounds`).
    fetch_floor: int = 16 // FLOOR_DIVISOR
    fetch_start: int = 16
    fetch_ceiling: int = 16 * CEILING_FACTOR
    #: CONCURRENT_REQUESTS: the pages the downloader takes at once (0: no limit).
    concurrent_requests: int = 16
    slow_fetch_after: float = 2.0  # 0: no slow lane
    slow_fetches: int = 0  # 0: SLOW_LANE_FACTOR x where the fetch budget starts
    lock_ttl: float = 0.0  # 0: chosen per store (lock_ttl in crawl/wiring.py)
    store_keep: float = 0.0  # GBOT_ROBOTS_STORE_KEEP; 0: the store keeps every origin
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    clock: Callable[[], float] = time.time
    #: GBOT_ROBOTS_STORE as a factory: factory(max_entries) -> OriginStore, a store of the
    #: project's own.
    custom_store: Callable[[int], Any] | None = None
    #: GBOT_ROBOTS_STORE as a location: (kind, path or URL).
    store_at: tuple[str, str] = ("memory", "")
    #: The setting that chose the store (its 0.2 name if that was the one set, or ``JOBDIR``
    #: for the default file), named by the errors of opening it.
    store_setting: str = PREFIX + "STORE"
    fleet_parking: bool = True  # GBOT_ROBOTS_FLEET_PARKING: park in Redis under scrapy-redis
    report: tuple[str, ...] = ()  # GBOT_ROBOTS_REPORT: .json / .html paths
    report_max_origins: int = 10_000
    report_max_rules: int = 1_000
    report_examples: int = 5
    mode: str = "enforce"  # GBOT_ROBOTS_MODE: "enforce" or "observe"
    global_group: bool = True  # GBOT_ROBOTS_GLOBAL_GROUP: obey "*" when no token has a group
    usage: tuple[str, ...] = ()  # GBOT_ROBOTS_USAGE: the uses this crawl makes of content
    usage_meta: bool = False  # GBOT_ROBOTS_USAGE_META: a request's usage signals in its meta
    crawl_delay: bool = False  # GBOT_ROBOTS_CRAWL_DELAY: honour Crawl-delay (Google does not)
    crawl_delay_max: float = 30.0  # GBOT_ROBOTS_CRAWL_DELAY_MAX
    backoff: bool = True  # GBOT_ROBOTS_BACKOFF: Googlebot's back-off on 429 and 5xx pages
    backoff_max: float = 300.0  # GBOT_ROBOTS_BACKOFF_MAX: the longest back-off, in seconds
    page_rules: str = "off"  # GBOT_ROBOTS_PAGE_RULES: "off", "read" or "obey"
    #: GBOT_ROBOTS_DIAGNOSTIC_STATS: the machinery's stats too (peaks, budget, store).
    diagnostic_stats: bool = False

    @property
    def observe(self) -> bool:
        """Observe mode: nothing is forbidden or dropped because of robots.txt."""
        return self.mode == "observe"

    @property
    def reads_page_rules(self) -> bool:
        """Whether fetched pages have their robots meta tags and X-Robots-Tag read."""
        return self.page_rules != "off"

    @property
    def obeys_page_rules(self) -> bool:
        """Whether requests yielded from a ``nofollow`` page are dropped (never in observe
        mode, which drops nothing: there ``"obey"`` reads)."""
        return self.page_rules == "obey" and not self.observe

    def slow_lane(self) -> int:
        """Size of the slow lane (0: no lane)."""
        if not self.slow_fetch_after:
            return 0
        return self.slow_fetches or SLOW_LANE_FACTOR * self.fetch_start


def _number(setting: str, value: Any, kind: str, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(setting, f"expected a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(setting, f"expected a number, got {value!r}") from None
    if math.isnan(number) or math.isinf(number):
        raise ConfigError(setting, f"expected a finite number, got {value!r}")
    if kind == "int" and number != int(number):
        raise ConfigError(setting, f"expected a whole number, got {value!r}")
    if number < minimum:
        raise ConfigError(setting, f"must be >= {minimum:g}, got {value!r}")
    return number


def _load_callable(setting: str, value: Any) -> Callable[..., Any] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        module_name, _, attr = value.rpartition(".")
        try:
            value = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ConfigError(setting, f"cannot import {value!r} ({exc})") from None
    if not callable(value):
        raise ConfigError(setting, f"expected a callable or its import path, got {value!r}")
    return value  # type: ignore[no-any-return]


def _bool(setting: str, value: Any) -> bool:
    """Scrapy's getbool() semantics, without importing Scrapy."""
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off", ""):
            return False
        raise ConfigError(setting, f"expected a boolean, got {value!r}")
    if value is None:
        return False
    if isinstance(value, (bool, int)):
        return bool(value)
    raise ConfigError(setting, f"expected a boolean, got {value!r}")


#: What ``GBOT_ROBOTS_STORE`` takes, for its error messages.
_STORE_EXPECTED = (
    "expected 'memory', 'sqlite://PATH', 'redis://HOST:PORT/DB' or a store factory (a callable "
    "or its import path)"
)


def is_store_location(value: Any) -> bool:
    """Whether a ``GBOT_ROBOTS_STORE`` value names a location (``memory``, or a string with
    ``://``: ``sqlite://PATH``, ``redis://...``) rather than a factory; anything else is a
    factory (a callable, or its dotted import path, which never holds ``://``)."""
    return isinstance(value, str) and ("://" in value or value.strip().lower() == "memory")


def store_choice(
    value: Any, jobdir: Any = None, setting: str = PREFIX + "STORE"
) -> tuple[Callable[[int], Any] | None, tuple[str, str]]:
    """``GBOT_ROBOTS_STORE`` as (factory or None, (kind, where)): a location is
    :func:`store_spec`'s, a factory a store of the project's own (in memory as far as the
    plugin knows). Unset: :func:`store_spec`'s default."""
    if value is None or value == "" or is_store_location(value):
        return None, store_spec(value, jobdir, setting)
    if isinstance(value, str):
        module_name, _, attr = value.rpartition(".")
        try:
            found = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ConfigError(
                setting, f"{_STORE_EXPECTED}; cannot import {redacted(value)!r} ({exc})"
            ) from None
        value = found
    if not callable(value):
        raise ConfigError(setting, f"{_STORE_EXPECTED}, got {redacted(repr(value))}")
    return value, ("memory", "")


def store_spec(value: Any, jobdir: Any = None, setting: str = PREFIX + "STORE") -> tuple[str, str]:
    """A store location as (kind, where): memory, ``sqlite://PATH``, ``redis[s]://...``.

    Unset means memory, or an SQLite file inside ``JOBDIR`` when ``JOBDIR`` is set.
    """
    if value is None or value == "":
        if jobdir:
            return "sqlite", os.path.join(str(jobdir), "gbot_robots", "robots.sqlite3")
        return "memory", ""
    expected = _STORE_EXPECTED
    if not isinstance(value, str):
        raise ConfigError(setting, f"{expected}, got {redacted(repr(value))}")
    text = value.strip()
    if text.lower() == "memory":
        return "memory", ""
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower()
    if sep and scheme == "sqlite":
        if not rest:
            raise ConfigError(setting, f"sqlite:// needs a file path, got {value!r}")
        return "sqlite", rest
    if sep and scheme in ("redis", "rediss", "unix"):
        if not rest:
            raise ConfigError(setting, f"{scheme}:// needs a host, got {value!r}")
        return "redis", text
    raise ConfigError(setting, f"{expected}, got {redacted(value)!r}")


def report_paths(value: Any) -> tuple[str, ...]:
    """``GBOT_ROBOTS_REPORT``: one path or several (a list, or comma-separated), .json or .html."""
    setting = PREFIX + "REPORT"
    if value is None or value == "" or value == []:
        return ()
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        expected = "expected a path ending in .json or .html, or a list of them"
        raise ConfigError(setting, f"{expected}, got {value!r}")
    paths = tuple(item for item in items if item)
    for path in paths:
        if not path.lower().endswith((".json", ".html", ".htm")):
            raise ConfigError(setting, f"expected a path ending in .json or .html, got {path!r}")
    return paths


def _scrapy_timeout(get: Callable[[str], Any]) -> float:
    """Scrapy's ``DOWNLOAD_TIMEOUT`` (180 s unless set), as a positive number of seconds."""
    raw = get("DOWNLOAD_TIMEOUT")
    if raw is None:
        return 180.0
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ConfigError("DOWNLOAD_TIMEOUT", f"expected a number, got {raw!r}") from None
    return value if value > 0 and not math.isnan(value) else 180.0


def _concurrent_requests(get: Callable[[str], Any]) -> int:
    """Scrapy's ``CONCURRENT_REQUESTS`` (16 unless set); 0 means no limit."""
    raw = get("CONCURRENT_REQUESTS")
    if raw is None:
        return 16
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ConfigError("CONCURRENT_REQUESTS", f"expected a whole number, got {raw!r}") from None
    return max(0, value)


def fetch_bounds(ceiling: int, floor: int, concurrent_requests: int) -> tuple[int, int, int]:
    """The fetch budget's (floor, start, ceiling) from the two settings (0: their defaults).

    The ceiling defaults to ``CEILING_FACTOR`` x ``CONCURRENT_REQUESTS``; the budget starts at
    ``CONCURRENT_REQUESTS`` (the fixed budget of 0.3), never outside [floor, ceiling]; the
    floor defaults to a ``FLOOR_DIVISOR``-th of the start. A floor set above the ceiling is
    an error naming ``GBOT_ROBOTS_CONCURRENT_FETCHES_MIN``.
    """
    pages = concurrent_requests or 16  # 0 (no limit): as Scrapy's default
    top = ceiling or CEILING_FACTOR * pages
    if floor > top:
        where = "" if ceiling else f" (its default, {CEILING_FACTOR} x CONCURRENT_REQUESTS)"
        raise ConfigError(
            PREFIX + "CONCURRENT_FETCHES_MIN",
            f"must be <= {PREFIX}CONCURRENT_FETCHES{where}: {top}, got {floor}",
        )
    start = min(pages, top)
    bottom = floor or max(1, start // FLOOR_DIVISOR)
    return bottom, max(bottom, start), top


def load(get: Callable[[str], Any]) -> Config:
    """Read and validate every setting once; ``get(name)`` returns None for unset names."""
    nums: dict[str, float] = {}
    for name, (default, kind, minimum) in NUMERIC.items():
        setting, raw = _read(get, PREFIX + name)
        nums[name] = default if raw is None else _number(setting, raw, kind, minimum)
    if nums["MAX_TTL"] < nums["MIN_TTL"]:
        raise ConfigError(
            PREFIX + "MAX_TTL",
            f"must be >= {PREFIX}MIN_TTL ({nums['MIN_TTL']:g}), got {nums['MAX_TTL']:g}",
        )
    if nums["ERROR_GRACE"] < nums["ERROR_STOP"]:
        raise ConfigError(
            PREFIX + "ERROR_GRACE",
            f"must be >= {PREFIX}ERROR_STOP ({nums['ERROR_STOP']:g}), got {nums['ERROR_GRACE']:g}",
        )
    keep_floor = nums["ERROR_GRACE"] + nums["MAX_TTL"]
    if nums["STORE_KEEP"] and nums["STORE_KEEP"] < keep_floor:
        raise ConfigError(
            PREFIX + "STORE_KEEP",
            f"must be 0 (keep every origin) or >= {PREFIX}ERROR_GRACE + {PREFIX}MAX_TTL "
            f"({keep_floor:g} s), so that no fresh copy and no 30-day window is forgotten; "
            f"got {nums['STORE_KEEP']:g}",
        )
    if nums["RETRY_BACKOFF_MAX"] < nums["RETRY_BACKOFF"]:
        raise ConfigError(
            PREFIX + "RETRY_BACKOFF_MAX",
            f"must be >= {PREFIX}RETRY_BACKOFF ({nums['RETRY_BACKOFF']:g}), "
            f"got {nums['RETRY_BACKOFF_MAX']:g}",
        )
    if get(PREFIX + "DOWNLOAD_TIMEOUT") is None:
        # A user who lowers Scrapy's own timeout gets it for robots.txt too.
        nums["DOWNLOAD_TIMEOUT"] = min(nums["DOWNLOAD_TIMEOUT"], _scrapy_timeout(get))
    concurrent_requests = _concurrent_requests(get)
    fetch_floor, fetch_start, fetch_ceiling = fetch_bounds(
        int(nums["CONCURRENT_FETCHES"]), int(nums["CONCURRENT_FETCHES_MIN"]), concurrent_requests
    )
    configured_tokens = _tokens_setting(get("ROBOTSTXT_USER_AGENT"))
    user_agent = get("USER_AGENT")
    if user_agent is not None and not isinstance(user_agent, str):
        raise ConfigError("USER_AGENT", f"expected a string, got {user_agent!r}")
    clock = _load_callable(PREFIX + "CLOCK", get(PREFIX + "CLOCK")) or time.time
    store_setting, store_value = _read(get, PREFIX + "STORE")
    jobdir = get("JOBDIR")
    store, store_at = store_choice(store_value, jobdir, store_setting)
    if store_value is None or store_value == "":
        store_setting = "JOBDIR" if jobdir else PREFIX + "STORE"
    fleet = get(PREFIX + "FLEET_PARKING")
    policy = PolicyConfig(
        max_redirects=int(nums["MAX_REDIRECTS"]),
        max_bytes=int(nums["MAX_BYTES"]),
        cache_ttl=nums["TTL"],
        min_ttl=nums["MIN_TTL"],
        max_ttl=nums["MAX_TTL"],
        error_stop=nums["ERROR_STOP"],
        error_grace=nums["ERROR_GRACE"],
        retry_backoff=nums["RETRY_BACKOFF"],
        retry_backoff_max=nums["RETRY_BACKOFF_MAX"],
    )
    return Config(
        obey=_bool("ROBOTSTXT_OBEY", get("ROBOTSTXT_OBEY")),
        configured_tokens=configured_tokens or None,
        user_agent=user_agent or "Scrapy",
        download_timeout=nums["DOWNLOAD_TIMEOUT"],
        retry_times=int(nums["RETRY_TIMES"]),
        memory_size=int(nums["STORE_SIZE"]),
        compact_bytes=int(nums["STORE_COMPACT_BYTES"]),
        park_timeout=nums["PARK_TIMEOUT"],
        tick=nums["TICK"],
        release_per_turn=int(nums["RELEASE_PER_TURN"]),
        fetch_floor=fetch_floor,
        fetch_start=fetch_start,
        fetch_ceiling=fetch_ceiling,
        concurrent_requests=concurrent_requests,
        slow_fetch_after=nums["SLOW_FETCH_AFTER"],
        slow_fetches=int(nums["SLOW_FETCHES"]),
        lock_ttl=nums["LOCK_TTL"],
        store_keep=nums["STORE_KEEP"],
        policy=policy,
        clock=clock,
        custom_store=store,
        store_at=store_at,
        store_setting=store_setting,
        fleet_parking=True if fleet is None else _bool(PREFIX + "FLEET_PARKING", fleet),
        report=report_paths(get(PREFIX + "REPORT")),
        report_max_origins=int(nums["REPORT_MAX_ORIGINS"]),
        report_max_rules=int(nums["REPORT_MAX_RULES"]),
        report_examples=int(nums["REPORT_EXAMPLES"]),
        mode=_choice(PREFIX + "MODE", get(PREFIX + "MODE"), MODES),
        global_group=_bool_default(PREFIX + "GLOBAL_GROUP", get(PREFIX + "GLOBAL_GROUP"), True),
        usage=_uses(get(PREFIX + "USAGE")),
        usage_meta=_bool_default(PREFIX + "USAGE_META", get(PREFIX + "USAGE_META"), False),
        crawl_delay=_bool_default(PREFIX + "CRAWL_DELAY", get(PREFIX + "CRAWL_DELAY"), False),
        crawl_delay_max=nums["CRAWL_DELAY_MAX"],
        backoff=_bool_default(PREFIX + "BACKOFF", get(PREFIX + "BACKOFF"), True),
        backoff_max=nums["BACKOFF_MAX"],
        page_rules=_page_rules(get(PREFIX + "PAGE_RULES"), get(PREFIX + "MODE")),
        diagnostic_stats=_bool_default(
            PREFIX + "DIAGNOSTIC_STATS", get(PREFIX + "DIAGNOSTIC_STATS"), False
        ),
    )


def _page_rules(value: Any, mode: Any) -> str:
    """``GBOT_ROBOTS_PAGE_RULES``; unset, an observe-mode crawl reads (an audit sees every
    page's rules), any other crawl does not (it pays nothing)."""
    setting = PREFIX + "PAGE_RULES"
    if value is None or value == "":
        observing = _choice(PREFIX + "MODE", mode, MODES) == "observe"
        return "read" if observing else "off"
    return _choice(setting, value, PAGE_RULES)


def _bool_default(setting: str, value: Any, default: bool) -> bool:
    return default if value is None else _bool(setting, value)


def _choice(setting: str, value: Any, choices: tuple[str, ...]) -> str:
    if value is None or value == "":
        return choices[0]
    text = value.strip().lower() if isinstance(value, str) else value
    if text not in choices:
        expected = " or ".join(repr(c) for c in choices)
        raise ConfigError(setting, f"expected {expected}, got {value!r}")
    return str(text)


def _strings(setting: str, value: Any) -> tuple[str, ...]:
    """A list setting: a list or tuple of strings, or one comma-separated string."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise ConfigError(setting, f"expected a list of strings, got {value!r}")
    return tuple(item.strip() for item in items if item.strip())


def _tokens_setting(value: Any) -> str | tuple[str, ...] | None:
    """ROBOTSTXT_USER_AGENT: a string (one token or a User-Agent header) or a list of tokens.

    A comma-separated string without parentheses is a list too (what ``-s`` gives); a
    User-Agent header keeps its commas inside parentheses and stays one value.
    """
    setting = "ROBOTSTXT_USER_AGENT"
    if value is None or value == "":
        return None
    if isinstance(value, str) and ("," not in value or "(" in value):
        return value
    tokens = _strings(setting, value)
    if not tokens:
        raise ConfigError(setting, f"expected a token or a list of tokens, got {value!r}")
    return tokens if len(tokens) > 1 else tokens[0]


def _uses(value: Any) -> tuple[str, ...]:
    """GBOT_ROBOTS_USAGE: the uses this crawl makes of content (``ai-train``, ``search``...)."""
    from .engine.usage import RETIRED, SIGNALS, USES

    setting = PREFIX + "USAGE"
    uses = tuple(use.lower() for use in _strings(setting, value))
    known = sorted(set(USES) | SIGNALS)
    for use in uses:
        if use in RETIRED:
            raise ConfigError(
                setting,
                f"{use!r} is a retired label ({RETIRED[use]}): the current vocabulary "
                f"(draft-ietf-aipref-vocab-08) says nothing about it; use one of: "
                f"{', '.join(known)}",
            )
        if use not in known:
            raise ConfigError(setting, f"unknown use {use!r}; known: {', '.join(known)}")
    return uses


def default_token_notice(token: str | tuple[str, ...]) -> str | None:
    """The start-up notice for a crawl whose token is Scrapy's default (``Scrapy``, from
    ``USER_AGENT = "Scrapy/VERSION (+https://scrapy.org)"``), else None: ai.robots.txt's
    recommended file has had ``User-agent: Scrapy`` since 2024, so every site that copied it
    forbids such a crawl everything, and nothing else would say why."""
    tokens = (token,) if isinstance(token, str) else token
    if not any(t.lower() == "scrapy" for t in tokens):
        return None
    return (
        "robots.txt is obeyed as 'Scrapy', Scrapy's default token: many sites block it "
        "(ai.robots.txt's recommended robots.txt has 'User-agent: Scrapy'). Name your crawler: "
        "ROBOTSTXT_USER_AGENT = 'MyBot' and USER_AGENT = 'MyBot/1.0 (+https://example.com/bot)'"
    )


def configured_token(config: Config) -> tuple[str | tuple[str, ...], str, str | None]:
    """The crawler-wide product token(s): (token or tokens, where from, warning or None).

    ``ROBOTSTXT_USER_AGENT`` wins when set (a list of tokens, most specific first, gives a
    tuple); otherwise the ``USER_AGENT`` header is reduced with :func:`product_token`. A
    configured value that is not itself a valid token is still used, reduced the same way,
    with a warning that names the setting.
    """
    setting = "ROBOTSTXT_USER_AGENT"
    configured = config.configured_tokens
    if not configured:
        return product_token(config.user_agent), "USER_AGENT", None
    values = (configured,) if isinstance(configured, str) else configured
    tokens = tuple(v if is_valid_token(v) else product_token(v) for v in values)
    bad = [v for v, t in zip(values, tokens, strict=True) if v != t]
    warning = None
    if bad:
        warning = (
            f"{setting} = {configured!r} is not a valid robots.txt product token "
            f"([A-Za-z_-]+); obeying robots.txt as {tokens[0] if len(tokens) == 1 else tokens!r}"
            " instead"
        )
    if any(not t for t in tokens):
        raise ConfigError(setting, f"no product token in {configured!r}")
    return (tokens[0] if len(tokens) == 1 else tokens), setting, warning
