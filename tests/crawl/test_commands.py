"""Every Scrapy command a user runs with the add-on on: ``shell``, ``view``, ``fetch``, ``parse``.

Each runs as a subprocess in a small project of its own (the add-on in its settings) against a
local server whose robots.txt disallows ``/private``. An allowed URL is downloaded after its
robots.txt, a disallowed one is not, and every command ends by itself: ``scrapy shell`` used
to hang for ever (issue 23, defect 2: the shell never calls ``Crawler.crawl()``, which the
plugin read as "the crawl is stopping", so the robots.txt fetch never started). ``crawl`` is
what every other crawl test runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from _threadserver import serving

pytestmark = pytest.mark.crawl

ROBOTS = b"User-agent: *\nDisallow: /private\n"
#: A command that does not end by then hangs: the test fails instead of the suite.
TIMEOUT = 90


class _Site(BaseHTTPRequestHandler):
    asked: list[str] = []  # noqa: RUF012 - one list per test: see site()

    def do_GET(self) -> None:
        type(self).asked.append(self.path)
        if self.path == "/robots.txt":
            body, kind = ROBOTS, "text/plain"
        else:
            body = b"<html><head><title>page</title></head><body>hello " + self.path.encode()
            body += b' <a href="/next">next</a></body></html>'
            kind = "text/html"
        self.send_response(200)
        if self.path.startswith("/refusing"):
            self.send_header("Content-Usage", "train-ai=n")
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[tuple[str, list[str]]]:
    asked: list[str] = []
    handler = type("Site", (_Site,), {"asked": asked})
    with serving(handler) as port:
        yield f"http://127.0.0.1:{port}", asked


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose settings switch the add-on on, with one spider for ``parse``."""
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = proj.settings\n")
    package = tmp_path / "proj"
    (package / "spiders").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(
        textwrap.dedent(
            """
            SPIDER_MODULES = ["proj.spiders"]
            ROBOTSTXT_OBEY = True
            ADDONS = {"scrapy_gbot_robots.Addon": 0}
            USER_AGENT = "CmdBot/1.0"
            TELNETCONSOLE_ENABLED = False
            LOG_LEVEL = "INFO"
            """
        )
    )
    (package / "spiders" / "__init__.py").write_text(
        textwrap.dedent(
            """
            import scrapy

            class Pages(scrapy.Spider):
                name = "pages"

                def parse(self, response):
                    yield {"title": response.css("title::text").get()}
            """
        )
    )
    return tmp_path


