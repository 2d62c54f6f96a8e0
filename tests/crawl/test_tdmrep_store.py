"""``crawl/tdmrep_store.py``: each origin's ``tdmrep.json`` answer as a stored entry, read back
fresh or not at all, and the memory bound. Fast: a real SQLite store in a temporary folder and
a clock moved by hand, no crawl (issue 49)."""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
from _httpserver import FakeClock

from scrapy_gbot_robots.crawl.tdmrep_store import TdmRepFiles, entries_of, key_of, state_of
from scrapy_gbot_robots.policy.origin import origin_of
from scrapy_gbot_robots.policy.states import Kind, PolicyConfig
from scrapy_gbot_robots.preferences.tdmrep import TdmEntry, parse_file
from scrapy_gbot_robots.stores.entry import decode, encode
from scrapy_gbot_robots.stores.sqlite import SqliteStore

T = TypeVar("T")
CFG = PolicyConfig()
DAY = 86400.0
TDMREP = (
    b'[{"location": "/images/*", "tdm-reservation": 1}, {"location": "/", "tdm-reservation": 0}]'
)
ORIGIN = "https://example.com"


def _round_trip(status: int | None, body: bytes = b"", cache_control: str | None = None) -> Kind:
    state = state_of(status, body, cache_control, 1000.0, CFG)
    back = decode(encode(state))
    assert back is not None
    assert back.kind is state.kind and back.refresh_at == state.refresh_at
    assert entries_of(back, CFG.max_bytes) == entries_of(state, CFG.max_bytes)
    return back.kind


def test_a_file_is_stored_raw_and_parsed_again_on_load() -> None:
    assert _round_trip(200, TDMREP) is Kind.RULES
    state = decode(encode(state_of(200, TDMREP, None, 1000.0, CFG)))
    assert state is not None and state.robots is not None and state.robots.body == TDMREP
    entries = entries_of(state, CFG.max_bytes)
    assert entries == parse_file(TDMREP) and [e.reserved for e in entries] == [True, False]
    assert state.refresh_at == 1000.0 + CFG.cache_ttl  # robots.txt's 24 h by default


def test_no_file_and_a_failed_fetch_reserve_nothing_and_a_failure_is_kept_briefly() -> None:
    assert _round_trip(404) is Kind.ALLOW_ALL
    assert state_of(404, b"", None, 0.0, CFG).refresh_at == CFG.cache_ttl
    for status in (None, 429, 503):
        assert _round_trip(status) is Kind.SERVER_ERROR
        state = state_of(status, b"", None, 0.0, CFG)
        assert state.refresh_at == CFG.retry_backoff and entries_of(state, CFG.max_bytes) == ()
    broken = state_of(200, b"{not json", None, 0.0, CFG)
    assert broken.kind is Kind.RULES and entries_of(broken, CFG.max_bytes) == ()


def test_max_age_sets_the_expiry_within_the_bounds() -> None:
    assert state_of(200, TDMREP, "max-age=7200", 0.0, CFG).refresh_at == 7200.0
    assert state_of(200, TDMREP, "max-age=1", 0.0, CFG).refresh_at == CFG.min_ttl
    assert state_of(404, b"", "max-age=99999999", 0.0, CFG).refresh_at == CFG.max_ttl


def test_the_key_is_never_an_origin() -> None:
    key = key_of(ORIGIN)
    assert key == ORIGIN + "/.well-known/tdmrep.json"
    assert origin_of(key) == ORIGIN != key  # an origin's key has no path


def _now(step: Coroutine[Any, Any, T]) -> T:
    """The answer of a coroutine that never waits (the SQLite store's ``load`` does not)."""
    try:
        step.send(None)
    except StopIteration as done:
        return cast("T", done.value)
    step.close()
    raise AssertionError("the coroutine waited")


