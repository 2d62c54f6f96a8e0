"""Scrapy parts nobody on this project wrote, used as a user would (docs/scrapy-parts.md).

The media pipelines, SitemapSpider, the HTTP cache and HTTP/1.0 servers have their own files
(``test_media_close.py``, ``test_own_copy.py``, ``test_http_cache.py``, ``test_http10.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl

pytestmark = pytest.mark.crawl


@pytest_twisted.ensureDeferred
async def test_crawlspider_links_to_a_new_site_wait_for_its_robots_txt(server: Server) -> None:
    """Ten links to a site whose slow robots.txt says ``Disallow: /``: none is fetched.

    Scrapy's built-in lets most of them through while that robots.txt downloads."""
    from scrapy.linkextractors import LinkExtractor
    from scrapy.spiders import CrawlSpider, Rule

    pages = [server.url(f"/p{i}", "b.test") for i in range(10)]
    links = "".join(f'<a href="{url}">page</a>' for url in pages)
    server.route("/", host="a.test", body=f"<html><body>{links}</body></html>".encode())
    server.route("/robots.txt", host="b.test", body=b"User-agent: *\nDisallow: /\n", delay=0.3)

    class Following(CrawlSpider):
        name = "following"
        start_urls = [server.url("/", "a.test")]  # noqa: RUF012 - Scrapy reads the class
        rules = (Rule(LinkExtractor(), callback="parse_item"),)

        def parse_item(self, response: Any) -> None:
            pass

    crawler = await crawl(Following)
    assert server.count("/", "a.test") == 1
    assert sum(server.count(f"/p{i}", "b.test") for i in range(10)) == 0
    assert server.count("/robots.txt", "b.test") == 1
    assert crawler.stats.get_value("robotstxt/forbidden") == 10
