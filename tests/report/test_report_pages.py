"""The report's page-level rules: the collector's events, exact folding, the JSON, the page's
section (also as headless Chromium renders it) and ``gbot-robots report``'s summary line."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _chromium import CHROMIUM, MISSING, dump_dom
from _cli import run_cli

from scrapy_gbot_robots.page.rules import NO_RULES, PageRules, read_page_rules
from scrapy_gbot_robots.report import pages as _pages
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.report.html import render
from scrapy_gbot_robots.report.writer import write

TOKEN = "TestBot"
NOW = 1_700_000_000.0
A, B = "https://a.example", "https://b.example"
HOSTILE_URL = A + '/"><script>alert(1)</script>'


def rules(header: str = "", meta: str = "", name: str = "robots") -> PageRules:
    body = f'<head><meta name="{name}" content="{meta}"></head>'.encode() if meta else None
    return read_page_rules(TOKEN, [header] if header else [], body)


def audit() -> ReportCollector:
    """An observe crawl of two origins: a is the audit's subject, b says little."""
    c = ReportCollector(mode="observe", tokens=TOKEN, page_rules="read", examples=3)
    c.page_rules_read(A, A + "/private/1", rules("noindex"), disallowed=True, now=NOW)
    c.page_rules_read(A, A + "/private/2", rules(meta="none"), disallowed=True, now=NOW)
    c.page_rules_read(A, A + "/private/3", rules(meta="nofollow"), disallowed=True, now=NOW)
    c.page_rules_read(
        A, HOSTILE_URL, rules(meta="noindex", name="testbot"), disallowed=False, now=NOW
    )
    c.page_rules_read(A, A + "/ok", NO_RULES, disallowed=False, now=NOW)
    expired = rules("unavailable_after: 2001-01-01")
    c.page_rules_read(B, B + "/old", expired, disallowed=False, now=NOW)
    c.page_rules_read(B, B + "/new", expired, disallowed=False, now=0.0)  # before the date
    for _ in range(3):
        c.nofollow_dropped(B)
    return c


def test_pages_per_origin_kinds_sources_and_examples() -> None:
    data = audit().to_json({})
    assert data["page_rules"] == {
        "level": "read",
        "read": 7,
        "noindex": 4,  # 1, 2, the hostile one, and b's page past its date
        "nofollow": 2,
        "disallowed_noindex": 2,
        "dropped_nofollow": 3,
    }
    by_origin = {o["origin"]: o["pages"] for o in data["origins"]}
    a = by_origin[A]
    assert (a["read"], a["noindex"], a["nofollow"], a["disallowed_noindex"]) == (5, 3, 2, 2)
    assert a["sources"] == {
        "noindex": {"header": 1, "meta:robots": 1, "meta:testbot": 1},
        "nofollow": {"meta:robots": 2},
    }
    assert a["examples"] == {
        "disallowed_noindex": [A + "/private/1", A + "/private/2"],
        "noindex": [A + "/private/1", A + "/private/2", HOSTILE_URL],  # limits.examples: 3
        "nofollow": [A + "/private/2", A + "/private/3"],
    }
    b = by_origin[B]
    assert (b["read"], b["noindex"], b["dropped_nofollow"]) == (2, 1, 3)
    assert b["sources"] == {"unavailable_after": {"header": 2}}
    assert b["examples"]["noindex"] == [B + "/old"]


def test_an_origin_without_pages_read_has_none_and_off_counts_nothing() -> None:
    c = ReportCollector()
    c.allowed(A)
    data = c.to_json({})
    assert data["origins"][0]["pages"] is None
    assert data["page_rules"] == {
        "level": "off",
        "read": 0,
        "noindex": 0,
        "nofollow": 0,
        "disallowed_noindex": 0,
        "dropped_nofollow": 0,
    }
    assert data["folded"]["other_origins"]["pages"]["read"] == 0


def test_folding_keeps_the_totals_exact_and_takes_an_origin_back() -> None:
    c = ReportCollector(max_origins=2, page_rules="read")
    for i in range(20):
        origin = f"https://o{i}.example"
        c.allowed(origin)
        c.page_rules_read(origin, origin + "/", rules("noindex"), disallowed=i % 2 == 0, now=NOW)
    c.page_rules_read(
        "https://o0.example", "https://o0.example/x", NO_RULES, disallowed=False, now=NOW
    )
    data = c.to_json({})
    totals = data["page_rules"]
    assert (totals["read"], totals["noindex"], totals["disallowed_noindex"]) == (21, 20, 10)
    kept = [o["pages"] for o in data["origins"]]
    other = data["folded"]["other_origins"]["pages"]
    for name in _pages.COUNTERS:
        assert sum(p[name] for p in kept) + other[name] == totals[name], name


