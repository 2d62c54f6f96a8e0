"""The fetch budget's pacing, pure: the limit as a function of the downloader's numbers.

No Scrapy: a real :class:`FetchBudget` with fetches started and origins queued by hand, and
the numbers the coordinator reads from Scrapy each tick (downloads in progress, the
downloader's limit, requests in the scheduler) passed as plain ints.
"""

from __future__ import annotations

import pytest

from scrapy_gbot_robots.crawl.budget import FetchBudget
from scrapy_gbot_robots.crawl.pacing import Move, Pacing

PAGES = 32  # CONCURRENT_REQUESTS


def budget(
    *, floor: int = 32, ceiling: int = 256, running: int | None = None, queued: int = 500
) -> FetchBudget:
    """A budget at its floor, every slot taken (unless ``running``), ``queued`` origins waiting."""
    b = FetchBudget(ceiling, min_fetches=floor)
    for i in range(floor if running is None else running):
        b.start(f"http://r{i}", 0.0)
    for i in range(queued):
        b.enqueue(f"http://q{i}")
    return b


def dry(b: FetchBudget, pages: int = 10) -> dict[str, int]:
    """The downloader's numbers while pages run dry: ``pages`` of 32 slots busy, the
    robots.txt downloads on top of them (each widens the limit), nothing in the scheduler."""
    return {"active": pages + b.in_flight, "concurrency": PAGES + b.in_flight, "backlog": 0}


def test_it_grows_by_half_while_pages_run_dry_and_origins_wait_for_robots_txt() -> None:
    pacing, b = Pacing(PAGES), budget()
    limits = []
    for _ in range(6):
        pace = pacing.step(b, **dry(b))
        assert pace.move is Move.GROW and pace.free_slots == 22 and pace.waiting == 500
        b.resize(pace.limit)
        for i in range(b.running, b.limit):  # the gate fills the new slots
            b.start(f"http://n{i}", 0.0)
        limits.append(b.limit)
    assert limits == [48, 72, 108, 162, 243, 256]  # and never above the ceiling
    pace = pacing.step(b, **dry(b))
    assert pace.move is Move.HOLD and pace.limit == 256


@pytest.mark.parametrize(
    ("why", "b", "numbers"),
    [
        ("no page slot free", budget(), {"active": 64, "concurrency": 64, "backlog": 0}),
        ("requests in the scheduler", budget(), {"active": 4, "concurrency": 64, "backlog": 5}),
        ("no origin waits for robots.txt", budget(queued=0), None),
        ("the budget is not full", budget(running=20), None),
    ],
)
def test_it_holds_when_more_robots_txt_would_not_feed_the_downloader(
    why: str, b: FetchBudget, numbers: dict[str, int] | None
) -> None:
    pace = Pacing(PAGES).step(b, **(numbers or dry(b)))
    assert pace.move is Move.HOLD and pace.limit == b.limit == 32, why


def test_it_holds_when_the_store_has_no_room_for_more_origins() -> None:
    b = budget()
    b.room = lambda: 40  # the fetches in flight and 8 more fill it (the rest is pinned)
    assert Pacing(PAGES).step(b, **dry(b)).move is Move.GROW
    b.room = lambda: 32
    assert Pacing(PAGES).step(b, **dry(b)).move is Move.HOLD
    b.resize(64)
    assert not b.has_slot() and b.room_blocked


def test_it_shrinks_by_a_quarter_when_decided_origins_pile_up_never_below_the_floor() -> None:
    pacing, b = Pacing(PAGES), budget(floor=8)
    b.resize(200)
    limits = []
    for _ in range(12):
        pace = pacing.step(b, active=32 + b.in_flight, concurrency=32 + b.in_flight, backlog=500)
        b.resize(pace.limit)
        limits.append(b.limit)
    assert limits[:4] == [150, 113, 85, 64] and limits[-1] == 8
    assert pacing.pile == 4 * PAGES  # the backlog it takes: 4 requests per page slot
    pace = pacing.step(b, active=40, concurrency=40, backlog=PAGES * 4)  # at the line: holds
    assert pace.move is Move.HOLD


