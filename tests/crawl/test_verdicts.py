"""What the download check decides for a request of a decided origin (``crawl/verdicts.py``).

Fast layer: a real ``Config`` from settings, Scrapy's real stats collector and signals, real
states made by the policy from robots.txt bodies. Each path of the check: the hot path (one
``allowed()``), the report's ``decide()``, a content-usage refusal, observe mode, a stopped
origin, and an undecided one.
"""

from __future__ import annotations

import re
from typing import Any

from scrapy import Spider
from scrapy.http import Request
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots import signals
from scrapy_gbot_robots._settings import load
from scrapy_gbot_robots.crawl.request_keys import RequestKeys
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.crawl.verdicts import (
    ALLOWED,
    BY_RULES,
    UNDECIDED,
    CheckResult,
    Forbidden,
    Verdicts,
)
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.tiered import TieredStore

ORIGIN = "http://a.test"
NOW = 1_700_000_000.0
BODY = b"User-agent: *\nDisallow: /private\nContent-Signal: ai-train=no\n"


def verdicts(**settings: Any) -> tuple[Verdicts, TieredStore, Any]:
    values = {"GBOT_ROBOTS_CLOCK": lambda: NOW, **settings}
    config = load(values.get)
    crawler = get_crawler(Spider)
    report = None
    if settings.get("GBOT_ROBOTS_REPORT"):
        report = ReportCollector(
            max_origins=10, max_rules=10, examples=2, error_stop=config.policy.error_stop
        )
    telemetry = Telemetry(crawler, report, debug=False, diagnostic=True).requests
    store = TieredStore(MemoryStore(10))
    keys = RequestKeys("bot", fixed=True)
    return Verdicts(config, keys, store, telemetry), store, crawler


def decide(store: TieredStore, status: int | None = 200, body: bytes = BODY) -> None:
    result = FetchResult(status=status, body=body, error=None if status else "Timeout")
    no_settings: dict[str, Any] = {}
    store.put(ORIGIN, evaluate(result, NOW, None, load(no_settings.get).policy))


def check(v: Verdicts, path: str) -> CheckResult:
    request = Request(ORIGIN + path)
    return v.check(request, ORIGIN, request.url)


def test_undecided_is_its_own_answer_and_counts_nothing() -> None:
    v, _, crawler = verdicts()
    assert check(v, "/a") is UNDECIDED
    assert crawler.stats.get_stats() == {}


def test_the_hot_path_allows_forbids_and_counts() -> None:
    v, store, crawler = verdicts()
    decide(store)
    assert check(v, "/a") is ALLOWED
    refused = check(v, "/private/x")
    assert refused is BY_RULES and refused.reason == "Forbidden by robots.txt"
    assert crawler.stats.get_value("robotstxt/forbidden") == 1


def test_the_signal_names_the_deciding_line() -> None:
    v, store, crawler = verdicts()
    decide(store)
    seen: list[Any] = []

    def forbidden(request: Request, decision: Any, spider: Any) -> None:
        seen.append(decision)

    crawler.signals.connect(forbidden, signals.request_forbidden)  # held: a weak reference
    assert isinstance(check(v, "/private/x"), Forbidden)
    assert [(d.line, d.rule) for d in seen] == [(2, "Disallow: /private")]


def test_a_usage_signal_refuses_what_the_crawl_uses_it_for() -> None:
    v, store, crawler = verdicts(GBOT_ROBOTS_USAGE=["ai-train"])
    decide(store)
    refused = check(v, "/a")
    assert isinstance(refused, Forbidden)
    assert re.search(r"content-usage signal .*line 3", refused.reason)
    assert crawler.stats.get_value("robotstxt/forbidden_by_usage") == 1


def test_observe_mode_forbids_nothing_and_says_what_googlebot_would_do() -> None:
    v, store, crawler = verdicts(GBOT_ROBOTS_MODE="observe")
    decide(store)
    request = Request(ORIGIN + "/private/x")
    assert v.check(request, ORIGIN, request.url) is ALLOWED
    verdict = request.meta["gbot_robots_verdict"]
    assert verdict["allowed"] is False and verdict["line"] == 2 and verdict["by"] == "rules"
    assert crawler.stats.get_value("robotstxt/would_forbid") == 1


def test_a_stopped_origin_is_undecided_in_enforce_and_let_through_when_observing() -> None:
    v, store, _ = verdicts()
    decide(store, status=None)
    assert check(v, "/a") is UNDECIDED  # it waits for a retry
    v, store, crawler = verdicts(GBOT_ROBOTS_MODE="observe")
    decide(store, status=None)
    request = Request(ORIGIN + "/a")
    assert v.check(request, ORIGIN, request.url) is ALLOWED
    assert request.meta["gbot_robots_verdict"]["state"] == "server_error"
    assert crawler.stats.get_value("robotstxt/would_stop") == 1


def test_with_the_report_one_decide_is_the_check_and_the_rule_is_counted() -> None:
    v, store, _ = verdicts(GBOT_ROBOTS_REPORT="r.json")
    decide(store)
    assert check(v, "/a") is ALLOWED
    assert check(v, "/private/x") is BY_RULES
    report = v.telemetry.report
    assert report is not None
    data = report.to_json({"stats": {}, "settings": {}})
    assert [r["rule"] for r in data["rules"]] == ["Disallow: /private"]


def test_hits_are_counted_for_checks_against_a_remembered_state_only() -> None:
    v, store, crawler = verdicts()
    check(v, "/a")  # undecided: not a hit
    decide(store)
    check(v, "/a")
    v.telemetry.flush()
    assert crawler.stats.get_value("robotstxt/store/hit") == 1
