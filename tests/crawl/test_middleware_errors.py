"""Server errors on robots.txt: stop, retry, deadlines, and the 12 h / 30 d edges in real crawls.

Durations use the injectable clock (``GBOT_ROBOTS_CLOCK``): the crawl runs in real time, the
policy's clock jumps by hours or days when a step says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
import pytest_twisted
from _httpserver import (
    FakeClock,
    Route,
    Server,
    crawl,
    make_spider,
    make_timeline_spider,
    middleware_of,
    stop_as_ctrl_c,
)

pytestmark = pytest.mark.crawl

HOUR = 3600.0
DAY = 86400.0


def _setup_failure(server: Server, how: str) -> tuple[str, dict[str, Any]]:
    """Make robots.txt fail in one way; return the host to crawl and extra settings."""
    host = "site.test"
    settings: dict[str, Any] = {}
    if how.isdigit():
        server.route("/robots.txt", status=int(how), body=b"User-agent: *\nAllow: /\n")
    elif how == "reset":
        server.route("/robots.txt", reset=True)
    elif how == "timeout":
        server.route("/robots.txt", hang=True)
        settings["GBOT_ROBOTS_DOWNLOAD_TIMEOUT"] = 0.3
    elif how == "truncated":
        server.route("/robots.txt", truncate=True, body=b"User-agent: *\nAllow: /\n")
    elif how == "dns":
        host = "no-such-host.invalid"
    return host, settings


@pytest.mark.parametrize("how", ["429", "500", "503", "reset", "timeout", "truncated", "dns"])
@pytest_twisted.ensureDeferred
async def test_server_error_stops_origin_then_drops_at_deadline(
    server: Server, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    host, settings = _setup_failure(server, how)
    urls = [server.url(f"/p{i}", host) for i in range(3)]
    caplog.set_level(logging.WARNING, logger="scrapy_gbot_robots")
    crawler = await crawl(make_spider(urls=urls), {**settings, "GBOT_ROBOTS_PARK_TIMEOUT": 0.6})
    assert crawler.spider.crawled == []
    assert sorted(crawler.spider.dropped) == sorted((url, "deadline") for url in urls)
    for i in range(3):
        assert server.count(f"/p{i}") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/dropped"] == 3
    assert stats["robotstxt/server_error"] >= 1
    assert stats["robotstxt/origin_state/server_error"] >= 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("Dropped" in w for w in warnings) == 3
    assert all(any(url in w for w in warnings) for url in urls)
    if how == "dns":
        assert any("DNSLookupError" in key or "CannotResolveHost" in key for key in stats)
    state = middleware_of(crawler).origin_state(urls[0])
    assert state is not None and state.kind.value == "server_error"


@pytest_twisted.ensureDeferred
async def test_retry_after_then_success_releases_parked_requests(server: Server) -> None:
    answers = iter(
        [
            Route(status=503, headers={"Retry-After": "1"}),
            Route(body=b"User-agent: *\nDisallow: /x\n"),
        ]
    )
    server.handle("/robots.txt", lambda request: next(answers))
    urls = [server.url("/a"), server.url("/b"), server.url("/x")]
    crawler = await crawl(make_spider(urls=urls))
    assert sorted(crawler.spider.crawled) == urls[:2]
    assert server.count("/robots.txt") == 2
    assert server.count("/x") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/retry"] == 1
    assert stats["robotstxt/released"] == 3
    assert stats.get("robotstxt/dropped") is None


@pytest_twisted.ensureDeferred
async def test_12_hour_edge_without_a_good_copy(server: Server) -> None:
    server.route("/robots.txt", status=503)
    clock = FakeClock()
    seen: dict[str, Any] = {}

    def at_12h_minus_1s(spider: Any) -> None:
        clock.advance(12 * HOUR - 1)
        seen["before"] = list(spider.crawled)

    def check_still_parked(spider: Any) -> None:
        seen["still"] = list(spider.crawled)
        stats = spider.crawler.stats
        seen["parked"] = stats.get_value("robotstxt/parked", 0) - stats.get_value(
            "robotstxt/released", 0
        )
        clock.advance(1)

    urls = [server.url("/a"), server.url("/b")]
    spider = make_timeline_spider(
        [(0.3, at_12h_minus_1s), (0.3, check_still_parked), (0.5, lambda s: None)], urls=urls
    )
    crawler = await crawl(spider, {"GBOT_ROBOTS_CLOCK": clock, "GBOT_ROBOTS_PARK_TIMEOUT": 2 * DAY})
    assert crawler.spider.step_errors == []
    assert seen["before"] == [] and seen["still"] == []
    assert seen["parked"] == 2
    assert sorted(crawler.spider.crawled) == urls  # no good copy: no restrictions
    assert server.count("/robots.txt") >= 2  # retried meanwhile


@pytest_twisted.ensureDeferred
async def test_last_good_copy_after_12_hours_then_30_days(server: Server) -> None:
    good = Route(body=b"User-agent: *\nDisallow: /x\n")
    current = {"route": good}
    server.handle("/robots.txt", lambda request: current["route"])
    clock = FakeClock()
    seen: dict[str, Any] = {}

    def expire_and_fail(spider: Any) -> None:
        clock.advance(25 * HOUR)  # past the 24 h cache lifetime
        current["route"] = Route(status=500)
        spider.inject(server.url("/b"))
        spider.inject(server.url("/x2"))

    def after_12h(spider: Any) -> None:
        seen["stopped"] = list(spider.crawled)
        clock.advance(12 * HOUR)

    def after_30d(spider: Any) -> None:
        seen["grace"] = list(spider.crawled)
        seen["grace_forbidden"] = [u for u, _ in spider.failed]
        clock.advance(30 * DAY)
        spider.inject(server.url("/x3"))

    steps = [(0.3, expire_and_fail), (0.4, after_12h), (0.4, after_30d), (0.4, lambda s: None)]
    urls = [server.url("/a"), server.url("/x")]
    crawler = await crawl(
        make_timeline_spider(steps, urls=urls),
        {"GBOT_ROBOTS_CLOCK": clock, "GBOT_ROBOTS_PARK_TIMEOUT": 60 * DAY},
    )
    spider = crawler.spider
    assert spider.step_errors == []
    assert seen["stopped"] == [server.url("/a")]  # /b parked for the first 12 hours
    assert seen["grace"] == [server.url("/a"), server.url("/b")]  # last good copy obeyed
    assert sorted(seen["grace_forbidden"]) == [server.url("/x"), server.url("/x2")]
    # After 30 days the site still answers pages: no restrictions.
    assert spider.crawled[-1] == server.url("/x3")
    assert server.count("/x") == 0 and server.count("/x2") == 0


@pytest_twisted.ensureDeferred
async def test_cache_expiry_refetches_once_and_new_rules_apply(server: Server) -> None:
    current = {
        "route": Route(
            body=b"User-agent: *\nDisallow: /old\n", headers={"Cache-Control": "max-age=3600"}
        )
    }
    server.handle("/robots.txt", lambda request: current["route"])
    clock = FakeClock()

    def before_expiry(spider: Any) -> None:
        clock.advance(3599)
        current["route"] = Route(body=b"User-agent: *\nDisallow: /new\n")
        spider.inject(server.url("/old?still-old"))

    def after_expiry(spider: Any) -> None:
        clock.advance(2)
        for i in range(20):
            spider.inject(server.url(f"/old?{i}"))
        spider.inject(server.url("/new"))

    urls = [server.url("/old"), server.url("/new?first")]
    crawler = await crawl(
        make_timeline_spider(
            [(0.3, before_expiry), (0.3, after_expiry), (0.4, lambda s: None)], urls=urls
        ),
        {"GBOT_ROBOTS_CLOCK": clock},
    )
    spider = crawler.spider
    assert server.count("/robots.txt") == 2  # one per expiry, however many requests
    crawled = set(spider.crawled)
    assert server.url("/new?first") in crawled and server.url("/old") not in crawled
    assert server.url("/old?still-old") not in crawled
    assert all(server.url(f"/old?{i}") in crawled for i in range(20))
    assert server.url("/new") not in crawled
    assert crawler.stats.get_value("robotstxt/store/expired") == 1


@pytest_twisted.ensureDeferred
async def test_lru_bound_forgets_and_refetches(server: Server) -> None:
    for host in ("a.test", "b.test", "c.test"):
        server.route("/robots.txt", host=host, body=b"User-agent: *\nDisallow: /x\n")

    def again(spider: Any) -> None:
        spider.inject(server.url("/again", "a.test"))
        spider.inject(server.url("/x", "a.test"))

    urls = [server.url("/p", h) for h in ("a.test", "b.test", "c.test")]
    crawler = await crawl(
        make_timeline_spider([(0.5, again), (0.3, lambda s: None)], urls=urls),
        {"GBOT_ROBOTS_STORE_SIZE": 2, "GBOT_ROBOTS_STORE_COMPACT_BYTES": 0},  # the LRU alone
    )
    assert server.count("/robots.txt", "a.test") == 2
    assert server.count("/x", "a.test") == 0
    assert server.url("/again", "a.test") in crawler.spider.crawled
    assert crawler.stats.get_value("robotstxt/store/evicted") >= 1
    remembered = [middleware_of(crawler).origin_state(url) for url in urls]
    assert sum(state is not None for state in remembered) == 2  # GBOT_ROBOTS_STORE_SIZE


@pytest_twisted.ensureDeferred
async def test_spider_closing_drops_parked_requests_with_signal(server: Server) -> None:
    server.route("/robots.txt", hang=True)
    def close(spider: Any) -> None:
        stop_as_ctrl_c(spider.crawler)

    crawler = await crawl(
        make_timeline_spider([(0.3, close)], urls=[server.url("/a"), server.url("/b")]),
        {"GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 1},
    )
    assert crawler.spider.crawled == []
    dropped = [reason for _, reason in crawler.spider.dropped]
    assert len(dropped) == 2 and all(r.startswith("spider closed") for r in dropped)
    assert crawler.stats.get_value("robotstxt/dropped") == 2
    assert crawler.spider.failed == []  # the crawl stopped: no errback, as Scrapy's queues


@pytest_twisted.ensureDeferred
async def test_queued_requests_of_a_newly_stopped_origin_wait_outside_the_downloader(
    server: Server,
) -> None:
    """Requests already in the scheduler when a refresh fails go back to the lot."""
    current = {"route": Route(body=b"User-agent: *\nDisallow: /x\n")}
    server.handle("/robots.txt", lambda request: current["route"])
    server.route("*", delay=0.05)
    clock = FakeClock()

    def expire_and_fail(spider: Any) -> None:
        clock.advance(25 * HOUR)
        current["route"] = Route(status=503)
        for i in range(10):
            spider.inject(server.url(f"/q{i}"))

    def end_stop(spider: Any) -> None:
        spider.seen_stopped = list(spider.crawled)
        clock.advance(12 * HOUR)

    urls = [server.url(f"/p{i}") for i in range(10)]

    def queue_up(spider: Any) -> None:  # all in the scheduler at once, origin decided
        for url in urls:
            spider.inject(url)

    steps = [(0.2, queue_up), (0.15, expire_and_fail), (0.8, end_stop), (0.8, lambda s: None)]
    crawler = await crawl(
        make_timeline_spider(steps, urls=[server.url("/start")]),
        {
            "GBOT_ROBOTS_CLOCK": clock,
            "GBOT_ROBOTS_PARK_TIMEOUT": 2 * DAY,
            "CONCURRENT_REQUESTS": 1,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        },
    )
    spider = crawler.spider
    assert spider.step_errors == []
    everything = [server.url("/start"), *urls] + [server.url(f"/q{i}") for i in range(10)]
    assert sorted(spider.crawled) == sorted(everything)  # nothing lost
    for i in range(10):  # and nothing fetched twice
        assert server.count(f"/p{i}") == 1 and server.count(f"/q{i}") == 1
    # While stopped, nothing new was crawled; queued requests were sent back to be parked.
    assert not any("/q" in url for url in spider.seen_stopped)
    assert crawler.stats.get_value("robotstxt/bounced", 0) >= 1


@pytest_twisted.ensureDeferred
async def test_immediate_retries_are_ours_and_log_no_error(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    # 503, 429, then the file: within a budget of 2 immediate retries the first fetch
    # decides, and Scrapy's RetryMiddleware (bypassed) logs no "Gave up retrying".  (Not a
    # reset: Twisted's connection pool silently re-sends a GET after one.)
    answers = iter(
        [Route(status=503), Route(status=429), Route(body=b"User-agent: *\nDisallow: /x\n")]
    )
    server.handle("/robots.txt", lambda request: next(answers))
    urls = [server.url("/a"), server.url("/x")]
    crawler = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_RETRY_TIMES": 2})
    assert crawler.spider.crawled == [urls[0]]
    assert server.count("/robots.txt") == 3
    assert server.count("/x") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/fetch_retry"] == 2
    assert stats.get("robotstxt/server_error") is None  # decided by the third answer
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest_twisted.ensureDeferred
async def test_retry_budget_is_bounded_then_server_error(server: Server) -> None:
    server.route("/robots.txt", status=500)
    crawler = await crawl(
        make_spider(urls=[server.url("/a")]),
        {"GBOT_ROBOTS_RETRY_TIMES": 1, "GBOT_ROBOTS_PARK_TIMEOUT": 0.5},
    )
    assert crawler.spider.crawled == []
    assert server.count("/a") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/fetch_retry"] == 1
    assert stats["robotstxt/server_error"] == 1
    assert server.count("/robots.txt") == 2  # one fetch: the request and one retry


@pytest_twisted.ensureDeferred
async def test_an_origin_in_an_error_streak_outlives_the_lru_and_keeps_its_good_copy(
    server: Server,
) -> None:
    """A failing origin evicted by the LRU would start a new streak with no copy: after
    12 h that is "no restrictions", and a disallowed page would be crawled."""
    current = {"route": Route(body=b"User-agent: *\nDisallow: /x\n")}
    server.handle("/robots.txt", lambda request: current["route"], host="a.test")
    clock = FakeClock()

    def a(path: str) -> str:
        return server.url(path, "a.test")

    def expire_and_fail(spider: Any) -> None:
        clock.advance(25 * HOUR)  # past the 24 h cache lifetime
        current["route"] = Route(status=500)
        spider.inject(a("/b"))  # parked: the origin is stopped for 12 h
        for host in ("b.test", "c.test", "d.test"):  # more decided origins than room
            spider.inject(server.url("/p", host))

    def in_the_grace_period(spider: Any) -> None:
        clock.advance(13 * HOUR)  # the last good copy is obeyed now
        spider.inject(a("/x"))

    def another_12_hours(spider: Any) -> None:
        clock.advance(13 * HOUR)  # a forgotten streak would end here with no copy
        spider.inject(a("/x?again"))

    steps: list[tuple[float, Callable[[Any], None]]] = [
        (0.3, expire_and_fail),
        (0.5, in_the_grace_period),
        (0.5, another_12_hours),
        (0.5, lambda s: None),
    ]
    crawler = await crawl(
        make_timeline_spider(steps, urls=[a("/a")]),
        {
            "GBOT_ROBOTS_CLOCK": clock,
            "GBOT_ROBOTS_PARK_TIMEOUT": 60 * DAY,
            "GBOT_ROBOTS_STORE_SIZE": 2,
        },
    )
    spider = crawler.spider
    assert spider.step_errors == []
    assert server.count("/x", "a.test") == 0 and server.count("/x?again", "a.test") == 0
    assert sorted(u for u, _ in spider.failed) == [a("/x"), a("/x?again")]  # forbidden
    assert a("/b") in spider.crawled  # released by the last good copy
    assert crawler.stats.get_value("robotstxt/store/evicted") >= 2  # decided ones went


@pytest.mark.parametrize(("retry_after", "fetches"), [(b"120", 1), (b"\xb2", 2)])
@pytest_twisted.ensureDeferred
async def test_retry_after_asks_for_a_wait_and_a_broken_one_is_ignored(
    server: Server, caplog: pytest.LogCaptureFixture, retry_after: bytes, fetches: int
) -> None:
    """A server that names a delay is not retried at once; "²" (latin-1 0xB2, which
    ``str.isdigit`` accepts) is no delay: ignored, never a traceback."""

    def answer(request: Any) -> Route:
        request.setHeader(b"Retry-After", retry_after)
        return Route(status=503)

    server.handle("/robots.txt", answer)
    caplog.set_level(logging.DEBUG)
    crawler = await crawl(
        make_spider(urls=[server.url("/a")]),
        {"GBOT_ROBOTS_RETRY_TIMES": 1, "GBOT_ROBOTS_PARK_TIMEOUT": 0.5},
    )
    assert server.count("/robots.txt") == fetches
    assert crawler.stats.get_value("robotstxt/server_error") == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    state = middleware_of(crawler).origin_state(server.url("/a"))
    delay = state.refresh_at - state.fetched_at
    assert delay == (120 if fetches == 1 else 60)  # Retry-After, or the first backoff
