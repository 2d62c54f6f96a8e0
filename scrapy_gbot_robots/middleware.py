"""The Scrapy adapter: park undecided requests, fetch robots.txt through the engine, obey.

How a request travels (see docs/ and /work/notes/README-middleware.md for the why):

1. **Scheduling** (``request_scheduled`` signal, fired by ``engine.crawl()`` for start
   requests, callback output, redirects and retries alike): if the request's origin has no
   usable decision yet, the request is *parked* here, outside the scheduler and the
   downloader, and the origin's robots.txt fetch starts (once per origin per expiry).
   Raising ``IgnoreRequest`` from the handler keeps it out of the scheduler (the mechanism
   Scrapy's own ``OffsiteMiddleware`` uses), so a waiting request holds no download slot.
2. **Fetch**: ``crawler.engine.download_async()`` with ``dont_obey_robotstxt`` and
   ``dont_redirect``; redirects are followed here, the outcome is handed to ``_policy``.
3. **Decision**: parked requests go back through ``engine.crawl()``; an origin stopped for
   server errors keeps them parked until a retry succeeds or ``GBOT_ROBOTS_PARK_TIMEOUT``.
4. **Download** (``process_request``, the final check): forbidden requests raise
   ``IgnoreRequest``; a request whose origin became undecided meanwhile is sent back to
   step 1 instead of waiting in a download slot.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from typing import TYPE_CHECKING, Any

from pydispatch import dispatcher  # type: ignore[import-untyped]
from scrapy import signals as scrapy_signals
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from . import signals
from ._agent import is_valid_token, product_token
from ._cache import MemoryStore, OriginStore
from ._origin import origin_of, robots_url
from ._policy import (
    FetchResult,
    Kind,
    Mode,
    OriginState,
    evaluate,
    is_server_error,
    mode_at,
    next_hop,
)
from ._rules import RobotsTxt
from ._settings import ConfigError, configured_token, load

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: meta key set on our own robots.txt requests (value: the origin key).
FETCH_META = "gbot_robots_fetch"
_SCHEDULED = "_gbot_robots_scheduled"  # passed our scheduling check at least once
_BOUNCED = "_gbot_robots_bounced"  # sent back from the downloader to be parked
_NOT_OBEYED = ""  # memo value for scheme/netloc pairs without robots.txt scope
_SCHEME_NETLOC = re.compile(r"[^:/?#]*://[^/?#]*").match


class _Parked:
    __slots__ = ("deadline", "request")

    def __init__(self, request: Request, deadline: float) -> None:
        self.request = request
        self.deadline = deadline


class GoogleRobotsTxtMiddleware:
    """Downloader middleware obeying robots.txt as Googlebot does; install it via ``Addon``."""

    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler) -> None:
        config = load(crawler.settings.get)
        if not config.obey:
            raise NotConfigured("ROBOTSTXT_OBEY is False")
        self.crawler = crawler
        self.config = config
        self.policy = config.policy
        self.clock = config.clock
        store = config.store(config.cache_size) if config.store else MemoryStore(config.cache_size)
        if not isinstance(store, OriginStore):
            raise ConfigError("GBOT_ROBOTS_STORE", f"{store!r} does not implement OriginStore")
        self.store: OriginStore = store
        token, source, warning = configured_token(config)
        self.token = token
        self.token_source = source
        if warning:
            logger.warning(warning)
        # ROBOTSTXT_USER_AGENT fixes the token; otherwise each request's User-Agent header
        # (falling back to USER_AGENT) is reduced, memoised per header value.
        self._fixed_token: str | None = token if source == "ROBOTSTXT_USER_AGENT" else None
        self._ua_tokens: dict[bytes, str] = {}
        self._meta_tokens: dict[str, str] = {}
        self._origins: dict[str, str] = {}
        self._parked: dict[str, deque[_Parked]] = {}
        self._parked_count = 0
        self._fetching: dict[str, bool] = {}  # origin -> do requests wait for this fetch?
        self._waiters: dict[str, list[Deferred[None]]] = {}
        self._page_ok: dict[str, float] = {}  # origins in server error -> last page response
        self._releasing: Request | None = None
        self._closed = False
        self._hits = 0
        self._loop: LoopingCall | None = None
        self._offsite: Any = None
        self.stats = crawler.stats
        crawler.signals.connect(self._request_scheduled, signal=scrapy_signals.request_scheduled)
        crawler.signals.connect(self._spider_idle, signal=scrapy_signals.spider_idle)
        crawler.signals.connect(self._spider_opened, signal=scrapy_signals.spider_opened)
        crawler.signals.connect(self._spider_closed, signal=scrapy_signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # -- public helpers -------------------------------------------------------------------
    def origin_state(self, url: str) -> OriginState | None:
        """The remembered robots.txt state of ``url``'s origin (None when unknown)."""
        origin = self._origin_of_url(url)
        return self.store.get(origin) if origin else None

    def sitemaps(self, url: str) -> tuple[str, ...]:
        """Sitemap URLs of the robots.txt in force for ``url``'s origin (empty if none yet)."""
        state = self.origin_state(url)
        if state is None or state.robots is None:
            return ()
        return state.robots.sitemaps

    # -- origins and tokens ---------------------------------------------------------------
    def _origin_of(self, request: Request) -> str:
        return self._origin_of_url(request.url)

    def _origin_of_url(self, url: str) -> str:
        """Origin key, memoised by ``scheme://netloc``: a regex match, no full URL parse."""
        match = _SCHEME_NETLOC(url)
        if match is None:
            return _NOT_OBEYED
        prefix = match.group()
        origin = self._origins.get(prefix)
        if origin is None:
            origin = origin_of(prefix) or _NOT_OBEYED
            if len(self._origins) >= 100_000:
                self._origins.clear()
            self._origins[prefix] = origin
        return origin

    def _token_for(self, request: Request) -> str:
        override = request.meta.get("robotstxt_user_agent")
        if override:
            token = self._meta_tokens.get(override)
            if token is None:
                token = override if is_valid_token(override) else product_token(str(override))
                if len(self._meta_tokens) >= 1000:
                    self._meta_tokens.clear()
                self._meta_tokens[override] = token
            return token
        if self._fixed_token is not None:
            return self._fixed_token
        headers = request.headers
        if not headers:  # usual here: Scrapy's UserAgentMiddleware runs after us
            return self.token
        header = headers.get(b"User-Agent")
        if not header:
            return self.token
        token = self._ua_tokens.get(header)
        if token is None:
            token = product_token(header.decode("latin-1"))
            if len(self._ua_tokens) >= 1000:
                self._ua_tokens.clear()
            self._ua_tokens[header] = token
        return token

    def _mode(self, origin: str, state: OriginState, now: float) -> Mode:
        kind = state.kind
        if kind is Kind.RULES:
            return Mode.RULES
        if kind is Kind.ALLOW_ALL:
            return Mode.ALLOW_ALL
        return mode_at(state, now, self._page_ok.get(origin), self.policy)[0]

    # -- downloader middleware ------------------------------------------------------------
    def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """The final check, on the hot path: obey the origin's decided rules."""
        meta = request.meta
        if meta.get("dont_obey_robotstxt"):
            return None
        origin = self._origin_of(request)
        if not origin:
            return None
        state = self.store.get(origin)
        if state is not None:
            kind = state.kind
            if kind is Kind.RULES:
                robots = state.robots
            elif kind is Kind.ALLOW_ALL:
                return None
            else:
                mode = mode_at(state, self.clock(), self._page_ok.get(origin), self.policy)[0]
                if mode is Mode.ALLOW_ALL:
                    return None
                robots = state.robots if mode is Mode.RULES else None
                if mode is Mode.STOPPED:
                    return self._undecided(request, origin)
            assert robots is not None
            token = self._token_for(request)
            if robots.allowed(request.url, token):
                return None
            self._forbid(request, robots, token)
        return self._undecided(request, origin)

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        """Remember that an origin in server error still answers other pages."""
        if self._page_ok and response.status < 500 and FETCH_META not in request.meta:
            origin = self._origin_of(request)
            if origin in self._page_ok:
                self._page_ok[origin] = self.clock()
        return response

    def _forbid(self, request: Request, robots: RobotsTxt, token: str) -> None:
        self.stats.inc_value("robotstxt/forbidden")
        # Finding the deciding line costs more than the verdict: only when someone looks.
        log = logger.isEnabledFor(logging.DEBUG)
        listeners = self._has_receivers(signals.request_forbidden)
        if log or listeners:
            decision = robots.decide(request.url, token)
            if log:
                logger.debug(
                    "Forbidden by robots.txt: %(request)s (line %(line)d: %(rule)r, "
                    "user agent %(token)r)",
                    {
                        "request": request,
                        "line": decision.line,
                        "rule": decision.rule,
                        "token": token,
                    },
                    extra={"spider": self.crawler.spider},
                )
            if listeners:
                self.crawler.signals.send_catch_log(
                    signal=signals.request_forbidden,
                    request=request,
                    spider=self.crawler.spider,
                    decision=decision,
                )
        raise IgnoreRequest("Forbidden by robots.txt")

    def _has_receivers(self, signal: object) -> bool:
        """Whether any handler is connected to one of our signals for this crawler."""
        sender = getattr(self.crawler.signals, "sender", dispatcher.Anonymous)
        return any(True for _ in dispatcher.getAllReceivers(sender, signal))

    def _undecided(self, request: Request, origin: str) -> Any:
        """A request reached the downloader without a usable decision for its origin.

        A scheduled request goes back to the engine to be parked (no slot held); one that
        bypassed the scheduler (``engine.download_async()`` by other code) waits here.
        """
        if request.meta.get(_SCHEDULED):
            request.meta[_BOUNCED] = True
            self.stats.inc_value("robotstxt/bounced")
            return request
        return self._wait_then_check(request, origin)

    async def _wait_then_check(self, request: Request, origin: str) -> None:
        self._start_fetch(origin, request, blocking=True)
        waiter: Deferred[None] = Deferred()
        self._waiters.setdefault(origin, []).append(waiter)
        await maybe_deferred_to_future(waiter)
        state = self.store.get(origin)
        if state is None or self._mode(origin, state, self.clock()) is Mode.STOPPED:
            self._count_drop(request, "robots.txt unavailable")
            raise IgnoreRequest("robots.txt unavailable (server error)")
        result = self.process_request(request)  # None, IgnoreRequest, or wait once more
        if result is not None:
            await result

    # -- parking --------------------------------------------------------------------------
    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        """Park requests whose origin is undecided, before they reach the scheduler."""
        if request is self._releasing:
            return
        meta = request.meta
        if meta.get("dont_obey_robotstxt"):
            return
        origin = self._origin_of(request)
        if not origin:
            return
        if self._offsite_drops(request):
            return  # another handler drops it: fetching its robots.txt would be wasted
        if meta.get(_BOUNCED):
            self._park(request, origin)
            self._wake_soon(origin)
            raise IgnoreRequest("parked until robots.txt is decided")
        now = self.clock()
        state = self.store.get(origin)
        waiting = self._fetching.get(origin)
        if waiting or origin in self._parked:
            self._park(request, origin)
            raise IgnoreRequest("parked until robots.txt is decided")
        if state is None:
            self.stats.inc_value("robotstxt/cache/miss")
            self._park(request, origin)
            self._start_fetch(origin, request, blocking=True)
            raise IgnoreRequest("parked until robots.txt is decided")
        mode = self._mode(origin, state, now)
        if state.refresh_at <= now and waiting is None:
            if state.kind is Kind.SERVER_ERROR and mode is not Mode.STOPPED:
                # Grace period: keep obeying the fallback, retry in the background.
                self._start_fetch(origin, request, blocking=False)
            else:
                # Expired good copy, or a due retry: the new file decides later requests.
                self.stats.inc_value(
                    "robotstxt/cache/expired"
                    if state.kind is not Kind.SERVER_ERROR
                    else "robotstxt/retry"
                )
                self._park(request, origin)
                self._start_fetch(origin, request, blocking=True)
                raise IgnoreRequest("parked until robots.txt is decided")
        if mode is Mode.STOPPED:
            self._park(request, origin)
            raise IgnoreRequest("parked: origin stopped after robots.txt server errors")
        self._hits += 1
        meta[_SCHEDULED] = True

    def _offsite_drops(self, request: Request) -> bool:
        """Whether Scrapy's OffsiteMiddleware, also listening to ``request_scheduled``, drops it.

        Signal handlers cannot see each other's verdicts, so without this an offsite request
        would still be parked and its robots.txt fetched, for a site never crawled.
        """
        offsite = self._offsite
        if offsite is None or request.dont_filter or request.meta.get("allow_offsite"):
            return False
        try:
            return not offsite.should_follow(request, self.crawler.spider)
        except Exception:  # a custom should_follow we do not understand: assume it follows
            return False

    def _park(self, request: Request, origin: str) -> None:
        queue = self._parked.get(origin)
        if queue is None:
            queue = self._parked[origin] = deque()
        queue.append(_Parked(request, self.clock() + self.config.park_timeout))
        self._parked_count += 1
        self.stats.inc_value("robotstxt/deferred")
        logger.debug(
            "Deferred until the robots.txt of %(origin)s is decided: %(request)s",
            {"origin": origin, "request": request},
            extra={"spider": self.crawler.spider},
        )
        self.crawler.signals.send_catch_log(
            signal=signals.request_deferred, request=request, spider=self.crawler.spider
        )

    def _release(self, origin: str) -> None:
        """Put an origin's parked requests back through the engine, in arrival order."""
        queue = self._parked.pop(origin, None)
        if not queue or self._closed:
            if queue:
                self._parked[origin] = queue
            return
        engine = self.crawler.engine
        self._parked_count -= len(queue)
        for parked in queue:
            request = parked.request
            bounced = request.meta.pop(_BOUNCED, False)
            request.meta[_SCHEDULED] = True
            dont_filter = request.dont_filter
            if bounced:  # the dupefilter has seen it already: let it through once more
                request.dont_filter = True
            self._releasing = request
            try:
                engine.crawl(request)
            finally:
                self._releasing = None
                request.dont_filter = dont_filter
            self.stats.inc_value("robotstxt/undeferred")

    def _wake_soon(self, origin: str) -> None:
        from twisted.internet import reactor

        clock: Any = reactor
        clock.callLater(0, self._check_origin, origin, self.clock())

    def _check_origin(self, origin: str, now: float) -> None:
        """Release, retry or keep an origin's parked requests, according to its state."""
        if origin not in self._parked or origin in self._fetching or self._closed:
            return
        state = self.store.get(origin)
        if state is None:
            self._start_fetch(origin, self._parked[origin][0].request, blocking=True)
            return
        if self._mode(origin, state, now) is not Mode.STOPPED:
            self._release(origin)
        elif state.refresh_at <= now:
            self.stats.inc_value("robotstxt/retry")
            self._start_fetch(origin, self._parked[origin][0].request, blocking=True)

    def _tick(self) -> None:
        """Periodic: drop parked requests past their deadline, retry stopped origins."""
        try:
            self._tick_once()
        except Exception:  # a LoopingCall stops at the first error: never let it
            logger.exception("Error in the robots.txt parking loop")

    def _tick_once(self) -> None:
        now = self.clock()
        for origin in list(self._parked):
            queue = self._parked[origin]
            while queue and queue[0].deadline <= now:
                parked = queue.popleft()
                self._parked_count -= 1
                self._drop(parked.request, "deadline")
            if not queue:
                del self._parked[origin]
                if not self._parked:
                    self._wake_engine()
                continue
            self._check_origin(origin, now)

    def _wake_engine(self) -> None:
        """Let the engine notice at once that it may be idle (else: its 5 s heartbeat).

        Best effort through a private attribute; without it the spider just closes later.
        """
        engine = self.crawler.engine
        slot = getattr(engine, "_slot", None) or getattr(engine, "slot", None)  # 2.13+ / older
        nextcall = getattr(slot, "nextcall", None)
        if nextcall is not None:
            nextcall.schedule()

    def _count_drop(self, request: Request, reason: str) -> None:
        self.stats.inc_value("robotstxt/dropped")
        logger.warning(
            "Dropped %(request)s: its robots.txt stayed undecided (%(reason)s)",
            {"request": request, "reason": reason},
            extra={"spider": self.crawler.spider},
        )
        self.crawler.signals.send_catch_log(
            signal=signals.request_dropped,
            request=request,
            spider=self.crawler.spider,
            reason=reason,
        )

    def _drop(self, request: Request, reason: str) -> None:
        self._count_drop(request, reason)

    # -- fetching -------------------------------------------------------------------------
    def _start_fetch(self, origin: str, request: Request, *, blocking: bool) -> None:
        """Start the origin's one robots.txt fetch unless one is under way."""
        if origin in self._fetching:
            if blocking:
                self._fetching[origin] = True
            return
        self._fetching[origin] = blocking
        d = deferred_from_coro(self._fetch(origin, request))

        def _log(failure: Failure) -> None:
            logger.error(
                "Error fetching robots.txt of %s: %s",
                origin,
                failure.getErrorMessage(),
                exc_info=failure.value,
            )

        d.addErrback(_log)

    async def _download(self, request: Request) -> Response:
        engine: Any = self.crawler.engine
        if hasattr(engine, "download_async"):
            response: Response = await engine.download_async(request)
        else:  # Scrapy < 2.14
            response = await maybe_deferred_to_future(engine.download(request))
        return response

    def _robots_request(self, url: str, origin: str) -> Request:
        return Request(
            url,
            priority=self.DOWNLOAD_PRIORITY,
            meta={
                "dont_obey_robotstxt": True,
                "dont_redirect": True,
                "download_timeout": self.config.download_timeout,
                # Immediate retries are ours (see _get): a 5xx here is a state we handle,
                # not an error for RetryMiddleware to log.
                "dont_retry": True,
                "handle_httpstatus_all": True,
                FETCH_META: origin,
            },
            callback=NO_CALLBACK,
            dont_filter=True,
        )

    async def _get(self, origin: str) -> FetchResult:
        """Download robots.txt, retrying a server error at once up to the retry budget."""
        result = await self._get_once(origin)
        for _ in range(self.config.retry_times):
            if not is_server_error(result):
                break
            self.stats.inc_value("robotstxt/fetch_retry")
            result = await self._get_once(origin)
        return result

    async def _get_once(self, origin: str) -> FetchResult:
        """One download of robots.txt, following HTTP redirects ourselves (never meta refresh)."""
        url = robots_url(origin)
        hops = 0
        while True:
            self.stats.inc_value("robotstxt/request_count")
            try:
                response = await self._download(self._robots_request(url, origin))
            except IgnoreRequest:
                # Another component refused the download: like Scrapy's built-in, no rules.
                return FetchResult(status=404, error=None, redirects=hops)
            except Exception as exc:
                self.stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
                return FetchResult(status=None, error=type(exc).__name__, redirects=hops)
            self.stats.inc_value("robotstxt/response_count")
            self.stats.inc_value(f"robotstxt/response_status_count/{response.status}")
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
                error="data loss" if "partial" in response.flags else None,
                redirects=hops,
            )

    async def _fetch(self, origin: str, request: Request) -> None:
        state: OriginState | None = None
        try:
            result = await self._get(origin)
            previous = self.store.get(origin)
            state = evaluate(result, self.clock(), previous, self.policy)
            self.store.put(origin, state)
            self._record(origin, state, previous, request)
        except Exception as exc:
            # A bug must not retry in a hot loop nor lose requests: count it as a server
            # error, so the origin is retried with backoff and its requests stay parked.
            logger.exception("Unexpected error while deciding robots.txt of %s", origin)
            previous = self.store.get(origin)
            failed = FetchResult(status=None, error=type(exc).__name__)
            self.store.put(origin, evaluate(failed, self.clock(), previous, self.policy))
        finally:
            del self._fetching[origin]
            for waiter in self._waiters.pop(origin, ()):
                waiter.callback(None)
            if not self._closed:
                self._check_origin(origin, self.clock())

    def _record(
        self, origin: str, state: OriginState, previous: OriginState | None, request: Request
    ) -> None:
        """Stats, logs and signals for a new origin state."""
        stats = self.stats
        stats.inc_value(f"robotstxt/origin_state/{state.kind.value}")
        spider = self.crawler.spider
        if state.kind is Kind.SERVER_ERROR:
            stats.inc_value("robotstxt/server_error")
            self._page_ok.setdefault(origin, float("-inf"))
            logger.info(
                "robots.txt of %(origin)s: server error (%(reason)s, %(errors)d in a row); "
                "next try in %(delay).0f s",
                {
                    "origin": origin,
                    "reason": state.reason,
                    "errors": state.errors,
                    "delay": state.refresh_at - state.fetched_at,
                },
                extra={"spider": spider},
            )
        else:
            self._page_ok.pop(origin, None)
            logger.debug(
                "robots.txt of %(origin)s: %(kind)s (%(reason)s), valid %(ttl).0f s",
                {
                    "origin": origin,
                    "kind": state.kind.value,
                    "reason": state.reason,
                    "ttl": state.refresh_at - state.fetched_at,
                },
                extra={"spider": spider},
            )
        if state.kind is Kind.RULES:
            assert state.robots is not None
            # Build the rules of the crawl's token now, while no request waits on a check:
            # the engine defers that work to the first question, linear in the body's size.
            state.robots.names_agent(self.token)
            if state.robots.truncated:
                stats.inc_value("robotstxt/truncated")
            robots_parsed = getattr(scrapy_signals, "robots_parsed", None)  # Scrapy >= 2.12
            if robots_parsed is not None:
                self.crawler.signals.send_catch_log(
                    signal=robots_parsed,
                    robotparser=self._robot_parser(state.robots),
                    request=request,
                )
        if previous is None or previous.kind is not state.kind or previous.reason != state.reason:
            self.crawler.signals.send_catch_log(
                signal=signals.origin_state_changed,
                origin=origin,
                state=state.kind.value,
                spider=spider,
            )

    @staticmethod
    def _robot_parser(robots: RobotsTxt) -> Any:
        """Scrapy's ``RobotParser`` interface over the parsed file, for ``robots_parsed``."""
        from .scrapy_parser import GoogleRobotParser

        parser = GoogleRobotParser(robots.body)
        parser.robots = robots
        return parser

    # -- spider lifecycle -----------------------------------------------------------------
    def _spider_opened(self, spider: Spider) -> None:
        logger.info(
            "Obeying robots.txt as user agent %(token)r (from %(source)s)",
            {"token": self.token, "source": self.token_source},
            extra={"spider": spider},
        )
        engine: Any = self.crawler.engine
        manager = getattr(getattr(engine, "downloader", None), "middleware", None)
        for mw in getattr(manager, "middlewares", ()):
            if isinstance(mw, OffsiteMiddleware):
                self._offsite = mw
        self._loop = LoopingCall(self._tick)
        self._loop.start(self.config.tick, now=False)

    def _spider_idle(self, spider: Spider) -> None:
        if self._parked_count or self._fetching:
            raise DontCloseSpider

    def _spider_closed(self, spider: Spider, reason: str = "") -> None:
        self._closed = True
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        for queue in self._parked.values():
            for parked in queue:
                self._drop(parked.request, f"spider closed ({reason})")
        self._parked.clear()
        self._parked_count = 0
        self.stats.inc_value("robotstxt/cache/hit", self._hits)
        evictions = getattr(self.store, "evictions", None)
        if evictions:
            self.stats.set_value("robotstxt/cache/evicted", evictions)
