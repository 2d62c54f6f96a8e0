"""One robots.txt fetch: redirects, immediate retries, the fleet's fetch lock, stored states.

The gate asks for a fetch (:meth:`Fetcher.start`); the fetcher downloads through Scrapy's
own downloader (so proxies, headers and handlers apply), follows HTTP redirects itself,
lets :mod:`..policy.fetch` interpret the outcome, stores the new state, tells telemetry,
and reports back to the gate exactly once. With a persistent store it first looks for a
fresh state another process wrote, and fetches under the origin's lock.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import Deferred, DeferredList

from .._compat import engine_download, reserve_download_slot
from .._meta import DONT_OBEY, FETCH_META
from ..policy.fetch import FetchResult, evaluate, next_hop, retry_at_once
from ..policy.origin import robots_url
from .body import DATALOSS_FLAG, TRUNCATED_FLAG

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from .._settings import Config
    from ..policy.states import OriginState
    from ..stores.base import PersistentStore
    from ..stores.tiered import TieredStore
    from .gate import Gate
    from .keys import Tokens
    from .telemetry import Telemetry

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: How long a process waits before looking again when another holds an origin's fetch lock.
LOCK_POLL = 1.0
#: Above the spider's pages in the downloader's queues.
PRIORITY = 1000
#: Seconds a robots.txt download started near the end of a close may still take.
MIN_CLOSING_TIMEOUT = 1.0


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
    """Fetches robots.txt for the gate; see the module docstring."""

    def __init__(
        self,
        config: Config,
        store: TieredStore,
        downloader: Downloader,
        telemetry: Telemetry,
        *,
        token: Tokens,
        lock_ttl: float,
    ) -> None:
        self.config = config
        self.policy = config.policy
        self.clock = config.clock
        self.store = store
        self.downloader = downloader
        self.telemetry = telemetry
        self.token = token
        self.lock_ttl = lock_ttl
        #: Set by the wiring: who asked for fetches and hears when they end.
        self.gate: Gate[Any] | None = None
        self.closing = False  # no immediate retry once the spider closes
        self._running: set[Deferred[None]] = set()
        self._read_seen: set[str] = set()  # origins read back from the store (bounded)

    # -- the gate's side ----------------------------------------------------------------------
    def start(self, origin: str, why: str) -> None:
        """Start the origin's fetch on the next reactor turn (never re-entrant in the gate)."""
        from twisted.internet import reactor

        self.telemetry.fetch_wanted(why)
        clock: Any = reactor
        clock.callLater(0, self._launch, origin)

    def _launch(self, origin: str) -> None:
        d = deferred_from_coro(self.fetch(origin))
        self._running.add(d)
        d.addBoth(self._ended, d)

        def log(failure: Failure) -> None:
            logger.error(
                "Error fetching robots.txt of %s: %s",
                origin,
                failure.getErrorMessage(),
                exc_info=failure.value,
            )

        d.addErrback(log)

    def _ended(self, result: Any, d: Deferred[None]) -> Any:
        self._running.discard(d)
        return result

    def close(self, timeout: float) -> Deferred[Any] | None:
        """Stop retrying at once; a Deferred for the fetches still deciding (None: none)."""
        self.closing = True
        if not self._running:
            return None
        from twisted.internet import reactor

        waiting: Deferred[Any] = DeferredList(list(self._running), consumeErrors=True)
        waiting.addTimeout(timeout, reactor)
        return waiting

    def read_back(self, origin: str, state: OriginState) -> None:
        """A state memory had forgotten (or a restart never saw) came back from the store."""
        if origin in self._read_seen:  # signals and report once per origin and process
            return
        if len(self._read_seen) >= self.config.cache_size:
            self._read_seen.clear()
        self._read_seen.add(origin)
        from twisted.internet import reactor

        # Not from inside the store lookup (a hot path, maybe inside our own signal
        # handler): handlers of robots_parsed may schedule requests.
        clock: Any = reactor
        clock.callLater(0, self._decided, origin, state, None, "read back")

    # -- one fetch ----------------------------------------------------------------------------
    async def fetch(self, origin: str) -> None:
        """Decide the origin's state, then report back to the gate exactly once."""
        recheck_at: float | None = None
        try:
            persistent = self.store.persistent
            if persistent is None:
                await self._download_and_decide(origin)
            else:
                recheck_at = await self._fetch_shared(origin, persistent)
        except Exception as exc:
            # A bug must not retry in a hot loop nor lose requests: count it as a server
            # error, so the origin is retried with backoff and its requests stay parked.
            logger.exception("Unexpected error while deciding robots.txt of %s", origin)
            previous = self.store.get(origin)
            failed = FetchResult(status=None, error=type(exc).__name__)
            state = evaluate(failed, self.clock(), previous, self.policy)
            self.store.put(origin, state)
            try:
                self._decided(origin, state, previous)
            except Exception:  # the report or a signal handler: the state is stored already
                logger.exception("Error while recording robots.txt of %s", origin)
        finally:
            self.telemetry.fetch_ended(origin)
            if self.gate is not None:
                self.gate.fetch_done(origin, self.clock(), recheck_at=recheck_at)

    async def _fetch_shared(self, origin: str, persistent: PersistentStore) -> float | None:
        """Use a fresh stored state if there is one; else fetch under the origin's lock.

        Returns when to look again if another process holds the lock (its result will be
        in the store), else None.
        """
        local = self.store.get(origin)
        if self._adopt(origin, local, await persistent.load(origin)):
            return None
        if not await persistent.acquire(origin, self.lock_ttl):
            self.telemetry.lock_waited()
            return self.clock() + LOCK_POLL
        try:
            stored = await persistent.load(origin)  # the last holder may have just written
            if self._adopt(origin, local, stored):
                return None
            await self._download_and_decide(origin, stored)
        finally:
            await persistent.release(origin)
        return None

    def _adopt(self, origin: str, local: OriginState | None, stored: OriginState | None) -> bool:
        """Take a stored state that is still fresh (and newer than ours) instead of fetching."""
        if stored is None or stored.refresh_at <= self.clock():
            return False
        if local is not None and stored.fetched_at <= local.fetched_at:
            return False
        self.store.remember(origin, stored)
        self._decided(origin, stored, local, source="stored")
        return True

    async def _download_and_decide(self, origin: str, stored: OriginState | None = None) -> None:
        """Fetch robots.txt and store the state the policy makes of it.

        The previous state is read after the download: pages answered meanwhile may have
        updated it ("site generally available"), and that must not be overwritten.
        """
        result = await self._get(origin)
        previous = self.store.get(origin)
        if stored is not None and (previous is None or stored.fetched_at > previous.fetched_at):
            previous = stored
        state = evaluate(result, self.clock(), previous, self.policy)
        self.store.put(origin, state)
        self._decided(origin, state, previous)

    def _decided(
        self,
        origin: str,
        state: OriginState,
        previous: OriginState | None,
        source: str = "fetch",
    ) -> None:
        self.telemetry.decided(
            origin, state, previous, token=self.token, trigger=self._trigger(origin), source=source
        )

    def _trigger(self, origin: str) -> Callable[[], Request]:
        """The request that made the origin's robots.txt wanted (for ``robots_parsed``)."""

        def trigger() -> Request:
            item = self.gate.peek(origin) if self.gate is not None else None
            if isinstance(item, Request):
                return item
            return self.request(robots_url(origin), origin)

        return trigger

    async def _get(self, origin: str) -> FetchResult:
        """Download robots.txt; retry at once what ``retry_at_once`` allows (``RETRY_TIMES``)."""
        result = await self._get_once(origin)
        for _ in range(self.config.retry_times):
            if not retry_at_once(result) or self.closing or self._gate_closing():
                break
            self.telemetry.retried_at_once()
            result = await self._get_once(origin)
        return result

    async def _get_once(self, origin: str) -> FetchResult:
        """One download of robots.txt, following HTTP redirects ourselves (never meta refresh)."""
        url = robots_url(origin)
        hops = 0
        telemetry = self.telemetry
        while True:
            telemetry.sent()
            try:
                response = await self.downloader.download(self.request(url, origin))
            except Exception as exc:
                # Any failure, IgnoreRequest from another component included, is a failure to
                # get the file: a server error (never "no restrictions", which would fail open).
                telemetry.failed(origin, url, exc)
                return FetchResult(status=None, error=type(exc).__name__, redirects=hops)
            telemetry.answered(origin, url, response.status)
            location = response.headers.get(b"Location")
            target = next_hop(
                url,
                response.status,
                location.decode("latin-1") if location else None,
                hops,
                self.policy,
            )
            if target is not None:
                hops += 1
                url = target
                continue
            cache_control = response.headers.get(b"Cache-Control")
            retry_after = response.headers.get(b"Retry-After")
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
            )

    def _gate_closing(self) -> bool:
        return self.gate is not None and self.gate.closing

    def _timeout(self) -> float:
        """The download timeout; while the crawl closes, no later than the close's deadline."""
        timeout = self.config.download_timeout
        deadline = self.gate.close_deadline if self.gate is not None else None
        if deadline is not None:
            timeout = min(timeout, max(deadline - self.clock(), MIN_CLOSING_TIMEOUT))
        return timeout

    def request(self, url: str, origin: str) -> Request:
        """A robots.txt request of ``origin``: the meta keys are documented in docs/meta.md."""
        return Request(
            url,
            priority=PRIORITY,
            meta={
                DONT_OBEY: True,
                "dont_redirect": True,
                "download_timeout": self._timeout(),
                # Immediate retries are ours (see _get): a 5xx here is a state we handle,
                # not an error for RetryMiddleware to log.
                "dont_retry": True,
                "handle_httpstatus_all": True,
                # RobotsBodyMiddleware stops reading at GBOT_ROBOTS_MAX_BYTES of content,
                # whatever the size or encoding: Scrapy's own size limit must not fail it.
                "download_maxsize": 0,
                "download_warnsize": 0,
                # Scrapy's HTTP cache, when on, keeps robots.txt like any page (so an offline
                # replay obeys what the recorded crawl obeyed); RobotsBodyMiddleware sets
                # dont_cache on a download it stops at the size cap.
                FETCH_META: origin,
            },
            callback=NO_CALLBACK,
            dont_filter=True,
        )
