"""What the crawl tells its user: stats, log lines, signals and the report's counters.

Each event is one method, and each method counts, logs, signals and reports that event in
one place, so "where is X counted?" has one answer (stat names: ``_stats``). The events come
in three families, one class each (a request's, a robots.txt fetch's, and the whole run's in
:mod:`.run_events`; what they share is :mod:`.telling`'s), and
each part of the crawl is given the family it tells. It only tells:
it decides nothing, builds nothing and writes no file (the report's files are
:mod:`.reporting`'s). The costly parts (a deciding line for a DEBUG line, a signal nobody
listens to) are skipped when nobody can see them. Testable against a plain stats collector
and signal manager.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .. import _stats as S
from .. import signals
from .._compat import ROBOTS_PARSED_SIGNAL
from .._meta import PAGE_RULES_META
from ..policy.origin import robots_url
from ..policy.states import Kind, OriginState
from .reasons import STOPPED, ParkReason
from .run_events import RunEvents
from .telling import Telling, logger

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from ..engine.decision import Decision
    from ..engine.rules import RobotsTxt, Tokens
    from ..page.rules import PageRules
    from ..report.collector import ReportCollector
    from ..report.records import Hop
    from .backoff import Began
    from .reasons import FetchReason


_PARKED_LINE = "Parked until the robots.txt of %(origin)s is decided (%(reason)s): %(request)s"
_PARKED_LINES = {
    ParkReason.TURN: "Parked until its turn (the engine was full; %(origin)s is decided): "
    "%(request)s",
    ParkReason.BACKOFF: "Parked until the back-off of %(origin)s is over: %(request)s",
    ParkReason.CRAWL_DELAY: "Parked until the fleet's Crawl-delay slot of %(origin)s is free: "
    "%(request)s",
}


class RequestEvents(Telling):
    """What happens to one request: checked, forbidden, parked, released, dropped, and what
    the page-rules middleware reads and drops."""

    def __init__(
        self, crawler: Crawler, report: ReportCollector | None, debug: bool, **telling: bool
    ) -> None:
        super().__init__(crawler, report, debug, **telling)
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
        elif reason is ParkReason.BACKOFF:
            self.stats.inc_value(S.BACKOFF_PARKED)
        elif reason is ParkReason.CRAWL_DELAY:
            self.stats.inc_value(S.CRAWL_DELAY_PARKED)
        if self.report is not None:
            self.report.parked(origin, backoff=reason is ParkReason.BACKOFF)
        if self.debug:
            logger.debug(
                _PARKED_LINES.get(reason, _PARKED_LINE),
                {"origin": origin, "reason": reason.value, "request": request},
                extra=self._extra(),
            )
        if self.listened(signals.request_parked):
            self._send(signals.request_parked, request=request)

    def backoff_began(self, began: Began, withdrawn: int) -> None:
        """An origin answered 429 or 5xx, or a page's download failed with a network error:
        its back-off began (one INFO line) or a later ``Retry-After`` lengthened it;
        ``withdrawn``: its requests taken out of their download slot, not yet sent."""
        stats = self.stats
        failure = began.failure
        fleet = began.status == 0 and not failure  # another worker's, heard through the store
        if fleet:
            stats.inc_value(S.BACKOFF_HEARD)
        else:
            stats.inc_value(S.BACKOFF_ENTERED if began.new else S.BACKOFF_LENGTHENED)
        if failure:
            stats.inc_value(S.BACKOFF_NETWORK_ERROR)
        if began.asked and not fleet:
            stats.inc_value(S.BACKOFF_RETRY_AFTER)
        if withdrawn:
            stats.inc_value(S.BACKOFF_WITHDRAWN, withdrawn)
        seconds = self.crawler.stats.get_value(S.BACKOFF_SECONDS_MAX) or 0.0
        if began.delay > seconds:
            stats.set_value(S.BACKOFF_SECONDS_MAX, round(began.delay, 3))
        if self.report is not None:
            self.report.backoff(began.origin, began.delay, new=began.new)
        if began.new:
            why = "Retry-After" if began.asked else "no Retry-After: doubled each time"
            logger.info(
                "Backing off %(origin)s for %(delay).3g s: %(what)s; its requests are parked "
                "until then",
                {
                    "origin": began.origin,
                    "delay": began.delay,
                    "what": "another worker of the fleet was asked to"
                    if fleet
                    else f"a page's download failed: {failure} ({why})"
                    if failure
                    else f"it answered {began.status} ({why})",
                },
                extra=self._extra(),
            )

    def backoff_ended(self, origin: str, lasted: float) -> None:
        """An origin's back-off is over: its parked requests are released."""
        logger.info(
            "Back-off of %(origin)s over after %(lasted).3g s: its requests go on",
            {"origin": origin, "lasted": lasted},
            extra=self._extra(),
        )

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
                "'sqlite://...'); stat robotstxt/bounced (and robotstxt/store/evicted with "
                "GBOT_ROBOTS_DIAGNOSTIC_STATS)",
                extra=self._extra(),
            )

    def released(self) -> None:
        """A parked request went back to the engine."""
        self.stats.inc_value(S.RELEASED)

    def dropped(self, request: Request, origin: str, reason: str, *, decided: bool = False) -> None:
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
                "turn (or its origin's back-off) to go on when the crawl closed (%(reason)s); "
                "with JOBDIR it is kept for the next run"
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

    def tdmrep_read_back(self, origin: str, entries: int) -> None:
        """An origin's tdmrep.json answer read from the SQLite or Redis store, not fetched (an
        earlier run's, or another worker's)."""
        self.stats.inc_value(S.TDMREP_READ_BACK)
        if self.debug and logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "tdmrep.json of %(origin)s: read from the store, %(entries)d entries",
                {"origin": origin, "entries": entries},
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

    def tdmrep_dropped(self, request: Request, origin: str, reason: str) -> None:
        """A request that waited for its origin's tdmrep.json, which the close left unread:
        dropped, never downloaded (an unread file is no "no reservation")."""
        self.stats.inc_value(S.DROPPED)
        if self.report is not None:
            self.report.dropped(origin, reason)
        logger.warning(
            "Dropped %(request)s: %(reason)s (an unread file is no answer, not 'no reservation')",
            {"request": request, "reason": reason},
            extra=self._extra(),
        )
        self._send(signals.parked_request_dropped, request=request, reason=reason)

    def tdmrep_kept(self, request: Request, origin: str) -> None:
        """Such a request with ``JOBDIR``: sent back to the scheduler, whose disk queue keeps
        it for the next run (which fetches the file again)."""
        self.stats.inc_value(S.PERSISTED)
        logger.info(
            "Kept %(request)s for the next run: the crawl closed before the tdmrep.json of "
            "%(origin)s was read",
            {"request": request, "origin": origin},
            extra=self._extra(),
        )

    def nofollow_kept(self) -> None:
        """A request yielded from a ``nofollow`` page kept for its ``dont_obey_robotstxt``."""
        self.stats.inc_value(S.PAGE_RULES_KEPT_NOFOLLOW)


