"""The SQLite lot (``parking/sqlite.py``): parked requests in ``JOBDIR``, across a pause.

What it adds to the protocol (tests/parking/test_lots.py): items survive ``close(persist=True)``
and come back in arrival order; writes become durable per ``flush``, not per item; items the
codec refuses stay in memory in their place and are handed back at close; bytes the codec
cannot read come back as its placeholder; ``close(persist=False)`` empties the file. The
format 0.2.0 wrote is read in tests/stores/test_written_by_020.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from _lots import A, B, C, sqlite_lot


def _rows(path: Path) -> int:
    """Rows another connection sees: what a crash would leave."""
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM parked").fetchone()[0])


def test_the_file_and_its_folder_are_created(tmp_path: Path) -> None:
    path = tmp_path / "jobdir" / "gbot_robots" / "parked.sqlite3"
    lot = sqlite_lot(path)
    assert path.is_file() and lot.where == str(path)
    assert lot.close(persist=True) == []


def test_a_paused_lot_resumes_in_arrival_order(tmp_path: Path) -> None:
    path = tmp_path / "parked.sqlite3"
    lot = sqlite_lot(path)
    for i, origin in enumerate([A, B, A, C, A, B]):
        lot.push(origin, f"{'abc'[(A, B, C).index(origin)]}{i}", 100.0 + i)
    assert lot.close(persist=True) == []

    resumed = sqlite_lot(path)
    assert len(resumed) == 6
    assert resumed.waiting() == [(A, 3), (B, 2), (C, 1)]
    assert (resumed.peek(A), resumed.oldest(A)) == ("a0", 100.0)
    resumed.push(A, "a-after", 200.0)  # parked after the resume: behind the old ones
    assert resumed.take(A, 10) == ["a0", "a2", "a4", "a-after"]
    assert resumed.take_parked_before(B, 1e9) == ["b1", "b5"]
    assert resumed.close(persist=True) == []

    again = sqlite_lot(path)
    assert again.waiting() == [(C, 1)] and again.take(C, 1) == ["c3"]
    again.close(persist=True)


def test_items_are_durable_at_each_flush_not_at_each_push(tmp_path: Path) -> None:
    path = tmp_path / "parked.sqlite3"
    lot = sqlite_lot(path)
    lot.push(A, "a0", 1.0)
    lot.push(A, "a1", 2.0)
    assert _rows(path) == 0  # one transaction, still open
    lot.flush()
    assert _rows(path) == 2
    lot.take(A, 1)
    assert _rows(path) == 2
    lot.flush()
    assert _rows(path) == 1
    lot.push(B, "b0", 3.0)
    lot.close(persist=True)  # close flushes
    assert _rows(path) == 2


def test_close_without_persist_hands_back_everything_in_arrival_order(tmp_path: Path) -> None:
    path = tmp_path / "parked.sqlite3"
    lot = sqlite_lot(path)
    lot.push(B, "b0", 1.0)
    lot.push(A, "x-lambda", 2.0)  # cannot be serialised: kept in memory
    lot.push(A, "a2", 3.0)
    lot.flush()
    lot.push(B, "b3", 4.0)
    assert lot.close(persist=False) == [(B, "b0"), (A, "a2"), (B, "b3"), (A, "x-lambda")]
    assert _rows(path) == 0
    resumed = sqlite_lot(path)
    assert len(resumed) == 0 and resumed.waiting() == []
    resumed.close(persist=True)


def test_unserialisable_items_keep_their_place_and_are_handed_back_at_a_pause(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parked.sqlite3"
    lot = sqlite_lot(path)
    lot.push(A, "x-first", 1.0)
    lot.push(A, "a1", 2.0)
    lot.push(B, "b2", 0.5)
    lot.push(A, "x-third", 3.0)
    assert lot.unserialisable == 2
    assert (lot.peek(A), lot.oldest(A)) == ("x-first", 1.0)  # older than the first stored
    assert lot.waiting() == [(A, 3), (B, 1)]
    assert lot.take(A, 2) == ["x-first", "a1"]
    # A pause keeps what the file can hold; the rest goes back (then reported dropped).
    assert lot.close(persist=True) == [(A, "x-third")]
    resumed = sqlite_lot(path)
    assert resumed.waiting() == [(B, 1)]
    resumed.close(persist=True)


def test_bytes_the_codec_cannot_read_come_back_as_its_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "parked.sqlite3"
    lot = sqlite_lot(path)
    lot.push(A, "a0", 1.0)
    lot.close(persist=True)
    with sqlite3.connect(path) as db:  # a row no codec wrote (a corrupt or foreign file)
        db.execute(
            "INSERT INTO parked (seq, origin, parked_at, data) VALUES (?, ?, ?, ?)",
            (2, A, 2.0, b"\xff\xfe"),
        )
    resumed = sqlite_lot(path)
    assert len(resumed) == 2
    assert resumed.take(A, 5) == ["a0", "?fffe"]  # counted, returned, never raised
    resumed.close(persist=True)


def test_counters_say_nothing_went_wrong(tmp_path: Path) -> None:
    lot = sqlite_lot(tmp_path / "parked.sqlite3")
    lot.push(A, "a0", 1.0)
    assert lot.counters() == {}
    lot.close(persist=False)


def test_arrival_order_rules_even_when_the_clock_steps_back(tmp_path: Path) -> None:
    path = tmp_path / "parked.sqlite3"
    lot = sqlite_lot(path)
    lot.push(A, "a0", 50.0)
    lot.push(B, "b0", 10.0)  # the wall clock stepped back: B still arrived after A
    lot.push(A, "a1", 5.0)
    lot.close(persist=True)
    resumed = sqlite_lot(path)
    assert resumed.waiting() == [(A, 2), (B, 1)]
    assert resumed.take(A, 5) == ["a0", "a1"]
    resumed.close(persist=False)
