"""The gate's wake-ups alone (``crawl/wakeups.py``): when each origin is looked at again.

The earliest wake-up of an origin wins; ``due`` gives each due origin once, earliest first;
a cancelled or superseded wake-up never fires; and the heap's leftovers are dropped once they
outnumber the live wake-ups, so the heap stays bounded by the origins the gate holds.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots.crawl.wakeups import Wakeups


def test_the_earliest_wake_up_of_an_origin_wins() -> None:
    wakeups = Wakeups()
    wakeups.set("a", 10.0)
    wakeups.set("a", 5.0)  # earlier: replaces
    wakeups.set("a", 7.0)  # later: ignored
    assert wakeups.due(4.9) == []
    assert wakeups.due(5.0) == ["a"]  # at its time exactly
    assert wakeups.due(100.0) == []  # the superseded 10.0 and 7.0 never fire


def test_due_origins_come_earliest_first_each_once() -> None:
    wakeups = Wakeups()
    for origin, when in [("c", 3.0), ("a", 1.0), ("d", 9.0), ("b", 2.0)]:
        wakeups.set(origin, when)
    assert wakeups.due(5.0) == ["a", "b", "c"]
    assert wakeups.due(5.0) == []
    assert wakeups.due(9.0) == ["d"]


def test_a_cancelled_wake_up_never_fires_and_the_origin_can_be_set_again() -> None:
    wakeups = Wakeups()
    wakeups.set("a", 5.0)
    wakeups.set("b", 5.0)
    wakeups.cancel("a")
    wakeups.cancel("nobody")
    assert wakeups.due(10.0) == ["b"]
    wakeups.set("a", 5.0)
    wakeups.cancel("a")
    wakeups.set("a", 5.0)  # the same time as a leftover: still fires once
    assert wakeups.due(10.0) == ["a"]


def test_a_fired_origin_can_be_woken_again_later() -> None:
    wakeups = Wakeups()
    wakeups.set("a", 1.0)
    assert wakeups.due(1.0) == ["a"]
    wakeups.set("a", 8.0)  # not ignored as "later than 1.0": that one is gone
    assert wakeups.due(8.0) == ["a"]


def test_leftovers_are_dropped_so_the_heap_stays_bounded() -> None:
    wakeups = Wakeups()
    for i in range(5_000):  # one origin, woken ever earlier: 5,000 entries, one live
        wakeups.set("a", 10_000.0 - i)
    for i in range(3_000):  # origins set, then cancelled: leftovers only
        wakeups.set(f"gone{i}", 20_000.0)
        wakeups.cancel(f"gone{i}")
    assert len(wakeups) == 8_000
    assert wakeups.due(0.0) == []  # nothing due, but the look rebuilds the heap
    assert len(wakeups) == 1
    assert wakeups.due(1e9) == ["a"]
    assert len(wakeups) == 0


def test_a_few_leftovers_are_kept_rather_than_rebuilt_each_time() -> None:
    wakeups = Wakeups()
    for i in range(100):
        wakeups.set("a", 1_000.0 - i)
    wakeups.due(0.0)
    assert len(wakeups) == 100  # below 2 x live + 1,024: not worth a rebuild yet


def test_clear_forgets_everything() -> None:
    wakeups = Wakeups()
    wakeups.set("a", 1.0)
    wakeups.clear()
    assert len(wakeups) == 0 and wakeups.due(1e9) == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["set", "cancel", "due"]),
            st.sampled_from("abcdef"),
            st.integers(0, 20),
        ),
        max_size=80,
    )
)
def test_due_is_what_a_dict_of_earliest_times_says(events: list[tuple[str, str, int]]) -> None:
    wakeups = Wakeups()
    model: dict[str, float] = {}
    for kind, origin, t in events:
        when = float(t)
        if kind == "set":
            model[origin] = min(model.get(origin, when), when)
            wakeups.set(origin, when)
        elif kind == "cancel":
            model.pop(origin, None)
            wakeups.cancel(origin)
        else:
            expected = sorted((w, o) for o, w in model.items() if w <= when)
            assert wakeups.due(when) == [o for _, o in expected]
            for _, o in expected:
                del model[o]
