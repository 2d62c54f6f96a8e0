"""The audit report written by real crawls against the real HTTP server on 127.0.0.1.

Both files (``GBOT_ROBOTS_REPORT`` = a .json and a .html path) are read back and their
numbers checked against the crawl's own stats and against the server's log: what the report
calls allowed is what the server served, and what it calls forbidden never reached it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from _cli import run_cli
from _httpserver import Server, crawl, make_spider, make_timeline_spider

from scrapy_gbot_robots.report.labels import SCHEMA

pytestmark = pytest.mark.crawl

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

#: Two rules forbid requests (three by the first, one by the second), one through a typo.
RULES_TXT = b"""\
User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Disalow: /tmp/
Crawl-delay: 5
"""
MOVED_TXT = b"User-agent: *\nDisallow: /no\n"
GZ_TXT = b"User-agent: *\nDisallow: /secret\n" + b"# padding\n" * 50

PAGES = {
    "rules.test": [
        "/a",
        "/b",
        "/private/1",
        "/private/2",
        "/private/3",
        "/doc.pdf",
        "/doc.pdf?x=1",
        "/tmp/t",
    ],
    "twin.test": ["/a", "/private/9"],  # the same file as rules.test: linted once
    "gone.test": ["/x", "/y"],  # robots.txt 404: no restrictions
    "down.test": ["/p", "/q"],  # robots.txt 503: stopped, dropped at the park timeout
    "moved.test": ["/yes", "/no"],  # robots.txt redirects once: a chain of two hops
    "gz.test": ["/open", "/secret"],  # robots.txt gzip-compressed
}
FORBIDDEN = {
    "rules.test": {"/private/1", "/private/2", "/private/3", "/doc.pdf", "/tmp/t"},
    "twin.test": {"/private/9"},
    "moved.test": {"/no"},
    "gz.test": {"/secret"},
}
DROPPED = {"down.test": {"/p", "/q"}}


def _routes(server: Server) -> None:
    server.route("/robots.txt", host="rules.test", body=RULES_TXT)
    server.route("/robots.txt", host="twin.test", body=RULES_TXT)
    server.route("/robots.txt", host="gone.test", status=404, body=b"User-agent: *\nDisallow: /\n")
    server.route("/robots.txt", host="down.test", status=503, body=b"busy")
    server.route(
        "/robots.txt",
        host="moved.test",
        status=301,
        headers={"Location": "/real-robots.txt"},
        body=b"",
    )
    server.route("/real-robots.txt", host="moved.test", body=MOVED_TXT)
    server.route(
        "/robots.txt",
        host="gz.test",
        body=gzip.compress(GZ_TXT),
        headers={"Content-Encoding": "gzip", "Content-Type": "text/plain"},
    )


async def _audit_crawl(server: Server, tmp_path: Path, **settings: Any) -> tuple[Any, Path, Path]:
    _routes(server)
    urls = [server.url(p, host=h) for h, paths in PAGES.items() for p in paths]
    json_path, html_path = tmp_path / "out" / "report.json", tmp_path / "report.html"
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "GBOT_ROBOTS_REPORT": [str(json_path), str(html_path)],
            "GBOT_ROBOTS_PARK_TIMEOUT": 1.0,
            "GBOT_ROBOTS_REPORT_EXAMPLES": 2,
            **settings,
        },
    )
    return crawler, json_path, html_path


def _pages_served(server: Server, host: str) -> list[str]:
    # Policy files are fetched, not pages: robots.txt, and tdmrep.json when AI training is a use.
    policy = ("robots.txt", "/.well-known/tdmrep.json")
    return [p for p in server.paths(host) if not p.endswith(policy)]


@pytest_twisted.ensureDeferred
async def test_json_report_matches_the_stats_and_the_server_log(
    server: Server, tmp_path: Path
) -> None:
    crawler, json_path, _ = await _audit_crawl(server, tmp_path)
    data = json.loads(json_path.read_text("utf-8"))
    stats = crawler.stats.get_stats()
    assert data["schema"] == SCHEMA
    assert ISO_UTC.match(data["generated_at"])
    assert data["crawl"]["spider"] == "list" and data["crawl"]["tokens"] == ["TestBot"]
    assert data["crawl"]["finish_reason"] == "finished"
    assert data["crawl"]["stats"]["robotstxt/forbidden"] == stats["robotstxt/forbidden"]

    totals = data["totals"]
    assert totals["forbidden"] == stats["robotstxt/forbidden"] == 8
    assert totals["parked"] == stats["robotstxt/parked"]
    assert totals["dropped"] == stats["robotstxt/dropped"] == 2
    assert totals["origins"] == len(PAGES)
    assert totals["fetches"] == sum(
        stats.get(f"robotstxt/origin_state/{k}", 0) for k in ("rules", "allow_all", "server_error")
    )
    by_state = data["origins_by_state"]
    for kind in ("rules", "allow_all", "server_error"):
        assert by_state[kind] == stats.get(f"robotstxt/origin_state/{kind}", 0), kind
    assert by_state == {"rules": 4, "allow_all": 1, "server_error": 1, "unknown": 0}
    assert data["folded"]["origins"] == 0 and data["folded"]["rules"] == 0

    # Per origin: allowed = pages the server served; forbidden and dropped never reached it.
    origins = {o["origin"]: o for o in data["origins"]}
    served_total = 0
    for host, paths in PAGES.items():
        o = origins[server.origin(host)]
        served = _pages_served(server, host)
        served_total += len(served)
        assert o["requests"]["allowed"] == len(served), host
        assert sorted(served) == sorted(
            set(paths) - FORBIDDEN.get(host, set()) - DROPPED.get(host, set())
        ), host
        assert o["requests"]["forbidden"] == len(FORBIDDEN.get(host, ())), host
        assert o["requests"]["dropped"] == len(DROPPED.get(host, ())), host
        assert o["requests"]["parked"] >= 1, host  # every first request waited for robots.txt
    assert totals["allowed"] == served_total
    assert totals["checked"] == served_total + totals["forbidden"]

    rules = origins[server.origin("rules.test")]
    assert rules["state"] == "rules" and rules["reason"] == "200" and rules["status"] == 200
    assert rules["robots_url"] == server.url("/robots.txt", host="rules.test")
    assert rules["chain"] == [{"url": rules["robots_url"], "status": 200, "error": None}]
    assert rules["bytes"] == len(RULES_TXT) and rules["truncated"] is False
    assert ISO_UTC.match(rules["fetched_at"]) and ISO_UTC.match(rules["refresh_at"])
    assert rules["refresh_at"] > rules["fetched_at"] and rules["valid_seconds"] == 86400
    lint = rules["lint"]
    assert lint["counts"] == {"error": 0, "warning": 1, "info": 1}
    assert [(f["code"], f["lines"]) for f in lint["findings"]] == [("GR201", [4]), ("GR207", [5])]
    twin = origins[server.origin("twin.test")]
    assert twin["sha256"] == rules["sha256"] and twin["lint"] == lint

    moved = origins[server.origin("moved.test")]
    assert [(h["url"], h["status"]) for h in moved["chain"]] == [
        (server.url("/robots.txt", host="moved.test"), 301),
        (server.url("/real-robots.txt", host="moved.test"), 200),
    ]
    assert moved["state"] == "rules" and moved["bytes"] == len(MOVED_TXT)
    gz = origins[server.origin("gz.test")]
    assert gz["state"] == "rules" and gz["bytes"] == len(GZ_TXT)  # decoded content
    gone = origins[server.origin("gone.test")]
    assert (gone["state"], gone["reason"], gone["lint"], gone["bytes"]) == (
        "allow_all",
        "404",
        None,
        None,
    )
    down = origins[server.origin("down.test")]
    assert (down["state"], down["reason"], down["status"]) == ("server_error", "503", 503)
    assert down["server_errors"] == 1 and down["drop_reasons"] == {"deadline": 2}
    assert down["chain"] == [{"url": down["robots_url"], "status": 503, "error": None}]
    # The most held-back origin comes first.
    assert data["origins"][0]["origin"] == server.origin("rules.test")

    # Rules: ranked by requests forbidden; examples bounded by GBOT_ROBOTS_REPORT_EXAMPLES.
    ranked = [(r["origin"], r["line"], r["rule"], r["forbidden"]) for r in data["rules"]]
    assert ranked[0] == (server.origin("rules.test"), 2, "Disallow: /private/", 3)
    assert sorted(ranked[1:]) == sorted(
        [
            (server.origin("gz.test"), 2, "Disallow: /secret", 1),
            (server.origin("moved.test"), 2, "Disallow: /no", 1),
            (server.origin("rules.test"), 3, "Disallow: /*.pdf$", 1),
            (server.origin("rules.test"), 4, "Disalow: /tmp/", 1),
            (server.origin("twin.test"), 2, "Disallow: /private/", 1),
        ]
    )
    assert [r["rank"] for r in data["rules"]] == list(range(1, 7))
    assert sum(r["forbidden"] for r in data["rules"]) == totals["forbidden"]
    top = data["rules"][0]
    assert top["group"] == "global" and top["pattern"] == "/private/"
    assert len(top["examples"]) == 2
    assert set(top["examples"]) <= {
        server.url(p, host="rules.test") for p in FORBIDDEN["rules.test"]
    }
    assert totals["rules"] == 6


class _Page(HTMLParser):
    """Collects the text and the tags of a page, and fails on anything that loads or runs."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in ("meta", "br", "wbr", "rect", "link", "img", "input"):
            self.open.append(tag)
        for name, value in attrs:
            assert name != "src", (tag, attrs)
            assert not (name == "href" and value and not value.startswith("#")), (tag, attrs)
            assert not name.startswith("on"), (tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest_twisted.ensureDeferred
async def test_html_report_is_self_contained_and_shows_the_numbers(
    server: Server, tmp_path: Path
) -> None:
    _, json_path, html_path = await _audit_crawl(server, tmp_path)
    data = json.loads(json_path.read_text("utf-8"))
    page_source = html_path.read_text("utf-8")
    page = _Page()
    page.feed(page_source)
    page.close()
    assert page.open == []  # every element closed, in order
    assert "script" not in page.tags and "<script" not in page_source.lower()
    assert "svg" in page.tags and "style" in page.tags
    text = " ".join(" ".join(page.text).split())
    for label, value in [
        ("allowed", data["totals"]["allowed"]),
        ("forbidden", data["totals"]["forbidden"]),
        ("dropped", data["totals"]["dropped"]),
        ("origins", data["totals"]["origins"]),
    ]:
        assert f"{value:,} {label}" in text, label
    assert "Disallow: /private/" in text and "Disalow: /tmp/" in text
    for o in data["origins"]:
        assert o["origin"] in text
    assert "server error" in text and "no restrictions" in text
    # The top rule's row, in rank order: rank, count, rule text.
    assert re.search(r"1 3 Disallow: /private/ " + re.escape(server.origin("rules.test")), text)
    assert os.stat(html_path).st_mode & 0o044 == 0o044  # readable by others, as a report is


@pytest_twisted.ensureDeferred
async def test_report_command_summarises_a_real_crawl(server: Server, tmp_path: Path) -> None:
    crawler, json_path, _ = await _audit_crawl(server, tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = run_cli(["report", str(json_path)], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout  # not a terminal: no colour
    out = proc.stdout
    stats = crawler.stats.get_stats()
    assert f"{stats['robotstxt/forbidden']} forbidden" in out
    assert f"{stats['robotstxt/dropped']} dropped" in out
    assert "4 rules, 1 no restrictions, 1 server error" in out
    first_rule = next(line for line in out.splitlines() if "Disallow: /private/" in line)
    assert first_rule.split()[:2] == ["1", "3"]  # rank 1, 3 requests
    proc = run_cli(["report", str(json_path), "--json", "--top", "1"], env=env)
    assert proc.returncode == 0, proc.stderr
    again = json.loads(proc.stdout)
    original = json.loads(json_path.read_text("utf-8"))
    assert again["totals"] == original["totals"] and again["schema"] == SCHEMA
    assert again["rules"] == original["rules"][:1] and again["origins"] == original["origins"][:1]


@pytest_twisted.ensureDeferred
async def test_a_crawl_stopped_early_still_writes_the_report(
    server: Server, tmp_path: Path
) -> None:
    """Ctrl-C (a shutdown) closes the spider: the report says what was parked and dropped.

    One robots.txt download at a time: fast.test is decided, hang.test's download is in
    flight (it times out while the engine closes) and queued.test never got its turn.
    """
    server.route("/robots.txt", host="fast.test", body=b"User-agent: *\nDisallow: /x\n")
    server.route("/robots.txt", host="hang.test", hang=True)
    server.route("/robots.txt", host="queued.test", body=b"")
    urls = [server.url("/ok", host="fast.test"), server.url("/x", host="fast.test")]
    urls += [server.url("/a", host="hang.test"), server.url("/b", host="hang.test")]
    urls += [server.url("/c", host="queued.test")]

    def stop(spider: Any) -> None:
        from scrapy_gbot_robots._compat import close_spider

        close_spider(spider.crawler.engine, spider, "shutdown")

    report = tmp_path / "r.json"
    crawler = await crawl(
        make_timeline_spider([(0.5, stop)], urls=urls),
        {
            "GBOT_ROBOTS_REPORT": str(report),
            "GBOT_ROBOTS_CONCURRENT_FETCHES": 1,
            "GBOT_ROBOTS_DOWNLOAD_TIMEOUT": 1.5,
        },
    )
    data = json.loads(report.read_text("utf-8"))
    stats = crawler.stats.get_stats()
    assert data["crawl"]["finish_reason"] == "shutdown"
    assert data["totals"]["dropped"] == stats["robotstxt/dropped"] == 3
    assert data["totals"]["forbidden"] == stats["robotstxt/forbidden"] == 1
    origins = {o["origin"]: o for o in data["origins"]}
    fast = origins[server.origin("fast.test")]
    assert fast["state"] == "rules"
    assert fast["requests"]["allowed"] == len(_pages_served(server, "fast.test")) == 1
    hang = origins[server.origin("hang.test")]
    timeout = hang["reason"]  # the exception's name: DownloadTimeoutError, or TimeoutError
    assert hang["state"] == "server_error" and timeout.endswith("TimeoutError")
    assert hang["chain"] == [{"url": hang["robots_url"], "status": None, "error": timeout}]
    assert hang["drop_reasons"] == {"spider closed (shutdown)": 2}
    queued = origins[server.origin("queued.test")]
    assert queued["state"] == "unknown" and queued["fetched_at"] is None
    assert queued["requests"] == {"allowed": 0, "forbidden": 0, "parked": 1, "dropped": 1}
    assert data["origins_by_state"] == {"rules": 1, "allow_all": 0, "server_error": 1, "unknown": 1}
    assert server.count("/robots.txt", host="queued.test") == 0


# ----------------------------------------------------------------------------- issue 18

OBSERVE_PAGES = {
    "rules.test": ["/a", "/private/1", "/private/2", "/private/3"],
    "usage.test": ["/x", "/train/1"],  # /train/ refuses ai-train: a usage line would forbid
    "down.test": ["/p", "/q"],  # robots.txt 503: Googlebot would not crawl it now
}
USAGE_TXT = b"User-agent: *\nDisallow: /never/\nContent-Usage: /train/ train-ai=n\n"


@pytest_twisted.ensureDeferred
async def test_an_observe_crawl_says_so_and_ranks_what_would_have_been_forbidden(
    server: Server, tmp_path: Path
) -> None:
    server.route("/robots.txt", host="rules.test", body=b"User-agent: *\nDisallow: /private/\n")
    server.route("/robots.txt", host="usage.test", body=USAGE_TXT)
    server.route("/robots.txt", host="down.test", status=503, body=b"busy")
    urls = [server.url(p, host=h) for h, paths in OBSERVE_PAGES.items() for p in paths]
    json_path, html_path = tmp_path / "report.json", tmp_path / "report.html"
    crawler = await crawl(
        make_spider(urls=urls),
        {
            "GBOT_ROBOTS_MODE": "observe",
            "GBOT_ROBOTS_USAGE": ["ai-train"],
            "GBOT_ROBOTS_REPORT": [str(json_path), str(html_path)],
        },
    )
    stats = crawler.stats.get_stats()
    # Everything was crawled: the report's counts are what Googlebot would have done.
    for host, paths in OBSERVE_PAGES.items():
        assert sorted(_pages_served(server, host)) == sorted(paths), host
    assert "robotstxt/forbidden" not in stats and "robotstxt/dropped" not in stats
    data = json.loads(json_path.read_text("utf-8"))
    assert data["crawl"]["mode"] == "observe" and data["crawl"]["uses"] == ["ai-train"]
    totals = data["totals"]
    assert totals["forbidden"] == stats["robotstxt/would_forbid"] == 4
    assert totals["would_stop"] == stats["robotstxt/would_stop"] == 2
    assert totals["allowed"] == 2  # /a and /x
    assert totals["checked"] == 8 == totals["allowed"] + totals["forbidden"] + totals["would_stop"]
    top, usage = data["rules"]
    assert (top["origin"], top["line"], top["rule"], top["forbidden"]) == (
        server.origin("rules.test"),
        2,
        "Disallow: /private/",
        3,
    )
    assert (top["token"], top["by"], top["group"]) == ("*", "rules", "global")
    assert (usage["origin"], usage["line"], usage["rule"], usage["forbidden"], usage["by"]) == (
        server.origin("usage.test"),
        3,
        "Content-Usage: /train/ train-ai=n",
        1,
        "usage",
    )
    assert usage["examples"] == [server.url("/train/1", host="usage.test")]
    origins = {o["origin"]: o for o in data["origins"]}
    down = origins[server.origin("down.test")]
    assert down["state"] == "server_error"
    assert (down["requests"]["allowed"], down["requests"]["would_stop"]) == (0, 2)
    assert origins[server.origin("rules.test")]["requests"]["forbidden"] == 3
    # The usage line is listed with its path, for the crawl's token (the * group).
    site = origins[server.origin("usage.test")]["usage"]
    assert site["group"] == "*" and [
        (p["category"], p["value"], p["line"], p["path"]) for p in site["preferences"]
    ] == [("train-ai", "n", 3, "/train/")]

    page_source = html_path.read_text("utf-8")
    page = _Page()
    page.feed(page_source)
    page.close()
    text = " ".join(" ".join(page.text).split())
    assert text.index("Observe mode") < text.index("Summary")
    assert "4 would have been forbidden" in text and "2 would be stopped" in text
    assert "The rules that would have blocked the most requests" in text
    assert re.search(r"1 3 Disallow: /private/ " + re.escape(server.origin("rules.test")), text)

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = run_cli(["report", str(json_path)], env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("OBSERVE MODE")
    assert "2 allowed, 4 would be forbidden, 2 would be stopped" in proc.stdout
    first_rule = next(line for line in lines if "Disallow: /private/" in line)
    assert first_rule.split()[:2] == ["1", "3"]


@pytest_twisted.ensureDeferred
async def test_the_report_shows_crawl_delay_and_the_token_whose_group_decided(
    server: Server, tmp_path: Path
) -> None:
    """Googlebot-Image obeys the Googlebot group (its own, with Crawl-delay 3600, capped);
    another origin's * group asks 0.2 s, applied; a third asks none."""
    server.route(
        "/robots.txt",
        host="slow.test",
        body=(
            b"User-agent: *\nDisallow: /\n\n"
            b"User-agent: Googlebot\nDisallow: /private/\nCrawl-delay: 3600\n"
            b"Content-Signal: search=yes, ai-train=no\n"
        ),
    )
    server.route("/robots.txt", host="polite.test", body=b"User-agent: *\nCrawl-delay: 0.2\n")
    server.route("/robots.txt", host="plain.test", body=b"User-agent: *\nDisallow:\n")
    pages = {"slow.test": ["/a", "/private/1"], "polite.test": ["/a", "/b"], "plain.test": ["/a"]}
    urls = [server.url(p, host=h) for h, paths in pages.items() for p in paths]
    json_path, html_path = tmp_path / "report.json", tmp_path / "report.html"
    await crawl(
        make_spider(urls=urls),
        {
            "ROBOTSTXT_USER_AGENT": ["Googlebot-Image", "Googlebot"],
            "GBOT_ROBOTS_CRAWL_DELAY": True,
            "GBOT_ROBOTS_CRAWL_DELAY_MAX": 0.5,
            "GBOT_ROBOTS_REPORT": [str(json_path), str(html_path)],
        },
    )
    data = json.loads(json_path.read_text("utf-8"))
    assert data["crawl"]["tokens"] == ["Googlebot-Image", "Googlebot"]
    origins = {o["origin"]: o for o in data["origins"]}
    slow, polite = origins[server.origin("slow.test")], origins[server.origin("polite.test")]
    assert slow["crawl_delay"] == {"asked": 3600.0, "applied": 0.5}
    assert polite["crawl_delay"] == {"asked": 0.2, "applied": 0.2}
    assert origins[server.origin("plain.test")]["crawl_delay"] is None
    (rule,) = data["rules"]
    assert (rule["rule"], rule["line"], rule["group"], rule["token"]) == (
        "Disallow: /private/",
        5,
        "agent",
        "Googlebot",  # Googlebot-Image has no group: the next token's group decided
    )
    assert slow["usage"]["group"] == "Googlebot"
    assert [p["text"] for p in slow["usage"]["preferences"]] == [
        "Content-Signal: search=yes, ai-train=no"
    ] * 2  # one line, two preferences

    text = " ".join(" ".join(_text_of(html_path)).split())
    assert "3600 s, capped at 0.5 s" in text and "0.2 s, applied" in text
    assert "Googlebot (own group)" in text
    assert "line 7: Content-Signal: search=yes, ai-train=no" in text
    proc = run_cli(["report", str(json_path), "--color", "never"])
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "CRAWL-DELAY" in out and "3600 s, capped at 0.5 s" in out and "0.2 s, applied" in out
    assert re.search(r"Disallow: /private/\s+5\s+Googlebot\s+" + re.escape(slow["origin"]), out)


def _text_of(path: Path) -> list[str]:
    page = _Page()
    page.feed(path.read_text("utf-8"))
    page.close()
    assert page.open == [] and "script" not in page.tags
    return page.text
