"""robots.txt revalidated in a real crawl: ``If-None-Match`` after expiry, a 304 keeps the rules.

The server answers a request carrying the current ``ETag`` with a 304 (no body) and any other
with the file; it logs what each request carried. Scrapy's own downloader middlewares (its
HTTP compression, its redirects, ours for the body) see every 304. A fake clock makes the
copy expire without waiting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import FakeClock, Route, Server, crawl, make_timeline_spider

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private\n"
ETAG = '"rules-v1"'


class ConditionalRobots:
    """robots.txt with an ETag and ``max-age``: a 304 to ``If-None-Match: ETAG``."""

    def __init__(self, max_age: int = 1, encoding_on_304: bool = False) -> None:
        self.asked: list[str | None] = []  # the If-None-Match of each request (None: absent)
        self.bodies = 0  # 200s sent, each with the whole file
        self.cache_control = f"max-age={max_age}"
        self.encoding_on_304 = encoding_on_304

    def __call__(self, request: Any) -> Route:
        header = request.getHeader("if-none-match")
        self.asked.append(header)
        headers: dict[str, str | list[str]] = {"ETag": ETAG, "Cache-Control": self.cache_control}
        if header == ETAG:
            if self.encoding_on_304:  # some servers repeat the 200's Content-Encoding
                headers["Content-Encoding"] = "gzip"
            return Route(status=304, body=b"", headers=headers)
        self.bodies += 1
        return Route(body=RULES, headers=headers)


def _expire_and_ask(clock: FakeClock, paths: list[str], server: Server) -> Any:
    """A step: the copy's second passes, then a page and a disallowed page are requested."""

    def step(spider: Any) -> None:
        clock.advance(2.0)
        for path in paths:
            spider.inject(server.url(path))

    return step


@pytest.mark.parametrize("encoding_on_304", [False, True], ids=["plain 304", "gzip 304"])
@pytest_twisted.ensureDeferred
async def test_an_expired_copy_is_revalidated_and_the_304_keeps_its_rules(
    server: Server, encoding_on_304: bool
) -> None:
    """The done-when of issue 50: ``ETag`` + ``max-age=1``; after expiry the next request
    revalidates with ``If-None-Match``; the 304 keeps ``/private`` forbidden; the body is
    sent once in all."""
    robots = ConditionalRobots(encoding_on_304=encoding_on_304)
    server.handle("/robots.txt", robots)
    clock = FakeClock()
    steps = [
        (0.3, _expire_and_ask(clock, ["/c", "/private/d"], server)),
        (0.3, _expire_and_ask(clock, ["/e", "/private/f"], server)),
        (0.3, lambda spider: None),
    ]
    spider = make_timeline_spider(steps, urls=[server.url("/a"), server.url("/private/b")])
    crawler = await crawl(spider, {"GBOT_ROBOTS_CLOCK": clock, "GBOT_ROBOTS_MIN_TTL": 1})
    assert crawler.spider.step_errors == []
    assert robots.asked == [None, ETAG, ETAG]
    assert robots.bodies == 1  # the server sent the file once; twice a 304
    assert sorted(crawler.spider.crawled) == [server.url(p) for p in ("/a", "/c", "/e")]
    assert not any("/private" in path for path in server.paths())
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 3
    assert stats["robotstxt/revalidated"] == 2
    assert stats["robotstxt/response_status_count/304"] == 2
    assert "robotstxt/server_error" not in stats
    assert stats.get("robotstxt/origin_state/allow_all") is None  # never "no restrictions"


@pytest_twisted.ensureDeferred
async def test_a_304_to_a_request_without_validators_counts_as_a_404(server: Server) -> None:
    """Google's 3xx rule: a redirect without ``Location`` ends the chain, no restrictions."""
    server.route("/robots.txt", status=304, body=b"")
    crawler = await crawl(
        make_timeline_spider([(0.1, lambda s: None)], urls=[server.url("/private/a")]), {}
    )
    assert crawler.spider.crawled == [server.url("/private/a")]
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/origin_state/allow_all"] == 1
    assert "robotstxt/revalidated" not in stats


@pytest_twisted.ensureDeferred
async def test_with_scrapys_http_cache_its_rfc2616_policy_revalidates_and_we_read_a_200(
    server: Server, tmp_path: Path
) -> None:
    """``HTTPCACHE_ENABLED``: no validator of ours; the HTTP cache's RFC2616 policy sends
    its own ``If-None-Match`` and turns the 304 into its stored 200, which is what the
    fetch reads: the rules stay in force, and the body still travels once."""
    robots = ConditionalRobots(max_age=0)  # stale at once for the HTTP cache
    server.handle("/robots.txt", robots)
    clock = FakeClock()
    steps = [(0.3, _expire_and_ask(clock, ["/c", "/private/d"], server)), (0.3, lambda s: None)]
    spider = make_timeline_spider(steps, urls=[server.url("/a"), server.url("/private/b")])
    settings = {
        "GBOT_ROBOTS_CLOCK": clock,
        "GBOT_ROBOTS_MIN_TTL": 1,
        "HTTPCACHE_ENABLED": True,
        "HTTPCACHE_DIR": str(tmp_path / "cache"),
        "HTTPCACHE_POLICY": "scrapy.extensions.httpcache.RFC2616Policy",
    }
    crawler = await crawl(spider, settings)
    assert crawler.spider.step_errors == []
    assert robots.asked == [None, ETAG]  # the second If-None-Match is the HTTP cache's
    assert robots.bodies == 1
    stats = crawler.stats.get_stats()
    assert stats["httpcache/revalidate"] >= 1
    assert stats["robotstxt/response_status_count/200"] == 2  # the cache's 200, not a 304
    assert "robotstxt/revalidated" not in stats
    assert stats["robotstxt/forbidden"] == 2
    assert not any("/private" in path for path in server.paths())

