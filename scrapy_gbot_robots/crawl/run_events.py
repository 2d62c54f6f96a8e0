"""What happens to the crawl as a whole, told once each (the third family of
:mod:`.telemetry`): the open, the pace, the store's chores, a fleet's back-offs, the close."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _stats as S
from ..report.labels import duration
from .telling import Telling, logger

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..engine.rules import Tokens
    from ..parking.base import Lot
    from ..report.collector import ReportCollector
    from ..stores.tiered import TieredStore
    from .gate import GateFigures
    from .pacing import Pace


class RunEvents(Telling):
    """What happens to the crawl as a whole: the open, the pace, the store's chores, the close."""

    def __init__(
        self, crawler: Crawler, report: ReportCollector | None, debug: bool, **telling: bool
    ) -> None:
        super().__init__(crawler, report, debug, **telling)
        self._store_error: str | None = None
        self._failing_evictions = 0

    def fleet_backoffs(self, shared: int, errors: int) -> None:
        """At the close: back-offs this worker shared with the fleet (Redis round trips),
        and the shares or listens that failed."""
        if shared:
            self.stats.set_value(S.BACKOFF_SHARED, shared)
        if errors:
            self.stats.set_value(S.BACKOFF_FLEET_ERRORS, errors)

    def fleet_pace(self, reserved: int, refused: int, errors: int) -> None:
        """At the close: this worker's Redis calls for the fleet's ``Crawl-delay`` slots
        (``stores/redis_pace.py``): those that took a slot, found it taken, or failed."""
        for name, count in (
            (S.CRAWL_DELAY_RESERVED, reserved),
            (S.CRAWL_DELAY_REFUSED, refused),
            (S.CRAWL_DELAY_FLEET_ERRORS, errors),
        ):
            if count:
                self.stats.set_value(name, count)

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

    def network_errors_unseen(self) -> None:
        """The back-off is on but NetworkErrorsMiddleware is not in the chain: say so once."""
        logger.info(
            "NetworkErrorsMiddleware is not enabled in DOWNLOADER_MIDDLEWARES: a page that "
            "times out or whose connection fails does not put its origin in back-off (only "
            "429 and 5xx answers do). Add scrapy_gbot_robots.crawl.network_errors_middleware."
            "NetworkErrorsMiddleware at 580 (the add-on does) to back off as Googlebot does",
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
