"""The report's per-origin AI crawlers kept out of / and RSL licences (``report/robots_facts.py``,
``report/html_robots.py``), through the collector, the schema and the HTML page."""

from __future__ import annotations

from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import OriginState, PolicyConfig
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.report.html import render
from scrapy_gbot_robots.report.schema import problem

NOW = 1_700_000_000.0
BODY = (
    b"License: https://e.com/license.xml\n"
    b"User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\n"
    b"User-agent: *\nDisallow: /private\n"
)


def _state(status: int, body: bytes = BODY) -> OriginState:
    return evaluate(FetchResult(status=status, body=body, error=None), NOW, None, PolicyConfig())


def _fetched(c: ReportCollector, origin: str, st: OriginState) -> None:
    url = origin + "/robots.txt"
    c.fetched(origin, robots_url=url, chain=[(url, st.status, None)], state=st, source="fetch")


def test_each_origin_lists_its_licences_and_the_ai_crawlers_kept_out() -> None:
    c = ReportCollector(tokens="MyBot")
    for i in range(5):
        _fetched(c, f"https://o{i}.example", _state(200))
    _fetched(c, "https://gone.example", _state(404))
    assert c.facts.runs == 1  # once per distinct body
    data = c.to_json({})
    assert problem(data) is None
    by_origin = {o["origin"]: o for o in data["origins"]}
    o = by_origin["https://o0.example"]
    assert o["licenses"] == ["https://e.com/license.xml"]
    ai = o["ai_crawlers"]
    assert ai["checked"] == 166 and ai["disallowed_count"] == 2
    assert [(r["token"], r["group_line"], r["line"], r["rule"]) for r in ai["disallowed"]] == [
        ("CCBot", 3, 4, "Disallow: /"),
        ("GPTBot", 2, 4, "Disallow: /"),
    ]
    gone = by_origin["https://gone.example"]
    assert gone["licenses"] == [] and gone["ai_crawlers"] is None
    page = render(data)
    assert "2 of 166 AI crawlers kept out of /" in page
    assert "License: <code>https://e.com/license.xml</code>" in page


def test_a_schema_2_report_without_the_fields_still_fits() -> None:
    c = ReportCollector(tokens="MyBot")
    _fetched(c, "https://a.example", _state(200, b"User-agent: *\nDisallow:\n"))
    data = c.to_json({})
    for o in data["origins"]:
        del o["licenses"], o["ai_crawlers"]
    assert problem(data) is None
    assert "AI crawlers kept out" not in render(data)
