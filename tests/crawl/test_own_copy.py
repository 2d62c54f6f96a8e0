"""A spider that reads robots.txt itself gets the plugin's copy: one download per origin.

``SitemapSpider`` with ``sitemap_urls = [origin + "/robots.txt"]`` is the common case; with
Scrapy's built-in middleware too, the server sees two robots.txt requests per origin.
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl
from scrapy.http import Request
from scrapy.spiders import SitemapSpider

from scrapy_gbot_robots.crawl.own_copy import own_copy
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig

pytestmark = pytest.mark.crawl


def _sitemap(server: Server, *paths: str) -> bytes:
    urls = "".join(f"<url><loc>{server.url(p)}</loc></url>" for p in paths)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    ).encode()


def _spider(server: Server) -> tuple[type, list[str]]:
    seen: list[str] = []

    class FromRobots(SitemapSpider):
        name = "from_robots"
        sitemap_urls = [server.url("/robots.txt")]  # noqa: RUF012 - Scrapy reads the class

        def parse(self, response: Any) -> None:
            seen.append(response.url)

    return FromRobots, seen


def test_a_copy_a_304_revalidated_is_the_spiders_200() -> None:
    """Not a 304: the spider never asked conditionally, and Scrapy would drop a 304."""
    cfg, body = PolicyConfig(), b"User-agent: *\nDisallow: /x\nSitemap: http://a.test/s.xml\n"
    copy = evaluate(FetchResult(200, body, etag='"v"'), 0.0, None, cfg)
    state = evaluate(FetchResult(304, sent=copy.validators), 90_000.0, copy, cfg)
    assert state.revalidated
    response = own_copy(Request("http://a.test/robots.txt"), "http://a.test", state)
    assert response is not None and response.status == 200 and response.body == body


@pytest_twisted.ensureDeferred
async def test_sitemap_spider_reading_robots_txt_costs_the_origin_one_download(
    server: Server,
) -> None:
    sitemap = server.url("/sitemap.xml")
    server.route(
        "/robots.txt", body=f"User-agent: *\nDisallow: /private\nSitemap: {sitemap}\n".encode()
    )
    server.route("/sitemap.xml", body=_sitemap(server, "/a", "/private/b"))
    spider, seen = _spider(server)
    crawler = await crawl(spider)
    assert seen == [server.url("/a")]
    assert server.count("/robots.txt") == 1
    assert server.count("/private/b") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/own_copy"] == 1 and stats["robotstxt/forbidden"] == 1


@pytest_twisted.ensureDeferred
async def test_the_spider_gets_robots_txt_even_when_it_disallows_everything(
    server: Server,
) -> None:
    sitemap = server.url("/sitemap.xml")
    server.route("/robots.txt", body=f"User-agent: *\nDisallow: /\nSitemap: {sitemap}\n".encode())
    server.route("/sitemap.xml", body=_sitemap(server, "/a"))
    spider, seen = _spider(server)
    crawler = await crawl(spider)
    assert seen == [] and server.count("/robots.txt") == 1
    assert server.count("/sitemap.xml") == 0  # the sitemap itself is disallowed
    assert crawler.stats.get_value("robotstxt/own_copy") == 1


@pytest_twisted.ensureDeferred
async def test_a_missing_robots_txt_is_a_404_for_the_spider_too(server: Server) -> None:
    server.route("/robots.txt", status=404, body=b"not here")
    spider, seen = _spider(server)
    crawler = await crawl(spider)
    assert seen == [] and server.count("/robots.txt") == 1
    assert crawler.stats.get_value("httperror/response_ignored_status_count/404") == 1


@pytest_twisted.ensureDeferred
async def test_a_file_cut_at_500_kib_is_downloaded_whole_by_the_spider(server: Server) -> None:
    sitemap = server.url("/sitemap.xml")
    padding = b"# " + b"x" * 600_000 + b"\n"
    body = padding + f"User-agent: *\nSitemap: {sitemap}\n".encode()  # past Google's cap
    server.route("/robots.txt", body=body)
    server.route("/sitemap.xml", body=_sitemap(server, "/a"))
    spider, seen = _spider(server)
    crawler = await crawl(spider)
    assert server.count("/robots.txt") == 2  # ours was not the whole file
    assert seen == [server.url("/a")]  # the spider read the sitemap beyond 500 KiB
    assert crawler.stats.get_value("robotstxt/own_copy") is None
