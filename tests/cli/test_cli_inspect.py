"""``gbot-robots inspect`` against a real HTTP server on 127.0.0.1, run as a subprocess.

Each case is one page of a local site; the server (a thread of the test process, see
``_threadserver``) counts every hit and records the User-Agent each request carried, so the
tests can say what went on the network: robots.txt once, the page at most once.
"""

from __future__ import annotations

import json
import os
import re
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
from _hostile import HOSTILE, assert_safe
from _threadserver import serving

pytestmark = pytest.mark.crawl

SCRIPT = Path(sys.executable).parent / "gbot-robots"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]

ROBOTS = b"User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot-Image\nDisallow: /photos/\n"


def html(*metas: tuple[str, str], body: str = "<p>text</p>") -> bytes:
    tags = "".join(f'<meta name="{n}" content="{c}">' for n, c in metas)
    page = f"<!DOCTYPE html><html><head><title>t</title>{tags}</head><body>{body}</body></html>"
    return page.encode()


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    delay: float = 0.0


class Site:
    def __init__(self) -> None:
        self.routes: dict[str, Answer] = {"/robots.txt": Answer(200, ROBOTS)}
        self.hits: Counter[str] = Counter()
        self.agents: dict[str, str] = {}
        self.port = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hits[self.path] += 1
            site.agents[self.path] = self.headers.get("User-Agent", "")
            answer = site.routes.get(self.path, Answer(404, b"not found"))
            if answer.delay:
                time.sleep(answer.delay)
            try:
                self.send_response(answer.status)
                has_type = any(n.lower() == "content-type" for n, _ in answer.headers)
                if not has_type:
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                for name, value in answer.headers:
                    # Raw UTF-8 on the wire (send_header would insist on Latin-1): a hostile
                    # server's control characters included. http.server buffers its headers
                    # in _headers_buffer until end_headers().
                    line = f"{name}: ".encode() + value.encode("utf-8") + b"\r\n"
                    self._headers_buffer.append(line)  # type: ignore[attr-defined]
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)
            except OSError:
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture()
def site() -> Iterator[Site]:
    s = Site()
    with serving(_handler(s)) as s.port:
        yield s


