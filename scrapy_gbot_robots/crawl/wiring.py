"""From a crawler's settings to the crawl's coordinator: the one place that builds the parts.

:func:`configure` reads and checks the settings (a bad one stops the crawl before any
request, naming the setting); :func:`build` turns the crawler and its :class:`Config` into
every collaborator, each built whole and passed in through its constructor (with the family
of telemetry events it tells), in an order where every arrow points one way
(:mod:`.coordinator` owns the conversation between them):

    keys, lifecycle, telemetry → read-backs → store → lot choice, outbox → gate
    → fetcher, verdicts, admission, store chores, pacing, crawl-delay, report files
    → coordinator
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import signals as scrapy_signals
from scrapy.exceptions import NotConfigured

from .._compat import (
    asyncio_available,
    body_middleware_enabled,
    crawl_started,
    engine_accepts_requests,
    listen,
)
from .._components import BODY, spellings
from .._redact import redacted
from .._settings import Config, ConfigError, configured_token, load, unknown_settings
from ..engine.rules import Tokens
from ..parking.codec import RequestCodec
from ..stores.base import OriginStore, PersistentStore
from ..stores.compact import CompactStore
from ..stores.memory import MemoryStore
from ..stores.tiered import TieredStore
from .admission import Admission
from .coordinator import Coordinator
from .crawl_delay import CrawlDelay
from .effects import Outbox
from .gate import Gate
from .lifecycle import Lifecycle
from .lots import LotChoice, jobdir_lot
from .pacing import Pacing
from .progress import Progress
from .read_back import ReadBacks
from .reporting import ReportFiles
from .request_keys import RequestKeys
from .robots_fetch import Downloader, EngineDownloader, Fetcher
from .store_chores import StoreChores
from .telemetry import Telemetry
from .verdicts import Verdicts

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from ..policy.states import OriginState

logger = logging.getLogger("scrapy_gbot_robots.middleware")


#: Scrapy's default parser, and ours: replacing them changes nothing the user asked for.
_PARSERS_WE_REPLACE_QUIETLY = frozenset({"ProtegoRobotParser", "GoogleRobotParser"})


def configure(crawler: Crawler) -> Config:
    """The crawler's :class:`Config`; ``NotConfigured`` when robots.txt is not obeyed."""
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
    parser = crawler.settings.get("ROBOTSTXT_PARSER")
    name = parser if isinstance(parser, str) else getattr(parser, "__qualname__", repr(parser))
    if parser and name.rpartition(".")[2] not in _PARSERS_WE_REPLACE_QUIETLY:
        logger.warning(
            "ROBOTSTXT_PARSER = %(parser)r is not used: with scrapy-gbot-robots, robots.txt is "
            "matched by Google's rules (scrapy_gbot_robots.GoogleRobotsTxtMiddleware), "
            "whatever ROBOTSTXT_PARSER says",
            {"parser": name},
        )
    return config


@dataclass(frozen=True)
class Shared:
    """What both of our middlewares use, built once per crawler by whichever comes first:
    the settings, the token(s), the request keys, and the one telemetry (with the report)."""

    config: Config
    token: Tokens
    token_source: str
    keys: RequestKeys
    telemetry: Telemetry


_SHARED: WeakKeyDictionary[Crawler, Shared] = WeakKeyDictionary()


def shared(crawler: Crawler) -> Shared:
    """The crawler's :class:`Shared` parts (``NotConfigured`` when robots.txt is not obeyed).

    Kept until the engine stops, so that the downloader middleware and the page-rules spider
    middleware count into one stats home and one report, whatever order Scrapy builds them in.
    """
    found = _SHARED.get(crawler)
    if found is not None:
        return found
    config = configure(crawler)
    token, source, warning = configured_token(config)
    if warning:
        logger.warning(warning)
    report = None
    if config.report:
        from ..report.collector import ReportCollector  # only when asked for

        report = ReportCollector(
            max_origins=config.report_max_origins,
            max_rules=config.report_max_rules,
            examples=config.report_examples,
            error_stop=config.policy.error_stop,
            mode=config.mode,
            tokens=token,
            global_group=config.global_group,
            uses=config.usage,
            page_rules=config.page_rules,
        )
    found = _SHARED[crawler] = Shared(
        config=config,
        token=token,
        token_source=source,
        keys=RequestKeys(token, fixed=source == "ROBOTSTXT_USER_AGENT"),
        telemetry=Telemetry(crawler, report, debug=_debug_visible(crawler)),
    )

    def forget() -> None:
        _SHARED.pop(crawler, None)

    listen(crawler, forget, scrapy_signals.engine_stopped)
    return found


