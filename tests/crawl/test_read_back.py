"""States read back from the persistent tier, told as a fetch would be (``crawl/read_back.py``):
once per origin, on the next turn of the event loop, and never once the crawl is closed."""

from __future__ import annotations

import logging

import pytest
import pytest_twisted
from scrapy import Spider
from scrapy.utils.test import get_crawler
from twisted.internet import reactor, task

from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.read_back import ReadBacks
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig

RULES = evaluate(FetchResult(200, b"User-agent: *\nDisallow: /x\n"), 0.0, None, PolicyConfig())


async def turn() -> None:
    await task.deferLater(reactor, 0.01, lambda: None)


def told(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The origins whose state was told as read from the store (its DEBUG line)."""
    return [
        str(r.args["origin"])  # type: ignore[call-overload, index]
        for r in caplog.records
        if "read from the store" in r.getMessage()
    ]


@pytest_twisted.ensureDeferred
async def test_each_origin_is_told_once_on_the_next_turn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="scrapy_gbot_robots")
    crawler = get_crawler(Spider)
    reads = ReadBacks(
        Telemetry(crawler, None, debug=False).fetches,
        Lifecycle(lambda: True, clock=lambda: 0.0),
        limit=10,
    )
    reads.seen("http://a.test", RULES)
    assert told(caplog) == []  # not inside the read: on the next turn
    await turn()
    assert told(caplog) == ["http://a.test"]
    reads.seen("http://a.test", RULES)  # read back again: already told
    reads.seen("http://b.test", RULES)
    await turn()
    assert told(caplog) == ["http://a.test", "http://b.test"]
    assert crawler.stats.get_value("robotstxt/origin_state/rules") is None  # not a fetch


@pytest_twisted.ensureDeferred
async def test_nothing_is_told_once_the_crawl_is_closed_and_memory_stays_bounded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="scrapy_gbot_robots")
    crawler = get_crawler(Spider)
    lifecycle = Lifecycle(lambda: True, clock=lambda: 0.0)
    reads = ReadBacks(Telemetry(crawler, None, debug=False).fetches, lifecycle, limit=2)
    for n in range(5):
        reads.seen(f"http://o{n}.test", RULES)
    assert len(reads._seen) <= 2
    lifecycle.close()
    await turn()
    assert told(caplog) == []
