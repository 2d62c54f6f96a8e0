"""Real crawls on the SQLite store (``GBOT_ROBOTS_STORE = "sqlite://PATH"``).

Most tests run several crawls one after the other, each a new crawler on the same file, as a
restarted process would: what one crawl learnt about robots.txt (rules, the start of an error
streak, a page that answered) is what the next one obeys, without fetching it again.

Time: :class:`FlowingClock` is the policy's clock (``GBOT_ROBOTS_CLOCK``). It runs in real
time, so a short ``GBOT_ROBOTS_PARK_TIMEOUT`` drops parked requests and a crawl ends, and a
test jumps it by hours or days between crawls.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _httpserver import BIG_CRAWL, FakeClock, Server, crawl, make_spider, middleware_of
from twisted.internet import defer

from scrapy_gbot_robots._settings import ConfigError
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.origin import origin_of
from scrapy_gbot_robots.policy.states import Kind, PolicyConfig
from scrapy_gbot_robots.stores.entry import encode
from scrapy_gbot_robots.stores.sqlite import SqliteStore

pytestmark = pytest.mark.crawl

HOUR = 3600.0
DAY = 86400.0
RULES = b"User-agent: *\nDisallow: /private/\n"


class FlowingClock(FakeClock):
    """A fake clock that also advances in real time, so park deadlines pass during a crawl."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        super().__init__(start)
        self._started = time.monotonic()

    def __call__(self) -> float:
        return self.now + (time.monotonic() - self._started)


def sqlite_cache(tmp_path: Path) -> str:
    return f"sqlite://{tmp_path}/robots.db"


def robots_hits(server: Server, hosts: list[str]) -> dict[str, int]:
    return {host: server.count("/robots.txt", host) for host in hosts}


