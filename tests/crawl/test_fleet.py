"""A scrapy-redis fleet: requests parked in Redis survive the death of the worker that parked
them, and the others crawl them exactly once when robots.txt answers.

Three ``scrapy runspider`` workers of a ``RedisSpider`` share one real ``redis-server``:
scrapy-redis's scheduler, dupefilter and start URLs, and the add-on's robots.txt store
(``GBOT_ROBOTS_CACHE``) and parking lot (``RedisLot``, chosen because the scheduler is
scrapy-redis's). One origin's robots.txt hangs; the worker that holds its fetch lock is
killed with SIGKILL while every request of that origin waits in Redis; then robots.txt
answers. A second crawl checks the case where only the dead worker knew the origin.

Then the lot alone, against the same real server: one FIFO per origin that any worker can
take over, the index kept in step, unserialisable items kept in memory, and a Redis outage
answered from memory without losing an item.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import Route, Server
from _procs import CrawlProcess, finish, reap, spawn, until
from _redisserver import RedisServer, missing, running_redis

REASON = missing(scrapy_redis=True)
pytestmark = [pytest.mark.crawl, pytest.mark.skipif(REASON is not None, reason=str(REASON))]

RULES = b"User-agent: *\nDisallow: /private/\n"
KEY = "fleet:gbot_robots"

#: The worker: scrapy-redis's RedisSpider, 2 start URLs per pull so the fleet shares them.
#: ``LOCK_TTL`` shortens the fetch lock (``GBOT_ROBOTS_LOCK_TTL``): how long a dead worker
#: blocks the others.
SPIDER = """
from _subspider import Reporting
from scrapy_redis.spiders import RedisSpider


class FleetSpider(Reporting, RedisSpider):
    name = "fleet"
    redis_batch_size = 2
