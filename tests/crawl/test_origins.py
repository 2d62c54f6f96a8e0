"""The gate's books alone (``crawl/origins.py``): a record lives while something of its
origin waits, is changed only through these methods, and goes when nothing is left."""

from __future__ import annotations

from scrapy_gbot_robots.crawl.effects import Outbox, Release
from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.origins import FetchState, Origins
from scrapy_gbot_robots.crawl.reasons import FetchReason
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig
from scrapy_gbot_robots.stores.memory import MemoryStore


def books() -> tuple[Origins[str], Outbox[str], MemoryStore]:
    out: Outbox[str] = Outbox()
    store = MemoryStore(10)
    origins: Origins[str] = Origins(
        MemoryLot(),
        out,
        Lifecycle(lambda: True, clock=lambda: 0.0),
        store,
        park_timeout=10.0,
        release_batch=100,
    )
    return origins, out, store


def test_a_record_lives_while_its_fetch_or_its_items_do() -> None:
    origins, out, _ = books()
    rec = origins.park("http://a", None, "a0", 0.0)
    assert origins.get("http://a") is rec and rec.parked == 1
    assert origins.want_fetch(rec, FetchReason.MISS, blocking=False)
    origins.fetch_started("http://a", rec, 1.0)
    assert rec.fetch == FetchState.RUNNING and origins.wakeups == 1  # its park clock runs
    assert not origins.want_fetch(rec, FetchReason.RECHECK, blocking=True)  # one at a time
    assert rec.why is FetchReason.MISS and rec.blocking  # its requests wait for it now
    origins.release("http://a", rec, accepting=True, paced=False)
    assert rec.parked == 0 and "http://a" in origins  # its fetch still runs
    origins.fetch_ended(rec)
    origins.forget("http://a", rec)
    assert "http://a" not in origins and len(origins) == 0
    assert [e.items for e in out.take() if isinstance(e, Release)] == [["a0"]]


def test_a_paced_release_waits_its_turn_pinned_and_leaves_one_item_per_turn() -> None:
    origins, out, store = books()
    store.put("http://a", evaluate(FetchResult(status=404), 0.0, None, PolicyConfig()))
    rec = origins.park("http://a", None, "a0", 0.0)
    origins.park("http://a", rec, "a1", 0.0)
    origins.release("http://a", rec, accepting=True, paced=True)
    assert origins.in_turn("http://a") and store.pinned == 1 and origins.turn_items() == 2
    assert out.take()[-1].__class__.__name__ == "TurnsDue"
    assert origins.release_turn(1) == (1, False) and rec.parked == 1
    assert origins.release_turn(5) == (1, True)  # its last pin went: room for one more
    assert not origins.in_turn("http://a") and "http://a" not in origins


def test_a_queued_fetch_nobody_waits_for_is_given_up() -> None:
    origins, _, _ = books()
    rec = origins.record("http://a")
    origins.want_fetch(rec, FetchReason.REFRESH, blocking=False)
    origins.fetch_queued(rec)
    assert "http://a" in origins and rec.fetch == FetchState.QUEUED
    origins.fetch_unwanted("http://a", rec)
    assert "http://a" not in origins