def scrapy(project: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``scrapy ARGS`` in ``project``; its output (stdout then stderr)."""
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(project), *sys.path]), **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + "\n" + done.stderr


@pytest.mark.parametrize(("path", "printed"), [("/a", "200"), ("/private/x", "None")])
def test_scrapy_shell_answers_allowed_and_disallowed_urls(
    project: Path, site: tuple[str, list[str]], path: str, printed: str
) -> None:
    base, asked = site
    code = "response.status if response is not None else None"
    out = scrapy(project, "shell", base + path, "-c", code)
    assert out.splitlines()[0] == printed, out[-2000:]
    assert asked[0] == "/robots.txt"
    assert ("/private/x" in asked) is False
    assert "Traceback" not in out


@pytest.mark.parametrize(("path", "opened"), [("/a", True), ("/private/x", False)])
def test_scrapy_view_opens_only_what_robots_txt_allows(
    project: Path, site: tuple[str, list[str]], tmp_path: Path, path: str, opened: bool
) -> None:
    base, asked = site
    record = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" >> {record}\n')
    browser.chmod(0o755)
    out = scrapy(project, "view", base + path, env={"BROWSER": str(browser)})
    assert asked[0] == "/robots.txt"
    if opened:
        page = record.read_text().strip().removeprefix("file://")
        assert "hello /a" in Path(page).read_text(), out[-2000:]
    else:
        assert not record.exists() and "/private/x" not in asked
    assert "Traceback" not in out


@pytest.mark.parametrize(("path", "body"), [("/a", True), ("/private/x", False)])
def test_scrapy_fetch_prints_only_what_robots_txt_allows(
    project: Path, site: tuple[str, list[str]], path: str, body: bool
) -> None:
    base, asked = site
    out = scrapy(project, "fetch", "--nolog", base + path)
    assert ("hello " + path in out) is body
    assert asked[0] == "/robots.txt" and ("/private/x" in asked) is False


@pytest.mark.parametrize(("path", "item"), [("/a", True), ("/private/x", False)])
def test_scrapy_parse_parses_only_what_robots_txt_allows(
    project: Path, site: tuple[str, list[str]], path: str, item: bool
) -> None:
    base, asked = site
    out = scrapy(project, "parse", "--spider", "pages", "-c", "parse", base + path)
    assert ("'title': 'page'" in out) is item, out[-2000:]
    assert asked[0] == "/robots.txt" and ("/private/x" in asked) is False
    assert "Traceback" not in out


@pytest.mark.parametrize("command", ["parse", "fetch", "view", "shell"])
def test_a_response_refusing_the_declared_use_under_every_command(
    project: Path, site: tuple[str, list[str]], tmp_path: Path, command: str
) -> None:
    """Each hands the response to a callback (``fetch`` prints it from one, ``view`` opens
    it from one, ``shell`` takes it in one), so the usage middleware withholds it as in a
    crawl: downloaded once, neither parsed, printed, opened nor given to the shell."""
    base, asked = site
    url, usage = base + "/refusing", ["-s", "GBOT_ROBOTS_USAGE=ai-train"]
    if command == "parse":
        out = scrapy(project, "parse", "--spider", "pages", "-c", "parse", *usage, url)
        assert "No response downloaded for: " + url in out, out[-2000:]
    elif command == "fetch":
        out = scrapy(project, "fetch", *usage, url)
    elif command == "view":
        record, browser = tmp_path / "opened.txt", tmp_path / "browser.sh"
        browser.write_text(f'#!/bin/sh\necho "$1" >> {record}\n')
        browser.chmod(0o755)
        out = scrapy(project, "view", *usage, url, env={"BROWSER": str(browser)})
        assert not record.exists(), out[-2000:]
    else:
        out = scrapy(project, "shell", *usage, url, "-c", "response")
        assert out.splitlines()[0] == "None", out[-2000:]
    # Downloaded once, after robots.txt and tdmrep.json (ai-train names it).
    assert asked == ["/robots.txt", "/.well-known/tdmrep.json", "/refusing"], out[-2000:]
    if command != "shell":  # the shell dumps no stats
        assert "'robotstxt/usage/withheld': 1" in out, out[-3000:]
    assert "'title': 'page'" not in out and "hello /refusing" not in out, out[-2000:]
    assert "Traceback" not in out


def _reactorless_supported() -> bool:
    from scrapy.settings.default_settings import __dict__ as defaults

    return "TWISTED_REACTOR_ENABLED" in defaults


@pytest.mark.skipif(
    not _reactorless_supported(), reason="TWISTED_REACTOR_ENABLED is new in Scrapy 2.19"
)
def test_a_crawl_without_a_twisted_reactor_obeys_robots_txt_and_closes(
    project: Path, site: tuple[str, list[str]], tmp_path: Path
) -> None:
    """Issue 23, defect 6: with ``TWISTED_REACTOR_ENABLED = False`` (Scrapy's experimental
    reactorless mode, with its own httpx download handler) the plugin used to import the
    reactor when the spider opened (ImportError) and the crawl hung."""
    pytest.importorskip("httpx", reason="Scrapy's reactorless download handler needs httpx")
    base, asked = site
    handler = "scrapy.core.downloader.handlers._httpx.HttpxDownloadHandler"
    spider = tmp_path / "one.py"
    spider.write_text(
        textwrap.dedent(
            f"""
            import scrapy

            class One(scrapy.Spider):
                name = "one"
                custom_settings = {{
                    "DOWNLOAD_HANDLERS": {{"http": "{handler}"}},
                    "GBOT_ROBOTS_REPORT": "{tmp_path / "report.json"}",
                }}
                start_urls = ["{base}/a", "{base}/private/x"]

                def parse(self, response):
                    self.logger.info("CRAWLED %s", response.url)
            """
        )
    )
    out = scrapy(project, "runspider", str(spider), "-s", "TWISTED_REACTOR_ENABLED=False")
    assert f"CRAWLED {base}/a" in out
    assert asked.count("/robots.txt") == 1 and "/private/x" not in asked
    assert "ImportError" not in out and "Traceback" not in out
    assert (tmp_path / "report.json").exists()  # the close ran to its end
