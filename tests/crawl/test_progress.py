"""The progress line (issue 25, item 6): one INFO line every LOGSTATS_INTERVAL while the plugin
has work, in the shape of Scrapy's own LogStats line; nothing once every site is decided."""

from __future__ import annotations

import logging
import re

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private/\n"


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("robots.txt: ")]


@pytest_twisted.ensureDeferred
async def test_a_slow_robots_txt_gets_progress_lines_while_requests_wait(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    server.route("/robots.txt", host="slow.test", body=RULES, delay=2.0)
    server.route("/robots.txt", host="quick.test", body=RULES)
    urls = [server.url(p, "slow.test") for p in ("/a", "/b", "/private/c")]
    urls += [server.url("/a", "quick.test")]
    await crawl(make_spider(urls=urls), {"LOGSTATS_INTERVAL": 0.5})
    lines = _lines(caplog)
    assert lines, "no progress line while slow.test's robots.txt was being fetched"
    first = lines[0]
    assert "1 decided (1 rules, 0 no restrictions, 0 server error)" in first, first
    # Why they wait, and until when (issue 48): slow.test's robots.txt is being fetched.
    assert re.search(
        r"3 requests parked \(3 for robots\.txt being fetched; the first dropped in "
        r"(9 min 5\d s|10 min) unless decided: GBOT_ROBOTS_PARK_TIMEOUT = 10 min\), "
        r"1 fetch in flight \(\+0 slow, 0 waiting\)",
        first,
    ), first
    assert first.endswith("0 dropped, 0 forbidden"), first
    assert len(lines) <= 6  # about 2 s of waiting, at 0.5 s: no flood after it ends


@pytest_twisted.ensureDeferred
async def test_no_progress_line_when_off_or_when_there_is_no_work(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    server.route("/robots.txt", body=RULES, delay=1.5)
    await crawl(make_spider(urls=[server.url("/a")]), {"LOGSTATS_INTERVAL": 0})
    assert _lines(caplog) == []
    server.route("/robots.txt", body=RULES)
    server.route("/a", delay=1.5)  # slow pages, but nothing waits for robots.txt
    await crawl(make_spider(urls=[server.url("/a")]), {"LOGSTATS_INTERVAL": 0.3})
    assert _lines(caplog) == []


@pytest_twisted.ensureDeferred
async def test_a_failing_robots_txt_says_when_its_requests_are_retried_and_dropped(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 48: against a robots.txt answering 503, a crawl logged "2 requests parked" for
    ten minutes and nothing said when they would be retried or dropped. Now each line says
    both, and the requests are dropped when the line said they would be."""
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    server.route("/robots.txt", status=503, body=b"busy")
    urls = [server.url("/a"), server.url("/b")]
    settings = {
        "LOGSTATS_INTERVAL": 0.5,
        "GBOT_ROBOTS_PARK_TIMEOUT": 3,
        "GBOT_ROBOTS_TICK": 0.05,
        "GBOT_ROBOTS_RETRY_BACKOFF": 60,  # the retry comes after the deadline
    }
    crawler = await crawl(make_spider(urls=urls), settings)
    said = re.compile(
        r"2 requests parked \(2 for a retry after server errors, the next in (\d+) s; "
        r"the first dropped in (\d) s unless decided: GBOT_ROBOTS_PARK_TIMEOUT = 3 s\), "
        r"0 fetches in flight"
    )
    lines = [
        (r.created, found)
        for r in caplog.records
        if (found := said.search(r.getMessage())) is not None
    ]
    assert lines, _lines(caplog)
    drops = [r.created for r in caplog.records if r.getMessage().startswith("Dropped <GET")]
    assert len(drops) == 2 and crawler.spider.crawled == []
    assert crawler.stats.get_value("robotstxt/dropped") == 2
    for logged_at, found in lines:
        retry_in, drop_in = int(found[1]), int(found[2])
        assert 55 <= retry_in <= 60
        # Dropped when the line said: its seconds are rounded up, and a tick (0.05 s) comes
        # late on a loaded machine.
        assert drop_in - 1.5 <= min(drops) - logged_at <= drop_in + 1.5, (drop_in, drops)
