"""The gate's back-off, pure: an origin in back-off parks its requests until the end, then
releases them; its turn stops meanwhile; other origins pass; the deadline still drops."""

from __future__ import annotations

from test_gate import CFG, RULES, Recorder, accounted

from scrapy_gbot_robots.crawl.backoff import Backoffs
from scrapy_gbot_robots.crawl.gate import Gate
from scrapy_gbot_robots.crawl.pacing import Pacing
from scrapy_gbot_robots.crawl.reasons import ParkReason
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.stores.memory import MemoryStore

A, B = "http://a", "http://b"


def make(
    *, timeout: float = 100.0, backoff: bool = True, paced: bool = False
) -> tuple[Gate[str], Recorder]:
    store = MemoryStore(100)
    for origin in (A, B):  # both decided: requests pass unless backing off
        store.put(origin, evaluate(FetchResult(status=200, body=RULES), 0.0, None, CFG))
    actions = Recorder()
    gate: Gate[str] = Gate(
        store,
        CFG,
        MemoryLot(),
        actions,
        actions.lifecycle,
        pacing=Pacing(16),
        park_timeout=timeout,
        max_fetches=2,
        bounds=store,
        pace_release=paced,
        backoff=Backoffs(300.0, 100) if backoff else None,
    )
    return gate, actions


def test_a_distress_parks_the_origin_until_its_end_and_not_the_others() -> None:
    gate, actions = make()
    assert gate.schedule(A, "a1", 1.0) is None
    began = gate.answered(A, 503, "3", 1.0)
    assert began is not None and began.until == 4.0 and gate.backing_off(A, 2.0)
    assert gate.schedule(A, "a2", 1.5) is ParkReason.BACKOFF
    assert gate.schedule(A, "a3", 1.6) is ParkReason.BACKOFF  # not "waiting": told apart
    assert gate.schedule(B, "b1", 1.6) is None  # another origin passes
    gate.tick(3.9)
    assert actions.released == []
    gate.tick(4.0)
    assert actions.released == [(A, "a2"), (A, "a3")]
    assert gate.backoff_ended(4.0) == [(A, 3.0)]
    assert gate.schedule(A, "a4", 4.1) is None and accounted(gate)


def test_a_bounced_request_says_it_waits_for_the_back_off() -> None:
    gate, actions = make()
    gate.answered(A, 429, "2", 0.0)
    assert gate.bounce(A, "a1", 0.5) is ParkReason.BACKOFF
    gate.check(A, 0.5)
    gate.tick(2.0)
    assert actions.released == [(A, "a1")]
    assert gate.bounce(A, "a2", 3.0) is ParkReason.BOUNCED  # over: a plain bounce


def test_a_back_off_longer_than_the_park_timeout_drops_at_the_deadline() -> None:
    gate, actions = make(timeout=5.0)
    gate.answered(A, 503, "60", 0.0)
    gate.schedule(A, "a1", 1.0)
    gate.tick(5.9)
    assert actions.dropped == []
    gate.tick(6.0)
    assert actions.dropped == [(A, "a1", "deadline")] and accounted(gate)


def test_an_origin_waiting_its_turn_stops_for_the_back_off() -> None:
    gate, actions = make(paced=True)
    assert gate.schedule(A, "a1", 0.0, turn=True) is ParkReason.TURN
    gate.answered(A, 503, "2", 0.5)
    assert gate.release_turn(0.6, 10) == 0 and actions.released == []
    gate.tick(2.5)
    gate.release_turn(2.5, 10)
    assert actions.released == [(A, "a1")] and accounted(gate)


def test_healthy_answers_and_a_switched_off_back_off_cost_nothing() -> None:
    gate, _ = make(backoff=False)
    assert gate.answered(A, 503, "3", 0.0) is None
    assert not gate.backing_off(A, 1.0) and gate.schedule(A, "a1", 1.0) is None
    gate, _ = make()
    assert gate.answered(A, 200, None, 0.0) is None and not gate.backing_off(A, 0.0)


