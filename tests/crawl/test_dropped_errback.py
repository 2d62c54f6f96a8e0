"""A request dropped while the crawl runs reaches its errback (issue 17, item 3)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _httpserver import Server, crawl, make_spider
from scrapy import signals
from scrapy.exceptions import IgnoreRequest

pytestmark = pytest.mark.crawl


def _spider(failing: list[str], plain: str, follow_up: str) -> type:
    class ErrbackSpider(make_spider(urls=failing)):  # type: ignore[misc]
        errors: list[tuple[str, str, str]]
        scraped: list[dict[str, Any]]

        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            spider.errors = []
            spider.scraped = []
            crawler.signals.connect(spider.on_scraped, signal=signals.item_scraped)
            return spider

        def on_scraped(self, item: Any, response: Any, spider: Any) -> None:
            self.scraped.append(dict(item))

        async def start(self) -> Any:
            for request in self.start_requests():
                yield request

        def start_requests(self) -> Any:
            for url in self.urls:
                yield self.make_request(url)
            yield scrapy.Request(plain, callback=self.parse)  # no errback

        def on_error(self, failure: Any) -> Any:
            request = failure.request
            self.errors.append((request.url, type(failure.value).__name__, str(failure.value)))
            yield {"failed": request.url, "why": str(failure.value)}
            yield scrapy.Request(follow_up, callback=self.parse)  # the second is a duplicate

    return ErrbackSpider


@pytest.mark.parametrize("jobdir", [False, True], ids=["memory", "jobdir"])
@pytest_twisted.ensureDeferred
async def test_request_dropped_at_the_deadline_reaches_its_errback(
    server: Server, caplog: pytest.LogCaptureFixture, tmp_path: Path, jobdir: bool
) -> None:
    """With JOBDIR the request is parked in SQLite and goes back through the disk queue."""
    server.route("/robots.txt", host="down.test", status=503)
    failing = [server.url(f"/p{i}", "down.test") for i in range(2)]
    plain = server.url("/plain", "down.test")
    follow_up = server.url("/next", "up.test")
    caplog.set_level(logging.DEBUG)
    settings: dict[str, Any] = {"GBOT_ROBOTS_PARK_TIMEOUT": 0.5}
    if jobdir:
        settings["JOBDIR"] = str(tmp_path / "job")
    crawler = await crawl(_spider(failing, plain, follow_up), settings)
    spider = crawler.spider
    # Each request with an errback reached it once, with IgnoreRequest naming the reason.
    assert sorted(url for url, _, _ in spider.errors) == sorted(failing)
    for _, kind, message in spider.errors:
        assert kind == IgnoreRequest.__name__
        assert "deadline" in message and "robots.txt" in message
    # The errback's output is processed: its items are scraped, its requests crawled.
    assert sorted(item["failed"] for item in spider.scraped) == sorted(failing)
    assert spider.crawled == [follow_up]
    # Dropped once each, the one without errback too: one stat, one WARNING, one signal.
    assert sorted(spider.dropped) == sorted((url, "deadline") for url in [*failing, plain])
    assert crawler.stats.get_value("robotstxt/dropped") == 3
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for url in [*failing, plain]:
        assert sum(url in w and "Dropped" in w for w in warnings) == 1
    # Nothing was downloaded from the failing origin, and Scrapy logged no error.
    assert all(server.count(f"/p{i}", "down.test") == 0 for i in range(2))
    assert server.count("/plain", "down.test") == 0
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert crawler.stats.get_value("finish_reason") == "finished"
    if jobdir:
        assert crawler.stats.get_value("scheduler/enqueued/disk") >= 3
