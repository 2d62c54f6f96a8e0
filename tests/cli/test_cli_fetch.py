"""``gbot-robots fetch`` against a real HTTP server on 127.0.0.1, run as a subprocess.

The server runs in a thread of the test process (the CLI runs its own reactor in the
subprocess), listens on an ephemeral loopback port, counts every hit, and is always shut down.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from _cli import run_cli, spawn_cli
from _threadserver import serving

pytestmark = pytest.mark.crawl

SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]

ROBOTS = b"""\
User-agent: *
Disallow: /private/

User-agent: Googlebot
Disallow: /nogooglebot/
Crawl-delay: 5

Sitemap: http://www.example.com/sitemap.xml
"""


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class Site:
    """Routes by path; every hit counted."""

    def __init__(self) -> None:
        self.routes: dict[str, Answer] = {}
        self.hits: Counter[str] = Counter()
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hits[self.path] += 1
            answer = site.routes.get(self.path, Answer(404, b"not found"))
            if answer.delay:
                time.sleep(answer.delay)
            try:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)
            except OSError:  # the client gave up (timeout test)
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture()
def site() -> Iterator[Site]:
    s = Site()
    with serving(_handler(s)) as s.port:
        yield s


def fetch(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "NO_COLOR"}
    return spawn_cli(["fetch", *args], env)


def fetch_json(*args: str) -> tuple[int, dict[str, Any]]:
    proc = fetch(*args, "--json")
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_rules_with_max_age(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, ROBOTS, {"Cache-Control": "public, max-age=600"})
    proc = fetch(f"{site.base}/nogooglebot/page.html", "-u", "Googlebot")
    assert proc.returncode == 1, proc.stderr  # the URL is disallowed, as 'check' exits
    out = proc.stdout
    assert f"GET  {site.base}/robots.txt  200" in out
    assert "policy     rules: obey the file (HTTP 200)" in out
    assert "fresh for  10 min (from Cache-Control max-age=600)" in out
    assert "disallowed (line 5: Disallow: /nogooglebot/)" in out
    assert "GR207" in out  # the lint report follows, with the crawl-delay finding
    # Only robots.txt went on the network: the URL itself was never downloaded.
    assert site.hits == Counter({"/robots.txt": 1})


def test_rules_json(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, ROBOTS)
    status, data = fetch_json(f"{site.base}/private/x", "--token", "Bingbot")
    assert status == 1  # disallowed
    assert data["origin"] == site.base and data["robots_url"] == f"{site.base}/robots.txt"
    assert data["state"] == "rules" and data["policy"] == "rules" and data["status"] == 200
    assert data["valid_seconds"] == 86_400
    assert [(c["url"], c["status"]) for c in data["chain"]] == [(f"{site.base}/robots.txt", 200)]
    verdict = data["verdict"]
    assert (verdict["allowed"], verdict["line"], verdict["group"]) == (False, 2, "global")
    assert data["sitemaps"] == ["http://www.example.com/sitemap.xml"]
    lint = data["lint"]
    assert isinstance(lint, dict)
    assert {f["code"] for f in lint["findings"]} >= {"GR207", "GR402"}


def test_redirect_is_followed(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(301, headers={"Location": "/real-robots.txt"})
    site.routes["/real-robots.txt"] = Answer(200, ROBOTS)
    status, data = fetch_json(f"{site.base}/")
    assert status == 0
    assert [(c["status"], c["location"]) for c in data["chain"]] == [
        (301, "/real-robots.txt"),
        (200, None),
    ]
    assert data["state"] == "rules"


def test_too_many_redirects_is_no_restrictions(site: Site) -> None:
    for i in range(10):
        site.routes["/robots.txt" if i == 0 else f"/r{i}"] = Answer(
            302, headers={"Location": f"/r{i + 1}"}
        )
    proc = fetch(f"{site.base}/private/")
    assert proc.returncode == 0, proc.stderr
    assert "no restrictions (still redirecting after 5 hops, which counts as a 404)" in (
        proc.stdout
    )
    assert sum(site.hits.values()) == 6  # the first request and five hops, no more
    assert "allowed (no restrictions)" in proc.stdout


def test_404_is_no_restrictions(site: Site) -> None:
    status, data = fetch_json(f"{site.base}/anything")
    assert status == 0
    assert data["state"] == "allow_all" and data["policy"] == "allow_all"
    assert data["lint"] is None
    assert data["verdict"]["allowed"] is True


def test_server_error_stops_and_exits_1(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(503, b"down")
    proc = fetch(f"{site.base}/")
    assert proc.returncode == 1
    assert "stopped: server error (503)" in proc.stdout
    assert "12 h" in proc.stdout and "30 d" in proc.stdout
    assert "not crawled for now" in proc.stdout
    # The middleware's retry is part of "the way the middleware does": two 503s.
    assert site.hits == Counter({"/robots.txt": 2})


def test_429_is_a_server_error(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(429, headers={"Retry-After": "120"})
    status, data = fetch_json(f"{site.base}/")
    assert status == 1
    assert data["state"] == "server_error" and data["policy"] == "stopped"
    assert data["valid_seconds"] == 120  # the retry waits for Retry-After


def test_timeout_is_a_server_error(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, ROBOTS, delay=3)
    started = time.monotonic()
    status, data = fetch_json(f"{site.base}/", "--timeout", "0.5")
    assert time.monotonic() - started < 30
    assert status == 1
    assert data["state"] == "server_error"
    assert "Timeout" in str(data["reason"])
    assert data["chain"][-1]["status"] is None and data["chain"][-1]["error"] == data["reason"]


def test_connection_refused_is_a_server_error() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    status, data = fetch_json(f"http://127.0.0.1:{port}/")
    assert status == 1
    assert data["state"] == "server_error"
    assert data["status"] is None


def test_fail_on_lint_findings(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, b"User-agent: *\nDisalow: /x\n")
    assert fetch(f"{site.base}/").returncode == 0
    proc = fetch(f"{site.base}/", "--fail-on", "warning", "-q")
    assert proc.returncode == 1
    assert "GR201" in proc.stdout and "READ AS" not in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ftp://example.com/"], "only http and https URLs"),
        (["example.com"], "not an absolute URL"),
        (["http://127.0.0.1:1/", "-u", "2.1"], "invalid product token"),
        (["http://127.0.0.1:1/", "-u", ""], "invalid product token"),
        (["http://127.0.0.1:1/", "--timeout", "0"], "--timeout must be between 0.001 and"),
        # Issue 46, item 10: printed "the middleware did not decide" and exited 1.
        (["http://127.0.0.1:1/", "--timeout", "inf"], "--timeout must be between 0.001 and"),
        (["http://127.0.0.1:1/", "--timeout", "1e-9"], "--timeout must be between 0.001 and"),
        (["http://127.0.0.1:1/", "--timeout", "nan"], "--timeout must be between 0.001 and"),
    ],
)
def test_fetch_usage_errors(args: list[str], message: str) -> None:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "NO_COLOR"}
    proc = run_cli(["fetch", *args], env=env, refused=True)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


# ----------------------------------------------------------------------------- exit status


def test_disallowed_url_exits_1_like_check(site: Site, tmp_path: Path) -> None:
    site.routes["/robots.txt"] = Answer(200, ROBOTS)
    robots = tmp_path / "robots.txt"
    robots.write_bytes(ROBOTS)
    for path, status in [("/private/x", 1), ("/public/x", 0)]:
        url = f"{site.base}{path}"
        assert fetch(url, "-u", "Bingbot").returncode == status, path
        check = subprocess.run(
            [*ENTRY, "check", str(robots), "-u", "Bingbot", url], capture_output=True, check=False
        )
        assert check.returncode == status, path


def test_allowed_url_with_lint_findings_at_fail_on_exits_1(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, b"User-agent: *\nDisalow: /x\n")
    assert fetch(f"{site.base}/public", "--fail-on", "warning").returncode == 1
    assert fetch(f"{site.base}/public", "--fail-on", "error").returncode == 0
    # --fail-on never does not hide a disallowed URL.
    assert fetch(f"{site.base}/x", "--fail-on", "never").returncode == 1


def test_user_agent_string_is_reduced_with_a_warning(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, ROBOTS)
    proc = fetch(f"{site.base}/nogooglebot/a", "-u", "Googlebot/2.1", "--json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["tokens"] == ["Googlebot"] and data["verdict"]["line"] == 5
    assert (
        "warning: 'Googlebot/2.1' is not a valid robots.txt product token ([A-Za-z_-]+); "
        "checking as 'Googlebot' instead"
    ) in proc.stderr


def test_raw_unicode_url_is_checked_encoded(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, "User-agent: *\nDisallow: /wiki/Käyttäjä:\n".encode())
    url = f"{site.base}/wiki/Käyttäjä:"
    status, data = fetch_json(url)
    assert status == 1
    verdict = data["verdict"]
    assert isinstance(verdict, dict)
    assert verdict["url"] == url
    assert verdict["checked_url"] == f"{site.base}/wiki/K%C3%A4ytt%C3%A4j%C3%A4:"
    assert (verdict["allowed"], verdict["line"]) == (False, 2)
    assert site.hits == Counter({"/robots.txt": 1})


# ----------------------------------------------------------------------------- token lists


def test_token_lists_as_and_no_global_decide_the_fetched_file(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(
        200, ROBOTS + b"\nUser-agent: Bingbot\nDisallow:\nContent-Signal: ai-train=no\n"
    )
    url = f"{site.base}/nogooglebot/photo.jpg"
    # Googlebot-Image alone falls to *, which allows this path; as Google documents it, it
    # obeys the Googlebot group, which disallows it.
    assert fetch(url, "-u", "Googlebot-Image").returncode == 0
    status, data = fetch_json(url, "--as", "googlebot-image")
    assert status == 1
    assert data["tokens"] == ["Googlebot-Image", "Googlebot"]
    assert (data["verdict"]["line"], data["verdict"]["token"]) == (5, "Googlebot")
    proc = fetch(url, "-u", "Googlebot-Image,Googlebot")
    assert proc.returncode == 1
    assert "disallowed (line 5: Disallow: /nogooglebot/); group: Googlebot" in proc.stdout
    # AdsBot ignores *: /private/ is not disallowed for it.
    status, data = fetch_json(f"{site.base}/private/x", "--as", "adsbot-google")
    assert status == 0 and data["global_group"] is False and data["verdict"]["token"] == ""
    # The usage statement of the group in force is reported beside the verdict.
    status, data = fetch_json(f"{site.base}/x", "-u", "Bingbot")
    assert [p["category"] for p in data["verdict"]["usage"]["preferences"]] == ["ai-train"]
    assert "ai-train=no (12)" in fetch(f"{site.base}/x", "-u", "Bingbot").stdout


def test_fetch_checks_the_url_as_written_like_check(site: Site) -> None:
    """Issue 17, item 11: ``/?`` is what Googlebot requests, so ``Disallow: /*?`` forbids it."""
    site.routes["/robots.txt"] = Answer(200, b"User-agent: *\nDisallow: /*?\n")
    code, data = fetch_json(f"{site.base}/?")
    assert code == 1
    assert data["verdict"]["checked_url"] == f"{site.base}/?"
    assert (data["verdict"]["allowed"], data["verdict"]["line"]) == (False, 2)
    code, data = fetch_json(f"{site.base}/")
    assert code == 0 and data["verdict"]["allowed"] is True


AI_ROBOTS = (
    b"License: https://e.com/license.xml\n"
    b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
)


def test_fetch_lists_licenses_and_agents_fetches_as_fetch_does(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, AI_ROBOTS)
    status, data = fetch_json(f"{site.base}/page", "-u", "bot")
    assert status == 0 and data["licenses"] == ["https://e.com/license.xml"]
    assert "licenses" in fetch(f"{site.base}/page", "-u", "bot").stdout
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    proc = subprocess.run(
        [*ENTRY, "agents", f"{site.base}/any", "--json", "--disallowed-only"],
        capture_output=True, env=env, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    rows = json.loads(proc.stdout)
    assert [(r["token"], r["group_line"], r["line"]) for r in rows] == [("GPTBot", 2, 3)]
    assert site.hits["/robots.txt"] == 3  # one fetch per command; /any never downloaded
    assert site.hits["/any"] == 0


def test_agents_says_when_robots_txt_is_not_decided(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(503, b"down")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    proc = subprocess.run(
        [*ENTRY, "agents", f"{site.base}/"], capture_output=True, env=env, timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "not crawled for now" in proc.stderr.decode()
