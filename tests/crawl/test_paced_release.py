"""Decided requests go on a few per turn (``GBOT_ROBOTS_RELEASE_PER_TURN``), in real crawls.

What is checked here is what a user could lose or notice: every page still crawled once,
robots.txt still fetched once per site while sites wait their turn, and a close (Scrapy's
own close, or a ``JOBDIR`` pause) in the middle of the turns keeps or drops and counts what
had not gone yet. Why the release is paced at all is a benchmark
(``benchmarks/bench_broad.py``; ``docs/broad-crawls.md``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
import scrapy
from _httpserver import Server, crawl, make_spider
from scrapy import signals

from scrapy_gbot_robots import signals as gbot_signals
from scrapy_gbot_robots._compat import close_spider, engine_scheduler

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /private/\n"


@pytest.mark.parametrize("per_turn", [1, 0])
@pytest_twisted.ensureDeferred
async def test_every_page_goes_on_once_whatever_the_pace(server: Server, per_turn: int) -> None:
    hosts = [f"h{i}.test" for i in range(20)]
    urls = []
    for host in hosts:
        server.route("/robots.txt", host=host, delay=0.2, body=RULES)
        urls += [server.url(f"/p{n}", host) for n in range(9)] + [server.url("/private/x", host)]
    crawler = await crawl(
        make_spider(urls=urls), {"GBOT_ROBOTS_RELEASE_PER_TURN": per_turn, "LOG_LEVEL": "INFO"}
    )
    stats = crawler.stats.get_stats()
    spider = crawler.spider
    assert sorted(spider.crawled) == sorted(u for u in urls if "/private/" not in u)
    assert all(server.count(f"/p{n}", host) == 1 for host in hosts for n in range(9))
    assert server.count("/private/x") == 0
    assert all(server.count("/robots.txt", host) == 1 for host in hosts)
    assert stats["robotstxt/parked"] == stats["robotstxt/released"] > 0
    assert "robotstxt/dropped" not in stats and spider.dropped == []
    if per_turn:  # the sites decided together waited their turn
        assert stats["robotstxt/releasing_peak"] >= 2
    else:
        assert stats["robotstxt/releasing_peak"] == 0


def _sampling_spider(urls: list[str], queued: list[int], signalled: list[str]) -> type:
    """Records the scheduler's length at each page, and each ``request_parked``."""

    class Sampling(make_spider(urls=urls)):  # type: ignore[misc]
        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.on_parked, signal=gbot_signals.request_parked)
            return spider

        def on_parked(self, request: Any, spider: Any) -> None:
            signalled.append(request.url)

        def parse(self, response: Any) -> None:
            scheduler: Any = engine_scheduler(self.crawler.engine)
            queued.append(len(scheduler))
            self.crawled.append(response.url)

    return Sampling


async def _sampled_crawl(
    urls: list[str], settings: dict[str, Any]
) -> tuple[Any, list[int], list[str]]:
    """A crawl of ``urls`` by :func:`_sampling_spider`: the crawler, the scheduler's length
    at each page, and the URL of each ``request_parked``."""
    queued: list[int] = []
    signalled: list[str] = []
    crawler = await crawl(_sampling_spider(urls, queued, signalled), settings)
    return crawler, queued, signalled


@pytest.mark.parametrize("per_turn", [1, 0])
@pytest_twisted.ensureDeferred
async def test_nothing_goes_on_while_the_downloader_is_full(server: Server, per_turn: int) -> None:
    """Like Scrapy's own start requests: released only while the downloader has room, or decided
    requests would only pile up in the scheduler (whose queue may cost per site queued)."""
    server.route("/robots.txt", delay=0.2, body=RULES)  # every page parked before it answers
    for n in range(40):
        server.route(f"/p{n}", delay=0.1, body=b"<html></html>")
    urls = [server.url(f"/p{n}") for n in range(40)]
    crawler, queued, _ = await _sampled_crawl(
        urls,
        {"GBOT_ROBOTS_RELEASE_PER_TURN": per_turn, "CONCURRENT_REQUESTS": 2, "LOG_LEVEL": "INFO"},
    )
    assert sorted(crawler.spider.crawled) == sorted(urls)
    if per_turn:
        assert max(queued) <= 2, queued
    else:  # the measure can see a pile: all at once, they wait in the scheduler
        assert max(queued) >= 20, queued


