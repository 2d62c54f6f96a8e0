"""The audit report's collector, JSON, HTML and ``gbot-robots report``, without a crawl.

Events are fed with real engine values: ``OriginState`` built as ``evaluate`` (``policy/fetch.py``)
builds it and ``Decision`` values from ``parse(body).decide()``. The crawl-level agreement with the
stats and the server's log is in tests/report/test_report_crawl.py.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import tracemalloc
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _cli import run_cli
from _hostile import HOSTILE as TERMINAL_HOSTILE
from _hostile import assert_safe

from scrapy_gbot_robots import parse
from scrapy_gbot_robots._safetext import printable
from scrapy_gbot_robots.page.rules import NO_RULES, read_page_rules
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import OriginState, PolicyConfig
from scrapy_gbot_robots.report import collector as _report
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.report.html import render
from scrapy_gbot_robots.report.labels import SCHEMA
from scrapy_gbot_robots.report.records import EXAMPLE_CHARS
from scrapy_gbot_robots.report.writer import write

SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]
TOKEN = "TestBot"
NOW = 1_700_000_000.0
BODY = b"User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nDisalow: /tmp/\n"
HOSTILE = '"><script>alert(1)</script>'
NOFOLLOW_PAGE = b'<head><meta name="testbot" content="nofollow, max-snippet: 20"></head>'
HOSTILE_HOST = '"><img src=x onerror=alert(1)>.example'  # no "/": still one origin


def state(status: int | None, body: bytes = BODY, now: float = NOW) -> OriginState:
    """The state the policy makes of one fetch result (a status, or a network error)."""
    result = FetchResult(status=status, body=body, error=None if status else "TimeoutError")
    return evaluate(result, now, None, PolicyConfig())


def forbid(c: ReportCollector, origin: str, path: str, body: bytes = BODY) -> None:
    url = origin + path
    decision = parse(body).decide(url, TOKEN)
    assert not decision.allowed, url
    c.forbidden(origin, url, decision)


def fetched(c: ReportCollector, origin: str, st: OriginState) -> None:
    url = origin + "/robots.txt"
    c.fetched(origin, robots_url=url, chain=[(url, st.status, None)], state=st, source="fetch")


# ----------------------------------------------------------------------------- counters


def test_counters_per_origin_and_totals() -> None:
    c = ReportCollector()
    a, b = "https://a.example", "https://b.example"
    for origin in (a, a, b):
        c.parked(origin)
    fetched(c, a, state(200))
    fetched(c, b, state(404))
    for _ in range(5):
        c.allowed(a)
    c.allowed(b)
    forbid(c, a, "/private/1")
    forbid(c, a, "/private/2")
    forbid(c, a, "/x.pdf")
    c.dropped(b, "deadline")
    data = c.to_json({"spider": "s"})
    assert data["totals"] == {
        "origins": 2,
        "checked": 9,
        "allowed": 6,
        "forbidden": 3,
        "parked": 3,
        "dropped": 1,
        "fetches": 2,
        "from_store": 0,
        "server_errors": 0,
        "rules": 2,
    }
    by_origin = {o["origin"]: o for o in data["origins"]}
    assert by_origin[a]["requests"] == {"allowed": 5, "forbidden": 3, "parked": 2, "dropped": 0}
    assert by_origin[b]["requests"] == {"allowed": 1, "forbidden": 0, "parked": 1, "dropped": 1}
    assert by_origin[b]["drop_reasons"] == {"deadline": 1}
    assert [o["origin"] for o in data["origins"]] == [a, b]  # most held back first
    assert [(r["line"], r["forbidden"]) for r in data["rules"]] == [(2, 2), (3, 1)]
    assert data["origins_by_state"] == {"rules": 1, "allow_all": 1, "server_error": 0, "unknown": 0}


def test_allowed_is_a_counter_only() -> None:
    """The hot path keeps nothing per request: a million calls allocate nothing that stays."""
    c = ReportCollector()
    c.allowed("https://a.example")
    assert not hasattr(c._origins["https://a.example"], "__dict__")  # a __slots__ record
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(200_000):
        c.allowed("https://a.example")
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename") if s.size_diff > 0)
    assert grown < 10_000, grown
    assert c.to_json({})["totals"]["allowed"] == 200_001


def test_examples_are_bounded_distinct_and_cut() -> None:
    c = ReportCollector(examples=3)
    o = "https://a.example"
    for i in range(100):
        forbid(c, o, f"/private/{i % 2}")
    forbid(c, o, "/private/" + "x" * 5000)
    forbid(c, o, "/private/9")
    (rule,) = c.to_json({})["rules"]
    assert rule["forbidden"] == 102
    assert rule["examples"][:2] == [o + "/private/0", o + "/private/1"]
    assert len(rule["examples"]) == 3
    assert len(rule["examples"][2]) == EXAMPLE_CHARS
    assert rule["examples"][2].endswith("…")
    none = ReportCollector(examples=0)
    forbid(none, o, "/private/1")
    assert none.to_json({})["rules"][0]["examples"] == []


def test_drop_reasons_are_bounded() -> None:
    c = ReportCollector()
    for i in range(_report.DROP_REASONS + 5):
        c.dropped("https://a.example", f"reason {i}")
    reasons = c.to_json({})["origins"][0]["drop_reasons"]
    assert len(reasons) == _report.DROP_REASONS + 1
    assert reasons["other"] == 5 and sum(reasons.values()) == _report.DROP_REASONS + 5


# ----------------------------------------------------------------------------- caps


def test_origins_past_the_cap_fold_into_other_keeping_the_most_interesting() -> None:
    c = ReportCollector(max_origins=3)
    # 40 quiet origins (allowed only), 3 that held requests back, fed interleaved.
    for i in range(40):
        o = f"https://quiet{i}.example"
        fetched(c, o, state(404))
        c.allowed(o)
        if i == 5:
            forbid(c, "https://blocked.example", "/private/1")
            forbid(c, "https://blocked.example", "/private/2")
        if i == 20:
            c.parked("https://slow.example")
            c.dropped("https://slow.example", "deadline")
            c.dropped("https://slow.example", "deadline")
            c.dropped("https://slow.example", "deadline")
        if i == 30:
            c.parked("https://parked.example")
    c.allowed("https://quiet0.example")  # folded long ago: it comes back as a new entry
    data = c.to_json({})
    assert [o["origin"] for o in data["origins"]] == [
        "https://slow.example",
        "https://blocked.example",
        "https://parked.example",
    ]
    assert data["folded"]["origins"] == 41  # 40 quiet ones, quiet0 twice
    other = data["folded"]["other_origins"]
    assert other["allowed"] == 41 and other["forbidden"] == 0
    assert other["by_state"] == {"rules": 0, "allow_all": 40, "server_error": 0, "unknown": 1}
    totals = data["totals"]
    assert (totals["allowed"], totals["forbidden"], totals["parked"], totals["dropped"]) == (
        41,
        2,
        2,
        3,
    )
    assert totals["origins"] == 44
    assert sum(data["origins_by_state"].values()) == totals["origins"]
    # Compaction is amortised: the table grows by a quarter of the cap (at least 1) between
    # compactions, and to_json makes one last pass.
    assert c.compactions <= 44


def test_an_origin_folded_recently_and_seen_again_is_taken_back() -> None:
    c = ReportCollector(max_origins=2)  # compacts when a 4th origin would come in
    a, b, d, e = (f"https://{n}.example" for n in "abde")
    fetched(c, a, state(200))
    forbid(c, a, "/private/1")
    forbid(c, a, "/private/2")
    c.parked(b)
    fetched(c, "https://c.example", state(404))
    c.allowed("https://c.example")
    c.parked(d)  # the table is full: c, the least eventful, is folded
    assert "https://c.example" not in c._origins
    c.allowed("https://c.example")  # folded, seen again: its record comes back
    c.parked(e)
    data = c.to_json({})
    assert data["totals"]["origins"] == 5  # not 6: c is one origin
    assert data["totals"]["allowed"] == 2 and data["totals"]["parked"] == 3
    kept = {o["origin"]: o for o in data["origins"]}
    assert list(kept) == [a, b]
    assert data["folded"]["origins"] == 3
    assert data["folded"]["other_origins"]["by_state"] == {
        "rules": 0,
        "allow_all": 1,  # c kept its state through the round trip
        "server_error": 0,
        "unknown": 2,
    }
    assert data["folded"]["other_origins"]["allowed"] == 2


def test_a_rule_folded_recently_and_seen_again_is_taken_back() -> None:
    c = ReportCollector(max_rules=1)
    o = "https://a.example"
    for _ in range(3):
        forbid(c, o, "/private/1")
    forbid(c, o, "/x.pdf")
    forbid(c, o, "/tmp/1")  # the table is full: the /*.pdf$ rule is folded
    forbid(c, o, "/y.pdf")  # and taken back, with its example
    data = c.to_json({})
    assert data["totals"]["rules"] == 3 and data["folded"]["rules"] == 2
    assert data["folded"]["other_rules"]["forbidden"] == 3
    assert [(r["rule"], r["forbidden"]) for r in data["rules"]] == [("Disallow: /private/", 3)]
    assert c._folded_rules[(o, 3, "Disallow", "/*.pdf$")].examples == [o + "/x.pdf", o + "/y.pdf"]


def test_compaction_cost_is_amortised_on_a_large_table() -> None:
    c = ReportCollector(max_origins=1000)
    for i in range(20_000):
        c.parked(f"https://o{i}.example")
    # Each compaction folds at least a quarter of the cap: at most 20,000 / 250 of them.
    assert 0 < c.compactions <= 20_000 // 250
    assert len(c._origins) <= 1000 + 250
    data = c.to_json({})
    assert len(data["origins"]) == 1000
    assert data["totals"]["parked"] == 20_000 and data["totals"]["origins"] == 20_000


def test_rules_past_the_cap_fold_into_other() -> None:
    c = ReportCollector(max_rules=2)
    body = b"User-agent: *\n" + b"".join(b"Disallow: /d%d/\n" % i for i in range(10))
    o = "https://a.example"
    for i in range(10):
        for _ in range(i + 1):  # rule /d9/ forbids the most
            forbid(c, o, f"/d{i}/x", body)
    data = c.to_json({})
    assert [(r["rule"], r["forbidden"], r["rank"]) for r in data["rules"]] == [
        ("Disallow: /d9/", 10, 1),
        ("Disallow: /d8/", 9, 2),
    ]
    assert data["folded"]["rules"] == 8
    assert data["folded"]["other_rules"]["forbidden"] == sum(range(1, 9))
    assert data["totals"]["rules"] == 10 and data["totals"]["forbidden"] == 55


# ----------------------------------------------------------------------------- states, lint


def test_lint_runs_once_per_distinct_body() -> None:
    c = ReportCollector()
    for i in range(50):
        fetched(c, f"https://o{i}.example", state(200))
    assert c.lint_runs == 1
    fetched(c, "https://other.example", state(200, body=b"User-agent: *\nDisallow: /\n"))
    assert c.lint_runs == 2
    data = c.to_json({})
    lints = {json.dumps(o["lint"], sort_keys=True) for o in data["origins"]}
    assert len(lints) == 2
    first = data["origins"][0]["lint"]
    assert first["counts"] == {"error": 0, "warning": 1, "info": 0}
    assert first["findings"] == [
        {"code": "GR201", "name": "typo-key", "severity": "warning", "count": 1, "lines": [4]}
    ]


def test_lint_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_report, "LINT_MEMO", 2)
    c = ReportCollector()
    bodies = [b"User-agent: *\nDisallow: /%d\n" % i for i in range(3)]
    for i, body in enumerate(bodies):
        fetched(c, f"https://o{i}.example", state(200, body=body))
    assert c.lint_runs == 3 and len(c._lint_memo) == 2
    fetched(c, "https://again.example", state(200, body=bodies[2]))  # still remembered
    assert c.lint_runs == 3
    fetched(c, "https://again.example", state(200, body=bodies[0]))  # forgotten: linted again
    assert c.lint_runs == 4 and len(c._lint_memo) == 2


def test_states_reason_chain_sizes_and_times() -> None:
    c = ReportCollector()
    rules, gone, down = "https://r.example", "https://g.example", "https://d.example"
    big = b"User-agent: *\nDisallow: /x\n" + b"#" * 600_000
    fetched(c, rules, state(200, body=big))
    url = gone + "/robots.txt"
    c.fetched(
        gone,
        robots_url=url,
        chain=[(url, 301, None), (gone + "/elsewhere", 404, None)],
        state=state(404),
        source="store",
    )
    fetched(c, down, state(200))
    fetched(c, down, evaluate(FetchResult(status=503), NOW + 10, state(200), PolicyConfig()))
    by_origin = {o["origin"]: o for o in c.to_json({})["origins"]}
    r = by_origin[rules]
    assert (r["state"], r["reason"], r["status"], r["source"]) == ("rules", "200", 200, "fetch")
    assert r["bytes"] == 512_000 and r["truncated"] is True
    assert r["fetched_at"] == "2023-11-14T22:13:20Z" and r["refresh_at"] == "2023-11-15T22:13:20Z"
    assert r["valid_seconds"] == 86400 and r["summary"].startswith("robots.txt answered (200)")
    g = by_origin[gone]
    assert (g["state"], g["reason"], g["lint"], g["bytes"], g["source"]) == (
        "allow_all",
        "404",
        None,
        None,
        "store",
    )
    assert g["chain"] == [
        {"url": url, "status": 301, "error": None},
        {"url": gone + "/elsewhere", "status": 404, "error": None},
    ]
    assert (g["fetches"], g["from_store"]) == (0, 1)
    d = by_origin[down]
    assert (d["state"], d["reason"], d["errors"], d["server_errors"], d["fetches"]) == (
        "server_error",
        "503",
        1,
        1,
        2,
    )
    assert d["bytes"] == len(BODY) and d["good_at"] == "2023-11-14T22:13:20Z"
    assert d["lint"] is not None  # the copy still in force is the one linted
    assert "last good copy" in d["summary"]
    assert "stopped for up to 12 h" in d["summary"]  # GBOT_ROBOTS_ERROR_STOP's default


def test_server_error_summary_names_the_configured_stop() -> None:
    c = ReportCollector(error_stop=7_200)
    down = "https://down.example"
    policy = PolicyConfig(error_stop=7_200)
    fetched(c, down, evaluate(FetchResult(status=503), NOW, None, policy))
    (d,) = c.to_json({})["origins"]
    assert "stopped for up to 2 h" in d["summary"] and "then no restrictions" in d["summary"]


def test_json_schema_fields() -> None:
    c = ReportCollector(max_origins=5, max_rules=7, examples=2)
    fetched(c, "https://a.example", state(200))
    forbid(c, "https://a.example", "/private/1")
    c.parked("https://u.example")
    crawl = {"spider": "s", "finish_reason": "finished", "stats": {"robotstxt/forbidden": 1}}
    data = json.loads(json.dumps(c.to_json(crawl)))  # JSON-ready as it is
    assert data["schema"] == SCHEMA == "gbot-robots-report/2"
    assert set(data) == {
        "schema",
        "generated_at",
        "crawl",
        "limits",
        "totals",
        "origins_by_state",
        "page_rules",
        "folded",
        "rules",
        "origins",
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["generated_at"])
    # The collector adds what it knows of the crawl (mode, global group, uses).
    assert data["crawl"] == {**crawl, "mode": "enforce", "global_group": True, "uses": []}
    assert data["limits"] == {"max_origins": 5, "max_rules": 7, "examples": 2}
    assert set(data["folded"]) == {"origins", "rules", "other_origins", "other_rules"}
    assert set(data["rules"][0]) == {
        "rank",
        "origin",
        "line",
        "rule",
        "directive",
        "value",
        "pattern",
        "group",
        "token",
        "by",
        "forbidden",
        "examples",
    }
    fields = {
        "origin",
        "robots_url",
        "state",
        "reason",
        "summary",
        "status",
        "source",
        "chain",
        "bytes",
        "truncated",
        "sha256",
        "fetched_at",
        "refresh_at",
        "valid_seconds",
        "good_at",
        "error_since",
        "errors",
        "fetches",
        "from_store",
        "server_errors",
        "lint",
        "usage",
        "licenses",
        "ai_crawlers",
        "requests",
        "drop_reasons",
        "crawl_delay",
        "pages",
        "backoff",
    }
    assert [set(o) for o in data["origins"]] == [fields, fields]
    unknown = data["origins"][1]
    assert (unknown["origin"], unknown["state"], unknown["fetched_at"]) == (
        "https://u.example",
        "unknown",
        None,
    )
    # docs/report.md documents every field.
    doc = (Path(__file__).resolve().parents[2] / "docs" / "report.md").read_text("utf-8")
    for name in (*data, *data["totals"], *fields, *data["rules"][0], *data["folded"]):
        assert f"`{name}`" in doc, name


# ----------------------------------------------------------------------------- HTML


class _Page(HTMLParser):
    """Checks nesting, and that nothing loads or runs; keeps the text."""

    VOID = frozenset({"meta", "br", "rect", "link", "img", "input", "hr", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)
        for name, value in attrs:
            assert name != "src" and not name.startswith("on"), (tag, attrs)
            assert name != "href" or (value or "").startswith("#"), (tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:  # <g/> opens and closes
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _hostile_report() -> dict[str, Any]:
    c = ReportCollector(examples=5)
    origin = "https://a.example"
    fetched(c, origin, state(200))
    forbid(c, origin, "/private/" + HOSTILE)  # a raw URL: what a custom downloader could pass
    for i in range(1234):
        forbid(c, origin, f"/private/{i}")
        c.allowed(origin)
    body = b"User-agent: *\nDisallow: /<b>x</b>\n"
    forbid(c, "https://" + HOSTILE_HOST, "/<b>x</b>/1", body)
    c.dropped("https://c.example", HOSTILE)
    return c.to_json({"spider": HOSTILE, "tokens": ["TestBot"], "stats": {HOSTILE: 1}})


def test_html_is_well_formed_self_contained_and_escaped() -> None:
    data = _hostile_report()
    page_html = render(data)
    page = _Page()
    page.feed(page_html)
    page.close()
    assert page.stack == []
    assert page_html.startswith("<!DOCTYPE html>")
    assert "<script" not in page_html.lower() and "script" not in page.tags
    assert "Disallow: /&lt;b&gt;x&lt;/b&gt;" in page_html  # a robots.txt line is text
    text = "".join(page.text)
    assert HOSTILE in text and HOSTILE_HOST in text  # shown as written, once unescaped
    assert "Disallow: /<b>x</b>" in text
    assert "1,235" in text  # forbidden by the top rule, and in the totals
    assert "1,234" in text  # allowed
    flat = " ".join(" ".join(page.text).split())
    assert "1,236 forbidden" in flat and "1,234 allowed" in flat and "1 dropped" in flat
    assert {"svg", "style", "table"} <= set(page.tags)


def test_html_shows_control_and_bidi_characters_escaped() -> None:
    """Issue 17, item 10: a browser ignores ESC, but a RIGHT-TO-LEFT OVERRIDE in a URL would
    reorder what its cell shows; the page shows such text as the terminal does, escaped."""
    c = ReportCollector()
    origin = "https://a.example"
    url = f"{origin}/private/{TERMINAL_HOSTILE}"
    c.forbidden(origin, url, parse(BODY).decide(url, TOKEN))
    c.dropped("https://b.example", f"reason {TERMINAL_HOSTILE}")
    page = render(c.to_json({"spider": f"spider{TERMINAL_HOSTILE}", "tokens": [TOKEN]}))
    assert_safe(page)
    assert "spider\\x1b]0;pwned\\x07\\x1b[2J\\x9b2J" in page
    assert "\\u202eevil\\u202c" in page  # shown, not obeyed: the cell keeps its order
    assert "reason \\x1b]0;pwned" in page
    # The forbidden URL's example (a URL may wrap after its separators: <wbr>).
    assert f"/private/{printable(TERMINAL_HOSTILE)}" in page.replace("<wbr>", "")


def test_html_chart_bars_are_proportional() -> None:
    c = ReportCollector()
    o = "https://a.example"
    for _ in range(10):
        forbid(c, o, "/private/1")
    for _ in range(5):
        forbid(c, o, "/x.pdf")
    page_html = render(c.to_json({}))
    widths = [
        float(w) for w in re.findall(r'<rect class="bar-forbidden"[^>]*width="([\d.]+)"', page_html)
    ]
    assert widths[:2] == [440.0, 220.0]


def test_write_json_and_html_atomically(tmp_path: Path) -> None:
    data = _hostile_report()
    target = tmp_path / "new" / "dir" / "report.json"
    write(data, str(target))
    assert json.loads(target.read_text("utf-8")) == json.loads(json.dumps(data))
    page = tmp_path / "report.HTML"
    write(data, str(page))
    assert page.read_text("utf-8") == render(data)
    assert os.stat(page).st_mode & 0o777 == 0o644
    with pytest.raises(ValueError, match=r"\.json or \.html"):
        write(data, str(tmp_path / "report.txt"))
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.startswith(".gbot-report-")]
    assert leftovers == []


# ----------------------------------------------------------------------------- CLI


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env or {})
    return run_cli(list(args), b"", full_env)  # in this process (tests/_cli.py)


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    path = tmp_path / "robots-report.json"
    write(_hostile_report(), str(path))
    return path


def test_report_command_prints_the_summary(report_file: Path) -> None:
    proc = cli("report", str(report_file), "--top", "1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\x1b" not in out
    assert "1,236 forbidden" in out and "1,234 allowed" in out and "1 dropped" in out
    assert "1 rules, 0 no restrictions, 0 server error, 2 unknown" in out
    assert "top 1 of 2 rules" in out and "top 1 of 3 origins" in out
    assert re.search(
        r"^\s+1\s+1,235\s+Disallow: /private/\s+2\s+\*\s+https://a\.example$", out, re.M
    )
    assert f"spider {HOSTILE}," in out  # plain text in a terminal: shown as written


def test_report_command_colours_only_a_terminal(report_file: Path) -> None:
    assert "\x1b[" in cli("report", str(report_file), "--color", "always").stdout
    assert "\x1b[" not in cli("report", str(report_file), env={"NO_COLOR": "1"}).stdout
    try:
        leader, follower = pty.openpty()
    except OSError as exc:
        pytest.skip(f"cannot open a pseudo-terminal: {exc}")
    try:
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        proc = subprocess.run(
            [*ENTRY, "report", str(report_file)], stdout=follower, env=env, timeout=60
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert proc.returncode == 0
    assert b"\x1b[" in b"".join(chunks)


def test_report_command_does_not_print_terminal_escapes_from_the_report(tmp_path: Path) -> None:
    c = ReportCollector()
    forbid(c, "https://a.example", "/private/\x1b[31mred")
    path = tmp_path / "r.json"
    write(c.to_json({"spider": "\x1b]0;title\x07"}), str(path))
    proc = cli("report", str(path), "--color", "never")
    assert proc.returncode == 0 and "\x1b" not in proc.stdout and "\\x1b" in proc.stdout


def test_report_command_json_re_emits(report_file: Path) -> None:
    proc = cli("report", str(report_file), "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == json.loads(report_file.read_text("utf-8"))
    proc = cli("report", "-", "--json", "--top", "1")
    assert proc.returncode == 2  # empty stdin: not JSON


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "report file not found"),
        (b"{not json", "is not JSON"),
        (b"<!DOCTYPE html><html></html>", "an .html report? give the .json one"),
        (b'{"a": 1}', "is not a gbot-robots report"),
        (b"[1, 2]", "is not a gbot-robots report"),
        (b'{"schema": "gbot-robots-report/3", "totals": {}}', "this version of gbot-robots reads"),
        (b'{"schema": "gbot-robots-report/1"}', "is not a complete report"),
        # Issue 46, item 9: 1,000 nested lists (2 KB) ended in a RecursionError, exit 1.
        (b"[" * 1000 + b"]" * 1000, "nested deeper than 64 levels"),
        (b'{"schema": "gbot-robots-report/1", "x": ' + b"[" * 200 + b"]" * 200 + b"}", "deeper"),
    ],
)
def test_report_command_usage_errors(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_bytes(content)
    proc = cli("report", str(path))
    assert proc.returncode == 2, proc.stdout
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("usage: gbot-robots report")
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0]  # one error line, after the usage


def test_report_command_rejects_a_bad_top(report_file: Path) -> None:
    proc = cli("report", str(report_file), "--top", "0")
    assert proc.returncode == 2 and "--top must be at least 1" in proc.stderr


def test_report_command_help_and_listing() -> None:
    proc = cli("report", "--help")
    assert proc.returncode == 0
    assert "gbot-robots report " in proc.stdout.split("examples:")[1]
    assert "exit status" in proc.stdout
    assert "report" in cli("--help").stdout


def test_report_command_does_not_import_scrapy(report_file: Path) -> None:
    code = (
        "import sys\n"
        "from scrapy_gbot_robots import cli\n"
        f"cli.main(['report', {str(report_file)!r}])\n"
        "print('SCRAPY' if 'scrapy' in sys.modules or 'twisted' in sys.modules else 'LIGHT')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.stdout.splitlines()[-1] == "LIGHT", proc.stderr


# ----------------------------------------------------------------------------- issue 18
# Observe mode, the token whose group decided, Crawl-delay and content-usage signals.

USAGE_BODY = (
    b"User-agent: *\nDisallow: /private/\nContent-Signal: search=yes, ai-train=no\n"
    b"Content-Usage: /open/ train-ai=y\n\n"
    b"User-agent: Googlebot\nDisallow: /g/\nContent-Signal: ai-train=yes\n"
)


def usage_decision(body: bytes, url: str, token: Any = TOKEN) -> Any:
    """The Decision the download check builds for a URL refused by a usage signal."""
    from scrapy_gbot_robots.crawl.verdicts import _usage_decision

    robots = parse(body)
    refused = robots.refuses(url, token, ("ai-train",))
    assert refused is not None, url
    return _usage_decision(refused, robots.decide(url, token))


def _observe_report() -> dict[str, Any]:
    """An observe-mode crawl: two rules would forbid, one usage line, one origin stopped."""
    c = ReportCollector(mode="observe", tokens=TOKEN, uses=["ai-train"])
    a, down, u = "https://a.example", "https://down.example", "https://u.example"
    fetched(c, a, state(200))
    for _ in range(3):
        forbid(c, a, "/private/1")
    forbid(c, a, "/x.pdf")
    c.allowed(a)
    fetched(c, down, state(503))
    for _ in range(2):
        c.would_stop(down)
    fetched(c, u, state(200, body=USAGE_BODY))
    url = u + "/page"
    c.forbidden(u, url, usage_decision(USAGE_BODY, url))
    c.crawl_delay(a, 3600.0, 30.0)
    c.crawl_delay(u, 2.0, 2.0)
    c.backoff(a, 3.0, new=True)
    c.backoff(a, 5.0, new=False)  # a later Retry-After lengthened it
    c.parked(a, backoff=True)
    # Page-level rules: a disallowed page that says noindex (the audit finding), a nofollow.
    hidden = read_page_rules(TOKEN, [b"noindex"])
    c.page_rules_read(a, a + "/private/1", hidden, disallowed=True, now=NOW)
    c.page_rules_read(
        a, a + "/open", read_page_rules(TOKEN, [], NOFOLLOW_PAGE), disallowed=False, now=NOW
    )
    c.page_rules_read(u, url, NO_RULES, disallowed=False, now=NOW)
    return c.to_json({"spider": "audit", "tokens": [TOKEN]})


def test_observe_mode_is_said_in_the_json_and_would_stop_is_counted_apart() -> None:
    data = _observe_report()
    assert data["crawl"]["mode"] == "observe" and data["crawl"]["uses"] == ["ai-train"]
    totals = data["totals"]
    assert (totals["allowed"], totals["forbidden"], totals["would_stop"]) == (1, 5, 2)
    assert totals["checked"] == 1 + 5 + 2  # a stopped request was checked, not allowed
    by_origin = {o["origin"]: o for o in data["origins"]}
    assert by_origin["https://down.example"]["requests"] == {
        "allowed": 0,
        "forbidden": 0,
        "would_stop": 2,
        "parked": 0,
        "dropped": 0,
    }
    # Held back: a would-be-stopped origin ranks with the would-be-forbidden ones.
    assert [o["origin"] for o in data["origins"]] == [
        "https://a.example",
        "https://down.example",
        "https://u.example",
    ]
    assert data["folded"]["other_origins"]["would_stop"] == 0
    # Each state's sentence is about Googlebot: the crawl itself obeyed and stopped nothing.
    assert "Googlebot stops crawling for up to 12 h" in by_origin["https://down.example"]["summary"]
    assert "its rules are what Googlebot obeys" in by_origin["https://a.example"]["summary"]


def test_enforce_reports_have_no_would_stop_key() -> None:
    c = ReportCollector()
    c.allowed("https://a.example")
    data = c.to_json({})
    assert data["crawl"]["mode"] == "enforce"
    assert "would_stop" not in data["totals"]
    assert "would_stop" not in data["origins"][0]["requests"]
    assert "would_stop" not in data["folded"]["other_origins"]


def test_would_stop_folds_exactly() -> None:
    c = ReportCollector(mode="observe", max_origins=1)
    for i in range(10):
        c.would_stop(f"https://o{i}.example")
    c.would_stop("https://o9.example")
    data = c.to_json({})
    assert data["totals"]["would_stop"] == 11
    assert data["origins"][0]["requests"]["would_stop"] == 2  # the most held back is kept
    assert data["folded"]["other_origins"]["would_stop"] == 9


def test_rules_name_the_token_whose_group_decided_and_usage_lines() -> None:
    c = ReportCollector(tokens=("Googlebot-Image", "Googlebot"))
    o = "https://a.example"
    image = ["Googlebot-Image", "Googlebot"]
    c.forbidden(o, o + "/g/1", parse(USAGE_BODY).decide(o + "/g/1", image))
    c.forbidden(o, o + "/page", usage_decision(USAGE_BODY, o + "/page", "OtherBot"))
    usage, own = sorted(c.to_json({})["rules"], key=lambda r: r["line"])
    assert (own["rule"], own["group"], own["token"], own["by"]) == (
        "Disallow: /g/",
        "agent",
        "Googlebot",
        "rules",
    )
    assert (usage["line"], usage["directive"], usage["group"], usage["token"], usage["by"]) == (
        3,
        "Content-Signal",
        "none",  # the rules' verdict: no rule matched /page
        "*",  # but the * group was in force, and its usage line refused
        "usage",
    )
    assert usage["rule"] == "Content-Signal: search=yes, ai-train=no"


def test_usage_per_origin_is_the_group_in_force_once_per_body() -> None:
    c = ReportCollector(tokens=TOKEN)
    for i in range(20):
        fetched(c, f"https://o{i}.example", state(200, body=USAGE_BODY))
    fetched(c, "https://gone.example", state(404))
    assert c.usage_runs == 1
    by_origin = {o["origin"]: o for o in c.to_json({})["origins"]}
    usage = by_origin["https://o0.example"]["usage"]
    assert (usage["group"], usage["count"]) == ("*", 3)
    assert [(p["category"], p["value"], p["line"], p["path"]) for p in usage["preferences"]] == [
        ("search", "yes", 3, ""),
        ("ai-train", "no", 3, ""),
        ("train-ai", "y", 4, "/open/"),
    ]
    assert usage["preferences"][0]["text"] == "Content-Signal: search=yes, ai-train=no"
    assert by_origin["https://gone.example"]["usage"] is None  # no rules, no statements
    # A token list: the first token a group names (Googlebot), as the verdicts have it.
    listed = ReportCollector(tokens=["Googlebot-Image", "Googlebot"])
    fetched(listed, "https://a.example", state(200, body=USAGE_BODY))
    (o,) = listed.to_json({})["origins"]
    assert o["usage"]["group"] == "Googlebot"
    assert [p["category"] for p in o["usage"]["preferences"]] == ["ai-train"]
    # Without the global group, a file with only * says nothing to an unnamed token.
    alone = ReportCollector(tokens="OtherBot", global_group=False)
    fetched(alone, "https://a.example", state(200, body=USAGE_BODY))
    assert alone.to_json({})["origins"][0]["usage"] == {"group": "", "count": 0, "preferences": []}
    # A collector without the crawl's token looks nothing up.
    bare = ReportCollector()
    fetched(bare, "https://a.example", state(200, body=USAGE_BODY))
    assert bare.to_json({})["origins"][0]["usage"] is None and bare.usage_runs == 0


def test_usage_is_kept_through_a_server_error_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    c = ReportCollector(tokens=TOKEN)
    o = "https://a.example"
    good = state(200, body=USAGE_BODY)
    fetched(c, o, good)
    fetched(c, o, evaluate(FetchResult(status=503), NOW + 10, good, PolicyConfig()))
    (entry,) = c.to_json({})["origins"]
    assert entry["state"] == "server_error" and entry["usage"]["count"] == 3  # copy in force
    monkeypatch.setattr(_report, "USAGE_PREFS", 2)
    many = b"User-agent: *\n" + b"".join(b"Content-Signal: ai-train=no\n" for _ in range(50))
    small = ReportCollector(tokens=TOKEN)
    fetched(small, o, state(200, body=many))
    usage = small.to_json({})["origins"][0]["usage"]
    assert usage["count"] == 50 and len(usage["preferences"]) == 2


def test_an_origin_that_asked_to_slow_down_has_its_back_off_in_the_report() -> None:
    from scrapy_gbot_robots.report.html import render
    from scrapy_gbot_robots.report.schema import problem

    data = _observe_report()
    by_origin = {o["origin"]: o for o in data["origins"]}
    assert by_origin["https://a.example"]["backoff"] == {
        "times": 1,
        "seconds": 8.0,
        "longest": 5.0,
        "waited": 1,
    }
    assert by_origin["https://u.example"]["backoff"] is None
    assert problem(data) is None
    page = render(data)
    assert "back-off" in page and "1 time, 8 s (at most 5 s), 1 request waited" in page


def test_new_json_fields_are_documented() -> None:
    data = _observe_report()
    doc = (Path(__file__).resolve().parents[2] / "docs" / "report.md").read_text("utf-8")
    origin = data["origins"][0]
    names = (
        *data["crawl"],
        *data["totals"],
        *origin["requests"],
        *origin["usage"],
        *origin["crawl_delay"],
        *origin["backoff"],
        *data["rules"][0],
        *data["folded"]["other_origins"],
        *data["page_rules"],
        *origin["pages"],
        *origin["pages"]["examples"],
    )
    for name in names:
        assert f"`{name}`" in doc, name


def _page_text(data: dict[str, Any]) -> tuple[str, str]:
    """The page, checked well formed and inert, and its text with whitespace collapsed."""
    page_html = render(data)
    page = _Page()
    page.feed(page_html)
    page.close()
    assert page.stack == [] and "script" not in page.tags
    return page_html, " ".join(" ".join(page.text).split())


def test_html_of_an_observe_crawl_says_would_everywhere() -> None:
    page_html, text = _page_text(_observe_report())
    assert text.index("Observe mode") < text.index("Summary")  # at the top
    assert "What robots.txt would have done to the crawl" in text
    assert "5 would have been forbidden" in text and "2 would be stopped" in text
    assert "The rules that would have blocked the most requests" in text
    assert "Requests that would have been forbidden, per rule" in page_html  # chart title
    assert "Ranked by requests each rule would have forbidden" in text
    assert "would forbid" in text and "would stop" in text
    assert "forbidden by a content-usage signal (GBOT_ROBOTS_USAGE: ai-train)" in text
    # The rules table: rank, count, rule; the group names whose group decided.
    assert re.search(r"1 3 Disallow: /private/ https://a\.example 2 \* group", text)
    # Origins: crawl-delay and content-usage columns, since some origins have them.
    assert "3600 s, capped at 30 s" in text and "2 s, applied" in text
    assert "line 3: Content-Signal: search=yes, ai-train=no" in text
    assert "line 4: Content-Usage: /open/ train-ai=y" in text
    assert '<rect class="bar-stopped"' in page_html


def test_html_of_an_enforce_crawl_keeps_its_words_and_columns() -> None:
    c = ReportCollector(tokens=("Googlebot-Image", "Googlebot"))
    o = "https://a.example"
    fetched(c, o, state(200))
    image = ["Googlebot-Image", "Googlebot"]
    c.forbidden(o, o + "/g/1", parse(USAGE_BODY).decide(o + "/g/1", image))
    _, text = _page_text(c.to_json({"tokens": ["Googlebot-Image", "Googlebot"]}))
    assert "would" not in text.lower() and "Observe mode" not in text
    assert "The rules that blocked the most requests" in text
    assert "Googlebot (own group)" in text  # the token whose group decided
    assert "crawl-delay" not in text and "content usage" not in text  # no origin has any
    assert "mode enforce" in text
    assert "token(s) obeyed Googlebot-Image, Googlebot" in text


def _cli_summary(tmp_path: Path, data: dict[str, Any], *args: str) -> str:
    path = tmp_path / "r.json"
    write(data, str(path))
    proc = cli("report", str(path), "--color", "never", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_report_command_on_an_observe_crawl(tmp_path: Path) -> None:
    out = _cli_summary(tmp_path, _observe_report())
    lines = out.splitlines()
    assert lines[1].startswith('OBSERVE MODE (GBOT_ROBOTS_MODE = "observe")')
    assert "8 checked: 1 allowed, 5 would be forbidden, 2 would be stopped (server error);" in out
    assert "3 rules, by requests they would have forbidden" in out
    assert "origins, by requests that would have been held back" in out
    assert re.search(r"^\s+#\s+WOULD FORBID\s+RULE\s+LINE\s+GROUP\s+BY\s+ORIGIN$", out, re.M)
    assert re.search(r"^\s+1\s+3\s+Disallow: /private/\s+2\s+\*\s+rule\s+https://a", out, re.M)
    usage_row = next(line for line in lines if "Content-Signal:" in line and "usage signal" in line)
    assert usage_row.split()[:2] == ["3", "1"]
    assert "forbidden by a content-usage signal (GBOT_ROBOTS_USAGE: ai-train)" in out
    assert re.search(r"WOULD FORBID\s+WOULD STOP\s+PARKED\s+DROPPED\s+CRAWL-DELAY\s+LINT", out)
    down = next(line for line in lines if line.strip().startswith("https://down.example"))
    assert down.split()[4:7] == ["0", "0", "2"]  # allowed, would forbid, would stop
    assert "3600 s, capped at 30 s" in out and "2 s, applied" in out
    assert "content-usage signals of those origins" in out
    assert re.search(r"https://u\.example\s+\*\s+3\s+Content-Signal: search=yes, ai-train=no", out)
    assert re.search(r"^\s+4\s+Content-Usage: /open/ train-ai=y$", out, re.M)


def test_report_command_on_an_enforce_crawl_names_the_token(tmp_path: Path) -> None:
    c = ReportCollector(tokens=("Googlebot-Image", "Googlebot"))
    o = "https://a.example"
    c.forbidden(o, o + "/g/1", parse(USAGE_BODY).decide(o + "/g/1", ["x", "Googlebot"]))
    out = _cli_summary(tmp_path, c.to_json({}))
    assert "OBSERVE" not in out and "would" not in out.lower()
    assert re.search(r"^\s+1\s+1\s+Disallow: /g/\s+7\s+Googlebot\s+https://a\.example$", out, re.M)
    assert "CRAWL-DELAY" not in out and "BY" not in out.split()
    assert "content-usage signals" not in out


def test_reports_without_the_new_fields_still_render(tmp_path: Path) -> None:
    """A report written before these fields existed (same schema) reads as it did."""
    data = _observe_report()
    data["crawl"] = {"spider": "old", "settings": {"mode": "observe"}}
    for rule in data["rules"]:
        del rule["token"], rule["by"]
    for o in data["origins"]:
        del o["usage"]
    out = _cli_summary(tmp_path, data)
    assert out.splitlines()[1].startswith("OBSERVE MODE")  # from crawl.settings.mode
    assert re.search(r"^\s+1\s+3\s+Disallow: /private/\s+2\s+\*\s+rule\s+https://a", out, re.M)
    _, text = _page_text(data)
    assert "Observe mode" in text and "content usage" not in text
