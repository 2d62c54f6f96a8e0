"""From a crawler to the crawl's coordinator: the one place that builds the parts.

:func:`build` turns the crawler and its shared parts (:mod:`.shared_parts`: the settings, a
bad one stopping the crawl before any request, the keys, the telemetry) into every
collaborator, each built whole and passed in through its constructor (with the family of
telemetry events it tells), in an order where every arrow points one way (:mod:`.coordinator`
owns the conversation between them)::

    shared parts, lifecycle → read-backs → store → outbox, JOBDIR's lot → fetcher
    → fetch runs, exits, verdicts, store chores, crawl-delay, report files, opener
    → coordinator

What needs the spider and its scheduler is built when the spider opens, by the
:class:`~.opener.Opener` built here and given to the coordinator: the lot, the gate that
parks in it, the admission checks. So the lot is chosen before the gate is built, and
nothing is changed once built.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .._compat import (
    asyncio_available,
    body_middleware_enabled,
    crawl_started,
    engine_accepts_requests,
)
from .._components import BODY, NETWORK_ERRORS, spellings
from .._redact import redacted
from .._settings import Config, ConfigError
from ..engine.rules import Tokens
from ..parking.codec import RequestCodec
from ..stores.base import OriginStore, PersistentStore
from ..stores.compact import CompactStore
from ..stores.memory import MemoryStore
from ..stores.tiered import TieredStore
from .coordinator import Coordinator
from .crawl_delay import CrawlDelay
from .effects import Outbox
from .exits import Exits
from .fetch_runs import FetchRuns
from .lifecycle import Lifecycle
from .opener import Opener, jobdir_lot
from .page_answers import BACKOFF_HEARD
from .progress import Progress
from .read_back import ReadBacks
from .reporting import ReportFiles
from .robots_fetch import Downloader, EngineDownloader, Fetcher
from .shared_parts import shared
from .store_chores import StoreChores
from .verdicts import Verdicts

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from ..policy.states import OriginState
    from ..stores.redis_backoff import FleetBackoffs
    from ..stores.redis_pace import FleetPace

logger = logging.getLogger("scrapy_gbot_robots.middleware")


def build(crawler: Crawler, downloader: Downloader | None = None) -> Coordinator:
    """The crawl's coordinator, with every collaborator it needs (see the module doc).

    ``downloader``: what fetches robots.txt; Scrapy's engine unless a test scripts it.
    """
    parts = shared(crawler)
    config, token, keys, telemetry = parts.config, parts.token, parts.keys, parts.telemetry
    report = telemetry.report
    # `scrapy shell` never starts a crawl: there, only the spider's close means closing.
    started = crawl_started(crawler)
    lifecycle = Lifecycle(
        lambda: engine_accepts_requests(crawler, crawl_started=started), config.clock
    )
    read_backs = ReadBacks(telemetry.fetches, lifecycle, limit=config.memory_size)
    store = open_store(config, crawler, prepare=_matcher_of(token), on_read=read_backs.seen)
    codec = RequestCodec(lambda: crawler.spider, telemetry.requests.unserializable)
    outbox: Outbox[Any] = Outbox()
    bounded_body = body_middleware_enabled(crawler.settings, spellings(BODY))
    if config.backoff and not body_middleware_enabled(crawler.settings, spellings(NETWORK_ERRORS)):
        telemetry.run.network_errors_unseen()
    fetcher = Fetcher(
        config,
        store,
        downloader or EngineDownloader(crawler),
        telemetry.fetches,
        lifecycle,
        lock_ttl=lock_ttl(config, store.persistent),
        bounded_body=bounded_body,
        # Scrapy's HTTP cache, when on, revalidates (its RFC2616 policy) or replays (its
        # default policy) robots.txt itself: validators of ours would let its default policy
        # store a 304 and replay it later to a request without them (docs/crawling.md).
        revalidate=not crawler.settings.getbool("HTTPCACHE_ENABLED"),
    )
    crawl_delay = (
        CrawlDelay(
            crawler, config, keys, store, telemetry.fetches, _fleet_pace(config), telemetry.run
        )
        if config.crawl_delay
        else None
    )
    report_files = None
    fleet_backoffs = _fleet_backoffs(config, crawler)
    if report is not None:
        report_files = ReportFiles(
            report,
            crawler.stats,
            config.report,
            tokens=token,
            settings={
                "concurrent_fetches": config.fetch_ceiling,
                "store": config.store_at[0],
                "park_timeout": config.park_timeout,
                "mode": config.mode,
            },
        )
    # Opened now: a JOBDIR that cannot hold the lot stops the crawl before any request.
    opener = Opener(crawler, config, store, lifecycle, outbox, codec, jobdir_lot(crawler, codec))
    return Coordinator(
        crawler,
        parts,
        store=store,
        lifecycle=lifecycle,
        outbox=outbox,
        opener=opener,
        fetches=FetchRuns(fetcher, lifecycle, telemetry.fetches),
        exits=Exits(crawler, lifecycle, telemetry.requests),
        verdicts=Verdicts(config, keys, store, telemetry.requests),
        chores=StoreChores(config, store, telemetry.requests, telemetry.run),
        progress=Progress(
            crawler.stats,
            crawler.settings.getfloat("LOGSTATS_INTERVAL", 60.0),
            config.park_timeout,
        ),
        crawl_delay=crawl_delay,
        report_files=report_files,
        bounded_body=bounded_body,
        fleet_backoffs=fleet_backoffs,
    )


def _fleet_backoffs(config: Config, crawler: Crawler) -> FleetBackoffs | None:
    """With the Redis store, back-offs shared by the fleet; what a worker hears reaches
    the coordinator through a signal of the crawler's (``BACKOFF_HEARD``)."""
    kind, where = config.store_at
    if not config.backoff or kind != "redis" or config.custom_store is not None:
        return None
    from ..stores.redis_backoff import FleetBackoffs  # redis is imported only for it

    send = crawler.signals.send_catch_log
    return FleetBackoffs(
        where,
        lambda **heard: send(BACKOFF_HEARD, **heard),
        max_entries=config.memory_size,
    )