def test_it_shrinks_only_while_the_pile_grows_or_stands_and_holds_while_it_falls() -> None:
    """Shrinking on until a falling pile is gone overshoots: the downloader runs dry later."""
    pacing, b = Pacing(PAGES), budget(floor=8)
    b.resize(200)
    moves, previous = [], 0
    for backlog in (400, 400, 450, 420, 300, 200, 210, 150, 129, 128, 600):
        pace = pacing.step(
            b, active=32 + b.in_flight, concurrency=32 + b.in_flight, backlog=backlog
        )
        assert pace.previous == previous  # what the DEBUG line reports beside the backlog
        previous = backlog
        b.resize(pace.limit)
        moves.append((pace.move.value[0], b.limit))
    assert moves == [
        ("s", 150),  # the first pile: nothing to compare with, it shrinks
        ("s", 113),  # standing
        ("s", 85),  # growing
        ("h", 85),  # falling: the smaller limit is draining it
        ("h", 85),
        ("h", 85),
        ("s", 64),  # up again
        ("h", 64),
        ("h", 64),
        ("h", 64),  # at the line: no pile
        ("s", 48),  # a new pile after none
    ]


def test_the_limit_stays_within_the_bounds_whatever_is_asked() -> None:
    b = FetchBudget(64, min_fetches=16)
    assert b.limit == 16  # it starts at the floor
    assert b.resize(1000) is True and b.limit == 64
    assert b.resize(1) is False and b.limit == 16
    assert b.limit_peak == 64
    with pytest.raises(ValueError, match="min_fetches"):
        FetchBudget(8, min_fetches=9)
    started = FetchBudget(64, min_fetches=4, start=32)  # the crawl's: from CONCURRENT_REQUESTS
    assert started.limit == 32 and started.resize(1) is False and started.limit == 4
    with pytest.raises(ValueError, match="start"):
        FetchBudget(64, min_fetches=16, start=8)
    fixed = FetchBudget(8)  # no floor given: a fixed budget, as before 0.4
    fixed.resize(100)
    assert fixed.limit == 8


def test_without_a_downloader_limit_free_slots_are_counted_against_concurrent_requests() -> None:
    b = budget()
    pace = Pacing(PAGES).step(b, active=b.in_flight + 30, concurrency=0, backlog=0)
    assert pace.free_slots == 2 and pace.move is Move.GROW
    pace = Pacing(0).step(b, active=b.in_flight + 16, concurrency=0, backlog=0)  # 0: as 16
    assert pace.free_slots == 0 and pace.move is Move.HOLD


def test_drained_means_no_page_in_the_downloader_and_none_in_the_scheduler() -> None:
    pacing, b = Pacing(PAGES), budget(running=3, queued=0)
    assert pacing.step(b, active=3, concurrency=35, backlog=0).drained  # robots.txt only
    assert not pacing.step(b, active=4, concurrency=35, backlog=0).drained
    assert not pacing.step(b, active=3, concurrency=35, backlog=1).drained


def test_a_lowered_limit_lets_running_fetches_end_and_starts_none_meanwhile() -> None:
    b = budget(floor=4, running=0, queued=0)
    b.resize(10)
    for i in range(10):
        b.start(f"http://r{i}", 0.0)
    b.resize(4)
    assert not b.has_slot() and b.running == 10
    for i in range(6):
        b.done(f"http://r{i}")
    assert not b.has_slot()  # 4 running: the limit
    b.done("http://r6")
    assert b.has_slot()


def test_a_slow_fetch_frees_no_slot_above_a_lowered_limit() -> None:
    b = FetchBudget(10, min_fetches=2, max_slow=5, slow_after=1.0)
    b.resize(10)
    for i in range(10):
        b.start(f"http://r{i}", 0.0)
    b.resize(2)
    assert b.make_room(100.0) is False and b.slow == 0  # nothing moved for nothing
    for i in range(8):
        b.done(f"http://r{i}")
    assert b.make_room(100.0) is True and b.slow == 1  # at the limit: one leaves, one starts


def test_room_holds_queued_starts_but_never_a_download_waiting_in_place() -> None:
    room = [3]
    b = FetchBudget(10, room=lambda: room[0])
    for i in range(3):
        assert b.has_slot()
        b.start(f"http://r{i}", 0.0)
    assert not b.has_slot() and b.room_blocked
    assert not b.make_room(0.0)
    assert b.has_slot(urgent=True) and b.make_room(0.0, urgent=True)
    room[0] = 4
    assert b.has_slot() and not b.room_blocked
