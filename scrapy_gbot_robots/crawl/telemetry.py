"""What the crawl tells its user: stats, log lines, signals and the report's counters.

Each event is one method, and each method counts, logs, signals and reports that event in
one place, so "where is X counted?" has one answer (stat names: ``_stats``). The events come
in three families, one class each (a request's, a robots.txt fetch's, the whole run's), and
each part of the crawl is given the family it tells. It only tells:
it decides nothing, builds nothing and writes no file (the report's files are
:mod:`.reporting`'s). The costly parts (a deciding line for a DEBUG line, a signal nobody
listens to) are skipped when nobody can see them. Testable against a plain stats collector
and signal manager.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydispatch import dispatcher  # type: ignore[import-untyped]

from .. import _stats as S
from .. import signals
from .._compat import ROBOTS_PARSED_SIGNAL, signal_sender
from .._meta import PAGE_RULES_META
from ..policy.origin import robots_url
from ..policy.states import Kind, OriginState
from ..report.labels import duration
from .reasons import STOPPED, ParkReason

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from ..engine.decision import Decision
    from ..engine.rules import RobotsTxt, Tokens
    from ..page.rules import PageRules
    from ..parking.base import Lot
    from ..report.collector import Hop, ReportCollector
    from ..stores.tiered import TieredStore
    from .gate import GateFigures
    from .pacing import Pace
    from .reasons import FetchReason

#: The logger named in the README and the docs (the middleware's historical module path).
logger = logging.getLogger("scrapy_gbot_robots.middleware")


class _Stats:
    """The crawler's stats, each renamed stat written under its 0.2 name as well until 0.4
    (``_stats.OLD_NAMES``): one dict lookup more per write, none on the hot path (its counts
    are flushed on a tick)."""

    __slots__ = ("_old", "_stats")

    def __init__(self, stats: Any) -> None:
        self._stats = stats
        self._old = S.OLD_NAMES

    def inc_value(self, key: str, count: int = 1) -> None:
        self._stats.inc_value(key, count)
        old = self._old.get(key)
        if old is not None:
            self._stats.inc_value(old, count)

    def set_value(self, key: str, value: Any) -> None:
        self._stats.set_value(key, value)
        old = self._old.get(key)
        if old is not None:
            self._stats.set_value(old, value)


class _Telling:
    """What every family of events tells through: the crawler's stats and signals, the
    report, and whether DEBUG lines can be seen."""

    def __init__(self, crawler: Crawler, report: ReportCollector | None, debug: bool) -> None:
        self.crawler = crawler
        self.stats = _Stats(crawler.stats)
        self.report = report
        #: Per-request DEBUG lines cost a log record each (and a forbidden one a decide()):
        #: only when they can be seen. Scrapy filters LOG_LEVEL at its handler, not at our
        #: logger, so the wiring asks the setting.
        self.debug = debug

    @property
    def _spider(self) -> Spider | None:
        return self.crawler.spider

    def _extra(self) -> dict[str, Any]:
        return {"spider": self.crawler.spider}

    def listened(self, signal: object) -> bool:
        """Whether any handler is connected to ``signal`` for this crawler."""
        sender = signal_sender(self.crawler)
        return any(True for _ in dispatcher.getAllReceivers(sender, signal))

    def _send(self, signal: object, **kwargs: Any) -> None:
        self.crawler.signals.send_catch_log(signal=signal, spider=self._spider, **kwargs)


class RequestEvents(_Telling):
    """What happens to one request: checked, forbidden, parked, released, dropped, and what
    the page-rules middleware reads and drops."""

    def __init__(self, crawler: Crawler, report: ReportCollector | None, debug: bool) -> None:
        super().__init__(crawler, report, debug)
        #: Checks against a remembered state, counted on the hot path (:meth:`checked`) and
        #: added to the stats on a tick.
        self.hits = 0
        self._hits_flushed = 0
        #: Pages whose rules were read (GBOT_ROBOTS_PAGE_RULES), written to the stats on a tick.
        self.pages_read = 0
        self._pages_flushed = 0
        self._unserializable_logged = False
        self._forgotten_logged = False

    # -- requests ---------------------------------------------------------------------------
    def checked(self) -> None:
        """A request was checked against a remembered state (``robotstxt/store/hit``)."""
        self.hits += 1

    def allowed(self, origin: str) -> None:
        if self.report is not None:
            self.report.allowed(origin)

    def forbidden(
        self,
        request: Request,
        robots: RobotsTxt,
        token: Tokens,
        origin: str,
        decision: Decision | None = None,
        *,
        by_usage: bool = False,
    ) -> None:
        """A request refused by robots.txt (a rule, or a usage signal), before ``IgnoreRequest``."""
        self.stats.inc_value(S.FORBIDDEN)
        if by_usage:
            self.stats.inc_value(S.FORBIDDEN_BY_USAGE)
        # Finding the deciding line costs a second pass: only when someone looks.
        log = self.debug and logger.isEnabledFor(logging.DEBUG)
        listeners = self.listened(signals.request_forbidden)
        report = self.report
        if not (log or listeners or report is not None):
            return
        if decision is None:
            decision = robots.decide(request.url, token)
        if report is not None:
            report.forbidden(origin, request.url, decision)
        if log:
            self._log_verdict("Forbidden by robots.txt", request, decision)
        if listeners:
            self._send(signals.request_forbidden, request=request, decision=decision)

    def would_forbid(
        self, request: Request, origin: str, decision: Decision, token: Tokens
    ) -> None:
        """Observe mode: a request robots.txt forbids, let through."""
        self.stats.inc_value(S.WOULD_FORBID)
        if self.report is not None:
            self.report.forbidden(origin, request.url, decision)
        if self.debug and logger.isEnabledFor(logging.DEBUG):
            self._log_verdict("Would be forbidden by robots.txt", request, decision)

    def would_stop(self, request: Request, origin: str) -> None:
        """Observe mode: a request of an origin Googlebot would not crawl now (server error)."""
        self.stats.inc_value(S.WOULD_STOP)
        if self.report is not None:
            self.report.would_stop(origin)
        if self.debug:
            logger.debug(
                "Would be stopped (robots.txt of %(origin)s in server error): %(request)s",
                {"origin": origin, "request": request},
                extra=self._extra(),
            )

    def _log_verdict(self, what: str, request: Request, decision: Decision) -> None:
        group = f"the group of {decision.token!r}" if decision.token else "no group"
        logger.debug(
            "%(what)s: %(request)s (line %(line)d: %(rule)r, %(group)s)",
            {
                "what": what,
                "request": request,
                "line": decision.line,
                "rule": decision.rule,
                "group": group,
            },
            extra=self._extra(),
        )

    def parked(self, request: Request, origin: str, reason: ParkReason) -> None:
        """A request waits for its origin's robots.txt, or, decided, its turn
        (``ParkReason.TURN``): from the scheduling hook, sent back from the downloader, or a
        download waiting in place. All are parked: each leaves released, dropped or kept, so
        each is counted and signalled the same way (``request_parked``)."""
        self.stats.inc_value(S.PARKED)
        if reason is ParkReason.TURN:
            self.stats.inc_value(S.WAITED_TURN)
        if self.report is not None:
            self.report.parked(origin)
        if self.debug:
            logger.debug(
                "Parked until the robots.txt of %(origin)s is decided (%(reason)s): %(request)s"
                if reason is not ParkReason.TURN
                else "Parked until its turn (the engine was full; %(origin)s is decided): "
                "%(request)s",
                {"origin": origin, "reason": reason.value, "request": request},
                extra=self._extra(),
            )
        if self.listened(signals.request_parked):
            self._send(signals.request_parked, request=request)

    def served_own_copy(self) -> None:
        self.stats.inc_value(S.OWN_COPY)

    def bounced(self, *, forgotten: bool = False) -> None:
        """A scheduled request came back undecided; ``forgotten``: its origin's state was
        evicted from memory after it was scheduled (said once: the store is too small)."""
        self.stats.inc_value(S.BOUNCED)
        if forgotten and not self._forgotten_logged:
            self._forgotten_logged = True
            logger.warning(
                "Requests reached the downloader after their origin's robots.txt state was "
                "forgotten (GBOT_ROBOTS_STORE_SIZE is smaller than the origins decided ahead "
                "of the crawl): their robots.txt is fetched again. Raise GBOT_ROBOTS_STORE_SIZE, "
                "or keep states in a persistent store (JOBDIR or GBOT_ROBOTS_STORE = "
                "'sqlite://...'); stats robotstxt/bounced and robotstxt/store/evicted",
                extra=self._extra(),
            )

    def released(self) -> None:
        """A parked request went back to the engine."""
        self.stats.inc_value(S.RELEASED)

    def dropped(
        self, request: Request, origin: str, reason: str, *, decided: bool = False
    ) -> None:
        """A parked request given up: before its robots.txt decided it (its deadline, the
        close, the engine refusing it on release), a download waiting in place whose origin
        is stopped by server errors (``reason`` ``STOPPED``: never parked), or, ``decided``,
        one whose robots.txt was decided but that still waited its turn when the crawl
        closed."""
        self.stats.inc_value(S.DROPPED)
        if self.report is not None:
            self.report.dropped(origin, reason)
        if decided:
            message = (
                "Dropped %(request)s: its robots.txt was decided, but it was still waiting its "
                "turn to go on when the crawl closed (%(reason)s); with JOBDIR it is kept for "
                "the next run"
            )
        elif reason == STOPPED:
            message = (
                "Dropped %(request)s: the robots.txt of its origin answers with server errors, "
                "and a download that waits in place does not wait for a retry (Googlebot "
                "would not fetch it now)"
            )
        else:
            message = "Dropped %(request)s: its robots.txt stayed undecided (%(reason)s)"
        logger.warning(message, {"request": request, "reason": reason}, extra=self._extra())
        self._send(signals.parked_request_dropped, request=request, reason=reason)

    def unreadable(self, origin: str, error: str, where: str) -> None:
        """A parked request that could not be read back: dropped, with no request to signal."""
        self.stats.inc_value(S.DROPPED)
        self.stats.inc_value(S.UNREADABLE)
        if self.report is not None:
            self.report.dropped(origin, "unreadable")
        logger.warning(
            "Dropped a parked request of %(origin)s: it could not be read back from %(where)s "
            "(%(error)s)",
            {"origin": origin, "error": error, "where": where},
            extra=self._extra(),
        )

    def unserializable(self, request: Request, error: Exception) -> None:
        self.stats.inc_value(S.UNSERIALIZABLE)
        if self._unserializable_logged:
            return
        self._unserializable_logged = True
        logger.warning(
            "Unable to serialize parked request %(request)s (%(error)s): it stays in memory and "
            "is dropped (parked_request_dropped) if the crawl stops before its robots.txt is "
            "decided; "
            "no more unserializable requests will be logged (stat robotstxt/unserializable)",
            {"request": request, "error": error},
            extra=self._extra(),
        )

    def flush(self) -> None:
        """Store hits and pages read are counted in plain ints on the hot path, added to the
        stats here (on each tick, and at the close)."""
        if self.hits != self._hits_flushed:
            self.stats.inc_value(S.STORE_HIT, self.hits - self._hits_flushed)
            self._hits_flushed = self.hits
        if self.pages_read != self._pages_flushed:
            self.stats.inc_value(S.PAGE_RULES_READ, self.pages_read - self._pages_flushed)
            self._pages_flushed = self.pages_read

    # -- page-level rules (GBOT_ROBOTS_PAGE_RULES) -------------------------------------------
    def page_read(
        self, url: str, origin: str, rules: PageRules, *, disallowed: bool, now: float
    ) -> None:
        """A page's rules were read (one per response a callback gets)."""
        self.pages_read += 1
        if not rules.empty:
            stats = self.stats
            if not rules.indexable(now):
                stats.inc_value(S.PAGE_RULES_NOINDEX)
                if disallowed:
                    stats.inc_value(S.PAGE_RULES_DISALLOWED_NOINDEX)
            if rules.nofollow:
                stats.inc_value(S.PAGE_RULES_NOFOLLOW)
        if rules.capped:
            self.stats.inc_value(S.PAGE_RULES_CAPPED)
            if self.debug and logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "Page rules of %(url)s read in part: past a bound (%(capped)s), a rule was "
                    "not read (docs/crawling.md#bounds)",
                    {"url": url, "capped": ", ".join(rules.capped)},
                    extra=self._extra(),
                )
        if self.report is not None and origin:
            self.report.page_rules_read(origin, url, rules, disallowed=disallowed, now=now)

    def nofollow_dropped(self, request: Request, response: Response, origin: str) -> None:
        """A request yielded from a ``nofollow`` page was dropped."""
        self.stats.inc_value(S.PAGE_RULES_DROPPED_NOFOLLOW)
        rules = response.meta.get(PAGE_RULES_META)
        sources = rules.source("nofollow") if rules is not None else ()
        if self.debug and logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "Dropped %(request)s, yielded from %(page)s: the page says nofollow (%(sources)s)",
                {"request": request, "page": response, "sources": ", ".join(sources)},
                extra=self._extra(),
            )
        if self.report is not None and origin:
            self.report.nofollow_dropped(origin)
        self._send(
            signals.request_dropped_nofollow, request=request, response=response, sources=sources
        )

    def usage_withheld(
        self, request: Request, response: Response, category: str, source: str, where: str
    ) -> None:
        """A response refusing one of the crawl's uses was kept from its callback."""
        self.stats.inc_value(S.USAGE_WITHHELD)
        if self.debug and logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "Withheld %(response)s from its callback: its %(source)s refuses %(category)s "
                "(%(where)s)",
                {"response": response, "source": source, "category": category, "where": where},
                extra=self._extra(),
            )
        self._send(
            signals.response_withheld,
            request=request,
            response=response,
            category=category,
            source=source,
            where=where,
        )

    def tdmrep_fetched(self, origin: str, outcome: str, entries: int) -> None:
        """An origin's tdmrep.json was fetched (whatever came of it)."""
        self.stats.inc_value(S.TDMREP_FETCHED)
        if self.debug and logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "tdmrep.json of %(origin)s: %(outcome)s, %(entries)d entries",
                {"origin": origin, "outcome": outcome, "entries": entries},
                extra=self._extra(),
            )

    def tdmrep_forbidden(self, request: Request, where: str) -> None:
        """A request refused because its origin's tdmrep.json reserves TDM rights."""
        self.stats.inc_value(S.TDMREP_FORBIDDEN)
        if self.debug and logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "Forbidden by tdmrep.json (%(where)s): %(request)s",
                {"where": where, "request": request},
                extra=self._extra(),
            )

    def nofollow_kept(self) -> None:
        """A request yielded from a ``nofollow`` page kept for its ``dont_obey_robotstxt``."""
        self.stats.inc_value(S.PAGE_RULES_KEPT_NOFOLLOW)


