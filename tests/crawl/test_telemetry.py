"""Telemetry without a crawl: Scrapy's own stats collector and signal manager, the report.

Each event counts, logs, signals and reports in one call, in the family that tells it
(requests, fetches, the run); the costly parts are skipped when nobody can see them.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy import Spider
from scrapy.http import Request
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots import signals
from scrapy_gbot_robots.crawl.effects import Outbox
from scrapy_gbot_robots.crawl.gate import Gate
from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.pacing import Pacing
from scrapy_gbot_robots.crawl.reasons import ParkReason
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.engine.rules import parse
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.tiered import TieredStore

ORIGIN = "http://a.test"
ROBOTS = parse(b"User-agent: *\nDisallow: /private\n")


def telemetry(
    *, report: bool = False, debug: bool = False, diagnostic: bool = True
) -> Telemetry:
    """Telemetry on a plain crawler; with the machinery's stats, which these tests read."""
    crawler = get_crawler(Spider)
    collector = ReportCollector(max_origins=10, max_rules=10, examples=2) if report else None
    return Telemetry(crawler, collector, debug=debug, diagnostic=diagnostic)


class Heard:
    """A signal handler that keeps what it heard (held strongly by the test)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)


def test_forbidden_counts_and_signals_the_deciding_rule_to_listeners() -> None:
    t = telemetry().requests
    heard = Heard()
    t.crawler.signals.connect(heard, signal=signals.request_forbidden)
    request = Request(ORIGIN + "/private/x")
    t.forbidden(request, ROBOTS, "bot", ORIGIN)
    assert t.crawler.stats.get_value("robotstxt/forbidden") == 1
    assert len(heard.calls) == 1
    decision = heard.calls[0]["decision"]
    assert heard.calls[0]["request"] is request
    assert (decision.line, decision.rule) == (2, "Disallow: /private")


def test_forbidden_without_listeners_report_or_debug_skips_the_deciding_line() -> None:
    t = telemetry().requests
    seen: list[str] = []

    class Spy:
        def decide(self, url: str, token: str) -> Any:
            seen.append(url)
            return ROBOTS.decide(url, token)

    t.forbidden(Request(ORIGIN + "/private/x"), Spy(), "bot", ORIGIN)  # type: ignore[arg-type]
    assert seen == [] and t.crawler.stats.get_value("robotstxt/forbidden") == 1


def test_forbidden_with_the_report_counts_the_rule() -> None:
    t = telemetry(report=True).requests
    t.forbidden(Request(ORIGIN + "/private/x"), ROBOTS, "bot", ORIGIN)
    assert t.report is not None
    data = t.report.to_json({})
    assert data["rules"][0]["rule"] == "Disallow: /private"
    assert data["rules"][0]["forbidden"] == 1


def test_parked_and_dropped_are_counted_logged_and_signalled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    t = telemetry(report=True, debug=True).requests
    parked, dropped = Heard(), Heard()
    t.crawler.signals.connect(parked, signal=signals.request_parked)
    t.crawler.signals.connect(dropped, signal=signals.parked_request_dropped)
    request = Request(ORIGIN + "/a")
    with caplog.at_level(logging.DEBUG, logger="scrapy_gbot_robots.middleware"):
        t.parked(request, ORIGIN, ParkReason.MISS)
        t.dropped(request, ORIGIN, "deadline")
    assert t.crawler.stats.get_value("robotstxt/parked") == 1
    assert t.crawler.stats.get_value("robotstxt/dropped") == 1
    assert [c["request"] for c in parked.calls] == [request]
    assert [(c["request"], c["reason"]) for c in dropped.calls] == [(request, "deadline")]
    messages = [r.getMessage() for r in caplog.records]
    assert any("Parked until the robots.txt of http://a.test is decided" in m for m in messages)
    assert any(m.startswith("Dropped <GET http://a.test/a>") for m in messages)
    assert t.report is not None
    origin = t.report.to_json({})["origins"][0]
    assert origin["requests"]["parked"] == 1 and origin["requests"]["dropped"] == 1


def test_hits_reach_the_stats_on_flush_only() -> None:
    t = telemetry().requests
    for _ in range(3):
        t.checked()
    assert t.crawler.stats.get_value("robotstxt/store/hit") is None
    t.flush()
    for _ in range(2):
        t.checked()
    t.flush()
    t.flush()
    assert t.crawler.stats.get_value("robotstxt/store/hit") == 5


def test_a_server_error_is_counted_twice_and_a_state_change_signalled() -> None:
    t = telemetry().fetches
    changed = Heard()
    t.crawler.signals.connect(changed, signal=signals.origin_state_changed)
    cfg = PolicyConfig()
    failing = evaluate(FetchResult(status=503), 100.0, None, cfg)
    trigger = lambda: Request(ORIGIN + "/robots.txt")  # noqa: E731
    t.decided(ORIGIN, failing, None, trigger=trigger)
    again = evaluate(FetchResult(status=503), 200.0, failing, cfg)
    t.decided(ORIGIN, again, failing, trigger=trigger)
    assert t.crawler.stats.get_value("robotstxt/origin_state/server_error") == 2
    assert t.crawler.stats.get_value("robotstxt/server_error") == 2
    assert [c["state"] for c in changed.calls] == ["server_error"]  # same kind and reason


def test_closed_copies_the_gates_peaks_and_the_stores_totals() -> None:
    t = telemetry().run
    store = TieredStore(MemoryStore(1))

    gate: Gate[str] = Gate(
        store,
        PolicyConfig(),
        MemoryLot(),
        Outbox(),
        Lifecycle(lambda: True, clock=lambda: 0.0),
        pacing=Pacing(16),
        park_timeout=9,
        max_fetches=4,
        pace_release=True,
    )
    for n in range(3):
        gate.schedule(f"http://o{n}.test", "page", 0.0)
    cfg = PolicyConfig()
    store.put("http://o0.test", evaluate(FetchResult(status=404), 0.0, None, cfg))
    store.put("http://o1.test", evaluate(FetchResult(status=404), 0.0, None, cfg))
    gate.fetch_done("http://o1.test", 0.0)  # decided: its page waits its turn
    t.closed(gate.figures(), store)
    assert t.crawler.stats.get_value("robotstxt/parked_peak") == 3
    assert t.crawler.stats.get_value("robotstxt/releasing_peak") == 1
    assert t.crawler.stats.get_value("robotstxt/fetch_in_flight_peak") == 3
    assert t.crawler.stats.get_value("robotstxt/store/evicted") == 1
