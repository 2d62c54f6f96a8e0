"""The gate's effects as values (``crawl/effects.py``): the outbox keeps them in order until
the coordinator takes them, and taking empties it."""

from __future__ import annotations

import dataclasses

import pytest

from scrapy_gbot_robots.crawl.effects import TURNS_DUE, Drop, Fetch, Outbox, Release
from scrapy_gbot_robots.crawl.reasons import FetchReason


def test_the_outbox_hands_out_every_effect_once_in_order() -> None:
    out: Outbox[str] = Outbox()
    out.fetch("http://a", FetchReason.MISS)
    out.release("http://a", ["r1", "r2"])
    out.turns_due()
    out.drop("http://b", ["r3"], "deadline")
    assert len(out) == 4
    assert out.take() == [
        Fetch("http://a", FetchReason.MISS),
        Release("http://a", ["r1", "r2"]),
        TURNS_DUE,
        Drop("http://b", ["r3"], "deadline"),
    ]
    assert out.take() == [] and len(out) == 0


def test_effects_are_values() -> None:
    effect = Fetch("http://a", FetchReason.RETRY)
    with pytest.raises(dataclasses.FrozenInstanceError):
        effect.origin = "http://b"  # type: ignore[misc]
    assert effect == Fetch("http://a", FetchReason.RETRY)
