"""What a hostile or broken server sends to a robots.txt request, in real crawls (issue 24).

Each answer here once made the crawl log an ERROR with a traceback (or flood the log with
them): an unusable redirect ``Location`` and thousands of nested ``Content-Encoding`` layers.
The outcome must be the documented one, with no traceback and at most one line per fetch.
"""

from __future__ import annotations

import gzip
import logging
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Every record at ERROR or above, and every record that carries a traceback."""
    return [
        f"{r.levelname} {r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.ERROR or r.exc_info or "Traceback" in r.getMessage()
    ]


# -- item 6: a redirect whose Location cannot be used ----------------------------------------

UNUSABLE = {
    "unparsable.test": "http://[::1/robots.txt",
    "badport.test": "http://h.test:99999/robots.txt",
    "ftp.test": "ftp://h.test/robots.txt",
    "ctrlhost.test": "http://h\x1bc\x07.test/robots.txt",  # Twisted refused it: retried at once
}


@pytest_twisted.ensureDeferred
async def test_a_redirect_to_an_unusable_location_counts_as_a_404_without_a_traceback(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """``http://[::1/`` was an ERROR traceback and a server error; a bad port or a host with
    a control character a server error retried at once. All are "no restrictions" now,
    decided by one download each."""
    caplog.set_level(logging.DEBUG)
    for host, location in UNUSABLE.items():
        server.route("/robots.txt", host=host, status=301, headers={"Location": location})
    urls = [server.url("/page", host) for host in UNUSABLE]
    crawler = await crawl(
        make_spider(urls=urls), {"GBOT_ROBOTS_RETRY_TIMES": 2, "GBOT_ROBOTS_PARK_TIMEOUT": 5}
    )
    assert _errors(caplog) == []
    assert sorted(crawler.spider.crawled) == sorted(urls)
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/origin_state/allow_all"] == len(UNUSABLE), stats
    assert "robotstxt/origin_state/server_error" not in stats
    assert "robotstxt/fetch_retry" not in stats and "robotstxt/server_error" not in stats
    assert stats["robotstxt/request_count"] == len(UNUSABLE)  # no hop, no immediate retry
    for host in UNUSABLE:
        assert server.count("/robots.txt", host) == 1
    assert server.count("/robots.txt", "h.test") == 0


# -- item 7: a Content-Encoding chain nested 1,200 times ------------------------------------


def _nested_gzip(data: bytes, layers: int) -> bytes:
    for _ in range(layers):
        data = gzip.compress(data, compresslevel=1)
    return data


@pytest_twisted.ensureDeferred
async def test_1200_nested_gzip_layers_are_one_body_error_not_a_traceback_per_chunk(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """1,200 nested layers raised RecursionError in the body middleware's signal handler: one
    ERROR traceback per received chunk. Now: one body error, the fetch a server error (a 2xx
    that cannot be read, as documented), the origin's requests dropped at the deadline."""
    caplog.set_level(logging.DEBUG)
    layers = 1_200
    body = _nested_gzip(b"User-agent: *\nDisallow: /private/\n", layers)
    server.route(
        "/robots.txt", body=body, headers={"Content-Encoding": ", ".join(["gzip"] * layers)}
    )
    urls = [server.url("/ok"), server.url("/private/x")]
    crawler: Any = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_PARK_TIMEOUT": 0.5})
    assert _errors(caplog) == []
    assert crawler.spider.crawled == []
    assert server.count("/ok") == server.count("/private/x") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/origin_state/server_error"] == 1
    assert stats["robotstxt/dropped"] == 2
    assert [k for k in stats if k.startswith("robotstxt/exception_count/")] == [
        "robotstxt/exception_count/<class 'scrapy_gbot_robots.policy.decode.RobotsBodyError'>"
    ]
    about = [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.INFO and "robots.txt of" in r.getMessage()
    ]
    assert len(about) <= 1, about
    assert server.count("/robots.txt") == 1