def test_the_close_keeps_or_drops_what_the_back_off_parked() -> None:
    gate, actions = make()
    gate.answered(A, 503, "30", 0.0)
    gate.schedule(A, "a1", 1.0)
    actions.open = False
    gate.tick(31.0)  # closing: the lot's items are no longer released
    assert actions.released == []
    actions.lifecycle.close()
    assert gate.close(persist=False, reason="spider closed (shutdown)") == 0
    assert actions.dropped == [(A, "a1", "spider closed (shutdown)")]


def test_a_network_error_parks_the_origin_as_a_503_without_retry_after_does() -> None:
    gate, actions = make()
    began = gate.answered(A, 0, None, 1.0, "DownloadTimeoutError")
    assert began is not None and began.failure == "DownloadTimeoutError" and began.until == 2.0
    assert gate.answered(A, 0, None, 1.1, "DownloadTimeoutError") is None  # in flight: one
    assert gate.schedule(A, "a1", 1.5) is ParkReason.BACKOFF
    assert gate.schedule(B, "b1", 1.5) is None
    gate.tick(2.0)
    assert actions.released == [(A, "a1")]
    again = gate.answered(A, 0, None, 2.5, "ConnectionRefusedError")  # the next in a row
    assert again is not None and again.delay == 2.0 and accounted(gate)
    off, _ = make(backoff=False)
    assert off.answered(A, 0, None, 1.0, "DownloadTimeoutError") is None


# -- a fleet's Crawl-delay slot held (crawl/crawl_delay.py): parked as in a back-off ------------


def test_a_held_crawl_delay_slot_parks_the_origin_until_it_is_free_and_is_no_back_off() -> None:
    gate, actions = make()
    assert gate.schedule(A, "a1", 1.0) is None
    held = gate.heard(A, 2.5, 1.0, held=True)  # another worker's send holds the slot
    assert held is not None and held.until == 2.5 and gate.backing_off(A, 2.0)
    assert gate.bounce(A, "a1", 1.1) is ParkReason.CRAWL_DELAY  # sent back from the check
    assert gate.schedule(A, "a2", 1.2) is ParkReason.CRAWL_DELAY
    assert gate.schedule(B, "b1", 1.2) is None  # another origin passes
    assert gate.heard(A, 2.0, 1.3, held=True) is None  # a shorter hold changes nothing
    gate.tick(2.4)
    assert actions.released == []
    gate.tick(2.5)
    assert actions.released == [(A, "a1"), (A, "a2")]
    assert gate.backoff_ended(3.0) == []  # not a back-off: nothing began, nothing ended
    assert gate.schedule(A, "a3", 2.6) is None and accounted(gate)


def test_a_distress_during_a_held_slot_begins_a_real_back_off() -> None:
    gate, _ = make()
    gate.schedule(A, "a1", 0.0)
    gate.heard(A, 1.0, 0.0, held=True)
    began = gate.answered(A, 503, "5", 0.5)  # not "sent before a back-off": there was none
    assert began is not None and began.new and began.until == 5.5
    assert gate.schedule(A, "a2", 0.6) is ParkReason.BACKOFF


def test_a_held_slot_parks_its_requests_until_the_park_timeout_at_most() -> None:
    gate, actions = make(timeout=3.0)
    gate.schedule(A, "a1", 0.0)
    gate.heard(A, 100.0, 0.0, held=True)  # a slot held far longer than the deadline
    gate.bounce(A, "a1", 0.0)
    gate.check(A, 0.0)
    gate.tick(3.5)
    assert [item for _, item, _ in actions.dropped] == ["a1"] and accounted(gate)


def test_holds_are_kept_within_the_books_bound() -> None:
    books = Backoffs(300.0, 2)
    for i in range(5):
        assert books.hold(f"http://o{i}", 10.0 + i, 0.0) is not None
    assert len(books) == 2 and books.evicted == 3 and books.entered == 0
    assert books.held("http://o4") and not books.held("http://o0")
