"""Concurrency: the race (many requests, one fetch) and the starvation case (no slot held)."""

from __future__ import annotations

import time

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl


@pytest_twisted.ensureDeferred
async def test_race_200_simultaneous_requests_one_fetch_no_disallowed_url(server: Server) -> None:
    # robots.txt answers slowly, so every request arrives while it is still downloading:
    # Scrapy's built-in middleware lets all 20 disallowed URLs through in this situation.
    server.route("/robots.txt", delay=0.3, body=b"User-agent: *\nDisallow: /private/\n")
    urls = [
        server.url(f"/private/{i}") if i % 10 == 0 else server.url(f"/page/{i}") for i in range(200)
    ]
    crawler = await crawl(make_spider(urls=urls), {"CONCURRENT_REQUESTS": 32})
    spider = crawler.spider
    assert server.count("/robots.txt") == 1
    assert [p for p in server.paths() if p.startswith("/private/")] == []
    assert len(spider.crawled) == 180
    assert len(spider.failed) == 20
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 20
    assert stats["robotstxt/request_count"] == 1
    assert stats["robotstxt/parked"] == 200


@pytest_twisted.ensureDeferred
async def test_starvation_slow_robots_do_not_stall_healthy_origins(server: Server) -> None:
    hang_seconds = 20.0
    slow = [f"slow{i}.test" for i in range(8)]
    healthy = [f"ok{i}.test" for i in range(50)]
    for host in slow:
        server.route(
            "/robots.txt",
            host=host,
            delay=hang_seconds,
            body=b"User-agent: *\nDisallow: /private\n",
        )
    for host in healthy:
        server.route("/robots.txt", host=host, body=b"User-agent: *\nDisallow: /private\n")
    urls = []
    for host in slow:  # queued first, so a slot-holding design would block everything
        urls += [server.url(f"/p{j}", host) for j in range(4)] + [server.url("/private", host)]
    for host in healthy:
        urls += [server.url("/a", host), server.url("/b", host)]
    start = time.monotonic()
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "CONCURRENT_REQUESTS": 16,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
            "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 60,
        },
    )
    healthy_times = [
        t - start for t, host, path in server.log if host in healthy and path != "/robots.txt"
    ]
    slow_times = [
        t - start for t, host, path in server.log if host in slow and path != "/robots.txt"
    ]
    assert len(healthy_times) == 100
    # Every healthy page was crawled while the 8 slow robots.txt were still hanging.
    assert max(healthy_times) < hang_seconds / 2, max(healthy_times)
    # The slow origins' pages came after their robots.txt, and none was lost or disallowed.
    assert len(slow_times) == 8 * 4 and min(slow_times) >= hang_seconds - 0.5
    assert all(server.count("/private", h) == 0 for h in slow + healthy)
    assert len(crawler.spider.crawled) == 100 + 32
    assert crawler.stats.get_value("robotstxt/forbidden") == 8
    assert crawler.stats.get_value("robotstxt/request_count") == 58
