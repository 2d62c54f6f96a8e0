"""The Scrapy adapter around the gate: signals in, engine calls out, stats and logs.

How a request travels (the rules themselves live in ``_gate``, ``_policy`` and ``_rules``):

1. **Scheduling** (``request_scheduled``, fired by ``engine.crawl()`` for start requests,
   callback output, redirects and retries alike): the gate decides. A request whose origin
   has no usable decision is *parked* in the gate's lot (memory, or SQLite under ``JOBDIR``),
   outside the scheduler and the downloader: raising ``IgnoreRequest`` from the handler keeps
   it out of the scheduler, the mechanism Scrapy's own offsite filtering uses.
2. **Fetch**: at most ``GBOT_ROBOTS_CONCURRENT_FETCHES`` at once, through
   ``crawler.engine`` with ``dont_obey_robotstxt`` and ``dont_redirect``; redirects are
   followed here, ``RobotsBodyMiddleware`` bounds and decodes the body, ``_policy`` interprets
   the result.
3. **Decision**: the gate releases parked requests through ``engine.crawl()``, or keeps them
   parked while the origin is stopped for server errors, until ``GBOT_ROBOTS_PARK_TIMEOUT``.
4. **Download** (``process_request``, the final check): forbidden requests raise
   ``IgnoreRequest``; a request whose origin became undecided meanwhile is sent back to
   step 1 instead of waiting in a download slot.
"""

from __future__ import annotations

import logging
import os
import pickle
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from pydispatch import dispatcher  # type: ignore[import-untyped]
from scrapy import signals as scrapy_signals
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.request import request_from_dict
from twisted.internet.defer import Deferred, DeferredList
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from .. import _userlog, signals
from .._compat import (
    ROBOTS_PARSED_SIGNAL,
    engine_accepts_requests,
    engine_download,
    engine_scheduler,
    engine_slot,
    fail_bootstrap,
    reserve_download_slot,
)
from .._meta import BOUNCED, DONT_OBEY, FETCH_META, SCHEDULED, SEEN, USER_AGENT_META
from .._settings import Config, ConfigError, configured_token, load, unknown_settings
from ..engine.agent import is_valid_token, product_token
from ..engine.rules import Decision, RobotsTxt
from ..parking.base import Lot
from ..parking.memory import MemoryLot
from ..parking.sqlite import SqliteLot
from ..policy.fetch import FetchResult, evaluate, is_server_error, next_hop
from ..policy.origin import origin_of, robots_url
from ..policy.states import Kind, Mode, OriginState, mode_at, note_page_ok
from ..report.collector import Hop, ReportCollector
from ..report.labels import duration
from ..report.writer import write as write_report
from ..stores.base import Backing, OriginStore
from ..stores.memory import MemoryStore
from ..stores.sqlite import SqliteBacking, SqliteError
from ..stores.tiered import TieredStore
from .body import TRUNCATED_FLAG
from .gate import Gate, ParkReason

if TYPE_CHECKING:
    from collections.abc import Sequence

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

__all__ = ["FETCH_META", "GoogleRobotsTxtMiddleware"]

_NOT_OBEYED = ""  # memo value for scheme/netloc pairs without robots.txt scope
_SCHEME_NETLOC = re.compile(r"[^:/?#]*://[^/?#]*").match


#: How long a process waits before looking again when another holds an origin's fetch lock.
LOCK_POLL = 1.0
#: Ticks between two looks at a shared lot for origins no live worker is handling.
ADOPT_EVERY = 5
#: Seconds (of the clock) between two prunes of the store (``GBOT_ROBOTS_CACHE_KEEP``).
PRUNE_EVERY = 3_600.0
#: Seconds the spider's close waits for robots.txt fetches to finish deciding.
CLOSE_WAIT = 10.0


def _open_backing(config: Config, crawler: Crawler) -> Backing | None:
    """The persistent or shared tier named by ``GBOT_ROBOTS_CACHE`` (None: memory only)."""
    kind, where = config.cache
    setting = "GBOT_ROBOTS_CACHE" if crawler.settings.get("GBOT_ROBOTS_CACHE") else "JOBDIR"
    if kind == "sqlite":
        try:
            return SqliteBacking(where, max_bytes=config.policy.max_bytes)
        except SqliteError as exc:
            raise ConfigError(setting, str(exc)) from exc
    if kind == "redis":
        try:
            from ..stores.redis import RedisBacking
        except ImportError as exc:
            raise ConfigError(
                "GBOT_ROBOTS_CACHE",
                f'{where} needs the redis client: pip install "scrapy-gbot-robots[redis]" ({exc})',
            ) from exc
        from scrapy.utils.reactor import is_asyncio_reactor_installed

        if not is_asyncio_reactor_installed():
            raise ConfigError(
                "GBOT_ROBOTS_CACHE",
                f"{where} needs Scrapy's asyncio reactor: TWISTED_REACTOR = "
                "'twisted.internet.asyncioreactor.AsyncioSelectorReactor' (the default since "
                "Scrapy 2.13)",
            )
        backing: Backing = RedisBacking(
            where, max_bytes=config.policy.max_bytes, keep=config.cache_keep
        )
        return backing
    return None


