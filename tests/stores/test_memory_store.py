"""The origin-state store: the protocol and the bounded LRU (pure, no Scrapy)."""

from __future__ import annotations

import pytest

from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig
from scrapy_gbot_robots.stores.base import OriginStore
from scrapy_gbot_robots.stores.memory import MemoryStore


def _state(n: int) -> object:
    return evaluate(
        FetchResult(status=200, body=b"Disallow: /%d\n" % n), float(n), None, PolicyConfig()
    )


def test_lru_forgets_least_recently_used() -> None:
    store = MemoryStore(max_entries=2)
    assert isinstance(store, OriginStore)
    a, b, c = _state(1), _state(2), _state(3)
    store.put("http://a", a)  # type: ignore[arg-type]
    store.put("http://b", b)  # type: ignore[arg-type]
    assert store.get("http://a") is a  # a is now the most recently used
    store.put("http://c", c)  # type: ignore[arg-type]
    assert "http://b" not in store
    assert store.get("http://b") is None
    assert store.get("http://a") is a and store.get("http://c") is c
    assert len(store) == 2 and store.evictions == 1


def test_replacing_does_not_grow() -> None:
    store = MemoryStore(max_entries=3)
    for n in range(10):
        store.put("http://same", _state(n))  # type: ignore[arg-type]
    assert len(store) == 1 and store.evictions == 0


def test_states_keep_capped_bodies_not_responses() -> None:
    big = b"User-agent: *\n" + b"#" * 700_000
    state = evaluate(FetchResult(status=200, body=big), 0.0, None, PolicyConfig())
    assert state.robots is not None and len(state.robots.body) == 512_000
    assert not any(hasattr(state, name) for name in ("headers", "response", "request"))


def test_bound_must_be_positive() -> None:
    with pytest.raises(ValueError):
        MemoryStore(0)


def _failing(n: int, previous: object = None) -> object:
    return evaluate(FetchResult(status=503), float(n), previous, PolicyConfig())  # type: ignore[arg-type]


def test_an_origin_in_an_error_streak_is_forgotten_after_every_decided_one() -> None:
    store = MemoryStore(max_entries=3)
    good = _state(0)
    streak = _failing(10, good)  # a failing origin with a good copy and its 12 h clock
    store.put("http://down", streak)  # type: ignore[arg-type]
    for n in range(1, 20):  # a broad crawl goes on: many more decided origins than room
        store.put(f"http://o{n}", _state(n))  # type: ignore[arg-type]
    assert store.get("http://down") is streak  # its streak and its good copy survive
    assert len(store) == 3 and store.failing == 1 and store.failing_evictions == 0


def test_a_recovered_origin_becomes_ordinary_again() -> None:
    store = MemoryStore(max_entries=2)
    store.put("http://a", _failing(1))  # type: ignore[arg-type]
    store.put("http://a", _state(2))  # type: ignore[arg-type]
    store.put("http://b", _state(3))  # type: ignore[arg-type]
    store.put("http://c", _state(4))  # type: ignore[arg-type]
    assert "http://a" not in store and len(store) == 2 and store.failing == 0


def test_when_everything_fails_the_bound_still_holds() -> None:
    store = MemoryStore(max_entries=3)
    for n in range(10):
        store.put(f"http://o{n}", _failing(n))  # type: ignore[arg-type]
    assert len(store) == 3 and store.failing == 3
    assert store.failing_evictions == 7 and store.evictions == 7
    assert "http://o9" in store and "http://o0" not in store  # the oldest go first


def test_what_was_just_put_is_never_the_one_forgotten() -> None:
    store = MemoryStore(max_entries=1)
    store.put("http://down", _failing(1))  # type: ignore[arg-type]
    decided = _state(2)
    store.put("http://up", decided)  # type: ignore[arg-type]
    assert store.get("http://up") is decided and len(store) == 1
    assert store.failing_evictions == 1


