"""The report page as a reader meets it: its words (the header, plurals, ``gbot-robots
report``'s headings), URLs that wrap at their separators, and, in headless Chromium at 1280 px,
an observe-mode report with every optional column whose elements all fit the page.

The width is measured, not guessed: the test adds a script to a copy of the page (the report
itself has none) that writes, into the DOM, every element whose box ends past the window's
right edge; ``--dump-dom`` hands that DOM back after the layout ran.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _chromium import CHROMIUM, MISSING, dump_dom
from _cli import run_cli

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.page.rules import read_page_rules
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.report.html import render
from scrapy_gbot_robots.report.markup import url

TOKEN = "TestBot"
NOW = 1_700_000_000.0
#: Lint findings (a typo, an inexact key), content-usage statements and a crawl-delay: every
#: optional column of the origins table has something to show.
BODY = (
    b"User-agent: *\nDisallow: /private/\nDisalow: /tmp/\nDisallowed: /drafts/\n"
    b"Crawl-delay: 10\nContent-Signal: search=yes, ai-train=no\n"
    b"Content-Usage: /train/ train-ai=n\nDisallow: /*.pdf$\n"
)
#: Long, realistic URLs: a deep path, a query, and one long piece without a separator.
PATHS = (
    "/private/customer-accounts/2026/invoices/quarterly-summary-for-the-board.html",
    "/tmp/session?id=0123456789abcdef0123456789abcdef&return=%2Fcheckout%2Fpayment",
    "/drafts/" + "very-long-slug-without-any-separator-" * 4 + "end.html",
    "/catalogue/brochure-spring-collection-2026-final-final-v3.pdf",
)


def _origin(i: int) -> str:
    return f"https://www.a-long-shop-name-number-{i}.example-retailer.co.uk:8443"


def observe_report(origins: int = 12) -> dict[str, Any]:
    """An observe crawl's report with every optional column: lint, crawl-delay, content
    usage, would stop, parked and dropped with reasons, redirect chains and page rules."""
    c = ReportCollector(
        mode="observe", tokens=TOKEN, uses=["ai-train"], page_rules="read", examples=3
    )
    good = evaluate(FetchResult(status=200, body=BODY), NOW, None, PolicyConfig())
    down = evaluate(FetchResult(status=503, body=b"busy"), NOW, None, PolicyConfig())
    noindex = read_page_rules(TOKEN, ["noindex"], None)
    for i in range(origins):
        origin = _origin(i)
        robots = f"{origin}/robots.txt"
        moved = f"{origin}/en-gb/international/robots.txt?redirected-from=the-old-address"
        chain = [(robots, 301, None), (moved, 200 if i % 3 else 503, None)]
        state = good if i % 3 else down
        c.fetched(origin, robots_url=robots, chain=chain, state=state, source="fetch")
        c.crawl_delay(origin, 10.0, 10.0)
        for path in PATHS:
            full = origin + path
            decision = parse(BODY).decide(full, TOKEN)
            if i % 3 and not decision.allowed:
                c.forbidden(origin, full, decision)
                c.page_rules_read(origin, full, noindex, disallowed=True, now=NOW)
            elif not i % 3:
                c.would_stop(origin)
            c.parked(origin)
        c.allowed(origin)
        c.dropped(origin, "deadline")
        c.dropped(origin, "closespider_timeout")
    return c.to_json({"spider": "audit", "tokens": [TOKEN], "finish_reason": "finished"})


# ----------------------------------------------------------------------------- the words


def test_the_header_says_the_finish_reason_once() -> None:
    page = render(observe_report(1))
    assert "finished finished" not in page
    assert "finish reason <b>finished</b>" in page


@pytest.mark.parametrize(("count", "words"), [(1, "1 page"), (2, "2 pages")])
def test_the_finding_agrees_in_number(count: int, words: str) -> None:
    c = ReportCollector(mode="observe", tokens=TOKEN, page_rules="read")
    noindex = read_page_rules(TOKEN, ["noindex"], None)
    for n in range(count):
        c.page_rules_read(
            "https://a.example", f"https://a.example/{n}", noindex, disallowed=True, now=NOW
        )
    page = render(c.to_json({}))
    verb = "carries" if count == 1 else "carry"
    assert f"{words} disallowed by robots.txt {verb} a noindex." in page


def test_a_url_wraps_after_its_separators_never_inside_the_origin() -> None:
    assert url("https://a.example:8080/private/1?x=1&y=2") == (
        "https://a.example:8080/<wbr>private/<wbr>1?<wbr>x=<wbr>1&amp;<wbr>y=<wbr>2"
    )
    assert url('/"><script>') == "/<wbr>&quot;&gt;&lt;script&gt;"  # still inert
    page = render(observe_report(2))  # the second origin's robots.txt has rules
    assert "word-break: break-all" not in page  # that broke URLs anywhere, mid-word
    assert "/<wbr>private/<wbr>customer-accounts/<wbr>2026/" in page


def _summary(data: dict[str, Any], tmp_path: Path, *args: str) -> str:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), "utf-8")
    proc = run_cli(["report", str(path), "--color", "never", *args])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.crawl
def test_the_report_command_counts_in_words(tmp_path: Path) -> None:
    one = _summary(observe_report(1), tmp_path)
    assert one.startswith("robots.txt report of spider audit, token TestBot, finish reason: ")
    assert "finished (finished)" not in one
    assert "top 1 " not in one and "1 origins" not in one
    assert re.search(r"^1 origin$", one, re.MULTILINE), one
    many = _summary(observe_report(3), tmp_path)
    assert "3 origins, by requests that would have been held back" in many
    cut = _summary(observe_report(3), tmp_path, "--top", "2")
    assert "top 2 of 3 origins, by requests that would have been held back" in cut


# ----------------------------------------------------------------------------- a browser

#: Written into the page's copy: every element past the window's right edge, and the
#: document's own width, as JSON in a <pre id="measured">.
MEASURE = """<script>
(function () {
  var width = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll("body *").forEach(function (e) {
    var box = e.getBoundingClientRect();
    if (box.right > width + 0.5) {
      wide.push(e.tagName.toLowerCase() + "." + e.className + " ends at " +
        Math.round(box.right) + ": " + (e.textContent || "").slice(0, 60));
    }
  });
  var out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify(
    {width: width, document: document.documentElement.scrollWidth, wide: wide});
  document.body.appendChild(out);
})();
</script>"""


def _measured(page: str, tmp_path: Path, width: int) -> dict[str, Any]:
    copy = tmp_path / "measured.html"
    copy.write_text(page.replace("</body>", MEASURE + "</body>"), "utf-8")
    dom = dump_dom(copy, tmp_path / "profile", width=width)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.DOTALL)
    assert found is not None, "the measuring script did not run"
    from html import unescape

    result: dict[str, Any] = json.loads(unescape(found.group(1)))
    return result


@pytest.mark.crawl
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_an_observe_report_fits_a_1280_px_window(tmp_path: Path) -> None:
    data = observe_report()
    page = render(data)
    # Every optional column is there, so the widest table is the one measured.
    for header in ("crawl-delay", "content usage", "would stop", "lint", "dropped"):
        assert f">{header}</th>" in page, header
    measured = _measured(page, tmp_path, 1280)
    assert measured["width"] == 1280
    assert measured["wide"] == [], measured["wide"][:10]
    assert measured["document"] <= measured["width"]
