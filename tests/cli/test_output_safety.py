"""Issue 17, item 10: text from outside never drives the terminal, in any command or report.

A hostile server (a real one, on 127.0.0.1) puts terminal escapes in the ``Sitemap:`` lines of
its robots.txt, in a redirect's ``Location`` and in ``Cache-Control``; a file of URLs, a robots.txt
line, a file name and a crawl report carry them too. In text mode no raw control, C1 or bidi
character may reach stdout or stderr, and the text must still be there, escaped; in ``--json``
mode the output must be valid JSON that carries the text exactly as received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from _cli import run_cli
from _hostile import (
    C1_CSI,
    C1_OSC,
    CLEAR,
    HOSTILE,
    ISOLATE,
    OSC_TITLE,
    PAYLOADS,
    RLO,
    assert_safe,
)
from _threadserver import serving

from scrapy_gbot_robots import parse
from scrapy_gbot_robots._safetext import printable
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.report.writer import write

pytestmark = pytest.mark.crawl  # a real server, and the CLI in subprocesses

SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]

def run(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> tuple[int, str, str]:
    full = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "NO_COLOR"}
    full.update(env or {})
    proc = run_cli(list(args), stdin, full)  # fetch in a subprocess, the rest in this process
    return proc.returncode, proc.stdout, proc.stderr


# ----------------------------------------------------------------------------- fetch

HOSTILE_ROBOTS = (
    b"User-agent: *\nDisallow: /private/\n"
    + b"".join(
        b"Sitemap: http://sitemaps.test/" + str(i).encode() + p.encode("utf-8") + b"\n"
        for i, p in enumerate(PAYLOADS)
    )
    + b"Sitemap: http://sitemaps.test/raw\x9b2J\n"  # a raw C1 byte, not UTF-8
)
LOCATION = "/moved.txt?" + OSC_TITLE + CLEAR + "\x9b2J\x9d0;t\x9c"  # sent as latin-1 bytes
CACHE_CONTROL = "max-age=600, " + OSC_TITLE + CLEAR + "\x9b2J\x9d0;pwned\x9c"


@dataclass
class Hostile:
    port: int = 0
    hits: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _handler(server: Hostile) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.hits.append(self.path)
            path = self.path.split("?", 1)[0]
            if path == "/robots.txt":
                self._answer(301, b"", {"Location": LOCATION})
            elif path == "/moved.txt":
                self._answer(200, HOSTILE_ROBOTS, {"Cache-Control": CACHE_CONTROL})
            else:
                self._answer(404, b"not found", {})

        def _answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)  # http.server encodes it as latin-1, raw
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture()
def hostile() -> Iterator[Hostile]:
    h = Hostile()
    with serving(_handler(h)) as h.port:
        yield h


def test_fetch_text_escapes_sitemaps_location_and_cache_control(hostile: Hostile) -> None:
    url = f"{hostile.base}/page{CLEAR}{C1_CSI}"  # the command line is outside text too
    status, out, err = run("fetch", url, "--color", "never")
    assert status == 0, err
    assert [p.split("?")[0] for p in hostile.hits] == ["/robots.txt", "/moved.txt"]
    assert_safe(out)
    assert_safe(err)
    # Every hostile text is still shown, escaped, where it belongs.
    for i in range(len(PAYLOADS)):
        assert f"http://sitemaps.test/{i}{printable(PAYLOADS[i])}" in out
    assert "http://sitemaps.test/raw\\x9b2J" in out
    assert f"-> {printable(LOCATION)}" in out
    assert f"Cache-Control: {printable(CACHE_CONTROL)}" in out
    assert "page\\x1b[2J\\x9b2J" in out


def test_fetch_json_carries_the_hostile_text_exactly(hostile: Hostile) -> None:
    status, out, err = run("fetch", f"{hostile.base}/", "--json")
    assert status == 0, err
    data: dict[str, Any] = json.loads(out)  # valid JSON
    assert data["sitemaps"] == list(parse(HOSTILE_ROBOTS).sitemaps)
    assert data["sitemaps"][0] == "http://sitemaps.test/0" + OSC_TITLE
    assert data["sitemaps"][4] == "http://sitemaps.test/4" + RLO
    first, last = data["chain"][0], data["chain"][-1]
    assert (first["status"], first["location"]) == (301, LOCATION)
    assert (last["status"], last["cache_control"]) == (200, CACHE_CONTROL)
    assert data["valid_seconds"] == 600
    assert out.isascii()  # JSON escapes every control character itself


# ----------------------------------------------------------------------------- check


def test_check_escapes_urls_from_a_file_and_the_command_line(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /private/\n")
    urls = tmp_path / "urls.txt"
    lines = [f"https://example.com/private/{i}{p}" for i, p in enumerate(PAYLOADS)]
    urls.write_bytes("\n".join(lines).encode() + b"\nhttps://example.com/raw\x9b2J\n")
    forged = "https://example.com/private/x\r\x1b[32mallowed"  # CR: rewrite the verdict
    status, out, err = run("check", str(robots), "-u", "Googlebot", "--urls", str(urls), forged)
    assert status == 1
    assert_safe(out)
    assert_safe(err)
    assert out.count("disallowed  ") == len(lines) + 1  # the forged row still says so
    for line in lines:
        assert printable(line) in out
    assert "https://example.com/raw\\x9b2J" in out  # not UTF-8: shown as the byte
    assert "private/x\\x0d\\x1b[32mallowed" in out

    status, out, err = run("check", str(robots), "-u", "Googlebot", "--urls", str(urls), "--json")
    rows = [json.loads(row) for row in out.splitlines()]
    assert [r["url"] for r in rows[: len(lines)]] == lines  # as given, exactly
    assert all(r["allowed"] is False for r in rows[: len(lines)])
    assert out.isascii()
    assert_safe(err)  # the line that is not UTF-8 is still warned about


def test_check_escapes_a_file_name_in_its_warning(tmp_path: Path) -> None:
    robots = tmp_path / f"robots{CLEAR}{C1_CSI}.txt"
    robots.write_bytes(b"")
    status, out, err = run("check", str(robots), "-u", "Googlebot", "https://example.com/")
    assert status == 0
    assert "robots\\x1b[2J\\x9b2J.txt is empty" in err
    assert_safe(out)
    assert_safe(err)


# ----------------------------------------------------------------------------- lint


def test_lint_escapes_c1_and_bidi_characters_of_the_file(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(
        f"User-agent: *\nDisallow: /a{C1_CSI}\n# {RLO}\n"
        f"Sitemap: https://e.test/{C1_OSC}\nNoindex: {ISOLATE}\n".encode()
    )
    for args in ((), ("-q",)):
        status, out, err = run("lint", str(robots), *args, "--color", "never")
        assert status == 0, err
        assert_safe(out)
        assert_safe(err)
    status, out, _ = run("lint", str(robots), "--color", "never")
    assert "/a\\x9b2J" in out and "\\u202eevil\\u202c" in out and "\\x9d0;pwned\\x9c" in out


# ----------------------------------------------------------------------------- report


def _report_with(text: str) -> dict[str, Any]:
    c = ReportCollector()
    body = b"User-agent: *\nDisallow: /private/\n"
    origin = "https://a.example"
    url = f"{origin}/private/{text}"
    c.forbidden(origin, url, parse(body).decide(url, "TestBot"))
    c.dropped("https://b.example", f"reason {text}")
    return c.to_json({"spider": f"spider{text}", "tokens": ["TestBot"]})


def test_report_text_escapes_c1_and_bidi(tmp_path: Path) -> None:
    data = _report_with(HOSTILE)
    path = tmp_path / "report.json"
    write(data, str(path))
    status, out, err = run("report", str(path), "--color", "never")
    assert status == 0, err
    assert_safe(out)
    assert f"spider spider{printable(HOSTILE)}," in out
    status, out, _ = run("report", str(path), "--json")
    assert json.loads(out)["crawl"]["spider"] == f"spider{HOSTILE}"  # faithful


def test_output_stays_safe_in_a_latin1_terminal(tmp_path: Path) -> None:
    """A C1 character written to an 8-bit stream is the one byte the terminal obeys."""
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /\n")
    urls = tmp_path / "urls.txt"
    urls.write_bytes("\n".join(f"https://e.test/{p}" for p in PAYLOADS).encode())
    proc = subprocess.run(
        [*ENTRY, "check", str(robots), "-u", "Googlebot", "--urls", str(urls)],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "latin-1"},
        timeout=60,
        check=False,
    )
    raw = proc.stdout + proc.stderr
    assert proc.returncode == 1
    bad = sorted({b for b in raw if (b < 0x20 and b not in (0x09, 0x0A)) or 0x7F <= b < 0xA0})
    assert bad == [], bad


def test_fetch_verbose_escapes_scrapys_own_log_lines(hostile: Hostile) -> None:
    """Issue 24, item 9: with ``-v`` the crawl's log (Scrapy's lines and the middleware's)
    went to stderr as it was, while the rest of the command escapes outside text."""
    url = f"{hostile.base}/page{CLEAR}{C1_CSI}{RLO}"
    status, out, err = run("fetch", url, "-v", "--color", "never")
    assert status == 0, err
    assert_safe(out)
    assert_safe(err)
    assert "[scrapy.core.engine] INFO: Spider opened" in err  # Scrapy's own lines are there
    assert "DEBUG: Crawled (301) <GET " in err and "/moved.txt?" in err
    assert err.count("\n") > 10 and "\\n" not in err  # lines stay lines


@pytest.mark.parametrize("verbose", [["-v"], []])
def test_fetch_log_lines_escape_a_hostile_host(verbose: list[str]) -> None:
    """A host Scrapy keeps as written (w3lib escapes paths, not hosts) reached the terminal
    raw in the middleware's log lines: "Parked until the robots.txt of http://evil^[c...".
    Twisted refuses the URL before any connection, so nothing leaves the machine."""
    host = "evil" + "\x1bc" + "\x07" + ".test"
    status, out, err = run("fetch", f"http://{host}/page", *verbose, "--color", "never")
    assert_safe(out)
    assert_safe(err)
    if status == 2:  # w3lib 2.6 and later: Scrapy refuses such a host, a usage error
        assert out == ""
        assert "error: Scrapy cannot request 'http://evil\\x1bc\\x07.test/page'" in err
        assert "Traceback" not in err
        return
    assert status == 1, err  # older w3lib: a server error, crawling stops
    shown = "evil\\x1bc\\x07.test"
    assert shown in out
    if verbose:
        assert f"Parked until the robots.txt of http://{shown}" in err
