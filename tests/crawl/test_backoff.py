"""Googlebot's back-off in a real crawl: a site answering ``503`` + ``Retry-After`` is left
alone for the time it asked, Scrapy's own retries included, and nothing else slows down.

What "no request for 3 s after an answer" means is read from the server's own log of
arrivals, and it is exact: the crawler's HTTP download handler is wrapped to note when each
request was handed to it (sent, from the crawler's side: nothing can call it back then), and
a test listener notes when each answer of distress reached the crawler (``response_downloaded``),
on the same monotonic clock in the same process. A request handed to the handler before the
crawler had the answer was sent before it and may reach the server after it (its connection
was opening); every other arrival within the wait after an answer breaks the rule.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections import defaultdict
from typing import Any

import pytest
import pytest_twisted
from _httpserver import BASE_SETTINGS, Route, Server, make_spider, stop_as_ctrl_c
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import CrawlerRunner
from twisted.web.server import Request as WebRequest

pytestmark = pytest.mark.crawl

WAIT = 3.0
PAGES = [f"/p{i}" for i in range(10)]

#: (when, url) of each request handed to the HTTP download handler, for the running test.
HANDED: list[tuple[float, str]] = []


class RecordingHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP/1.1 handler, noting when each request is handed to it (sent)."""

    if inspect.iscoroutinefunction(HTTP11DownloadHandler.download_request):  # Scrapy 2.14+

        async def download_request(self, request: Any) -> Any:
            HANDED.append((time.monotonic(), request.url))
            return await super().download_request(request)

    else:

        def download_request(self, request: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            HANDED.append((time.monotonic(), request.url))
            return super().download_request(request, *args, **kwargs)


class Distressed:
    """A site whose first ``first`` page requests answer 503 (with ``Retry-After``)."""

    def __init__(self, first: int, retry_after: str = "3") -> None:
        self.first = first
        self.retry_after = retry_after
        self.seen = 0

    def __call__(self, request: WebRequest) -> Route:
        self.seen += 1
        if self.seen <= self.first:
            headers: dict[str, str | list[str]] = (
                {"Retry-After": self.retry_after} if self.retry_after else {}
            )
            return Route(status=503, body=b"busy", headers=headers)
        return Route()


def _distressed_site(server: Server, first: int, retry_after: str = "3") -> None:
    server.route("/robots.txt", host="a.test", body=b"User-agent: *\nAllow: /\n")
    server.handle("*", Distressed(first, retry_after), host="a.test")
    server.route("/robots.txt", host="b.test", body=b"User-agent: *\nAllow: /\n")


def _received(crawler: Any) -> list[float]:
    """When the crawler received each 503 of a.test (its own monotonic clock)."""
    times: list[float] = []

    def on_downloaded(response: Any, request: Any, spider: Any) -> None:
        if response.status == 503 and "//a.test:" in response.url:
            times.append(time.monotonic())

    crawler.signals.connect(on_downloaded, signals.response_downloaded, weak=False)
    return times


def breaches(server: Server, received: list[float], wait: float | list[float]) -> list[str]:
    """a.test's page requests sent after the crawler received a 503 that reached the server
    within the wait after it: the k-th arrival of a URL is its k-th hand-over (one URL's
    requests go one after the other: a retry exists only once its try was answered)."""
    waits = wait if isinstance(wait, list) else [wait] * len(received)
    handed: dict[str, list[float]] = defaultdict(list)
    for when, url in HANDED:
        if "//a.test:" in url and not url.endswith("/robots.txt"):
            handed[url.split(":", 2)[2].split("/", 1)[1]].append(when)
    seen: dict[str, int] = defaultdict(int)
    found = []
    for arrived, host, path in server.log:
        if host != "a.test" or path == "/robots.txt":
            continue
        sent = handed[path.lstrip("/")][seen[path]]
        seen[path] += 1
        if any(r < sent and arrived < r + w for r, w in zip(received, waits, strict=True)):
            found.append(f"{path} sent {sent:.3f}, arrived {arrived:.3f}")
    return found


async def _crawl(settings: dict[str, Any], server: Server) -> tuple[Any, list[float]]:
    HANDED.clear()
    urls = [server.url(p, "a.test") for p in PAGES] + [server.url(p, "b.test") for p in PAGES]
    merged = {
        **BASE_SETTINGS,
        "RETRY_ENABLED": True,  # Scrapy's defaults: 2 retries of 429, 500, 502, 503, 504...
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,  # Scrapy's default: the rest wait in the slot
        "DOWNLOAD_HANDLERS": {"http": RecordingHandler},
        **settings,
    }
    crawler = CrawlerRunner(merged).create_crawler(make_spider(urls=urls))
    received = _received(crawler)
    await crawler.crawl()
    return crawler, received


@pytest_twisted.ensureDeferred
async def test_a_site_asking_to_wait_gets_no_request_meanwhile_and_every_page_in_the_end(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    # 15 distress answers: the 10 first tries, then half of the retries: two back-offs.
    _distressed_site(server, first=15)
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    crawler, received = await _crawl({}, server)
    spider = crawler.spider
    a_urls = {server.url(p, "a.test") for p in PAGES}
    assert a_urls <= set(spider.crawled), spider.failed
    assert len(received) == 15
    assert breaches(server, received, WAIT) == []
    # Two back-offs at least 3 s each: the crawl of a.test took 6 s or more...
    a_times = [t for t, h, p in server.log if h == "a.test" and p != "/robots.txt"]
    assert a_times[-1] - a_times[0] >= 2 * WAIT - 0.1
    # ...while b.test, in the same crawl, was not slowed: all its pages came before a.test's
    # first back-off was over.
    b_times = [t for t, h, p in server.log if h == "b.test" and p != "/robots.txt"]
    assert len(b_times) == len(PAGES) and b_times[-1] < received[0] + WAIT
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/backoff/entered"] >= 2
    assert stats["robotstxt/backoff/retry_after"] >= 2
    assert stats["robotstxt/backoff/parked"] >= 10  # every retry waited outside the downloader
    assert stats["robotstxt/backoff/seconds_max"] == WAIT
    lines = [r.getMessage() for r in caplog.records if "http://a.test" in r.getMessage()]
    entered = stats["robotstxt/backoff/entered"]
    assert sum("Backing off http://a.test" in line for line in lines) == entered, lines
    assert sum("Back-off of http://a.test" in line for line in lines) == entered, lines


@pytest_twisted.ensureDeferred
async def test_without_the_backoff_scrapys_retries_go_at_once(server: Server) -> None:
    """The same site and crawl with ``GBOT_ROBOTS_BACKOFF = False``: the check above finds
    the breaches (it can fail), and Scrapy's retries are spent at once."""
    _distressed_site(server, first=15)
    crawler, received = await _crawl({"GBOT_ROBOTS_BACKOFF": False}, server)
    assert len(breaches(server, received, WAIT)) >= 5
    assert "robotstxt/backoff/entered" not in crawler.stats.get_stats()


@pytest_twisted.ensureDeferred
async def test_without_retry_after_the_wait_doubles(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """No ``Retry-After``: 1 s, then 2 s, then 4 s."""
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    _distressed_site(server, first=3, retry_after="")
    settings = {"CONCURRENT_REQUESTS_PER_DOMAIN": 1, "RETRY_TIMES": 5}
    crawler, received = await _crawl(settings, server)
    assert {server.url(p, "a.test") for p in PAGES} <= set(crawler.spider.crawled)
    assert len(received) == 3
    # Each back-off doubled the last: 1 s, 2 s... (a 503 to a request sent before the
    # back-off began does not count as one more in a row).
    assert breaches(server, received[:1], 1.0) == []  # the first wait was kept
    began = [r.getMessage() for r in caplog.records if "Backing off" in r.getMessage()]
    delays = [float(line.split(" for ")[1].split(" s:")[0]) for line in began]
    assert len(delays) >= 2 and delays == [2.0**i for i in range(len(delays))], began
    assert crawler.stats.get_value("robotstxt/backoff/seconds_max") == delays[-1]


@pytest_twisted.ensureDeferred
async def test_a_retry_after_beyond_the_cap_waits_the_cap(server: Server) -> None:
    _distressed_site(server, first=1, retry_after="3600")
    crawler, received = await _crawl({"GBOT_ROBOTS_BACKOFF_MAX": 1}, server)
    assert {server.url(p, "a.test") for p in PAGES} <= set(crawler.spider.crawled)
    assert breaches(server, received, 1.0) == []
    assert crawler.stats.get_value("robotstxt/backoff/seconds_max") == 1.0


# -- the close ---------------------------------------------------------------------------------
async def _close_while_backing_off(
    server: Server, settings: dict[str, Any], stop: bool
) -> tuple[Any, list[float]]:
    """a.test answers 503 with ``Retry-After: 60`` to its first tries, then never again: its
    requests wait for the back-off when the crawl closes (CLOSESPIDER_TIMEOUT, or Ctrl-C
    once the first answer is in)."""
    _distressed_site(server, first=8, retry_after="60")
    HANDED.clear()
    urls = [server.url(p, "a.test") for p in PAGES]
    merged = {
        **BASE_SETTINGS,
        "RETRY_ENABLED": True,
        "DOWNLOAD_HANDLERS": {"http": RecordingHandler},
        **settings,
    }
    crawler = CrawlerRunner(merged).create_crawler(make_spider(urls=urls))
    received = _received(crawler)
    if stop:

        def on_downloaded(response: Any, request: Any, spider: Any) -> None:
            if response.status == 503 and len(received) == 1:
                from twisted.internet import reactor

                reactor_any: Any = reactor
                reactor_any.callLater(0.5, stop_as_ctrl_c, crawler)

        crawler.signals.connect(on_downloaded, signals.response_downloaded, weak=False)
    await crawler.crawl()
    return crawler, received


@pytest.mark.parametrize("how", ["closespider", "ctrl-c"])
@pytest_twisted.ensureDeferred
async def test_requests_waiting_for_a_back_off_are_dropped_at_the_close(
    server: Server, how: str
) -> None:
    settings = {"CLOSESPIDER_TIMEOUT": 2} if how == "closespider" else {}
    crawler, received = await _close_while_backing_off(server, settings, how == "ctrl-c")
    spider = crawler.spider
    assert received and spider.crawled == []
    reason = "closespider_timeout" if how == "closespider" else "shutdown"
    # Every request of a.test left through the close: dropped and told, none sent again.
    assert {url for url, _ in spider.dropped} == {server.url(p, "a.test") for p in PAGES}
    assert {why for _, why in spider.dropped} == {f"spider closed ({reason})"}
    assert breaches(server, received, 60.0) == []
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/dropped"] == len(PAGES) and stats["robotstxt/backoff/parked"] >= 1


@pytest_twisted.ensureDeferred
async def test_a_jobdir_pause_keeps_them_and_the_next_run_sends_them(
    server: Server, tmp_path: Any
) -> None:
    """The requests are kept in the JOBDIR's lot; the back-off's timers are not (memory
    only): the resumed run sends them at once, and the site, healthy now, answers."""
    jobdir = str(tmp_path / "job")
    crawler, _ = await _close_while_backing_off(server, {"JOBDIR": jobdir}, True)
    kept = crawler.stats.get_value("robotstxt/persisted")
    assert crawler.spider.crawled == [] and kept == len(PAGES)
    # Healthy from now on, however many tries the pause left unsent (Scrapy 2.11 sends
    # fewer before the back-off than later versions).
    server.handle("*", Distressed(0, "60"), host="a.test")
    merged = {**BASE_SETTINGS, "RETRY_ENABLED": True, "JOBDIR": jobdir}
    resumed: Any = CrawlerRunner(merged).create_crawler(make_spider(urls=[]))
    await resumed.crawl()
    assert sorted(resumed.spider.crawled) == sorted(server.url(p, "a.test") for p in PAGES)
    assert resumed.stats.get_value("robotstxt/resumed") == len(PAGES)
