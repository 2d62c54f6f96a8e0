"""A hung Redis never freezes the crawl for long through the fleet's lot (issue 24, item 4).

The lot runs its Redis calls on the reactor. Through scrapy-redis's client (socket timeout
30 s, retried on a timeout) one call to a Redis that stopped answering froze the crawl for 30 s
or more. The lot now calls through a client of its own, built from the same connection
parameters, whose every call gives up after ``CALL_TIMEOUT`` (1 s), counted in ``timeouts``.

A real ``redis-server``, paused with SIGSTOP (it keeps its sockets and answers nothing, as a
hung server or a network that drops packets does), and the client scrapy-redis itself builds
from a project's settings (``get_redis_from_settings``, its defaults included).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _redisserver import RedisServer, missing, running_redis

REASON = missing(scrapy_redis=True)
pytestmark = [pytest.mark.crawl, pytest.mark.skipif(REASON is not None, reason=str(REASON))]

A = "http://a.test"
#: Well above CALL_TIMEOUT (1 s), well below scrapy-redis's 30 s: a loaded machine's margin.
BOUND = 3.0
#: When the test wakes Redis up by itself, so that old code (30 s timeouts) ends the test
#: in seconds too, failing on the time it took.
WAKE_AFTER = 6.0


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        try:
            yield server
        finally:
            server.resume()  # never leave a stopped server behind (stop() SIGCONTs too)


def scrapy_redis_client(rs: RedisServer) -> Any:
    """The client a scrapy-redis scheduler holds (``scheduler.server``), from settings."""
    from scrapy.settings import Settings
    from scrapy_redis.connection import get_redis_from_settings  # type: ignore[import-untyped]

    return get_redis_from_settings(Settings({"REDIS_URL": rs.url}))


def _lot(rs: RedisServer, **kwargs: Any) -> Any:
    from scrapy_gbot_robots.parking.redis import RedisLot

    return RedisLot(
        scrapy_redis_client(rs),
        "spider:gbot_robots",
        lambda item: item.encode(),
        lambda data: data.decode(),
        min_backoff=0.2,
        max_backoff=0.4,
        **kwargs,
    )


class Waker:
    """Resumes a paused server after ``WAKE_AFTER`` seconds unless the test did first."""

    def __init__(self, rs: RedisServer) -> None:
        self.timer = threading.Timer(WAKE_AFTER, rs.resume)

    def __enter__(self) -> Waker:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()


def _timed(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def test_scrapy_redis_client_would_wait_30_s() -> None:
    """The premise: what scrapy-redis builds waits 30 s for a reply, and retries."""
    import scrapy_redis.defaults  # type: ignore[import-untyped]

    assert scrapy_redis.defaults.REDIS_PARAMS["socket_timeout"] == 30
    assert scrapy_redis.defaults.REDIS_PARAMS["retry_on_timeout"] is True


def test_a_call_to_a_hung_redis_returns_within_the_bound_and_is_counted(
    rs: RedisServer,
) -> None:
    lot = _lot(rs)
    lot.push(A, "a0", 1.0)  # connected, Redis answering
    rs.pause()
    with Waker(rs):
        _, took = _timed(lambda: lot.push(A, "a1", 2.0))
        assert took < BOUND, f"a push to a hung Redis froze the crawl for {took:.1f} s"
        assert lot.counters()["timeouts"] == 1 and lot.counters()["outages"] == 1
        # While the backoff runs, no call reaches Redis: answered from memory at once.
        for call in (lambda: lot.waiting(), lambda: lot.push(A, "a2", 3.0)):
            _, took = _timed(call)
            assert took < 0.1
        time.sleep(0.45)  # the backoff is over: the next call tries Redis, bounded again
        _, took = _timed(lambda: lot.oldest(A))
        assert took < BOUND and lot.counters()["timeouts"] == 2
        rs.resume()
    time.sleep(0.45)
    lot.flush()  # Redis answers: the items kept in memory meanwhile go to Redis
    assert rs.client().llen("spider:gbot_robots:parked:" + A) == 3
    assert lot.take(A, 10) == ["a0", "a1", "a2"]  # none lost, in order
    assert lot.close(persist=False) == []


def test_connecting_to_a_hung_redis_is_bounded_too(rs: RedisServer) -> None:
    """A fresh connection to a stopped server: the kernel completes the handshake, the
    server never greets; and a server that does not even accept (a full backlog, a firewall
    dropping packets) is the connect timeout's case, bounded by the same value."""
    rs.pause()
    with Waker(rs):
        lot = _lot(rs)  # no connection made yet: the first call connects
        _, took = _timed(lambda: lot.waiting())
        assert took < BOUND
        assert lot.counters()["timeouts"] == 1


def test_a_take_whose_reply_was_lost_is_put_back_not_lost(rs: RedisServer) -> None:
    """A paused Redis runs a command when it wakes up, after the caller gave up: a take's
    items were popped and never received. Its receipt puts them back at the head."""
    lot = _lot(rs)
    for i in range(3):
        lot.push(A, f"a{i}", float(i))
    rs.pause()
    with Waker(rs):
        assert lot.take(A, 2) == []  # cut at the bound: nothing received
        assert lot.counters()["timeouts"] == 1
        rs.resume()
    client = rs.client()
    time.sleep(0.45)  # the backoff
    lot.flush()  # puts back what the lost take popped, if Redis ran it
    assert [x[8:].decode() for x in client.lrange("spider:gbot_robots:parked:" + A, 0, -1)] == [
        "a0",
        "a1",
        "a2",
    ]
    assert client.zscore("spider:gbot_robots:parked_index", A) == 0.0  # the head's park time
    assert lot.take(A, 10) == ["a0", "a1", "a2"]
    assert client.keys("spider:gbot_robots:receipt:*") == []  # no copy left behind
    assert lot.close(persist=False) == []
    assert client.keys("spider:gbot_robots:*") == []


def test_the_lot_keeps_the_connection_parameters_of_scrapy_redis(rs: RedisServer) -> None:
    """Same server and database, bytes replies, but its own timeouts and no retry."""
    from scrapy.settings import Settings
    from scrapy_redis.connection import get_redis_from_settings

    from scrapy_gbot_robots.parking.redis import CALL_TIMEOUT, RedisLot

    url = rs.url.replace("/0", "/3")
    server = get_redis_from_settings(Settings({"REDIS_URL": url, "REDIS_DECODE_RESPONSES": True}))
    lot: RedisLot[str] = RedisLot(server, "k", str.encode, bytes.decode)
    params = lot.server.connection_pool.connection_kwargs
    assert params["db"] == 3 and params["port"] == rs.port
    assert params["socket_timeout"] == params["socket_connect_timeout"] == CALL_TIMEOUT
    assert params["decode_responses"] is False and params["retry_on_timeout"] is False
    assert server.connection_pool.connection_kwargs["socket_timeout"] == 30  # theirs untouched
    lot.push(A, "x", 1.0)
    client = rs.client()
    client.select(3)
    assert client.llen("k:parked:" + A) == 1
    assert lot.take(A, 1) == ["x"]
