"""The demo project runs as a new user runs it, and reports what Google's rules imply.

``scrapy crawl demo`` runs in a subprocess (its own reactor, the project's own settings);
the assertions read the report it prints, so a regression in the add-on, the signals or the
demo itself shows up as a wrong URL set or a wrong deciding line. The demo also writes the
audit report (``GBOT_ROBOTS_REPORT``): its numbers must be the ones the demo printed. The
project is copied to a temporary directory first, so the report files land there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scrapy_gbot_robots import _stats

pytestmark = pytest.mark.crawl

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "example_project"

#: What Google's rules decide for the demo's robots.txt files (see gbot_demo/site.py).
CRAWLED = {
    ("main", "/"),
    ("main", "/about.html"),  # the "*" group's "Disallow: /" does not apply to DemoBot
    ("main", "/shop/catalog/"),  # longest match wins
    ("main", "/shop/catalog/lamp.html"),
    ("main", "/media/cat.jpg"),  # tie between "/media" and "/*.jpg": allow wins
    ("main", "/guide.pdf?page=2"),  # "$" anchors the end
    ("main", "/private/"),  # Google's index.htm rule
    ("main", "/private/index.html"),
    ("flaky", "/news/today.html"),
}
FORBIDDEN = {
    ("main", "/shop/cart.html"): "line 8: Disallow: /shop/",
    ("main", "/media/cat.png"): "line 10: Disallow: /media",
    ("main", "/guide.pdf"): "line 12: Disallow: /*.pdf$",
    ("main", "/private/keys.html"): "line 13: Disallow: /private/",
    ("main", "/tmp/scratch.html"): "line 15: Disalow: /tmp/",  # accepted typo
    ("main", "/drafts/plan.html"): "line 16: Disallowed: /drafts/",  # key matched by prefix
    ("flaky", "/archive/2019.html"): "line 3: Disallow: /archive/",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo project: ``scrapy crawl demo`` writes its report files there."""
    copy = tmp_path_factory.mktemp("demo") / "example_project"
    shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns("__pycache__", "robots-report.*"))
    return copy


