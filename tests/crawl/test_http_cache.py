"""Scrapy's HTTP cache: an offline replay obeys the robots.txt the recorded crawl obeyed.

``HTTPCACHE_ENABLED = True`` (commented in every ``startproject`` settings file), crawl once,
then replay offline with ``HTTPCACHE_IGNORE_MISSING = True``: a common development loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider
from scrapy.extensions.httpcache import DummyPolicy
from scrapy.http import Request

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private\n"
PAGES = ["/a", "/b", "/private/c"]


def _cache(tmp_path: Path, **extra: object) -> dict[str, object]:
    return {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "cache"), **extra}


def _robots_in_cache(tmp_path: Path) -> int:
    metas = (tmp_path / "cache").rglob("meta")
    return sum(1 for meta in metas if b"/robots.txt" in meta.read_bytes())


@pytest_twisted.ensureDeferred
async def test_an_offline_replay_obeys_the_recorded_robots_txt(
    server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", body=RULES)
    urls = [server.url(p, "a.test") for p in PAGES]
    first = await crawl(make_spider(urls=urls), _cache(tmp_path))
    assert sorted(first.spider.crawled) == sorted(urls[:2])
    assert _robots_in_cache(tmp_path) == 1
    recorded = sum(server.hits.values())

    server.route("*", status=500)  # the network is gone: anything not cached fails
    server.route("/robots.txt", status=500)
    replay = await crawl(make_spider(urls=urls), _cache(tmp_path, HTTPCACHE_IGNORE_MISSING=True))
    assert sorted(replay.spider.crawled) == sorted(urls[:2])  # from the cache
    assert sum(server.hits.values()) == recorded  # not one request reached the server
    stats = replay.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 1  # /private/c, by the replayed rules
    assert stats["robotstxt/response_status_count/200"] == 1
    assert "robotstxt/server_error" not in stats and "robotstxt/dropped" not in stats


@pytest_twisted.ensureDeferred
async def test_a_robots_txt_cut_at_500_kib_is_never_stored_in_the_http_cache(
    server: Server, tmp_path: Path
) -> None:
    body = RULES + b"# " + b"x" * 600_000 + b"\n"
    server.route("/robots.txt", body=body)
    urls = [server.url("/a", "a.test")]
    crawler = await crawl(make_spider(urls=urls), _cache(tmp_path))
    assert crawler.spider.crawled == urls
    assert crawler.stats.get_value("robotstxt/truncated") == 1
    assert _robots_in_cache(tmp_path) == 0  # the page is cached, the cut file is not
    assert any((tmp_path / "cache").rglob("meta"))


class LiveRobotsPolicy(DummyPolicy):
    """The policy docs/scrapy-parts.md gives: pages from the cache, robots.txt live."""

    def should_cache_request(self, request: Request) -> bool:
        return "gbot_robots_fetch" not in request.meta and super().should_cache_request(request)


@pytest_twisted.ensureDeferred
async def test_a_policy_can_fetch_robots_txt_live_while_pages_come_from_the_cache(
    server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", body=RULES)
    urls = [server.url(p, "a.test") for p in PAGES]
    live = _cache(tmp_path, HTTPCACHE_POLICY=LiveRobotsPolicy)
    first = await crawl(make_spider(urls=urls), live)
    assert sorted(first.spider.crawled) == sorted(urls[:2])
    assert _robots_in_cache(tmp_path) == 0  # never stored

    server.route("/robots.txt", body=b"User-agent: *\nDisallow: /b\n")  # the site changed it
    server.route("/a", status=500)  # a page from the network would fail
    replay = await crawl(make_spider(urls=urls), {**live, "HTTPCACHE_IGNORE_MISSING": True})
    assert replay.spider.crawled == [urls[0]]  # /a from the cache; /b forbidden by the new rules
    assert server.count("/robots.txt", "a.test") == 2 and server.count("/a", "a.test") == 1
    assert replay.stats.get_value("robotstxt/forbidden") == 1
