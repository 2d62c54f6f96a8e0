"""The fetch budget alone (``crawl/budget.py``): slots, the waiting queues, the slow lane.

Pure bookkeeping, so no crawl: a slot per fetch up to ``max_fetches``; origins waiting for a
slot in one FIFO, those the close waits for in the urgent one too; ``make_room`` moves the
oldest fetch running for ``slow_after`` seconds to a lane of ``max_slow``, and only then; the
peaks and the total say what happened; at most ``max_fetches + max_slow`` fetches in flight,
whatever the order of events. How the gate uses it is in tests/crawl/test_gate.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.crawl.budget import FetchBudget


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_fetches": 0}, "max_fetches must be >= 1, got 0"),
        ({"max_fetches": 1, "max_slow": -1}, "max_slow and slow_after must be >= 0"),
        ({"max_fetches": 1, "slow_after": -0.5}, "max_slow and slow_after must be >= 0"),
    ],
)
def test_bounds_are_checked(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FetchBudget(**kwargs)  # type: ignore[arg-type]


def test_the_lane_is_off_unless_both_of_its_settings_are_set() -> None:
    assert FetchBudget(2, max_slow=3, slow_after=0.0).max_slow == 0
    assert FetchBudget(2, max_slow=0, slow_after=5.0).max_slow == 0
    assert FetchBudget(2, max_slow=3, slow_after=5.0).max_slow == 3


def test_slots_are_taken_and_given_back() -> None:
    budget = FetchBudget(2)
    assert budget.has_slot() and budget.in_flight == 0
    budget.start("a", 0.0)
    budget.start("b", 0.0)
    assert not budget.has_slot() and budget.running == 2 and budget.in_flight == 2
    budget.done("a")
    assert budget.has_slot() and budget.running == 1
    budget.done("b")
    assert budget.running == 0 and budget.running_peak == 2  # the peak stays


def test_origins_wait_in_one_fifo_and_the_urgent_ones_in_a_second() -> None:
    budget = FetchBudget(1)
    assert not budget.waiting
    budget.enqueue("a")
    budget.enqueue("b", urgent=True)
    budget.enqueue("c")
    assert list(budget.queue) == ["a", "b", "c"]  # in order of their first request
    assert list(budget.urgent) == ["b"]  # also in the FIFO: the gate skips what started
    assert budget.waiting and budget.queued_peak == 3
    budget.queue.clear()
    assert budget.waiting  # the urgent one still waits
    budget.urgent.clear()
    assert not budget.waiting and budget.queued_peak == 3


def test_make_room_with_a_free_slot_moves_nothing() -> None:
    budget = FetchBudget(2, max_slow=1, slow_after=1.0)
    budget.start("a", 0.0)
    assert budget.make_room(100.0)
    assert (budget.running, budget.slow, budget.slow_peak) == (1, 0, 0)


def test_make_room_moves_the_oldest_fetch_once_it_is_slow() -> None:
    budget = FetchBudget(2, max_slow=2, slow_after=10.0)
    budget.start("old", 0.0)
    budget.start("young", 5.0)
    assert not budget.make_room(9.9)  # nobody has run 10 s yet
    assert budget.make_room(10.0)  # "old" has, exactly: it leaves for the lane
    assert (budget.running, budget.slow, budget.in_flight) == (1, 1, 2)
    assert budget.has_slot()
    budget.start("next", 10.0)
    assert not budget.make_room(14.9)  # "young" has run 9.9 s
    assert budget.make_room(15.0)
    assert (budget.running, budget.slow) == (1, 2)
    assert budget.slow_peak == 2
    budget.done("old")  # a slow fetch ends: its place in the lane is free, no slot
    assert (budget.running, budget.slow) == (1, 1)
    budget.done("next")
    assert (budget.running, budget.slow) == (0, 1)


def test_a_full_lane_keeps_slow_fetches_in_their_slots() -> None:
    budget = FetchBudget(1, max_slow=1, slow_after=1.0)
    budget.start("a", 0.0)
    assert budget.make_room(5.0)
    budget.start("b", 1.0)
    assert not budget.make_room(100.0)  # the lane is full
    assert (budget.running, budget.slow, budget.in_flight) == (1, 1, 2)


def test_without_a_lane_a_slow_fetch_keeps_its_slot() -> None:
    budget = FetchBudget(1)
    budget.start("a", 0.0)
    assert not budget.make_room(1e9)
    assert (budget.running, budget.slow, budget.slow_peak) == (1, 0, 0)


def test_clear_forgets_who_waits_not_who_runs() -> None:
    budget = FetchBudget(1, max_slow=1, slow_after=1.0)
    budget.start("a", 0.0)
    budget.make_room(2.0)
    budget.start("b", 2.0)
    budget.enqueue("c", urgent=True)
    budget.clear()
    assert not budget.waiting and not budget.queue and not budget.urgent
    assert budget.in_flight == 2  # fetches still running just end
    budget.done("a")
    budget.done("b")
    assert budget.in_flight == 0


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(0, 3),
    st.lists(st.tuples(st.sampled_from(["start", "done", "room"]), st.integers(0, 7)), max_size=60),
)
def test_never_more_than_the_budget_and_the_lane_in_flight(
    max_fetches: int, max_slow: int, events: list[tuple[str, int]]
) -> None:
    """The gate's use: start only with a slot, end only what runs; time only moves on."""
    budget = FetchBudget(max_fetches, max_slow=max_slow, slow_after=3.0)
    running: set[str] = set()
    now = 0.0
    for kind, n in events:
        now += 1.0
        origin = f"o{n}"
        if kind == "start" and origin not in running and budget.make_room(now):
            budget.start(origin, now)
            running.add(origin)
        elif kind == "done" and origin in running:
            budget.done(origin)
            running.discard(origin)
        elif kind == "room":
            budget.make_room(now)
        assert budget.running <= max_fetches and budget.slow <= max_slow
        assert budget.in_flight == len(running)
        assert budget.running_peak <= max_fetches and budget.slow_peak <= max_slow
