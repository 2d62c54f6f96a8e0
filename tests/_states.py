"""Origin states for the store tests: rules fetched at a time, and equality by content."""

from __future__ import annotations

from dataclasses import replace

from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import OriginState, PolicyConfig

CFG = PolicyConfig()
RULES = b"User-agent: *\nDisallow: /private/\n"


def rules(at: float, body: bytes = RULES) -> OriginState:
    """The state a 200 with ``body`` fetched at ``at`` makes."""
    return evaluate(FetchResult(200, body), at, None, CFG)


def _body(state: OriginState) -> tuple[bytes, bool] | None:
    return None if state.robots is None else (state.robots.body, state.robots.truncated)


def same(a: OriginState | None, b: OriginState) -> bool:
    """Equal states (the parsed rules compared by their bytes)."""
    if a is None:
        return False
    return replace(a, robots=None) == replace(b, robots=None) and _body(a) == _body(b)
