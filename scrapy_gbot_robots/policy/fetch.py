"""Google's robots.txt fetch policy: what one fetch's outcome makes of an origin's state.

Status codes are interpreted here and nowhere else (Google's page, "Handling of errors and
HTTP status codes" and "Caching"):

- 2xx: obey the body (capped at 500 KiB).
- 3xx: follow at least ``max_redirects`` hops (the caller follows, asking :func:`next_hop`);
  a chain that is still redirecting, or a redirect without a usable ``Location`` (none, one
  that cannot be parsed, a bad port, no host, a scheme other than http and https), counts as
  a 404 (reason ``"redirect limit"`` or ``"unusable redirect"``).
- 4xx except 429: no restrictions, whatever the body says; but a 407 that came through a
  proxy, and a ``CONNECT`` tunnel the proxy refused, are the proxy's answer, not the origin's:
  its rules are unknown, a server error (:func:`proxy_refused`).
- 429, 5xx, anything else, and network failures (DNS, timeout, reset, truncated transfer):
  server error, retried with exponential backoff, or after ``Retry-After`` when the server
  sends one. What a server error means for the crawl, hour by hour, is
  :func:`.states.rules_in_force`'s answer.
- A good copy (or a 4xx "no file") lives ``cache_ttl`` (24 h), replaced by
  ``Cache-Control: max-age`` when present (clamped to ``[min_ttl, max_ttl]``). No other
  ``Cache-Control`` directive is read (``no-store``, ``no-cache``...): Google's page names
  ``max-age`` alone, and its crawlers' HTTP caching supports no other directive.
- A copy's ``ETag`` / ``Last-Modified`` are kept (capped) and sent back as ``If-None-Match``
  / ``If-Modified-Since`` when it is refreshed (:func:`conditional_headers`); a 304 to such a
  conditional request keeps the copy and restarts its clock (:func:`evaluate`). A 304 to a
  request that carried no validator is a 3xx like any other: no ``Location``, so a 404.

No I/O and no clock: ``now`` is always an argument. Imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from ..engine.rules import parse
from .origin import origin_of
from .states import Kind, OriginState, PolicyConfig, Validators, note_page_ok


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
    #: The proxy the download went through (shown without credentials), None when direct.
    proxy: str | None = None
    #: The response's ``ETag`` and ``Last-Modified``, as sent (capped by :func:`evaluate`).
    etag: str | None = None
    last_modified: str | None = None
    #: The validators the request carried (:func:`conditional_headers`): None when it was
    #: not a conditional request.
    sent: Validators | None = None


#: "Not Modified" (RFC 9110 15.4.5): the stored copy named by the request's validators is
#: still the server's.
NOT_MODIFIED = 304
#: The longest validator kept: an ``ETag`` is a short hash in practice; a longer one (a
#: hostile megabyte) is not stored, and that copy is refreshed unconditionally.
MAX_VALIDATOR = 256
#: A validator we would send back: printable ASCII, spaces inside (an HTTP date) allowed.
_VALIDATOR = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")


def _validator(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if len(value) > MAX_VALIDATOR or not _VALIDATOR.fullmatch(value):
        return None
    return value


def validators_of(etag: str | None, last_modified: str | None) -> Validators | None:
    """The validators worth keeping from a response's headers, None when there are none.

    A value longer than :data:`MAX_VALIDATOR` or with a character outside printable ASCII is
    dropped: what is stored stays small, and what is sent back is a header we can send.
    """
    kept_etag, kept_date = _validator(etag), _validator(last_modified)
    if kept_etag is None and kept_date is None:
        return None
    return Validators(kept_etag, kept_date)


def conditional_headers(state: OriginState | None) -> tuple[Validators | None, dict[str, str]]:
    """The validators to send when refreshing ``state``'s copy, and the request headers.

    ``If-None-Match`` when the copy has an ``ETag``, else ``If-Modified-Since``: Google's
    crawlers use the ``ETag`` when a response has both, as RFC 9110 13.1.3 makes a server
    do. Nothing for a state without a copy (no restrictions, or no good copy yet).
    """
    if state is None or state.robots is None or state.validators is None:
        return None, {}
    validators = state.validators
    if validators.etag is not None:
        return validators, {"If-None-Match": validators.etag}
    assert validators.last_modified is not None
    return validators, {"If-Modified-Since": validators.last_modified}


def is_revalidation(result: FetchResult) -> bool:
    """Whether the answer is a 304 to a conditional request: the stored copy still holds."""
    return result.status == NOT_MODIFIED and result.sent is not None


def is_redirect(status: int) -> bool:
    """Whether a status asks the client to go elsewhere (HTTP 3xx)."""
    return 300 <= status < 400


def next_hop(
    url: str,
    status: int,
    location: str | None,
    hops: int,
    cfg: PolicyConfig,
    *,
    conditional: bool = False,
) -> str | None:
    """The absolute URL to fetch next, or None when the chain ends here.

    Follows any 3xx with a ``Location`` (also to other hosts and schemes that can serve
    HTTP), up to ``cfg.max_redirects`` hops already made. Only HTTP redirects: a meta
    refresh in a 200 body is just body text. Never raises: a ``Location`` is whatever a
    server sent, and one that names no robots.txt we could fetch (unparsable, such as
    ``http://[::1/``; a port out of range or 0; no host, or one with a control character or
    a space; ``ftp:``) ends the chain, which then counts as a 404 (:func:`evaluate`). A 304
    to a ``conditional`` request is no redirect, whatever its headers: the copy holds.
    """
    if not is_redirect(status) or not location or hops >= cfg.max_redirects:
        return None
    if conditional and status == NOT_MODIFIED:
        return None
    try:
        target = urljoin(url, location.strip()).split("#", 1)[0]
        port = urlsplit(target).port  # ValueError when out of range or not a number
    except ValueError:
        return None
    origin = origin_of(target)  # None: not http(s), no host, a bad host or port
    if origin is None or port == 0 or not _SENDABLE_HOST.fullmatch(origin):
        return None
    return target


#: An origin key a request can be sent to: printable ASCII, no space (HTTP clients refuse
#: a host with a control character, as Twisted does, before connecting).
_SENDABLE_HOST = re.compile(r"[\x21-\x7e]+")


_MAX_AGE_RE = re.compile(r'(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?:,|$)', re.IGNORECASE)


def max_age(cache_control: str | None) -> float | None:
    """Seconds of ``max-age`` in a Cache-Control header, or None when absent or malformed."""
    if not cache_control:
        return None
    match = _MAX_AGE_RE.search(cache_control)
    return float(match.group(1)) if match else None


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """``Retry-After`` as seconds from ``now`` (delta-seconds or HTTP-date), None if unusable.

    Never raises: the value is whatever a server sent (``"²"`` passes ``str.isdigit`` but is
    no number; a date may be out of range).
    """
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # RFC 9110 delta-seconds: 1*DIGIT, ASCII only
        return float(value)
    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - now)
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return None


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


#: "Proxy Authentication Required" (RFC 9110 15.5.8): a proxy asks for its credentials.
PROXY_AUTH_REQUIRED = 407
#: What Scrapy raises when the proxy refuses a ``CONNECT`` (an https URL through a proxy).
TUNNEL_ERROR = "TunnelError"
#: The start of the reason of a state whose fetch the proxy refused.
PROXY_REFUSED = "proxy refused"


def proxy_refused(result: FetchResult) -> bool:
    """Whether the answer is the proxy's own refusal, never the origin's.

    A 407 through a proxy (an origin has no business sending it), or a ``CONNECT`` tunnel the
    proxy would not open. The origin's rules are then unknown: a server error, so its
    requests stay parked rather than be fetched unchecked.
    """
    if result.proxy is None:
        return False
    return result.status == PROXY_AUTH_REQUIRED or result.error == TUNNEL_ERROR


def is_server_error(result: FetchResult) -> bool:
    """429, 5xx, statuses outside 2xx-4xx, every failure to get a complete response, and a
    proxy's refusal (:func:`proxy_refused`)."""
    status = result.status
    if status is None or result.error is not None or proxy_refused(result):
        return True
    return status == 429 or not 200 <= status < 500


