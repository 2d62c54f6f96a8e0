"""``ROBOTSTXT_PARSER = "scrapy_gbot_robots.GoogleRobotParser"`` in Scrapy's own middleware.

The smallest adoption: Scrapy's built-in ``RobotsTxtMiddleware`` keeps fetching, our parser
decides. A real crawl against a local server, with a robots.txt on which Google and Protego
(Scrapy's default parser) disagree, and a full User-Agent header the parser must reduce to a
token.
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl

ROBOTS = b"""\
User-agent: *
Disallow: /

User-agent: googlebot
Disallowed: /drafts/
Disalow: /tmp/
Disallow: /shop/
Allow: /shop/catalog/
"""

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def _settings(parser: str | None) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "ADDONS": {},  # Scrapy's own RobotsTxtMiddleware, not ours
        "ROBOTSTXT_OBEY": True,
        "USER_AGENT": GOOGLEBOT,
        # One request at a time: Scrapy's middleware lets concurrent requests through
        # unchecked while robots.txt downloads (the race our middleware fixes).
        "CONCURRENT_REQUESTS": 1,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    }
    if parser:
        settings["ROBOTSTXT_PARSER"] = parser
    return settings


@pytest_twisted.ensureDeferred
async def test_builtin_middleware_with_google_parser_obeys_googles_verdicts(
    server: Server,
) -> None:
    server.route("/robots.txt", body=ROBOTS)
    paths = ["/", "/drafts/plan.html", "/tmp/x.html", "/shop/cart", "/shop/catalog/lamp"]
    urls = [server.url(path) for path in paths]
    crawler = await crawl(
        make_spider(urls=urls), _settings("scrapy_gbot_robots.GoogleRobotParser")
    )
    spider = crawler.spider
    # Google: "Disallowed" and "Disalow" are Disallow lines, the googlebot group hides "*".
    assert sorted(spider.crawled) == sorted([urls[0], urls[4]])
    forbidden = sorted(url for url, exc in spider.failed if exc == "IgnoreRequest")
    assert forbidden == sorted([urls[1], urls[2], urls[3]])
    assert server.count("/drafts/plan.html") == 0 and server.count("/tmp/x.html") == 0
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/forbidden"] == 3
    assert "robotstxt/parked" not in stats  # our middleware is not installed here


@pytest_twisted.ensureDeferred
async def test_same_crawl_with_scrapys_default_parser_differs(server: Server) -> None:
    # The contrast that makes the parser worth switching: Protego reads the typo'd and
    # prefix-matched keys differently, so it crawls what Google would not.
    server.route("/robots.txt", body=ROBOTS)
    urls = [server.url("/drafts/plan.html"), server.url("/tmp/x.html")]
    crawler = await crawl(make_spider(urls=urls), _settings(None))
    # Protego ignores the "Disallowed:" key, which Google reads as Disallow.
    assert urls[0] in crawler.spider.crawled
    assert "robotstxt/parked" not in crawler.stats.get_stats()

