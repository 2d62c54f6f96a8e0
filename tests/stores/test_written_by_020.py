"""What 0.2.0 wrote stays readable: its SQLite store, its JOBDIR lot, its Redis keys.

Each file or key is written here the way 0.2.0 wrote it (its schemas and layouts copied
below, and the golden entry of ``test_entry``), not with today's code, so a change of
layout in a later version fails here.
"""

from __future__ import annotations

import asyncio
import pickle
import sqlite3
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_twisted
from _redisserver import RedisServer, missing, running_redis
from scrapy import Spider
from scrapy.http import Request
from test_entry import GOLDEN, GOLDEN_STATE, assert_same
from twisted.internet.defer import Deferred

from scrapy_gbot_robots.parking.codec import RequestCodec
from scrapy_gbot_robots.parking.sqlite import SqliteLot
from scrapy_gbot_robots.policy.fetch import FetchResult, conditional_headers, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig, Validators
from scrapy_gbot_robots.stores.sqlite import SqliteStore

A = "http://a.test"

#: The schemas 0.2.0 wrote: the store's (its _sqlite module) and the JOBDIR lot's (_parking).
STORE_SCHEMA_020 = """
CREATE TABLE IF NOT EXISTS robots (
    origin TEXT PRIMARY KEY,
    fetched_at REAL NOT NULL,
    entry BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS locks (
    origin TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires REAL NOT NULL
);
"""
LOT_SCHEMA_020 = """
CREATE TABLE IF NOT EXISTS parked (
    seq INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    parked_at REAL NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS parked_origin ON parked (origin, seq);
"""


class Pages(Spider):
    name = "pages"

    def parse_page(self, response: object) -> None:
        pass


def test_a_sqlite_store_written_by_020_is_read(tmp_path: Path) -> None:
    path = tmp_path / "robots.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(STORE_SCHEMA_020)
        db.execute("INSERT INTO robots VALUES (?, ?, ?)", (A, GOLDEN_STATE.fetched_at, GOLDEN))
    store = SqliteStore(str(path))
    assert_same(store.get_now(A), GOLDEN_STATE)
    store.close()


def test_a_copy_stored_by_020_is_refreshed_unconditionally_then_keeps_its_validators(
    tmp_path: Path,
) -> None:
    """Migration to 0.3.0's validators: the old entry is a copy without them (so its next
    refresh asks without ``If-None-Match``); the next 200's ``ETag`` is stored and read back."""
    path = tmp_path / "robots.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(STORE_SCHEMA_020)
        db.execute("INSERT INTO robots VALUES (?, ?, ?)", (A, GOLDEN_STATE.fetched_at, GOLDEN))
    store = SqliteStore(str(path))
    old = store.get_now(A)
    assert old is not None and old.robots is not None and old.validators is None
    assert conditional_headers(old) == (None, {})
    body = b"User-agent: *\nDisallow: /x\n"
    store.put_soon(A, evaluate(FetchResult(200, body, etag='"v1"'), 2000.0, old, PolicyConfig()))
    store.close()
    again = SqliteStore(str(path))
    assert conditional_headers(again.get_now(A)) == (Validators('"v1"'), {"If-None-Match": '"v1"'})
    again.close()


def test_a_jobdir_lot_written_by_020_is_resumed(tmp_path: Path) -> None:
    spider = Pages()
    request = Request(A + "/page", callback=spider.parse_page, meta={"k": 1}, priority=3)
    # 0.2.0's codec: Scrapy's disk-queue format, Request.to_dict() pickled with protocol 4.
    data = pickle.dumps(request.to_dict(spider=spider), protocol=4)
    path = tmp_path / "parked.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(LOT_SCHEMA_020)
        db.execute("INSERT INTO parked VALUES (1, ?, 50.0, ?)", (A, data))
    codec = RequestCodec(lambda: spider, lambda request, exc: None)
    lot = SqliteLot(str(path), codec.dumps, codec.loads)
    assert lot.waiting() == [(A, 1)] and lot.oldest(A) == 50.0
    [back] = lot.take(A, 10)
    assert isinstance(back, Request)
    assert (back.url, back.meta, back.priority) == (request.url, {"k": 1}, 3)
    assert back.callback == spider.parse_page
    lot.close(persist=True)


@pytest.fixture
def rs(tmp_path: Path) -> Iterator[RedisServer]:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with running_redis(tmp_path / "redis") as server:
        yield server


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_redis_keys_written_by_020_are_read(rs: RedisServer) -> None:
    from scrapy_gbot_robots.parking.redis import RedisLot
    from scrapy_gbot_robots.stores.redis import RedisStore

    client = rs.client()
    # 0.2.0's store layout: a hash with the fetch time and the entry bytes.
    client.hset(
        f"gbot_robots:origin:{A}",
        mapping={"fetched_at": repr(GOLDEN_STATE.fetched_at), "entry": GOLDEN},
    )
    store = RedisStore(rs.url, lock_wait=0.0)
    old = await Deferred.fromFuture(asyncio.ensure_future(store.load(A)))
    assert_same(old, GOLDEN_STATE)
    assert old is not None and old.validators is None  # refreshed without If-None-Match once
    # What 0.3.0 writes over it keeps the copy's validators, for every worker of the fleet.
    state = evaluate(FetchResult(200, b"", etag='"v1"'), 2000.0, old, PolicyConfig())
    store.put_soon(A, state)
    for _ in range(100):  # the write-behind queue sends within a few turns of the loop
        if not store.pending:
            break
        await Deferred.fromFuture(asyncio.ensure_future(asyncio.sleep(0.02)))
    other = RedisStore(rs.url, lock_wait=0.0)
    back = await Deferred.fromFuture(asyncio.ensure_future(other.load(A)))
    assert back is not None and back.validators == Validators('"v1"')
    other.close()
    store.close()
    # 0.2.0's lot layout: a list per origin of (8-byte park time + codec bytes), and an index.
    spider = Pages()
    request = Request(A + "/page", callback=spider.parse_page)
    element = struct.pack(">d", 50.0) + pickle.dumps(request.to_dict(spider=spider), protocol=4)
    client.rpush(f"pages:gbot_robots:parked:{A}", element)
    client.zadd("pages:gbot_robots:parked_index", {A: 50.0})
    codec = RequestCodec(lambda: spider, lambda request, exc: None)
    lot = RedisLot(client, "pages:gbot_robots", codec.dumps, codec.loads)
    assert lot.waiting() == [(A, 1)]
    [back] = lot.take(A, 10)
    assert isinstance(back, Request) and back.url == request.url
    assert back.callback == spider.parse_page
