"""The SQLite backing and the LRU in front of it, on real files (pure: no Scrapy, no reactor).

What a crawl relies on: a state written is read back after a restart; a write never replaces
a newer entry, whichever connection or process made it; one process at a time holds an
origin's fetch lock; a file that cannot be used is refused when it is opened, with its path
in the message; an unreadable row reads as "unknown" (a refetch), never as an exception.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from _states import CFG, RULES, rules, same

from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import note_page_ok
from scrapy_gbot_robots.stores.entry import encode
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.sqlite import SqliteError, SqliteStore
from scrapy_gbot_robots.stores.tiered import TieredStore

T0 = 1_700_000_000.0
R = TypeVar("R")


def run(coro: Coroutine[Any, Any, R]) -> R:
    """Drive a coroutine that never suspends (the SQLite backing's are synchronous inside)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    coro.close()
    raise AssertionError("the coroutine suspended: the backing waited on something")


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cache" / "robots.db")


# -- round trip and ordering ----------------------------------------------------------------


def test_put_get_round_trip_and_survives_reopening(db: str) -> None:
    ok = rules(T0)
    failing = evaluate(FetchResult(503), T0 + 90_000, ok, CFG)
    gone = evaluate(FetchResult(404), T0, None, CFG)
    backing = SqliteStore(db)  # the directory is created
    assert backing.name == f"sqlite://{db}"
    for origin, state in (("http://a.test", ok), ("https://b.test", failing), ("http://c", gone)):
        backing.put_soon(origin, state)
    assert same(backing.get_now("http://a.test"), ok)
    assert same(run(backing.load("https://b.test")), failing)
    assert backing.get_now("http://unknown.test") is None
    assert len(backing) == 3 and backing.size_on_disk() > len(RULES) * 2
    backing.close()
    again = SqliteStore(db)  # a restart
    assert same(again.get_now("http://a.test"), ok)
    assert same(again.get_now("https://b.test"), failing)
    assert same(again.get_now("http://c"), gone)
    assert again.write_errors == 0
    again.close()


def test_an_older_write_never_replaces_a_newer_one(db: str) -> None:
    backing = SqliteStore(db)
    new, old = rules(T0 + 100, b"Disallow: /new\n"), rules(T0, b"Disallow: /old\n")
    backing.put_soon("http://a.test", new)
    backing.put_soon("http://a.test", old)
    assert same(backing.get_now("http://a.test"), new)
    newer = rules(T0 + 200, b"Disallow: /newer\n")
    backing.put_soon("http://a.test", newer)
    assert same(backing.get_now("http://a.test"), newer)
    backing.close()


def test_same_fetch_time_replaces_so_a_page_answer_is_stored(db: str) -> None:
    """``note_page_ok`` keeps ``fetched_at``: its update must not be refused as "older"."""
    backing = SqliteStore(db)
    failing = evaluate(FetchResult(503), T0, rules(T0 - 90_000), CFG)
    backing.put_soon("http://a.test", failing)
    answered = note_page_ok(failing, T0 + 30)
    assert answered is not None and answered.fetched_at == failing.fetched_at
    backing.put_soon("http://a.test", answered)
    got = backing.get_now("http://a.test")
    assert got is not None and got.page_ok_at == T0 + 30
    backing.close()


def test_ordering_holds_across_two_backings_on_one_file(db: str) -> None:
    first, second = SqliteStore(db), SqliteStore(db)
    new = rules(T0 + 10, b"Disallow: /from-first\n")
    first.put_soon("http://a.test", new)
    assert same(second.get_now("http://a.test"), new)  # visible at once to the other
    second.put_soon("http://a.test", rules(T0, b"Disallow: /stale\n"))
    assert same(first.get_now("http://a.test"), new)
    newer = rules(T0 + 20, b"Disallow: /from-second\n")
    second.put_soon("http://a.test", newer)
    assert same(first.get_now("http://a.test"), newer)
    assert first.write_errors == second.write_errors == 0
    first.close()
    second.close()


def test_ordering_holds_against_another_process(db: str) -> None:
    """A second crawl process on the same machine: its stale write loses, its newer one wins."""
    backing = SqliteStore(db)
    backing.put_soon("http://a.test", rules(T0 + 10, b"Disallow: /mine\n"))
    script = textwrap.dedent(
        f"""
        import sys
        from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
        from scrapy_gbot_robots.policy.states import PolicyConfig
        from scrapy_gbot_robots.stores.sqlite import SqliteStore

        other = SqliteStore(sys.argv[1])
        cfg = PolicyConfig()
        other.put_soon("http://a.test", evaluate(FetchResult(200, b"Disallow: /stale\\n"),
                                                 {T0}, None, cfg))
        other.put_soon("http://b.test", evaluate(FetchResult(200, b"Disallow: /theirs\\n"),
                                                 {T0 + 50}, None, cfg))
        print(other.write_errors)
        other.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, db], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
    a, b = backing.get_now("http://a.test"), backing.get_now("http://b.test")
    assert a is not None and a.robots is not None and a.robots.body == b"Disallow: /mine\n"
    assert b is not None and b.robots is not None and b.robots.body == b"Disallow: /theirs\n"
    assert b.fetched_at == T0 + 50
    backing.close()


# -- fetch locks ----------------------------------------------------------------------------


def test_one_lock_holder_at_a_time_and_only_the_holder_releases(db: str) -> None:
    a, b = SqliteStore(db), SqliteStore(db)
    assert a.holder != b.holder
    assert run(a.acquire("http://x.test", 60)) is True
    assert run(b.acquire("http://x.test", 60)) is False
    assert run(a.acquire("http://x.test", 60)) is True  # the holder may extend it
    assert run(b.acquire("http://y.test", 60)) is True  # locks are per origin
    run(b.release("http://x.test"))  # not b's lock: nothing happens
    assert run(b.acquire("http://x.test", 60)) is False
    run(a.release("http://x.test"))
    assert run(b.acquire("http://x.test", 60)) is True
    assert run(a.acquire("http://x.test", 60)) is False
    a.close()
    b.close()


def test_an_expired_lock_can_be_taken_and_its_old_holder_cannot_release_it(db: str) -> None:
    a, b = SqliteStore(db), SqliteStore(db)
    assert run(a.acquire("http://x.test", 0.5))  # a stalled machine still sees it held
    assert run(b.acquire("http://x.test", 60)) is False
    deadline = time.monotonic() + 5
    taken = False
    while not taken and time.monotonic() < deadline:  # a's lock lapses after 500 ms
        time.sleep(0.02)
        taken = run(b.acquire("http://x.test", 60))
    assert taken
    run(a.release("http://x.test"))  # a lost it: b keeps it
    assert run(a.acquire("http://x.test", 60)) is False
    a.close()
    b.close()


def test_closing_releases_the_holders_locks(db: str) -> None:
    a, b = SqliteStore(db), SqliteStore(db)
    assert run(a.acquire("http://x.test", 600)) and run(a.acquire("http://y.test", 600))
    assert run(b.acquire("http://z.test", 600))
    a.close()  # a crawl that ends does not make the others wait for its leases
    assert run(b.acquire("http://x.test", 60)) and run(b.acquire("http://y.test", 60))
    c = SqliteStore(db)
    assert run(c.acquire("http://z.test", 60)) is False  # b's own lock is untouched
    b.close()
    c.close()


# -- files that cannot be used --------------------------------------------------------------


def _refused(path: str, **kwargs: Any) -> str:
    started = time.monotonic()
    with pytest.raises(SqliteError) as info:
        SqliteStore(path, **kwargs)
    assert time.monotonic() - started < 5, "refusing a file must not hang"
    message = str(info.value)
    assert path in message, message
    return message


def test_a_directory_is_refused(tmp_path: Path) -> None:
    _refused(str(tmp_path))


def test_a_file_of_garbage_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "robots.db"
    garbage = b"this is not an SQLite file\n" * 200
    path.write_bytes(garbage)
    assert "not a database" in _refused(str(path))
    assert path.read_bytes() == garbage  # the user's file is never overwritten


def test_a_path_under_a_regular_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    _refused(str(tmp_path / "plain" / "robots.db"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")
def test_a_location_no_one_may_create_is_refused() -> None:
    """/proc takes no new directories, not even from root."""
    _refused("/proc/gbot-robots-test/robots.db")


def test_a_file_locked_by_another_connection_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "robots.db")
    SqliteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        assert "locked" in _refused(path, busy_timeout=0.2)
    finally:
        holder.close()
    SqliteStore(path).close()  # usable again once the other lets go


def test_a_rollback_journal_database_being_written_is_refused(tmp_path: Path) -> None:
    """Another program's database (not in WAL mode) in the middle of a write."""
    path = str(tmp_path / "robots.db")
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("CREATE TABLE other (x)")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("INSERT INTO other VALUES (1)")
        assert "locked" in _refused(path, busy_timeout=0.2)
    finally:
        holder.close()


@contextlib.contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Make files or directories unwritable, also for root (``chattr +i``); else skip."""
    if os.geteuid() != 0:
        modes = [p.stat().st_mode for p in paths]
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            yield
        finally:
            for p, mode in zip(paths, modes, strict=True):
                p.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("running as root without chattr: permissions cannot make a file read-only")
    done: list[Path] = []
    try:
        for p in paths:
            flag = subprocess.run([chattr, "+i", str(p)], capture_output=True, check=False)
            if flag.returncode != 0:
                pytest.skip(f"chattr +i is not supported here: {flag.stderr!r}")
            done.append(p)
        yield
    finally:
        for p in done:
            subprocess.run([chattr, "-i", str(p)], check=True)


def test_a_read_only_directory_without_the_file_is_refused(tmp_path: Path) -> None:
    where = tmp_path / "ro"
    where.mkdir()
    with read_only(where):
        _refused(str(where / "robots.db"))


def test_a_read_only_file_is_refused_at_open(tmp_path: Path) -> None:
    path = tmp_path / "robots.db"
    first = SqliteStore(str(path))
    first.put_soon("http://a.test", rules(T0))
    first.close()
    with read_only(path):
        _refused(str(path))  # today: it opens, and every put_soon counts a write error


def test_writes_that_fail_later_are_counted_not_raised(db: str) -> None:
    backing = SqliteStore(db)
    backing.put_soon("http://a.test", rules(T0))
    backing._db.close()  # the file went away under us (disk gone, handle closed)
    backing.put_soon("http://b.test", rules(T0))
    assert backing.get_now("http://a.test") is None  # unreadable now: a refetch, no crash
    assert backing.write_errors == 2 and backing.last_error is not None
    assert run(backing.acquire("http://a.test", 60)) is True  # fetch locally, never wait
    backing.close()


# -- unreadable rows ------------------------------------------------------------------------


def _write_row(path: str, origin: str, fetched_at: float, entry: bytes) -> None:
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        raw.execute(
            "INSERT OR REPLACE INTO robots (origin, fetched_at, entry) VALUES (?, ?, ?)",
            (origin, fetched_at, entry),
        )
    finally:
        raw.close()


@pytest.mark.parametrize(
    "entry",
    [
        b"\x00\xffgarbage",
        b"",
        b"\x80\x04\x95pickle.",
        b"GBR\x02" + encode(rules(T0))[4:],  # a future version of the format
        encode(rules(T0))[:-5].replace(b'"body":"raw"', b'"body":"zlib"'),
    ],
    ids=["garbage", "empty", "pickle", "future version", "broken body"],
)
def test_an_unreadable_row_reads_as_unknown_and_is_replaced(db: str, entry: bytes) -> None:
    backing = SqliteStore(db)
    _write_row(db, "http://a.test", T0 - 10, entry)
    assert backing.get_now("http://a.test") is None
    assert run(backing.load("http://a.test")) is None
    fresh = rules(T0)
    backing.put_soon("http://a.test", fresh)  # what the refetch stores
    assert same(backing.get_now("http://a.test"), fresh)
    assert backing.write_errors == 0
    backing.close()


def test_a_garbage_row_dated_in_the_future_is_still_replaced(db: str) -> None:
    backing = SqliteStore(db)
    _write_row(db, "http://a.test", T0 + 10 * 86400, b"\x00\xffgarbage")
    fresh = rules(T0)
    backing.put_soon("http://a.test", fresh)
    assert same(backing.get_now("http://a.test"), fresh)
    backing.close()


def test_a_later_versions_row_keeps_its_order(db: str) -> None:
    """As with Redis: an older package's older write never replaces what a newer one wrote."""
    backing = SqliteStore(db)
    future = b"GBR\x09" + encode(rules(T0 + 500))[4:]
    _write_row(db, "http://a.test", T0 + 500, future)
    assert backing.get_now("http://a.test") is None  # unreadable for us: the caller refetches
    backing.put_soon("http://a.test", rules(T0))
    raw = sqlite3.connect(db)
    try:
        (kept,) = raw.execute("SELECT entry FROM robots").fetchone()
    finally:
        raw.close()
    assert kept == future  # newer: kept
    backing.put_soon("http://a.test", rules(T0 + 600))
    assert same(backing.get_now("http://a.test"), rules(T0 + 600))  # newer than it: replaces it
    backing.close()


def test_a_row_bigger_than_the_readers_cap_reads_as_unknown(db: str) -> None:
    """A file written with a higher GBOT_ROBOTS_MAX_BYTES: refetched, not obeyed half-read."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /%d\n" % i for i in range(200))
    SqliteStore(db).put_soon("http://a.test", rules(T0, body))
    small = SqliteStore(db, max_bytes=len(body) - 1)
    assert small.get_now("http://a.test") is None
    assert SqliteStore(db, max_bytes=len(body)).get_now("http://a.test") is not None
    small.close()


# -- the LRU in front -----------------------------------------------------------------------


def test_tiered_store_reads_back_what_the_lru_forgot(db: str) -> None:
    backing = SqliteStore(db)
    front = MemoryStore(2)
    store = TieredStore(front, backing)
    states = {f"http://o{i}.test": rules(T0 + i, b"Disallow: /%d\n" % i) for i in range(5)}
    for origin, state in states.items():
        store.put(origin, state)
    assert len(store) == 2 and store.evictions == 3 and len(backing) == 5
    assert "http://o0.test" not in front
    got = store.get("http://o0.test")
    assert same(got, states["http://o0.test"])  # from the file, not a fetch
    assert store.reads == 1
    assert "http://o0.test" in front  # and hot again
    assert store.get("http://o0.test") is got and store.reads == 1
    assert store.get("http://never.test") is None and store.reads == 1
    for origin, state in states.items():  # every one of them, whatever the LRU holds
        assert same(store.get(origin), state)
    assert store.reads == 1 + 4  # o0 was hot; o1..o4 came back from the file
    backing.close()


def test_tiered_store_after_a_restart_knows_every_origin(db: str) -> None:
    first = TieredStore(MemoryStore(10), SqliteStore(db))
    for i in range(30):
        first.put(f"http://o{i}.test", rules(T0 + i))
    assert first.persistent is not None
    first.persistent.close()
    restarted = TieredStore(MemoryStore(10), SqliteStore(db))
    assert len(restarted) == 0
    assert all(restarted.get(f"http://o{i}.test") is not None for i in range(30))
    assert restarted.reads == 30 and len(restarted) == 10
    assert restarted.persistent is not None
    restarted.persistent.close()


def test_remember_keeps_a_stored_state_in_memory_only(db: str) -> None:
    backing = SqliteStore(db)
    store = TieredStore(MemoryStore(5), backing)
    stored = rules(T0)
    store.put("http://a.test", stored)
    local = rules(T0 + 99, b"Disallow: /memory-only\n")
    store.remember("http://a.test", local)
    assert same(store.get("http://a.test"), local)
    assert same(backing.get_now("http://a.test"), stored)  # no write for a read-back state
    backing.close()