def build(crawler: Crawler, downloader: Downloader | None = None) -> Coordinator:
    """The crawl's coordinator, with every collaborator it needs (see the module doc).

    ``downloader``: what fetches robots.txt; Scrapy's engine unless a test scripts it.
    """
    parts = shared(crawler)
    config, token, keys, telemetry = parts.config, parts.token, parts.keys, parts.telemetry
    report = telemetry.report
    # `scrapy shell` never starts a crawl: there, only the spider's close means closing.
    started = crawl_started(crawler)
    lifecycle = Lifecycle(lambda: engine_accepts_requests(crawler, crawl_started=started))
    read_backs = ReadBacks(telemetry.fetches, lifecycle, limit=config.memory_size)
    store = open_store(config, crawler, prepare=_matcher_of(token), on_read=read_backs.seen)
    codec = RequestCodec(lambda: crawler.spider, telemetry.requests.unserializable)
    outbox: Outbox[Any] = Outbox()
    # The JOBDIR's lot, or the fleet's that the coordinator chooses once the scheduler is known.
    lots: LotChoice[Any] = LotChoice(jobdir_lot(crawler, codec))
    # Robots.txt downloads bypass the engine's own concurrency limit: the budget's ceiling
    # is their only bound; the pacing moves the limit between its floor and it.
    max_fetches = config.fetch_ceiling
    gate: Gate[Any] = Gate(
        store,
        config.policy,
        lots,
        outbox,
        lifecycle.accepting,
        park_timeout=config.park_timeout,
        max_fetches=max_fetches,
        min_fetches=config.fetch_floor,
        start_fetches=config.fetch_start,
        observe=config.observe,
        max_slow=config.slow_lane(),
        slow_after=config.slow_fetch_after,
        room=store.room,
        pace_release=config.release_per_turn > 0,
        pin=store.pin,
        unpin=store.unpin,
    )
    bounded_body = body_middleware_enabled(crawler.settings, spellings(BODY))
    fetcher = Fetcher(
        config,
        store,
        downloader or EngineDownloader(crawler),
        telemetry.fetches,
        lifecycle,
        lock_ttl=lock_ttl(config, store.persistent),
        bounded_body=bounded_body,
    )
    if config.crawl_delay:
        CrawlDelay(crawler, config, keys, store, telemetry.fetches)  # it listens, and holds itself
    report_files = None
    if report is not None:
        report_files = ReportFiles(
            report,
            crawler.stats,
            config.report,
            user_agent=token,
            settings={
                "concurrent_fetches": max_fetches,
                "cache": config.store_at[0],
                "park_timeout": config.park_timeout,
                "mode": config.mode,
            },
        )
    return Coordinator(
        crawler,
        config,
        keys=keys,
        token_source=parts.token_source,
        store=store,
        gate=gate,
        lots=lots,
        outbox=outbox,
        fetcher=fetcher,
        lifecycle=lifecycle,
        request_events=telemetry.requests,
        fetch_events=telemetry.fetches,
        run_events=telemetry.run,
        verdicts=Verdicts(config, keys, store, telemetry.requests),
        admission=Admission(crawler),
        chores=StoreChores(config, store, telemetry.requests, telemetry.run),
        progress=Progress(crawler.stats, crawler.settings.getfloat("LOGSTATS_INTERVAL", 60.0)),
        pacing=Pacing(config.concurrent_requests),
        codec=codec,
        report_files=report_files,
        bounded_body=bounded_body,
    )


def _matcher_of(token: Tokens) -> Callable[[OriginState], None]:
    """Build the rules of the crawl's token when a state is kept, while no check waits on
    it: the engine would do that work at the first question, linear in the body's size."""

    def prepare(state: OriginState) -> None:
        if state.robots is not None:
            state.robots.names_agent(token)

    return prepare


def page_rules_parts(crawler: Crawler) -> Shared | None:
    """What the page-rules spider middleware needs, or None when the setting is "off"."""
    parts = shared(crawler)
    return parts if parts.config.reads_page_rules else None


def open_store(
    config: Config,
    crawler: Crawler,
    *,
    prepare: Callable[[OriginState], None] | None = None,
    on_read: Callable[[str, OriginState], None] | None = None,
) -> TieredStore:
    """The store named by ``GBOT_ROBOTS_STORE`` or ``GBOT_ROBOTS_CACHE``."""
    if config.custom_store:
        custom = config.custom_store(config.memory_size)
        if not isinstance(custom, OriginStore):
            raise ConfigError(
                "GBOT_ROBOTS_STORE", f"{redacted(repr(custom))} does not implement OriginStore"
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
    """The persistent or shared store named by ``GBOT_ROBOTS_CACHE`` (None: memory only)."""
    kind, where = config.store_at
    setting = "GBOT_ROBOTS_CACHE" if crawler.settings.get("GBOT_ROBOTS_CACHE") else "JOBDIR"
    if kind == "sqlite":
        from ..stores.sqlite import SqliteError, SqliteStore  # see crawl/lots.py

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
            "GBOT_ROBOTS_CACHE",
            f'{redacted(where)} needs the redis client: pip install "scrapy-gbot-robots[redis]" '
            f"({exc})",
        ) from exc
    if not asyncio_available():
        raise ConfigError(
            "GBOT_ROBOTS_CACHE",
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


def _debug_visible(crawler: Crawler) -> bool:
    """Whether per-request DEBUG lines can be seen (Scrapy filters at its handler)."""
    level = crawler.settings.get("LOG_LEVEL", "DEBUG")
    numeric = logging.getLevelName(level) if isinstance(level, str) else level
    return not crawler.settings.getbool("LOG_ENABLED", True) or (
        isinstance(numeric, int) and numeric <= logging.DEBUG
    )
