"""The compact tier: states the LRU lets go of, kept encoded and read back (pure, no Scrapy)."""

from __future__ import annotations

import pytest
from _states import same

from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import Kind, OriginState, PolicyConfig
from scrapy_gbot_robots.stores.compact import CompactStore, _cost
from scrapy_gbot_robots.stores.entry import encode
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.tiered import TieredStore

CFG = PolicyConfig()


def _rules(n: int) -> OriginState:
    return evaluate(FetchResult(200, b"User-agent: *\nDisallow: /%d\n" % n), float(n), None, CFG)


def _failing(n: int) -> OriginState:
    state = evaluate(FetchResult(503, b""), float(n), None, CFG)
    assert state.kind is Kind.SERVER_ERROR
    return state


def _tiers(size: int, max_bytes: int) -> TieredStore:
    compact = CompactStore(max_bytes)
    return TieredStore(MemoryStore(size, forget=compact.put), compact=compact)


def test_what_the_lru_lets_go_of_is_read_back_not_lost() -> None:
    store = _tiers(2, 1 << 20)
    states = {f"http://o{n}": _rules(n) for n in range(50)}
    for origin, state in states.items():
        store.put(origin, state)
    assert len(store.front) == 2 and store.evictions == 48
    assert store.compact is not None and len(store.compact) == 48
    for origin, state in states.items():  # every one answers, in any order
        assert same(store.get(origin), state)
    # 48 let go of at the puts, and the 2 the reads pushed out of the LRU: none fetched again.
    assert store.compact_reads == 50 and store.forgotten == 0
    # Read back means moved: the LRU holds two, the rest are back in the compact tier.
    assert len(store.front) == 2 and len(store.compact) == 48


def test_the_byte_bound_holds_and_forgets_the_oldest() -> None:
    one = _cost("http://o10", encode(_rules(10)))  # every entry of 10..99 costs the same
    store = _tiers(1, 10 * one)
    for n in range(10, 100):
        store.put(f"http://o{n}", _rules(n))
    compact = store.compact
    assert compact is not None
    assert compact.used == 10 * one and len(compact) == 10
    assert store.forgotten == 79  # 90 put, 1 in the LRU, 10 kept encoded
    assert store.get("http://o10") is None  # the oldest went first: fetched again
    assert same(store.get("http://o98"), _rules(98))


def test_a_newer_state_replaces_the_encoded_copy() -> None:
    store = _tiers(1, 1 << 20)
    store.put("http://a", _rules(1))
    store.put("http://b", _rules(2))  # a goes to the compact tier
    store.put("http://a", _rules(3))  # a fetched again: the old copy must not come back
    assert store.compact is not None and "http://a" not in store.compact
    store.put("http://c", _rules(4))
    store.put("http://d", _rules(5))
    assert same(store.get("http://a"), _rules(3))


def test_failing_origins_keep_their_clocks_and_are_counted_only_when_lost() -> None:
    store = _tiers(1, 1 << 20)
    store.put("http://down", _failing(7))
    store.put("http://up", _rules(8))
    store.put("http://other", _rules(9))
    assert store.failing_evictions == 0  # the LRU let it go, the compact tier holds it
    back = store.get("http://down")
    assert back is not None and back.kind is Kind.SERVER_ERROR
    assert back.error_since == 7.0 and back.errors == 1
    tiny = _tiers(1, 1)  # nothing fits: forgotten for good, and said
    tiny.put("http://down", _failing(7))
    tiny.put("http://up", _rules(8))
    assert tiny.failing_evictions == 1 and tiny.forgotten == 1


def test_off_means_the_lru_alone() -> None:
    store = TieredStore(MemoryStore(3))
    assert store.get == store.front.get  # no extra call on the per-request lookup
    assert store.compact is None and store.forgotten == 0
    with pytest.raises(ValueError):
        CompactStore(-1)


def test_forgets_says_whether_a_missing_state_was_lost() -> None:
    """``forgets`` says whether a request that finds no state lost it (the crawl's WARNING
    that the store is too small) or meets it for the first time here (a fleet's worker)."""
    alone = TieredStore(MemoryStore(2))
    kept = _tiers(2, 1 << 20)
    tiny = _tiers(2, 1)  # the compact tier keeps nothing
    for store in (alone, kept, tiny):
        assert not store.forgets
        for n in range(5):
            store.put(f"http://o{n}", _rules(n))
    assert alone.forgets and alone.evictions == 3
    assert not kept.forgets and kept.evictions == 3  # all read back from the compact tier
    assert tiny.forgets and tiny.forgotten == 3
    assert TieredStore(_OwnStore()).forgets  # it says nothing of what it lost


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
