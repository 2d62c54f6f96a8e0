"""Why parked requests wait, and when they are retried or dropped (issue 48: a crawl whose
robots.txt answered 503 logged "2 requests parked" for ten minutes and said nothing more).

Pure: the words (:class:`Waiting`), the first deadline at a bounded cost, and the gate's
count (:meth:`~scrapy_gbot_robots.crawl.gate.Gate.why_waiting`) on a gate driven by hand with an
explicit clock, a real store and a real lot. The line in a real crawl is in
tests/crawl/test_progress.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from scrapy_gbot_robots.crawl.gate import Gate
from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.pacing import Pacing
from scrapy_gbot_robots.crawl.reasons import ParkReason
from scrapy_gbot_robots.crawl.waiting import Waiting, first_deadline, span
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig
from scrapy_gbot_robots.stores.memory import MemoryStore

CFG = PolicyConfig(retry_backoff=60.0)
TIMEOUT = 600.0
RULES = b"User-agent: *\nDisallow: /private\n"


class Actions:
    """Records the fetches the gate wants; the test completes them. ``open``: the crawl's."""

    def __init__(self) -> None:
        self.fetches: list[str] = []
        self.open = True
        self.lifecycle = Lifecycle(lambda: self.open, clock=lambda: 0.0)

    def fetch(self, origin: str, why: str) -> None:
        self.fetches.append(origin)

    def release(self, origin: str, items: Sequence[str]) -> None:
        pass

    def drop(self, origin: str, items: Sequence[str], reason: str, decided: bool = False) -> None:
        pass

    def turns_due(self) -> None:
        pass


def gate(max_fetches: int = 1) -> tuple[Gate[str], MemoryStore, Actions]:
    """A gate of ``max_fetches`` fetch slots."""
    store = MemoryStore(100)
    actions = Actions()
    g: Gate[str] = Gate(
        store,
        CFG,
        MemoryLot(),
        actions,
        actions.lifecycle,
        pacing=Pacing(16),
        park_timeout=TIMEOUT,
        max_fetches=max_fetches,
        min_fetches=1,
        start_fetches=max_fetches,
    )
    return g, store, actions


def fetched(g: Gate[str], store: MemoryStore, origin: str, now: float, status: int) -> None:
    result = FetchResult(status=status, body=RULES if status == 200 else b"busy")
    store.put(origin, evaluate(result, now, store.get(origin), CFG))
    g.fetch_done(origin, now)


# ----------------------------------------------------------------------------- the words


def test_each_reason_is_said_with_its_count_and_the_next_events() -> None:
    w = Waiting(fetching=3, slot=1_200, retry=2, turn=5, next_retry=41.2, first_drop=500.0)
    assert w.text(TIMEOUT) == (
        "3 for robots.txt being fetched, 1,200 for a slot of the fetch budget (not aging), "
        "2 for a retry after server errors, the next in 42 s, 5 decided, waiting their turn; "
        "the first dropped in 8 min 20 s unless decided: GBOT_ROBOTS_PARK_TIMEOUT = 10 min"
    )
    assert Waiting(retry=1, next_retry=0.0).text(TIMEOUT) == (
        "1 for a retry after server errors, one under way"
    )
    assert Waiting().text(TIMEOUT) == ""


def test_spans_are_said_in_the_units_a_person_says() -> None:
    assert [span(s) for s in (0, 0.2, 41, 99, 100, 600, 3_599, 3_600, 7_500)] == [
        "0 s",
        "1 s",  # rounded up: never "0 s" for what is still to come
        "41 s",
        "99 s",
        "1 min 40 s",
        "10 min",
        "59 min 59 s",
        "1 h",
        "2 h 5 min",
    ]


def test_the_first_deadline_asks_the_lot_a_bounded_number_of_times() -> None:
    asked: list[str] = []

    def oldest(origin: str) -> float | None:
        asked.append(origin)
        return {"a": 50.0, "b": 5.0}.get(origin, 1_000.0)

    # a's clock started first, but its oldest item came later: b's deadline is the first.
    clocks = [(10.0, "a"), (20.0, "b"), (900.0, "late")]
    assert first_deadline(clocks, oldest, 100.0) == 120.0
    assert asked == ["a", "b"]  # "late" cannot come first: never asked
    asked.clear()
    many = [(float(i), f"o{i}") for i in range(10_000)]
    assert first_deadline(many, oldest, 100.0, lookups=4) == 104.0  # its start stands in
    assert len(asked) == 4
    assert first_deadline([], oldest, 100.0) is None


# ----------------------------------------------------------------------------- the gate


def test_the_gate_counts_its_parked_requests_by_what_they_wait_for() -> None:
    g, store, _ = gate(max_fetches=1)
    assert g.schedule("http://a", "a1", 0.0) is ParkReason.MISS  # fetched now
    g.schedule("http://a", "a2", 1.0)
    g.schedule("http://b", "b1", 2.0)  # behind the budget's one slot
    w = g.why_waiting(10.0)
    assert (w.fetching, w.slot, w.retry, w.turn, w.other) == (2, 1, 0, 0, 0)
    assert w.next_retry is None
    assert w.first_drop == TIMEOUT - 10.0  # a's clock runs since its fetch began, at 0
    fetched(g, store, "http://a", 30.0, 503)  # a server error: retried after the backoff
    w = g.why_waiting(40.0)
    assert (w.fetching, w.slot, w.retry) == (1, 0, 2)  # b's fetch took the freed slot
    retry_at = store.get("http://a").refresh_at  # type: ignore[union-attr]
    assert w.next_retry == retry_at - 40.0 > 0
    assert w.first_drop == TIMEOUT - 40.0  # a's first item, parked at 0
    text = w.text(TIMEOUT)
    assert "2 for a retry after server errors, the next in" in text
    assert "the first dropped in 9 min 20 s unless decided" in text
    fetched(g, store, "http://b", 50.0, 200)  # b is decided: nothing of it waits
    w = g.why_waiting(60.0)
    assert (w.fetching, w.slot, w.retry) == (0, 0, 2)


def test_while_closing_parked_requests_no_longer_age_and_no_drop_is_announced() -> None:
    g, _, actions = gate()
    g.schedule("http://a", "a1", 0.0)
    assert g.why_waiting(1.0).first_drop == TIMEOUT - 1.0
    actions.open = False  # CloseSpider, Ctrl-C, a JOBDIR pause: the close keeps or drops them
    g.tick(2.0)
    w = g.why_waiting(3.0)
    assert w.fetching == 1 and w.first_drop is None
    assert "dropped" not in w.text(TIMEOUT)
