"""A fleet's ``Crawl-delay``: two workers send at most one request per delay to the origin.

Two ``scrapy runspider`` workers of a ``RedisSpider`` share one real ``redis-server``
(scrapy-redis's queue, the add-on's store, lot, back-offs and ``Crawl-delay`` slots) with
``GBOT_ROBOTS_CRAWL_DELAY = True``; the site's robots.txt says ``Crawl-delay: 1``. The
server's own log of page requests (its wall clock) is the check: no two closer than the delay
(0.9 s allowed for the loopback's jitter), every page crawled, both workers asking Redis.

The close: requests waiting for the fleet's slot are parked requests, so the close's rules
apply as they are: kept with ``JOBDIR`` (or in a fleet's shared lot), else dropped (counted,
logged, signalled). One worker whose slot another holds for a long time shows both.
``scrapy fetch`` and ``scrapy shell`` schedule their request: it waits for the slot too, then
is downloaded.

Which worker sends a page is not fixed: a request released after its wait goes back to
scrapy-redis's shared queue, and the worker whose engine takes it first checks it, so a busy
worker often sends most pages; the test asks that both took part (each asked Redis).
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Route, Server
from _procs import CrawlProcess, finish, fleet_crawl, reap, spawn
from _redisserver import RedisServer, missing, running_redis
from _threadserver import serving
from test_fleet import fleet_settings

REASON = missing(scrapy_redis=True)
pytestmark = [pytest.mark.crawl, pytest.mark.skipif(REASON is not None, reason=str(REASON))]

DELAY = 1.0
PAGES = [f"/p{i}" for i in range(6)]
ROBOTS = b"User-agent: *\nCrawl-delay: 1\nAllow: /\n"

FLEET_SPIDER = """
from _subspider import Reporting
from scrapy_redis.spiders import RedisSpider


class FleetSpider(Reporting, RedisSpider):
    name = "fleet"
    redis_batch_size = 3  # 6 pages: each worker takes 3 at its first idle look
"""

ALONE_SPIDER = """
from _subspider import StartUrlsSpider


class PacedSpider(StartUrlsSpider):
    name = "paced"