#: Failures that come from waiting in vain (the whole timeout) or from a host that cannot be
#: reached: Scrapy 2.19's names, then the Twisted names older Scrapy reports.
_SLOW_OR_UNREACHABLE = frozenset(
    {
        "DownloadTimeoutError",
        "CannotResolveHostError",
        "DownloadConnectionRefusedError",
        "TimeoutError",
        "TCPTimedOutError",
        "DNSLookupError",
        "ConnectionRefusedError",
        "ConnectError",
        "NoRouteError",
    }
)


def retry_at_once(result: FetchResult) -> bool:
    """Whether a server error is worth retrying within the same fetch, right away.

    Yes for a 5xx or 429, a reset and a transfer cut short: transient, and cheap to try again.
    No for a proxy's refusal (the same credentials get the same answer), a timeout or a host
    that cannot be reached (DNS, refused, no route): the retry
    would wait as long again while the fetch holds its slot of the budget, and a dead host
    stays dead for a while; nor when the server named a time with ``Retry-After``. Those
    wait for the backoff, as Google retries later.
    """
    if not is_server_error(result) or proxy_refused(result):
        return False  # the same credentials would be refused again at once
    if _names_a_wait(result.retry_after):
        return False
    return result.status is not None or result.error not in _SLOW_OR_UNREACHABLE