def _fleet_pace(config: Config) -> FleetPace | None:
    """With the Redis store, ``Crawl-delay`` holds for the fleet (``stores/redis_pace.py``)."""
    kind, where = config.store_at
    if kind != "redis" or config.custom_store is not None:
        return None
    from ..stores.redis_pace import FleetPace  # redis is imported only for it

    return FleetPace(where)


def _matcher_of(token: Tokens) -> Callable[[OriginState], None]:
    """Build the rules of the crawl's token when a state is kept, while no check waits on
    it: the engine would do that work at the first question, linear in the body's size."""

    def prepare(state: OriginState) -> None:
        if state.robots is not None:
            state.robots.names_agent(token)

    return prepare


def open_store(
    config: Config,
    crawler: Crawler,
    *,
    prepare: Callable[[OriginState], None] | None = None,
    on_read: Callable[[str, OriginState], None] | None = None,
) -> TieredStore:
    """The store named by ``GBOT_ROBOTS_STORE`` (a location, or a factory of the project's)."""
    if config.custom_store:
        custom = config.custom_store(config.memory_size)
        if not isinstance(custom, OriginStore):
            raise ConfigError(
                config.store_setting, f"{redacted(repr(custom))} does not implement OriginStore"
            )
        return TieredStore(custom, prepare=prepare)
    compact = (
        CompactStore(config.compact_bytes, max_body=config.policy.max_bytes)
        if config.compact_bytes
        else None
    )
    return TieredStore(
        MemoryStore(config.memory_size, forget=None if compact is None else compact.put),
        open_persistent(config, crawler),
        compact=compact,
        prepare=prepare,
        on_read=on_read,
    )


def open_persistent(config: Config, crawler: Crawler) -> PersistentStore | None:
    """The persistent or shared store named by ``GBOT_ROBOTS_STORE`` (None: memory only)."""
    kind, where = config.store_at
    setting = config.store_setting  # the setting the user wrote, or JOBDIR for its default
    if kind == "sqlite":
        from ..stores.sqlite import SqliteError, SqliteStore  # see jobdir_lot

        try:
            return SqliteStore(where, max_bytes=config.policy.max_bytes)
        except SqliteError as exc:
            raise ConfigError(setting, str(exc)) from exc
    if kind != "redis":
        return None
    try:
        from ..stores.redis import RedisStore
    except ImportError as exc:
        raise ConfigError(
            setting,
            f'{redacted(where)} needs the redis client: pip install "scrapy-gbot-robots[redis]" '
            f"({exc})",
        ) from exc
    if not asyncio_available():
        raise ConfigError(
            setting,
            f"{redacted(where)} needs Scrapy's asyncio reactor: TWISTED_REACTOR = "
            "'twisted.internet.asyncioreactor.AsyncioSelectorReactor' (the default since "
            "Scrapy 2.13)",
        )
    return RedisStore(where, max_bytes=config.policy.max_bytes, keep=config.store_keep)


def lock_ttl(config: Config, persistent: PersistentStore | None) -> float:
    """How long a process that died while fetching blocks the others.

    A store whose holder renews its lock (Redis) names a short default; otherwise (SQLite)
    long enough for the slowest fetch (every hop and retry timing out), so a live holder
    keeps it.
    """
    if config.lock_ttl:
        return config.lock_ttl
    default = persistent.default_lock_ttl if persistent is not None else None
    if default is not None:
        return default
    hops = config.policy.max_redirects + 1
    return config.download_timeout * hops * (config.retry_times + 1) + 30.0
