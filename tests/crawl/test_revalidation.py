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
from _httpserver import FakeClock, Route, Server, crawl, make_spider, make_timeline_spider
from scrapy.exceptions import CloseSpider

from scrapy_gbot_robots.policy.states import Kind
from scrapy_gbot_robots.stores.sqlite import SqliteStore

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private\n"
ETAG = '"rules-v1"'


class ConditionalRobots:
    """robots.txt with an ETag and ``max-age``: a 304 to ``If-None-Match: ETAG``."""

    def __init__(
        self, max_age: int = 1, encoding_on_304: bool = False, delay_304: float = 0.0
    ) -> None:
        self.asked: list[str | None] = []  # the If-None-Match of each request (None: absent)
        self.bodies = 0  # 200s sent, each with the whole file
        self.cache_control = f"max-age={max_age}"
        self.encoding_on_304 = encoding_on_304
        self.delay_304 = delay_304

    def __call__(self, request: Any) -> Route:
        header = request.getHeader("if-none-match")
        self.asked.append(header)
        headers: dict[str, str | list[str]] = {"ETag": ETAG, "Cache-Control": self.cache_control}
        if header == ETAG:
            if self.encoding_on_304:  # some servers repeat the 200's Content-Encoding
                headers["Content-Encoding"] = "gzip"
            return Route(status=304, body=b"", headers=headers, delay=self.delay_304)
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



@pytest_twisted.ensureDeferred
async def test_a_restart_on_a_sqlite_store_revalidates_the_stored_copy(
    server: Server, tmp_path: Path
) -> None:
    """The validators live in the store: a new crawler on the same file, a day later,
    asks with the ``ETag`` the first crawl stored, and obeys the copy the 304 kept."""
    robots = ConditionalRobots(max_age=3600)
    server.handle("/robots.txt", robots)
    clock = FakeClock()
    settings = {"GBOT_ROBOTS_STORE": f"sqlite://{tmp_path}/robots.db", "GBOT_ROBOTS_CLOCK": clock}
    first = make_timeline_spider(
        [(0.1, lambda s: None)], urls=[server.url("/a"), server.url("/private/b")]
    )
    await crawl(first, settings)
    clock.advance(2 * 3600)  # past the copy's max-age
    second = make_timeline_spider(
        [(0.1, lambda s: None)], urls=[server.url("/c"), server.url("/private/d")]
    )
    crawler = await crawl(second, settings)
    assert robots.asked == [None, ETAG] and robots.bodies == 1
    assert crawler.spider.crawled == [server.url("/c")]
    assert crawler.stats.get_value("robotstxt/revalidated") == 1
    assert crawler.stats.get_value("robotstxt/forbidden") == 1
    assert not any("/private" in path for path in server.paths())


@pytest_twisted.ensureDeferred
async def test_a_revalidation_in_flight_at_the_close_follows_the_fetch_close_rules(
    server: Server, tmp_path: Path
) -> None:
    """CloseSpider while the 304 is on its way, with ``JOBDIR``: the engine waits for the
    download under way, so the 304 is the server's answer and is recorded; the parked page
    is kept for the next run, which obeys the copy without fetching robots.txt again."""
    robots = ConditionalRobots(max_age=3600, delay_304=1.0)
    server.handle("/robots.txt", robots)  # every host: site.test's and quick.test's
    clock = FakeClock()
    jobdir = tmp_path / "job"
    settings = {"GBOT_ROBOTS_CLOCK": clock, "JOBDIR": str(jobdir)}
    site = [server.url("/a", "site.test"), server.url("/private/b", "site.test")]
    await crawl(make_spider(urls=site), settings)
    assert robots.asked == [None]

    clock.advance(2 * 3600)  # site.test's copy expired; quick.test is new
    start = [server.url("/p", "quick.test"), server.url("/c", "site.test")]

    class Closing(make_spider(urls=start)):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            raise CloseSpider("enough")  # quick.test answered; site.test's 304 is on its way

    closed = await crawl(Closing, settings)
    stats = closed.stats.get_stats()
    assert stats["finish_reason"] == "enough"
    assert robots.asked == [None, None, ETAG]  # site.test, quick.test, site.test again
    assert "robotstxt/server_error" not in stats
    store = SqliteStore(str(jobdir / "gbot_robots" / "robots.sqlite3"))
    try:
        state = store.get_now(server.origin("site.test"))
    finally:
        store.close()
    assert state is not None and state.kind is Kind.RULES and state.revalidated
    assert state.robots is not None and state.robots.body == RULES

    resumed = await crawl(make_spider(urls=[]), settings)
    done = closed.spider.crawled + resumed.spider.crawled
    assert server.url("/c", "site.test") in done
    assert robots.asked == [None, None, ETAG]  # the resumed run obeys the revalidated copy
    assert robots.bodies == 2  # one body per origin in all, across three runs
    assert not any("/private" in path for path in server.paths())