"""


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        yield server


def _args(spider: Path, settings: dict[str, Any]) -> list[str]:
    args = ["runspider", str(spider)]
    for setting, value in settings.items():
        text = json.dumps(value) if isinstance(value, dict) else str(value)
        args += ["-s", f"{setting}={text}"]
    return args


def _worker(name: str, tmp: Path, redis_url: str) -> CrawlProcess:
    spider = tmp / "fleet_delay_spider.py"
    spider.write_text(FLEET_SPIDER)
    settings = {
        **fleet_settings(redis_url),
        "GBOT_ROBOTS_CRAWL_DELAY": True,
        "MAX_IDLE_TIME_BEFORE_CLOSE": 60,  # the test stops them (Ctrl-C) once all is crawled
    }
    return spawn(name, _args(spider, settings), {}, tmp)


@pytest_twisted.ensureDeferred
async def test_the_crawl_delay_holds_for_the_whole_fleet(
    rs: RedisServer, server: Server, tmp_path: Path
) -> None:
    arrivals: list[float] = []  # wall clock of each page request

    def site(request: Any) -> Route:
        arrivals.append(time.time())
        return Route(body=b"ok")

    server.route("/robots.txt", body=ROBOTS)
    server.handle("*", site)
    client = rs.client()
    workers = [_worker(f"worker{i}", tmp_path, rs.url) for i in range(2)]
    await fleet_crawl(workers, client, [server.url(p) for p in PAGES])

    logs = "\n".join(w.text()[-3000:] for w in workers)
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    assert len(arrivals) == len(PAGES), logs
    assert min(gaps) >= 0.9 * DELAY, (gaps, logs)
    crawled = sorted(url for w in workers for url in w.lines("CRAWLED"))
    assert crawled == sorted(server.url(p) for p in PAGES), logs
    stats = [w.stats() for w in workers]
    # Both took part: each asked Redis for the slot. Which one sends is the fleet's business:
    # released requests go back to the shared queue, where either worker may take them.
    asked = [
        s.get("robotstxt/crawl_delay/reserved", 0) + s.get("robotstxt/crawl_delay/refused", 0)
        for s in stats
    ]
    assert all(asked), stats
    # One reservation per page sent; the refused ones parked their request meanwhile.
    assert sum(s.get("robotstxt/crawl_delay/reserved", 0) for s in stats) == len(PAGES)
    refused = sum(s.get("robotstxt/crawl_delay/refused", 0) for s in stats)
    parked = sum(s.get("robotstxt/crawl_delay/parked", 0) for s in stats)
    assert parked >= refused > 0, stats
    assert not any(s.get("robotstxt/crawl_delay/fleet_errors") for s in stats), stats
    assert not any(s.get("robotstxt/dropped") for s in stats), stats


def _alone(tmp: Path, redis_url: str, urls: list[str], *extra: tuple[str, Any]) -> CrawlProcess:
    spider = tmp / "paced_spider.py"
    spider.write_text(ALONE_SPIDER)
    start = tmp / "start.json"
    start.write_text(json.dumps(urls))
    settings = {
        **{k: v for k, v in fleet_settings(redis_url).items() if "SCHEDULER" not in k},
        "DUPEFILTER_CLASS": "scrapy.dupefilters.RFPDupeFilter",
        "GBOT_ROBOTS_CRAWL_DELAY": True,
        "CLOSESPIDER_TIMEOUT": 3,  # the close comes while every request waits for the slot
        **dict(extra),
    }
    return spawn("alone", _args(spider, settings), {"START_URLS": str(start)}, tmp)


@pytest.mark.parametrize("jobdir", [False, True])
@pytest_twisted.ensureDeferred
async def test_requests_waiting_for_the_fleets_slot_follow_the_close_rules(
    rs: RedisServer, server: Server, tmp_path: Path, jobdir: bool
) -> None:
    server.route("/robots.txt", body=ROBOTS)
    for page in PAGES:
        server.route(page, body=b"ok")
    client = rs.client()
    origin = server.url("/").rstrip("/")
    # Another worker holds the origin's slot for a minute (the key as the script writes it).
    seconds, micros = client.time()
    client.set(f"gbot_robots:pace:{origin}", str(seconds * 1000 + micros // 1000 + 60_000))
    client.pexpire(f"gbot_robots:pace:{origin}", 60_000)
    extra = [("JOBDIR", str(tmp_path / "job"))] if jobdir else []
    worker = _alone(tmp_path, rs.url, [server.url(p) for p in PAGES], *extra)
    try:
        code = await finish(worker, 60)
    finally:
        await reap([worker])
    logs = worker.text()[-3000:]
    assert code == 0, logs
    assert all(server.count(p) == 0 for p in PAGES), logs  # nothing sent in a taken slot
    stats = worker.stats()
    assert stats.get("finish_reason") == "closespider_timeout", stats
    # Those that reached the download check went back to be parked; the others stayed
    # parked: their origin waits for the slot (robotstxt/parked counts both).
    assert stats.get("robotstxt/crawl_delay/parked", 0) >= 1, stats
    assert stats.get("robotstxt/crawl_delay/refused", 0) >= 1, stats
    assert "robotstxt/crawl_delay/reserved" not in stats, stats
    if jobdir:  # a pause: kept for the next run, none dropped, none sent to an errback
        assert stats.get("robotstxt/persisted") == len(PAGES), stats
        assert "robotstxt/dropped" not in stats and worker.lines("FAILED") == [], logs
    else:  # dropped, counted and logged (a close sends no errback: docs/scrapy-parts.md)
        assert stats.get("robotstxt/dropped") == len(PAGES), stats
        assert "spider closed (closespider_timeout)" in worker.text(), logs
        assert worker.lines("FAILED") == [], logs


class _Timed(BaseHTTPRequestHandler):
    """Serves ROBOTS and small pages; records (wall clock, path) of each request."""

    asked: list[tuple[float, str]] = []  # noqa: RUF012 - one list per test: see the test

    def do_GET(self) -> None:
        type(self).asked.append((time.time(), self.path))
        body = ROBOTS if self.path == "/robots.txt" else b"hello " + self.path.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("command", ["fetch", "shell"])
def test_scrapys_commands_wait_for_the_fleets_slot_then_download(
    rs: RedisServer, tmp_path: Path, command: str
) -> None:
    """``scrapy fetch`` and ``scrapy shell`` schedule their request: it waits (parked) for the
    slot another worker holds, then is downloaded, and the command ends by itself."""
    asked: list[tuple[float, str]] = []
    handler = type("Timed", (_Timed,), {"asked": asked})
    with serving(handler) as port:
        base = f"http://127.0.0.1:{port}"
        client = rs.client()
        seconds, micros = client.time()  # another worker holds the slot for 2 s
        client.set(f"gbot_robots:pace:{base}", str(seconds * 1000 + micros // 1000 + 2000))
        client.pexpire(f"gbot_robots:pace:{base}", 2000)
        held_until = time.time() + 2.0
        settings = {
            "ROBOTSTXT_OBEY": True,
            "ADDONS": {"scrapy_gbot_robots.Addon": 0},
            "GBOT_ROBOTS_STORE": rs.url,
            "GBOT_ROBOTS_CRAWL_DELAY": True,
            "GBOT_ROBOTS_TICK": 0.1,
            "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
            "TELNETCONSOLE_ENABLED": False,
        }
        args = [a for k, v in settings.items() for a in ("-s", f"{k}={_text(v)}")]
        if command == "fetch":
            args = ["fetch", "--nolog", *args, base + "/a"]
        else:
            args = ["shell", *args, base + "/a", "-c", "response.text if response else None"]
        done = subprocess.run(
            [sys.executable, "-m", "scrapy", *args],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            capture_output=True,
            text=True,
            timeout=90,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "hello /a" in done.stdout, (done.stdout[-2000:], done.stderr[-3000:])
    pages = [when for when, path in asked if path == "/a"]
    assert len(pages) == 1 and pages[0] >= held_until - 0.1, (pages, held_until)


def _text(value: Any) -> str:
    return json.dumps(value) if isinstance(value, dict) else str(value)
