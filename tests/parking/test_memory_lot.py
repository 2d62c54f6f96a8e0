"""The memory lot (``parking/memory.py``): the lot of a crawl without ``JOBDIR``.

What it adds to the protocol (tests/parking/test_lots.py): arrival order rules, whatever the
clock says; ``close`` hands every item back, since nothing outlives the process; and the
parts the SQLite and Redis lots build on (``push`` with a given sequence, ``oldest_seq``,
``drain``).
"""

from __future__ import annotations

from _lots import A, B, C

from scrapy_gbot_robots.parking.memory import MemoryLot


def test_waiting_follows_arrival_even_when_the_clock_steps_back() -> None:
    lot: MemoryLot[str] = MemoryLot()
    lot.push(A, "a0", 50.0)
    lot.push(B, "b0", 10.0)  # the wall clock stepped back: B still arrived after A
    assert lot.waiting() == [(A, 1), (B, 1)]


def test_close_hands_back_every_item_whatever_persist_says_and_empties_the_lot() -> None:
    for persist in (True, False):
        lot: MemoryLot[str] = MemoryLot()
        lot.push(A, "a0", 1.0)
        lot.push(B, "b0", 2.0)
        lot.push(A, "a1", 3.0)
        assert lot.close(persist) == [(A, "a0"), (A, "a1"), (B, "b0")]  # per origin, FIFO
        assert len(lot) == 0 and lot.waiting() == [] and lot.peek(A) is None


def test_flush_and_counters_have_nothing_to_do() -> None:
    lot: MemoryLot[str] = MemoryLot()
    lot.push(A, "a0", 1.0)
    lot.flush()
    assert lot.counters() == {}
    assert lot.take(A, 1) == ["a0"]


def test_a_given_sequence_orders_origins_as_the_caller_says() -> None:
    """The SQLite and Redis lots keep their unserialisable items here, numbered in the
    sequence of the items they store, so one order covers both."""
    lot: MemoryLot[str] = MemoryLot()
    lot.push(A, "a5", 1.0, seq=5)
    lot.push(B, "b2", 2.0, seq=2)
    lot.push(C, "c0", 3.0)  # numbered by the lot itself: 1
    assert lot.oldest_seq(A) == 5 and lot.oldest_seq(B) == 2 and lot.oldest_seq(C) == 1
    assert lot.waiting() == [(C, 1), (B, 1), (A, 1)]
    assert lot.oldest_seq("http://none.test") is None


def test_drain_takes_an_origin_whole_with_its_park_times() -> None:
    lot: MemoryLot[str] = MemoryLot()
    lot.push(A, "a0", 1.0)
    lot.push(B, "b0", 2.0)
    lot.push(A, "a1", 3.0)
    assert lot.drain(A) == [(1.0, "a0"), (3.0, "a1")]
    assert len(lot) == 1 and lot.waiting() == [(B, 1)]
    assert lot.drain(A) == []


def test_take_parked_before_stops_at_the_first_later_item() -> None:
    lot: MemoryLot[str] = MemoryLot()
    lot.push(A, "a0", 1.0)
    lot.push(A, "a1", 5.0)
    lot.push(A, "a2", 2.0)  # parked after a clock step back: behind a1 all the same
    assert lot.take_parked_before(A, 3.0) == ["a0"]
    assert lot.take(A, 5) == ["a1", "a2"]


def test_counts_follow_every_cut() -> None:
    lot: MemoryLot[int] = MemoryLot()
    for i in range(100):
        lot.push(A if i % 2 else B, i, float(i))
    assert len(lot) == 100
    lot.take(A, 10)
    lot.take_parked_before(B, 19.0)  # b: 0, 2, ..., 18
    lot.drain(A)
    assert len(lot) == 40 == sum(n for _, n in lot.waiting())