"""


def fleet_settings(redis_url: str) -> dict[str, Any]:
    """What a scrapy-redis fleet with the add-on needs (documented in the final report)."""
    return {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,  # a worker that closes must not clear the fleet's queue
        "REDIS_URL": redis_url,
        "MAX_IDLE_TIME_BEFORE_CLOSE": 3,  # scrapy-redis: close after 3 s with nothing to do
        "ROBOTSTXT_OBEY": True,
        "ADDONS": {"scrapy_gbot_robots.Addon": 0},
        "GBOT_ROBOTS_CACHE": redis_url,
        # The Redis store runs on the asyncio reactor (Scrapy's default only since 2.13).
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "GBOT_ROBOTS_TICK": 0.1,
        "GBOT_ROBOTS_RETRY_TIMES": 0,
        "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 20,
        "RETRY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "CONCURRENT_REQUESTS": 8,
        "LOG_LEVEL": "INFO",
        "CLOSESPIDER_TIMEOUT": 60,  # safety net only
    }


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        yield server


def _worker(name: str, tmp: Path, redis_url: str, **overrides: Any) -> CrawlProcess:
    (tmp / "fleet_spider.py").write_text(SPIDER)
    args = ["runspider", str(tmp / "fleet_spider.py")]
    for setting, value in {**fleet_settings(redis_url), **overrides}.items():
        text = json.dumps(value) if isinstance(value, dict) else str(value)
        args += ["-s", f"{setting}={text}"]
    return spawn(name, args, {"LOCK_TTL": "3"}, tmp)


@pytest_twisted.ensureDeferred
async def test_killed_worker_parked_requests_are_crawled_once_by_the_others(
    rs: RedisServer, server: Server, server2: Server, tmp_path: Path
) -> None:
    slow, fast = server, server2
    answer = {"now": False}

    def slow_robots(request: Any) -> Route:
        return Route(body=RULES) if answer["now"] else Route(hang=True)

    slow.handle("/robots.txt", slow_robots)
    fast.route("/robots.txt", body=RULES)
    slow_allowed = [slow.url(f"/s{i}") for i in range(6)]
    slow_forbidden = [slow.url("/private/s6"), slow.url("/private/s7")]
    fast_allowed = [fast.url(f"/f{i}") for i in range(5)]
    fast_forbidden = [fast.url("/private/f5")]
    slow_urls = slow_allowed + slow_forbidden
    fast_urls = fast_allowed + fast_forbidden
    start = [u for pair in zip(slow_urls[:6], fast_urls, strict=True) for u in pair]
    start += slow_urls[6:]
    client = rs.client()
    client.rpush("fleet:start_urls", *[json.dumps({"url": u}) for u in start])
    parked = f"{KEY}:parked:{slow.origin()}"
    lock = f"gbot_robots:lock:{slow.origin()}"

    workers = [_worker(f"worker{i}", tmp_path, rs.url) for i in range(3)]
    try:
        # Everything of the slow origin waits in Redis, the rest is crawled.
        await until(
            lambda: (
                client.llen(parked) == len(slow_urls)
                and all(fast.count(f"/f{i}") == 1 for i in range(5))
                and client.llen("fleet:start_urls") == 0
                and client.get(lock) is not None
            ),
            40,
            "the slow origin's requests to be parked in Redis",
        )
        assert client.zscore(f"{KEY}:parked_index", slow.origin()) is not None
        assert slow.count("/robots.txt") == 1
        holder_pid = int(client.get(lock).decode().split("-")[0])
        holder = next(w for w in workers if w.pid == holder_pid)
        holder.kill()  # the worker fetching robots.txt, with requests it parked
        await finish(holder, 10)
        answer["now"] = True

        survivors = [w for w in workers if w is not holder]
        for worker in survivors:
            code = await finish(worker, 60)
            assert code == 0, worker.text()[-3000:]
    finally:
        await reap(workers)

    logs = "\n".join(w.text()[-2000:] for w in survivors)
    assert [slow.count(f"/s{i}") for i in range(6)] == [1] * 6, logs  # exactly once
    assert slow.count("/private/s6") == slow.count("/private/s7") == 0
    assert [fast.count(f"/f{i}") for i in range(5)] == [1] * 5
    assert fast.count("/private/f5") == 0
    assert slow.count("/robots.txt") == 2  # the dead holder's, then one survivor's
    crawled = [url for w in survivors for url in w.lines("CRAWLED")]
    assert sorted(u for u in crawled if u.startswith(slow.origin())) == sorted(slow_allowed)
    stats = [w.stats() for w in survivors]
    assert sum(s.get("robotstxt/forbidden", 0) for s in stats) >= len(slow_forbidden)
    assert sum(s.get("robotstxt/dropped", 0) for s in stats) == 0
    assert all(s.get("finish_reason") == "finished" for s in stats), stats
    # Nothing left behind in Redis: no parked request, no index entry, no lock.
    assert client.llen(parked) == 0
    assert client.zcard(f"{KEY}:parked_index") == 0
    assert client.get(lock) is None
    assert client.zcard("fleet:requests") == 0  # scrapy-redis's (priority) queue: drained


@pytest_twisted.ensureDeferred
async def test_workers_that_never_saw_the_origin_adopt_a_dead_workers_requests(
    rs: RedisServer, server: Server, tmp_path: Path
) -> None:
    """Only the dead worker knew the origin: the others find it in the index (``adopt``)."""
    answer = {"now": False}

    def robots(request: Any) -> Route:
        return Route(body=RULES) if answer["now"] else Route(hang=True)

    server.handle("/robots.txt", robots)
    allowed = [server.url(f"/s{i}") for i in range(4)]
    forbidden = [server.url("/private/s4")]
    client = rs.client()
    parked = f"{KEY}:parked:{server.origin()}"
    lock = f"gbot_robots:lock:{server.origin()}"
    # Two workers with nothing to do (their own, empty start key), kept open long enough to
    # notice the origin; then one worker that gets every start URL, parks and is killed.
    watchers = [
        _worker(
            f"watcher{i}",
            tmp_path,
            rs.url,
            REDIS_START_URLS_KEY="fleet:nothing",
            MAX_IDLE_TIME_BEFORE_CLOSE=10,
        )
        for i in range(2)
    ]
    workers = list(watchers)
    try:
        await until(lambda: all(w.lines("OPENED") for w in watchers), 30, "the watchers")
        client.rpush("fleet:first", *[json.dumps({"url": u}) for u in allowed + forbidden])
        first = _worker("first", tmp_path, rs.url, REDIS_START_URLS_KEY="fleet:first")
        workers.append(first)
        # Its robots.txt request must reach the server before the kill: the lock is taken
        # before the request is sent, so the lock alone does not say it was.
        await until(
            lambda: client.llen(parked) == 5
            and client.get(lock) is not None
            and server.count("/robots.txt") == 1,
            30,
            "the first worker to park everything and ask for robots.txt",
        )
        assert client.get(lock).decode().startswith(f"{first.pid}-")
        first.kill()
        await finish(first, 10)
        answer["now"] = True
        for worker in watchers:
            code = await finish(worker, 60)
            assert code == 0, worker.text()[-3000:]
    finally:
        await reap(workers)

    assert [server.count(f"/s{i}") for i in range(4)] == [1] * 4
    assert server.count("/private/s4") == 0
    assert server.count("/robots.txt") == 2
    crawled = sorted(url for w in watchers for url in w.lines("CRAWLED"))
    assert crawled == sorted(allowed)
    stats = [w.stats() for w in watchers]
    # The watchers parked nothing themselves: every request they crawled was the dead
    # worker's, found through the index; one of them waited for its lock to expire.
    assert [s.get("robotstxt/deferred", 0) for s in stats] == [0, 0]
    assert sum(s.get("robotstxt/store/lock_waits", 0) for s in stats) >= 1
    assert sum(s.get("robotstxt/request_count", 0) for s in stats) == 1
    assert sum(s.get("robotstxt/forbidden", 0) for s in stats) == 1
    assert client.llen(parked) == 0 and client.zcard(f"{KEY}:parked_index") == 0


# -- the lot alone: what the gate relies on, against the real server -------------------------


def _lot(rs: RedisServer, backoff: float = 0.05, **kwargs: Any) -> Any:
    """A RedisLot of strings; strings starting with "x" cannot be serialised."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from scrapy_gbot_robots.parking.redis import RedisLot

    def dumps(item: str) -> bytes:
        if item.startswith("x"):
            raise ValueError("kept in memory")
        return item.encode()

    def loads(data: bytes) -> str:
        return "?" + data.hex() if not data.isascii() else data.decode()

    server = redis.Redis(
        port=rs.port, socket_timeout=1, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0),
        **kwargs,
    )  # fmt: skip
    return RedisLot(
        server, "spider:gbot_robots", dumps, loads, min_backoff=backoff, max_backoff=backoff * 4
    )


