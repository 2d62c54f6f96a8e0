"""Rough edges a new user hits, each in a real crawl or a real ``scrapy`` process."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from _httpserver import Server, crawl, make_spider

from scrapy_gbot_robots._settings import known_settings, unknown_settings

pytestmark = pytest.mark.crawl

RULES = b"User-agent: *\nDisallow: /x\n"


@pytest_twisted.ensureDeferred
async def test_misspelt_setting_warns_once_with_the_closest_name(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=RULES)
    caplog.set_level(logging.WARNING, logger="scrapy_gbot_robots")
    crawler = await crawl(
        make_spider(urls=[server.url("/a")]),
        {"GBOT_ROBOTS_TTLL": 10, "GBOT_ROBOTS_NO_SUCH_THING": 1},
    )
    assert crawler.spider.crawled == [server.url("/a")]
    warnings = [r.getMessage() for r in caplog.records if "Unknown setting" in r.getMessage()]
    assert len(warnings) == 2
    assert any(
        "GBOT_ROBOTS_TTLL" in w and "did you mean GBOT_ROBOTS_TTL?" in w
        for w in warnings
    )
    assert any("GBOT_ROBOTS_NO_SUCH_THING" in w and "did you mean" not in w for w in warnings)


def test_known_settings_are_never_reported_unknown() -> None:
    assert unknown_settings(known_settings()) == []
    assert unknown_settings(["DOWNLOAD_DELAY", "ROBOTSTXT_OBEY"]) == []


SPIDER = """
import scrapy

class One(scrapy.Spider):
    name = "one"
    start_urls = [{url!r}]

    def parse(self, response):
        pass
"""


@pytest.mark.parametrize(
    ("setting", "value", "expected"),
    [
        ("GBOT_ROBOTS_PARK_TIMEOUT", "ten", "expected a number, got 'ten'"),
        ("GBOT_ROBOTS_STORE", "postgres://db", "expected 'memory', 'sqlite://PATH'"),
        ("GBOT_ROBOTS_REPORT", "out.txt", "ending in .json or .html"),
    ],
)
@pytest_twisted.ensureDeferred
async def test_bad_setting_value_is_one_error_line_and_no_request(
    server: Server, tmp_path: Path, setting: str, value: str, expected: str
) -> None:
    from twisted.internet import threads

    spider = tmp_path / "one.py"
    spider.write_text(SPIDER.format(url=server.url("/a")))
    args = [
        sys.executable, "-m", "scrapy", "runspider", str(spider),
        "-s", 'ADDONS={"scrapy_gbot_robots.Addon": 0}', "-s", "ROBOTSTXT_OBEY=True",
        "-s", "TELNETCONSOLE_ENABLED=False", "-s", f"{setting}={value}",
    ]  # fmt: skip

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
        )

    done = await threads.deferToThread(run)  # the test's reactor keeps serving meanwhile
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
    assert done.returncode != 0
    assert len(errors) == 1, done.stderr[-3000:]
    assert setting in errors[0] and expected in errors[0]
    if _scrapy_version() >= (2, 13):
        # Older Scrapy runs on Twisted's default reactor, whose own stderr printer shows
        # the traceback of an unhandled Deferred before any logging filter sees it.
        assert "Traceback" not in done.stderr
    assert server.hits.total() == 0  # stopped before any request, robots.txt included


def _scrapy_version() -> tuple[int, int]:
    import scrapy

    major, minor = scrapy.__version__.split(".")[:2]
    return int(major), int(minor)


@pytest_twisted.ensureDeferred
async def test_robotstxt_obey_false_is_an_info_not_a_warning(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    settings = {"ROBOTSTXT_OBEY": False, "GBOT_ROBOTS_PARK_TIMOUT": 5}
    await crawl(make_spider(urls=[server.url("/a")]), settings)
    about = [r for r in caplog.records if "ROBOTSTXT_OBEY" in r.getMessage()]
    assert about, "nothing says robots.txt is off"
    assert all(r.levelno < logging.WARNING for r in about)
    assert server.count("/robots.txt") == 0
    # Said once, though both our middlewares read the settings (issue 48: it was twice).
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("scrapy_gbot")]
    off = "ROBOTSTXT_OBEY is False: robots.txt is not fetched nor obeyed"
    assert messages.count(off) == 1, messages
    assert sum("GBOT_ROBOTS_PARK_TIMOUT" in m for m in messages) == 1, messages


@pytest_twisted.ensureDeferred
async def test_start_says_which_robots_middleware_is_active(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("/robots.txt", body=RULES)
    caplog.set_level(logging.INFO)
    await crawl(make_spider(urls=[server.url("/a")]))
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any(
        "GoogleRobotsTxtMiddleware" in m and "instead of Scrapy's RobotsTxtMiddleware" in m
        for m in infos
    )
    assert any(m.startswith("Obeying robots.txt as token") for m in infos)


@pytest_twisted.ensureDeferred
async def test_cache_hit_counts_downloads_after_the_dupefilter(server: Server) -> None:
    server.route("/robots.txt", body=RULES)
    unique = [server.url(f"/p{i}") for i in range(10)] + [server.url("/x")]

    class Spider(make_spider(urls=[server.url("/start")])):  # type: ignore[misc]
        def parse(self, response: object) -> object:
            self.crawled.append(response.url)  # type: ignore[attr-defined]
            if response.url.endswith("/start"):  # type: ignore[attr-defined]
                for url in unique * 3:  # every link three times: two of each are duplicates
                    yield self.make_request(url)

    crawler = await crawl(Spider)
    stats = crawler.stats.get_stats()
    assert stats["dupefilter/filtered"] == 2 * len(unique)
    # Every download checked against the remembered state, duplicates not included:
    # the 10 pages, the forbidden /x, and /start once robots.txt was known.
    assert stats["robotstxt/store/hit"] == len(unique) + 1
    assert stats["robotstxt/store/hit"] <= stats["scheduler/enqueued"]


@pytest.mark.parametrize(
    ("parser", "warned"),
    [
        ("scrapy.robotstxt.PythonRobotParser", True),
        ("scrapy.robotstxt.ProtegoRobotParser", False),  # Scrapy's default
        ("scrapy_gbot_robots.GoogleRobotParser", False),  # Google's matching anyway
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_robotstxt_parser_setting_that_is_not_used_says_so(
    server: Server, caplog: pytest.LogCaptureFixture, parser: str, warned: bool
) -> None:
    # Python's parser reads "Disallow: /x" as a prefix of "/x*"; Google's rules decide here.
    server.route("/robots.txt", body=b"User-agent: *\nDisallow: /x$\n")
    caplog.set_level(logging.WARNING, logger="scrapy_gbot_robots")
    urls = [server.url("/x"), server.url("/xy")]
    crawler = await crawl(make_spider(urls=urls), {"ROBOTSTXT_PARSER": parser})
    assert crawler.spider.crawled == [server.url("/xy")]
    warnings = [r.getMessage() for r in caplog.records if "ROBOTSTXT_PARSER" in r.getMessage()]
    assert len(warnings) == (1 if warned else 0)
    if warned:
        assert parser in warnings[0] and "Google's rules" in warnings[0]
