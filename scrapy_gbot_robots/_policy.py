"""Google's robots.txt fetch policy, as pure functions of (fetch result, now, previous state).

Status codes are interpreted here and nowhere else (Google's page, "Handling of errors and
HTTP status codes" and "Caching"):

- 2xx: obey the body (capped at 500 KiB).
- 3xx: follow at least ``max_redirects`` hops (the caller follows, asking :func:`next_hop`);
  a chain that is still redirecting, or a redirect without ``Location``, counts as a 404.
- 4xx except 429: no restrictions, whatever the body says.
- 429, 5xx, anything else, and network failures (DNS, timeout, reset, truncated transfer):
  server error. For ``error_stop`` (12 h) after the first error the origin is not crawled;
  then, up to ``error_grace`` (30 d) after it, the last good copy is obeyed (no copy: no
  restrictions); after that, no restrictions if other pages of the origin respond, else
  still stopped. Meanwhile robots.txt is retried with exponential backoff, or after
  ``Retry-After`` when the server sends one.
- A good copy (or a 4xx "no file") lives ``cache_ttl`` (24 h), replaced by
  ``Cache-Control: max-age`` when present (clamped to ``[min_ttl, max_ttl]``).

No I/O and no clock: ``now`` is always an argument, so the 12 h and 30 d edges are tested
without sleeping. Imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from ._rules import RobotsTxt, parse

INFINITY = math.inf


class Kind(str, enum.Enum):
    """What the latest robots.txt fetch of an origin established."""

    RULES = "rules"  # 2xx: the body is the rules
    ALLOW_ALL = "allow_all"  # 4xx (not 429) or too many redirects: no restrictions
    SERVER_ERROR = "server_error"  # 429, 5xx, network failure: see mode_at()


class Mode(str, enum.Enum):
    """What to do with a request of the origin right now."""

    RULES = "rules"  # obey OriginState.robots
    ALLOW_ALL = "allow_all"  # crawl anything
    STOPPED = "stopped"  # crawl nothing yet: wait for a successful retry


@dataclass(frozen=True, slots=True)
class PolicyConfig:
    """The durations and limits of the policy; defaults are Google's published values."""

    max_redirects: int = 5
    max_bytes: int = 512_000
    cache_ttl: float = 24 * 3600.0
    min_ttl: float = 60.0
    max_ttl: float = 30 * 86400.0
    error_stop: float = 12 * 3600.0
    error_grace: float = 30 * 86400.0
    retry_backoff: float = 60.0
    retry_backoff_max: float = 3600.0


@dataclass(frozen=True, slots=True)
class FetchResult:
    """The end of one robots.txt fetch, after the caller followed redirects.

    ``status`` is None when no usable response arrived; ``error`` then names why (an
    exception class name such as ``"DNSLookupError"``, or ``"data loss"`` for a transfer cut
    short). ``body`` may be the full download: :func:`evaluate` applies the byte cap.
    """

    status: int | None
    body: bytes = b""
    cache_control: str | None = None
    retry_after: str | None = None
    error: str | None = None
    redirects: int = 0
    truncated: bool = False  # the body was cut before its end (Google's 500 KiB)


@dataclass(frozen=True, slots=True)
class OriginState:
    """Everything remembered about one origin's robots.txt: small, and never a response.

    ``robots`` holds the raw capped body of the latest good copy (parsed lazily by the
    engine); None means "no restrictions" (a 4xx, a redirect loop, or no good copy yet).
    """

    kind: Kind
    reason: str  # "200", "404", "redirect limit", "503", "TimeoutError", ...
    fetched_at: float
    refresh_at: float  # from then on a fetch is due: cache expiry, or the next retry
    robots: RobotsTxt | None
    good_at: float | None = None  # when the good copy in ``robots`` was fetched
    error_since: float | None = None  # first server error of the current streak
    errors: int = 0  # server errors in a row: the backoff exponent
    status: int | None = None  # final HTTP status, None for network errors
    page_ok_at: float | None = None  # another page answered (< 500) during this error streak


def is_redirect(status: int) -> bool:
    """Whether a status asks the client to go elsewhere (HTTP 3xx)."""
    return 300 <= status < 400


def next_hop(
    url: str, status: int, location: str | None, hops: int, cfg: PolicyConfig
) -> str | None:
    """The absolute URL to fetch next, or None when the chain ends here.

    Follows any 3xx with a ``Location`` (also to other hosts and schemes that can serve
    HTTP), up to ``cfg.max_redirects`` hops already made. Only HTTP redirects: a meta
    refresh in a 200 body is just body text.
    """
    if not is_redirect(status) or not location or hops >= cfg.max_redirects:
        return None
    target = urljoin(url, location.strip())
    if urlsplit(target).scheme.lower() not in ("http", "https"):
        return None
    return target.split("#", 1)[0]


