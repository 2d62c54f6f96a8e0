"""The Redis lot alone (``parking/redis.py``), against a real ``redis-server``, no crawl.

What a scrapy-redis fleet relies on: one FIFO per origin that any worker can take over, the
index kept in step with the lists, items that cannot be serialised kept in this worker's
memory, malformed elements returned rather than lost, a Redis outage answered from memory
without losing an item, and bounded work per call (``waiting``, ``take_parked_before``,
``flush``). The fleet's crawls are in tests/crawl/test_fleet.py.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _lots import A, B, redis_lot
from _redisserver import RedisServer, missing, running_redis

REASON = missing()
pytestmark = [pytest.mark.crawl, pytest.mark.skipif(REASON is not None, reason=str(REASON))]

INDEX = "spider:gbot_robots:parked_index"
LISTS = "spider:gbot_robots:parked:"


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    with running_redis(tmp_path / "redis") as server:
        yield server


def test_lot_is_one_fifo_per_origin_shared_by_workers(rs: RedisServer) -> None:
    one, two = redis_lot(rs.port), redis_lot(rs.port)
    for i in range(5):
        one.push(A, f"a{i}", 100.0 + i)
    two.push(B, "b0", 99.5)
    two.push(B, "b1", 200.0)
    assert one.waiting() == two.waiting() == [(B, 2), (A, 5)]  # oldest first
    assert one.oldest(A) == 100.0 and two.peek(A) == "a0"
    assert two.take(A, 2) == ["a0", "a1"]  # another worker takes what the first parked
    client = rs.client()
    assert client.zscore(INDEX, A) == 102.0  # the new head's time
    assert one.take_parked_before(A, 103.0) == ["a2", "a3"]
    assert one.oldest(A) == 104.0
    assert one.take(A, 10) == ["a4"]
    assert client.zscore(INDEX, A) is None  # empty: unindexed
    assert one.take(A, 10) == [] and one.oldest(A) is None and one.peek(A) is None
    assert one.waiting() == [(B, 2)]
    assert one.close(persist=False) == []  # items belong to the fleet: kept in Redis
    assert two.take(B, 10) == ["b0", "b1"]
    assert client.keys("spider:gbot_robots:*") == []


def test_a_worker_that_closes_leaves_its_items_for_the_next_in_arrival_order(
    rs: RedisServer,
) -> None:
    first = redis_lot(rs.port)
    for i in range(6):
        first.push(A if i % 2 else B, f"i{i}", 10.0 + i)
    assert first.close(persist=True) == []
    resumed = redis_lot(rs.port)  # a worker started later, or the same one resumed
    assert resumed.waiting() == [(B, 3), (A, 3)]
    assert resumed.take(B, 10) == ["i0", "i2", "i4"]
    assert resumed.take(A, 10) == ["i1", "i3", "i5"]


def test_the_count_is_this_workers_estimate_and_never_negative(rs: RedisServer) -> None:
    one, two = redis_lot(rs.port), redis_lot(rs.port)
    for i in range(3):
        one.push(A, f"a{i}", float(i))
    assert (len(one), len(two)) == (3, 0)
    assert two.take(A, 10) == ["a0", "a1", "a2"]  # taken by a worker that parked none
    assert len(two) == 0
    assert len(one) == 3  # it cannot know: the gate treats a shared lot's counts as estimates


def test_lot_keeps_unserialisable_items_in_memory_and_returns_them_at_close(
    rs: RedisServer,
) -> None:
    lot, other = redis_lot(rs.port), redis_lot(rs.port)
    lot.push(A, "a0", 1.0)
    lot.push(A, "x-callback", 2.0)
    lot.push(A, "a2", 3.0)
    assert other.waiting() == [(A, 2)]  # the fleet sees only what it can take over
    assert lot.waiting() == [(A, 3)]
    assert lot.take(A, 2) == ["a0", "a2"]  # Redis items first, then this process's own
    assert lot.take(A, 5) == ["x-callback"]
    lot.push(A, "x-again", 4.0)
    lot.push(A, "a5", 5.0)
    assert lot.unserialisable == 2
    assert lot.close(persist=True) == [(A, "x-again")]
    assert other.take(A, 5) == ["a5"]


def test_lot_malformed_elements_are_returned_not_lost(rs: RedisServer) -> None:
    lot = redis_lot(rs.port)
    client = rs.client()
    client.rpush(f"{LISTS}{A}", b"\x01")  # shorter than a park time
    client.zadd(INDEX, {A: 0})
    lot.push(A, "a1", 5.0)
    assert lot.take_parked_before(A, 1.0) == [""]  # unreadable time counts as oldest
    assert lot.take(A, 5) == ["a1"]


def test_an_element_the_codec_cannot_read_comes_back_as_its_placeholder(
    rs: RedisServer,
) -> None:
    lot = redis_lot(rs.port)
    lot.push(A, "a0", 1.0)
    rs.client().rpush(f"{LISTS}{A}", b"\x00" * 8 + b"\xff\xfe")  # a park time, then garbage
    lot.push(A, "a2", 3.0)
    assert lot.take(A, 5) == ["a0", "?fffe", "a2"]


def test_lot_falls_back_to_memory_while_redis_fails_then_hands_items_to_the_fleet(
    rs: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_gbot_robots")
    lot = redis_lot(rs.port)
    lot.push(A, "a0", 1.0)
    rs.kill()
    for i in range(1, 4):
        lot.push(A, f"a{i}", 1.0 + i)  # no exception: kept in this process
    assert lot.take(A, 1) == ["a1"]  # Redis items cannot be reached: ours still can
    assert lot.waiting() == [(A, 2)]
    assert lot.counters()["outages"] == 1 and lot.counters()["errors"] >= 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "memory" in warnings[0], warnings
    rs.restart()  # empty: it had no persistence (a0 is gone with it, as Redis went)
    deadline = time.monotonic() + 5
    while len(rs.client().keys(f"{LISTS}*")) == 0:
        assert time.monotonic() < deadline, "the kept items never reached Redis"
        time.sleep(0.05)
        lot.flush()  # the gate's tick
    assert redis_lot(rs.port).take(A, 10) == ["a2", "a3"]  # another worker can take them now
    assert lot.close(persist=True) == []
    assert lot.counters()["outages"] == 1  # one outage, however many calls failed in it
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 1 and "answers again" in infos[0], infos


def test_lot_close_hands_memory_items_to_redis_even_during_the_backoff(rs: RedisServer) -> None:
    """Redis came back while the lot still waits out its backoff, and the worker closes: the
    items parked in its memory go to the fleet, not to ``parked_request_dropped``."""
    lot = redis_lot(rs.port, backoff=60.0)
    rs.kill()
    for i in range(300):
        lot.push(A if i % 3 else B, f"i{i}", 1.0 + i)
    rs.restart()
    assert lot.close(persist=True) == []
    other = redis_lot(rs.port)
    assert other.take(A, 1000) == [f"i{i}" for i in range(300) if i % 3]  # in order
    assert other.take(B, 1000) == [f"i{i}" for i in range(0, 300, 3)]


def test_lot_reads_bytes_even_when_the_project_decodes_responses(rs: RedisServer) -> None:
    lot = redis_lot(rs.port, decode_responses=True)  # scrapy-redis's REDIS_DECODE_RESPONSES
    lot.push(A, "a0", 1.0)
    assert lot.waiting() == [(A, 1)]
    assert lot.take(A, 1) == ["a0"]


def test_each_call_does_bounded_work(rs: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from scrapy_gbot_robots.parking import redis as redis_parking

    monkeypatch.setattr(redis_parking, "WAITING_LIMIT", 3)
    monkeypatch.setattr(redis_parking, "EXPIRE_LIMIT", 4)
    lot = redis_lot(rs.port)
    origins = [f"http://o{i}.test" for i in range(5)]
    for i, origin in enumerate(origins):
        lot.push(origin, f"o{i}", float(i))
    assert lot.waiting() == [(o, 1) for o in origins[:3]]  # the oldest 3 only
    for i in range(10):
        lot.push(A, f"a{i}", 100.0 + i)
    assert lot.take_parked_before(A, 1e9) == ["a0", "a1", "a2", "a3"]  # then the next tick
    assert lot.take_parked_before(A, 1e9) == ["a4", "a5", "a6", "a7"]
    assert lot.take_parked_before(A, 1e9) == ["a8", "a9"]


def test_flush_hands_over_a_long_outages_backlog_a_bounded_part_at_a_time(
    rs: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scrapy_gbot_robots.parking import redis as redis_parking

    monkeypatch.setattr(redis_parking, "FLUSH_LIMIT", 2)
    lot = redis_lot(rs.port)
    rs.kill()
    origins = [f"http://o{i}.test" for i in range(4)]
    for i, origin in enumerate(origins):
        lot.push(origin, f"o{i}", float(i))
    rs.restart()
    time.sleep(0.1)  # past the 50 ms backoff
    lot.flush()
    client = rs.client()
    assert client.zcard(INDEX) == 2  # two origins this tick (whole origins at a time)
    lot.flush()
    assert client.zcard(INDEX) == 4
    assert [redis_lot(rs.port).take(o, 5) for o in origins] == [["o0"], ["o1"], ["o2"], ["o3"]]