def inspect(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "NO_COLOR"}
    proc = spawn_cli(["inspect", *args], env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def fact(out: str, label: str, text: str) -> bool:
    """Whether the text output has the line ``label`` then ``text`` (columns aligned)."""
    return re.search(rf"^{re.escape(label)} +{re.escape(text)}", out, re.MULTILINE) is not None


def _labels(out: str) -> list[str]:
    """The label column of the text answer, line by line ("" for a continued fact)."""
    lines = out.splitlines()[1:]
    return [line.split("  ")[0].strip() if not line.startswith(" ") else "" for line in lines]


def inspect_json(*args: str) -> tuple[int, dict[str, Any]]:
    proc = inspect(*args, "--json")
    return proc.returncode, json.loads(proc.stdout)


def test_an_indexable_page_exits_0_and_is_fetched_once_as_the_crawler(site: Site) -> None:
    site.routes["/page"] = Answer(200, html(("description", "x")))
    proc = inspect(site.url("/page"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert fact(out, "robots.txt", f"{site.url('/robots.txt')} 200")
    assert fact(out, "crawling", "allowed (no matching rule); group: *")
    assert fact(
        out, "page fetch", f"successful: GET {site.url('/page')} 200, text/html; charset=utf-8"
    )
    assert fact(out, "page rules", "none for these tokens")
    assert fact(out, "links", "followed")
    assert fact(out, "indexing", "allowed: no rule of the page forbids it")
    labels = ["robots.txt", "crawling", "page fetch", "page rules", "links", "indexing"]
    assert _labels(out) == labels
    assert site.hits == Counter({"/robots.txt": 1, "/page": 1})
    assert site.agents["/page"] == "Googlebot"  # the crawler's token, as its User-Agent


def test_disallowed_by_robots_txt_exits_1_without_fetching_the_page(site: Site) -> None:
    site.routes["/private/p"] = Answer(200, html(("robots", "noindex")))
    proc = inspect(site.url("/private/p"), "--color", "never")
    assert proc.returncode == 1
    out = proc.stdout
    # Crawling and indexing answered apart, in Google's terms: blocked is not "not indexable".
    assert fact(out, "crawling", "blocked by robots.txt (line 2: Disallow: /private/); group: *")
    assert fact(out, "page fetch", "not attempted: blocked by robots.txt")
    assert fact(
        out,
        "indexing",
        "Google may still index the URL without its content if other pages link to it; "
        "a page rule on it cannot be seen",
    )
    assert "not indexable" not in out and "page rules" not in out
    assert site.hits == Counter({"/robots.txt": 1})  # the noindex is never seen
    status, data = inspect_json(site.url("/private/p"))
    assert status == 1 and data["verdict"] == "crawl_disallowed"
    assert data["crawl_allowed"] is False and data["page"] is None and data["rules"] is None
    assert (data["robots"]["verdict"]["line"], data["robots"]["verdict"]["allowed"]) == (2, False)


def test_meta_noindex_exits_1_with_each_rule_and_its_source(site: Site) -> None:
    site.routes["/p"] = Answer(
        200,
        html(("robots", "noindex, max-snippet:50, noarchive"), ("googlebot", "max-snippet:5")),
    )
    proc = inspect(site.url("/p"))
    assert proc.returncode == 1
    out = proc.stdout
    assert fact(out, "indexing", "not allowed: 'noindex' detected in the 'robots' meta tag")
    assert fact(out, "page rules", "noindex (meta:robots)")
    assert "max-snippet: 5 (meta:googlebot)" in out  # the smaller wins, with its source
    assert "noarchive (meta:robots): not a rule Google reads, ignored" in out
    status, data = inspect_json(site.url("/p"))
    assert status == 1 and data["verdict"] == "noindex" and data["indexable"] is False
    assert data["rules"]["sources"] == {
        "noindex": ["meta:robots"],
        "max-snippet": ["meta:googlebot"],
    }


def test_both_header_forms_and_the_token_decide(site: Site) -> None:
    site.routes["/h"] = Answer(
        200,
        html(),
        [("X-Robots-Tag", "googlebot: nofollow"), ("X-Robots-Tag", "otherbot: noindex, nofollow")],
    )
    proc = inspect(site.url("/h"))
    assert proc.returncode == 0  # nofollow does not stop indexing
    assert fact(proc.stdout, "X-Robots-Tag", "googlebot: nofollow")
    assert fact(proc.stdout, "links", "not followed: nofollow (header:googlebot)")
    status, data = inspect_json(site.url("/h"), "-u", "OtherBot")
    assert status == 1 and data["rules"]["sources"] == {
        "noindex": ["header:otherbot"],
        "nofollow": ["header:otherbot"],
    }
    status, data = inspect_json(site.url("/h"), "-u", "ThirdBot")
    assert status == 0 and data["follow"] is True and data["rules"]["sources"] == {}


def test_a_header_for_everyone_and_none(site: Site) -> None:
    site.routes["/n"] = Answer(200, html(), [("X-Robots-Tag", "none")])
    status, data = inspect_json(site.url("/n"))
    assert status == 1 and data["indexable"] is False and data["follow"] is False
    assert data["rules"]["sources"] == {"noindex": ["header"], "nofollow": ["header"]}


def test_unavailable_after_past_and_future(site: Site) -> None:
    site.routes["/old"] = Answer(
        200, html(), [("X-Robots-Tag", "unavailable_after: 25 Jun 2010 15:00:00 PST")]
    )
    site.routes["/new"] = Answer(200, html(("robots", "unavailable_after: 2999-01-01")))
    proc = inspect(site.url("/old"))
    assert proc.returncode == 1
    assert "unavailable_after: 2010-06-25T23:00:00Z (passed: noindex now) (header)" in proc.stdout
    assert fact(
        proc.stdout,
        "indexing",
        "not allowed: 'unavailable_after: 2010-06-25T23:00:00Z' passed (the X-Robots-Tag http "
        "header)",
    )
    status, data = inspect_json(site.url("/new"))
    assert status == 0 and data["rules"]["unavailable_after"] == "2999-01-01T00:00:00Z"


def test_a_crawler_with_several_tokens_reads_each(site: Site) -> None:
    site.routes["/img"] = Answer(
        200, html(("googlebot", "noindex"), ("googlebot-image", "nofollow"))
    )
    status, data = inspect_json(site.url("/img"), "--as", "googlebot-image")
    assert status == 1
    assert data["tokens"] == ["Googlebot-Image", "Googlebot"]
    assert data["rules"]["sources"] == {
        "noindex": ["meta:googlebot"],
        "nofollow": ["meta:googlebot-image"],
    }
    # robots.txt decides with the same tokens: Googlebot-Image's own group.
    status, data = inspect_json(site.url("/photos/a.jpg"), "--as", "googlebot-image")
    assert status == 1 and data["verdict"] == "crawl_disallowed"


def test_a_non_html_page_has_only_its_header(site: Site) -> None:
    pdf = b"%PDF-1.4\n<head><meta name=robots content=noindex></head>"
    site.routes["/doc.pdf"] = Answer(200, pdf, [("Content-Type", "application/pdf")])
    status, data = inspect_json(site.url("/doc.pdf"))
    assert status == 0 and data["page"]["html"] is False and data["rules"]["sources"] == {}
    site.routes["/no.pdf"] = Answer(
        200, pdf, [("Content-Type", "application/pdf"), ("X-Robots-Tag", "noindex")]
    )
    proc = inspect(site.url("/no.pdf"))
    assert proc.returncode == 1 and "(not HTML: only X-Robots-Tag applies)" in proc.stdout


def test_rel_nofollow_links_are_reported_as_hints(site: Site) -> None:
    links = (
        '<a href="/a" rel="nofollow">a</a><a href="/b" rel="UGC sponsored">b</a><a href="/c">c</a>'
    )
    site.routes["/l"] = Answer(200, html(body=links))
    proc = inspect(site.url("/l"))
    assert proc.returncode == 0
    assert "followed; 2 of 3 links carry rel=nofollow, ugc or sponsored (hints" in proc.stdout
    _, data = inspect_json(site.url("/l"))
    assert data["link_hints"] == {
        "links": 3,
        "nofollow": 1,
        "ugc": 1,
        "sponsored": 1,
        "hinted": 2,
        "complete": True,
    }


# ----------------------------------------------------------------------------- failures


def test_a_404_is_not_indexable_and_nothing_says_otherwise(site: Site) -> None:
    site.routes["/gone"] = Answer(404, html(), [("X-Robots-Tag", "nofollow")])
    proc = inspect(site.url("/gone"))
    assert proc.returncode == 3
    out = proc.stdout
    assert fact(out, "page fetch", f"failed: not found (404): GET {site.url('/gone')} 404")
    assert fact(out, "page rules", "read, but Google reads no rule of a page that does not")
    assert "  nofollow (header)" in out  # shown, as not applied
    assert fact(
        out, "indexing", "not allowed: not found (404); Google indexes only pages that answer 2xx"
    )
    # Nothing before the answer says the page may be indexed or its links followed.
    assert _labels(out) == [
        "robots.txt", "crawling", "page fetch", "X-Robots-Tag", "page rules", "", "indexing"
    ]
    assert "allowed: no rule" not in out and "followed" not in out
    status, data = inspect_json(site.url("/gone"))
    assert status == 3 and data["verdict"] == "not_2xx" and data["page"]["status"] == 404
    assert data["indexable"] is False and data["follow"] is None
    assert data["rules"]["nofollow"] is True  # read anyway
    site.routes["/gone-noindex"] = Answer(404, html(("robots", "noindex")))
    proc = inspect(site.url("/gone-noindex"))
    assert proc.returncode == 1  # a rule forbids: 1 wins over 3
    assert fact(
        proc.stdout,
        "indexing",
        "not allowed: not found (404); Google indexes only pages that answer 2xx; 'noindex' "
        "detected in the 'robots' meta tag too",
    )
    status, data = inspect_json(site.url("/gone-noindex"))
    assert status == 1 and data["verdict"] == "noindex" and data["indexable"] is False


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "blocked due to unauthorized request (401)"),
        (403, "blocked due to access forbidden (403)"),
        (410, "blocked due to other 4xx issue (410)"),
        (503, "server error (503)"),
    ],
)
def test_a_page_that_is_not_2xx_is_said_in_search_consoles_words(
    site: Site, status: int, words: str
) -> None:
    site.routes["/x"] = Answer(status, html())
    proc = inspect(site.url("/x"))
    assert proc.returncode == 3
    assert fact(proc.stdout, "page fetch", f"failed: {words}: GET {site.url('/x')} {status}")
    assert fact(proc.stdout, "indexing", f"not allowed: {words}; Google indexes only pages")


