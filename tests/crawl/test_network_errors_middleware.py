"""A page's network error puts its origin in back-off, as a 5xx without ``Retry-After`` does.

The middleware's decision is tested fast with a fake crawler; the rest in real crawls against
the loopback server: pages of one origin that hang past a short ``DOWNLOAD_TIMEOUT`` for their
first two seconds, or whose connection is reset, beside a healthy origin. "No request during
the back-off" is read from the server's log of arrivals against the moment the crawler's
back-off began (a test receiver of the same private signal the coordinator hears, connected
after it), on the same monotonic clock.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
import pytest_twisted
from _httpserver import BASE_SETTINGS, Route, Server, crawl, make_spider
from _redisserver import missing, running_redis
from scrapy.crawler import CrawlerRunner
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request
from scrapy.settings import Settings
from scrapy.utils.misc import load_object
from test_backoff import HANDED, RecordingHandler, breaches
from twisted.internet.error import ConnectionLost
from twisted.web.server import Request as WebRequest

from scrapy_gbot_robots._components import NETWORK_ERRORS
from scrapy_gbot_robots._meta import FETCH_META, TDMREP_FETCH
from scrapy_gbot_robots.addon import NETWORK_ERRORS_PRIORITY, Addon
from scrapy_gbot_robots.crawl import tdmrep_middleware
from scrapy_gbot_robots.crawl.backoff import Backoffs
from scrapy_gbot_robots.crawl.network_errors_middleware import (
    NetworkErrorsMiddleware,
    network_errors,
)
from scrapy_gbot_robots.crawl.page_answers import PAGE_FAILED

PAGES = [f"/p{i}" for i in range(10)]
TIMEOUT = 0.5  # DOWNLOAD_TIMEOUT of the crawls
HANG_FOR = 2.0  # a.test's pages hang for this long after its first page request


# -- the decision, fast -------------------------------------------------------------------------
class _Signals:
    def __init__(self) -> None:
        self.sent: list[tuple[object, dict[str, Any]]] = []

    def send_catch_log(self, signal: object, **kwargs: Any) -> list[Any]:
        self.sent.append((signal, kwargs))
        return []


class _Crawler:
    def __init__(self) -> None:
        self.signals = _Signals()


def _middleware() -> tuple[NetworkErrorsMiddleware, _Signals]:
    crawler = _Crawler()
    parts: Any = object()
    errors = network_errors(Settings())
    return NetworkErrorsMiddleware(crawler, parts, errors), crawler.signals  # type: ignore[arg-type]


def test_scrapys_retryable_network_errors_count_and_nothing_else() -> None:
    mw, signals = _middleware()
    request = Request("http://a.test/p")
    timeout = load_object(Settings().getlist("RETRY_EXCEPTIONS")[0])  # DNS or timeout, by version
    hook: Any = mw.process_exception  # it returns None: Scrapy's retry still retries
    for exception in (timeout(), ConnectionLost(), IgnoreRequest(), OSError("empty"), ValueError()):
        assert hook(request, exception) is None
    assert signals.sent == [
        (PAGE_FAILED, {"request": request, "failure": timeout.__name__}),
        (PAGE_FAILED, {"request": request, "failure": "ConnectionLost"}),
    ]


def test_the_errors_are_the_projects_retry_exceptions_without_the_bare_oserror() -> None:
    listed = Settings().getlist("RETRY_EXCEPTIONS")
    errors = network_errors(Settings())
    assert OSError in [load_object(e) if isinstance(e, str) else e for e in listed]
    assert OSError not in errors and len(errors) == len(listed) - 1
    own = network_errors(Settings({"RETRY_EXCEPTIONS": ["twisted.internet.error.ConnectionLost"]}))
    assert own == (ConnectionLost,)


def test_network_errors_are_one_distress_in_flight_as_503s_are() -> None:
    books = Backoffs(cap=300.0, max_entries=10)
    began = books.distress("http://a.test", 0, None, 100.0, "TimeoutError")
    assert began is not None and began.new and began.failure == "TimeoutError"
    assert began.delay == 1.0 and not began.asked and began.status == 0
    # Seven more of the requests in flight failing meanwhile: still one distress.
    for _ in range(7):
        assert books.distress("http://a.test", 0, None, 100.1, "TimeoutError") is None
    again = books.distress("http://a.test", 0, None, 101.5, "TimeoutError")
    assert again is not None and again.delay == 2.0  # the next one in a row doubles


def test_our_own_fetches_are_not_pages() -> None:
    """The coordinator skips robots.txt's and tdmrep.json's own requests by these keys."""
    assert tdmrep_middleware._OWN == TDMREP_FETCH
    assert FETCH_META == "gbot_robots_fetch"


def _built(settings: dict[str, Any]) -> Any:
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(settings_dict={**BASE_SETTINGS, **settings})
    return NetworkErrorsMiddleware.from_crawler(crawler)


@pytest.mark.parametrize(
    "settings",
    [
        {"GBOT_ROBOTS_BACKOFF": False},
        {"ROBOTSTXT_OBEY": False},
        {"ADDONS": {}, "DOWNLOADER_MIDDLEWARES": {NETWORK_ERRORS: 580}},  # no robots.txt one
    ],
)
def test_not_built_without_the_back_off_or_our_robots_txt_middleware(
    settings: dict[str, Any],
) -> None:
    with pytest.raises(NotConfigured):
        _built(settings)


def test_built_with_the_add_on() -> None:
    assert isinstance(_built({}), NetworkErrorsMiddleware)


def test_the_add_on_places_it_before_the_retry_unless_the_project_did() -> None:
    settings = Settings({"DOWNLOADER_MIDDLEWARES": {}})
    Addon().update_settings(settings)
    placed = settings.getdict("DOWNLOADER_MIDDLEWARES")[NETWORK_ERRORS]
    retry = settings.getdict("DOWNLOADER_MIDDLEWARES_BASE")[
        "scrapy.downloadermiddlewares.retry.RetryMiddleware"
    ]
    proxy = settings.getdict("DOWNLOADER_MIDDLEWARES_BASE")[
        "scrapy.downloadermiddlewares.httpproxy.HttpProxyMiddleware"
    ]
    assert placed == NETWORK_ERRORS_PRIORITY and retry < placed < proxy
    own = Settings({"DOWNLOADER_MIDDLEWARES": {NETWORK_ERRORS: None}})
    Addon().update_settings(own)
    assert own.getdict("DOWNLOADER_MIDDLEWARES")[NETWORK_ERRORS] is None


def test_a_hand_written_chain_without_it_is_told_once(caplog: pytest.LogCaptureFixture) -> None:
    from scrapy.utils.test import get_crawler

    from scrapy_gbot_robots.crawl import wiring

    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    ours = "scrapy_gbot_robots.GoogleRobotsTxtMiddleware"
    hand = {**BASE_SETTINGS, "ADDONS": {}, "DOWNLOADER_MIDDLEWARES": {ours: 100}}
    for settings, told in ((hand, 1), ({**hand, "GBOT_ROBOTS_BACKOFF": False}, 0)):
        caplog.clear()
        wiring.build(get_crawler(settings_dict=settings))
        lines = [r for r in caplog.records if "NetworkErrorsMiddleware is not enabled" in r.message]
        assert len(lines) == told


# -- real crawls ----------------------------------------------------------------------------------
class Hanging:
    """a.test's pages hang (never answer) for ``HANG_FOR`` seconds after its first page
    request, then answer 200."""

    def __init__(self) -> None:
        self.first: float | None = None

    def __call__(self, request: WebRequest) -> Route:
        now = time.monotonic()
        if self.first is None:
            self.first = now
        return Route(hang=True) if now < self.first + HANG_FOR else Route()


class Resetting:
    """a.test's first ``first`` page requests get their connection reset."""

    def __init__(self, first: int) -> None:
        self.first, self.seen = first, 0

    def __call__(self, request: WebRequest) -> Route:
        self.seen += 1
        return Route(reset=True) if self.seen <= self.first else Route()