def test_bounds_sources_per_rule_and_example_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pages, "SOURCES_PER_RULE", 2)
    tokens = ["a", "b", "c", "d"]
    c = ReportCollector(tokens=tokens, page_rules="read", examples=1)
    body = b"<head>" + b"".join(
        f'<meta name="{t}" content="noindex">'.encode() for t in ("robots", *tokens)
    )
    long_url = A + "/" + "x" * 5000
    c.page_rules_read(A, long_url, read_page_rules(tokens, [], body), disallowed=False, now=NOW)
    pages = c.to_json({})["origins"][0]["pages"]
    assert pages["sources"]["noindex"] == {"meta:robots": 1, "meta:a": 1, "other": 3}
    assert len(pages["examples"]["noindex"][0]) == _pages.EXAMPLE_CHARS


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.ids: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.ids.extend(v for k, v in attrs if k == "id" and v)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _read(page: str) -> _Text:
    """The page's text as a browser shows it: a <wbr> (where a URL may wrap) adds none."""
    parsed = _Text()
    parsed.feed(page.replace("<wbr>", ""))
    parsed.close()
    return parsed


def _flat(parsed: _Text) -> str:
    return " ".join(" ".join(parsed.text).split())


def test_the_page_has_a_section_with_the_finding_first() -> None:
    parsed = _read(render(audit().to_json({"spider": "audit"})))
    text = _flat(parsed)
    assert "pages" in parsed.ids and "disallowed-noindex" in parsed.ids
    assert "script" not in parsed.tags  # the hostile URL is text, not markup
    assert "Page-level rules: robots meta tags and X-Robots-Tag" in text
    assert "2 pages disallowed by robots.txt carry a noindex." in text
    assert re.search(r"https://a\.example 5 2 https://a\.example/private/1", text), text
    assert "noindex : header \u00d71, meta:robots \u00d71, meta:testbot \u00d71" in text
    assert "nofollow : meta:robots \u00d72" in text
    assert "requests dropped (nofollow)" in text
    assert text.index("Origins") < text.index("Page-level rules") < text.index("The crawl")


def test_a_crawl_that_read_nothing_says_how_to_turn_it_on() -> None:
    text = _flat(_read(render(ReportCollector().to_json({}))))
    assert 'Not read in this crawl ( GBOT_ROBOTS_PAGE_RULES = "off" )' in text


def _cli(tmp_path: Path, data: dict[str, Any], *args: str) -> str:
    path = tmp_path / "r.json"
    write(data, str(path))
    proc = run_cli(["report", str(path), "--color", "never", *args])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_report_command_prints_the_pages_line_and_the_finding(tmp_path: Path) -> None:
    out = _cli(tmp_path, audit().to_json({"spider": "audit"}), "--top", "1")
    assert (
        "pages     7 read: 4 noindex, 2 nofollow, 2 disallowed by robots.txt with noindex; "
        "3 requests dropped (nofollow)\n"
    ) in out
    assert "disallowed by robots.txt, with noindex: Googlebot never fetches these pages" in out
    assert "  https://a.example/private/1\n" in out
    assert "https://a.example/private/2" not in out  # --top 1
    assert "... 1 more" in out


def test_report_command_says_nothing_of_pages_when_off(tmp_path: Path) -> None:
    out = _cli(tmp_path, ReportCollector().to_json({}))
    assert "pages " not in out


def test_report_command_counts_drops_in_obey_mode(tmp_path: Path) -> None:
    c = ReportCollector(page_rules="obey")
    c.page_rules_read(A, A + "/", rules(meta="nofollow"), disallowed=False, now=NOW)
    c.nofollow_dropped(A)
    out = _cli(tmp_path, c.to_json({}))
    assert (
        "pages     1 read: 0 noindex, 1 nofollow, 0 disallowed by robots.txt with noindex; "
        "1 request dropped (nofollow)\n"
    ) in out


# ----------------------------------------------------------------------------- a browser

@pytest.mark.crawl
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_headless_chromium_renders_every_section(tmp_path: Path) -> None:
    from scrapy_gbot_robots import parse

    c = audit()
    body = b"User-agent: *\nDisallow: /private/\n"
    c.forbidden(A, A + "/private/1", parse(body).decide(A + "/private/1", TOKEN))
    page = tmp_path / "report.html"
    write(c.to_json({"spider": "audit", "tokens": [TOKEN]}), str(page))
    dom = _read(dump_dom(page, tmp_path / "profile"))
    text = _flat(dom)
    # The sections the report always had, and the new one, as the browser built them.
    for section in ("summary", "rules", "origins", "pages", "crawl", "disallowed-noindex"):
        assert section in dom.ids, section
    for heading in (
        "What robots.txt would have done to the crawl",
        "Summary",
        "The rules that would have blocked the most requests",
        "Origins",
        "Page-level rules: robots meta tags and X-Robots-Tag",
        "The crawl",
    ):
        assert heading in text, heading
    assert "2 pages disallowed by robots.txt carry a noindex." in text
    assert "https://a.example/private/1" in text
    assert "script" not in dom.tags  # the hostile URL stayed text in a real engine too
    assert '"><script>alert(1)</script>' in text