def test_a_stored_answer_is_read_back_while_fresh_then_fetched_again(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    path = str(tmp_path / "robots.db")
    first = TdmRepFiles(size=10, persistent=SqliteStore(path), clock=clock, policy=CFG)
    assert _now(first.load(ORIGIN)) is None  # nothing stored: fetch
    first.put(ORIGIN, 200, TDMREP)
    first.close()
    store = SqliteStore(path)
    assert store.get_now(ORIGIN) is None  # the robots.txt state of the origin is untouched
    second = TdmRepFiles(size=10, persistent=store, clock=clock, policy=CFG)
    assert second.get(ORIGIN) is None  # not in this run's memory yet
    assert _now(second.load(ORIGIN)) == parse_file(TDMREP)
    assert second.get(ORIGIN) == parse_file(TDMREP) and second.reads == 1
    clock.advance(CFG.cache_ttl)
    assert second.get(ORIGIN) is None  # expired in memory
    assert _now(second.load(ORIGIN)) is None  # and in the store: fetch again
    second.close()


def test_an_unreadable_entry_is_fetched_again(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SqliteStore(str(tmp_path / "robots.db"))
    data = bytearray(encode(state_of(200, TDMREP, None, clock(), CFG)))
    data[3] = 99  # a format version this package cannot read
    store._db.execute(
        "INSERT INTO robots (origin, fetched_at, entry) VALUES (?, ?, ?)",
        (key_of(ORIGIN), clock(), bytes(data)),
    )
    files = TdmRepFiles(size=10, persistent=store, clock=clock, policy=CFG)
    assert _now(files.load(ORIGIN)) is None  # "fetch again", never "no reservation"
    files.close()


def test_the_memory_keeps_at_most_size_origins_the_least_recently_used_go() -> None:
    clock = FakeClock()
    files = TdmRepFiles(size=2, persistent=None, clock=clock, policy=CFG)
    for name in ("a", "b"):
        files.put(f"https://{name}.test", 200, TDMREP)
    assert files.get("https://a.test") is not None  # a is now the most recently used
    files.put("https://c.test", 404)
    assert len(files) == 2
    assert files.get("https://b.test") is None
    assert files.get("https://a.test") == parse_file(TDMREP)
    assert files.get("https://c.test") == ()


def test_find_fetches_once_then_reads_what_was_stored(tmp_path: Path) -> None:
    clock = FakeClock()
    path = str(tmp_path / "robots.db")
    fetched: list[str] = []
    read: list[tuple[str, int]] = []

    def files() -> TdmRepFiles:
        store = SqliteStore(path)
        return TdmRepFiles(
            size=10,
            persistent=store,
            clock=clock,
            policy=CFG,
            on_read=lambda origin, n: read.append((origin, n)),
        )

    first = files()

    async def fetch() -> tuple[TdmEntry, ...]:
        fetched.append(ORIGIN)
        return first.put(ORIGIN, 200, TDMREP)

    assert _now(first.find(ORIGIN, fetch)) == parse_file(TDMREP)
    assert _now(first.find(ORIGIN, fetch)) == parse_file(TDMREP)  # from memory
    first.close()
    second = files()
    assert _now(second.find(ORIGIN, fetch)) == parse_file(TDMREP)  # from the file
    second.close()
    assert fetched == [ORIGIN] and read == [(ORIGIN, 2)]
    assert SqliteStore(path)._db.execute("SELECT COUNT(*) FROM locks").fetchone()[0] == 0


def test_a_store_error_is_logged_at_the_close(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SqliteStore(str(tmp_path / "robots.db"))
    files = TdmRepFiles(size=10, persistent=store, clock=FakeClock(), policy=CFG)
    store._db.close()  # the file goes away under the crawl
    assert files.put(ORIGIN, 200, TDMREP) == parse_file(TDMREP)  # kept in memory anyway
    with caplog.at_level(logging.WARNING, logger="scrapy_gbot_robots"):
        files.close()
    assert [r.getMessage() for r in caplog.records if "tdmrep.json answers" in r.getMessage()]


def test_the_entries_are_ones_a_020_worker_could_read() -> None:
    """Version 1 of the format, and only the header keys 0.2.0 wrote (no validators): a 0.2
    worker of the fleet never asks for the key, and could read the entry if it did."""
    keys_020 = {"kind", "reason", "fetched_at", "refresh_at", "good_at", "error_since"}
    keys_020 |= {"errors", "status", "page_ok_at", "truncated", "body"}
    for status in (200, 404, None):
        data = encode(state_of(status, TDMREP, "max-age=600", 0.0, CFG))
        magic, version, size = struct.unpack_from(">3sBI", data)
        assert (magic, version) == (b"GBR", 1)
        assert set(json.loads(data[8 : 8 + size])) == keys_020