class FetchEvents(Telling):
    """What happens to one robots.txt fetch, from wanted to decided (and the crawl-delay it
    brings)."""

    def __init__(
        self, crawler: Crawler, report: ReportCollector | None, debug: bool, **telling: bool
    ) -> None:
        super().__init__(crawler, report, debug, **telling)
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
            if state.revalidated:
                stats.inc_value(S.REVALIDATED)
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
        changed = previous is None or previous.kind is not state.kind
        if not changed and previous is not None and not state.revalidated:
            changed = previous.reason != state.reason  # a 304 keeps the rules: no change
        if changed:
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


class Telemetry:
    """The crawl's three families of events, built once per crawler (both middlewares tell
    through them); each part of the crawl is given the family it tells."""

    __slots__ = ("fetches", "report", "requests", "run")

    def __init__(
        self,
        crawler: Crawler,
        report: ReportCollector | None,
        debug: bool,
        *,
        diagnostic: bool = False,
    ) -> None:
        self.report = report
        self.requests = RequestEvents(crawler, report, debug, diagnostic=diagnostic)
        self.fetches = FetchEvents(crawler, report, debug, diagnostic=diagnostic)
        self.run = RunEvents(crawler, report, debug, diagnostic=diagnostic)


def _robot_parser(robots: RobotsTxt) -> Any:
    """Scrapy's ``RobotParser`` interface over the parsed file, for ``robots_parsed``."""
    from ..scrapy_parser import GoogleRobotParser

    return GoogleRobotParser(robots.body, robots=robots)
