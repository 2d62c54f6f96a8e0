"""The close of the two issue-49 middlewares, in real crawls (issue 49's close).

A request waiting for its origin's ``tdmrep.json`` when the crawl closes (CloseSpider from
another site's callback, Ctrl-C) is never downloaded on a file the close left unread: it is
dropped, counted, logged and handed to its errback; with JOBDIR it is kept, and the resumed
run decides it once. A file that answers during the close is obeyed. A withheld response
reaches its errback at a CloseSpider close too.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider, stop_as_ctrl_c
from scrapy.exceptions import CloseSpider, IgnoreRequest

pytestmark = pytest.mark.crawl

ALLOW = b"User-agent: *\nAllow: /\n"
#: slow.test's pages, which wait for its tdmrep.json.
PATHS = ["/images/a.jpg", "/page"]


def _two_sites(server: Server) -> tuple[list[str], str]:
    """slow.test's two pages (they wait for its tdmrep.json, routed by the test) and
    quick.test's ``/go``, which answers in 0.5 s, while they wait."""
    for host in ("slow.test", "quick.test"):
        server.route("/robots.txt", host=host, body=ALLOW)
    server.route("/go", host="quick.test", delay=0.5)
    for path in PATHS:
        server.route(path, host="slow.test")
    return [server.url(path, "slow.test") for path in PATHS], server.url("/go", "quick.test")


