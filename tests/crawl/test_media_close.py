"""A spider that closes while media downloads wait for robots.txt (issue 17, item 2).

FilesPipeline downloads with ``engine.download()``: those requests wait in the middleware
for their origin's robots.txt, and Scrapy's close waits for them. They must still get their
origin decided while the spider closes, within ``GBOT_ROBOTS_PARK_TIMEOUT`` of the close.
A crawl that hangs is marked so by the test (and fails it); the park timeout, 20 s unless a
test sets it, then ends it, so a broken build cannot hang the suite.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import BASE_SETTINGS, Server, make_spider, stop_as_ctrl_c
from scrapy.exceptions import CloseSpider

pytestmark = pytest.mark.crawl

CDN_RULES = b"User-agent: *\nDisallow: /private/\n"
PATHS = ("/f1.txt", "/f2.txt", "/private/f3.txt", "/f4.txt")


@dataclass
class Run:
    crawler: Any
    hung: bool  # still running after the bound: ended by the test
    ended_at: float  # time.monotonic() when the crawl ended


async def _crawl_bounded(spider_cls: type, settings: dict[str, Any], bound: float) -> Run:
    """Crawl; a crawl still running after ``bound`` seconds is ended and marked ``hung``."""
    from scrapy.crawler import CrawlerRunner
    from twisted.internet import reactor, task

    runner = CrawlerRunner({**BASE_SETTINGS, "GBOT_ROBOTS_PARK_TIMEOUT": 20.0, **settings})
    crawler = runner.create_crawler(spider_cls)
    ended: list[float] = []

    def end(result: object) -> object:
        ended.append(time.monotonic())
        return result

    d = crawler.crawl()
    d.addBoth(end)
    start = time.monotonic()
    while not ended and time.monotonic() - start < bound:
        await task.deferLater(reactor, 0.05, lambda: None)
    hung = not ended
    await d  # the park timeout ends a hung close

    return Run(crawler, hung, ended[0])


def _files_spider(start: list[str], files: list[str], trigger: str) -> Any:
    """Yields one item with ``files`` from the first page, then closes by ``trigger``:
    ``raise`` (CloseSpider in the callback), ``itemcount`` (CLOSESPIDER_ITEMCOUNT = 1, reached
    by an item without files), ``stop`` (Ctrl-C), ``later`` (CloseSpider from a second page)."""

    class FilesSpider(make_spider(urls=start)):  # type: ignore[misc]
        closed_at = 0.0

        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            if response.url != start[0]:  # the second page of "later"
                type(self).closed_at = time.monotonic()
                raise CloseSpider("enough")
            if trigger == "itemcount":
                yield {"files": "none"}
            yield {"file_urls": files}
            if trigger in ("raise", "itemcount", "stop"):
                type(self).closed_at = time.monotonic()
            if trigger == "raise":
                raise CloseSpider("enough")
            if trigger == "stop":
                stop_as_ctrl_c(self.crawler)

    return FilesSpider


def _stored(store: Path) -> set[str]:
    full = store / "full"
    return {p.name for p in full.iterdir()} if full.exists() else set()


def _name(url: str) -> str:
    return hashlib.sha1(url.encode()).hexdigest() + ".txt"  # FilesPipeline.file_path()


def _settings(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
        "FILES_STORE": str(tmp_path),
        **extra,
    }


REASONS = {"raise": "enough", "itemcount": "closespider_itemcount", "stop": "shutdown"}


@pytest.mark.parametrize("trigger", ["raise", "itemcount", "stop"])
@pytest_twisted.ensureDeferred
async def test_closing_spider_decides_the_robots_txt_its_media_downloads_wait_for(
    server: Server, tmp_path: Path, trigger: str
) -> None:
    server.route("/robots.txt", host="cdn.test", body=CDN_RULES, delay=0.3)
    files = [server.url(path, "cdn.test") for path in PATHS]
    spider = _files_spider([server.url("/page", "site.test")], files, trigger)
    extra = {"CLOSESPIDER_ITEMCOUNT": 1} if trigger == "itemcount" else {}
    run = await _crawl_bounded(spider, _settings(tmp_path, **extra), bound=15.0)
    assert not run.hung, "the close never completed"
    crawler = run.crawler
    assert run.ended_at - spider.closed_at < 5.0
    assert crawler.stats.get_value("finish_reason") == REASONS[trigger]
    assert server.count("/robots.txt", "cdn.test") == 1
    assert server.count("/private/f3.txt", "cdn.test") == 0
    assert _stored(tmp_path) == {_name(files[i]) for i in (0, 1, 3)}
    assert crawler.spider.dropped == []


@pytest_twisted.ensureDeferred
async def test_closing_while_the_robots_txt_fetch_is_under_way_releases_the_downloads(
    server: Server, tmp_path: Path
) -> None:
    """The close starts after the downloads parked: their origin is decided meanwhile."""
    server.route("/robots.txt", host="cdn.test", body=CDN_RULES, delay=1.5)
    server.route("/later", host="site.test", delay=0.5)
    files = [server.url(path, "cdn.test") for path in PATHS]
    start = [server.url("/page", "site.test"), server.url("/later", "site.test")]
    spider = _files_spider(start, files, "later")
    run = await _crawl_bounded(spider, _settings(tmp_path), bound=15.0)
    assert not run.hung, "the close never completed"
    crawler = run.crawler
    asked = [t for t, host, path in server.log if (host, path) == ("cdn.test", "/robots.txt")]
    assert len(asked) == 1 and asked[0] < spider.closed_at < asked[0] + 1.5
    assert run.ended_at - spider.closed_at < 5.0
    assert crawler.stats.get_value("finish_reason") == "enough"
    assert server.count("/private/f3.txt", "cdn.test") == 0
    assert _stored(tmp_path) == {_name(files[i]) for i in (0, 1, 3)}


@pytest_twisted.ensureDeferred
async def test_a_hung_robots_txt_holds_the_close_for_the_park_timeout_at_most(
    server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", host="cdn.test", hang=True)
    files = [server.url(path, "cdn.test") for path in PATHS]
    spider = _files_spider([server.url("/page", "site.test")], files, "raise")
    settings = _settings(tmp_path, GBOT_ROBOTS_PARK_TIMEOUT=2.0, GBOT_ROBOTS_DOWNLOAD_TIMEOUT=30)
    run = await _crawl_bounded(spider, settings, bound=15.0)
    assert not run.hung, "the close never completed"
    crawler = run.crawler
    took = run.ended_at - spider.closed_at
    assert 1.5 < took < 4.5, took  # the park timeout from the close, not the 30 s download
    assert crawler.stats.get_value("finish_reason") == "enough"
    assert server.count("/robots.txt", "cdn.test") == 1
    assert all(server.count(path, "cdn.test") == 0 for path in PATHS)
    assert _stored(tmp_path) == set()
    assert sorted(crawler.spider.dropped) == sorted((url, "deadline") for url in files)
    assert crawler.stats.get_value("robotstxt/dropped") == 4


@pytest_twisted.ensureDeferred
async def test_downloads_queued_behind_the_fetch_budget_go_first_and_parked_pages_stay(
    server: Server, tmp_path: Path
) -> None:
    """Budget of 1, busy with another origin's robots.txt when the close starts: the media
    origin's fetch goes next; the page parked from the scheduler is not released."""
    server.route("/robots.txt", host="cdn.test", body=CDN_RULES, delay=0.3)
    server.route("/robots.txt", host="slow.test", body=b"", delay=1.0)
    files = [server.url(path, "cdn.test") for path in PATHS]
    parked = server.url("/x", "slow.test")
    spider = _files_spider([server.url("/page", "site.test"), parked], files, "raise")
    settings = _settings(tmp_path, GBOT_ROBOTS_CONCURRENT_FETCHES=1)
    run = await _crawl_bounded(spider, settings, bound=15.0)
    assert not run.hung, "the close never completed"
    crawler = run.crawler
    assert run.ended_at - spider.closed_at < 5.0
    robots = [host for _, host, path in server.log if path == "/robots.txt"]
    assert robots == ["site.test", "slow.test", "cdn.test"]
    assert _stored(tmp_path) == {_name(files[i]) for i in (0, 1, 3)}
    assert server.count("/x", "slow.test") == 0
    assert crawler.spider.dropped == [(parked, "spider closed (enough)")]