def test_a_redirect_is_reported_not_followed(site: Site) -> None:
    site.routes["/old"] = Answer(301, b"", [("Location", "/new")])
    site.routes["/new"] = Answer(200, html())
    proc = inspect(site.url("/old"))
    assert proc.returncode == 3
    assert fact(proc.stdout, "page fetch", f"redirect: GET {site.url('/old')} 301 -> /new (not")
    assert fact(proc.stdout, "indexing", "not this URL: it redirects (301 to /new); Google")
    assert "links" not in proc.stdout
    assert site.hits["/new"] == 0


def test_a_page_that_times_out_exits_3(site: Site) -> None:
    site.routes["/slow"] = Answer(200, html(), delay=3)
    status, data = inspect_json(site.url("/slow"), "--timeout", "0.5")
    assert status == 3 and data["verdict"] == "fetch_failed"
    assert data["page"]["status"] is None and "Timeout" in data["page"]["error"]
    assert data["rules"] is None and data["indexable"] is None


def test_robots_txt_server_error_exits_1_without_fetching_the_page(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(503, b"down")
    site.routes["/p"] = Answer(200, html())
    proc = inspect(site.url("/p"))
    assert proc.returncode == 1
    assert fact(proc.stdout, "crawling", "not now: robots.txt unreachable (server error: 503)")
    assert fact(proc.stdout, "page fetch", "not attempted: robots.txt unreachable")
    assert fact(proc.stdout, "indexing", "unknown: the page cannot be fetched now")
    assert site.hits["/p"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ftp://example.com/"], "only http and https URLs"),
        (["example.com"], "not an absolute URL"),
        (["http://127.0.0.1:1/", "-u", "2.1"], "invalid product token"),
        (["http://127.0.0.1:1/", "--as", "nobot"], "unknown crawler"),
        (["http://127.0.0.1:1/", "--timeout", "-1"], "--timeout must be between 0.001 and"),
        # Issue 46, item 10: printed "the middleware did not decide" and exited 1.
        (["http://127.0.0.1:1/", "--timeout", "inf"], "--timeout must be between 0.001 and"),
        (["http://127.0.0.1:1/", "--timeout", "1e-9"], "--timeout must be between 0.001 and"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "NO_COLOR"}
    proc = run_cli(["inspect", *args], env=env, refused=True)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2 and message in proc.stderr
    assert "did not decide" not in proc.stdout + proc.stderr


# ----------------------------------------------------------------------------- hostile server


def test_a_hostile_server_cannot_drive_the_terminal(site: Site) -> None:
    site.routes["/robots.txt"] = Answer(200, b"User-agent: *\nDisallow: /x" + HOSTILE.encode())
    meta = html(("robots", f"noindex, {HOSTILE}"), ("googlebot", f"max-snippet: 3{HOSTILE}"))
    site.routes["/evil"] = Answer(
        200,
        meta,
        [
            ("X-Robots-Tag", f"nofollow, {HOSTILE}"),
            ("X-Robots-Tag", f"googlebot{HOSTILE}: noindex"),
            ("Location", f"/next{HOSTILE}"),
        ],
    )
    proc = inspect(site.url("/evil"), "--color", "always")
    assert proc.returncode == 1
    assert_safe(_strip_our_colour(proc.stdout))
    assert_safe(proc.stderr)
    assert "\\x1b]0;pwned\\x07" in proc.stdout  # shown, escaped
    assert "\\u202eevil\\u202c" in proc.stdout
    status, data = inspect_json(site.url("/evil"))
    assert status == 1
    # JSON keeps what the server sent, as received (json escapes the controls itself); header
    # bytes are read as Latin-1, one character per byte.
    wire = HOSTILE.encode("utf-8").decode("latin-1")
    assert any(wire in text for text in data["page"]["x_robots_tag"])
    assert data["page"]["location"] == f"/next{wire}"
    other = [item["rule"] for item in data["rules"]["other"]]
    assert HOSTILE in other and "max-snippet: 3" + HOSTILE in other


def _strip_our_colour(text: str) -> str:
    """The output without the SGR sequences our own ``--color always`` writes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_other_crawlers_header_lines_push_out_no_rule_and_a_bound_is_said(site: Site) -> None:
    """Issue 46, item 3: 40 ``X-Robots-Tag: otherbot-XX:`` lines, then ``noindex``: 0.2.0's
    inspect printed that line, then said the page may be indexed, exit 0."""
    others = [("X-Robots-Tag", f"otherbot-{_letters(n)}: noindex") for n in range(40)]
    site.routes["/page"] = Answer(200, html(), [*others, ("X-Robots-Tag", "noindex")])
    proc = inspect(site.url("/page"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "noindex (header)" in proc.stdout
    assert fact(proc.stdout, "indexing", "not allowed: 'noindex' detected in the X-Robots-Tag")
    assert "read in part" not in proc.stdout
    # 40 lines for every crawler: past the 32nd, the answer may miss a rule, and says so.
    ours = [("X-Robots-Tag", "max-snippet: 20")] * 40
    site.routes["/many"] = Answer(200, html(), [*ours, ("X-Robots-Tag", "noindex")])
    proc = inspect(site.url("/many"))
    assert "warning: read in part, past a bound (headers)" in proc.stdout
    code, data = inspect_json(site.url("/many"))
    assert code == 0  # the noindex past the bound was not read, and the warning says so
    assert data["rules"]["capped"] == ["headers"]


def _letters(n: int) -> str:
    """``n`` as letters (aa, ab...): a user agent in a header is a product token, no digit."""
    return chr(97 + n // 26) + chr(97 + n % 26)
