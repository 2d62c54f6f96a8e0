"""robots.txt from servers that end the body by closing the connection (RFC 9112 6.3).

No Content-Length, no chunking: an HTTP/1.0 answer, or HTTP/1.1 with ``Connection: close``.
Scrapy flags such a response ``partial``; it is complete, and only ``dataloss`` means a cut
transfer. Small and embedded servers and CGI scripts still answer this way.
"""

from __future__ import annotations

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

RULES = b"User-agent: *\nDisallow: /private\n"
PAGES = ["/a", "/b", "/private/c"]


@pytest.mark.parametrize(
    ("version", "status", "forbidden"),
    [("HTTP/1.0", 200, 1), ("HTTP/1.0", 404, 0), ("HTTP/1.1", 200, 1)],
)
@pytest_twisted.ensureDeferred
async def test_a_close_delimited_robots_txt_is_a_complete_answer(
    server: Server, version: str, status: int, forbidden: int
) -> None:
    server.route("/robots.txt", status=status, body=RULES, close_delimited=version)
    urls = [server.url(p, "a.test") for p in PAGES]
    crawler = await crawl(make_spider(urls=urls))
    allowed = [u for u in urls if forbidden == 0 or "/private" not in u]
    assert sorted(crawler.spider.crawled) == sorted(allowed)
    assert server.count("/robots.txt") == 1  # one fetch, no retry of a "failure"
    stats = crawler.stats.get_stats()
    assert stats.get("robotstxt/forbidden", 0) == forbidden
    assert "robotstxt/server_error" not in stats
    assert server.count("/private/c") == (1 if forbidden == 0 else 0)