class FetchEvents(_Telling):
    """What happens to one robots.txt fetch, from wanted to decided (and the crawl-delay it
    brings)."""

    def __init__(self, crawler: Crawler, report: ReportCollector | None, debug: bool) -> None:
        super().__init__(crawler, report, debug)
        self._chains: dict[str, list[Hop]] = {}  # robots.txt fetches in flight, for the report

    def fetch_wanted(self, why: FetchReason) -> None:
        stat = S.FETCH_WHY.get(why.value)
        if stat:
            self.stats.inc_value(stat)

    def sent(self) -> None:
        self.stats.inc_value(S.REQUEST_COUNT)

    def answered(self, origin: str, url: str, status: int) -> None:
        self.stats.inc_value(S.RESPONSE_COUNT)
        self.stats.inc_value(f"{S.RESPONSE_STATUS}{status}")
        self._hop(origin, url, status, None)

    def failed(self, origin: str, url: str, exc: Exception) -> None:
        self.stats.inc_value(f"{S.EXCEPTION}{type(exc)}")
        self._hop(origin, url, None, type(exc).__name__)

    def retried_at_once(self) -> None:
        self.stats.inc_value(S.FETCH_RETRY)

    def proxy_refused(self, origin: str, proxy: str | None, reason: str, *, first: bool) -> None:
        """The proxy, not the origin, answered the fetch: counted each time, told once a
        streak (``proxy`` is shown without credentials)."""
        self.stats.inc_value(S.PROXY_REFUSED)
        if first:
            logger.warning(
                "robots.txt of %(origin)s: the proxy %(proxy)s refused the request (%(reason)s), "
                "so the origin's rules are unknown and its requests stay parked, as for an "
                "unreachable robots.txt. Give the proxy's credentials on the requests: "
                "meta['proxy'] = 'http://USER:PASS@HOST:PORT' or a Proxy-Authorization header.",
                {"origin": origin, "proxy": proxy, "reason": reason},
                extra=self._extra(),
            )

    def lock_waited(self) -> None:
        self.stats.inc_value(S.LOCK_WAITED)

    def _hop(self, origin: str, url: str, status: int | None, error: str | None) -> None:
        """Remember one step of the fetch for the report (only when a report is wanted)."""
        if self.report is not None:
            self._chains.setdefault(origin, []).append((url, status, error))

    def fetch_ended(self, origin: str) -> None:
        self._chains.pop(origin, None)

    def decided(
        self,
        origin: str,
        state: OriginState,
        previous: OriginState | None,
        *,
        trigger: Callable[[], Request],
        source: str = "fetch",
    ) -> None:
        """Stats, logs and signals for a new origin state.

        ``source`` is ``"fetch"`` (fetched by us, just now), ``"stored"`` (a fresh state
        another process wrote, used instead of fetching) or ``"read back"`` (the store held
        it when memory had forgotten it).
        """
        stats = self.stats
        fetched = source == "fetch"
        if fetched:
            stats.inc_value(f"{S.ORIGIN_STATE}{state.kind.value}")
        elif source == "stored":
            stats.inc_value(S.STORE_STORED)
        if self.report is not None:
            self.report.fetched(
                origin,
                robots_url=robots_url(origin),
                chain=self._chains.pop(origin, ()),
                state=state,
                source="fetch" if fetched else "store",
            )
        values = {
            "origin": origin,
            "kind": state.kind.value,
            "reason": state.reason,
            "errors": state.errors,
            "ttl": state.refresh_at - state.fetched_at,
        }
        if not fetched:
            logger.debug(
                "robots.txt of %(origin)s: %(kind)s (%(reason)s), read from the store",
                values,
                extra=self._extra(),
            )
        elif state.kind is Kind.SERVER_ERROR:
            stats.inc_value(S.SERVER_ERROR)
            logger.info(
                "robots.txt of %(origin)s: server error (%(reason)s, %(errors)d in a row); "
                "next try in %(ttl).0f s",
                values,
                extra=self._extra(),
            )
        else:
            logger.debug(
                "robots.txt of %(origin)s: %(kind)s (%(reason)s), valid %(ttl).0f s",
                values,
                extra=self._extra(),
            )
        if state.kind is Kind.RULES:
            assert state.robots is not None
            if state.robots.truncated and fetched:
                stats.inc_value(S.TRUNCATED)
            if ROBOTS_PARSED_SIGNAL is not None and self.listened(ROBOTS_PARSED_SIGNAL):
                self.crawler.signals.send_catch_log(
                    signal=ROBOTS_PARSED_SIGNAL,
                    robotparser=_robot_parser(state.robots),
                    request=trigger(),
                )
        if previous is None or previous.kind is not state.kind or previous.reason != state.reason:
            self._send(signals.origin_state_changed, origin=origin, state=state.kind.value)

    def crawl_delay(self, origin: str, asked: float, applied: float) -> None:
        """An origin's ``crawl-delay`` became its slot's floor (``GBOT_ROBOTS_CRAWL_DELAY``)."""
        if self.report is not None:
            self.report.crawl_delay(origin, asked, applied)
        if applied < asked:
            logger.info(
                "Crawl-delay of %(origin)s is %(asked)g s: capped at %(applied)g s "
                "(GBOT_ROBOTS_CRAWL_DELAY_MAX)",
                {"origin": origin, "asked": asked, "applied": applied},
                extra=self._extra(),
            )


