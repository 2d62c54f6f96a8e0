"""Observe mode: everything is crawled, and each request says what Googlebot would have done.

``GBOT_ROBOTS_MODE = "observe"``, for SEO audits (Screaming Frog's "ignore robots.txt but
report status", Heritrix's ``calculateRobotsOnly``) and for testing a robots.txt before
deploying it.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl

OBSERVE = {"GBOT_ROBOTS_MODE": "observe"}
RULES = b"User-agent: *\nDisallow: /private\n"


def _verdicts_spider(urls: list[str]) -> Any:
    class Verdicts(scrapy.Spider):
        name = "verdicts"
        seen: dict[str, Any] = {}  # noqa: RUF012 - filled per run

        async def start(self) -> Any:
            for url in urls:
                yield scrapy.Request(url)

        def start_requests(self) -> Any:  # Scrapy < 2.13
            for url in urls:
                yield scrapy.Request(url)

        def parse(self, response: Any) -> Any:
            verdict = response.meta["gbot_robots_verdict"]
            self.seen[response.url] = verdict
            yield {"url": response.url, "allowed": verdict["allowed"], "rule": verdict["rule"]}

    Verdicts.seen = {}
    return Verdicts


@pytest_twisted.ensureDeferred
async def test_everything_is_crawled_and_each_response_carries_its_verdict(
    server: Server,
) -> None:
    server.route("/robots.txt", body=RULES)
    urls = [server.url("/a"), server.url("/private/b")]
    spider = _verdicts_spider(urls)
    crawler = await crawl(spider, OBSERVE)
    assert set(spider.seen) == set(urls)  # the disallowed page was fetched too
    assert spider.seen[urls[0]] == {
        "allowed": True, "state": "rules", "line": 0, "rule": "", "group": "*", "by": "rules"
    }  # fmt: skip
    assert spider.seen[urls[1]] == {
        "allowed": False, "state": "rules", "line": 2, "rule": "Disallow: /private",
        "group": "*", "by": "rules",
    }  # fmt: skip
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/would_forbid"] == 1
    assert "robotstxt/forbidden" not in stats and "robotstxt/dropped" not in stats
    assert server.count("/robots.txt") == 1


@pytest_twisted.ensureDeferred
async def test_an_origin_in_server_error_is_crawled_and_marked_stopped(server: Server) -> None:
    server.route("/robots.txt", status=503)
    urls = [server.url("/a"), server.url("/b")]
    spider = _verdicts_spider(urls)
    crawler = await crawl(spider, OBSERVE)
    assert set(spider.seen) == set(urls)
    for verdict in spider.seen.values():
        assert verdict["allowed"] is False and verdict["state"] == "server_error"
        assert verdict["by"] == "state"
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/would_stop"] == 2 and "robotstxt/dropped" not in stats
    assert stats["robotstxt/parked"] >= 1  # the first decision was waited for


@pytest_twisted.ensureDeferred
async def test_the_readme_example_writes_a_csv_audit(server: Server, tmp_path: Path) -> None:
    """The README's two lines: custom_settings with a CSV feed, and the verdict in the item."""
    server.route("/robots.txt", body=RULES)
    urls = [server.url("/a"), server.url("/private/b")]
    feed = tmp_path / "audit.csv"

    class Audit(_verdicts_spider(urls)):  # type: ignore[misc]
        name = "audit"
        custom_settings = {  # noqa: RUF012 - Scrapy reads it from the class
            "GBOT_ROBOTS_MODE": "observe",
            "FEEDS": {str(feed): {"format": "csv"}},
        }

        def parse(self, response: Any) -> Any:
            yield {"url": response.url, **response.meta["gbot_robots_verdict"]}

    await crawl(Audit)
    rows = sorted(csv.DictReader(io.StringIO(feed.read_text())), key=lambda row: row["url"])
    assert list(rows[0]) == ["url", "allowed", "state", "line", "rule", "group", "by"]
    assert [(r["url"], r["allowed"], r["line"], r["rule"]) for r in rows] == [
        (urls[0], "True", "0", ""),
        (urls[1], "False", "2", "Disallow: /private"),
    ]


@pytest_twisted.ensureDeferred
async def test_observe_is_a_per_spider_setting(server: Server) -> None:
    server.route("/robots.txt", body=RULES)
    urls = [server.url("/a"), server.url("/private/b")]
    observing = make_spider(urls=urls, custom_settings=dict(OBSERVE))
    crawler = await crawl(observing)
    assert sorted(crawler.spider.crawled) == sorted(urls)
    enforcing = await crawl(make_spider(urls=urls))
    assert enforcing.spider.crawled == [urls[0]]
    assert enforcing.stats.get_value("robotstxt/forbidden") == 1


def test_a_mode_that_does_not_exist_stops_start_up() -> None:
    from scrapy_gbot_robots._settings import ConfigError, load

    with pytest.raises(ConfigError, match=r"^GBOT_ROBOTS_MODE: expected 'enforce' or"):
        load({"GBOT_ROBOTS_MODE": "audit"}.get)
    assert load({"GBOT_ROBOTS_MODE": " Observe "}.get).observe
