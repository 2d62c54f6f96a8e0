"""The gate, pure: fetch budget, parking, park clock, deadlines, retries, accounting.

No Scrapy and no reactor: the gate is driven by hand with an explicit clock, a real
MemoryStore, a real lot, and an Actions object that records the effects the gate writes.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from scrapy_gbot_robots.crawl.gate import Gate, GateFigures
from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.pacing import Pacing
from scrapy_gbot_robots.crawl.reasons import ParkReason
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.parking.sqlite import SqliteLot
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import Mode, PolicyConfig, rules_in_force
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.tiered import UNBOUNDED

CFG = PolicyConfig()
RULES = b"User-agent: *\nDisallow: /private\n"


class Recorder:
    """Actions that record; fetches are completed by the test, never by the gate itself."""

    def __init__(self) -> None:
        self.fetches: list[tuple[str, str]] = []
        self.released: list[tuple[str, str]] = []
        self.dropped: list[tuple[str, str, str]] = []
        self.decided_drops: list[str] = []
        self.released_closed: list[str] = []  # released once the crawl was closing
        self.open = True
        self.turns = 0  # times the gate asked for the paced release's turns to start
        #: The crawl's one closing state, which the gate asks (the test's engine: ``open``).
        self.lifecycle = Lifecycle(self.accepting, clock=lambda: 0.0)

    def fetch(self, origin: str, why: str) -> None:
        self.fetches.append((origin, why))

    def release(self, origin: str, items: Sequence[str]) -> None:
        self.released.extend((origin, item) for item in items)
        if not self.open:
            self.released_closed.extend(items)

    def drop(
        self, origin: str, items: Sequence[str], reason: str, decided: bool = False
    ) -> None:
        self.dropped.extend((origin, item, reason) for item in items)
        self.decided_drops.extend(item for item in items if decided)

    def turns_due(self) -> None:
        self.turns += 1

    def accepting(self) -> bool:
        return self.open


def make_gate(
    *,
    max_fetches: int = 2,
    timeout: float = 100.0,
    lot: object | None = None,
    max_slow: int = 0,
    slow_after: float = 0.0,
    observe: bool = False,
    min_fetches: int | None = None,
    store_size: int = 1000,
    room: bool = False,
    paced: bool = False,
) -> tuple[Gate[str], Recorder, MemoryStore]:
    store = MemoryStore(store_size)
    actions = Recorder()
    gate: Gate[str] = Gate(
        store,
        CFG,
        lot if lot is not None else MemoryLot(),  # type: ignore[arg-type]
        actions,
        actions.lifecycle,
        pacing=Pacing(16),
        park_timeout=timeout,
        max_fetches=max_fetches,
        max_slow=max_slow,
        slow_after=slow_after,
        observe=observe,
        min_fetches=min_fetches,
        bounds=store if room or paced else UNBOUNDED,
        pace_release=paced,
    )
    return gate, actions, store


def finish(
    gate: Gate[str], store: MemoryStore, origin: str, now: float, status: int | None = 200
) -> None:
    """Complete a fetch the way the middleware does: evaluate, store, report.

    ``status`` None: the download timed out (no response).
    """
    if status is None:
        result = FetchResult(status=None, error="DownloadTimeoutError")
    else:
        result = FetchResult(status=status, body=RULES if status == 200 else b"")
    store.put(origin, evaluate(result, now, store.get(origin), CFG))
    gate.fetch_done(origin, now)


def figures(gate: Gate[str]) -> GateFigures:
    return gate.figures()


def accounted(gate: Gate[str]) -> bool:
    f = gate.figures()
    return f.resumed + f.parked_total == f.released + f.dropped + f.persisted + f.parked_now


def in_turn(gate: Gate[str], origin: str) -> bool:
    """Whether the origin waits its turn (the gate's books: read here, never changed)."""
    return gate._origins.in_turn(origin)


def test_first_request_parks_and_fetches_later_ones_wait() -> None:
    gate, actions, store = make_gate()
    assert gate.schedule("http://a", "a1", 0.0) is ParkReason.MISS
    assert gate.schedule("http://a", "a2", 0.1) is ParkReason.WAITING
    assert actions.fetches == [("http://a", "miss")]
    assert figures(gate).parked_now == 2 and gate.busy
    finish(gate, store, "http://a", 1.0)
    assert actions.released == [("http://a", "a1"), ("http://a", "a2")]
    assert gate.schedule("http://a", "a3", 2.0) is None  # decided: passes
    assert not gate.busy and accounted(gate)


def test_budget_bounds_fetches_and_serves_origins_in_order_of_first_request() -> None:
    gate, actions, store = make_gate(max_fetches=2)
    origins = [f"http://o{i}" for i in range(6)]
    for i, origin in enumerate(origins):
        gate.schedule(origin, f"r{i}", float(i))
    assert [o for o, _ in actions.fetches] == origins[:2]
    assert figures(gate).running == 2 and figures(gate).queued == 4
    # A decided origin keeps crawling while others wait for the budget.
    store.put("http://done", evaluate(FetchResult(status=200, body=RULES), 0.0, None, CFG))
    assert gate.schedule("http://done", "x", 7.0) is None
    finish(gate, store, origins[1], 8.0)
    assert [o for o, _ in actions.fetches] == origins[:3]
    finish(gate, store, origins[0], 9.0)
    assert [o for o, _ in actions.fetches] == origins[:4]
    assert figures(gate).running_peak == 2
    for origin in origins[2:]:
        finish(gate, store, origin, 10.0)
    assert figures(gate).running == 0 and figures(gate).queued == 0
    assert sorted(item for _, item in actions.released) == [f"r{i}" for i in range(6)]
    assert accounted(gate)


def test_time_queued_for_the_budget_does_not_count_toward_the_deadline() -> None:
    gate, actions, store = make_gate(max_fetches=1, timeout=10.0)
    gate.schedule("http://slow", "s", 0.0)
    gate.schedule("http://queued", "q", 0.0)
    gate.tick(50.0)  # the slow fetch takes long: its request is overdue
    assert [(o, i) for o, i, _ in actions.dropped] == [("http://slow", "s")]
    finish(gate, store, "http://slow", 50.0)
    # "queued" waited 50 s for the budget but its clock starts with its fetch.
    assert gate.fetching("http://queued")
    gate.tick(55.0)
    assert len(actions.dropped) == 1
    finish(gate, store, "http://queued", 56.0)
    assert ("http://queued", "q") in actions.released
    assert accounted(gate)


def test_server_error_keeps_requests_parked_until_a_retry_succeeds() -> None:
    gate, actions, store = make_gate(timeout=10_000.0)
    gate.schedule("http://e", "e1", 0.0)
    finish(gate, store, "http://e", 1.0, status=503)
    assert actions.released == [] and figures(gate).parked_now == 1
    assert gate.schedule("http://e", "e2", 2.0) is ParkReason.WAITING
    retry_at = store.get("http://e").refresh_at  # type: ignore[union-attr]
    gate.tick(retry_at - 1)
    assert actions.fetches == [("http://e", "miss")]
    gate.tick(retry_at)
    assert actions.fetches[-1] == ("http://e", "retry")
    finish(gate, store, "http://e", retry_at + 1)
    assert actions.released == [("http://e", "e1"), ("http://e", "e2")]
    assert accounted(gate)


def test_stopped_origin_drops_at_the_deadline_counted_from_the_first_error() -> None:
    gate, actions, store = make_gate(timeout=30.0)
    gate.schedule("http://e", "e1", 0.0)
    finish(gate, store, "http://e", 1.0, status=500)
    gate.tick(29.0)
    assert actions.dropped == []
    gate.tick(31.0)
    assert actions.dropped == [("http://e", "e1", "deadline")]
    assert not gate.busy or figures(gate).running  # nothing waits any more
    assert accounted(gate)


def test_requests_of_a_stopped_origin_do_not_start_fetches_before_the_backoff() -> None:
    gate, actions, store = make_gate(timeout=10_000.0)
    gate.schedule("http://e", "e1", 0.0)
    finish(gate, store, "http://e", 1.0, status=503)
    for i in range(20):
        assert gate.schedule("http://e", f"x{i}", 2.0 + i) is ParkReason.WAITING
    assert actions.fetches == [("http://e", "miss")]  # no refetch before the backoff


def test_expired_copy_parks_and_refetches_once() -> None:
    gate, actions, store = make_gate()
    gate.schedule("http://a", "a1", 0.0)
    finish(gate, store, "http://a", 0.0)
    expiry = store.get("http://a").refresh_at  # type: ignore[union-attr]
    assert gate.schedule("http://a", "a2", expiry - 1) is None
    assert gate.schedule("http://a", "a3", expiry) is ParkReason.EXPIRED
    assert gate.schedule("http://a", "a4", expiry) is ParkReason.WAITING
    assert [why for _, why in actions.fetches] == ["miss", "expired"]
    finish(gate, store, "http://a", expiry + 1)
    assert [item for _, item in actions.released] == ["a1", "a3", "a4"]


def test_admit_false_lets_a_duplicate_pass_without_parking_or_fetching() -> None:
    gate, actions, _ = make_gate()
    assert gate.schedule("http://a", "dup", 0.0, admit=lambda item: False) is None
    assert actions.fetches == [] and figures(gate).parked_now == 0
    assert gate.schedule("http://a", "new", 0.0, admit=lambda item: True) is ParkReason.MISS


def test_nothing_is_released_while_the_crawl_closes_and_close_drops_the_rest() -> None:
    gate, actions, store = make_gate()
    gate.schedule("http://a", "a1", 0.0)
    actions.open = False
    finish(gate, store, "http://a", 1.0)
    assert actions.released == [] and figures(gate).parked_now == 1
    assert gate.close(persist=False, reason="spider closed (shutdown)") == 0
    assert actions.dropped == [("http://a", "a1", "spider closed (shutdown)")]
    assert accounted(gate)


def test_while_closing_what_waits_in_place_is_released_and_the_parked_kept() -> None:
    lot: MemoryLot[str] = MemoryLot()
    gate, actions, store = make_gate(lot=lot)
    gate.schedule("http://a", "a1", 0.0)
    assert gate.wait("http://a", "held-a2", 0.5) is ParkReason.WAITING
    assert figures(gate).parked_now == 2 and len(lot) == 1  # held beside the lot
    actions.open = False
    finish(gate, store, "http://a", 1.0)
    assert actions.released == [("http://a", "held-a2")]
    assert actions.lifecycle.closing_at == 1.0  # the gate asked, and the close began then
    assert figures(gate).parked_now == 1
    assert gate.close(persist=False, reason="spider closed (shutdown)") == 0
    assert actions.dropped == [("http://a", "a1", "spider closed (shutdown)")]
    assert accounted(gate)


def test_closing_starts_the_fetches_that_held_items_wait_for_first() -> None:
    gate, actions, store = make_gate(max_fetches=1)
    gate.schedule("http://busy", "b", 0.0)  # holds the only slot
    gate.schedule("http://parked", "p", 0.0)  # queued
    gate.wait("http://media", "held-m", 0.0)  # queued behind it
    actions.open = False
    gate.tick(1.0)
    finish(gate, store, "http://busy", 2.0)
    assert [o for o, _ in actions.fetches] == ["http://busy", "http://media"]
    finish(gate, store, "http://media", 3.0)
    assert actions.released == [("http://media", "held-m")]
    assert [o for o, _ in actions.fetches] == ["http://busy", "http://media"]  # no other


def test_a_download_waiting_in_place_goes_ahead_of_the_queue_while_the_crawl_runs() -> None:
    """Issue 23, defect 3: it holds a download slot; its origin's fetch must not queue."""
    gate, actions, store = make_gate(max_fetches=1)
    gate.schedule("http://busy", "b", 0.0)  # holds the only slot
    gate.schedule("http://parked", "p", 0.0)  # queued first
    gate.wait("http://media", "held-m", 0.5)  # queued later, but waits in a download slot
    finish(gate, store, "http://busy", 1.0)
    assert [o for o, _ in actions.fetches] == ["http://busy", "http://media"]
    finish(gate, store, "http://media", 2.0)
    assert [o for o, _ in actions.fetches] == ["http://busy", "http://media", "http://parked"]


def test_a_download_waiting_in_place_fails_at_once_when_its_origin_is_stopped() -> None:
    """Issue 23, defect 3: it waits for its origin's fetch at most, never for a retry."""
    gate, actions, store = make_gate()
    gate.schedule("http://down", "page", 0.0)
    assert gate.wait("http://down", "held-file", 0.0) is ParkReason.WAITING
    finish(gate, store, "http://down", 1.0, status=503)
    assert actions.dropped == [("http://down", "held-file", "stopped")]
    assert figures(gate).parked_now == 1  # the page waits for the retry, as before
    # Later downloads of that origin are refused without being held, even when a retry is due.
    assert gate.wait("http://down", "held-2", 2.0) is ParkReason.STOPPED
    assert gate.wait("http://down", "held-3", 5000.0) is ParkReason.STOPPED
    assert figures(gate).parked_now == 1 and figures(gate).parked_total == 2
    assert accounted(gate)


def test_observe_mode_lets_a_download_of_a_stopped_origin_through() -> None:
    gate, _, store = make_gate(observe=True)
    gate.schedule("http://down", "page", 0.0)
    finish(gate, store, "http://down", 1.0, status=503)
    assert gate.wait("http://down", "held", 2.0) is None


def test_while_closing_held_items_age_from_the_close_even_queued_for_the_budget() -> None:
    gate, actions, _ = make_gate(max_fetches=1, timeout=10.0)
    gate.schedule("http://busy", "b", 0.0)
    gate.wait("http://media", "held-m", 0.0)
    gate.tick(100.0)  # queued for the budget: it does not age (but "b" does)
    assert ("http://media", "held-m", "deadline") not in actions.dropped
    actions.open = False
    gate.tick(105.0)  # the close starts: the clock runs from here
    gate.tick(114.9)
    assert ("http://media", "held-m", "deadline") not in actions.dropped
    gate.tick(115.0)
    assert ("http://media", "held-m", "deadline") in actions.dropped
    assert gate.close_deadline == 115.0 and accounted(gate)


def test_parked_items_do_not_expire_while_closing_the_close_keeps_or_drops_them() -> None:
    gate, actions, _ = make_gate(timeout=10.0)
    gate.schedule("http://a", "a1", 0.0)  # its fetch runs: its clock runs
    actions.open = False
    gate.tick(1.0)
    gate.tick(50.0)
    assert actions.dropped == []
    gate.close(persist=False, reason="spider closed (finished)")
    assert actions.dropped == [("http://a", "a1", "spider closed (finished)")]


def test_held_items_are_never_persisted(tmp_path: Path) -> None:
    dumps, loads = _codec()
    lot: SqliteLot[str] = SqliteLot(str(tmp_path / "p.db"), dumps, loads)  # type: ignore[arg-type]
    gate, actions, _ = make_gate(lot=lot)
    gate.schedule("http://a", "a1", 0.0)
    gate.wait("http://a", "held-a2", 0.0)
    assert gate.close(persist=True, reason="spider closed (shutdown)") == 1
    assert actions.dropped == [("http://a", "held-a2", "spider closed (shutdown)")]
    assert accounted(gate)


def test_recheck_waits_without_backoff_when_another_process_fetches() -> None:
    gate, actions, store = make_gate(timeout=1000.0)
    gate.schedule("http://a", "a1", 0.0)
    gate.fetch_done("http://a", 1.0, recheck_at=5.0)
    gate.tick(4.0)
    assert actions.fetches == [("http://a", "miss")]
    gate.tick(5.0)
    assert actions.fetches[-1] == ("http://a", "recheck")
    finish(gate, store, "http://a", 6.0)
    assert actions.released == [("http://a", "a1")]


def test_bounced_request_is_parked_and_released_by_check() -> None:
    gate, actions, store = make_gate()
    store.put("http://a", evaluate(FetchResult(status=404), 0.0, None, CFG))
    gate.bounce("http://a", "b1", 1.0)
    assert figures(gate).parked_now == 1
    gate.check("http://a", 1.0)
    assert actions.released == [("http://a", "b1")]
    assert accounted(gate)


def _codec() -> tuple[object, object]:
    def dumps(item: str) -> bytes:
        if item.startswith("unserialisable"):
            raise ValueError("no")
        return pickle.dumps(item)

    def loads(data: bytes) -> str:
        value: str = pickle.loads(data)
        return value

    return dumps, loads


def test_sqlite_lot_persists_across_close_and_resume_keeps_arrival_order(tmp_path: Path) -> None:
    path = str(tmp_path / "jobdir" / "parked.sqlite3")
    dumps, loads = _codec()
    lot: SqliteLot[str] = SqliteLot(path, dumps, loads)  # type: ignore[arg-type]
    gate, actions, _ = make_gate(lot=lot, max_fetches=1)
    gate.schedule("http://a", "a1", 0.0)
    gate.schedule("http://b", "b1", 0.0)
    gate.schedule("http://a", "unserialisable-a2", 0.0)
    gate.schedule("http://b", "b2", 0.0)
    assert gate.close(persist=True, reason="spider closed (shutdown)") == 3
    assert actions.dropped == [("http://a", "unserialisable-a2", "spider closed (shutdown)")]
    assert accounted(gate)
    # The next run: a new gate over the same file, nothing known about the origins.
    lot2: SqliteLot[str] = SqliteLot(path, dumps, loads)  # type: ignore[arg-type]
    gate2, actions2, store2 = make_gate(lot=lot2, max_fetches=1)
    assert gate2.resume(100.0) == 3
    assert actions2.fetches == [("http://a", "miss")]  # a waited first; budget of 1
    finish(gate2, store2, "http://a", 101.0)
    finish(gate2, store2, "http://b", 102.0)
    assert actions2.released == [("http://a", "a1"), ("http://b", "b1"), ("http://b", "b2")]
    assert len(lot2) == 0 and accounted(gate2)


def test_sqlite_lot_merges_unserialisable_items_in_arrival_order(tmp_path: Path) -> None:
    dumps, loads = _codec()
    lot: SqliteLot[str] = SqliteLot(str(tmp_path / "p.db"), dumps, loads)  # type: ignore[arg-type]
    for item in ["1", "unserialisable-2", "3", "unserialisable-4", "5"]:
        lot.push("o", item, 0.0)
    assert lot.peek("o") == "1"
    assert lot.take("o", 2) == ["1", "unserialisable-2"]
    assert lot.take("o", 10) == ["3", "unserialisable-4", "5"]
    assert len(lot) == 0 and lot.unserialisable == 2


def test_release_happens_in_bounded_batches() -> None:
    store = MemoryStore(10)
    actions = Recorder()
    batches: list[int] = []
    original = actions.release

    def release(origin: str, items: Sequence[str]) -> None:
        batches.append(len(items))
        original(origin, items)

    actions.release = release  # type: ignore[method-assign]
    gate: Gate[str] = Gate(
        store,
        CFG,
        MemoryLot(),
        actions,
        actions.lifecycle,
        pacing=Pacing(16),
        park_timeout=10.0,
        max_fetches=1,
        release_batch=100,
    )
    for i in range(250):
        gate.schedule("http://a", str(i), 0.0)
    finish(gate, store, "http://a", 1.0)
    assert batches == [100, 100, 50]
    assert [item for _, item in actions.released] == [str(i) for i in range(250)]


class SharedMemoryLot(MemoryLot[str]):
    """A lot other processes also take from (as the fleet's Redis lot)."""

    shared = True


def test_items_another_process_took_do_not_hold_the_crawl_open() -> None:
    """The lot no longer has what the gate counts: the deadline tick ends, and the origin
    stops holding the crawl open (it used to wake at a past deadline for ever)."""
    import threading

    lot = SharedMemoryLot()
    gate, actions, store = make_gate(lot=lot, timeout=100.0)
    gate.schedule("http://a", "a1", 0.0)
    assert lot.take("http://a", 10) == ["a1"]  # another worker released it
    ticked = threading.Thread(target=gate.tick, args=(101.0,), daemon=True)
    ticked.start()
    ticked.join(5.0)
    assert not ticked.is_alive(), "tick never returned"
    assert figures(gate).parked_now == 0 and figures(gate).taken_elsewhere == 1
    finish(gate, store, "http://a", 102.0)
    assert not gate.busy and actions.released == [] and actions.dropped == []


def test_sqlite_lot_expiry_takes_only_what_was_parked_before_the_cutoff(tmp_path: Path) -> None:
    """A clock that stepped back: a later item may sit before an earlier one in the file."""
    dumps, loads = _codec()
    lot: SqliteLot[str] = SqliteLot(str(tmp_path / "p.db"), dumps, loads)  # type: ignore[arg-type]
    lot.push("o", "late", 100.0)
    lot.push("o", "early", 50.0)
    lot.flush()
    assert lot.take_parked_before("o", 60.0) == ["early"]
    assert len(lot) == 1 and lot.take("o", 10) == ["late"]


def test_wake_ups_of_origins_long_gone_do_not_pile_up() -> None:
    gate, _, store = make_gate(max_fetches=10_000)
    for i in range(3_000):
        gate.schedule(f"http://o{i}", "x", 0.0)  # parked: a deadline wake-up each
    for i in range(3_000):
        finish(gate, store, f"http://o{i}", 1.0)
    gate.tick(2.0)
    assert not gate.busy and gate._origins.wakeups <= 1024


def test_a_larger_limit_starts_queued_fetches_at_once_a_smaller_one_none() -> None:
    gate, actions, store = make_gate(max_fetches=8, min_fetches=2)
    for i in range(10):
        gate.schedule(f"http://o{i}", f"r{i}", 0.0)
    assert len(actions.fetches) == 2 and figures(gate).limit == 2  # it starts at the floor
    gate.resize(5, 1.0)
    assert [o for o, _ in actions.fetches] == [f"http://o{i}" for i in range(5)]  # in order
    gate.resize(100, 1.0)  # kept at the ceiling
    assert len(actions.fetches) == 8 and figures(gate).running == 8
    gate.resize(3, 2.0)
    for i in range(5):
        finish(gate, store, f"http://o{i}", 3.0)
    assert len(actions.fetches) == 8  # 3 still running: the lowered limit
    finish(gate, store, "http://o5", 3.0)
    assert len(actions.fetches) == 9 and figures(gate).running == 3


def test_no_more_origins_are_decided_than_the_store_keeps_while_their_requests_travel() -> None:
    """Issue 26: origins decided ahead of their requests were forgotten and fetched again.
    Here the store keeps 3 origins; a released request pins its origin until the download
    check sees it (what the coordinator does), and fetches wait for room."""
    gate, actions, store = make_gate(max_fetches=10, store_size=3, room=True)
    origins = [f"http://o{i}" for i in range(8)]
    for i, origin in enumerate(origins):
        gate.schedule(origin, f"r{i}", 0.0)
    assert len(actions.fetches) == 3  # 3 fill the store: the others wait for room
    travelling: list[str] = []

    def decide(origin: str) -> None:
        before = len(actions.released)
        finish(gate, store, origin, 1.0)
        for released, _ in actions.released[before:]:  # on their way: pinned
            store.pin(released)
            travelling.append(released)
        # The bound: pinned origins + fetches in flight within the store, but for the one
        # fetch a finished fetch may start before its own requests are pinned.
        assert store.pinned + figures(gate).in_flight <= 3 + 1

    def checked(origin: str) -> None:
        travelling.remove(origin)
        if store.unpin(origin):
            gate.room_made(2.0)

    for origin in origins[:3]:
        decide(origin)
    assert len(actions.fetches) == 4 and store.pinned == 3
    assert all(origin in store for origin in travelling)  # none forgotten on its way
    checked("http://o0")
    assert len(actions.fetches) == 4  # o3 in flight fills the room o0 left
    checked("http://o1")
    assert [o for o, _ in actions.fetches][-1] == "http://o4"
    while travelling or gate.busy:
        running = [o for o in origins if gate.fetching(o)]
        if running:
            decide(running[0])
        if travelling:
            checked(travelling[0])
        assert all(origin in store for origin in travelling)
    assert sorted(o for o, _ in actions.fetches) == origins  # one fetch per origin
    assert store.pinned_evictions == 0 and accounted(gate)


def test_a_download_waiting_in_place_does_not_wait_for_room() -> None:
    gate, actions, _ = make_gate(max_fetches=4, store_size=1, room=True)
    gate.schedule("http://a", "a", 0.0)
    gate.schedule("http://b", "b", 0.0)
    assert [o for o, _ in actions.fetches] == ["http://a"]  # the room: one origin
    gate.wait("http://c", "held:c", 0.0)  # media download: the engine waits for it
    assert [o for o, _ in actions.fetches] == ["http://a", "http://c"]


def test_max_fetches_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_fetches"):
        recorder = Recorder()
        Gate(
            MemoryStore(1),
            CFG,
            MemoryLot(),
            recorder,
            recorder.lifecycle,
            pacing=Pacing(16),
            park_timeout=1.0,
            max_fetches=0,
        )
    with pytest.raises(ValueError, match="max_slow"):
        make_gate(max_slow=-1, slow_after=5.0)


def test_a_slow_fetch_leaves_the_budget_for_the_slow_lane_and_frees_its_slot() -> None:
    gate, actions, store = make_gate(max_fetches=1, max_slow=1, slow_after=5.0)
    for origin in ("http://dead", "http://h1", "http://h2", "http://h3"):
        gate.schedule(origin, origin[7:], 0.0)
    assert [o for o, _ in actions.fetches] == ["http://dead"]
    gate.tick(4.9)  # not slow yet
    assert figures(gate).running == 1 and figures(gate).slow == 0 and figures(gate).queued == 3
    gate.tick(5.0)
    assert (figures(gate).running, figures(gate).slow) == (1, 1)
    assert [o for o, _ in actions.fetches] == ["http://dead", "http://h1"]
    assert gate.fetching("http://dead")
    finish(gate, store, "http://h1", 6.0)
    assert ("http://h1", "h1") in actions.released
    assert [o for o, _ in actions.fetches][-1] == "http://h2"
    # h2 is slow too, but the lane is full: it keeps its slot, the bound holds.
    gate.tick(20.0)
    assert (figures(gate).running, figures(gate).slow) == (1, 1) and figures(gate).queued == 1
    finish(gate, store, "http://dead", 30.0, status=None)  # its timeout: a server error
    assert ("http://dead", "dead") not in actions.released  # stopped: its request waits
    assert not [item for _, item, _ in actions.dropped]
    # The lane has room again and h3 waits: the slow h2 moves, h3 starts at once.
    assert (figures(gate).running, figures(gate).slow) == (1, 1) and gate.fetching("http://h3")
    finish(gate, store, "http://h3", 31.0)
    finish(gate, store, "http://h2", 32.0)
    assert (figures(gate).running, figures(gate).slow) == (0, 0) and not figures(gate).queued
    assert figures(gate).running_peak == 1 and figures(gate).slow_peak == 1
    # Two moved to the lane (dead, then h2): four fetches, never more than one slot + lane.
    assert [o for o, _ in actions.fetches] == ["http://dead", "http://h1", "http://h2", "http://h3"]
    assert accounted(gate)


def test_a_slow_fetch_moves_as_soon_as_an_origin_waits_not_before() -> None:
    gate, actions, _ = make_gate(max_fetches=1, max_slow=2, slow_after=5.0)
    gate.schedule("http://dead", "d", 0.0)
    gate.tick(100.0)
    # Nobody waits: it keeps its slot.
    assert (figures(gate).running, figures(gate).slow) == (1, 0)
    assert gate.schedule("http://new", "n", 101.0) is ParkReason.MISS
    # Moved by the request, no tick needed:
    assert (figures(gate).running, figures(gate).slow) == (1, 1)
    assert [o for o, _ in actions.fetches] == ["http://dead", "http://new"]


def test_the_slow_lane_keeps_the_park_clock_and_the_crawl_open() -> None:
    gate, actions, store = make_gate(max_fetches=1, timeout=10.0, max_slow=4, slow_after=2.0)
    gate.schedule("http://dead", "d", 0.0)
    gate.schedule("http://next", "n", 0.0)
    gate.tick(2.0)
    assert figures(gate).slow == 1
    finish(gate, store, "http://next", 3.0)
    gate.tick(9.9)
    assert actions.dropped == []
    gate.tick(10.0)  # PARK_TIMEOUT counts from the start of the fetch, slow lane or not
    assert actions.dropped == [("http://dead", "d", "deadline")]
    assert gate.busy  # the download is still in flight
    finish(gate, store, "http://dead", 30.0, status=None)
    assert not gate.busy and accounted(gate)


def test_every_host_dead_the_downloads_in_flight_stay_within_budget_plus_lane() -> None:
    """A network outage: no fetch ever ends, yet only budget + lane downloads are started."""
    gate, actions, store = make_gate(max_fetches=2, timeout=1000.0, max_slow=3, slow_after=5.0)
    for i in range(50):
        gate.schedule(f"http://o{i}", f"r{i}", 0.0)
    for second in range(1, 200):
        gate.tick(float(second))
        assert figures(gate).running <= 2 and figures(gate).slow <= 3
    assert len(actions.fetches) == 5 and (figures(gate).running, figures(gate).slow) == (2, 3)
    # Timeouts end them: each freed place is taken again, never more than the bound.
    for second in range(200, 400):
        for origin, _ in list(actions.fetches):
            if gate.fetching(origin):
                finish(gate, store, origin, float(second), status=None)
                break
        gate.tick(float(second))
        assert figures(gate).running <= 2 and figures(gate).slow <= 3
    assert [o for o, _ in actions.fetches[:50]] == [f"http://o{i}" for i in range(50)]
    assert figures(gate).slow_peak == 3 and figures(gate).running_peak == 2


def test_no_slow_lane_when_its_size_or_its_threshold_is_zero() -> None:
    for max_slow, slow_after in ((0, 5.0), (4, 0.0)):
        gate, actions, _ = make_gate(max_fetches=1, max_slow=max_slow, slow_after=slow_after)
        gate.schedule("http://dead", "d", 0.0)
        gate.schedule("http://next", "n", 0.0)
        gate.tick(1000.0)
        assert figures(gate).slow == 0 and figures(gate).slow_peak == 0
        assert [o for o, _ in actions.fetches] == ["http://dead"]


class GateMachine(RuleBasedStateMachine):
    """Random interleavings of requests (scheduled or waiting in place), fetch outcomes, ticks
    and the crawl's close: nothing is ever lost, nothing parked is released into a closing
    crawl, and nothing waiting in place outlives the park timeout counted from the close."""

    ORIGINS = ("http://a", "http://b", "http://c", "http://d")

    def __init__(self) -> None:
        super().__init__()
        self.gate, self.actions, self.store = make_gate(
            max_fetches=3, min_fetches=1, timeout=50.0, max_slow=1, slow_after=5.0,
            store_size=3, room=True,
        )  # fmt: skip
        self.allowed = 1  # the highest limit running fetches may have started under
        self.travelling: list[str] = []  # origins of released requests not checked yet
        self.seen_released = 0
        self.starts_over_room: list[str] = []
        record = self.actions.fetch

        def fetch(origin: str, why: str) -> None:  # just after the gate took the slot
            rec = self.gate._origins.get(origin)
            if figures(self.gate).in_flight > self.store.room() and not (rec and rec.held):
                self.starts_over_room.append(origin)
            record(origin, why)

        self.actions.fetch = fetch  # type: ignore[method-assign]
        self.now = 0.0
        self.sent = 0
        self.passed = 0
        self.refused = 0  # downloads waiting in place refused at once: their origin is stopped
        self.closed_at: float | None = None
        self.held: dict[str, float] = {}  # held items not handed out yet: when they came

    @rule(origin=st.sampled_from(ORIGINS))
    def request(self, origin: str) -> None:
        self.sent += 1
        if self.gate.schedule(origin, f"{origin}#{self.sent}", self.now) is None:
            self.passed += 1

    @rule(origin=st.sampled_from(ORIGINS))
    def download_waits(self, origin: str) -> None:
        self.sent += 1
        item = f"held:{origin}#{self.sent}"
        reason = self.gate.wait(origin, item, self.now)
        if reason is None:
            self.passed += 1
        elif reason is ParkReason.STOPPED:
            self.refused += 1
        else:
            self.held[item] = self.now

    @precondition(lambda self: self.closed_at is None)
    @rule()
    def crawl_closes(self) -> None:
        self.actions.open = False
        self.closed_at = self.now
        self.gate.tick(self.now)  # the housekeeping tick notices

    @rule(status=st.sampled_from([200, 404, 503, None]), data=st.data())
    def fetch_ends(self, status: int | None, data: st.DataObject) -> None:
        running = [o for o in ("http://a", "http://b", "http://c", "http://d")
                   if self.gate.fetching(o)]  # fmt: skip
        if running:
            finish(self.gate, self.store, data.draw(st.sampled_from(running)), self.now, status)

    @rule(seconds=st.sampled_from([0.5, 10.0, 60.0, 4000.0]))
    def time_passes(self, seconds: float) -> None:
        self.now += seconds
        self.gate.tick(self.now)

    @rule(limit=st.integers(min_value=0, max_value=5))
    def pacing_moves_the_limit(self, limit: int) -> None:
        self.allowed = max(self.allowed, figures(self.gate).limit)
        self.gate.resize(limit, self.now)

    @rule(data=st.data())
    def a_released_request_reaches_the_download_check(self, data: st.DataObject) -> None:
        if self.travelling:
            origin = self.travelling.pop(data.draw(st.integers(0, len(self.travelling) - 1)))
            if self.store.unpin(origin):
                self.gate.room_made(self.now)

    def _pin_released(self) -> None:
        """What the coordinator does: a released (not held) request pins its origin."""
        for origin, item in self.actions.released[self.seen_released :]:
            if not item.startswith("held") and origin in self.store:
                self.store.pin(origin)
                self.travelling.append(origin)
        self.seen_released = len(self.actions.released)

    @invariant()
    def a_travelling_request_never_finds_its_origin_forgotten(self) -> None:
        self._pin_released()
        assert all(origin in self.store for origin in self.travelling)
        assert self.starts_over_room == []  # no queued start beyond the store's room

    @invariant()
    def nothing_lost(self) -> None:
        gate = self.gate
        assert accounted(gate)
        assert figures(gate).parked_total + self.passed + self.refused == self.sent
        handed = len(self.actions.released) + len(self.actions.dropped)
        assert handed + figures(gate).parked_now == figures(gate).parked_total
        # The bound on downloads: the budget's limit (a lowered one lets running fetches
        # end) + slow lane, and each fetch in exactly one of them.
        budget = figures(gate)
        assert 1 <= budget.limit <= 3
        if budget.running <= budget.limit:
            self.allowed = budget.limit
        assert 0 <= budget.running <= self.allowed and 0 <= budget.slow <= 1
        fetching = sum(gate.fetching(o) for o in ("http://a", "http://b", "http://c", "http://d"))
        assert figures(gate).running + figures(gate).slow == fetching

    @invariant()
    def closing_releases_only_what_waits_in_place(self) -> None:
        assert not [item for item in self.actions.released_closed if not item.startswith("held")]

    @invariant()
    def what_waits_in_place_is_bounded_by_the_close(self) -> None:
        handed = {i for _, i in self.actions.released} | {i for _, i, _ in self.actions.dropped}
        for item in [item for item in self.held if item in handed]:
            del self.held[item]
        gate = self.gate
        if figures(gate).running < figures(gate).limit:  # a free slot goes to a held item's origin
            recs = [gate._origins.get(o) for o in self.ORIGINS]
            queued = [rec for rec in recs if rec is not None and rec.held and rec.fetch == 1]
            assert queued == []
        for origin in self.ORIGINS:  # a download never waits for a retry
            state = self.store.get(origin)
            rec = gate._origins.get(origin)
            if rec is not None and rec.held and state:
                force = rules_in_force(state, self.now, CFG)
                assert force.mode is not Mode.STOPPED or gate.fetching(origin), origin
        if self.closed_at is None:
            return
        for item, came in self.held.items():  # the tick that just ran dropped the overdue
            assert max(came, self.closed_at) + 50.0 > self.now, item

    def teardown(self) -> None:
        self.gate.close(persist=False, reason="end")
        assert accounted(self.gate)
        items = [i for _, i in self.actions.released] + [i for _, i, _ in self.actions.dropped]
        assert len(items) == len(set(items)) == figures(self.gate).parked_total


TestGateMachine = GateMachine.TestCase
TestGateMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


# -- the paced release (crawl/turns.py) --------------------------------------------------------


def paced_gate(
    *, store_size: int = 1000, max_fetches: int = 4, lot: object | None = None
) -> tuple[Gate[str], Recorder, MemoryStore]:
    """A gate whose decided origins wait for release_turn(), pinned in its store meanwhile."""
    return make_gate(
        store_size=store_size, max_fetches=max_fetches, lot=lot, paced=True
    )


def test_a_decided_origins_requests_are_released_one_per_turn_round_robin() -> None:
    gate, actions, store = paced_gate()
    for i in range(3):
        gate.schedule("http://a", f"a{i}", 0.0)
        gate.schedule("http://b", f"b{i}", 0.0)
    finish(gate, store, "http://a", 1.0)
    finish(gate, store, "http://b", 1.0)
    assert actions.released == [] and actions.turns == 1  # asked once, not per origin
    assert gate.turns_due and in_turn(gate, "http://a") and in_turn(gate, "http://b")
    assert figures(gate).turn_items == 6 and figures(gate).parked_now == 6 and gate.busy
    assert store.pinned == 2  # neither can be forgotten before its requests have gone
    sent = [gate.release_turn(2.0, 1) for _ in range(4)]
    assert sent == [1, 1, 1, 1]
    assert [item for _, item in actions.released] == ["a0", "b0", "a1", "b1"]
    assert gate.release_turn(2.0, 10) == 2  # the rest, still one origin after the other
    assert [item for _, item in actions.released][4:] == ["a2", "b2"]
    assert not gate.turns_due and not gate.busy and not in_turn(gate, "http://a")
    assert store.pinned == 0 and figures(gate).parked_now == 0
    assert gate.release_turn(3.0, 1) == 0 and accounted(gate)
    assert figures(gate).turn_peak == 2


def test_a_later_request_of_a_ready_origin_passes_and_held_ones_go_at_once() -> None:
    gate, actions, store = paced_gate()
    gate.schedule("http://a", "a0", 0.0)
    gate.wait("http://a", "held:a", 0.0)  # a download waiting in place for the same fetch
    finish(gate, store, "http://a", 1.0)
    assert actions.released == [("http://a", "held:a")]  # it holds a download slot
    assert gate.schedule("http://a", "a1", 1.5) is None  # decided: nothing to wait for
    assert gate.release_turn(2.0, 5) == 1 and actions.released[-1] == ("http://a", "a0")


def test_a_decided_request_taken_while_the_engine_is_full_waits_its_turn() -> None:
    """Scrapy takes start requests as fast as it can while the engine is full: passed, the
    decided ones would wait in the scheduler, among thousands of sites."""
    gate, actions, store = paced_gate()
    gate.schedule("http://a", "a0", 0.0)
    finish(gate, store, "http://a", 1.0)
    assert gate.release_turn(1.0, 5) == 1 and not gate.turns_due  # a0 went: a is decided, not ready
    assert gate.schedule("http://a", "a1", 2.0) is None  # room in the engine: it passes
    assert gate.schedule("http://a", "a2", 2.0, turn=True) is ParkReason.TURN
    assert gate.schedule("http://a", "a3", 2.0, turn=True) is ParkReason.TURN
    assert in_turn(gate, "http://a") and figures(gate).turn_items == 2 and store.pinned == 1
    assert actions.fetches == [("http://a", "miss")]  # decided: no fetch for them
    assert gate.release_turn(3.0, 1) == 1 and gate.release_turn(3.0, 1) == 1 and not gate.turns_due
    assert [item for _, item in actions.released] == ["a0", "a2", "a3"]
    assert store.pinned == 0 and accounted(gate) and not gate.busy
    # Undecided, it parks for its robots.txt as any request does.
    assert gate.schedule("http://b", "b0", 4.0, turn=True) is ParkReason.MISS


def test_a_request_waits_its_turn_only_while_the_store_has_room_to_pin_its_origin() -> None:
    """Waiting, a decided origin is pinned: past the store's room the request passes, so a
    pour of 20,000 decided sites never keeps 20,000 states (the store's size bounds it)."""
    gate, actions, store = paced_gate(store_size=2)
    for origin in ("http://a", "http://b"):
        gate.schedule(origin, f"{origin[-1]}0", 0.0)
        finish(gate, store, origin, 1.0)
    while gate.release_turn(1.0, 1):
        pass
    assert store.pinned == 0 and "http://a" in store and "http://b" in store
    store.pin("http://b")  # a request of b passed and is on its way: one pin of two
    assert gate.schedule("http://a", "a1", 2.0, turn=True) is ParkReason.TURN  # room 1
    assert store.room() == 0
    assert gate.schedule("http://b", "b1", 2.0, turn=True) is None  # no room: it passes
    assert gate.schedule("http://a", "a2", 2.0, turn=True) is ParkReason.TURN  # pinned already
    assert in_turn(gate, "http://a") and not in_turn(gate, "http://b")
    assert figures(gate).turn_items == 2
    assert gate.release_turn(3.0, 1) == 1 and gate.release_turn(3.0, 1) == 1 and not gate.turns_due
    assert store.room() == 1  # a went on: its pin went with it
    assert gate.schedule("http://b", "b2", 4.0, turn=True) is ParkReason.TURN
    assert gate.release_turn(5.0, 1) == 1 and store.unpin("http://b")
    released = [item for _, item in actions.released]
    assert released == ["a0", "b0", "a1", "a2", "b2"] and accounted(gate) and not gate.busy
    assert [origin for origin, _ in actions.fetches] == ["http://a", "http://b"]


def test_a_request_waits_its_turn_only_with_a_paced_release_of_an_open_crawl() -> None:
    for paced, lot in ((False, None), (True, SharedMemoryLot())):
        gate, _, store = make_gate(paced=paced, lot=lot)
        gate.schedule("http://a", "a0", 0.0)
        finish(gate, store, "http://a", 1.0)
        assert gate.schedule("http://a", "a1", 2.0, turn=True) is None, (paced, lot)
    gate, actions, store = paced_gate()
    gate.schedule("http://a", "a0", 0.0)
    finish(gate, store, "http://a", 1.0)
    actions.open = False  # the crawl closes: Scrapy's own queues take it, as before
    assert gate.schedule("http://a", "a1", 2.0, turn=True) is None
    assert figures(gate).turn_items == 1  # a0 only, which the close keeps or drops


def test_nothing_goes_on_into_a_closing_crawl_and_the_close_keeps_or_drops_the_rest(
    tmp_path: Path,
) -> None:
    dumps, loads = _codec()
    for persist in (False, True):
        lot: object = (
            SqliteLot(str(tmp_path / "lot.sqlite3"), dumps, loads)  # type: ignore[arg-type]
            if persist
            else MemoryLot()
        )
        gate, actions, store = paced_gate(lot=lot)
        for i in range(5):
            gate.schedule("http://a", f"a{i}", 0.0)
        finish(gate, store, "http://a", 1.0)
        assert gate.release_turn(1.0, 2) == 2
        actions.open = False  # CloseSpider, Ctrl-C, a JOBDIR pause
        assert gate.release_turn(1.1, 2) == 0 and not gate.turns_due
        gate.tick(1.2)
        assert gate.close(persist=persist, reason="spider closed (shutdown)") == (
            3 if persist else 0
        )
        assert actions.released_closed == [] and accounted(gate)
        if persist:
            assert figures(gate).persisted == 3 and actions.dropped == []
        else:
            assert [(item, why) for _, item, why in actions.dropped] == [
                (f"a{i}", "spider closed (shutdown)") for i in (2, 3, 4)
            ]
            # Issue 46, item 11: their site was decided; they were waiting their turn.
            assert actions.decided_drops == ["a2", "a3", "a4"]
    # An origin still undecided at the close: its items are not said to be decided.
    gate, actions, store = paced_gate()
    gate.schedule("http://b", "b0", 0.0)
    gate.close(persist=False, reason="spider closed (shutdown)")
    assert [item for _, item, _ in actions.dropped] == ["b0"] and actions.decided_drops == []


def test_a_shared_lot_releases_at_once() -> None:
    """A fleet's lot: each turn would be a round trip to Redis."""
    gate, actions, store = paced_gate(lot=SharedMemoryLot())
    gate.schedule("http://a", "a0", 0.0)
    gate.schedule("http://a", "a1", 0.0)
    finish(gate, store, "http://a", 1.0)
    assert [item for _, item in actions.released] == ["a0", "a1"]
    assert actions.turns == 0 and not gate.turns_due and store.pinned == 0


def test_a_bounce_or_an_expired_copy_takes_an_origin_out_of_its_turn() -> None:
    gate, actions, store = paced_gate()
    gate.schedule("http://a", "a0", 0.0)
    gate.schedule("http://a", "a1", 0.0)
    finish(gate, store, "http://a", 1.0)
    # A request that reached the downloader undecided comes back: looked at again, still
    # decided, so it simply waits its turn behind the others.
    gate.bounce("http://a", "a-bounced", 1.5)
    gate.check("http://a", 1.5)
    assert in_turn(gate, "http://a") and figures(gate).turn_items == 3 and store.pinned == 1
    # The copy expires while requests wait their turn: they wait for the new one instead.
    expired = store.get("http://a")
    assert expired is not None
    later = expired.refresh_at + 1.0
    assert gate.schedule("http://a", "a2", later) is ParkReason.EXPIRED
    assert not in_turn(gate, "http://a") and store.pinned == 0
    assert actions.fetches[-1] == ("http://a", "expired") and gate.release_turn(later, 9) == 0
    finish(gate, store, "http://a", later + 1.0)
    assert in_turn(gate, "http://a")
    assert gate.release_turn(later + 2.0, 9) == 4
    assert [item for _, item in actions.released] == ["a0", "a1", "a-bounced", "a2"]
    assert accounted(gate) and not gate.busy


def test_origins_waiting_their_turn_hold_their_place_in_the_store() -> None:
    """A store of 1: an origin waiting its turn fills it, so the next fetch waits for room
    (decided, then forgotten before its requests went, an origin would be fetched again).
    A fetch that ends may already have let the next one start (as when its requests are
    released at once and pin it on their way): one over, never more."""
    gate, actions, store = paced_gate(store_size=1, max_fetches=1)
    for origin in ("http://a", "http://b", "http://c"):
        gate.schedule(origin, origin[-1] + "0", 0.0)
        gate.schedule(origin, origin[-1] + "1", 0.0)
    finish(gate, store, "http://a", 1.0)
    finish(gate, store, "http://b", 1.0)
    assert [o for o, _ in actions.fetches] == ["http://a", "http://b"]  # c waits for room
    assert store.pinned == 2
    assert "http://a" in store and "http://b" in store  # neither forgotten
    gate.release_turn(2.0, 3)  # a0, b0, a1: a has gone, b still waits, so still no room
    assert [o for o, _ in actions.fetches] == ["http://a", "http://b"]
    gate.release_turn(2.0, 1)  # b1: its place goes to c
    assert [o for o, _ in actions.fetches][-1] == "http://c"
    finish(gate, store, "http://c", 3.0)
    while gate.release_turn(4.0, 1):
        pass
    assert [item for _, item in actions.released] == ["a0", "b0", "a1", "b1", "c0", "c1"]
    assert len(actions.fetches) == 3 and accounted(gate)


class PacedGateMachine(GateMachine):
    """The same interleavings with the paced release, and turns of it in between."""

    def __init__(self) -> None:
        super().__init__()
        gate = self.gate
        self.gate = Gate(
            self.store,
            CFG,
            MemoryLot(),
            self.actions,
            self.actions.lifecycle,
            pacing=Pacing(16),
            park_timeout=50.0,
            max_fetches=3,
            min_fetches=1,
            max_slow=1,
            slow_after=5.0,
            bounds=self.store,
            pace_release=True,
        )
        del gate

    @rule(origin=st.sampled_from(GateMachine.ORIGINS))
    def a_start_request_taken_while_the_engine_is_full(self, origin: str) -> None:
        self.sent += 1
        room = in_turn(self.gate, origin) or self.store.room() > 0  # to pin it, if it waits
        reason = self.gate.schedule(origin, f"{origin}#{self.sent}", self.now, turn=True)
        if reason is None:
            self.passed += 1
        else:  # undecided, or decided and waiting its turn: never into a closing crawl,
            # never beyond the store's room
            assert reason is not ParkReason.TURN or (self.closed_at is None and room)
            assert reason is not ParkReason.TURN or in_turn(self.gate, origin)

    @rule(n=st.integers(min_value=1, max_value=3))
    def a_turn_of_the_event_loop(self, n: int) -> None:
        before = len(self.actions.released)
        sent = self.gate.release_turn(self.now, n)
        assert sent == len(self.actions.released) - before <= n

    @invariant()
    def a_ready_origin_is_decided_and_kept(self) -> None:
        for origin in self.ORIGINS:
            if in_turn(self.gate, origin):
                rec = self.gate._origins.get(origin)
                assert origin in self.store and rec is not None and rec.parked > 0
        if self.closed_at is not None:
            assert not self.gate.turns_due


TestPacedGateMachine = PacedGateMachine.TestCase
TestPacedGateMachine.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)
