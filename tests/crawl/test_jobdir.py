"""Pause and resume with JOBDIR: parked requests survive a Ctrl-C and are crawled exactly once.

Real processes: ``scrapy runspider`` is started twice with the same JOBDIR against the test's
HTTP servers; the first run gets SIGINT (Scrapy's graceful pause) while requests are parked
behind a slow robots.txt and behind one that answered 503.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import pytest_twisted
from _httpserver import Server
from _procs import CrawlProcess, finish, spawn, until

pytestmark = pytest.mark.crawl

SPIDER = """
from _subspider import StartUrlsSpider


class PauseSpider(StartUrlsSpider):
    name = "pause"
"""

RULES = b"User-agent: *\nDisallow: /private/\n"


def _run(tmp: Path, jobdir: Path) -> CrawlProcess:
    args = [
        "runspider", str(tmp / "pause_spider.py"),
        "-s", f"JOBDIR={jobdir}",
        "-s", "ROBOTSTXT_OBEY=True",
        "-s", 'ADDONS={"scrapy_gbot_robots.Addon": 0}',
        "-s", "GBOT_ROBOTS_RETRY_TIMES=0",
        "-s", "GBOT_ROBOTS_TICK=0.1",
        "-s", "GBOT_ROBOTS_PARK_TIMEOUT=600",
        "-s", "TELNETCONSOLE_ENABLED=False",
        "-s", "LOG_LEVEL=INFO",
        "-s", "CLOSESPIDER_TIMEOUT=60",
    ]  # fmt: skip
    return spawn("crawl", args, {"START_URLS": str(tmp / "start.json")}, tmp)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT pause is POSIX")
@pytest_twisted.ensureDeferred
async def test_sigint_pause_then_resume_crawls_every_parked_page_exactly_once(
    server: Server, server2: Server, tmp_path: Path
) -> None:
    healthy, slow = server, server2
    flaky = Server().start()
    try:
        healthy.route("/robots.txt", body=RULES)
        slow.route("/robots.txt", delay=2.0, body=RULES)
        flaky.route("/robots.txt", status=503, headers={"Retry-After": "3"})
        pages = {
            "healthy": [healthy.url("/h1"), healthy.url("/h2")],
            "slow": [slow.url("/s1"), slow.url("/s2")],
            "flaky": [flaky.url("/f1"), flaky.url("/f2")],
        }
        forbidden = [slow.url("/private/s3"), flaky.url("/private/f3")]
        start = [url for urls in pages.values() for url in urls] + forbidden
        (tmp_path / "start.json").write_text(json.dumps(start))
        (tmp_path / "pause_spider.py").write_text(SPIDER)
        jobdir = tmp_path / "job"

        # Run 1: pause while slow's robots.txt is in flight and flaky's answered 503.
        proc = _run(tmp_path, jobdir)
        await until(
            lambda: (
                healthy.count("/h1") + healthy.count("/h2") == 2
                and slow.count("/robots.txt") == 1
                and flaky.count("/robots.txt") == 1
                and flaky.inflight["/robots.txt"] == 0
            ),
            30,
            "run 1 to park its requests",
        )
        proc.signal("INT")  # Ctrl-C: Scrapy's graceful pause
        await finish(proc, 60)
        log1 = proc.text()
        assert "Kept 6 parked requests" in log1, log1[-3000:]
        assert all(slow.count(p) == 0 for p in ("/s1", "/s2"))
        assert all(flaky.count(p) == 0 for p in ("/f1", "/f2"))

        # Run 2, same JOBDIR: the flaky site answers now.
        flaky.route("/robots.txt", body=RULES)
        proc = _run(tmp_path, jobdir)
        code = await finish(proc, 60)
        log2 = proc.text()
        assert code == 0, log2[-3000:]
        assert "Resuming 6 parked requests" in log2, log2[-3000:]
        for site, srv in (("healthy", healthy), ("slow", slow), ("flaky", flaky)):
            for url in pages[site]:
                path = url.split(str(srv.port), 1)[1]
                assert srv.count(path) == 1, (url, srv.count(path))  # exactly once, both runs
        assert slow.count("/private/s3") == 0 and flaky.count("/private/f3") == 0
        # JOBDIR also keeps the robots.txt states (an SQLite cache inside it): the slow file,
        # fetched while run 1 was pausing, is not fetched again; the flaky one is retried
        # once its Retry-After, remembered across the restart, has passed.
        assert slow.count("/robots.txt") == 1
        assert flaky.count("/robots.txt") == 2
        assert "'robotstxt/dropped'" not in log1 + log2  # nothing given up in either run
        for url in forbidden:  # parked in run 1, forbidden in run 2 once robots.txt arrived
            assert f"FAILED {url} IgnoreRequest" in log2
    finally:
        await flaky.stop()
