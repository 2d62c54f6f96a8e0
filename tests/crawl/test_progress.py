"""The progress line (issue 25, item 6): one INFO line every LOGSTATS_INTERVAL while the plugin
has work, in the shape of Scrapy's own LogStats line; nothing once every site is decided."""

from __future__ import annotations

import logging

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
    assert "3 requests parked, 1 fetches in flight (+0 slow, 0 waiting)" in first, first
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
