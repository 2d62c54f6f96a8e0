"""Broad crawls on one machine: the robots.txt fetch budget, in a real crawl of 2,000 origins.

The 20,000-origin figure is a benchmark (``benchmarks/bench_broad.py``); this test guards the
behaviour at a size CI can afford: every origin's robots.txt answers after 0.5 s, so without
a budget thousands of downloads would be in flight at once.
"""

from __future__ import annotations

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl


@pytest_twisted.ensureDeferred
async def test_fetch_budget_bounds_robots_downloads_in_flight_and_loses_nothing(
    server: Server,
) -> None:
    origins = [f"o{i}.test" for i in range(2000)]
    for host in origins:
        server.route(
            "/robots.txt", host=host, delay=0.5, body=b"User-agent: *\nDisallow: /private/\n"
        )
    urls = []
    for host in origins:
        urls += [server.url("/a", host), server.url("/b", host), server.url("/private/x", host)]
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "CONCURRENT_REQUESTS": 32,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
            "LOG_LEVEL": "INFO",
            "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 20,
            "GBOT_ROBOTS_TICK": 0.2,
            "CLOSESPIDER_TIMEOUT": 240,
        },
    )
    stats = crawler.stats.get_stats()
    budget = 32  # GBOT_ROBOTS_CONCURRENT_FETCHES defaults to CONCURRENT_REQUESTS
    assert server.max_inflight["/robots.txt"] <= budget
    assert server.max_inflight["/robots.txt"] >= budget // 2  # the budget is used, too
    assert stats["robotstxt/fetch_in_flight_peak"] <= budget
    assert all(server.count("/robots.txt", host) == 1 for host in origins)
    assert len(crawler.spider.crawled) == 2 * len(origins)  # every allowed page
    assert server.count("/private/x") == 0  # no disallowed page
    assert stats["robotstxt/forbidden"] == len(origins)
    assert stats.get("robotstxt/dropped") is None
    assert stats["robotstxt/deferred"] == 3 * len(origins)
    assert stats["robotstxt/undeferred"] == 3 * len(origins)
    assert stats["finish_reason"] == "finished"


@pytest_twisted.ensureDeferred
async def test_decided_origins_keep_their_page_slots_while_the_budget_is_full(
    server: Server,
) -> None:
    """Robots.txt downloads must not take CONCURRENT_REQUESTS from pages of decided sites."""
    import time

    server.route("/robots.txt", host="ok.test", body=b"User-agent: *\nDisallow: /private/\n")
    for host in ("slow1.test", "slow2.test"):
        server.route("/robots.txt", host=host, delay=3.0, body=b"User-agent: *\n")
    pages = [server.url(f"/p{i}", "ok.test") for i in range(10)]
    slow = [server.url("/a", "slow1.test"), server.url("/a", "slow2.test")]
    start = time.monotonic()
    crawler = await crawl(
        make_spider(urls=[pages[0], *slow, *pages[1:]]),
        # The budget defaults to CONCURRENT_REQUESTS: both slots go to the slow files.
        {"CONCURRENT_REQUESTS": 2, "CONCURRENT_REQUESTS_PER_DOMAIN": 2},
    )
    assert sorted(crawler.spider.crawled) == sorted(pages + slow)
    ok_times = [
        t - start for t, host, path in server.log if host == "ok.test" and path != "/robots.txt"
    ]
    assert len(ok_times) == 10
    assert max(ok_times) < 2.5  # all crawled while both slow robots.txt were still in flight
    assert server.max_inflight["/robots.txt"] == 2