@pytest_twisted.ensureDeferred
async def test_sites_waiting_their_turn_are_not_forgotten_by_a_small_store(
    server: Server,
) -> None:
    """A store of 3 states for 12 sites decided in bursts: a site waiting its turn holds its
    place (else it is forgotten before its requests go, and fetched again)."""
    hosts = [f"s{i}.test" for i in range(12)]
    urls = []
    for host in hosts:
        server.route("/robots.txt", host=host, delay=0.1, body=RULES)
        urls += [server.url(f"/p{n}", host) for n in range(10)]
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "GBOT_ROBOTS_STORE_SIZE": 3,
            "GBOT_ROBOTS_STORE_COMPACT_BYTES": 0,  # no tier to read a forgotten site back
            "LOG_LEVEL": "INFO",
        },
    )
    stats = crawler.stats.get_stats()
    assert [server.count("/robots.txt", host) for host in hosts] == [1] * len(hosts)
    assert sorted(crawler.spider.crawled) == sorted(urls)
    assert stats.get("robotstxt/bounced") is None
    assert stats["robotstxt/releasing_peak"] >= 1


def _closing_spider(urls: list[str], close_after: int | None) -> type:
    """Closes the crawl from ``request_scheduled`` once ``close_after`` parked requests have
    been released: the rest are still waiting their turn, whatever the machine's speed."""

    class Closing(make_spider(urls=urls)):  # type: ignore[misc]
        released = 0
        seen: set[str] = set()  # noqa: RUF012 (one crawl per class)

        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.on_scheduled, signal=signals.request_scheduled)
            return spider

        def on_scheduled(self, request: Any, spider: Any) -> None:
            if request.url not in self.seen:  # its first time: parked (or passed at once)
                self.seen.add(request.url)
                return
            self.released += 1  # its second: released
            if self.released == close_after:
                close_spider(self.crawler.engine, self, "enough")

    return Closing