class RunEvents(_Telling):
    """What happens to the crawl as a whole: the open, the pace, the store's chores, the close."""

    def __init__(self, crawler: Crawler, report: ReportCollector | None, debug: bool) -> None:
        super().__init__(crawler, report, debug)
        self._store_error: str | None = None
        self._failing_evictions = 0

    def pruned(self, count: int, keep: float) -> None:
        if not count:
            return
        self.stats.inc_value(S.STORE_PRUNED, count)
        logger.info(
            "Forgot %(n)d stored robots.txt states not fetched for %(keep)s "
            "(GBOT_ROBOTS_STORE_KEEP)",
            {"n": count, "keep": duration(keep)},
            extra=self._extra(),
        )

    def components(self, store: TieredStore, lot: Lot[Any]) -> None:
        """Copy the persistent store's and the lot's own counters into the crawl's stats."""
        lost = store.failing_evictions
        if lost != self._failing_evictions:
            if not self._failing_evictions:
                logger.warning(
                    "The robots.txt store is full of origins in a server-error streak "
                    "(GBOT_ROBOTS_STORE_SIZE, GBOT_ROBOTS_STORE_COMPACT_BYTES): some were "
                    "forgotten, and each starts a new streak without its last good copy when "
                    "seen again; raise those, or keep states in a persistent store (JOBDIR or "
                    "GBOT_ROBOTS_STORE = 'sqlite://...') (stat robotstxt/store/evicted_failing)",
                    extra=self._extra(),
                )
            self._failing_evictions = lost
            self.stats.set_value(S.STORE_EVICTED_FAILING, lost)
        persistent = store.persistent
        parts: list[tuple[str, dict[str, int]]] = [(S.LOT, lot.counters())]
        if persistent is not None:
            parts.append((S.STORE, persistent.counters()))
        for prefix, counters in parts:
            for name, value in counters.items():
                if value:
                    self.stats.set_value(prefix + name, value)
        error = persistent.last_error if persistent is not None else None
        if error and error != self._store_error and persistent is not None:
            self._store_error = error
            logger.error(
                "robots.txt store %(store)s failed (%(error)s); the crawl goes on with the "
                "states in memory",
                {"store": persistent.name, "error": error},
                extra=self._extra(),
            )

    # -- lifecycle --------------------------------------------------------------------------
    def opened(
        self,
        token: Tokens,
        source: str,
        fetches: int,
        slow: int = 0,
        floor: int | None = None,
        start: int | None = None,
    ) -> None:
        if floor is not None and floor < fetches:
            budget = f"{start or floor}, paced between {floor} and {fetches},"
        else:
            budget = f"at most {fetches}"
        logger.info(
            "Obeying robots.txt as token %(token)r (from %(source)s), the way Googlebot "
            "does (scrapy_gbot_robots.GoogleRobotsTxtMiddleware); %(budget)s robots.txt "
            "downloads at once (+%(slow)d slow ones)",
            {"token": token, "source": source, "budget": budget, "slow": slow},
            extra=self._extra(),
        )

    def paced(self, pace: Pace) -> None:
        """The fetch budget's limit after a tick (``robotstxt/fetch_budget``, live)."""
        stats = self.stats
        stats.set_value(S.FETCH_BUDGET, pace.limit)
        if pace.limit == pace.before:
            return
        stats.inc_value(S.FETCH_BUDGET_GREW if pace.limit > pace.before else S.FETCH_BUDGET_SHRANK)
        if self.debug:
            logger.debug(
                "robots.txt fetch budget %(before)d -> %(limit)d (%(move)s: %(free)d free "
                "download slots, %(backlog)d requests waiting in the scheduler or their turn "
                "(%(previous)d a tick before), %(waiting)d origins waiting for robots.txt)",
                {
                    "before": pace.before,
                    "limit": pace.limit,
                    "move": pace.move.value,
                    "free": pace.free_slots,
                    "backlog": pace.backlog,
                    "previous": pace.previous,
                    "waiting": pace.waiting,
                },
                extra=self._extra(),
            )

    def unbounded_body(self, max_bytes: int) -> None:
        """RobotsBodyMiddleware is not in the downloader chain: say once what that costs."""
        logger.warning(
            "RobotsBodyMiddleware is not enabled in DOWNLOADER_MIDDLEWARES: robots.txt is read "
            "with Scrapy's own size limit of %(max)d bytes (GBOT_ROBOTS_MAX_BYTES) instead of "
            "being cut there as Google does, so a larger file (before or after decompression) "
            "fails as a server error and its origin is not crawled until a retry succeeds. "
            "Enable scrapy_gbot_robots.RobotsBodyMiddleware (the add-on does) to obey the "
            "first %(max)d bytes of any file",
            {"max": max_bytes},
            extra=self._extra(),
        )

    def fleet_parking(self, where: str) -> None:
        logger.info(
            "Parking requests in %(where)s, shared by every worker of the fleet",
            {"where": where},
            extra=self._extra(),
        )

    def resumed(self, count: int, where: str) -> None:
        if count:
            self.stats.inc_value(S.RESUMED, count)
            logger.info(
                "Resuming %(n)d parked requests from %(where)s",
                {"n": count, "where": where},
                extra=self._extra(),
            )

    def persisted(self, count: int, where: str, shared: bool) -> None:
        if not count:
            return
        self.stats.inc_value(S.PERSISTED, count)
        if shared:
            message = "Left %(n)d parked requests in %(where)s for the other workers"
        else:
            message = "Kept %(n)d parked requests in %(where)s for the next run with this JOBDIR"
        logger.info(message, {"n": count, "where": where}, extra=self._extra())

    def closed(self, gate: GateFigures, store: TieredStore) -> None:
        """The crawl's final counts: the gate's peaks and the store's totals (the hot
        path's counts are :meth:`RequestEvents.flush`'s)."""
        stats = self.stats
        stats.set_value(S.PARKED_PEAK, gate.parked_peak)
        stats.set_value(S.RELEASING_PEAK, gate.turn_peak)
        stats.set_value(S.FETCH_IN_FLIGHT_PEAK, gate.running_peak)
        stats.set_value(S.FETCH_SLOW_PEAK, gate.slow_peak)
        stats.set_value(S.FETCH_QUEUE_PEAK, gate.queued_peak)
        stats.set_value(S.FETCH_BUDGET_PEAK, gate.limit_peak)
        stats.set_value(S.FETCH_BUDGET, gate.limit)
        stats.set_value(S.STORE_PINNED_PEAK, store.pinned_peak)
        if store.pinned_evictions:
            stats.set_value(S.STORE_EVICTED_PINNED, store.pinned_evictions)
        if gate.taken_elsewhere:
            stats.set_value(S.LOT_TAKEN_ELSEWHERE, gate.taken_elsewhere)
        if store.evictions:
            stats.set_value(S.STORE_EVICTED, store.evictions)
        if store.reads:
            stats.set_value(S.STORE_READ_BACK, store.reads)
        if store.compact_reads:
            stats.set_value(S.STORE_COMPACT_READ, store.compact_reads)
        if store.forgotten:
            stats.set_value(S.STORE_FORGOTTEN, store.forgotten)


class Telemetry:
    """The crawl's three families of events, built once per crawler (both middlewares tell
    through them); each part of the crawl is given the family it tells."""

    __slots__ = ("fetches", "report", "requests", "run")

    def __init__(self, crawler: Crawler, report: ReportCollector | None, debug: bool) -> None:
        self.report = report
        self.requests = RequestEvents(crawler, report, debug)
        self.fetches = FetchEvents(crawler, report, debug)
        self.run = RunEvents(crawler, report, debug)


def _robot_parser(robots: RobotsTxt) -> Any:
    """Scrapy's ``RobotParser`` interface over the parsed file, for ``robots_parsed``."""
    from ..scrapy_parser import GoogleRobotParser

    return GoogleRobotParser(robots.body, robots=robots)
