"""One robots.txt fetch: redirects, immediate retries, the fleet's fetch lock, stored states.

The coordinator asks for a fetch (:meth:`Fetcher.fetch`); the fetcher downloads through
Scrapy's own downloader (so proxies, headers and handlers apply; the request travels the way
the request that made it wanted does, credentials included: :mod:`.route`), follows HTTP
redirects itself, sends a stored copy's validators (``If-None-Match`` / ``If-Modified-Since``)
so that an unchanged file costs a 304, lets :mod:`..policy.fetch` interpret the outcome,
stores the new state, and returns what happened (:class:`Outcome`). It knows nothing of the
gate. With a persistent store it first looks for a fresh state another process wrote, and
fetches under the origin's lock.

The close (:mod:`.lifecycle`): before each download (the first, a redirect hop, a retry) the
fetch asks ``proceed()``; once the crawl closes, it goes on only for a download that waits in
place, which the engine waits for. A fetch cut short establishes nothing: no state is
stored or reported, so a resumed crawl fetches again instead of obeying a failure the
close caused. A download already under way is the server's to answer (the engine waits
for it): its outcome, a timeout included, is recorded. Once the crawl is closed, nothing
is stored at all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK

from .._compat import engine_download, reserve_download_slot
from .._meta import DONT_OBEY, FETCH_META
from ..policy.fetch import (
    FetchResult,
    conditional_headers,
    evaluate,
    next_hop,
    proxy_refused,
    retry_at_once,
)
from ..policy.origin import robots_url
from .body import DATALOSS_FLAG, TRUNCATED_FLAG
from .route import Route, proxy_named

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from .._settings import Config
    from ..policy.states import OriginState, Validators
    from ..stores.base import PersistentStore
    from ..stores.tiered import TieredStore
    from .lifecycle import Lifecycle
    from .telemetry import FetchEvents

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: How long a process waits before looking again when another holds an origin's fetch lock.
LOCK_POLL = 1.0
#: Above the spider's pages in the downloader's queues.
PRIORITY = 1000
#: Seconds a robots.txt download started near the end of a close may still take.
MIN_CLOSING_TIMEOUT = 1.0


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one fetch established.

    ``state`` is the origin's new state (None: nothing was established), ``previous`` the one
    it replaced, ``source`` ``"fetch"`` (downloaded now) or ``"stored"`` (a fresh state
    another process wrote). ``recheck_at``: another process holds the fetch lock; look again
    then. ``cut``: the crawl's close cut the fetch short.
    """

    state: OriginState | None = None
    previous: OriginState | None = None
    source: str = "fetch"
    recheck_at: float | None = None
    cut: bool = False


_CUT = Outcome(cut=True)


class _Cut(Exception):
    """The close cut the fetch short (internal: never leaves :meth:`Fetcher.fetch`)."""


class Downloader(Protocol):
    """What the fetcher needs of Scrapy: one download, through the downloader middlewares."""

    async def download(self, request: Request) -> Response: ...


