"""Quiet stats by default: the stats a user reads, the machinery's only with
``GBOT_ROBOTS_DIAGNOSTIC_STATS`` (issue 48); the writer without a crawl, then a real
one-site crawl's stats dump, counted."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots import _stats as S
from scrapy_gbot_robots.crawl.stat_writer import StatWriter

RULES = b"User-agent: *\nDisallow: /private/\n"


def writer(*, diagnostic: bool) -> tuple[StatWriter, MemoryStatsCollector]:
    stats = MemoryStatsCollector(get_crawler())
    return StatWriter(stats, diagnostic=diagnostic), stats


def test_a_diagnostic_stat_is_written_only_when_asked_for_with_its_old_name() -> None:
    quiet, quiet_stats = writer(diagnostic=False)
    loud, loud_stats = writer(diagnostic=True)
    for w in (quiet, loud):
        w.inc_value(S.STORE_HIT, 3)  # diagnostic, renamed (robotstxt/cache/hit in 0.2)
        w.set_value(S.PARKED_PEAK, 7)  # diagnostic
        w.set_value(S.STORE + "lock_waits", 2)  # a persistent store's counter, diagnostic
        w.set_value(S.STORE + "outages", 1)  # a problem: always
        w.inc_value(S.PARKED)  # a user's, renamed
        w.inc_value(S.FORBIDDEN)  # a user's
    assert quiet_stats.get_stats() == {
        S.STORE + "outages": 1,
        S.PARKED: 1,
        S.OLD_NAMES[S.PARKED]: 1,
        S.FORBIDDEN: 1,
    }
    assert loud_stats.get_stats() == {
        S.STORE_HIT: 3,
        S.OLD_NAMES[S.STORE_HIT]: 3,
        S.PARKED_PEAK: 7,
        S.STORE + "lock_waits": 2,
        S.STORE + "outages": 1,
        S.PARKED: 1,
        S.OLD_NAMES[S.PARKED]: 1,
        S.FORBIDDEN: 1,
    }


def test_what_a_user_reads_is_never_diagnostic() -> None:
    read = {
        S.REQUEST_COUNT,
        S.RESPONSE_COUNT,
        S.FORBIDDEN,
        S.WOULD_FORBID,
        S.WOULD_STOP,
        S.PARKED,
        S.RELEASED,
        S.DROPPED,
        S.SERVER_ERROR,
        S.STORE_EVICTED_FAILING,  # a WARNING names it
        S.UNSERIALIZABLE,  # a WARNING names it
        *(S.ORIGIN_STATE + kind for kind in ("rules", "allow_all", "server_error")),
    }
    assert not read & S.DIAGNOSTIC
    assert set(S.documented_names()) >= S.DIAGNOSTIC  # every one a stat the docs list


def _robotstxt(stats: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in stats.items() if k.startswith(S.PREFIX)}


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_a_one_site_crawl_dumps_what_happened_and_nothing_of_the_machinery(
    server: Server,
) -> None:
    server.route("/robots.txt", body=RULES)
    urls = [server.url("/"), server.url("/a"), server.url("/private/x")]
    # The setting unset, as in a new project (the tests' base settings turn it on).
    crawler = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_DIAGNOSTIC_STATS": None})
    quiet = _robotstxt(crawler.stats.get_stats())
    assert quiet == {
        S.REQUEST_COUNT: 1,
        S.RESPONSE_COUNT: 1,
        S.RESPONSE_STATUS + "200": 1,
        S.ORIGIN_STATE + "rules": 1,
        S.FORBIDDEN: 1,
        S.PARKED: 3,
        S.RELEASED: 3,
        S.OLD_NAMES[S.PARKED]: 3,
        S.OLD_NAMES[S.RELEASED]: 3,
    }
    crawler = await crawl(make_spider(urls=urls), {"GBOT_ROBOTS_DIAGNOSTIC_STATS": True})
    loud = _robotstxt(crawler.stats.get_stats())
    assert loud.items() >= quiet.items()
    extra = set(loud) - set(quiet)
    assert {S.PARKED_PEAK, S.FETCH_BUDGET_PEAK, S.STORE_HIT, S.STORE_MISS} <= extra
    old = {S.OLD_NAMES[name] for name in S.DIAGNOSTIC & S.OLD_NAMES.keys()}
    assert extra <= S.DIAGNOSTIC | old