def test_lot_is_one_fifo_per_origin_shared_by_workers(rs: RedisServer) -> None:
    one, two = _lot(rs), _lot(rs)
    a, b = "http://a.test", "http://b.test"
    for i in range(5):
        one.push(a, f"a{i}", 100.0 + i)
    two.push(b, "b0", 99.5)
    two.push(b, "b1", 200.0)
    assert one.waiting() == two.waiting() == [(b, 2), (a, 5)]  # oldest first
    assert one.oldest(a) == 100.0 and two.peek(a) == "a0"
    assert two.take(a, 2) == ["a0", "a1"]  # another worker takes what the first parked
    client = rs.client()
    assert client.zscore("spider:gbot_robots:parked_index", a) == 102.0  # the new head's time
    assert one.take_parked_before(a, 103.0) == ["a2", "a3"]
    assert one.oldest(a) == 104.0
    assert one.take(a, 10) == ["a4"]
    assert client.zscore("spider:gbot_robots:parked_index", a) is None  # empty: unindexed
    assert one.take(a, 10) == [] and one.oldest(a) is None and one.peek(a) is None
    assert one.waiting() == [(b, 2)]
    assert one.close(persist=False) == []  # items belong to the fleet: kept in Redis
    assert two.take(b, 10) == ["b0", "b1"]
    assert client.keys("spider:gbot_robots:*") == []