class EngineDownloader:
    """Downloads through the crawler's engine, widening its limit while a robots.txt downloads.

    Robots.txt downloads have their own budget (the gate's), so pages of decided origins
    keep their ``CONCURRENT_REQUESTS`` meanwhile.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    async def download(self, request: Request) -> Response:
        engine = self.crawler.engine
        reserve_download_slot(engine, +1)
        try:
            return await engine_download(engine, request)
        finally:
            reserve_download_slot(engine, -1)


class Fetcher:
    """Fetches robots.txt; see the module docstring."""

    def __init__(
        self,
        config: Config,
        store: TieredStore,
        downloader: Downloader,
        telemetry: FetchEvents,
        lifecycle: Lifecycle,
        *,
        lock_ttl: float,
        bounded_body: bool,
        revalidate: bool = True,
    ) -> None:
        self.config = config
        self.policy = config.policy
        self.clock = config.clock
        self.store = store
        self.downloader = downloader
        self.telemetry = telemetry
        self.lifecycle = lifecycle
        self.lock_ttl = lock_ttl
        # RobotsBodyMiddleware stops reading at GBOT_ROBOTS_MAX_BYTES of content, whatever
        # the size or encoding: with it in the chain, Scrapy's own size limit must not fail
        # the download. Without it, Scrapy's limit is the only bound: keep one.
        self._maxsize = 0 if bounded_body else self.policy.max_bytes
        # Whether a stored copy's validators are sent (not when Scrapy's HTTP cache is on:
        # it keeps, revalidates or replays robots.txt itself; see crawl/wiring.py).
        self.revalidate = revalidate

    async def fetch(
        self,
        origin: str,
        *,
        route: Route | None = None,
        proceed: Callable[[], bool] = lambda: True,
        deadline: Callable[[], float | None] = lambda: None,
    ) -> Outcome:
        """Decide the origin's state (see :class:`Outcome`); never raises.

        ``route``: how the request that made the fetch wanted travels (:mod:`.route`).
        ``proceed()``: whether another download may start (see the module doc).
        ``deadline()``: when the close gives up (None while the crawl runs), which bounds
        each download's timeout.
        """
        try:
            persistent = self.store.persistent
            if persistent is None:
                known = self.store.get(origin)
                return await self._download_and_decide(origin, route, proceed, deadline, known)
            return await self._fetch_shared(origin, persistent, route, proceed, deadline)
        except _Cut:
            return _CUT
        except Exception as exc:
            if self.lifecycle.closed:
                return _CUT
            # A bug must not retry in a hot loop nor lose requests: count it as a server
            # error, so the origin is retried with backoff and its requests stay parked.
            logger.exception("Unexpected error while deciding robots.txt of %s", origin)
            previous = self.store.get(origin)
            failed = FetchResult(status=None, error=type(exc).__name__)
            state = evaluate(failed, self.clock(), previous, self.policy)
            self.store.put(origin, state)
            return Outcome(state, previous)

    async def _fetch_shared(
        self,
        origin: str,
        persistent: PersistentStore,
        route: Route | None,
        proceed: Callable[[], bool],
        deadline: Callable[[], float | None],
    ) -> Outcome:
        """Use a fresh stored state if there is one; else fetch under the origin's lock."""
        local = self.store.get(origin)
        adopted = self._adopt(origin, local, await persistent.load(origin))
        if adopted is not None:
            return adopted
        if not await persistent.acquire(origin, self.lock_ttl):
            self.telemetry.lock_waited()
            return Outcome(recheck_at=self.clock() + LOCK_POLL)
        try:
            stored = await persistent.load(origin)  # the last holder may have just written
            adopted = self._adopt(origin, local, stored)
            if adopted is not None:
                return adopted
            known = _newer(local, stored)
            return await self._download_and_decide(
                origin, route, proceed, deadline, known, stored
            )
        finally:
            if not self.lifecycle.closed:  # a closed store has let go of its locks
                await persistent.release(origin)

    def _adopt(
        self, origin: str, local: OriginState | None, stored: OriginState | None
    ) -> Outcome | None:
        """Take a stored state that is still fresh (and not older than ours) instead of
        fetching: ours may be that very state, read back from the file on the way in."""
        if stored is None or stored.refresh_at <= self.clock():
            return None
        if local is not None and stored.fetched_at < local.fetched_at:
            return None
        if self.lifecycle.closed:
            raise _Cut
        self.store.remember(origin, stored)
        return Outcome(stored, local, source="stored")

    async def _download_and_decide(
        self,
        origin: str,
        route: Route | None,
        proceed: Callable[[], bool],
        deadline: Callable[[], float | None],
        known: OriginState | None,
        stored: OriginState | None = None,
    ) -> Outcome:
        """Fetch robots.txt and store the state the policy makes of it.

        ``known``: the state before the fetch (expired, or failing), whose copy's validators
        the request carries. The previous state is read again after the download: pages
        answered meanwhile may have updated it ("site generally available"), and that must
        not be overwritten.
        """
        sent, headers = conditional_headers(known) if self.revalidate else (None, {})
        result = await self._get(origin, route, proceed, deadline, sent, headers)
        if self.lifecycle.closed:
            raise _Cut
        previous = self.store.get(origin)
        if stored is not None and (previous is None or stored.fetched_at > previous.fetched_at):
            previous = stored
        state = evaluate(result, self.clock(), previous, self.policy)
        self.store.put(origin, state)
        if proxy_refused(result):
            again = previous is not None and previous.reason == state.reason
            self.telemetry.proxy_refused(origin, result.proxy, state.reason, first=not again)
        return Outcome(state, previous)

    async def _get(
        self,
        origin: str,
        route: Route | None,
        proceed: Callable[[], bool],
        deadline: Callable[[], float | None],
        sent: Validators | None,
        headers: dict[str, str],
    ) -> FetchResult:
        """Download robots.txt; retry at once what ``retry_at_once`` allows (``RETRY_TIMES``)."""
        result = await self._get_once(origin, route, proceed, deadline, sent, headers)
        for _ in range(self.config.retry_times):
            if not retry_at_once(result) or self.lifecycle.closing:  # a close ends quickly
                break
            self.telemetry.retried_at_once()
            result = await self._get_once(origin, route, proceed, deadline, sent, headers)
        return result

    async def _get_once(
        self,
        origin: str,
        route: Route | None,
        proceed: Callable[[], bool],
        deadline: Callable[[], float | None],
        sent: Validators | None = None,
        headers: dict[str, str] | None = None,
    ) -> FetchResult:
        """One download of robots.txt, following HTTP redirects ourselves (never meta refresh).

        ``sent``: the validators ``headers`` carry (every hop carries them: the copy they
        name is whatever the chain ended on last time).
        """
        url = robots_url(origin)
        hops = 0
        telemetry = self.telemetry
        while True:
            if not proceed():
                raise _Cut
            telemetry.sent()
            request = self.request(url, origin, route, deadline(), conditional=headers)
            try:
                response = await self.downloader.download(request)
            except Exception as exc:
                # Any failure, IgnoreRequest from another component included, is a failure to
                # get the file: a server error (never "no restrictions", which would fail open).
                telemetry.failed(origin, url, exc)
                return FetchResult(
                    status=None, error=type(exc).__name__, redirects=hops, proxy=_proxy(request)
                )
            telemetry.answered(origin, url, response.status)
            location = response.headers.get(b"Location")
            target = next_hop(
                url,
                response.status,
                location.decode("latin-1") if location else None,
                hops,
                self.policy,
                conditional=sent is not None,
            )
            if target is not None:
                hops += 1
                url = target
                continue
            cache_control = response.headers.get(b"Cache-Control")
            retry_after = response.headers.get(b"Retry-After")
            etag = response.headers.get(b"ETag")
            last_modified = response.headers.get(b"Last-Modified")
            return FetchResult(
                status=response.status,
                body=response.body,
                cache_control=cache_control.decode("latin-1") if cache_control else None,
                retry_after=retry_after.decode("latin-1") if retry_after else None,
                # Only "dataloss" is a cut transfer ("partial" is also a body that ends when
                # the connection closes, complete: RFC 9112 6.3); RobotsBodyMiddleware raises
                # for a cut 2xx before this, when it is installed.
                error="data loss" if DATALOSS_FLAG in response.flags else None,
                redirects=hops,
                truncated=TRUNCATED_FLAG in response.flags,
                proxy=_proxy(request),
                etag=etag.decode("latin-1") if etag else None,
                last_modified=last_modified.decode("latin-1") if last_modified else None,
                sent=sent,
            )

    def _timeout(self, deadline: float | None) -> float:
        """The download timeout; while the crawl closes, no later than the close's deadline."""
        timeout = self.config.download_timeout
        if deadline is not None:
            timeout = min(timeout, max(deadline - self.clock(), MIN_CLOSING_TIMEOUT))
        return timeout

    def request(
        self,
        url: str,
        origin: str,
        route: Route | None = None,
        deadline: float | None = None,
        *,
        conditional: dict[str, str] | None = None,
    ) -> Request:
        """A robots.txt request of ``origin``: the meta keys are documented in docs/meta.md.

        ``conditional``: the ``If-None-Match`` / ``If-Modified-Since`` headers of a refresh.
        """
        meta: dict[str, Any] = {
            DONT_OBEY: True,
            "dont_redirect": True,
            "download_timeout": self._timeout(deadline),
            # Immediate retries are ours (see _get): a 5xx here is a state we handle,
            # not an error for RetryMiddleware to log.
            "dont_retry": True,
            "handle_httpstatus_all": True,
            "download_maxsize": self._maxsize,
            "download_warnsize": 0,
            # Scrapy's HTTP cache, when on, keeps robots.txt like any page (so an offline
            # replay obeys what the recorded crawl obeyed); RobotsBodyMiddleware sets
            # dont_cache on a download it stops at the size cap.
            FETCH_META: origin,
        }
        headers: dict[bytes, bytes] = {}
        for name, value in (conditional or {}).items():
            headers[name.encode("ascii")] = value.encode("ascii")
        if route is not None:
            route.apply(url, meta, headers)
        return Request(
            url,
            priority=PRIORITY,
            meta=meta,
            headers=headers or None,
            callback=NO_CALLBACK,
            dont_filter=True,
        )


def _newer(local: OriginState | None, stored: OriginState | None) -> OriginState | None:
    """The later of this process's state and the persistent store's (by fetch time)."""
    if stored is not None and (local is None or stored.fetched_at > local.fetched_at):
        return stored
    return local


def _proxy(request: Request) -> str | None:
    """The proxy a download went through, without its credentials (None: went direct).

    Scrapy's proxy middleware leaves the proxy it used in ``meta["proxy"]`` (the spider's,
    or the environment's ``http_proxy``): a status then may be the proxy's own answer.
    """
    proxy = request.meta.get("proxy")
    return proxy_named(proxy) if proxy else None
