"""Back-off under ``scrapy fetch``, ``shell``, ``parse`` and ``view``: a page answering ``503``
with ``Retry-After: 1`` is retried by Scrapy once the second has passed, not at once, and the
command shows the retry's answer and ends by itself; so is a page whose connection closes
without an answer (a network error: the doubling wait's first second)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from _threadserver import serving
from test_commands import project, scrapy

pytestmark = pytest.mark.crawl

__all__ = ["project"]  # the fixture, used by name


class _Busy(BaseHTTPRequestHandler):
    asked: list[tuple[float, str]] = []  # noqa: RUF012 - one list per test: see site()

    def do_GET(self) -> None:
        asked = type(self).asked
        asked.append((time.monotonic(), self.path))
        pages = [path for _, path in asked if path != "/robots.txt"]
        if self.path == "/robots.txt":
            status, body, extra = 200, b"User-agent: *\nAllow: /\n", {}
        elif len(pages) == 1:
            status, body, extra = 503, b"busy", {"Retry-After": "1"}
        else:
            status = 200
            body = b"<html><head><title>page</title></head><body>hello</body></html>"
            extra = {}
        self.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **extra}.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[tuple[str, list[tuple[float, str]]]]:
    asked: list[tuple[float, str]] = []
    with serving(type("Busy", (_Busy,), {"asked": asked})) as port:
        yield f"http://127.0.0.1:{port}", asked


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (["fetch", "--nolog"], "hello"),
        (["shell", "-c", "response.status"], "200"),
        (["parse", "--spider", "pages", "-c", "parse"], "'title': 'page'"),
    ],
)
def test_a_command_waits_for_the_back_off_then_shows_the_retry(
    project: Path, site: tuple[str, list[tuple[float, str]]], command: list[str], shown: str
) -> None:
    base, asked = site
    out = scrapy(project, *command, base + "/a")
    assert shown in out, out[-2000:]
    pages = [when for when, path in asked if path == "/a"]
    assert len(pages) == 2 and pages[1] - pages[0] >= 1.0, asked  # the retry waited 1 s
    assert "Traceback" not in out


class _Hangs(_Busy):
    """The first two page requests get no answer (the connection closes): Twisted's client
    may re-send the first on a fresh connection by itself, so two make sure Scrapy sees one."""

    def do_GET(self) -> None:
        pages = [path for _, path in type(self).asked if path != "/robots.txt"]
        if self.path != "/robots.txt" and len(pages) < 2:
            type(self).asked.append((time.monotonic(), self.path))
            self.close_connection = True
            return
        super().do_GET()


def test_fetch_waits_for_the_back_off_of_a_network_error(project: Path) -> None:
    asked: list[tuple[float, str]] = []
    with serving(type("Hangs", (_Hangs,), {"asked": asked})) as port:
        out = scrapy(project, "fetch", "--nolog", f"http://127.0.0.1:{port}/a")
    assert "hello" in out, out[-2000:]
    pages = [when for when, path in asked if path == "/a"]
    # Dropped twice; the answer came to a retry sent once the back-off (1 s) was over.
    assert len(pages) >= 3 and pages[-1] - pages[-2] >= 1.0, asked
    assert "Traceback" not in out
