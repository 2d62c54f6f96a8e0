"""The tiered store alone (pure, no Scrapy): what it reads in which order, and the front's
declared capability (``Bounded``): a MemoryStore's pins, room and counts are passed through;
a store of one's own that declares none is answered for (``UNBOUNDED``).

The compact tier and the persistent tiers have their own files (``test_compact_store.py``,
``test_sqlite_store.py``), which also read through a TieredStore.
"""

from __future__ import annotations

import sys

from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import OriginState, PolicyConfig
from scrapy_gbot_robots.stores.base import Bounded
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.tiered import UNBOUNDED, TieredStore

CFG = PolicyConfig()


def _rules(n: int) -> OriginState:
    return evaluate(FetchResult(200, b"User-agent: *\nDisallow: /%d\n" % n), float(n), None, CFG)


class _OwnStore:
    """A store of one's own (``GBOT_ROBOTS_STORE``): ``get``, ``put``, ``len`` only."""

    def __init__(self) -> None:
        self.states: dict[str, OriginState] = {}

    def get(self, origin: str) -> OriginState | None:
        return self.states.get(origin)

    def put(self, origin: str, state: OriginState) -> None:
        self.states[origin] = state

    def __len__(self) -> int:
        return len(self.states)


def test_a_memory_store_declares_its_bound_and_the_tiered_store_passes_it_through() -> None:
    front = MemoryStore(2)
    assert isinstance(front, Bounded)
    store = TieredStore(front)
    store.put("http://a", _rules(1))
    store.pin("http://a")
    store.pin("http://a")
    assert (store.pinned, front.pinned, store.room()) == (1, 1, 1)
    assert not store.unpin("http://a") and store.unpin("http://a")  # the last pin says so
    store.pin("http://a")
    assert store.unpin_all() == 1 and store.pinned == 0 and store.room() == 2
    for n in range(5):
        store.put(f"http://o{n}", _rules(n))
    assert store.evictions == front.evictions == 4 and store.forgets


def test_a_store_of_ones_own_is_unbounded_and_says_nothing_of_what_it_lost() -> None:
    own = _OwnStore()
    assert not isinstance(own, Bounded)
    store = TieredStore(own)
    store.put("http://a", _rules(1))
    store.pin("http://a")  # nothing to keep: it forgets nothing to make room
    assert not store.unpin("http://a")
    assert (store.pinned, store.unpin_all(), store.room()) == (0, 0, sys.maxsize)
    assert (store.evictions, store.failing_evictions, store.pinned_peak) == (0, 0, 0)
    assert store.pinned_evictions == 0
    assert store.forgets  # it does not say: a missing state may have been lost
    assert store.get("http://a") is own.states["http://a"] and len(store) == 1
    assert isinstance(UNBOUNDED, Bounded)


def test_each_state_kept_in_memory_is_prepared_first() -> None:
    prepared: list[OriginState] = []
    store = TieredStore(MemoryStore(5), prepare=prepared.append)
    state = _rules(1)
    store.put("http://a", state)
    store.remember("http://b", state)
    assert prepared == [state, state] and store.get("http://b") is state
