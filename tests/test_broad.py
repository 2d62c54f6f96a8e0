"""Broad crawls on one machine: the robots.txt fetch budget, in a real crawl of 2,000 origins.

The 20,000-origin figure is a benchmark (``benchmarks/bench_broad.py``); this test guards the
behaviour at a size CI can afford: every origin's robots.txt answers after 0.5 s, so without
a budget thousands of downloads would be in flight at once.
"""

from __future__ import annotations

import pytest_twisted
from _httpserver import Server, crawl, make_spider


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
