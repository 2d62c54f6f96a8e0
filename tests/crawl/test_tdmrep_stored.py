"""``tdmrep.json`` kept by the robots.txt store across runs and workers, in real crawls: the
SQLite file (``GBOT_ROBOTS_STORE``, or ``JOBDIR``'s own), Redis shared by two crawlers; fetched
again once expired, and a failed fetch only briefly kept (issue 49).

Time: :class:`FlowingClock` (``GBOT_ROBOTS_CLOCK``) runs in real time, and a test jumps it
between crawls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider
from _redisserver import missing, running_redis
from test_sqlite_crawl import DAY, FlowingClock
from twisted.internet import defer

pytestmark = pytest.mark.crawl

TDMREP = (
    b'[{"location": "/images/*", "tdm-reservation": 1}, {"location": "/", "tdm-reservation": 0}]'
)
FILE = "/.well-known/tdmrep.json"
USAGE = {"GBOT_ROBOTS_USAGE": ["train-ai"]}


def _site(server: Server, file: dict[str, Any] | None = None) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nAllow: /\n")
    server.route(FILE, **(file if file is not None else {"body": TDMREP}))


async def _run(server: Server, paths: list[str], settings: dict[str, Any]) -> Any:
    for path in paths:
        server.route(path)
    crawler = await crawl(make_spider(urls=[server.url(p) for p in paths]), {**USAGE, **settings})
    assert len(crawler.spider.crawled) + len(crawler.spider.failed) == len(paths)
    return crawler


def _forbidden(crawler: Any) -> int:
    return int(crawler.stats.get_value("robotstxt/tdmrep/forbidden", 0))


@pytest_twisted.ensureDeferred
async def test_sqlite_a_second_run_reads_the_file_until_it_expires(
    server: Server, tmp_path: Path
) -> None:
    _site(server)
    clock = FlowingClock()
    settings = {"GBOT_ROBOTS_STORE": f"sqlite://{tmp_path}/robots.db", "GBOT_ROBOTS_CLOCK": clock}
    first = await _run(server, ["/images/a.jpg", "/page"], settings)
    assert server.count(FILE) == 1 and _forbidden(first) == 1
    # A restart: a new crawler on the same file obeys the stored reservation, no fetch.
    second = await _run(server, ["/images/b.jpg", "/other"], settings)
    assert server.count(FILE) == 1
    assert _forbidden(second) == 1 and server.count("/images/b.jpg") == 0
    assert second.stats.get_value("robotstxt/tdmrep/fetched") is None
    assert second.stats.get_value("robotstxt/tdmrep/read_back") == 1
    # A day later (GBOT_ROBOTS_TTL): expired, fetched again, and the new file obeyed.
    clock.advance(DAY + 1)
    server.route(FILE, body=b'[{"location": "/", "tdm-reservation": 0}]')
    third = await _run(server, ["/images/c.jpg"], settings)
    assert server.count(FILE) == 2
    assert _forbidden(third) == 0 and server.count("/images/c.jpg") == 1


@pytest_twisted.ensureDeferred
async def test_max_age_is_the_files_lifetime(server: Server, tmp_path: Path) -> None:
    _site(server, {"body": TDMREP, "headers": {"Cache-Control": "max-age=600"}})
    clock = FlowingClock()
    settings = {"GBOT_ROBOTS_STORE": f"sqlite://{tmp_path}/robots.db", "GBOT_ROBOTS_CLOCK": clock}
    await _run(server, ["/page"], settings)
    await _run(server, ["/other"], settings)
    assert server.count(FILE) == 1
    clock.advance(601)  # robots.txt still fresh (24 h): only the file is fetched again
    await _run(server, ["/third"], settings)
    assert server.count(FILE) == 2 and server.count("/robots.txt") == 1


@pytest_twisted.ensureDeferred
async def test_a_failed_fetch_reserves_nothing_and_is_fetched_again_soon(
    server: Server, tmp_path: Path
) -> None:
    _site(server, {"status": 503})
    clock = FlowingClock()
    settings = {"GBOT_ROBOTS_STORE": f"sqlite://{tmp_path}/robots.db", "GBOT_ROBOTS_CLOCK": clock}
    first = await _run(server, ["/images/a.jpg"], settings)
    assert _forbidden(first) == 0 and server.count("/images/a.jpg") == 1
    server.route(FILE, body=TDMREP)  # the server is back
    await _run(server, ["/page"], settings)  # within GBOT_ROBOTS_RETRY_BACKOFF (60 s)
    assert server.count(FILE) == 1  # the failure was kept, briefly
    clock.advance(61)  # not longer
    second = await _run(server, ["/images/b.jpg"], settings)
    assert server.count(FILE) == 2
    assert _forbidden(second) == 1 and server.count("/images/b.jpg") == 0


@pytest_twisted.ensureDeferred
async def test_a_jobdir_run_keeps_the_file_for_the_next_run(server: Server, tmp_path: Path) -> None:
    _site(server)
    settings = {"JOBDIR": str(tmp_path / "job")}
    first = await _run(server, ["/images/a.jpg", "/page"], settings)
    assert _forbidden(first) == 1
    second = await _run(server, ["/images/b.jpg", "/other"], settings)  # the same JOBDIR
    assert server.count(FILE) == 1
    assert _forbidden(second) == 1 and server.count("/images/b.jpg") == 0
    assert (tmp_path / "job" / "gbot_robots" / "robots.sqlite3").exists()


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
@pytest_twisted.ensureDeferred
async def test_redis_a_second_crawler_reads_the_file_the_first_fetched(
    server: Server, tmp_path: Path
) -> None:
    _site(server)
    with running_redis(tmp_path / "redis") as rs:
        settings = {"GBOT_ROBOTS_STORE": rs.url}
        first = await _run(server, ["/images/a.jpg", "/page"], settings)
        assert _forbidden(first) == 1
        key = f"gbot_robots:origin:{server.origin()}{FILE}"
        assert rs.client().exists(key) and rs.client().exists(
            f"gbot_robots:origin:{server.origin()}"
        )
        second = await _run(server, ["/images/b.jpg", "/other"], settings)
        assert server.count(FILE) == 1 and server.count("/robots.txt") == 1
        assert _forbidden(second) == 1 and server.count("/images/b.jpg") == 0


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
@pytest_twisted.ensureDeferred
async def test_redis_two_crawlers_at_once_fetch_the_file_once(
    server: Server, tmp_path: Path
) -> None:
    """The fleet's fetch lock: the second waits for the first's fetch and reads its answer."""
    _site(server, {"body": TDMREP, "delay": 1.0})
    paths = [["/images/a.jpg", "/page"], ["/images/b.jpg", "/other"]]
    with running_redis(tmp_path / "redis") as rs:
        settings = {"GBOT_ROBOTS_STORE": rs.url}
        both = await defer.gatherResults(
            [defer.ensureDeferred(_run(server, p, settings)) for p in paths]
        )
    assert server.count(FILE) == 1
    assert [_forbidden(c) for c in both] == [1, 1]
    assert sorted(int(c.stats.get_value("robotstxt/tdmrep/read_back", 0)) for c in both) == [0, 1]