def _soon(call: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    """Run ``call`` on the reactor's next turn: outside the signal handler or lookup we are in."""
    from twisted.internet import reactor

    clock: Any = reactor
    clock.callLater(0, call, *args, **kwargs)


class _Waiter:
    """A request that bypassed the scheduler (``engine.download()``) waiting in place."""

    __slots__ = ("deferred", "request")

    def __init__(self, request: Request) -> None:
        self.request = request
        self.deferred: Deferred[None] = Deferred()


class _Unreadable:
    """A parked request that could not be read back from ``JOBDIR`` (reported as dropped)."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error


_Item = Request | _Waiter | _Unreadable


class GoogleRobotsTxtMiddleware:
    """Downloader middleware obeying robots.txt as Googlebot does; install it via ``Addon``."""

    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler) -> None:
        try:
            self._setup(crawler)
        except ConfigError:
            fail_bootstrap(crawler)  # the crawl stops before any request, exit status 1
            raise

    def _setup(self, crawler: Crawler) -> None:
        _userlog.install()
        for name, suggestion in unknown_settings(crawler.settings.attributes):
            hint = f"; did you mean {suggestion}?" if suggestion else ""
            logger.warning(
                "Unknown setting %(name)s is ignored (not a scrapy-gbot-robots setting)%(hint)s",
                {"name": name, "hint": hint},
            )
        config = load(crawler.settings.get)
        if not config.obey:
            logger.info("ROBOTSTXT_OBEY is False: robots.txt is not fetched nor obeyed")
            raise NotConfigured
        self.crawler = crawler
        self.config = config
        self.policy = config.policy
        self.clock = config.clock
        self.backing: Backing | None = None
        store: Any
        if config.store:
            store = config.store(config.cache_size)
            if not isinstance(store, OriginStore):
                raise ConfigError("GBOT_ROBOTS_STORE", f"{store!r} does not implement OriginStore")
        else:
            self.backing = _open_backing(config, crawler)
            front = MemoryStore(config.cache_size)
            if self.backing is None:
                store = front
            else:
                store = TieredStore(front, self.backing)
                store.on_read = self._read_back
        self.store: OriginStore = store
        # How long a process that died while fetching blocks the others. A backing whose
        # holder renews its lock (Redis) names a short default; otherwise (SQLite) long enough
        # for the slowest fetch (every hop and retry timing out), so a live holder keeps it.
        slowest = (
            config.download_timeout * (self.policy.max_redirects + 1) * (config.retry_times + 1)
            + 30.0
        )
        self.lock_ttl = config.lock_ttl or getattr(self.backing, "default_lock_ttl", slowest)
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
        self._releasing: Request | None = None
        self._closed = False
        self._hits = 0
        self._hits_flushed = 0
        self._unserializable_logged = False
        self._loop: LoopingCall | None = None
        self._backing_error: str | None = None
        self._ticks = 0
        self._pruned_at: float | None = None
        self.report: ReportCollector | None = None
        self._chains: dict[str, list[Hop]] = {}  # robots.txt fetches in flight, for the report
        self._fetches: set[Deferred[None]] = set()  # fetch coroutines under way
        self._read_seen: set[str] = set()  # origins read back from the store (bounded)
        if config.report:
            self.report = ReportCollector(
                max_origins=config.report_max_origins,
                max_rules=config.report_max_rules,
                examples=config.report_examples,
                error_stop=config.policy.error_stop,
            )
        self._offsite: Any = None
        self._dupefilter: Any = None
        self.stats = crawler.stats
        # Per-request DEBUG lines (deferred, forbidden with the deciding line) cost a log
        # record each, and the forbidden one a decide(): only when they can be seen. Scrapy
        # filters LOG_LEVEL at its handler, not at our logger, so ask the setting.
        level = crawler.settings.get("LOG_LEVEL", "DEBUG")
        numeric = logging.getLevelName(level) if isinstance(level, str) else level
        self._debug = not crawler.settings.getbool("LOG_ENABLED", True) or (
            isinstance(numeric, int) and numeric <= logging.DEBUG
        )
        jobdir = crawler.settings.get("JOBDIR")
        self.jobdir: str | None = str(jobdir) if jobdir else None
        lot: Lot[_Item]
        if self.jobdir:
            path = os.path.join(self.jobdir, "gbot_robots", "parked.sqlite3")
            try:
                lot = SqliteLot(path, self._dumps, self._loads)
            except Exception as exc:  # sqlite3.Error, OSError: say which setting it is about
                message = f"cannot keep parked requests in {path}: {exc}"
                raise ConfigError("JOBDIR", message) from exc
        else:
            lot = MemoryLot()
        self.lot: Lot[_Item] = lot
        # 0 (the default) follows CONCURRENT_REQUESTS: robots.txt downloads bypass the
        # engine's own concurrency limit, so this is their only bound.
        max_fetches = config.concurrent_fetches or crawler.settings.getint(
            "CONCURRENT_REQUESTS", 16
        )
        self.gate: Gate[_Item] = Gate(
            self.store,
            self.policy,
            lot,
            self,
            park_timeout=config.park_timeout,
            max_fetches=max(1, max_fetches),
        )
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
        override = request.meta.get(USER_AGENT_META)
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

    # -- downloader middleware ------------------------------------------------------------
    def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """The final check, on the hot path: obey the origin's decided rules."""
        meta = request.meta
        if meta.get(DONT_OBEY):
            return None
        origin = self._origin_of_url(request.url)
        if not origin:
            return None
        state = self.store.get(origin)
        if state is not None:
            kind = state.kind
            if kind is Kind.RULES:
                robots = state.robots
            elif kind is Kind.ALLOW_ALL:
                robots = None
            else:
                mode = mode_at(state, self.clock(), self.policy)[0]
                if mode is Mode.STOPPED:
                    return self._undecided(request, origin)
                robots = state.robots if mode is Mode.RULES else None
            self._hits += 1
            # The marker has served its purpose: it must not travel with a copied meta.
            meta.pop(SCHEDULED, None)
            report = self.report
            if robots is None:
                if report is not None:
                    report.allowed(origin)
                return None
            token = self._token_for(request)
            if report is None:
                if robots.allowed(request.url, token):
                    return None
                self._forbid(request, robots, token, origin)
            # With the report on, one decide() is the check: it costs what allowed() costs
            # and names the deciding rule, so a forbidden request needs no second pass.
            decision = robots.decide(request.url, token)
            if decision.allowed:
                report.allowed(origin)
                return None
            self._forbid(request, robots, token, origin, decision)
        return self._undecided(request, origin)

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        """Remember that an origin in server error still answers other pages."""
        if response.status < 500 and FETCH_META not in request.meta:
            origin = self._origin_of_url(request.url)
            if origin:
                state = self.store.get(origin)
                if state is not None and state.kind is Kind.SERVER_ERROR:
                    updated = note_page_ok(state, self.clock())
                    if updated is not None:
                        self.store.put(origin, updated)
        return response

    def _forbid(
        self,
        request: Request,
        robots: RobotsTxt,
        token: str,
        origin: str,
        decision: Decision | None = None,
    ) -> NoReturn:
        self.stats.inc_value("robotstxt/forbidden")
        # Finding the deciding line costs a second pass: only when someone looks.
        log = self._debug and logger.isEnabledFor(logging.DEBUG)
        listeners = self._has_receivers(signals.request_forbidden)
        report = self.report
        if log or listeners or report is not None:
            if decision is None:
                decision = robots.decide(request.url, token)
            if report is not None:
                report.forbidden(origin, request.url, decision)
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
        bypassed the scheduler (``engine.download()`` by other code) waits here. A request
        sent back once that comes here again without having been parked is a bypassing one
        (a meta copied from a scheduled request): it waits too, so nothing loops.
        """
        meta = request.meta
        if meta.pop(SCHEDULED, False) and not meta.get(BOUNCED):
            meta[BOUNCED] = True
            self.stats.inc_value("robotstxt/bounced")
            return request
        meta.pop(BOUNCED, None)
        return self._wait_then_check(request, origin)

    async def _wait_then_check(self, request: Request, origin: str) -> None:
        """Wait in place until the origin is decided, then obey (or raise when dropped)."""
        for _ in range(1000):  # each round waits for a decision: a bound, never reached
            if self._decided_allows(request, origin):
                return
            waiter = _Waiter(request)
            reason = self.gate.schedule(origin, waiter, self.clock())
            if reason is not None:
                self._deferred(request, origin, reason)
                await maybe_deferred_to_future(waiter.deferred)  # IgnoreRequest when dropped
        self._count_drop(request, "robots.txt stayed undecided")
        raise IgnoreRequest("robots.txt stayed undecided")

    def _decided_allows(self, request: Request, origin: str) -> bool:
        """True when the origin's decision lets ``request`` through; False when undecided.

        Raises ``IgnoreRequest`` when robots.txt forbids it (the slow path of
        :meth:`process_request`, for requests waiting in place).
        """
        state = self.store.get(origin)
        if state is None:
            return False
        mode = mode_at(state, self.clock(), self.policy)[0]
        if mode is Mode.STOPPED:
            return False
        robots = state.robots if mode is Mode.RULES else None
        token = self._token_for(request)
        if robots is None or robots.allowed(request.url, token):
            if self.report is not None:
                self.report.allowed(origin)
            return True
        self._forbid(request, robots, token, origin)

    # -- parking --------------------------------------------------------------------------
    def _request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        """Park requests whose origin is undecided, before they reach the scheduler."""
        meta = request.meta
        if request is self._releasing:
            meta[SCHEDULED] = True
            return
        if meta.get(DONT_OBEY):
            return
        origin = self._origin_of_url(request.url)
        if not origin:
            return
        now = self.clock()
        if meta.get(BOUNCED):
            self.gate.bounce(origin, request, now)
            self._deferred(request, origin, ParkReason.BOUNCED)
            _soon(self._check_soon, origin)
            raise IgnoreRequest("parked until robots.txt is decided")
        reason = self.gate.schedule(origin, request, now, self._admit)
        if reason is None:
            meta[SCHEDULED] = True
            return
        self._deferred(request, origin, reason)
        raise IgnoreRequest("parked until robots.txt is decided")

    def _check_soon(self, origin: str) -> None:
        self.gate.check(origin, self.clock())

    def _admit(self, item: _Item) -> bool:
        """Whether a request about to be parked is new to the dupefilter (then: now seen).

        The scheduler would ask the dupefilter when the request entered it; a parked request
        asks now, so duplicates of a parked request are not parked twice, and is let through
        the dupefilter once when released. Without a dupefilter the scheduler filters later.
        A request Scrapy's offsite filter drops is let through to it, never parked: fetching
        its site's robots.txt would be wasted.
        """
        if not isinstance(item, Request) or item.dont_filter:
            return True
        if self._offsite_drops(item):
            return False
        df = self._dupefilter
        if df is None:
            return True
        if df.request_seen(item):
            return False  # a duplicate: the scheduler drops and logs it as usual
        item.meta[SEEN] = True
        return True

    def _deferred(self, request: Request, origin: str, reason: ParkReason) -> None:
        self.stats.inc_value("robotstxt/deferred")
        if self.report is not None:
            self.report.deferred(origin)
        if self._debug:
            logger.debug(
                "Deferred until the robots.txt of %(origin)s is decided (%(reason)s): %(request)s",
                {"origin": origin, "reason": reason.value, "request": request},
                extra={"spider": self.crawler.spider},
            )
        self.crawler.signals.send_catch_log(
            signal=signals.request_deferred, request=request, spider=self.crawler.spider
        )

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

    # -- the gate's actions (see _gate.Actions) -------------------------------------------
    def accepting(self) -> bool:
        return not self._closed and engine_accepts_requests(self.crawler)

    def release(self, origin: str, items: Sequence[_Item]) -> None:
        """Put parked requests back through the engine, oldest first."""
        engine = self.crawler.engine
        for item in items:
            if isinstance(item, _Waiter):
                item.deferred.callback(None)
                continue
            if isinstance(item, _Unreadable):
                self._lost(origin, item)
                continue
            request = item
            meta = request.meta
            unfiltered = bool(meta.pop(BOUNCED, False)) | bool(meta.pop(SEEN, False))
            dont_filter = request.dont_filter
            if unfiltered:  # the dupefilter has seen it already: let it through once more
                request.dont_filter = True
            self._releasing = request
            try:
                engine.crawl(request)
            except Exception as exc:  # one bad request must not cost the rest of the queue
                self._count_drop(request, f"could not be rescheduled ({type(exc).__name__})")
                continue
            finally:
                self._releasing = None
                request.dont_filter = dont_filter
            self.stats.inc_value("robotstxt/undeferred")

    def drop(self, origin: str, items: Sequence[_Item], reason: str) -> None:
        for item in items:
            if isinstance(item, _Unreadable):
                self._lost(origin, item)
            elif isinstance(item, _Waiter):
                self._count_drop(item.request, reason)
                item.deferred.errback(IgnoreRequest(f"robots.txt undecided ({reason})"))
            else:
                self._count_drop(item, reason)

    def fetch(self, origin: str, why: str) -> None:
        """Start the origin's robots.txt fetch on the next reactor turn (never re-entrant)."""
        stat = {
            "miss": "robotstxt/cache/miss",
            "expired": "robotstxt/cache/expired",
            "retry": "robotstxt/retry",
            "refresh": "robotstxt/retry",
        }.get(why)
        if stat:
            self.stats.inc_value(stat)
        _soon(self._launch, origin)

    def _launch(self, origin: str) -> None:
        d = deferred_from_coro(self._fetch(origin))
        self._fetches.add(d)
        d.addBoth(self._fetch_ended, d)

        def _log(failure: Failure) -> None:
            logger.error(
                "Error fetching robots.txt of %s: %s",
                origin,
                failure.getErrorMessage(),
                exc_info=failure.value,
            )

        d.addErrback(_log)

    def _fetch_ended(self, result: Any, d: Deferred[None]) -> Any:
        self._fetches.discard(d)
        return result

    # -- dropping -------------------------------------------------------------------------
    def _count_drop(self, request: Request, reason: str) -> None:
        self.stats.inc_value("robotstxt/dropped")
        if self.report is not None:
            self.report.dropped(self._origin_of_url(request.url), reason)
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

    def _lost(self, origin: str, item: _Unreadable) -> None:
        self.stats.inc_value("robotstxt/dropped")
        if self.report is not None:
            self.report.dropped(origin, "unreadable")
        self.stats.inc_value("robotstxt/unreadable")
        logger.warning(
            "Dropped a parked request of %(origin)s: it could not be read back from %(where)s "
            "(%(error)s)",
            {"origin": origin, "error": item.error, "where": getattr(self.lot, "path", "JOBDIR")},
            extra={"spider": self.crawler.spider},
        )

    # -- serialising parked requests (JOBDIR) ---------------------------------------------
    def _dumps(self, item: _Item) -> bytes:
        """Scrapy's disk-queue format: ``Request.to_dict()`` pickled with protocol 4."""
        if not isinstance(item, Request):
            raise ValueError("kept in memory")
        try:
            return pickle.dumps(item.to_dict(spider=self.crawler.spider), protocol=4)
        except (ValueError, TypeError, AttributeError, pickle.PicklingError) as exc:
            self.stats.inc_value("robotstxt/unserializable")
            if not self._unserializable_logged:
                self._unserializable_logged = True
                logger.warning(
                    "Unable to serialize parked request %(request)s (%(error)s): it stays in "
                    "memory and is dropped (request_dropped) if the crawl stops before its "
                    "robots.txt is decided; no more unserializable requests will be logged "
                    "(stat robotstxt/unserializable)",
                    {"request": item, "error": exc},
                    extra={"spider": self.crawler.spider},
                )
            raise ValueError(str(exc)) from exc

    def _loads(self, data: bytes) -> _Item:
        try:
            request: Request = request_from_dict(pickle.loads(data), spider=self.crawler.spider)
        except Exception as exc:  # a callback the spider no longer has, a corrupt row
            return _Unreadable(f"{type(exc).__name__}: {exc}")
        return request

    # -- housekeeping ---------------------------------------------------------------------
    def _tick(self) -> None:
        """Periodic: deadlines, due retries, durable parking, live stats."""
        try:
            busy = self.gate.busy
            now = self.clock()
            self.gate.tick(now)
            self._ticks += 1
            if self._ticks % ADOPT_EVERY == 0:
                self.gate.adopt(now)  # a shared lot: origins a dead worker left waiting
            self._flush_hits()
            if self._pruned_at is not None and now - self._pruned_at >= PRUNE_EVERY:
                self._prune(now)
            if busy and not self.gate.busy:
                self._wake_engine()
            self._component_stats()
        except Exception:  # a LoopingCall stops at the first error: never let it
            logger.exception("Error in the robots.txt parking loop")

    def _flush_hits(self) -> None:
        """Cache hits are counted in a plain int on the hot path, added to the stats here."""
        if self._hits != self._hits_flushed:
            self.stats.inc_value("robotstxt/cache/hit", self._hits - self._hits_flushed)
            self._hits_flushed = self._hits

    def _prune(self, now: float) -> None:
        """Forget stored origins not fetched for ``GBOT_ROBOTS_CACHE_KEEP`` (SQLite; Redis
        keys expire by themselves), at start and then every ``PRUNE_EVERY`` seconds."""
        self._pruned_at = now
        prune = getattr(self.backing, "prune", None)
        if prune is None:
            return
        gone = int(prune(now, self.config.cache_keep))
        if gone:
            self.stats.inc_value("robotstxt/store/pruned", gone)
            logger.info(
                "Forgot %(n)d stored robots.txt states not fetched for %(keep)s "
                "(GBOT_ROBOTS_CACHE_KEEP)",
                {"n": gone, "keep": duration(self.config.cache_keep)},
                extra={"spider": self.crawler.spider},
            )

    def _component_stats(self) -> None:
        """Copy the store's and the parking lot's own counters (write errors, Redis outages)
        into the crawl's stats."""
        backing = self.backing
        for prefix, part in (("store", backing), ("parking", self.lot)):
            for attr in ("write_errors", "outages", "errors", "lock_waits"):
                value = getattr(part, attr, 0)
                if value:
                    self.stats.set_value(f"robotstxt/{prefix}/{attr}", value)
        error = getattr(backing, "last_error", None)
        if error and error != self._backing_error:
            self._backing_error = error
            logger.error(
                "robots.txt store %(store)s failed (%(error)s); the crawl goes on with the "
                "states in memory",
                {"store": getattr(backing, "name", "?"), "error": error},
                extra={"spider": self.crawler.spider},
            )

    def _wake_engine(self) -> None:
        """Let the engine notice at once that it may be idle (else: its 5 s heartbeat)."""
        nextcall = getattr(engine_slot(self.crawler.engine), "nextcall", None)
        if nextcall is not None:
            nextcall.schedule()

    # -- fetching -------------------------------------------------------------------------
    def _robots_request(self, url: str, origin: str) -> Request:
        return Request(
            url,
            priority=self.DOWNLOAD_PRIORITY,
            meta={
                DONT_OBEY: True,
                "dont_redirect": True,
                "download_timeout": self.config.download_timeout,
                # Immediate retries are ours (see _get): a 5xx here is a state we handle,
                # not an error for RetryMiddleware to log.
                "dont_retry": True,
                "handle_httpstatus_all": True,
                # RobotsBodyMiddleware stops reading at GBOT_ROBOTS_MAX_BYTES of content,
                # whatever the size or encoding: Scrapy's own size limit must not fail it.
                "download_maxsize": 0,
                "download_warnsize": 0,
                # A cached prefix cut at the raw limit would replay as a broken stream.
                "dont_cache": True,
                FETCH_META: origin,
            },
            callback=NO_CALLBACK,
            dont_filter=True,
        )

    async def _get(self, origin: str) -> FetchResult:
        """Download robots.txt, retrying a server error at once up to the retry budget."""
        result = await self._get_once(origin)
        for _ in range(self.config.retry_times):
            if not is_server_error(result) or self._closed:
                break
            self.stats.inc_value("robotstxt/fetch_retry")
            result = await self._get_once(origin)
        return result

    def _hop(self, origin: str, url: str, status: int | None, error: str | None) -> None:
        """Remember one step of the fetch for the report (only when a report is wanted)."""
        if self.report is not None:
            self._chains.setdefault(origin, []).append((url, status, error))

    async def _get_once(self, origin: str) -> FetchResult:
        """One download of robots.txt, following HTTP redirects ourselves (never meta refresh)."""
        url = robots_url(origin)
        hops = 0
        while True:
            self.stats.inc_value("robotstxt/request_count")
            engine = self.crawler.engine
            # While it downloads, a robots.txt widens the downloader's limit: it has its own
            # budget, and pages of decided origins keep CONCURRENT_REQUESTS.
            reserve_download_slot(engine, +1)
            try:
                response = await engine_download(engine, self._robots_request(url, origin))
            except Exception as exc:
                # Any failure, IgnoreRequest from another component included, is a failure to
                # get the file: a server error (never "no restrictions", which would fail open).
                self.stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
                self._hop(origin, url, None, type(exc).__name__)
                return FetchResult(status=None, error=type(exc).__name__, redirects=hops)
            finally:
                reserve_download_slot(engine, -1)
            self._hop(origin, url, response.status, None)
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
                truncated=TRUNCATED_FLAG in response.flags,
            )

    async def _fetch(self, origin: str) -> None:
        """The gate's fetch: decide the origin's state, then report back exactly once."""
        recheck_at: float | None = None
        try:
            if self.backing is None:
                await self._download_and_decide(origin)
            else:
                recheck_at = await self._fetch_shared(origin, self.backing)
        except Exception as exc:
            # A bug must not retry in a hot loop nor lose requests: count it as a server
            # error, so the origin is retried with backoff and its requests stay parked.
            logger.exception("Unexpected error while deciding robots.txt of %s", origin)
            previous = self.store.get(origin)
            failed = FetchResult(status=None, error=type(exc).__name__)
            state = evaluate(failed, self.clock(), previous, self.policy)
            self.store.put(origin, state)
            try:
                self._record(origin, state, previous)
            except Exception:  # the report or a signal handler: the state is stored already
                logger.exception("Error while recording robots.txt of %s", origin)
        finally:
            self._chains.pop(origin, None)
            self.gate.fetch_done(origin, self.clock(), recheck_at=recheck_at)

    async def _fetch_shared(self, origin: str, backing: Backing) -> float | None:
        """Use a fresh stored state if there is one; else fetch under the origin's lock.

        Returns when to look again if another process holds the lock (its result will be
        in the store), else None.
        """
        local = self.store.get(origin)
        stored = await backing.load(origin)
        if self._adopt_stored(origin, local, stored):
            return None
        if not await backing.acquire(origin, self.lock_ttl):
            self.stats.inc_value("robotstxt/lock/waited")
            return self.clock() + LOCK_POLL
        try:
            stored = await backing.load(origin)  # the last holder may have just written
            if self._adopt_stored(origin, local, stored):
                return None
            await self._download_and_decide(origin, stored)
        finally:
            await backing.release(origin)
        return None

    def _read_back(self, origin: str, state: OriginState) -> None:
        """A state the LRU had forgotten (or a restart never saw) came back from the store."""
        if origin not in self._read_seen:  # signals and report once per origin and process
            if len(self._read_seen) >= self.config.cache_size:
                self._read_seen.clear()
            self._read_seen.add(origin)
            # Not from inside the store lookup (a hot path, maybe inside our own signal
            # handler): handlers of robots_parsed may schedule requests.
            _soon(self._record, origin, state, None, fetched=False)

    def _adopt_stored(
        self, origin: str, local: OriginState | None, stored: OriginState | None
    ) -> bool:
        """Take a stored state that is still fresh (and newer than ours) instead of fetching."""
        if stored is None or stored.refresh_at <= self.clock():
            return False
        if local is not None and stored.fetched_at <= local.fetched_at:
            return False
        remember = getattr(self.store, "remember", self.store.put)
        remember(origin, stored)
        self.stats.inc_value("robotstxt/cache/stored")
        self._record(origin, stored, local, fetched=False)
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
        self._record(origin, state, previous)

    def _record(
        self,
        origin: str,
        state: OriginState,
        previous: OriginState | None,
        *,
        fetched: bool = True,
    ) -> None:
        """Stats, logs and signals for a new origin state (``fetched``: by us, just now)."""
        stats = self.stats
        if fetched:
            stats.inc_value(f"robotstxt/origin_state/{state.kind.value}")
        if self.report is not None:
            self.report.fetched(
                origin,
                robots_url=robots_url(origin),
                chain=self._chains.pop(origin, ()),
                state=state,
                source="fetch" if fetched else "store",
            )
        spider = self.crawler.spider
        if not fetched:
            logger.debug(
                "robots.txt of %(origin)s: %(kind)s (%(reason)s), read from %(store)s",
                {
                    "origin": origin,
                    "kind": state.kind.value,
                    "reason": state.reason,
                    "store": getattr(self.backing, "name", "the store"),
                },
                extra={"spider": spider},
            )
        elif state.kind is Kind.SERVER_ERROR:
            stats.inc_value("robotstxt/server_error")
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
            if state.robots.truncated and fetched:
                stats.inc_value("robotstxt/truncated")
            if ROBOTS_PARSED_SIGNAL is not None and self._has_receivers(ROBOTS_PARSED_SIGNAL):
                trigger = self.lot.peek(origin)
                if not isinstance(trigger, Request):
                    trigger = self._robots_request(robots_url(origin), origin)
                self.crawler.signals.send_catch_log(
                    signal=ROBOTS_PARSED_SIGNAL,
                    robotparser=self._robot_parser(state.robots),
                    request=trigger,
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
        from ..scrapy_parser import GoogleRobotParser

        parser = GoogleRobotParser(robots.body)
        parser.robots = robots
        return parser

    # -- spider lifecycle -----------------------------------------------------------------
    def _spider_opened(self, spider: Spider) -> None:
        logger.info(
            "Obeying robots.txt as user agent %(token)r (from %(source)s), the way Googlebot "
            "does (scrapy_gbot_robots.GoogleRobotsTxtMiddleware); at most %(fetches)d "
            "robots.txt downloads at once",
            {
                "token": self.token,
                "source": self.token_source,
                "fetches": self.gate.max_fetches,
            },
            extra={"spider": spider},
        )
        engine: Any = self.crawler.engine
        manager = getattr(getattr(engine, "downloader", None), "middleware", None)
        for mw in getattr(manager, "middlewares", ()):
            if isinstance(mw, OffsiteMiddleware):
                self._offsite = mw
        scheduler = engine_scheduler(engine)
        df = getattr(scheduler, "df", None)
        if df is not None and callable(getattr(df, "request_seen", None)):
            self._dupefilter = df
        fleet_lot = self._fleet_lot(scheduler, spider)
        if fleet_lot is not None:
            self.lot.close(persist=True)  # empty so far, or a JOBDIR's: kept for later
            self.lot = fleet_lot
            self.gate.use_lot(fleet_lot)
            logger.info(
                "Parking requests in Redis (%(key)s), shared by every worker of the fleet",
                {"key": getattr(fleet_lot, "key", "?")},
                extra={"spider": spider},
            )
        if self.config.cache_keep and self.backing is not None:
            self._prune(self.clock())
        resumed = self.gate.resume(self.clock())
        if resumed:
            self.stats.inc_value("robotstxt/resumed", resumed)
            logger.info(
                "Resuming %(n)d parked requests from %(path)s",
                {"n": resumed, "path": getattr(self.lot, "path", "JOBDIR")},
                extra={"spider": spider},
            )
        self._loop = LoopingCall(self._tick)
        self._loop.start(self.config.tick, now=False)

    def _fleet_lot(self, scheduler: Any, spider: Spider) -> Lot[_Item] | None:
        """A Redis lot shared by the fleet when the scheduler is scrapy-redis's, else None.

        Parked requests then survive the death of the worker that parked them, and whichever
        worker sees the decision puts them back into the shared scrapy-redis queue.
        """
        server = getattr(scheduler, "server", None)
        if server is None or not hasattr(scheduler, "queue") or not self.config.fleet_parking:
            return None
        from ..parking.redis import RedisLot

        lot: Lot[_Item] = RedisLot(server, f"{spider.name}:gbot_robots", self._dumps, self._loads)
        return lot

    def _spider_idle(self, spider: Spider) -> None:
        if self.gate.busy:
            raise DontCloseSpider

    def _spider_closed(self, spider: Spider, reason: str = "") -> Deferred[None] | None:
        """Let fetches whose download ended finish deciding, then keep or drop what waits.

        The engine waits for in-flight downloads before ``spider_closed``, but the rest of a
        fetch (policy, store, report) may still be queued on the event loop: its result must
        be stored before the store closes and the report is written.
        """
        self._closed = True  # no release, no new fetch, no immediate retry from now on
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if not self._fetches:
            self._close(spider, reason)
            return None
        from twisted.internet import reactor

        waiting: Deferred[Any] = DeferredList(list(self._fetches), consumeErrors=True)
        waiting.addTimeout(CLOSE_WAIT, reactor)
        waiting.addBoth(lambda _: self._close(spider, reason))
        return waiting

    def _close(self, spider: Spider, reason: str) -> None:
        gate = self.gate
        persist = self.jobdir is not None or bool(getattr(self.lot, "shared", False))
        kept = gate.close(persist=persist, reason=f"spider closed ({reason})")
        if kept:
            self.stats.inc_value("robotstxt/persisted", kept)
            if getattr(self.lot, "shared", False):
                message = "Left %(n)d parked requests in %(path)s for the other workers"
            else:
                message = "Kept %(n)d parked requests in %(path)s for the next run with this JOBDIR"
            logger.info(
                message,
                {"n": kept, "path": getattr(self.lot, "path", "JOBDIR")},
                extra={"spider": spider},
            )
        self._flush_hits()
        self.stats.set_value("robotstxt/parked_peak", gate.parked_peak)
        self.stats.set_value("robotstxt/fetch_in_flight_peak", gate.running_peak)
        self.stats.set_value("robotstxt/fetch_queue_peak", gate.queued_peak)
        if gate.taken_elsewhere:
            self.stats.set_value("robotstxt/parking/taken_elsewhere", gate.taken_elsewhere)
        evictions = getattr(self.store, "evictions", None)
        if evictions:
            self.stats.set_value("robotstxt/cache/evicted", evictions)
        reads = getattr(self.store, "reads", 0)
        if reads:
            self.stats.set_value("robotstxt/cache/read_back", reads)
        self._component_stats()
        if self.backing is not None:
            self.backing.close()
            self._component_stats()  # writes given up at close
        if self.report is not None:
            self._write_report(spider, reason)

    def _write_report(self, spider: Spider, reason: str) -> None:
        """The audit report, once per crawl (a pause writes it too); never fails the close."""
        assert self.report is not None
        stats = self.stats.get_stats()
        crawl = {
            "spider": spider.name,
            "finish_reason": reason,
            "user_agent": self.token,
            "start_time": str(stats.get("start_time", "")),
            "stats": {k: v for k, v in stats.items() if k.startswith("robotstxt/")},
            "settings": {
                "concurrent_fetches": self.gate.max_fetches,
                "cache": self.config.cache[0],
                "park_timeout": self.config.park_timeout,
            },
        }
        data = self.report.to_json(crawl)
        for path in self.config.report:
            try:
                write_report(data, path)
            except Exception as exc:
                logger.error(
                    "Could not write the robots.txt report %(path)s: %(error)s",
                    {"path": path, "error": exc},
                    extra={"spider": spider},
                )
            else:
                logger.info(
                    "robots.txt report written to %(path)s",
                    {"path": os.path.abspath(path)},
                    extra={"spider": spider},
                )
