"""Real crawls sharing robots.txt through Redis (``GBOT_ROBOTS_STORE = "redis://..."``).

A real ``redis-server`` on a free 127.0.0.1 port, the test's HTTP servers, and real Scrapy
crawls: in separate ``scrapy runspider`` processes where the point is several processes
(sharing, a dead lock holder), in the test's reactor where the test must watch and act
mid-crawl (killing Redis, then bringing it back).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import BASE_SETTINGS, Route, Server, middleware_of
from _procs import CrawlProcess, finish, reap, spawn, until
from _redisserver import RedisServer, missing, running_redis

pytestmark = [
    pytest.mark.crawl,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]

RULES = b"User-agent: *\nDisallow: /private/\n"
ASYNCIO = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

#: The spider of the subprocess crawls (tests/_subspider.py): start URLs from a file, one log
#: line per outcome, the stats as one JSON line at the end. ``LOCK_TTL`` shortens the fetch lock
#: (``GBOT_ROBOTS_LOCK_TTL``; see test_a_dead_lock_holder_...).
SPIDER = """
from _subspider import StartUrlsSpider


class SharedSpider(StartUrlsSpider):
    name = "shared"
"""


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        yield server


def _args(tmp: Path, redis_url: str, *extra: str) -> list[str]:
    return [
        "runspider", str(tmp / "shared_spider.py"),
        "-s", "ROBOTSTXT_OBEY=True",
        "-s", 'ADDONS={"scrapy_gbot_robots.Addon": 0}',
        "-s", f"GBOT_ROBOTS_STORE={redis_url}",
        # The Redis store runs on the asyncio reactor (Scrapy's default only since 2.13).
        "-s", f"TWISTED_REACTOR={ASYNCIO}",
        "-s", "GBOT_ROBOTS_RETRY_TIMES=0",
        "-s", "GBOT_ROBOTS_TICK=0.1",
        "-s", "RETRY_ENABLED=False",
        "-s", "TELNETCONSOLE_ENABLED=False",
        "-s", "REMOTE_CONTROL_ENABLED=False",
        "-s", "CONCURRENT_REQUESTS=32",
        "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32",
        "-s", "LOG_LEVEL=INFO",
        "-s", "CLOSESPIDER_TIMEOUT=60",
        "-s", "GBOT_ROBOTS_DIAGNOSTIC_STATS=True",  # the store's counters are read
        *extra,
    ]  # fmt: skip


def _run(
    name: str, tmp: Path, redis_url: str, urls: list[str], *extra: str, **env: str
) -> CrawlProcess:
    (tmp / "shared_spider.py").write_text(SPIDER)
    start = tmp / f"start-{name}.json"
    start.write_text(json.dumps(urls))
    return spawn(name, _args(tmp, redis_url, *extra), {"START_URLS": str(start), **env}, tmp)


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


# -- 1. two processes, one Redis: each robots.txt fetched once in all ----------------------


@pytest_twisted.ensureDeferred
async def test_two_processes_share_every_robots_txt(rs: RedisServer, tmp_path: Path) -> None:
    servers = [Server().start() for _ in range(20)]
    procs: list[CrawlProcess] = []
    try:
        for srv in servers:
            srv.route("/robots.txt", body=RULES, delay=0.5)
        allowed = [srv.url(p) for srv in servers for p in ("/a", "/b")]
        forbidden = [srv.url("/private/c") for srv in servers]
        urls = allowed + forbidden
        # Opposite orders: each process starts with origins the other comes to last.
        procs = [_run("one", tmp_path, rs.url, urls), _run("two", tmp_path, rs.url, urls[::-1])]
        codes = [await finish(proc, 60) for proc in procs]
        logs = [proc.text()[-3000:] for proc in procs]
        assert codes == [0, 0], logs

        assert [srv.count("/robots.txt") for srv in servers] == [1] * 20
        for proc in procs:
            assert sorted(proc.lines("CRAWLED")) == sorted(allowed), proc.text()[-3000:]
            assert sorted(proc.lines("FAILED")) == sorted(f"{u} IgnoreRequest" for u in forbidden)
            stats = proc.stats()
            # Every origin decided once per process: fetched here, or read from Redis.
            fetched = stats.get("robotstxt/request_count", 0)
            assert fetched + stats.get("robotstxt/store/stored", 0) == 20, stats
            assert "robotstxt/dropped" not in stats and "robotstxt/store/errors" not in stats
        total = sum(proc.stats().get("robotstxt/request_count", 0) for proc in procs)
        assert total == 20
        for srv in servers:
            assert srv.count("/a") == srv.count("/b") == 2  # each process crawls its pages
            assert srv.count("/private/c") == 0
        client = rs.client()
        assert len(client.keys("gbot_robots:origin:*")) == 20
        assert client.keys("gbot_robots:lock:*") == []  # every lock given back
    finally:
        await reap(procs)
        for srv in servers:
            await srv.stop()


# -- 2. Redis killed mid-crawl, then back ---------------------------------------------------


def _held_spider() -> type:
    """A spider the test feeds with ``inject`` and lets close with ``done``."""
    import scrapy
    from scrapy import signals
    from scrapy.exceptions import DontCloseSpider

    class HeldSpider(scrapy.Spider):
        name = "held"
        hold: bool
        is_open: bool
        crawled: list[str]
        failed: list[tuple[str, str]]

        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)
            spider.hold = True
            spider.crawled = []
            spider.failed = []
            spider.is_open = False
            crawler.signals.connect(spider.idle, signal=signals.spider_idle)
            crawler.signals.connect(spider.opened, signal=signals.spider_opened)
            return spider

        async def start(self) -> Any:
            return
            yield

        def opened(self, spider: Any) -> None:
            self.is_open = True

        def idle(self, spider: Any) -> None:
            if self.hold:
                raise DontCloseSpider

        def inject(self, url: str) -> None:
            request = scrapy.Request(url, callback=self.parse, errback=self.on_error)
            self.crawler.engine.crawl(request)

        def done(self) -> None:
            self.hold = False
            self.crawler.engine.crawl(
                scrapy.Request("data:,done", callback=self.parse, dont_filter=True)
            )

        def parse(self, response: Any) -> None:
            if not response.url.startswith("data:"):
                self.crawled.append(response.url)

        def on_error(self, failure: Any) -> None:
            self.failed.append((failure.request.url, type(failure.value).__name__))

    return HeldSpider


def _opened(crawler: Any) -> bool:
    try:
        middleware_of(crawler)
    except (AssertionError, AttributeError):
        return False
    return crawler.spider is not None and crawler.spider.is_open


@pytest_twisted.ensureDeferred
async def test_redis_killed_mid_crawl_loses_nothing_and_is_used_again(
    rs: RedisServer, server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    from scrapy.crawler import CrawlerRunner

    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    hosts = [f"o{i}.test" for i in range(14)]
    server.route("/robots.txt", body=RULES, delay=0.2)
    for host in hosts[4:8]:  # in flight when Redis dies: their writes and unlocks fail
        server.route("/robots.txt", host=host, body=RULES, delay=1.0)
    settings = {**BASE_SETTINGS, "GBOT_ROBOTS_STORE": rs.url, "LOG_LEVEL": "INFO"}
    crawler = CrawlerRunner(settings).create_crawler(_held_spider())
    crawling = crawler.crawl()
    client = rs.client()
    spider: Any = None

    def inject(batch: list[str]) -> None:
        for host in batch:
            spider.inject(server.url("/a", host))
            spider.inject(server.url("/private/b", host))

    def decided(batch: list[str]) -> bool:
        crawled = {server.url("/a", h) for h in batch} <= set(spider.crawled)
        failed = {(server.url("/private/b", h), "IgnoreRequest") for h in batch}
        return crawled and failed <= set(spider.failed)

    def stored(batch: list[str]) -> bool:
        return all(client.exists(f"gbot_robots:origin:{server.origin(h)}") for h in batch)

    try:
        await until(lambda: _opened(crawler), 10, "the crawl to start")
        spider = crawler.spider

        inject(hosts[:4])  # Redis up: states stored
        await until(lambda: decided(hosts[:4]), 15, "the first origins")
        assert stored(hosts[:4])

        inject(hosts[4:8])
        await until(
            lambda: all(server.count("/robots.txt", h) == 1 for h in hosts[4:8]),
            15,
            "robots.txt in flight under Redis locks",
        )
        locks = client.keys("gbot_robots:lock:*")
        assert len(locks) == 4
        # Redis renews its locks: a short default expiry (30 s), not the slowest fetch's.
        assert all(0 < client.pttl(lock) <= 30_000 for lock in locks)
        rs.kill()
        inject(hosts[8:12])  # Redis down from the start of their fetch
        await until(lambda: decided(hosts[4:12]), 20, "the origins fetched during the outage")
        await until(
            lambda: crawler.stats.get_value("robotstxt/store/outages") == 1, 5, "the outage"
        )

        rs.restart()  # empty: it had no persistence
        client = rs.client()
        await until(lambda: stored(hosts[4:12]), 40, "the writes kept during the outage")

        inject(hosts[12:13])  # after the outage: written as usual
        await until(lambda: decided(hosts[12:13]), 15, "an origin after the outage")
        await until(lambda: stored(hosts[12:13]), 10, "its write")
        # ...and locked as usual: another process "holds" o13's lock for 1.5 s.
        client.set(f"gbot_robots:lock:{server.origin(hosts[13])}", b"1-elsewhere", px=1500)
        injected_at = time.monotonic()
        inject(hosts[13:14])
        await until(lambda: decided(hosts[13:14]), 15, "the origin locked elsewhere")
        robots_at = [t for t, h, p in server.log if h == hosts[13] and p == "/robots.txt"]
        assert len(robots_at) == 1 and robots_at[0] - injected_at >= 1.0
        spider.done()
        await crawling
    finally:
        if crawler.crawling:
            spider.hold = False
            stop = getattr(crawler, "stop_async", None) or crawler.stop  # Scrapy < 2.14
            await stop()

    stats = crawler.stats.get_stats()
    assert stats["robotstxt/store/outages"] == 1
    assert stats["robotstxt/store/errors"] >= 1
    assert stats["robotstxt/store/lock_waits"] >= 1  # o13: the lock "held elsewhere"
    assert "robotstxt/dropped" not in stats and "robotstxt/store/write_errors" not in stats
    assert sorted(spider.crawled) == sorted(server.url("/a", h) for h in hosts)
    assert all(server.count("/private/b", h) == 0 for h in hosts)
    assert [server.count("/robots.txt", h) for h in hosts] == [1] * len(hosts)
    records = [r for r in caplog.records if r.name.startswith("scrapy_gbot_robots")]
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "unreachable" in warnings[0], warnings
    back = [
        r.getMessage() for r in records if r.levelno == logging.INFO and "is back" in r.getMessage()
    ]
    assert len(back) == 1, back
    assert not [r for r in records if r.levelno >= logging.ERROR]


# -- 3. the lock holder dies ------------------------------------------------------------------


LOCK_CMDS = ("evalsha", "eval")


def _clients_of(client: Any, pid: int) -> list[dict[str, Any]]:
    """CLIENT LIST rows of the backing connections of process ``pid`` (named by its token)."""
    rows = client.client_list()
    return [row for row in rows if str(row.get("name", "")).startswith(f"gbot_robots:{pid}-")]


@pytest_twisted.ensureDeferred
async def test_a_dead_lock_holders_origin_is_crawled_once_the_lock_expires(
    rs: RedisServer, server: Server, tmp_path: Path
) -> None:
    """SIGKILL while holding an origin's lock with robots.txt hanging; another process waits
    the lock out, fetches and crawls.

    The lock TTL is shortened to 3 s in the crawlers (``GBOT_ROBOTS_LOCK_TTL``): the default is
    download_timeout x (redirects + 1) x (retries + 1) + 30 s, over 30 s whatever the settings.
    """
    hits: list[float] = []

    def robots(request: Any) -> Route:
        hits.append(time.monotonic())
        return Route(hang=True) if len(hits) == 1 else Route(body=RULES)

    server.handle("/robots.txt", robots)
    allowed = [server.url("/a"), server.url("/b")]
    forbidden = [server.url("/private/c")]
    client = rs.client()
    lock = f"gbot_robots:lock:{server.origin()}"
    procs: list[CrawlProcess] = []
    try:
        holder = _run("holder", tmp_path, rs.url, allowed + forbidden, LOCK_TTL="3")
        procs.append(holder)
        await until(lambda: len(hits) == 1 and client.get(lock), 30, "the holder's fetch")
        assert client.get(lock).decode().startswith(f"{holder.pid}-")

        waiter = _run("waiter", tmp_path, rs.url, allowed + forbidden, LOCK_TTL="3")
        procs.append(waiter)
        # The waiter found the lock taken (its last command was the lock script), and the
        # holder keeps renewing it meanwhile.
        await until(
            lambda: any(
                r.get("cmd") in ("evalsha", "eval") for r in _clients_of(client, waiter.pid)
            ),
            30,
            "the waiter to try the lock",
        )
        assert client.get(lock).decode().startswith(f"{holder.pid}-")
        holder.kill()
        killed_at = time.monotonic()
        await finish(holder, 10)

        code = await finish(waiter, 40)
        assert code == 0, waiter.text()[-3000:]
        assert len(hits) == 2
        assert hits[1] - killed_at >= 1.0  # the lock outlived its holder by its TTL
        assert sorted(waiter.lines("CRAWLED")) == sorted(allowed)
        assert waiter.lines("FAILED") == [f"{forbidden[0]} IgnoreRequest"]
        assert server.count("/private/c") == 0
        assert all(server.count(_path(url)) == 1 for url in allowed)  # the holder got none
        stats = waiter.stats()
        assert stats["robotstxt/store/lock_waits"] >= 1
        assert stats["robotstxt/request_count"] == 1
        assert client.get(lock) is None
    finally:
        await reap(procs)


# -- 4. unreadable and stale entries in Redis -------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_unreadable_or_stale_entries_are_refetched_fresh_ones_are_obeyed(
    rs: RedisServer, server: Server
) -> None:
    from scrapy.crawler import CrawlerRunner

    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig
    from scrapy_gbot_robots.stores.entry import decode, encode

    cfg = PolicyConfig()
    now = time.time()
    good = encode(evaluate(FetchResult(200, RULES * 30), now - 10, None, cfg))
    everything = b"User-agent: *\nDisallow: /\n"
    stale = encode(evaluate(FetchResult(200, everything), now - 9e5, None, cfg))
    fresh = encode(evaluate(FetchResult(200, RULES), now - 10, None, cfg))
    old = repr(now - 9e5).encode()
    entries: dict[str, Any] = {
        "garbage.test": {"fetched_at": old, "entry": b"\x00\x01 garbage"},
        "future.test": {"fetched_at": old, "entry": good[:3] + b"\x07" + good[4:]},
        "version0.test": {"fetched_at": old, "entry": good[:3] + b"\x00" + good[4:]},
        "truncated.test": {"fetched_at": old, "entry": good[:-20]},
        "stale.test": {"fetched_at": old, "entry": stale},  # expired: obeyed no more
        "string.test": b"a key of another type",
    }
    client = rs.client()
    for host, value in entries.items():
        key = f"gbot_robots:origin:{server.origin(host)}"
        if isinstance(value, dict):
            client.hset(key, mapping=value)
        else:
            client.set(key, value)
    # A fresh readable entry is obeyed without a fetch, whatever the site serves now.
    client.hset(
        f"gbot_robots:origin:{server.origin('fresh.test')}",
        mapping={"fetched_at": repr(now - 10), "entry": fresh},
    )
    server.route("/robots.txt", body=RULES)
    server.route("/robots.txt", host="fresh.test", body=everything)
    hosts = [*entries, "fresh.test"]
    urls = [server.url(p, h) for h in hosts for p in ("/a", "/private/b")]

    import scrapy

    crawled: list[str] = []

    class Spider(scrapy.Spider):
        name = "entries"

        async def start(self) -> Any:
            for url in urls:
                yield scrapy.Request(url, callback=self.parse)

        def start_requests(self) -> Any:  # Scrapy < 2.13
            return (scrapy.Request(url, callback=self.parse) for url in urls)

        def parse(self, response: Any) -> None:
            crawled.append(response.url)

    settings = {**BASE_SETTINGS, "GBOT_ROBOTS_STORE": rs.url}
    crawler = CrawlerRunner(settings).create_crawler(Spider)
    await crawler.crawl()

    assert sorted(crawled) == sorted(server.url("/a", h) for h in hosts)
    assert all(server.count("/private/b", h) == 0 for h in hosts)
    assert {h: server.count("/robots.txt", h) for h in hosts} == {
        **{h: 1 for h in entries},
        "fresh.test": 0,
    }
    stats = crawler.stats.get_stats()
    assert stats["robotstxt/store/stored"] == 1
    assert "robotstxt/store/errors" not in stats
    for host in entries:  # each replaced by the new, readable state
        raw = client.hget(f"gbot_robots:origin:{server.origin(host)}", "entry")
        state = decode(raw)
        assert state is not None and state.fetched_at > now - 5, host
        assert state.robots is not None and state.robots.body == RULES
