"""The log lines the pages show are the lines a crawl prints (issue 48: the README's start-up
line had gone stale).

A page marks a sample with ``<!-- sample: NAME -->`` followed by a fenced block
(docs/development.md). One real crawl against the local server logs a start-up line, a
forbidden request, progress lines, and a robots.txt in server error whose request is dropped
at its deadline; each line of each sample must equal one of the crawl's
lines once what varies from run to run is set aside: a timestamp, an origin (scheme, host and
port), and numbers (counts, line numbers, priorities).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

ROOT = Path(__file__).resolve().parent.parent
#: Every page a user reads: the README and docs/.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SAMPLE = re.compile(r"^<!-- sample: ([\w-]+) -->\n```[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"^<!-- sample: ", re.MULTILINE)
#: The crawl's robots.txt: line 3 forbids /private/ to MyBot, as the README's sample says.
ROBOTS = b"# the README's sample\nUser-agent: MyBot\nDisallow: /private/\n"


def samples(text: str) -> list[tuple[str, list[str]]]:
    """(name, lines) of each sample of a page."""
    return [(name, block.strip("\n").split("\n")) for name, block in SAMPLE.findall(text)]


def normal(line: str) -> str:
    """A log line without what changes from run to run: timestamp, origin, numbers."""
    line = re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)? ", "", line.strip())
    line = re.sub(r"https?://[^/\s>'\"]+", "ORIGIN", line)
    return re.sub(r"\d[\d,.]*", "N", line)


def test_every_marker_is_followed_by_a_fenced_block() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert len(MARKER.findall(text)) == len(samples(text)), page.name


def test_normal_sets_aside_timestamps_origins_and_numbers_only() -> None:
    real = "2026-12-07 21:00:01 [x] DEBUG: Forbidden: <GET http://127.0.0.1:4321/a> (line 3)"
    assert normal(real) == normal("[x] DEBUG: Forbidden: <GET https://example.com/a> (line 9)")
    assert normal(real) != normal("[x] DEBUG: Forbidden: <GET https://example.com/b> (line 9)")
    assert normal("at most 16 downloads") != normal("16, paced between 4 and 128, downloads")


def test_the_readme_fits_a_screen_or_two() -> None:
    """Issue 48: what it is, the setup, the commands, a table, links; the rest in docs/."""
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert 300 < words <= 1_200, words


@pytest.mark.crawl
@pytest_twisted.ensureDeferred
async def test_the_pages_samples_are_lines_a_crawl_prints(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="scrapy_gbot_robots")
    server.route("/robots.txt", body=ROBOTS)
    server.route("/robots.txt", host="slow.test", body=ROBOTS, delay=1.0)
    server.route("/robots.txt", host="down.test", status=503)
    urls = [server.url("/"), server.url("/private/x"), server.url("/", "slow.test")]
    urls += [server.url("/", "down.test")]
    settings = {
        "ROBOTSTXT_USER_AGENT": "MyBot",
        "LOGSTATS_INTERVAL": 0.3,
        # down.test's request is dropped at its deadline; slow.test's robots.txt is in by then.
        "GBOT_ROBOTS_PARK_TIMEOUT": 2.5,
        # The defaults a new project has: the budget the start-up line reports.
        "CONCURRENT_REQUESTS": 16,
    }
    await crawl(make_spider(urls=urls), settings)
    real = {
        normal(f"[{r.name}] {r.levelname}: {r.getMessage()}")
        for r in caplog.records
        if r.name.startswith("scrapy_gbot_robots")
    }
    checked: dict[str, int] = {}
    stale = []
    for page in PAGES:
        for name, lines in samples(page.read_text(encoding="utf-8")):
            checked[name] = checked.get(name, 0) + 1
            stale += [f"{page.name} ({name}): {line}" for line in lines if normal(line) not in real]
    assert not stale, "sample lines no crawl prints:\n" + "\n".join(stale)
    # The README's and the migration page's samples are among those checked: not vacuous.
    assert {"startup", "forbidden", "server-error"} <= checked.keys(), checked
