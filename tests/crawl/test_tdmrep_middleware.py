"""``/.well-known/tdmrep.json`` fetched once per origin and obeyed (``crawl/tdmrep_middleware.py``),
in real crawls: only when the crawl's uses name AI training; a missing or broken file
reserves nothing (issue 49)."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl


def _spider(urls: list[str]) -> Any:
    answers: dict[str, Any] = {}

    def parse(self: Any, response: Any) -> None:
        self.crawled.append(response.url)
        answers[response.url.rsplit("/", 1)[1]] = response.meta.get("gbot_robots_usage_answer")

    return make_spider(urls=urls, parse=parse), answers


TDMREP = b"""[
  {"location": "/images/*", "tdm-reservation": 1, "tdm-policy": "https://e.com/policy.json"},
  {"location": "/", "tdm-reservation": 0}
]"""


@pytest_twisted.ensureDeferred
async def test_tdmrep_json_is_fetched_once_and_a_reservation_is_not_downloaded(
    server: Server,
) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n")
    server.route("/.well-known/tdmrep.json", body=TDMREP)
    paths = ["/images/a.jpg", "/images/b.jpg", "/page", "/other"]
    for path in paths:
        server.route(path)
    spider, answers = _spider([server.url(p) for p in paths])
    crawler = await crawl(spider, {"GBOT_ROBOTS_USAGE": ["ai-train"]})
    got = sorted(u.rsplit("/", 1)[1] for u in crawler.spider.crawled)
    assert got == ["other", "page"]
    assert server.count("/.well-known/tdmrep.json") == 1
    assert server.count("/images/a.jpg") == 0 and server.count("/images/b.jpg") == 0
    assert crawler.stats.get_value("robotstxt/tdmrep/forbidden") == 2
    assert crawler.stats.get_value("robotstxt/tdmrep/fetched") == 1
    page = answers["page"]["train-ai"]
    assert page["allowed"] is True
    assert page["sources"] == [{"allowed": True, "source": "tdmrep.json", "where": "entry 2: /"}]


@pytest.mark.parametrize(
    "route",
    [{"status": 404}, {"body": b"{not json"}, {"status": 500}],
    ids=["missing", "broken", "server-error"],
)
@pytest_twisted.ensureDeferred
async def test_a_missing_or_broken_tdmrep_json_reserves_nothing(
    server: Server, route: dict[str, Any]
) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n")
    server.route("/.well-known/tdmrep.json", **route)
    paths = ["/images/a.jpg", "/page"]
    for path in paths:
        server.route(path)
    spider, _ = _spider([server.url(p) for p in paths])
    crawler = await crawl(spider, {"GBOT_ROBOTS_USAGE": ["train-ai"]})
    assert len(crawler.spider.crawled) == 2
    assert crawler.stats.get_value("robotstxt/tdmrep/forbidden") is None


@pytest_twisted.ensureDeferred
async def test_tdmrep_json_is_not_fetched_unless_training_is_declared(server: Server) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n")
    server.route("/.well-known/tdmrep.json", body=TDMREP)
    server.route("/images/a.jpg")
    spider, _ = _spider([server.url("/images/a.jpg")])
    crawler = await crawl(spider, {"GBOT_ROBOTS_USAGE": ["search"]})
    assert len(crawler.spider.crawled) == 1
    assert server.count("/.well-known/tdmrep.json") == 0