def _sites(server: Server, pages: Any) -> None:
    for host in ("a.test", "b.test"):
        server.route("/robots.txt", host=host, body=b"User-agent: *\nAllow: /\n")
    server.handle("*", pages, host="a.test")


async def _crawl(server: Server, settings: dict[str, Any]) -> tuple[Any, list[float]]:
    """Both sites' pages; returns the crawler and when each of a.test's failures was told
    to the back-off (the coordinator hears the signal first: it was connected first)."""
    HANDED.clear()
    urls = [server.url(p, "a.test") for p in PAGES] + [server.url(p, "b.test") for p in PAGES]
    merged = {
        **BASE_SETTINGS,
        "DOWNLOAD_HANDLERS": {"http": RecordingHandler},  # notes when each request was sent
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 5,
        "DOWNLOAD_TIMEOUT": TIMEOUT,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
        **settings,
    }
    crawler = CrawlerRunner(merged).create_crawler(make_spider(urls=urls))
    failed: list[float] = []

    def on_failed(request: Any, failure: str) -> None:
        if "//a.test:" in request.url:
            failed.append(time.monotonic())

    crawler.signals.connect(on_failed, PAGE_FAILED, weak=False)
    await crawler.crawl()
    return crawler, failed


def _arrivals(server: Server, host: str) -> list[float]:
    return [t for t, h, p in server.log if h == host and p != "/robots.txt"]


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_pages_that_time_out_put_their_origin_in_back_off(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    _sites(server, Hanging())
    crawler, failed = await _crawl(server, {})
    stats = crawler.stats.get_stats()
    # Every page is crawled in the end, once the site answers again.
    crawled = set(crawler.spider.crawled)
    assert {server.url(p, "a.test") for p in PAGES} <= crawled, crawler.spider.failed
    assert {server.url(p, "b.test") for p in PAGES} <= crawled
    # The back-offs: 1 s after the first timeout, 2 s after the next one in a row (the 8
    # requests in flight that time out together are one distress).
    began = [m for r in caplog.records if "Backing off http://a.test" in (m := r.getMessage())]
    delays = [float(line.split(" for ")[1].split(" s:")[0]) for line in began]
    assert len(delays) >= 2 and delays == [2.0**i for i in range(len(delays))], began
    assert all("a page's download failed: " in line for line in began), began
    assert stats["robotstxt/backoff/entered"] == len(delays)
    assert stats["robotstxt/backoff/network_error"] == len(delays)
    assert stats["robotstxt/backoff/parked"] >= len(PAGES)  # the retries waited outside
    # No page request sent after the first timeout reached a.test within the second it
    # asked for (the ones sent since were parked; two sent from the slot the timeouts freed
    # just before the back-off began may arrive), and the site's last requests came only
    # once both back-offs were over.
    first = failed[0]
    assert breaches(server, [first], 1.0) == []
    assert _arrivals(server, "a.test")[-1] >= first + 1.0 + 2.0 - 0.1
    # b.test, in the same crawl, was not slowed: all of it before a.test's first back-off ended.
    b_times = _arrivals(server, "b.test")
    assert len(b_times) == len(PAGES) and b_times[-1] < first + 1.0


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_without_the_back_off_scrapys_retries_go_at_once(server: Server) -> None:
    """``GBOT_ROBOTS_BACKOFF = False``: Scrapy's old behaviour, each timeout retried at once
    (the check above would fail here)."""
    _sites(server, Hanging())
    crawler, failed = await _crawl(server, {"GBOT_ROBOTS_BACKOFF": False})
    assert failed == []  # the middleware is not built
    stats = crawler.stats.get_stats()
    assert not [k for k in stats if k.startswith("robotstxt/backoff/")]
    assert stats["retry/count"] >= len(PAGES)
    first_timeout = _arrivals(server, "a.test")[0] + TIMEOUT
    assert len(breaches(server, [first_timeout], 1.0)) >= 5


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_a_reset_connection_counts_too(server: Server) -> None:
    _sites(server, Resetting(first=3))
    crawler, failed = await _crawl(server, {"CONCURRENT_REQUESTS_PER_DOMAIN": 1})
    assert {server.url(p, "a.test") for p in PAGES} <= set(crawler.spider.crawled)
    stats = crawler.stats.get_stats()
    assert failed and stats["robotstxt/backoff/network_error"] >= 1
    # Sent (handed to the download handler; Twisted's client itself re-sends a request
    # reset on a reused connection, so arrivals are not one per hand-over here): nothing
    # for a.test during the second after the first reset.
    sent = [t for t, url in HANDED if "//a.test:" in url and not url.endswith("/robots.txt")]
    assert [t for t in sent if failed[0] < t < failed[0] + 1.0] == []
    assert any(t >= failed[0] + 1.0 for t in sent)


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_a_timeout_during_the_close_starts_no_back_off(server: Server) -> None:
    """The close begins (CLOSESPIDER_TIMEOUT) while a.test's pages hang; they time out
    while the engine waits for them: the close cut them short, the server said nothing."""
    _sites(server, lambda request: Route(hang=True))
    crawler, failed = await _crawl(
        server, {"CLOSESPIDER_TIMEOUT": 0.3, "DOWNLOAD_TIMEOUT": 1.5, "RETRY_TIMES": 0}
    )
    assert failed  # the failures were seen...
    assert crawler.stats.get_value("finish_reason") == "closespider_timeout"
    assert crawler.stats.get_value("robotstxt/backoff/entered") is None  # ...and not counted


@pytest.mark.crawl
@pytest.mark.parametrize("route", [{"status": 503}, {"hang": True}], ids=["503", "timeout"])
@pytest_twisted.ensureDeferred
async def test_tdmrep_json_failing_is_not_a_page_in_distress(
    server: Server, route: dict[str, Any]
) -> None:
    """Our own tdmrep.json download has its own rule (a failure reserves nothing): its 503
    or its timeout puts no origin in back-off."""
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n")
    server.route("/.well-known/tdmrep.json", **route)
    urls = [server.url(p) for p in PAGES]
    settings = {
        "GBOT_ROBOTS_USAGE": ["train-ai"],
        "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": TIMEOUT,
        "RETRY_ENABLED": True,
    }
    crawler = await crawl(make_spider(urls=urls), settings)
    assert server.count("/.well-known/tdmrep.json") >= 1
    assert sorted(crawler.spider.crawled) == sorted(urls)
    assert crawler.stats.get_value("robotstxt/backoff/entered") is None


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_dont_obey_robotstxt_requests_count_for_their_origin_but_never_wait(
    server: Server,
) -> None:
    """As for a 5xx: the origin is in distress whoever asked, but a request that does not
    obey robots.txt is not parked (nor are its retries)."""
    import scrapy

    _sites(server, Hanging())

    def make_request(self: Any, url: str, **kwargs: Any) -> Any:
        meta = {"dont_obey_robotstxt": True}
        return scrapy.Request(url, callback=self.parse, errback=self.on_error, meta=meta)

    urls = [server.url(p, "a.test") for p in PAGES]
    settings = {"RETRY_ENABLED": True, "RETRY_TIMES": 8, "DOWNLOAD_TIMEOUT": TIMEOUT}
    crawler = await crawl(make_spider(urls=urls, make_request=make_request), settings)
    assert sorted(crawler.spider.crawled) == sorted(urls)
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/backoff/network_error"] >= 1
    assert "robotstxt/backoff/parked" not in stats and "robotstxt/parked" not in stats


@pytest.mark.crawl
@pytest.mark.skipif(missing() is not None, reason=str(missing()))
@pytest_twisted.ensureDeferred
async def test_with_the_redis_store_the_back_off_is_shared_with_the_fleet(
    server: Server, tmp_path: Any
) -> None:
    """The same gate call as a 5xx's: a back-off begun by a timeout is shared (one SET and
    one PUBLISH), so the fleet's other workers hold it too (tests/crawl/test_fleet_backoff.py
    shows the holding with two workers)."""
    _sites(server, Hanging())
    with running_redis(tmp_path / "redis") as rs:
        settings = {"GBOT_ROBOTS_STORE": rs.url, "CONCURRENT_REQUESTS_PER_DOMAIN": 8}
        crawler, failed = await _crawl(server, settings)
    stats = crawler.stats.get_stats()
    assert failed and {server.url(p, "a.test") for p in PAGES} <= set(crawler.spider.crawled)
    assert stats["robotstxt/backoff/shared"] == stats["robotstxt/backoff/network_error"] >= 1
    assert "robotstxt/backoff/fleet_errors" not in stats