def shows_site_serving(status: int) -> bool:
    """Whether a page's HTTP answer shows the site serving: 2xx, 3xx, or 4xx other than 429.

    Google reads a 429 as a server error, and a 5xx is one: neither is evidence that the
    site is "generally available" (the 30-day rule of :func:`.states.rules_in_force`).
    """
    return 200 <= status < 500 and status != 429


def note_page_answer(state: OriginState, status: int, now: float) -> OriginState | None:
    """The state to store when another page of the origin answered ``status``, else None.

    Every page answer may be passed: only those that show the site serving
    (:func:`shows_site_serving`) count, and only the first of an error streak changes the
    state (:func:`.states.note_page_ok`).
    """
    if not shows_site_serving(status):
        return None
    return note_page_ok(state, now)


def _names_a_wait(retry_after: str | None) -> bool:
    """Whether ``Retry-After`` asks for a wait: delta-seconds above 0, or an HTTP date."""
    delay = retry_after_seconds(retry_after, 0.0)  # a date is then far ahead of "now"
    return delay is not None and delay > 0


def _server_error(
    result: FetchResult, reason: str, now: float, previous: OriginState | None, cfg: PolicyConfig
) -> OriginState:
    """A server error's state: the streak goes on (or starts), the last good copy is kept."""
    page_ok_at = None
    validators = None
    if previous is None:
        robots, good_at, since, errors = None, None, now, 1
    else:
        robots, good_at, validators = previous.robots, previous.good_at, previous.validators
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
        validators=validators,
    )


#: The reason of a 304 whose validators name a copy the store no longer holds as it was.
NOT_MODIFIED_UNKNOWN_COPY = "304 for a copy no longer stored"


def _revalidated(
    result: FetchResult, now: float, previous: OriginState | None, cfg: PolicyConfig
) -> OriginState:
    """A 304 to a conditional request: the copy it named is in force again, for a new TTL.

    The TTL is read from the 304's ``Cache-Control`` (RFC 9110 15.4.5: the server sends the
    one a 200 would carry); its validators update the stored ones. If the store no longer
    holds the copy those validators named (replaced meanwhile), nothing can be obeyed: a
    server error, retried with backoff, never "no restrictions".
    """
    if previous is None or previous.robots is None or previous.validators != result.sent:
        return _server_error(result, NOT_MODIFIED_UNKNOWN_COPY, now, previous, cfg)
    old = previous.validators
    assert old is not None
    new = validators_of(result.etag, result.last_modified)
    if new is not None:
        new = Validators(new.etag or old.etag, new.last_modified or old.last_modified)
    return OriginState(
        kind=Kind.RULES,
        reason=str(NOT_MODIFIED),
        fetched_at=now,
        refresh_at=now + ttl(result.cache_control, cfg),
        robots=previous.robots,
        good_at=now,
        status=NOT_MODIFIED,
        validators=new or old,
    )


def evaluate(
    result: FetchResult, now: float, previous: OriginState | None, cfg: PolicyConfig
) -> OriginState:
    """The origin's new state after a fetch ended with ``result`` at time ``now``."""
    if is_server_error(result):
        reason = result.error or str(result.status)
        if proxy_refused(result):
            reason = f"{PROXY_REFUSED} ({reason})"
        return _server_error(result, reason, now, previous, cfg)
    assert result.status is not None
    if is_revalidation(result):
        return _revalidated(result, now, previous, cfg)
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
            validators=validators_of(result.etag, result.last_modified),
        )
    # 3xx at the end of the chain (limit reached, or no usable Location; a 304 to a request
    # without validators too) or 4xx but 429.
    reason = str(result.status)
    if is_redirect(result.status):
        limit = result.redirects >= cfg.max_redirects
        reason = "redirect limit" if limit else "unusable redirect"
    return OriginState(
        kind=Kind.ALLOW_ALL,
        reason=reason,
        fetched_at=now,
        refresh_at=expires,
        robots=None,
        good_at=now,
        status=result.status,
    )