_MAX_AGE_RE = re.compile(r'(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?:,|$)', re.IGNORECASE)


def max_age(cache_control: str | None) -> float | None:
    """Seconds of ``max-age`` in a Cache-Control header, or None when absent or malformed."""
    if not cache_control:
        return None
    match = _MAX_AGE_RE.search(cache_control)
    return float(match.group(1)) if match else None


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """``Retry-After`` as seconds from ``now`` (delta-seconds or HTTP-date), None if unusable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


def ttl(cache_control: str | None, cfg: PolicyConfig) -> float:
    """How long a good copy lives: max-age when present (clamped), else the default TTL."""
    age = max_age(cache_control)
    if age is None:
        return cfg.cache_ttl
    return min(max(age, cfg.min_ttl), cfg.max_ttl)


def _backoff(errors: int, retry_after: str | None, now: float, cfg: PolicyConfig) -> float:
    """Delay before the next retry: Retry-After if given, else exponential; never < 1 s."""
    delay = retry_after_seconds(retry_after, now)
    if delay is None:
        delay = cfg.retry_backoff * (2.0 ** min(errors - 1, 60))
    return max(1.0, min(delay, cfg.retry_backoff_max))


def is_server_error(result: FetchResult) -> bool:
    """429, 5xx, statuses outside 2xx-4xx, and every failure to get a complete response."""
    status = result.status
    if status is None or result.error is not None:
        return True
    return status == 429 or not 200 <= status < 500


def evaluate(
    result: FetchResult, now: float, previous: OriginState | None, cfg: PolicyConfig
) -> OriginState:
    """The origin's new state after a fetch ended with ``result`` at time ``now``."""
    if is_server_error(result):
        reason = result.error or str(result.status)
        page_ok_at = None
        if previous is None:
            robots, good_at, since, errors = None, None, now, 1
        else:
            robots, good_at = previous.robots, previous.good_at
            if previous.kind is Kind.SERVER_ERROR and previous.error_since is not None:
                since, errors = previous.error_since, previous.errors + 1
                page_ok_at = previous.page_ok_at  # the same streak: the evidence stands
            else:
                since, errors = now, 1
        return OriginState(
            kind=Kind.SERVER_ERROR,
            reason=reason,
            fetched_at=now,
            refresh_at=now + _backoff(errors, result.retry_after, now, cfg),
            robots=robots,
            good_at=good_at,
            error_since=since,
            errors=errors,
            status=result.status,
            page_ok_at=page_ok_at,
        )
    assert result.status is not None
    expires = now + ttl(result.cache_control, cfg)
    if 200 <= result.status < 300:
        robots = parse(result.body, max_bytes=cfg.max_bytes)
        if result.truncated:  # cut while downloading: parse() saw only the kept bytes
            robots.truncated = True
        return OriginState(
            kind=Kind.RULES,
            reason=str(result.status),
            fetched_at=now,
            refresh_at=expires,
            robots=robots,
            good_at=now,
            status=result.status,
        )
    # 3xx at the end of the chain (limit reached, or no usable Location) or 4xx but 429.
    reason = "redirect limit" if is_redirect(result.status) else str(result.status)
    return OriginState(
        kind=Kind.ALLOW_ALL,
        reason=reason,
        fetched_at=now,
        refresh_at=expires,
        robots=None,
        good_at=now,
        status=result.status,
    )


def note_page_ok(state: OriginState, now: float) -> OriginState | None:
    """The state to store when another page of a failing origin answered, else None.

    Only the first answer of an error streak changes anything ("site generally available"
    needs one), so a store is written at most once per streak, not once per page.
    """
    if state.kind is not Kind.SERVER_ERROR:
        return None
    since = state.error_since if state.error_since is not None else state.fetched_at
    if state.page_ok_at is not None and state.page_ok_at >= since:
        return None
    return replace(state, page_ok_at=now)


def mode_at(state: OriginState, now: float, cfg: PolicyConfig) -> tuple[Mode, float]:
    """What to do with the origin's requests at ``now``, and until when that holds.

    After ``error_grace``, the state's ``page_ok_at`` (when another page of the origin last
    gave an HTTP response below 500) tells "site generally available" from "site down".
    """
    last_page_ok = state.page_ok_at
    if state.kind is Kind.RULES:
        return Mode.RULES, INFINITY
    if state.kind is Kind.ALLOW_ALL:
        return Mode.ALLOW_ALL, INFINITY
    since = now if state.error_since is None else state.error_since
    if now < since + cfg.error_stop:
        return Mode.STOPPED, since + cfg.error_stop
    if now < since + cfg.error_grace:
        mode = Mode.RULES if state.robots is not None else Mode.ALLOW_ALL
        return mode, since + cfg.error_grace
    if last_page_ok is not None and last_page_ok >= since:
        return Mode.ALLOW_ALL, INFINITY
    return Mode.STOPPED, INFINITY