@pytest.mark.parametrize("close", ["closespider", "ctrl-c"])
@pytest_twisted.ensureDeferred
async def test_requests_waiting_for_an_unread_tdmrep_json_at_the_close_are_dropped(
    server: Server, caplog: pytest.LogCaptureFixture, close: str
) -> None:
    server.route("/.well-known/tdmrep.json", host="slow.test", hang=True)
    waiting, go = _two_sites(server)
    seen: list[str] = []

    class Closing(make_spider(urls=[*waiting, go])):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            seen.append(str(server.count("/.well-known/tdmrep.json", "slow.test")))
            if close == "closespider":
                raise CloseSpider("enough")
            stop_as_ctrl_c(self.crawler)

    caplog.set_level(logging.DEBUG)
    settings = {"GBOT_ROBOTS_USAGE": ["ai-train"], "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 2}
    crawler = await crawl(Closing, settings)
    spider = crawler.spider
    stats = crawler.stats.get_stats()
    assert spider.crawled == [go]
    assert seen == ["1"]  # the file was being fetched when the close began
    assert stats["finish_reason"] == ("enough" if close == "closespider" else "shutdown")
    # Never downloaded: the close left the file unread, and that is no "no reservation".
    assert [server.count(path, "slow.test") for path in PATHS] == [0, 0]
    # Each dropped once: the stat, one WARNING, the signal, its errback with IgnoreRequest.
    assert stats["robotstxt/dropped"] == 2
    assert sorted(url for url, _ in spider.dropped) == sorted(waiting)
    assert all("tdmrep.json" in reason for _, reason in spider.dropped)
    assert sorted(spider.failed) == sorted((url, IgnoreRequest.__name__) for url in waiting)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for url in waiting:
        assert sum(url in w and "Dropped" in w and "tdmrep.json" in w for w in warnings) == 1
    assert "robotstxt/tdmrep/forbidden" not in stats
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


TDMREP = b"""[
  {"location": "/images/*", "tdm-reservation": 1},
  {"location": "/", "tdm-reservation": 0}
]"""


@pytest_twisted.ensureDeferred
async def test_a_tdmrep_json_that_answers_during_the_close_is_obeyed(server: Server) -> None:
    server.route("/.well-known/tdmrep.json", host="slow.test", delay=1.0, body=TDMREP)
    waiting, go = _two_sites(server)
    in_flight: list[int] = []

    class Closing(make_spider(urls=[*waiting, go])):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            if response.url == go:
                in_flight.append(server.inflight["/.well-known/tdmrep.json"])
                raise CloseSpider("enough")

    crawler = await crawl(Closing, {"GBOT_ROBOTS_USAGE": ["ai-train"]})
    stats = crawler.stats.get_stats()
    assert in_flight == [1]  # the file was on its way when the close began
    # Its answer is one: the reserved URL is forbidden, the other downloaded as usual.
    assert server.count("/images/a.jpg", "slow.test") == 0
    assert server.count("/page", "slow.test") == 1
    assert stats["robotstxt/tdmrep/forbidden"] == 1
    assert crawler.spider.failed == [(waiting[0], IgnoreRequest.__name__)]
    assert "robotstxt/dropped" not in stats


@pytest_twisted.ensureDeferred
async def test_a_jobdir_pause_keeps_them_and_the_resumed_run_decides_each_once(
    server: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", host="slow.test", body=ALLOW)
    server.route("/.well-known/tdmrep.json", host="slow.test", hang=True)
    server.route("/robots.txt", host="quick.test", body=ALLOW)
    server.route("/go", host="quick.test", delay=0.5)
    paths = ["/images/a.jpg", "/page"]
    for path in paths:
        server.route(path, host="slow.test")
    waiting = [server.url(path, "slow.test") for path in PATHS]
    go = server.url("/go", "quick.test")

    class Pausing(make_spider(urls=[*waiting, go])):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            if response.url == go:
                stop_as_ctrl_c(self.crawler)  # the pause, while slow.test's wait

    caplog.set_level(logging.INFO)
    settings = {
        "GBOT_ROBOTS_USAGE": ["ai-train"],
        "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 2,
        "JOBDIR": str(tmp_path / "job"),
    }
    first = await crawl(Pausing, settings)
    stats = first.stats.get_stats()
    assert first.spider.crawled == [go]
    assert stats["finish_reason"] == "shutdown"
    assert [server.count(path, "slow.test") for path in PATHS] == [0, 0]
    assert "robotstxt/dropped" not in stats and first.spider.failed == []
    assert stats["robotstxt/persisted"] == 2  # back in the scheduler's disk queue
    kept = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Kept <GET")]
    assert len(kept) == 2 and all(any(url in line for line in kept) for url in waiting)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []

    # The resumed run fetches the file again (it answers now) and obeys it, each URL once.
    server.route("/.well-known/tdmrep.json", host="slow.test", body=TDMREP)
    second = await crawl(Pausing, settings)
    again = second.stats.get_stats()
    assert second.spider.crawled == [waiting[1]]
    assert server.count("/page", "slow.test") == 1
    assert server.count("/images/a.jpg", "slow.test") == 0
    assert again["robotstxt/tdmrep/forbidden"] == 1
    # The fetch the pause cut was not stored (JOBDIR's SQLite store): fetched again, not read.
    assert again["robotstxt/tdmrep/fetched"] == 1 and "robotstxt/tdmrep/read_back" not in again
    assert server.count("/.well-known/tdmrep.json", "slow.test") == 2
    assert server.count("/go", "quick.test") == 1  # the first run's page is not crawled again
    assert "robotstxt/dropped" not in again
    assert again["finish_reason"] == "finished"


@pytest_twisted.ensureDeferred
async def test_a_response_withheld_during_a_closespider_close_reaches_its_errback(
    server: Server,
) -> None:
    server.route("/robots.txt", host="late.test", body=ALLOW)
    server.route("/refusing", host="late.test", delay=0.5, headers={"Content-Usage": "train-ai=n"})
    server.route("/robots.txt", host="quick.test", body=ALLOW)
    server.route("/go", host="quick.test")
    refusing, go = server.url("/refusing", "late.test"), server.url("/go", "quick.test")
    in_flight: list[int] = []

    class Closing(make_spider(urls=[refusing, go])):  # type: ignore[misc]
        def parse(self, response: Any) -> Any:
            self.crawled.append(response.url)
            in_flight.append(server.inflight["/refusing"])
            raise CloseSpider("enough")

    crawler = await crawl(Closing, {"GBOT_ROBOTS_USAGE": ["ai-train"]})
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == "enough"
    assert in_flight == [1]  # the refusing page was on its way when the close began
    assert crawler.spider.crawled == [go]  # its callback never got it
    assert server.count("/refusing", "late.test") == 1
    assert crawler.spider.failed == [(refusing, "UsageWithheld")]
    assert stats["robotstxt/usage/withheld"] == 1
