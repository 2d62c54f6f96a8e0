"""The demo project runs as a new user runs it, and reports what Google's rules imply.

``scrapy crawl demo`` runs in a subprocess (its own reactor, the project's own settings);
the assertions read the report it prints, so a regression in the add-on, the signals or the
demo itself shows up as a wrong URL set or a wrong deciding line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
def report() -> str:
    scrapy = Path(sys.executable).with_name("scrapy")
    if not scrapy.exists():
        pytest.skip(f"no scrapy executable beside {sys.executable}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(PROJECT)])}
    proc = subprocess.run(
        [str(scrapy), "crawl", "demo"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
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
        if head := re.match(r"^(CRAWLED|FORBIDDEN|DEFERRED|DROPPED) \((\d+)\)", line):
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
    deferred = _sections(report)["DEFERRED"]
    assert {("flaky", "/news/today.html"), ("flaky", "/archive/2019.html")} <= set(deferred)
    assert deferred[("flaky", "/news/today.html")] == "-> crawled"
    assert deferred[("flaky", "/archive/2019.html")] == "-> forbidden"
    assert all(fate in ("-> crawled", "-> forbidden") for fate in deferred.values()), deferred
    assert "DROPPED" not in _sections(report)


def test_stats_count_the_forbidden_requests(report: str) -> None:
    stats = dict(re.findall(r"(robotstxt/[\w/]+)=(\d+)", report))
    assert stats.get("robotstxt/forbidden") == str(len(FORBIDDEN))
    assert int(stats.get("robotstxt/deferred", "0")) >= 2
    # One fetch per origin, plus the flaky origin's retry after its 503: never a duplicate.
    assert stats.get("robotstxt/request_count") == "3"
