"""Settings: read once, validated, and a bad value stops start-up naming the setting."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

from scrapy_gbot_robots._settings import Config, ConfigError, configured_token, load
from scrapy_gbot_robots.crawl import shared_parts


def _load(**values: Any) -> Config:
    return load(values.get)


def test_defaults_are_googles() -> None:
    config = _load(ROBOTSTXT_OBEY=True)
    policy = config.policy
    assert config.obey
    assert policy.max_redirects == 5
    assert policy.max_bytes == 512_000
    assert policy.cache_ttl == 24 * 3600
    assert policy.error_stop == 12 * 3600
    assert policy.error_grace == 30 * 86400
    # Well below Scrapy's 3 x 180 s for one robots.txt.
    assert config.download_timeout * (config.retry_times + 1) < 3 * 180
    assert config.clock is time.time
    assert config.custom_store is None


def test_robots_timeout_follows_a_lower_download_timeout() -> None:
    assert _load().download_timeout == 30  # Scrapy's 180 s is not lower
    assert _load(DOWNLOAD_TIMEOUT=2).download_timeout == 2
    assert _load(DOWNLOAD_TIMEOUT="7.5").download_timeout == 7.5
    assert _load(DOWNLOAD_TIMEOUT=100).download_timeout == 30
    assert _load(DOWNLOAD_TIMEOUT=2, GBOT_ROBOTS_DOWNLOAD_TIMEOUT=10).download_timeout == 10
    with pytest.raises(ConfigError, match=r"^DOWNLOAD_TIMEOUT: "):
        _load(DOWNLOAD_TIMEOUT="soon")


@pytest_twisted.ensureDeferred
async def test_a_spider_download_timeout_bounds_its_robots_txt(server: Server) -> None:
    from scrapy import signals

    server.route("/robots.txt", hang=True)
    timeouts: list[float] = []

    def reached(request: Any, spider: Any) -> None:
        if request.url.endswith("/robots.txt"):
            timeouts.append(request.meta["download_timeout"])

    spider = make_spider(
        urls=[server.url("/a", "a.test")],
        custom_settings={"DOWNLOAD_TIMEOUT": 1, "GBOT_ROBOTS_PARK_TIMEOUT": 2},
    )
    from _httpserver import BASE_SETTINGS
    from scrapy.crawler import CrawlerRunner

    settings = {k: v for k, v in BASE_SETTINGS.items() if k != "GBOT_ROBOTS_DOWNLOAD_TIMEOUT"}
    crawler = CrawlerRunner(settings).create_crawler(spider)
    crawler.signals.connect(reached, signal=signals.request_reached_downloader)
    await crawler.crawl()
    assert timeouts and set(timeouts) == {1}
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/server_error"] >= 1 and stats["robotstxt/dropped"] == 1


def test_values_from_strings() -> None:
    config = _load(
        GBOT_ROBOTS_PARK_TIMEOUT="12.5", GBOT_ROBOTS_STORE_SIZE="7", ROBOTSTXT_OBEY="False"
    )
    assert config.park_timeout == 12.5
    assert config.memory_size == 7
    assert not config.obey


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("GBOT_ROBOTS_PARK_TIMEOUT", "soon"),
        ("GBOT_ROBOTS_PARK_TIMEOUT", -1),
        ("GBOT_ROBOTS_PARK_TIMEOUT", 0),
        ("GBOT_ROBOTS_DOWNLOAD_TIMEOUT", float("nan")),
        ("GBOT_ROBOTS_STORE_SIZE", 0),
        ("GBOT_ROBOTS_STORE_SIZE", 2.5),
        ("GBOT_ROBOTS_STORE_COMPACT_BYTES", -1),
        ("GBOT_ROBOTS_MAX_REDIRECTS", True),
        ("GBOT_ROBOTS_MAX_BYTES", [1]),
        ("GBOT_ROBOTS_ERROR_STOP", float("inf")),
        ("GBOT_ROBOTS_CLOCK", "no.such.module.clock"),
        ("GBOT_ROBOTS_CLOCK", 42),
        ("GBOT_ROBOTS_STORE", "scrapy_gbot_robots.stores.memory.NoSuchStore"),
        ("ROBOTSTXT_OBEY", "maybe"),
        ("ROBOTSTXT_USER_AGENT", 12),
        ("GBOT_ROBOTS_SLOW_FETCH_AFTER", -1),
        ("GBOT_ROBOTS_SLOW_FETCHES", -1),
        ("GBOT_ROBOTS_SLOW_FETCHES", 1.5),
    ],
)
def test_bad_value_names_the_setting(setting: str, value: Any) -> None:
    with pytest.raises(ConfigError) as info:
        _load(**{setting: value})
    assert info.value.setting == setting
    assert str(info.value).startswith(setting + ":")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("values", "setting"),
    [
        ({"GBOT_ROBOTS_ERROR_STOP": 100, "GBOT_ROBOTS_ERROR_GRACE": 50}, "GBOT_ROBOTS_ERROR_GRACE"),
        ({"GBOT_ROBOTS_STORE_KEEP": 59 * 86_400}, "GBOT_ROBOTS_STORE_KEEP"),
        (
            {"GBOT_ROBOTS_MIN_TTL": 100, "GBOT_ROBOTS_MAX_TTL": 50},
            "GBOT_ROBOTS_MAX_TTL",
        ),
        (
            {"GBOT_ROBOTS_RETRY_BACKOFF": 100, "GBOT_ROBOTS_RETRY_BACKOFF_MAX": 50},
            "GBOT_ROBOTS_RETRY_BACKOFF_MAX",
        ),
    ],
)
def test_inconsistent_pairs(values: dict[str, Any], setting: str) -> None:
    with pytest.raises(ConfigError, match=setting):
        load(values.get)


def test_slow_lane_defaults_to_four_times_the_budget_start_and_zero_turns_it_off() -> None:
    assert _load(CONCURRENT_REQUESTS=32).slow_lane() == 128
    assert _load(GBOT_ROBOTS_CONCURRENT_FETCHES=5).slow_lane() == 20
    assert _load(GBOT_ROBOTS_SLOW_FETCHES=10).slow_lane() == 10
    assert _load(GBOT_ROBOTS_SLOW_FETCH_AFTER=0).slow_lane() == 0
    assert _load(GBOT_ROBOTS_SLOW_FETCH_AFTER="2.5").slow_fetch_after == 2.5


@pytest.mark.parametrize(
    ("values", "bounds"),
    [
        ({}, (4, 16, 128)),  # Scrapy's CONCURRENT_REQUESTS: from 16, between 16 / 4 and 8 x 16
        ({"CONCURRENT_REQUESTS": 32}, (8, 32, 256)),
        ({"CONCURRENT_REQUESTS": "4"}, (1, 4, 32)),
        ({"CONCURRENT_REQUESTS": 2}, (1, 2, 16)),
        ({"CONCURRENT_REQUESTS": 0}, (4, 16, 128)),  # no page limit: as the default
        # The 0.3 meaning of GBOT_ROBOTS_CONCURRENT_FETCHES, "at most N", holds: a ceiling.
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES": 8}, (2, 8, 8)),
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES": 64, "CONCURRENT_REQUESTS": 32}, (8, 32, 64)),
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES_MIN": 2}, (2, 16, 128)),
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES_MIN": 20}, (20, 20, 128)),  # starts at the floor
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES_MIN": 9, "GBOT_ROBOTS_CONCURRENT_FETCHES": 9}, (9, 9, 9)),
    ],
)
def test_the_fetch_budget_bounds(values: dict[str, Any], bounds: tuple[int, int, int]) -> None:
    config = load(values.get)
    assert (config.fetch_floor, config.fetch_start, config.fetch_ceiling) == bounds


@pytest.mark.parametrize(
    ("values", "setting", "says"),
    [
        (
            {"GBOT_ROBOTS_CONCURRENT_FETCHES_MIN": 20, "GBOT_ROBOTS_CONCURRENT_FETCHES": 10},
            "GBOT_ROBOTS_CONCURRENT_FETCHES_MIN",
            "must be <= GBOT_ROBOTS_CONCURRENT_FETCHES: 10, got 20",
        ),
        (
            {"GBOT_ROBOTS_CONCURRENT_FETCHES_MIN": 200},
            "GBOT_ROBOTS_CONCURRENT_FETCHES_MIN",
            "(its default, 8 x CONCURRENT_REQUESTS): 128",
        ),
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES": -1}, "GBOT_ROBOTS_CONCURRENT_FETCHES", ">= 0"),
        ({"GBOT_ROBOTS_CONCURRENT_FETCHES_MIN": 1.5}, "CONCURRENT_FETCHES_MIN", "whole"),
        ({"CONCURRENT_REQUESTS": "many"}, "CONCURRENT_REQUESTS", "whole number"),
    ],
)
def test_a_bad_fetch_budget_names_its_setting(
    values: dict[str, Any], setting: str, says: str
) -> None:
    with pytest.raises(ConfigError, match=setting) as caught:
        load(values.get)
    assert says in str(caught.value)


def test_clock_and_store_by_import_path() -> None:
    config = _load(
        GBOT_ROBOTS_CLOCK="time.monotonic",
        GBOT_ROBOTS_STORE="scrapy_gbot_robots.stores.memory.MemoryStore",
    )
    assert config.clock is time.monotonic
    assert config.custom_store is not None and len(config.custom_store(3)) == 0


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ("memory", ("memory", "")),
        (" Memory ", ("memory", "")),
        ("sqlite://robots.db", ("sqlite", "robots.db")),
        ("SQLITE:///var/lib/robots.db", ("sqlite", "/var/lib/robots.db")),
        ("redis://localhost:6379/0", ("redis", "redis://localhost:6379/0")),
        ("rediss://h/1", ("redis", "rediss://h/1")),
    ],
)
def test_the_store_setting_takes_a_location(value: str, where: tuple[str, str]) -> None:
    config = _load(GBOT_ROBOTS_STORE=value)
    assert config.custom_store is None and config.store_at == where
    assert config.store_setting == "GBOT_ROBOTS_STORE"


def test_the_store_setting_takes_a_factory_or_its_import_path() -> None:
    from scrapy_gbot_robots.stores.memory import MemoryStore

    for value in (MemoryStore, "scrapy_gbot_robots.stores.memory.MemoryStore"):
        config = _load(GBOT_ROBOTS_STORE=value)
        assert config.custom_store is MemoryStore and config.store_at == ("memory", "")
    unset = _load()
    assert (unset.custom_store, unset.store_at, unset.store_setting) == (
        None,
        ("memory", ""),
        "GBOT_ROBOTS_STORE",
    )
    jobdir = _load(JOBDIR="/tmp/job")
    assert jobdir.store_at[0] == "sqlite" and jobdir.store_setting == "JOBDIR"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("robots.db", "or a store factory (a callable or its import path); cannot import"),
        ("ftp://robots", "expected 'memory', 'sqlite://PATH', 'redis://HOST:PORT/DB' or a store"),
        (42, "or its import path), got 42"),
        ("sqlite://", "sqlite:// needs a file path"),
    ],
)
def test_a_store_setting_that_is_neither_names_both(value: Any, says: str) -> None:
    with pytest.raises(ConfigError, match=r"^GBOT_ROBOTS_STORE: ") as caught:
        _load(GBOT_ROBOTS_STORE=value)
    assert says in str(caught.value)


def test_token_from_robotstxt_user_agent_or_user_agent() -> None:
    ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    assert configured_token(_load(USER_AGENT=ua)) == ("Googlebot", "USER_AGENT", None)
    assert configured_token(_load(USER_AGENT=ua, ROBOTSTXT_USER_AGENT="MyBot")) == (
        "MyBot",
        "ROBOTSTXT_USER_AGENT",
        None,
    )
    token, source, warning = configured_token(_load(ROBOTSTXT_USER_AGENT="MyBot/1.0"))
    assert (token, source) == ("MyBot", "ROBOTSTXT_USER_AGENT")
    assert warning is not None and "ROBOTSTXT_USER_AGENT" in warning and "'MyBot'" in warning


@pytest_twisted.ensureDeferred
async def test_bad_setting_stops_the_crawl_before_any_request(server: Server) -> None:
    spider = make_spider(urls=[server.url("/a")])
    with pytest.raises(ConfigError, match="GBOT_ROBOTS_PARK_TIMEOUT"):
        await crawl(spider, {"GBOT_ROBOTS_PARK_TIMEOUT": "ten minutes"})
    assert server.hits == {}


@pytest_twisted.ensureDeferred
async def test_invalid_token_warns_once_naming_the_setting(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=b"User-agent: mybot\nDisallow: /\n")
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    crawler = await crawl(
        make_spider(urls=[server.url("/a")]), {"ROBOTSTXT_USER_AGENT": "MyBot/2.0 (+http://x)"}
    )
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "ROBOTSTXT_USER_AGENT" in warnings[0].getMessage()
    assert "'MyBot'" in warnings[0].getMessage()
    infos = [r.getMessage() for r in caplog.records if "Obeying robots.txt as" in r.getMessage()]
    assert len(infos) == 1
    expected = "Obeying robots.txt as token 'MyBot' (from ROBOTSTXT_USER_AGENT)"
    assert infos[0].startswith(expected)
    assert crawler.spider.crawled == []  # MyBot is disallowed everything


def test_every_setting_works_in_custom_settings() -> None:
    """Per-spider values reach that spider's middleware (Scrapy merges custom_settings)."""
    import scrapy
    from scrapy.utils.test import get_crawler

    from scrapy_gbot_robots import GoogleRobotsTxtMiddleware
    from scrapy_gbot_robots._settings import NUMERIC, PREFIX

    custom: dict[str, Any] = {
        PREFIX + name: (default * 2 if kind == "float" else int(default) + 3)
        for name, (default, kind, _) in NUMERIC.items()
    }
    custom.update(
        ROBOTSTXT_OBEY=True, ROBOTSTXT_USER_AGENT="PerSpiderBot", GBOT_ROBOTS_CLOCK="time.monotonic"
    )
    custom[PREFIX + "STORE_KEEP"] = 121 * 86_400.0  # 0 doubled is 0; past the doubled floor

    class Spider(scrapy.Spider):
        name = "custom"
        custom_settings = custom

    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": False, "GBOT_ROBOTS_PARK_TIMEOUT": 1})
    mw = GoogleRobotsTxtMiddleware.from_crawler(crawler)
    config = shared_parts.configure(crawler)  # what the middleware was built from, read once
    policy = config.policy
    assert mw.token == "PerSpiderBot"
    assert config.clock is time.monotonic
    values = {
        "DOWNLOAD_TIMEOUT": config.download_timeout,
        "RETRY_TIMES": config.retry_times,
        "MAX_REDIRECTS": policy.max_redirects,
        "MAX_BYTES": policy.max_bytes,
        "TTL": policy.cache_ttl,
        "MIN_TTL": policy.min_ttl,
        "MAX_TTL": policy.max_ttl,
        "STORE_SIZE": config.memory_size,
        "STORE_COMPACT_BYTES": config.compact_bytes,
        "ERROR_STOP": policy.error_stop,
        "ERROR_GRACE": policy.error_grace,
        "RETRY_BACKOFF": policy.retry_backoff,
        "RETRY_BACKOFF_MAX": policy.retry_backoff_max,
        "PARK_TIMEOUT": config.park_timeout,
        "TICK": config.tick,
        "RELEASE_PER_TURN": config.release_per_turn,
        "CONCURRENT_FETCHES": config.fetch_ceiling,
        "CONCURRENT_FETCHES_MIN": config.fetch_floor,
        "SLOW_FETCH_AFTER": config.slow_fetch_after,
        "SLOW_FETCHES": config.slow_fetches,
        "LOCK_TTL": config.lock_ttl,
        "STORE_KEEP": config.store_keep,
        "REPORT_MAX_ORIGINS": config.report_max_origins,
        "REPORT_MAX_RULES": config.report_max_rules,
        "REPORT_EXAMPLES": config.report_examples,
        "CRAWL_DELAY_MAX": config.crawl_delay_max,
        "BACKOFF_MAX": config.backoff_max,
    }
    assert set(values) == set(NUMERIC)
    for name, value in values.items():
        assert value == custom[PREFIX + name], name


