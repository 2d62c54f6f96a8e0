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
