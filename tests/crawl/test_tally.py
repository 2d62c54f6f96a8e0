"""The gate's count of parked items (``crawl/tally.py``): the accounting rule's one home.

    resumed + parked == released + dropped + persisted + now  (+ taken_elsewhere)

The counters move only through the tally's methods; these tests drive them the way the gate
does, including a lot shared between processes, where items released or dropped here may
have been parked by another process (``mine`` counts what this process counted).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scrapy_gbot_robots.crawl.tally import Tally


def balanced(t: Tally) -> bool:
    inflow = t.resumed + t.parked
    return inflow == t.released + t.dropped + t.persisted + t.now + t.taken_elsewhere


def test_parked_items_leave_released_dropped_or_persisted() -> None:
    t = Tally()
    t.park(5)
    t.release(2)
    t.drop(1)
    assert (t.now, t.peak) == (2, 5)
    assert t.close(left=1) == 1  # one given up at the close, one kept for the next run
    assert (t.now, t.persisted, t.dropped) == (0, 1, 2)
    assert balanced(t)


def test_resumed_items_count_like_parked_ones_and_raise_the_peak() -> None:
    t = Tally()
    t.resume(3)
    t.park()
    assert (t.now, t.peak, t.resumed, t.parked) == (4, 4, 3, 1)
    t.release(4)
    assert t.now == 0 and t.peak == 4 and balanced(t)


def test_a_shared_lot_hands_out_items_another_process_parked() -> None:
    t = Tally()
    t.park(2)
    t.release(5, mine=2)  # three of them were another worker's
    assert t.now == 0 and t.released == 5
    t.park(3)
    t.lost_to_others(3)  # gone from the shared lot: another worker released them
    assert t.now == 0 and t.taken_elsewhere == 3


@given(
    st.lists(
        st.tuples(st.sampled_from(["park", "resume", "release", "drop", "lost"]), st.integers(1, 5))
    ),
    st.integers(0, 10),
)
def test_the_rule_holds_after_any_sequence_of_this_processs_own_items(
    steps: list[tuple[str, int]], left: int
) -> None:
    t = Tally()
    for what, n in steps:
        if what == "park":
            t.park(n)
        elif what == "resume":
            t.resume(n)
        else:
            n = min(n, t.now)  # only what is counted can leave
            {"release": t.release, "drop": t.drop, "lost": t.lost_to_others}[what](n)
        assert balanced(t) and t.now >= 0 and t.peak >= t.now
    t.close(left=min(left, t.now))
    assert balanced(t) and t.now == 0