def test_lot_keeps_unserialisable_items_in_memory_and_returns_them_at_close(
    rs: RedisServer,
) -> None:
    lot, other = _lot(rs), _lot(rs)
    a = "http://a.test"
    lot.push(a, "a0", 1.0)
    lot.push(a, "x-callback", 2.0)
    lot.push(a, "a2", 3.0)
    assert other.waiting() == [(a, 2)]  # the fleet sees only what it can take over
    assert lot.waiting() == [(a, 3)]
    assert lot.take(a, 2) == ["a0", "a2"]  # Redis items first, then this process's own
    assert lot.take(a, 5) == ["x-callback"]
    lot.push(a, "x-again", 4.0)
    lot.push(a, "a5", 5.0)
    assert lot.close(persist=True) == [(a, "x-again")]
    assert other.take(a, 5) == ["a5"]


def test_lot_malformed_elements_are_returned_not_lost(rs: RedisServer) -> None:
    lot = _lot(rs)
    a = "http://a.test"
    client = rs.client()
    client.rpush(f"spider:gbot_robots:parked:{a}", b"\x01")  # shorter than a park time
    client.zadd("spider:gbot_robots:parked_index", {a: 0})
    lot.push(a, "a1", 5.0)
    assert lot.take_parked_before(a, 1.0) == [""]  # unreadable time counts as oldest
    assert lot.take(a, 5) == ["a1"]


def test_lot_falls_back_to_memory_while_redis_fails_then_hands_items_to_the_fleet(
    rs: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    lot, a = _lot(rs), "http://a.test"
    lot.push(a, "a0", 1.0)
    rs.kill()
    for i in range(1, 4):
        lot.push(a, f"a{i}", 1.0 + i)  # no exception: kept in this process
    assert lot.take(a, 1) == ["a1"]  # Redis items cannot be reached: ours still can
    assert lot.waiting() == [(a, 2)]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "memory" in warnings[0], warnings
    rs.restart()  # empty: it had no persistence (a0 is gone with it, as Redis went)
    deadline = time.monotonic() + 5
    while len(rs.client().keys("spider:gbot_robots:parked:*")) == 0:
        assert time.monotonic() < deadline, "the kept items never reached Redis"
        time.sleep(0.05)
        lot.flush()  # the gate's tick
    assert _lot(rs).take(a, 10) == ["a2", "a3"]  # another worker can take them now
    assert lot.close(persist=True) == []
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 1 and "answers again" in infos[0], infos


def test_lot_close_hands_memory_items_to_redis_even_during_the_backoff(rs: RedisServer) -> None:
    """Redis came back while the lot still waits out its backoff, and the worker closes: the
    items parked in its memory go to the fleet, not to ``request_dropped``."""
    lot, a, b = _lot(rs, backoff=60.0), "http://a.test", "http://b.test"
    rs.kill()
    for i in range(300):
        lot.push(a if i % 3 else b, f"i{i}", 1.0 + i)
    rs.restart()
    assert lot.close(persist=True) == []
    other = _lot(rs)
    assert other.take(a, 1000) == [f"i{i}" for i in range(300) if i % 3]  # in order
    assert other.take(b, 1000) == [f"i{i}" for i in range(0, 300, 3)]


def test_lot_reads_bytes_even_when_the_project_decodes_responses(rs: RedisServer) -> None:
    lot = _lot(rs, decode_responses=True)  # scrapy-redis's REDIS_DECODE_RESPONSES = True
    a = "http://a.test"
    lot.push(a, "a0", 1.0)
    assert lot.waiting() == [(a, 1)]
    assert lot.take(a, 1) == ["a0"]
