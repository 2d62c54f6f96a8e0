"""The Redis store's write-behind queue, without Redis: the newer state wins, the queue is
bounded, unsent writes go back in order, and the close sees what a batch was sending."""

from __future__ import annotations

import asyncio

from _states import rules

from scrapy_gbot_robots.stores.entry import encode
from scrapy_gbot_robots.stores.redis_writes import PendingWrites


def test_a_newer_state_waiting_is_never_replaced_by_an_older_one() -> None:
    writes = PendingWrites(10)
    assert writes.put("http://a.test", rules(200.0)) == []
    assert writes.put("http://a.test", rules(100.0)) == []
    assert writes.get("http://a.test") == (200.0, encode(rules(200.0)))
    writes.put("http://a.test", rules(300.0))
    assert len(writes) == 1 and writes.pop("http://a.test") == (300.0, encode(rules(300.0)))


def test_past_the_bound_the_oldest_origins_are_given_up() -> None:
    writes = PendingWrites(2)
    writes.put("http://a.test", rules(1.0))
    writes.put("http://b.test", rules(1.0))
    assert writes.put("http://c.test", rules(1.0)) == ["http://a.test"]
    assert [origin for origin, _ in writes.next_batch(10)] == ["http://b.test", "http://c.test"]


def test_unsent_writes_go_back_first_unless_a_newer_one_arrived() -> None:
    writes = PendingWrites(3)
    for origin in ("http://a.test", "http://b.test"):
        writes.put(origin, rules(1.0))
    batch = writes.next_batch(10)
    writes.put("http://b.test", rules(5.0))  # newer, queued while the batch failed
    writes.put("http://c.test", rules(1.0))
    assert writes.requeue(batch) == 0
    assert writes.get("http://b.test") == (5.0, encode(rules(5.0)))
    order = [origin for origin, _ in writes.next_batch(10)]
    assert order == ["http://a.test", "http://b.test", "http://c.test"]
    writes.put("http://d.test", rules(1.0))
    assert writes.requeue([(o, (1.0, b"x")) for o in ("http://e.test", "http://f.test")]) == 0
    assert writes.requeue([("http://g.test", (1.0, b"x"))]) == 1  # the bound holds


def test_the_close_writes_what_a_batch_was_sending_and_what_waits() -> None:
    loop = asyncio.new_event_loop()
    try:
        writes = PendingWrites(10)
        writes.put("http://a.test", rules(1.0))
        writes.put("http://b.test", rules(1.0))
        batch = writes.next_batch(1)
        done: asyncio.Future[None] = loop.create_future()
        writes.sending(batch, done)
        assert writes.inflight("http://a.test") is done
        assert [o for o, _ in writes.drain()] == ["http://a.test", "http://b.test"]
        assert len(writes) == 0
        writes.sent(batch, done)
        assert writes.inflight("http://a.test") is None and writes.drain() == []
    finally:
        loop.close()
