"""One usage answer per response, and what refuses the crawl's uses withheld (issue 49).

A local site states its preferences in every way: robots.txt rules, ``Content-Signal``,
``Content-Usage`` in robots.txt and as a header, TDMRep's header and meta, RSL's
``License:``. Crawled with and without ``GBOT_ROBOTS_USAGE``.
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

from scrapy_gbot_robots import signals

pytestmark = pytest.mark.crawl

ROBOTS = b"""\
License: https://example.com/license.xml
User-agent: *
Disallow: /private
Content-Signal: ai-train=yes
Content-Usage: /robots-no train-ai=n
Content-Usage: /searchless search=n
"""
HTML = "<html><head>{}</head><body>page</body></html>"
PAGES: dict[str, dict[str, Any]] = {
    "/plain": {},
    "/header-no": {"headers": {"Content-Usage": "train-ai=n"}},
    "/header-search-no": {"headers": {"Content-Usage": "search=n, train-ai=y"}},
    "/tdm-header": {"headers": {"tdm-reservation": "1", "tdm-policy": "https://e.com/p"}},
    "/tdm-meta": {
        "headers": {"Content-Type": "text/html"},
        "body": HTML.format('<meta name="tdm-reservation" content="1">').encode(),
    },
    # The meta overrides the header (TDMRep's precedence): 0 is "not reserved".
    "/tdm-meta-zero": {
        "headers": {"Content-Type": "text/html", "tdm-reservation": "1"},
        "body": HTML.format('<meta name="tdm-reservation" content="0">').encode(),
    },
    "/searchless": {},
    "/robots-no": {},
    "/private": {},
}


def _site(server: Server) -> list[str]:
    server.route("/robots.txt", body=ROBOTS)
    for path, route in PAGES.items():
        server.route(path, **route)
    return [server.url(path) for path in PAGES]


def _spider(urls: list[str]) -> Any:
    answers: dict[str, Any] = {}

    def parse(self: Any, response: Any) -> None:
        self.crawled.append(response.url)
        answers[response.url.rsplit("/", 1)[1]] = response.meta.get("gbot_robots_usage_answer")

    return make_spider(urls=urls, parse=parse), answers


@pytest_twisted.ensureDeferred
async def test_without_the_setting_nothing_changes(server: Server) -> None:
    urls = _site(server)
    spider, answers = _spider(urls)
    crawler = await crawl(spider)
    got = sorted(u.rsplit("/", 1)[1] for u in crawler.spider.crawled)
    assert got == sorted(p.strip("/") for p in PAGES if p != "/private")
    assert set(answers.values()) == {None}  # the middleware is not even built
    assert crawler.stats.get_value("robotstxt/usage/withheld") is None
    assert len(urls) == len(PAGES)


@pytest_twisted.ensureDeferred
async def test_what_refuses_training_is_withheld_and_nothing_else(server: Server) -> None:
    spider, answers = _spider(_site(server))
    withheld: list[tuple[str, str, str]] = []

    class Watching(spider):  # type: ignore[misc, valid-type]
        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            made = super().from_crawler(crawler, *args, **kwargs)

            def seen(request: Any, response: Any, category: str, source: str, **_: Any) -> None:
                withheld.append((request.url.rsplit("/", 1)[1], category, source))

            made._seen = seen  # held: Scrapy keeps receivers weakly
            crawler.signals.connect(seen, signal=signals.response_withheld)
            return made

    crawler = await crawl(Watching, {"GBOT_ROBOTS_USAGE": ["ai-train"]})
    got = sorted(u.rsplit("/", 1)[1] for u in crawler.spider.crawled)
    # robots.txt forbade /robots-no before its download; the header and the meta refused three.
    assert got == ["header-search-no", "plain", "searchless", "tdm-meta-zero"]
    assert sorted(withheld) == [
        ("header-no", "train-ai", "header"),
        ("tdm-header", "train-ai", "tdm-header"),
        ("tdm-meta", "train-ai", "meta"),
    ]
    assert crawler.stats.get_value("robotstxt/usage/withheld") == 3
    assert crawler.stats.get_value("robotstxt/forbidden_by_usage") == 1
    assert server.count("/robots-no") == 0
    failed = {url.rsplit("/", 1)[1]: kind for url, kind in crawler.spider.failed}
    assert failed["header-no"] == "UsageWithheld" and failed["robots-no"] == "IgnoreRequest"
    # Each page's answer, per category, with its sources.
    plain = answers["plain"]
    assert plain["train-ai"]["allowed"] is True
    assert plain["train-ai"]["sources"] == [
        {"allowed": True, "source": "robots.txt", "where": "line 4: Content-Signal: ai-train=yes"}
    ]
    assert plain["search"] == {"allowed": None, "sources": []}
    assert answers["searchless"]["search"]["allowed"] is False  # robots.txt's /searchless line
    both = answers["header-search-no"]
    assert (both["train-ai"]["allowed"], both["search"]["allowed"]) == (True, False)
    zero = answers["tdm-meta-zero"]["train-ai"]
    assert zero["allowed"] is True and zero["sources"][-1]["source"] == "meta"

