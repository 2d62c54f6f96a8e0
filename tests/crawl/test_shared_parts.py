"""What both of our components share (``crawl/shared_parts.py``): built by the first that
asks, found by the second through the crawler's own signals, for as long as it is held."""

from __future__ import annotations

import gc
import logging

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots.crawl.shared_parts import shared


def test_the_second_asker_gets_the_first_ones_parts_while_they_are_held() -> None:
    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": True, "USER_AGENT": "MyBot/1.0"})
    first = shared(crawler)
    assert shared(crawler) is first and first.token == "MyBot"
    assert shared(get_crawler(Spider, {"ROBOTSTXT_OBEY": True})) is not first  # per crawler
    telemetry = first.telemetry
    del first
    gc.collect()  # nobody holds them: the answer went with them, no registry kept them
    again = shared(crawler)
    assert again.telemetry is not telemetry


def test_not_obeying_robots_txt_builds_nothing_and_is_said_once_per_crawler(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    off = get_crawler(Spider, {"ROBOTSTXT_OBEY": False})
    for _ in range(2):  # both components ask: the second hears the first's answer
        with pytest.raises(NotConfigured):
            shared(off)
    said = [r for r in caplog.records if "ROBOTSTXT_OBEY is False" in r.getMessage()]
    assert len(said) == 1
    on = get_crawler(Spider, {"ROBOTSTXT_OBEY": True})  # another crawler is not told "off"
    assert shared(on).config.obey
