"""Crawl-delay, as an explicit opt-in (``GBOT_ROBOTS_CRAWL_DELAY``; Google ignores it).

The spacing between page requests is read from the server's own log of arrival times.
"""

from __future__ import annotations

import itertools
import logging

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl

PAGES = ["/a", "/b", "/c", "/d"]


def _arrivals(server: Server) -> list[float]:
    return [t for t, _, path in server.log if path in PAGES]


def _gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


@pytest_twisted.ensureDeferred
async def test_crawl_delay_spaces_an_origins_pages_when_asked(server: Server) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nCrawl-delay: 2\n")
    urls = [server.url(p) for p in PAGES]
    crawler = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_CRAWL_DELAY": True})
    assert sorted(crawler.spider.crawled) == sorted(urls)
    gaps = _gaps(_arrivals(server))
    assert len(gaps) == 3 and min(gaps) >= 1.9, gaps  # 2 s apart (server-side clock)


@pytest_twisted.ensureDeferred
async def test_crawl_delay_is_ignored_by_default_as_google_does(server: Server) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nCrawl-delay: 2\n")
    urls = [server.url(p) for p in PAGES]
    crawler = await crawl(make_spider(urls=urls))
    assert sorted(crawler.spider.crawled) == sorted(urls)
    times = _arrivals(server)
    assert times[-1] - times[0] < 1.9  # not one of them waited for the crawl-delay


@pytest_twisted.ensureDeferred
async def test_a_huge_crawl_delay_is_capped_and_said_once(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nCrawl-delay: 3600\n")
    urls = [server.url(p) for p in PAGES[:3]]
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "GBOT_ROBOTS_CRAWL_DELAY": True,
            "GBOT_ROBOTS_CRAWL_DELAY_MAX": 1,
            "GBOT_ROBOTS_REPORT": [],
        },
    )
    assert sorted(crawler.spider.crawled) == sorted(urls)
    gaps = _gaps(_arrivals(server))
    assert len(gaps) == 2 and min(gaps) >= 0.9, gaps
    capped = [r.getMessage() for r in caplog.records if "capped" in r.getMessage()]
    assert len(capped) == 1 and "3600 s" in capped[0] and "GBOT_ROBOTS_CRAWL_DELAY_MAX" in capped[0]


@pytest_twisted.ensureDeferred
async def test_the_delay_of_the_obeyed_group_and_never_lower_than_download_delay(
    server: Server,
) -> None:
    robots = b"User-agent: FastBot\nCrawl-delay: 0.2\n\nUser-agent: *\nCrawl-delay: 5\n"
    server.route("/robots.txt", body=robots)
    urls = [server.url(p) for p in PAGES[:3]]
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "GBOT_ROBOTS_CRAWL_DELAY": True,
            "ROBOTSTXT_USER_AGENT": "FastBot",
            "DOWNLOAD_DELAY": 1,  # with Scrapy's +-50 % jitter, which the floor turns off
        },
    )
    assert sorted(crawler.spider.crawled) == sorted(urls)
    gaps = _gaps(_arrivals(server))
    assert min(gaps) >= 0.9 and max(gaps) < 4, gaps  # DOWNLOAD_DELAY kept, "*"'s 5 s unused