def test_a_pinned_origin_is_never_forgotten_while_its_requests_are_on_their_way() -> None:
    store = MemoryStore(max_entries=3)
    kept = _state(0)
    store.put("http://kept", kept)  # type: ignore[arg-type]
    store.pin("http://kept")
    store.pin("http://kept")  # two of its requests passed
    for n in range(1, 50):  # many origins decided meanwhile
        store.put(f"http://o{n}", _state(n))  # type: ignore[arg-type]
    assert store.get("http://kept") is kept
    assert len(store) == 3 and store.pinned == 1 and store.room() == 2
    assert store.unpin("http://kept") is False  # one request still on its way
    store.put("http://more", _state(60))  # type: ignore[arg-type]
    assert "http://kept" in store
    assert store.unpin("http://kept") is True  # its last: an ordinary, recent entry again
    assert store.pinned == 0 and store.room() == 3 and "http://kept" in store
    for n in range(70, 73):
        store.put(f"http://o{n}", _state(n))  # type: ignore[arg-type]
    assert "http://kept" not in store and len(store) == 3


def test_pinning_an_unknown_origin_keeps_nothing_and_unpinning_it_is_harmless() -> None:
    store = MemoryStore(max_entries=2)
    store.pin("http://never")
    assert store.pinned == 0 and store.unpin("http://never") is False
    store.put("http://never", _state(1))  # type: ignore[arg-type]
    assert store.unpin("http://never") is False and store.pinned == 0


def test_a_new_state_of_a_pinned_origin_replaces_it_in_place() -> None:
    store = MemoryStore(max_entries=2)
    store.put("http://a", _state(1))  # type: ignore[arg-type]
    store.pin("http://a")
    failing = _failing(2)
    store.put("http://a", failing)  # type: ignore[arg-type]  # a refresh failed meanwhile
    assert store.get("http://a") is failing and len(store) == 1 and store.failing == 1
    store.unpin("http://a")
    assert store.get("http://a") is failing and store.failing == 1  # into the failing LRU


def test_pins_hold_the_store_above_its_size_only_up_to_twice_its_size() -> None:
    store = MemoryStore(max_entries=4)
    for n in range(20):  # every origin pinned as soon as it is decided
        store.put(f"http://o{n}", _state(n))  # type: ignore[arg-type]
        store.pin(f"http://o{n}")
        assert len(store) <= 8
    assert len(store) == 8 and store.pinned == 8 and store.pinned_evictions == 12
    assert store.pinned_peak == 8 and store.room() == -4
    assert "http://o0" not in store and "http://o19" in store  # the oldest pinned went first
    assert store.unpin("http://o0") is False  # forgotten: its pins went with it
    assert store.unpin_all() == 8
    assert store.pinned == 0 and len(store) == 4  # the bound holds again at once
    assert "http://o19" in store  # the most recently pinned are kept


def test_the_one_just_unpinned_is_kept_over_older_ones() -> None:
    store = MemoryStore(max_entries=2)
    for origin in ("http://a", "http://b"):
        store.put(origin, _state(1))  # type: ignore[arg-type]
        store.pin(origin)
    store.put("http://c", _state(2))  # type: ignore[arg-type]  # over the size: pins hold
    assert len(store) == 3
    store.unpin("http://a")  # back into the LRU; the store is over its size: c goes, not a
    assert "http://a" in store and "http://c" not in store and len(store) == 2


def test_a_failing_origin_is_kept_over_decided_origins_on_their_way() -> None:
    """Pinned decided origins cost a refetch if forgotten; a failing one its 12 h / 30 d
    clocks and its last good copy (then "no restrictions"): the pins grow the store up to
    its hard bound, and beyond it the oldest pinned go, never the failing origin."""
    store = MemoryStore(max_entries=2)
    streak = _failing(10, _state(0))
    store.put("http://down", streak)  # type: ignore[arg-type]
    for n in range(1, 8):  # decided, and their requests on their way
        store.put(f"http://o{n}", _state(n))  # type: ignore[arg-type]
        store.pin(f"http://o{n}")
        assert store.get("http://down") is streak
        assert len(store) <= 4
    assert store.failing_evictions == 0 and store.pinned_evictions > 0
    store.unpin_all()
    assert store.get("http://down") is streak and len(store) == 2
