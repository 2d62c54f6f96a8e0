"""A fleet's back-off: after one worker receives ``503`` with ``Retry-After: 5``, neither
worker sends a request to that origin for 5 s.

Two ``scrapy runspider`` workers of a ``RedisSpider`` share one real ``redis-server``
(scrapy-redis's queue, the add-on's store, lot and back-offs). The site answers its first page
request ``503`` + ``Retry-After: 5`` and every other one ``200`` after 0.3 s (so each
worker's download slots stay busy and some of its requests wait in them).

Why the check is exact: each worker's HTTP download handler is wrapped to print when each
request is handed to it (``HANDED``: sent, from the crawler's side) and a listener prints when
the ``503`` reached the worker that got it (``DISTRESS``), both on the wall clock of this one
machine, which the server's own log uses too. A request handed over before the ``503``
reached its worker was sent before the answer arrived, whichever worker sent it, and may
reach the server later (its connection was opening): allowed. Every request handed over
after it, by either worker, that reaches the server within 5 s breaks the rule.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Route, Server
from _procs import CrawlProcess, fleet_crawl, spawn
from _redisserver import RedisServer, missing, running_redis
from test_fleet import fleet_settings

REASON = missing(scrapy_redis=True)
pytestmark = [pytest.mark.crawl, pytest.mark.skipif(REASON is not None, reason=str(REASON))]

WAIT = 5.0
PAGES = [f"/p{i}" for i in range(30)]

SPIDER = """
import inspect
import time

from _subspider import Reporting
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy_redis.spiders import RedisSpider


def said(marker, url):
    print(f"{marker} {time.time():.6f} {url}", flush=True)


class Handler(HTTP11DownloadHandler):
    if inspect.iscoroutinefunction(HTTP11DownloadHandler.download_request):

        async def download_request(self, request):
            said("HANDED", request.url)
            return await super().download_request(request)

    else:

        def download_request(self, request, *args, **kwargs):
            said("HANDED", request.url)
            return super().download_request(request, *args, **kwargs)


class FleetSpider(Reporting, RedisSpider):
    name = "fleet"
    redis_batch_size = 2
    custom_settings = {**Reporting.custom_settings, "DOWNLOAD_HANDLERS": {"http": Handler}}

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.downloaded, signal=signals.response_downloaded)
        return spider

    def downloaded(self, response, request, spider):
        if response.status == 503:
            said("DISTRESS", response.url)
"""


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        yield server


def _worker(name: str, tmp: Path, redis_url: str) -> CrawlProcess:
    (tmp / "fleet_backoff_spider.py").write_text(SPIDER)
    settings = {
        **fleet_settings(redis_url),
        "RETRY_ENABLED": True,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        "MAX_IDLE_TIME_BEFORE_CLOSE": 60,  # the test stops them (Ctrl-C) once all is crawled
    }
    args = ["runspider", str(tmp / "fleet_backoff_spider.py")]
    for setting, value in settings.items():
        text = json.dumps(value) if isinstance(value, dict) else str(value)
        args += ["-s", f"{setting}={text}"]
    return spawn(name, args, {}, tmp)


def _sent(workers: list[CrawlProcess], marker: str) -> list[tuple[float, str]]:
    found = []
    for worker in workers:
        for line in worker.lines(marker):
            when, url = line.split(" ", 1)
            found.append((float(when), url))
    return sorted(found)


@pytest_twisted.ensureDeferred
async def test_one_workers_back_off_holds_for_the_whole_fleet(
    rs: RedisServer, server: Server, tmp_path: Path
) -> None:
    arrivals: list[tuple[float, str]] = []  # (wall clock, path) of each page request

    def site(request: Any) -> Route:
        path = request.path.decode()
        arrivals.append((time.time(), path))
        if len(arrivals) == 1:
            return Route(status=503, body=b"busy", headers={"Retry-After": "5"})
        return Route(delay=0.3)

    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n")
    server.handle("*", site)
    client = rs.client()
    workers = [_worker(f"worker{i}", tmp_path, rs.url) for i in range(2)]
    await fleet_crawl(workers, client, [server.url(p) for p in PAGES])

    logs = "\n".join(w.text()[-3000:] for w in workers)
    distress = _sent(workers, "DISTRESS")
    assert len(distress) == 1, logs
    received = distress[0][0]
    handed: dict[str, list[float]] = defaultdict(list)
    for when, url in _sent(workers, "HANDED"):
        if not url.endswith("/robots.txt"):
            handed[url.split(str(server.port), 1)[1]].append(when)
    seen: dict[str, int] = defaultdict(int)
    breaches = []
    for arrived, path in arrivals:
        sent = handed[path][seen[path]]
        seen[path] += 1
        if sent > received and arrived < received + WAIT:
            breaches.append(
                f"{path} sent {sent - received:+.3f} s, arrived {arrived - received:+.3f} s"
            )
    assert breaches == [], logs
    # The back-off was kept by both, and the pages were crawled in the end, once each.
    assert any(arrived >= received + WAIT for arrived, _ in arrivals)
    crawled = sorted(url for w in workers for url in w.lines("CRAWLED"))
    assert crawled == sorted(server.url(p) for p in PAGES), logs
    told = [line for w in workers for line in w.lines("Backing off")]
    assert any("it answered 503 (Retry-After)" in line for line in told), told
    assert any("another worker of the fleet" in line for line in told), told
    stats = [w.stats() for w in workers]
    assert sum(s.get("robotstxt/backoff/shared", 0) for s in stats) == 1
    assert sum(s.get("robotstxt/backoff/heard", 0) for s in stats) == 1
    # Both took requests of the origin from the fleet's queue (an idle worker looks at it
    # every 5 s, Scrapy's heartbeat): the one that only heard of the back-off kept it too.
    assert all(s.get("scheduler/dequeued/redis", 0) for s in stats), stats
