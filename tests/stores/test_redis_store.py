"""The Redis store alone, against a real ``redis-server`` (no Scrapy crawl).

What a fleet relies on: a state written by one process is read by another; a write never
replaces a newer entry, whoever wrote it; one process at a time holds an origin's fetch lock,
a dead holder's lock expires, a live holder's does not; unreadable entries read as "unknown"
(a refetch); and Redis being away never raises, never blocks, warns once per outage, and
loses no write that fits the queue.

The coroutines run as asyncio tasks on the reactor's loop (the asyncio reactor), exactly as
the middleware runs them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
import pytest_twisted
from _redisserver import RedisServer, free_port, missing, running_redis
from _states import CFG, RULES, rules, same
from twisted.internet.defer import Deferred

pytestmark = [
    pytest.mark.crawl,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]

if missing() is None:
    from scrapy_gbot_robots._redact import redacted
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.stores.entry import encode
    from scrapy_gbot_robots.stores.redis import RedisStore

T0 = 1_700_000_000.0
A = "http://a.test"
R = TypeVar("R")


def aio(coro: Coroutine[Any, Any, R]) -> Deferred[R]:
    """Run ``coro`` as an asyncio task on the reactor's loop (as Scrapy runs coroutines)."""
    return Deferred.fromFuture(asyncio.ensure_future(coro))


async def until(condition: Any, timeout: float, what: str) -> None:
    """Wait (bounded) for ``condition()``, yielding to the loop between looks."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        yield server


def backing(url: str, **kwargs: Any) -> RedisStore:
    """A backing with fast reconnects; a taken lock answers False at once unless asked."""
    kwargs.setdefault("min_backoff", 0.05)
    kwargs.setdefault("max_backoff", 0.2)
    kwargs.setdefault("lock_wait", 0.0)
    return RedisStore(url, **kwargs)


def store_warnings(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "scrapy_gbot_robots.stores.redis" and r.levelno == level
    ]


# -- round trip -----------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_round_trip_between_two_processes_view(rs: RedisServer) -> None:
    async def body() -> None:
        ok = rules(T0)
        failing = evaluate(FetchResult(503), T0 + 90_000, ok, CFG)
        gone = evaluate(FetchResult(404), T0, None, CFG)
        writer = backing(rs.url)
        assert writer.get_now(A) is None
        for origin, state in ((A, ok), ("https://b.test", failing), ("http://c:8080", gone)):
            writer.put_soon(origin, state)
            assert writer.get_now(origin) is state  # the memo answers at once, no round trip
        client = rs.client()
        await until(lambda: client.exists(writer.origin_key("http://c:8080")), 5, "the writes")
        # The layout: a hash holding the _entry bytes exactly, and the fetch time beside them.
        stored = client.hgetall(f"gbot_robots:origin:{A}")
        assert stored == {b"fetched_at": repr(T0).encode(), b"entry": encode(ok)}
        assert client.ttl(f"gbot_robots:origin:{A}") == -1  # no expiry: the times decide
        reader = backing(rs.url)  # another process: empty memo
        assert reader.get_now(A) is None
        for origin, state in ((A, ok), ("https://b.test", failing), ("http://c:8080", gone)):
            assert same(await reader.load(origin), state)
        assert same(reader.get_now(A), ok)  # what was loaded is memoised
        assert await reader.load("http://never.test") is None
        assert reader.errors == writer.errors == reader.outages == 0
        writer.close()
        reader.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_cache_keep_makes_keys_expire_after_their_fetch_time(rs: RedisServer) -> None:
    """GBOT_ROBOTS_STORE_KEEP: the key lives ``keep`` seconds past its ``fetched_at``."""

    async def body() -> None:
        day = 86_400.0
        keeping = backing(rs.url, keep=61 * day)
        client = rs.client()
        now = time.time()
        keeping.put_soon(A, rules(now - 60 * day))  # fetched 60 days ago: one day left
        keeping.put_soon("http://old.test", rules(now - 62 * day))  # past the window
        await keeping.release(A)
        await keeping.release("http://old.test")
        left = client.pttl(keeping.origin_key(A)) / 1000
        assert 0.9 * day < left <= day
        assert not client.exists(keeping.origin_key("http://old.test"))
        forever = backing(rs.url)  # keep 0: a newer write of the origin clears the expiry
        forever.put_soon(A, rules(now))
        await forever.release(A)
        assert client.ttl(forever.origin_key(A)) == -1
        keeping.close()
        forever.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_release_writes_the_state_before_unlocking(rs: RedisServer) -> None:
    """Whoever takes the lock next must find the holder's result, not fetch again."""

    async def body() -> None:
        holder, other = backing(rs.url), backing(rs.url)
        assert await holder.acquire(A, 30)
        state = rules(T0)
        holder.put_soon(A, state)
        await holder.release(A)
        assert await other.acquire(A, 30)  # free at once...
        assert same(await other.load(A), state)  # ...and the state is already there
        await other.release(A)
        holder.close()
        other.close()

    await aio(body())