# -- restart ----------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_cache_keep_forgets_origins_not_fetched_within_the_window(
    server: Server, tmp_path: Path
) -> None:
    """GBOT_ROBOTS_STORE_KEEP bounds the file by the origins fetched within the window."""
    hosts = ["a.test", "b.test", "c.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, body=RULES)
    clock = FlowingClock()
    cache = sqlite_cache(tmp_path)
    settings = {"GBOT_ROBOTS_STORE": cache, "GBOT_ROBOTS_CLOCK": clock}

    def stored() -> list[str]:
        db = sqlite3.connect(cache[len("sqlite://") :])
        try:
            return sorted(row[0] for row in db.execute("SELECT origin FROM robots"))
        finally:
            db.close()

    await crawl(make_spider(urls=[server.url("/p", h) for h in hosts[:2]]), settings)
    clock.advance(50 * DAY)
    c2 = await crawl(make_spider(urls=[server.url("/p", "c.test")]), settings)
    assert c2.stats.get_value("robotstxt/store/pruned") is None  # off by default
    assert stored() == sorted(server.origin(h) for h in hosts)
    clock.advance(15 * DAY)  # a and b: 65 days since their fetch; c: 15
    keep = {**settings, "GBOT_ROBOTS_STORE_KEEP": 61 * DAY}
    c3 = await crawl(make_spider(urls=[server.url("/q", "c.test")]), keep)
    assert c3.stats.get_value("robotstxt/store/pruned") == 2
    assert stored() == [server.origin("c.test")]
    assert robots_hits(server, hosts) == {"a.test": 1, "b.test": 1, "c.test": 2}


@pytest_twisted.ensureDeferred
async def test_restart_reuses_stored_robots_until_expiry(server: Server, tmp_path: Path) -> None:
    hosts = ["a.test", "b.test", "c.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, body=RULES)
    clock = FlowingClock()
    settings = {"GBOT_ROBOTS_STORE": sqlite_cache(tmp_path), "GBOT_ROBOTS_CLOCK": clock}

    def urls(n: int) -> list[str]:
        return [server.url(p, h) for h in hosts for p in (f"/page{n}", f"/private/{n}")]

    # Crawl 1: a robots.txt fetch per origin.
    c1 = await crawl(make_spider(urls=urls(1)), settings)
    assert robots_hits(server, hosts) == dict.fromkeys(hosts, 1)
    assert sorted(c1.spider.crawled) == sorted(server.url("/page1", h) for h in hosts)
    assert server.count("/private/1") == 0
    assert c1.stats.get_value("robotstxt/forbidden") == 3

    # Crawl 2, 23 hours later, a new crawler on the same file: no robots.txt request at all.
    clock.advance(23 * HOUR)
    c2 = await crawl(make_spider(urls=urls(2)), settings)
    assert robots_hits(server, hosts) == dict.fromkeys(hosts, 1)
    assert c2.stats.get_value("robotstxt/request_count") is None
    assert sorted(c2.spider.crawled) == sorted(server.url("/page2", h) for h in hosts)
    assert server.count("/private/2") == 0  # the stored rules are obeyed
    assert c2.stats.get_value("robotstxt/forbidden") == 3
    assert c2.stats.get_value("robotstxt/store/read_back") == 3

    # Crawl 3, past the 24 h lifetime, with new rules: exactly one fetch per origin.
    for host in hosts:
        server.route("/robots.txt", host=host, body=b"User-agent: *\nDisallow: /page3\n")
    clock.advance(2 * HOUR)
    c3 = await crawl(make_spider(urls=urls(3)), settings)
    assert robots_hits(server, hosts) == dict.fromkeys(hosts, 2)
    assert sorted(c3.spider.crawled) == sorted(server.url("/private/3", h) for h in hosts)
    assert server.count("/page3") == 0  # the new file decides
    assert c3.stats.get_value("robotstxt/store/expired") == 3
    state = middleware_of(c3).origin_state(server.url("/", "a.test"))
    assert state is not None and state.robots is not None
    assert state.robots.body == b"User-agent: *\nDisallow: /page3\n"

    # And the file now holds the new copy, for whoever starts next.
    backing = SqliteStore(str(tmp_path / "robots.db"))
    try:
        stored = backing.get_now(origin_of(server.origin("b.test")) or "")
    finally:
        backing.close()
    assert stored is not None and stored.robots is not None
    assert stored.robots.body == b"User-agent: *\nDisallow: /page3\n"


@pytest_twisted.ensureDeferred
async def test_two_crawls_sharing_one_file_fetch_each_robots_txt_once(
    server: Server, tmp_path: Path
) -> None:
    """Two crawlers at once on one file (as two processes on one machine would be).

    robots.txt answers slowly, so both want it at the same time: the origin's fetch lock
    lets one download it while the other waits, then reads the stored state.
    """
    hosts = ["a.test", "b.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, delay=1.0, body=RULES)
    settings = {"GBOT_ROBOTS_STORE": sqlite_cache(tmp_path)}
    spiders = [
        make_spider(
            f"crawl{n}", urls=[server.url(p, h) for h in hosts for p in (f"/{n}", "/private/")]
        )
        for n in (1, 2)
    ]
    crawlers = await defer.gatherResults(
        [defer.ensureDeferred(crawl(spider, settings)) for spider in spiders]
    )
    assert robots_hits(server, hosts) == dict.fromkeys(hosts, 1)
    for n, crawler in enumerate(crawlers, start=1):
        assert sorted(crawler.spider.crawled) == sorted(server.url(f"/{n}", h) for h in hosts)
    assert server.count("/private/") == 0
    waited = [c.stats.get_value("robotstxt/lock/waited", 0) for c in crawlers]
    fetched = [c.stats.get_value("robotstxt/request_count", 0) for c in crawlers]
    assert sum(fetched) == 2 and sum(waited) >= 1, (fetched, waited)


# -- the 12 h and 30 d rules across restarts ---------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_error_streak_and_page_answers_survive_restarts(
    server: Server, tmp_path: Path
) -> None:
    """503 from crawl 1 on: stopped at +6 h, last good copy at +13 h, after 30 days it depends.

    Two origins with the same history, except that a page of ``a.test`` answered during the
    streak (crawl 3) and none of ``b.test`` did: at +31 d ``a`` is crawled without
    restrictions and ``b`` is still stopped. Every fact used comes from the file.
    """
    hosts = ["a.test", "b.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, body=b"User-agent: *\nDisallow: /x\n")
    clock = FlowingClock()
    settings = {
        "GBOT_ROBOTS_STORE": sqlite_cache(tmp_path),
        "GBOT_ROBOTS_CLOCK": clock,
        "GBOT_ROBOTS_PARK_TIMEOUT": 0.5,
    }

    def states(crawler: Any) -> dict[str, Any]:
        mw = middleware_of(crawler)
        return {h: mw.origin_state(server.url("/", h)) for h in hosts}

    # Crawl 0: the good copy.
    c0 = await crawl(make_spider(urls=[server.url("/a0", h) for h in hosts]), settings)
    assert len(c0.spider.crawled) == 2
    good_at = {h: s.good_at for h, s in states(c0).items()}

    # Crawl 1, a day later: robots.txt answers 503 from now on; the streak begins.
    for host in hosts:
        server.route("/robots.txt", host=host, status=503)
    clock.advance(25 * HOUR)
    c1 = await crawl(
        make_spider(urls=[server.url(p, h) for h in hosts for p in ("/a1", "/x1")]), settings
    )
    assert c1.spider.crawled == []
    assert c1.stats.get_value("robotstxt/dropped") == 4
    s1 = states(c1)
    since = {h: s1[h].error_since for h in hosts}
    for host in hosts:
        assert s1[host].kind is Kind.SERVER_ERROR and s1[host].errors == 1
        assert clock.now <= since[host] <= clock()
        assert s1[host].good_at == good_at[host]  # the last good copy is kept
        assert s1[host].robots is not None and b"Disallow: /x" in s1[host].robots.body
    assert robots_hits(server, hosts) == dict.fromkeys(hosts, 2)

    # Crawl 2 at +6 h, a new crawler: still stopped; the retry continues the same streak.
    clock.advance(6 * HOUR)
    c2 = await crawl(
        make_spider(urls=[server.url(p, h) for h in hosts for p in ("/a2", "/x2")]), settings
    )
    assert c2.spider.crawled == []
    assert c2.stats.get_value("robotstxt/dropped") == 4
    assert all(server.count(p) == 0 for p in ("/a1", "/x1", "/a2", "/x2"))
    s2 = states(c2)
    assert {h: s2[h].error_since for h in hosts} == since  # not restarted by the restart
    assert all(s2[h].errors == 2 for h in hosts)
    assert robots_hits(server, hosts) == dict.fromkeys(hosts, 3)

    # Crawl 3 at +13 h: the last good copy is obeyed. Only a.test's allowed page answers.
    clock.advance(7 * HOUR)
    urls3 = [server.url("/a3", "a.test"), server.url("/x3", "a.test"), server.url("/x3", "b.test")]
    c3 = await crawl(make_spider(urls=urls3), settings)
    assert c3.spider.crawled == [server.url("/a3", "a.test")]
    assert sorted(c3.spider.failed) == sorted(
        (server.url("/x3", h), "IgnoreRequest") for h in hosts
    )
    assert server.count("/x3") == 0
    s3 = states(c3)
    assert {h: s3[h].error_since for h in hosts} == since
    assert s3["a.test"].page_ok_at is not None and s3["a.test"].page_ok_at >= since["a.test"]
    assert s3["b.test"].page_ok_at is None
    assert all(s3[h].errors == 3 for h in hosts)  # a background retry, still 503

    # Crawl 4 at +31 d, robots.txt still 503.
    clock.advance(since["a.test"] + 31 * DAY - clock())
    urls4 = [server.url("/x4", "a.test"), server.url("/a4", "b.test")]
    c4 = await crawl(make_spider(urls=urls4), settings)
    # a.test answered a page during the streak (remembered in the file): no restrictions.
    assert c4.spider.crawled == [server.url("/x4", "a.test")]
    # b.test never did: still stopped, its request dropped at the deadline.
    assert server.count("/a4", "b.test") == 0
    assert c4.stats.get_value("robotstxt/dropped") == 1
    s4 = states(c4)
    assert {h: s4[h].error_since for h in hosts} == since
    assert s4["b.test"].kind is Kind.SERVER_ERROR and s4["b.test"].page_ok_at is None
    assert all(s4[h].errors == 4 for h in hosts)


@pytest_twisted.ensureDeferred
async def test_pages_answering_429_are_no_evidence_that_the_site_is_available(
    server: Server, tmp_path: Path
) -> None:
    """Issue 24: after 30 days of robots.txt errors, a site whose pages answer 429 stays stopped.

    Two origins whose robots.txt answers 503 from the start (no good copy): in the grace
    period (+13 h) their pages are crawled, ``a.test``'s answering 429 and ``b.test``'s 200.
    At +31 d only ``b.test`` showed the site serving: it is crawled, ``a.test`` is not.
    """
    hosts = ["a.test", "b.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, status=503)
    server.route("/p2", host="a.test", status=429, headers={"Retry-After": "0"})
    clock = FlowingClock()
    settings = {
        "GBOT_ROBOTS_STORE": sqlite_cache(tmp_path),
        "GBOT_ROBOTS_CLOCK": clock,
        "GBOT_ROBOTS_PARK_TIMEOUT": 0.5,
    }

    def states(crawler: Any) -> dict[str, Any]:
        mw = middleware_of(crawler)
        return {h: mw.origin_state(server.url("/", h)) for h in hosts}

    c1 = await crawl(make_spider(urls=[server.url("/p1", h) for h in hosts]), settings)
    assert c1.spider.crawled == [] and c1.stats.get_value("robotstxt/dropped") == 2
    clock.advance(13 * HOUR)  # the grace period, no good copy: no restrictions
    c2 = await crawl(make_spider(urls=[server.url("/p2", h) for h in hosts]), settings)
    assert server.count("/p2", "a.test") == server.count("/p2", "b.test") == 1
    s2 = states(c2)
    assert s2["b.test"].page_ok_at is not None
    assert s2["a.test"].kind is Kind.SERVER_ERROR
    since = s2["a.test"].error_since
    clock.advance(since + 31 * DAY - clock())
    c4 = await crawl(make_spider(urls=[server.url("/p4", h) for h in hosts]), settings)
    assert c4.spider.crawled == [server.url("/p4", "b.test")]
    assert server.count("/p4", "a.test") == 0
    assert c4.stats.get_value("robotstxt/dropped") == 1
    assert states(c4)["a.test"].page_ok_at is None


# -- more origins than the LRU holds ---------------------------------------------------------


# The LRU's size, and the origins (ten times as many: an origin is long forgotten when its
# next request comes). The ratio is the point, not the count: bench_broad.py runs 2,000.
STORE = 40
N_ORIGINS = 10 * STORE
ROUNDS = 2


async def _interleaved_crawl(server: Server, cache: str, compact: int = 0) -> Any:
    """Every origin once per round, rounds one after the other, on an LRU of ``STORE`` origins.

    By the time an origin's next request comes, ``N_ORIGINS - 1`` others were seen since: the
    LRU has forgotten it. Every tenth origin also gets a disallowed URL, at the end. The compact
    tier is off unless ``compact`` says otherwise, so that the file's tier is what is seen.
    """
    server.route("/robots.txt", body=RULES)
    hosts = [f"o{i}.test" for i in range(N_ORIGINS)]
    urls = [server.url(f"/r{r}", h) for r in range(ROUNDS) for h in hosts]
    urls += [server.url("/private/p", h) for h in hosts[::10]]
    return await crawl(
        make_spider(urls=urls),
        {
            "GBOT_ROBOTS_STORE": cache,
            "GBOT_ROBOTS_STORE_SIZE": STORE,
            "GBOT_ROBOTS_STORE_COMPACT_BYTES": compact,
            "LOG_LEVEL": "INFO",
            "CONCURRENT_REQUESTS": 32,
            "GBOT_ROBOTS_TICK": 0.2,
        },
    )


@BIG_CRAWL
@pytest_twisted.ensureDeferred
async def test_more_origins_than_memory_are_fetched_once_each_on_sqlite(
    server: Server, tmp_path: Path
) -> None:
    crawler = await _interleaved_crawl(server, sqlite_cache(tmp_path))
    stats = crawler.stats.get_stats()
    assert server.count("/robots.txt") == N_ORIGINS  # one fetch per origin, none again
    assert all(server.count("/robots.txt", f"o{i}.test") == 1 for i in range(N_ORIGINS))
    assert len(crawler.spider.crawled) == N_ORIGINS * ROUNDS  # every allowed page
    assert server.count("/private/p") == 0
    assert stats["robotstxt/forbidden"] == N_ORIGINS // 10
    assert stats["robotstxt/store/evicted"] >= N_ORIGINS - STORE
    assert stats["robotstxt/store/read_back"] > 0  # forgotten by the LRU, read from the file
    assert stats.get("robotstxt/dropped") is None
    # Memory kept STORE states; the file holds every origin's, for the next crawl (the
    # crawl's own store is closed now: read it as the next crawl would).
    store = SqliteStore(str(tmp_path / "robots.db"))
    try:
        origins = [origin_of(server.url("/", f"o{i}.test")) or "" for i in range(N_ORIGINS)]
        kept = [store.get_now(origin) for origin in origins]
    finally:
        store.close()
    assert all(state is not None and state.kind is Kind.RULES for state in kept)


@BIG_CRAWL
@pytest_twisted.ensureDeferred
async def test_more_origins_than_memory_are_fetched_again_in_memory_only(server: Server) -> None:
    """The contrast: the same crawl without the file refetches what the LRU forgot.

    So the single fetch per origin above is the disk tier's doing, not the crawl's shape.
    """
    crawler = await _interleaved_crawl(server, "memory")
    assert server.count("/robots.txt") > N_ORIGINS, server.count("/robots.txt")
    assert len(crawler.spider.crawled) == N_ORIGINS * ROUNDS
    assert server.count("/private/p") == 0
    assert crawler.stats.get_value("robotstxt/store/read_back") is None


@BIG_CRAWL
@pytest_twisted.ensureDeferred
async def test_more_origins_than_memory_are_fetched_once_each_with_the_compact_tier(
    server: Server,
) -> None:
    """Memory only, with the default compact tier: what the LRU forgot is read back from
    there, one fetch per origin without a file."""
    crawler = await _interleaved_crawl(server, "memory", compact=64 * 1024 * 1024)
    stats = crawler.stats.get_stats()
    assert all(server.count("/robots.txt", f"o{i}.test") == 1 for i in range(N_ORIGINS))
    assert len(crawler.spider.crawled) == N_ORIGINS * ROUNDS
    assert server.count("/private/p") == 0
    assert stats["robotstxt/store/compact_read"] >= N_ORIGINS - STORE
    assert stats.get("robotstxt/store/read_back") is None


# -- files that cannot be used ----------------------------------------------------------------


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make a file or directory unwritable, also for root (``chattr +i``); else skip the test."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("running as root without chattr: permissions cannot make a path read-only")
    flag = subprocess.run([chattr, "+i", str(path)], capture_output=True, check=False)
    if flag.returncode != 0:
        pytest.skip(f"chattr +i is not supported here: {flag.stderr!r}")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


def _bad_place(tmp_path: Path, how: str) -> Path:
    if how == "directory":
        path = tmp_path / "robots.db"
        path.mkdir()
    elif how == "garbage":
        path = tmp_path / "robots.db"
        path.write_bytes(b"not a database, whatever the name says\n" * 100)
    elif how == "under a file":
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / "robots.db"
    elif how == "read-only file":
        path = tmp_path / "robots.db"
        SqliteStore(str(path)).close()  # a good store, from an earlier crawl
    else:
        path = tmp_path / "ro" / "robots.db"
        path.parent.mkdir()
    return path


@pytest.mark.parametrize(
    "how",
    [
        "directory",
        "garbage",
        "under a file",
        "read-only directory",
        "read-only file",
    ],
)
@pytest_twisted.ensureDeferred
async def test_an_unusable_cache_file_stops_the_crawl_before_any_request(
    server: Server, tmp_path: Path, how: str
) -> None:
    path = _bad_place(tmp_path, how)
    guard: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if how.startswith("read-only"):
        guard = read_only(path if how == "read-only file" else path.parent)
    with guard, pytest.raises(ConfigError) as info:
        await crawl(
            make_spider(urls=[server.url("/a"), server.url("/b")]),
            {"GBOT_ROBOTS_STORE": f"sqlite://{path}"},
        )
    message = str(info.value)
    assert message.startswith("GBOT_ROBOTS_STORE: "), message
    assert str(path) in message
    assert server.hits == {}  # not even robots.txt


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")
@pytest_twisted.ensureDeferred
async def test_a_location_that_cannot_be_created_stops_the_crawl(server: Server) -> None:
    path = "/proc/gbot-robots-test/robots.db"  # no one may create directories in /proc
    with pytest.raises(ConfigError, match="GBOT_ROBOTS_STORE") as info:
        await crawl(make_spider(urls=[server.url("/a")]), {"GBOT_ROBOTS_STORE": f"sqlite://{path}"})
    assert path in str(info.value)
    assert server.hits == {}


@pytest.mark.parametrize("how", ["not a directory", "garbage"])
@pytest_twisted.ensureDeferred
async def test_an_unusable_default_file_in_jobdir_names_jobdir(
    server: Server, tmp_path: Path, how: str
) -> None:
    jobdir = tmp_path / "job"
    jobdir.mkdir()
    if how == "not a directory":
        (jobdir / "gbot_robots").write_text("a file where the store's directory goes")
    else:
        (jobdir / "gbot_robots").mkdir()
        (jobdir / "gbot_robots" / "robots.sqlite3").write_bytes(b"\x00garbage" * 100)
    with pytest.raises(ConfigError) as info:
        await crawl(make_spider(urls=[server.url("/a")]), {"JOBDIR": str(jobdir)})
    message = str(info.value)
    assert message.startswith("JOBDIR: "), message
    assert str(jobdir / "gbot_robots" / "robots.sqlite3") in message
    assert server.hits == {}


# -- rows this version cannot read -----------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_unreadable_rows_are_refetched_once_and_replaced(
    server: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hosts = ["garbage.test", "future.test", "pickle.test", "cut.test", "fine.test"]
    for host in hosts:
        server.route("/robots.txt", host=host, body=RULES)
    path = str(tmp_path / "robots.db")
    clock = FlowingClock(start=time.time())
    now = clock()
    good = evaluate(FetchResult(200, RULES), now, None, PolicyConfig())
    entry = encode(good)
    rows = {
        "garbage.test": b"\x00\x01 this row was damaged",
        "future.test": b"GBR\x02" + entry[4:],  # written by a later version of the format
        "pickle.test": b"\x80\x04\x95\x0b\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x01k\x94K\x01s.",
        "cut.test": entry[: len(entry) // 2],
        "fine.test": entry,  # readable and fresh: never fetched
    }
    SqliteStore(path).close()  # the schema
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        for host, data in rows.items():
            raw.execute(
                "INSERT INTO robots (origin, fetched_at, entry) VALUES (?, ?, ?)",
                (origin_of(server.origin(host)), now - 60, data),
            )
    finally:
        raw.close()

    settings = {"GBOT_ROBOTS_STORE": f"sqlite://{path}", "GBOT_ROBOTS_CLOCK": clock}
    urls = [server.url(p, h) for h in hosts for p in ("/ok", "/private/no")]
    caplog.set_level(logging.WARNING)
    crawler = await crawl(make_spider(urls=urls), settings)
    assert robots_hits(server, hosts) == {h: 0 if h == "fine.test" else 1 for h in hosts}
    assert sorted(crawler.spider.crawled) == sorted(server.url("/ok", h) for h in hosts)
    assert server.count("/private/no") == 0
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert crawler.stats.get_value("robotstxt/store/write_errors") is None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    # The refetched states replaced the rows: the next crawl fetches nothing.
    again = await crawl(make_spider(urls=[server.url("/again", h) for h in hosts]), settings)
    assert robots_hits(server, hosts) == {h: 0 if h == "fine.test" else 1 for h in hosts}
    assert len(again.spider.crawled) == len(hosts)


@pytest_twisted.ensureDeferred
async def test_states_read_back_after_a_restart_reach_signals_and_the_report(
    server: Server, tmp_path: Path
) -> None:
    """A restarted crawl learns of stored states as of fetched ones: robots_parsed, report."""
    import json

    from scrapy import signals as scrapy_signals

    from scrapy_gbot_robots._compat import ROBOTS_PARSED_SIGNAL

    server.route("/robots.txt", body=b"User-agent: *\nDisallow: /x\nSitemap: http://s.test/sm\n")
    settings = {"GBOT_ROBOTS_STORE": f"sqlite://{tmp_path}/robots.db"}
    await crawl(make_spider(urls=[server.url("/a")]), settings)
    parsed: list[tuple[str, ...]] = []
    keep: list[Any] = []

    class Spider(make_spider(urls=[server.url("/b"), server.url("/x")])):  # type: ignore[misc]
        @classmethod
        def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
            spider = super().from_crawler(crawler, *args, **kwargs)

            def on_parsed(robotparser: Any, request: Any) -> None:
                parsed.append(tuple(robotparser.robots.sitemaps))

            keep.append(on_parsed)
            if ROBOTS_PARSED_SIGNAL is not None:
                crawler.signals.connect(on_parsed, signal=scrapy_signals.robots_parsed)
            return spider

    report = tmp_path / "report.json"
    crawler = await crawl(Spider, {**settings, "GBOT_ROBOTS_REPORT": str(report)})
    assert server.count("/robots.txt") == 1  # the restart fetched nothing
    assert crawler.spider.crawled == [server.url("/b")]
    if ROBOTS_PARSED_SIGNAL is not None:
        assert parsed == [("http://s.test/sm",)]
    data = json.loads(report.read_text())
    (row,) = data["origins"]
    assert row["state"] == "rules" and row["source"] == "store"
    assert row["requests"]["forbidden"] == 1 and row["requests"]["allowed"] == 1