@pytest_twisted.ensureDeferred
async def test_a_close_while_requests_wait_their_turn_drops_and_counts_them(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", delay=0.5, body=RULES)  # every page parked before it answers
    urls = [server.url(f"/p{n}") for n in range(200)]
    with caplog.at_level(logging.WARNING, logger="scrapy_gbot_robots"):
        crawler = await crawl(_closing_spider(urls, close_after=5), {"LOG_LEVEL": "INFO"})
    stats = crawler.stats.get_stats()
    spider = crawler.spider
    assert stats["finish_reason"] == "enough"
    # Scrapy < 2.13 takes start requests one per engine tick: some may not have been taken
    # (nor parked) yet when the close began.
    parked = stats["robotstxt/parked"]
    sent, dropped = stats["robotstxt/released"], stats["robotstxt/dropped"]
    assert sent + dropped == parked > 100  # each one released, or dropped and counted
    assert 5 <= sent < 20  # none went on after the close began
    assert len(spider.dropped) == dropped
    assert all(reason.startswith("spider closed") for _, reason in spider.dropped)
    # A page downloaded was released, or passed at once: a start request Scrapy took after
    # robots.txt was decided is never parked (under load, Scrapy < 2.13 and 2.13+ alike).
    passed_at_once = len(spider.seen) - parked
    assert 0 <= passed_at_once < 20
    assert sum(server.count(f"/p{n}") for n in range(200)) <= sent + passed_at_once
    # Issue 46, item 11: their site was decided; the log said "stayed undecided".
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Dropped ")]
    assert len(lines) == dropped
    assert not [line for line in lines if "undecided" in line]
    assert all("was decided, but it was still waiting its turn" in line for line in lines)


@pytest_twisted.ensureDeferred
async def test_a_jobdir_pause_while_requests_wait_their_turn_keeps_them_for_the_next_run(
    server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", delay=0.5, body=RULES)  # every page parked before it answers
    urls = [server.url(f"/p{n}") for n in range(200)]
    settings = {"JOBDIR": str(tmp_path / "job"), "LOG_LEVEL": "INFO"}
    first = await crawl(_closing_spider(urls, close_after=5), settings)
    stats1 = first.stats.get_stats()
    kept = stats1["robotstxt/persisted"]
    assert stats1["robotstxt/released"] + kept == stats1["robotstxt/parked"]
    assert kept > 100 and stats1["robotstxt/released"] < 20
    assert "robotstxt/dropped" not in stats1

    second = await crawl(_closing_spider(urls, close_after=None), settings)
    stats2 = second.stats.get_stats()
    assert stats2["robotstxt/resumed"] == kept
    assert stats2["robotstxt/released"] == kept and "robotstxt/dropped" not in stats2
    # Every page once across both runs: the kept ones in the second, the others in the first
    # or in the second (from Scrapy's own JOBDIR queue, or start requests not taken yet).
    assert [server.count(f"/p{n}") for n in range(200)] == [1] * 200
    assert server.count("/robots.txt") == 1  # the JOBDIR's store remembers the file


#: Scrapy 2.13 and later mark start requests (``is_start_request``), and take them as fast as
#: they can while the engine is full; earlier ones take one per engine tick.
MARKS_START = hasattr(scrapy.Spider, "start")


@pytest.mark.parametrize("per_turn", [1, 0])
@pytest_twisted.ensureDeferred
async def test_start_requests_taken_while_the_engine_is_full_wait_their_turn(
    server: Server, per_turn: int
) -> None:
    """Robots.txt answers at once, pages slowly, two at a time: once the downloader is full,
    Scrapy pours the rest of ``start()`` out. Decided, they would pile up in the scheduler
    (whose default queue looks at every site queued on each pop); they wait their turn."""
    server.route("/robots.txt", body=RULES)
    for n in range(40):
        server.route(f"/p{n}", delay=0.1, body=b"<html></html>")
    urls = [server.url(f"/p{n}") for n in range(40)] + [server.url("/private/x")]
    crawler, queued, signalled = await _sampled_crawl(
        urls,
        {"GBOT_ROBOTS_RELEASE_PER_TURN": per_turn, "CONCURRENT_REQUESTS": 2, "LOG_LEVEL": "INFO"},
    )
    stats = crawler.stats.get_stats()
    assert len(signalled) == stats.get("robotstxt/parked", 0)  # every parked one, signalled
    assert sorted(crawler.spider.crawled) == sorted(urls[:-1])
    assert [server.count(f"/p{n}") for n in range(40)] == [1] * 40
    assert server.count("/private/x") == 0 and server.count("/robots.txt") == 1
    assert stats.get("robotstxt/parked", 0) == stats.get("robotstxt/released", 0)
    assert "robotstxt/dropped" not in stats and crawler.spider.dropped == []
    if not MARKS_START:
        assert "robotstxt/waited_turn" not in stats
        return
    if per_turn:
        assert stats["robotstxt/waited_turn"] >= 20, stats
        assert max(queued) <= 2, queued
    else:  # the measure can see a pile: passed, they wait in the scheduler
        assert "robotstxt/waited_turn" not in stats
        assert max(queued) >= 20, queued


@pytest.mark.parametrize("cache_size", [2, 1000])
@pytest_twisted.ensureDeferred
async def test_start_requests_wait_their_turn_only_while_the_store_has_room(
    server: Server, cache_size: int
) -> None:
    """Each site waiting its turn is pinned in the store: past ``GBOT_ROBOTS_STORE_SIZE`` of
    them, a decided start request passes to the scheduler instead, so the pour of a broad
    crawl's seed list never keeps every decided site's state in memory at once."""
    hosts = [f"h{i}.test" for i in range(8)]
    for host in hosts:
        server.route("/robots.txt", host=host, body=RULES)
        for n in range(6):
            server.route(f"/p{n}", host=host, delay=0.1, body=b"<html></html>")
    # Site by site for the first page, so that every site is decided before the pour.
    urls = [server.url(f"/p{n}", host) for n in range(6) for host in hosts]
    crawler, queued, signalled = await _sampled_crawl(
        urls, {"GBOT_ROBOTS_STORE_SIZE": cache_size, "CONCURRENT_REQUESTS": 2, "LOG_LEVEL": "INFO"}
    )
    stats = crawler.stats.get_stats()
    assert sorted(crawler.spider.crawled) == sorted(urls)
    assert all(server.count(f"/p{n}", host) == 1 for host in hosts for n in range(6))
    assert all(server.count("/robots.txt", host) == 1 for host in hosts)
    assert stats.get("robotstxt/parked", 0) == stats.get("robotstxt/released", 0)
    assert len(signalled) == stats.get("robotstxt/parked", 0)  # every parked one, signalled
    assert "robotstxt/dropped" not in stats and crawler.spider.dropped == []
    # Ready sites are pinned: never more than the store holds, but for the fetches in flight.
    assert stats["robotstxt/releasing_peak"] <= cache_size + stats["robotstxt/fetch_in_flight_peak"]
    if not MARKS_START:
        return
    if cache_size > len(hosts):  # room for every site: all decided ones wait their turn
        assert stats["robotstxt/waited_turn"] >= 5 and max(queued) <= 2, (stats, queued)
    else:  # no room: the pour passes to Scrapy's scheduler, as without a paced release
        assert max(queued) >= 4, (stats, queued)