@pytest.fixture(scope="module")
def report(project: Path) -> str:
    scrapy = Path(sys.executable).with_name("scrapy")
    if not scrapy.exists():
        pytest.skip(f"no scrapy executable beside {sys.executable}")
    # Every warning shown (not only those Python shows by default): issue 23, defect 4 was
    # Scrapy 2.19 warning at every close that our spider_closed handler returned a Deferred.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), str(project)]),
        "PYTHONWARNINGS": "default",
    }
    proc = subprocess.run(
        [str(scrapy), "crawl", "demo"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
    # Scrapy 2.11 warns of its own default REQUEST_FINGERPRINTER_IMPLEMENTATION in every
    # project that does not set it (its template does); Scrapy 2.19 with w3lib 2.6 warns that
    # it passes deprecated html_to_unicode() parameters. Those are Scrapy's, not ours.
    theirs = ("REQUEST_FINGERPRINTER_IMPLEMENTATION", "w3lib.encoding.html_to_unicode()")
    warned = [
        line
        for line in proc.stderr.splitlines()
        if "Warning:" in line and not any(name in line for name in theirs)
    ]
    assert warned == [], warned
    return proc.stdout


def _sections(report: str) -> dict[str, dict[tuple[str, str], str]]:
    """{"CRAWLED": {(site, path): rest of line}, "FORBIDDEN": ..., ...}."""
    origins = dict(
        (url, name) for name, url in re.findall(r"^(main|flaky) site\s+(http://\S+)", report, re.M)
    )
    assert set(origins.values()) == {"main", "flaky"}, report
    sections: dict[str, dict[tuple[str, str], str]] = {}
    current: dict[tuple[str, str], str] | None = None
    for line in report.splitlines():
        if head := re.match(r"^(CRAWLED|FORBIDDEN|PARKED|DROPPED) \((\d+)\)", line):
            current = sections.setdefault(head[1], {})
        elif (
            entry := re.match(r"^  (http://[^/\s]+)(/\S*)\s+(.*)$", line)
        ) and current is not None:
            current[(origins[entry[1]], entry[2])] = entry[3].strip()
        elif not line.strip():
            current = None
    return sections


def test_crawled_urls_are_exactly_those_google_allows(report: str) -> None:
    crawled = _sections(report)["CRAWLED"]
    assert set(crawled) == CRAWLED
    assert not [why for why in crawled.values() if why.startswith("!!")]


def test_forbidden_urls_come_with_the_deciding_line(report: str) -> None:
    assert _sections(report)["FORBIDDEN"] == FORBIDDEN


def test_flaky_origin_requests_were_parked_then_decided(report: str) -> None:
    parked = _sections(report)["PARKED"]
    assert {("flaky", "/news/today.html"), ("flaky", "/archive/2019.html")} <= set(parked)
    assert parked[("flaky", "/news/today.html")] == "-> crawled"
    assert parked[("flaky", "/archive/2019.html")] == "-> forbidden"
    assert all(fate in ("-> crawled", "-> forbidden") for fate in parked.values()), parked
    assert "DROPPED" not in _sections(report)


def test_stats_count_the_forbidden_requests(report: str) -> None:
    stats = dict(re.findall(r"(robotstxt/[\w/]+)=(\d+)", report))
    assert stats.get("robotstxt/forbidden") == str(len(FORBIDDEN))
    assert int(stats.get("robotstxt/parked", "0")) >= 2
    # One fetch per origin, plus the flaky origin's retry after its 503: never a duplicate.
    assert stats.get("robotstxt/request_count") == "3"


def _report_files(report: str) -> dict[str, Path]:
    """{".html": path, ".json": path} from the demo's "Audit report: PATH (...)" lines."""
    found = re.findall(r"^Audit report: (\S+\.(html|json))  \(", report, re.M)
    return {"." + kind: Path(path) for path, kind in found}


def test_the_audit_report_is_written_and_its_path_printed(report: str, project: Path) -> None:
    files = _report_files(report)
    assert set(files) == {".html", ".json"}, report
    for path in files.values():
        assert path.is_file() and path.parent == project.resolve(), path
    data = json.loads(files[".json"].read_text("utf-8"))
    assert data["schema"] == "gbot-robots-report/2"
    assert data["crawl"]["spider"] == "demo" and data["crawl"]["tokens"] == ["DemoBot"]

    class Page(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: set[str] = set()
            self.text: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.add(tag)

        def handle_data(self, data: str) -> None:
            self.text.append(data)

    page = Page()
    page.feed(files[".html"].read_text("utf-8"))
    assert {"html", "table", "svg"} <= page.tags and "script" not in page.tags
    assert "Disallowed: /drafts/" in "".join(page.text)


def test_the_audit_report_numbers_are_those_the_demo_printed(report: str) -> None:
    data = json.loads(_report_files(report)[".json"].read_text("utf-8"))
    sections = _sections(report)
    printed_stats = {k: int(v) for k, v in re.findall(r"(robotstxt/[\w/]+)=(\d+)", report)}
    totals = data["totals"]
    assert totals["allowed"] == len(sections["CRAWLED"]) == len(CRAWLED)
    assert totals["forbidden"] == len(sections["FORBIDDEN"]) == printed_stats["robotstxt/forbidden"]
    assert totals["parked"] == len(sections["PARKED"]) == printed_stats["robotstxt/parked"]
    assert totals["dropped"] == 0 and "DROPPED" not in sections
    assert totals["origins"] == 2 and data["origins_by_state"]["rules"] == 2
    # The 0.2 names of renamed stats are written beside the new ones until 0.4; the report,
    # whose schema changed since, shows the new names only.
    old = set(_stats.OLD_NAMES.values())
    assert old & set(printed_stats)  # the demo prints every stat, old names included
    assert data["crawl"]["stats"] == {k: v for k, v in printed_stats.items() if k not in old}
    # Each forbidden URL's deciding line is one of the report's ranked rules.
    origins = dict(
        (url, name) for name, url in re.findall(r"^(main|flaky) site\s+(http://\S+)", report, re.M)
    )
    rules = {(origins[r["origin"]], f"line {r['line']}: {r['rule']}") for r in data["rules"]}
    assert rules == {(site, why) for (site, _), why in FORBIDDEN.items()}
    assert sum(r["forbidden"] for r in data["rules"]) == len(FORBIDDEN)
    # The flaky origin answered 503 first: two states, the last one its rules.
    flaky = next(o for o in data["origins"] if origins[o["origin"]] == "flaky")
    assert (flaky["state"], flaky["fetches"], flaky["server_errors"]) == ("rules", 2, 1)
    assert flaky["requests"]["parked"] == 2