def test_name_hides_the_password() -> None:
    assert redacted("redis://user:secret@h:6380/2") == "redis://user:***@h:6380/2"
    assert redacted("rediss://:pw@h/0") == "rediss://:***@h/0"
    assert redacted("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    assert RedisStore("redis://:pw@h:1/0").name == "redis://:***@h:1/0"


# -- ordering ---------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_an_older_write_never_replaces_a_newer_one(rs: RedisServer) -> None:
    async def body() -> None:
        first, second = backing(rs.url), backing(rs.url)
        new, old = rules(T0 + 100, b"User-agent: *\nDisallow: /new\n"), rules(T0)
        first.put_soon(A, new)
        await first.release(A)  # writes now
        second.put_soon(A, old)  # another process, an older fetch, written later
        await second.release(A)
        check = backing(rs.url)
        assert same(await check.load(A), new)
        # The same fetch time replaces (a page answered during an error streak).
        newer_note = replace(new, page_ok_at=T0 + 150)
        second.put_soon(A, newer_note)
        await second.release(A)
        assert same(await check.load(A), newer_note)

        # Two writers racing with 40 fetch times each, in shuffled orders: the newest wins.
        times = [T0 + 1000 + i for i in range(80)]
        order_a, order_b = times[0::2][::-1], times[1::2]
        for t_a, t_b in zip(order_a, order_b, strict=True):
            first.put_soon("http://race.test", rules(t_a))
            second.put_soon("http://race.test", rules(t_b))
            await asyncio.sleep(0)
        await first.release("http://race.test")
        await second.release("http://race.test")
        raced = await check.load("http://race.test")
        assert raced is not None and raced.fetched_at == max(times)
        for b in (first, second, check):
            assert b.write_errors == 0
            b.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_unknown_versions_keep_their_order_garbage_is_replaced(rs: RedisServer) -> None:
    """A newer package's entry is not overwritten by an older fetch; garbage always is."""

    async def body() -> None:
        client = rs.client()
        b = backing(rs.url)
        future = encode(rules(T0 + 500))
        future = future[:3] + b"\x09" + future[4:]
        client.hset(b.origin_key(A), mapping={"fetched_at": repr(T0 + 500), "entry": future})
        assert await b.load(A) is None  # unreadable for us: the caller refetches
        b.put_soon(A, rules(T0))
        await b.release(A)
        assert client.hget(b.origin_key(A), "entry") == future  # newer: kept
        b.put_soon(A, rules(T0 + 600))
        await b.release(A)
        assert same(await b.load(A), rules(T0 + 600))  # newer than it: replaces it

        garbage = "http://garbage.test"
        client.hset(b.origin_key(garbage), mapping={"fetched_at": "9e99", "entry": b"junk"})
        b.put_soon(garbage, rules(T0))
        await b.release(garbage)
        assert same(await b.load(garbage), rules(T0))

        wrong_type = "http://string.test"
        client.set(b.origin_key(wrong_type), b"not a hash")
        assert await b.load(wrong_type) is None
        b.put_soon(wrong_type, rules(T0))
        await b.release(wrong_type)
        assert same(await b.load(wrong_type), rules(T0))
        assert b.write_errors == 0 and b.last_error is None
        b.close()

    await aio(body())


def _entries() -> dict[str, bytes]:
    good = encode(rules(T0, RULES * 20))  # compressed body
    return {
        "garbage": b"\x00\xffnot an entry at all",
        "empty": b"",
        "truncated": good[: len(good) // 2],
        "future version": good[:3] + b"\x02" + good[4:],
        "version 0": good[:3] + b"\x00" + good[4:],
        "bad header": b"GBR\x01\x00\x00\x00\x05{oops",
    }


@pytest.mark.parametrize("case", list(_entries()))
@pytest_twisted.ensureDeferred
async def test_unreadable_entries_load_as_none(rs: RedisServer, case: str) -> None:
    async def body() -> None:
        b = backing(rs.url)
        rs.client().hset(
            b.origin_key(A), mapping={"fetched_at": repr(T0), "entry": _entries()[case]}
        )
        assert await b.load(A) is None
        assert b.get_now(A) is None
        assert b.errors == 0  # bad data is not a store failure
        b.close()

    await aio(body())


# -- locks ----------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_one_holder_at_a_time_and_only_the_holder_releases(rs: RedisServer) -> None:
    async def body() -> None:
        first, second = backing(rs.url), backing(rs.url)
        client = rs.client()
        assert await first.acquire(A, 30)
        assert client.get(first.lock_key(A)) == first.token.encode()
        assert first.token.startswith(f"{__import__('os').getpid()}-")  # who holds it
        assert not await second.acquire(A, 30)
        await second.release(A)  # not the holder: ignored
        assert client.get(first.lock_key(A)) == first.token.encode()
        assert not await second.acquire(A, 30)
        assert await first.acquire(A, 30)  # the holder may take it again
        assert await second.acquire("http://other.test", 30)  # per origin
        await first.release(A)
        assert client.get(first.lock_key(A)) is None
        assert await second.acquire(A, 30)
        await second.release(A)
        await second.release("http://other.test")
        assert client.keys("gbot_robots:lock:*") == []
        first.close()
        second.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_a_lock_taken_by_an_acquire_whose_reply_was_lost_is_released(
    rs: RedisServer,
) -> None:
    """The script ran but its answer timed out: the caller fetched as if it held no lock.

    Its release must still free the lock (token-checked), not leave every other worker
    waiting for the TTL.
    """

    async def body() -> None:
        b = backing(rs.url)
        client = rs.client()
        client.set(b.lock_key(A), b.token.encode(), px=60_000)  # what the lost reply took
        await b.release(A)
        assert client.get(b.lock_key(A)) is None
        b.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_a_dead_holders_lock_expires(rs: RedisServer) -> None:
    """A process that died holding the lock left it with its TTL: the next one waits it out."""

    async def body() -> None:
        b = backing(rs.url)
        rs.client().set(b.lock_key(A), b"12345-deadbeef", px=400)
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert not await b.acquire(A, 30)
        tries = 0
        while not await b.acquire(A, 30):
            tries += 1
            assert tries < 500, "the dead holder's lock never expired"
            await asyncio.sleep(0.02)
        assert loop.time() - started >= 0.3
        await b.release(A)
        b.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_a_live_holder_keeps_its_lock_past_the_ttl(rs: RedisServer) -> None:
    """Renewed every third of its TTL: it outlives the TTL many times over.

    The TTL is a second so that a stall of the test machine shorter than two thirds of it
    (CI's failed once at 0.3 s) cannot let the lock lapse between renewals.
    """

    async def body() -> None:
        holder, other = backing(rs.url), backing(rs.url)
        assert await holder.acquire(A, 1.0)
        await asyncio.sleep(2.5)  # two and a half TTLs: renewed meanwhile
        assert not await other.acquire(A, 30)
        assert 0 < rs.client().pttl(holder.lock_key(A)) <= 1000
        holder.close()  # closing frees its locks at once
        assert await other.acquire(A, 30)
        other.close()
        assert rs.client().get(other.lock_key(A)) is None

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_a_waiter_gets_the_lock_as_soon_as_the_holder_is_done(rs: RedisServer) -> None:
    """Instead of the caller's next look a second later: the holder's state, at once."""

    async def body() -> None:
        holder = backing(rs.url)
        waiter = backing(rs.url, lock_wait=2.0)
        loop = asyncio.get_running_loop()
        assert await holder.acquire(A, 30)
        state = rules(T0)

        async def fetch_then_release() -> None:
            await asyncio.sleep(0.3)
            holder.put_soon(A, state)
            await holder.release(A)

        task = asyncio.ensure_future(fetch_then_release())
        started = loop.time()
        assert await waiter.acquire(A, 30)
        waited = loop.time() - started
        assert 0.25 <= waited < 0.8, waited  # the release, plus at most one 160 ms look
        assert same(await waiter.load(A), state)  # the caller adopts it, no fetch
        await waiter.release(A)
        await task

        # A holder that does not let go: False after the bounded wait, not before.
        assert await holder.acquire(A, 30)
        started = loop.time()
        assert not await waiter.acquire(A, 30)
        assert 1.7 <= loop.time() - started < 3.0
        holder.close()
        waiter.close()

    await aio(body())


# -- faults ---------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_redis_down_at_start_then_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    rs = RedisServer(tmp_path / "late", free_port())  # nothing listens there yet

    async def body() -> None:
        b = backing(rs.url)
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert await b.load(A) is None
        assert await b.acquire(A, 30)  # nobody to ask: fetch locally
        state = rules(T0)
        b.put_soon(A, state)
        await b.release(A)
        for i in range(20):  # a busy crawl meanwhile: answered at once, no new warning
            assert await b.load(f"http://o{i}.test") is None
            assert await b.acquire(f"http://o{i}.test", 30)
            b.put_soon(f"http://o{i}.test", rules(T0 + i))
            await b.release(f"http://o{i}.test")
        assert loop.time() - started < 2.0
        assert b.down and b.outages == 1 and b.errors >= 1
        assert b.pending == 21
        assert same(b.get_now(A), state)
        warnings = store_warnings(caplog)
        assert len(warnings) == 1 and "unreachable" in warnings[0], warnings
        assert b.last_error is None  # an outage is a WARNING here, not the ERROR of a failure

        rs.start()
        client = rs.client()
        await until(lambda: client.exists(b.origin_key(A)), 10, "the kept writes")
        await until(lambda: b.pending == 0, 10, "every kept write")
        for i in range(20):
            assert client.exists(b.origin_key(f"http://o{i}.test"))
        assert not b.down
        back = store_warnings(caplog, logging.INFO)
        assert len(back) == 1 and "is back" in back[0], back
        # Redis is used again: a real lock, visible to another process.
        assert await b.acquire(A, 30)
        other = backing(rs.url)
        assert not await other.acquire(A, 30)
        assert same(await other.load(A), state)
        await b.release(A)
        assert len(store_warnings(caplog)) == 1
        b.close()
        other.close()

    try:
        await aio(body())
    finally:
        rs.stop()


@pytest_twisted.ensureDeferred
async def test_outage_mid_use_keeps_the_latest_writes_up_to_the_cap(
    rs: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")

    async def body() -> None:
        b = backing(rs.url, max_pending=3)
        assert await b.load(A) is None  # connected
        rs.kill()
        assert await b.load(A) is None
        assert b.down and b.outages == 1
        b.put_soon(A, rules(T0 + 1))
        b.put_soon(A, rules(T0))  # older than the queued one: ignored
        for i in range(4):  # one more origin than the queue holds
            b.put_soon(f"http://o{i}.test", rules(T0 + 10 + i))
        assert b.pending == 3 and b.write_errors == 2  # A and o0, the oldest, given up
        warnings = store_warnings(caplog)
        assert len(warnings) == 2 and "unreachable" in warnings[0] and "given up" in warnings[1]

        rs.restart()
        client = rs.client()
        await until(lambda: b.pending == 0, 10, "the kept writes")
        assert not client.exists(b.origin_key(A))
        assert [bool(client.exists(b.origin_key(f"http://o{i}.test"))) for i in range(4)] == [
            False,
            True,
            True,
            True,
        ]
        # A second outage: a second WARNING, counted.
        rs.kill()
        b.put_soon(A, rules(T0 + 50))
        await until(lambda: b.down, 10, "the second outage to be noticed")
        assert b.outages == 2
        rs.restart()
        await until(lambda: b.pending == 0 and not b.down, 10, "the second recovery")
        assert same(await b.load(A), rules(T0 + 50))
        assert len([w for w in store_warnings(caplog) if "unreachable" in w]) == 2
        assert len(store_warnings(caplog, logging.INFO)) == 2
        b.close()

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_writes_queued_at_close_are_written(rs: RedisServer) -> None:
    """The spider closing right after a write (no task left to run) loses nothing."""

    async def body() -> None:
        b = backing(rs.url)
        assert await b.acquire(A, 30)
        b.put_soon(A, rules(T0))
        b.close()  # synchronous: writes, then frees the lock
        client = rs.client()
        assert client.hget(b.origin_key(A), "entry") == encode(rules(T0))
        assert client.get(b.lock_key(A)) is None
        b.put_soon(A, rules(T0 + 1))  # after close: ignored, no error
        assert b.write_errors == 0

    await aio(body())


@pytest_twisted.ensureDeferred
async def test_more_calls_at_once_than_connections_wait_for_one_and_are_no_outage(
    rs: RedisServer,
) -> None:
    """A fleet's budget can run hundreds of store calls at once. redis-py's asyncio pool used
    to refuse the 101st (``MaxConnectionsError``, a ``ConnectionError``), which the store took
    for an outage: it then fetched robots.txt locally (twice across the fleet, measured by
    ``bench_fleet.py scale``: 4,730 robots.txt for 4,000 origins) and left its locks to
    expire. The store's pool is bounded, and a call past it waits for a connection."""

    async def body() -> None:
        store = backing(rs.url)
        origins = [f"http://o{i}.test" for i in range(400)]
        for origin in origins:
            store.put_soon(origin, rules(T0))
        store.close()  # writes them all
        reader = backing(rs.url)
        loaded = await asyncio.gather(*(reader.load(o) for o in origins))
        locked = await asyncio.gather(*(reader.acquire(o, 30.0) for o in origins))
        assert all(state is not None for state in loaded)
        assert all(locked)
        assert reader.outages == 0 and reader.errors == 0
        assert len(rs.client().keys("gbot_robots:lock:*")) == len(origins)  # really taken
        reader.close()

    await aio(body())


def test_a_picked_port_taken_meanwhile_is_picked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper under the suite in parallel (docs/development.md): a port another worker's
    server took between the pick and the start is never mistaken for this server's own."""
    import _redisserver

    with running_redis(tmp_path / "first") as first:
        picks = iter([first.port, free_port()])
        monkeypatch.setattr(_redisserver, "free_port", lambda: next(picks))
        second = RedisServer(tmp_path / "second")
        assert second.port == first.port  # the race, made certain
        try:
            second.start()
            assert second.port != first.port and second.pid != first.pid
            assert second.client().info("server")["process_id"] == second.pid
            restarted = second.port
            second.restart()  # a restart keeps its port, as the outage tests need
            assert second.port == restarted
        finally:
            second.stop()
        assert first.client().ping()