def test_backoff_is_on_by_default_and_its_settings_are_checked() -> None:
    assert _load().backoff and _load().backoff_max == 300.0
    assert not _load(GBOT_ROBOTS_BACKOFF="False").backoff
    assert _load(GBOT_ROBOTS_BACKOFF_MAX="5").backoff_max == 5.0
    with pytest.raises(ConfigError, match=r"^GBOT_ROBOTS_BACKOFF_MAX: must be >= 0.001"):
        _load(GBOT_ROBOTS_BACKOFF_MAX=0)
    with pytest.raises(ConfigError, match=r"^GBOT_ROBOTS_BACKOFF"):
        _load(GBOT_ROBOTS_BACKOFF="maybe")


def test_page_rules_levels_and_the_observe_default() -> None:
    assert _load().page_rules == "off"  # today's crawls read nothing and pay nothing
    assert not _load().reads_page_rules
    assert _load(GBOT_ROBOTS_PAGE_RULES=" Read ").page_rules == "read"
    obey = _load(GBOT_ROBOTS_PAGE_RULES="obey")
    assert obey.reads_page_rules and obey.obeys_page_rules
    # Observe mode reads when the setting is unset, and drops nothing even with "obey".
    assert _load(GBOT_ROBOTS_MODE="observe").page_rules == "read"
    assert _load(GBOT_ROBOTS_MODE="observe", GBOT_ROBOTS_PAGE_RULES="off").page_rules == "off"
    observed = _load(GBOT_ROBOTS_MODE="observe", GBOT_ROBOTS_PAGE_RULES="obey")
    assert observed.reads_page_rules and not observed.obeys_page_rules
    for bad in ("yes", True, 1, ["obey"]):
        with pytest.raises(ConfigError, match=r"^GBOT_ROBOTS_PAGE_RULES: expected 'off'"):
            _load(GBOT_ROBOTS_PAGE_RULES=bad)
