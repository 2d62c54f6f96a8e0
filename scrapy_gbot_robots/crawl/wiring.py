"""From a crawler's settings to the middleware's collaborators: the one place that builds them.

:func:`configure` reads and checks the settings (a bad one stops the crawl before any
request, naming the setting); :func:`build` turns the crawler and its :class:`Config` into
the store, the parking lot, the telemetry (with the report), the gate and the fetcher.
:func:`fleet_lot` picks the lot of a scrapy-redis fleet once the scheduler is known.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured

from .._compat import redis_server
from .._redact import redacted
from .._settings import Config, ConfigError, configured_token, load, unknown_settings
from ..parking.codec import RequestCodec
from ..parking.memory import MemoryLot
from ..parking.sqlite import SqliteLot
from ..report.collector import ReportCollector
from ..stores.base import OriginStore, PersistentStore
from ..stores.memory import MemoryStore
from ..stores.sqlite import SqliteError, SqliteStore
from ..stores.tiered import TieredStore
from .admission import Admission
from .crawl_delay import CrawlDelay
from .fetcher import EngineDownloader, Fetcher
from .gate import Actions, Gate
from .housekeeping import Housekeeping
from .keys import RequestKeys
from .telemetry import Telemetry
from .verdicts import Verdicts

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..parking.base import Lot

logger = logging.getLogger("scrapy_gbot_robots.middleware")


@dataclass(frozen=True)
class Parts:
    """The middleware's collaborators, built once per crawler."""

    keys: RequestKeys
    token_source: str
    store: TieredStore
    telemetry: Telemetry
    gate: Gate[Any]
    fetcher: Fetcher
    admission: Admission
    verdicts: Verdicts
    crawl_delay: CrawlDelay | None  # GBOT_ROBOTS_CRAWL_DELAY: held here, it listens to signals
    codec: RequestCodec
    housekeeping: Housekeeping


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


def build(crawler: Crawler, config: Config, actions: Actions[Any]) -> Parts:
    """Every collaborator of the middleware; ``actions`` is what the gate asks of it."""
    token, source, warning = configured_token(config)
    if warning:
        logger.warning(warning)
    store = open_store(config, crawler)
    report = None
    if config.report:
        report = ReportCollector(
            max_origins=config.report_max_origins,
            max_rules=config.report_max_rules,
            examples=config.report_examples,
            error_stop=config.policy.error_stop,
            mode=config.mode,
            tokens=token,
            global_group=config.global_group,
            uses=config.usage,
        )
    telemetry = Telemetry(crawler, report, debug=_debug_visible(crawler))
    codec = RequestCodec(lambda: crawler.spider, telemetry.unserializable)
    lot = jobdir_lot(crawler, codec)
    # 0 (the default) follows CONCURRENT_REQUESTS: robots.txt downloads bypass the
    # engine's own concurrency limit, so this is their only bound.
    max_fetches = config.concurrent_fetches or crawler.settings.getint("CONCURRENT_REQUESTS", 16)
    gate: Gate[Any] = Gate(
        store,
        config.policy,
        lot,
        actions,
        park_timeout=config.park_timeout,
        max_fetches=max(1, max_fetches),
        observe=config.observe,
        max_slow=config.slow_lane(max(1, max_fetches)),
        slow_after=config.slow_fetch_after,
    )
    fetcher = Fetcher(
        config,
        store,
        EngineDownloader(crawler),
        telemetry,
        token=token,
        lock_ttl=lock_ttl(config, store.persistent),
    )
    fetcher.gate = gate
    store.on_read = fetcher.read_back

    def wake() -> None:
        from .._compat import wake_engine

        wake_engine(crawler.engine)

    keys = RequestKeys(token, fixed=source == "ROBOTSTXT_USER_AGENT")
    return Parts(
        keys=keys,
        token_source=source,
        store=store,
        telemetry=telemetry,
        gate=gate,
        fetcher=fetcher,
        admission=Admission(crawler),
        verdicts=Verdicts(config, keys, store, telemetry),
        crawl_delay=(
            CrawlDelay(crawler, config, keys, store, telemetry) if config.crawl_delay else None
        ),
        codec=codec,
        housekeeping=Housekeeping(config, gate, store, telemetry, wake),
    )


def open_store(config: Config, crawler: Crawler) -> TieredStore:
    """The store named by ``GBOT_ROBOTS_STORE`` or ``GBOT_ROBOTS_CACHE``."""
    if config.store:
        custom = config.store(config.cache_size)
        if not isinstance(custom, OriginStore):
            raise ConfigError(
                "GBOT_ROBOTS_STORE", f"{redacted(repr(custom))} does not implement OriginStore"
            )
        return TieredStore(custom)
    return TieredStore(MemoryStore(config.cache_size), open_persistent(config, crawler))


def open_persistent(config: Config, crawler: Crawler) -> PersistentStore | None:
    """The persistent or shared store named by ``GBOT_ROBOTS_CACHE`` (None: memory only)."""
    kind, where = config.cache
    setting = "GBOT_ROBOTS_CACHE" if crawler.settings.get("GBOT_ROBOTS_CACHE") else "JOBDIR"
    if kind == "sqlite":
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
    from scrapy.utils.reactor import is_asyncio_reactor_installed

    if not is_asyncio_reactor_installed():
        raise ConfigError(
            "GBOT_ROBOTS_CACHE",
            f"{redacted(where)} needs Scrapy's asyncio reactor: TWISTED_REACTOR = "
            "'twisted.internet.asyncioreactor.AsyncioSelectorReactor' (the default since "
            "Scrapy 2.13)",
        )
    return RedisStore(where, max_bytes=config.policy.max_bytes, keep=config.cache_keep)


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


def jobdir_lot(crawler: Crawler, codec: RequestCodec) -> Lot[Any]:
    """Parked requests in memory, or in an SQLite file under ``JOBDIR`` (kept on a pause)."""
    jobdir = crawler.settings.get("JOBDIR")
    if not jobdir:
        return MemoryLot()
    path = os.path.join(str(jobdir), "gbot_robots", "parked.sqlite3")
    try:
        return SqliteLot(path, codec.dumps, codec.loads)
    except Exception as exc:  # sqlite3.Error, OSError: say which setting it is about
        raise ConfigError("JOBDIR", f"cannot keep parked requests in {path}: {exc}") from exc


def fleet_lot(
    config: Config, scheduler: Any, spider: Spider, codec: RequestCodec
) -> Lot[Any] | None:
    """A Redis lot shared by the fleet when the scheduler is scrapy-redis's, else None.

    Parked requests then survive the death of the worker that parked them, and whichever
    worker sees the decision puts them back into the shared scrapy-redis queue.
    """
    server = redis_server(scheduler)
    if server is None or not config.fleet_parking:
        return None
    from ..parking.redis import RedisLot

    lot: Lot[Any] = RedisLot(server, f"{spider.name}:gbot_robots", codec.dumps, codec.loads)
    return lot


def _debug_visible(crawler: Crawler) -> bool:
    """Whether per-request DEBUG lines can be seen (Scrapy filters at its handler)."""
    level = crawler.settings.get("LOG_LEVEL", "DEBUG")
    numeric = logging.getLevelName(level) if isinstance(level, str) else level
    return not crawler.settings.getbool("LOG_ENABLED", True) or (
        isinstance(numeric, int) and numeric <= logging.DEBUG
    )
