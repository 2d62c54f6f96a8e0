"""Crawl throughput: pages per second with the add-on against ``ROBOTSTXT_OBEY = False``.

Why this shape: the cost that matters to users is end-to-end (parking the first requests
of each origin, fetching robots.txt through the engine, the per-request check), so we crawl
a real local site rather than time a function. About 50 origins x 200 pages are served by a
separate process (so serving does not share the crawler's CPU), each origin on its own
loopback address (127.0.0.2, 127.0.0.3, ...) so that each gets its own Scrapy download slot,
as real hosts would. Each crawl runs in a fresh subprocess (a fresh reactor); modes alternate
across rounds so drift on a shared machine hits both. Target: ratio >= 0.95 in pages/s.
Pages per CPU second of the crawling process is printed too: on a busy machine it is the
steadier of the two, since wall time there also measures the neighbours.

    .venv/bin/python benchmarks/bench_crawl.py [--origins 50] [--pages 200] [--rounds 3]
                                               [--modes off,addon,builtin]
    .venv/bin/python benchmarks/bench_crawl.py --modes addon,read,obey   # page rules' cost
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from _common import (  # benchmarks/ is sys.path[0] when run as a script
    alternating_rounds,
    http_response,
)

#: Realistic rules that match none of the benchmark's pages, so every mode crawls the same set.
ROBOTS_TXT = """\
# robots.txt of a benchmark origin
User-agent: *
Disallow: /admin/
Allow: /admin/public/
Disallow: /cart
Disallow: /checkout/
Disallow: /*?sessionid=
Disallow: /*.pdf$
Disallow: /search
Allow: /search/about
Disallow: /tmp/
Disallow: /private/
Allow: /private/index.html

User-agent: Googlebot-Image
Disallow: /

Sitemap: http://example.com/sitemap.xml
"""

MODES: dict[str, dict[str, Any]] = {
    "off": {"ROBOTSTXT_OBEY": False},
    "addon": {"ROBOTSTXT_OBEY": True, "ADDONS": {"scrapy_gbot_robots.Addon": 0}},
    "builtin": {"ROBOTSTXT_OBEY": True},
    # GBOT_ROBOTS_PAGE_RULES (robots meta tags, X-Robots-Tag): --modes addon,read,obey gives
    # the cost of reading (and obeying) against the add-on without it, in the same run.
    "read": {
        "ROBOTSTXT_OBEY": True,
        "ADDONS": {"scrapy_gbot_robots.Addon": 0},
        "GBOT_ROBOTS_PAGE_RULES": "read",
    },
    "obey": {
        "ROBOTSTXT_OBEY": True,
        "ADDONS": {"scrapy_gbot_robots.Addon": 0},
        "GBOT_ROBOTS_PAGE_RULES": "obey",
    },
}

CRAWL_SETTINGS: dict[str, Any] = {
    "USER_AGENT": "BenchBot/1.0 (+http://127.0.0.1/)",
    "CONCURRENT_REQUESTS": 32,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "DOWNLOAD_DELAY": 0,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
}


# --------------------------------------------------------------------------- server process


def _site(pages: int) -> dict[bytes, bytes]:
    """Every response of one origin, prebuilt: serving must cost next to nothing."""
    filler = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 25 + "</p>"
    links = "".join(f'<li><a href="/p/{i}.html">page {i}</a></li>' for i in range(1, pages))
    html = b"text/html; charset=utf-8"
    site = {
        b"/robots.txt": http_response(b"200 OK", ROBOTS_TXT.encode(), b"text/plain"),
        b"/": http_response(
            b"200 OK", f"<html><body><ul>{links}</ul></body></html>".encode(), html
        ),
    }
    for i in range(1, pages):
        body = f"<html><head><title>page {i}</title></head><body>{filler}</body></html>"
        site[f"/p/{i}.html".encode()] = http_response(b"200 OK", body.encode(), html)
    return site


class _Http(asyncio.Protocol):
    """Just enough HTTP/1.1 for Scrapy's keep-alive GETs: find each head, write the answer."""

    not_found = http_response(b"404 Not Found", b"not found", b"text/plain")

    def __init__(self, site: dict[bytes, bytes]) -> None:
        self.site = site
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
            path = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b""
            self.transport.write(self.site.get(path, self.not_found))


async def _serve(origins: int, pages: int) -> None:
    loop = asyncio.get_running_loop()
    site = _site(pages)
    servers = []
    for i in range(origins):
        try:
            server = await loop.create_server(lambda: _Http(site), f"127.0.0.{2 + i}", 0)
        except OSError:  # no 127/8 beyond 127.0.0.1 (macOS): ports only, one download slot
            server = await loop.create_server(lambda: _Http(site), "127.0.0.1", 0)
        servers.append(server)
    urls = [
        "http://{}:{}".format(*s.sockets[0].getsockname()[:2]) for s in servers
    ]  # fmt: skip
    print(json.dumps(urls), flush=True)
    # Serve until the parent closes our stdin (or dies): no orphan servers.
    eof = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: None if eof.done() else eof.set_result(None))
    await eof
    for s in servers:
        s.close()
        await s.wait_closed()


# --------------------------------------------------------------------------- crawl process


def _crawl(mode: str, origins: list[str]) -> None:
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    timing: dict[str, float] = {}

    class BenchSpider(scrapy.Spider):
        name = "bench"
        pages = 0

        async def start(self) -> Any:
            for origin in origins:
                yield scrapy.Request(origin + "/")

        def parse(self, response: Any) -> Any:
            self.pages += 1
            timing["last"] = time.perf_counter()
            timing["last_cpu"] = time.process_time()
            if response.url.endswith("/"):
                yield from response.follow_all(css="a")

    def opened(spider: scrapy.Spider) -> None:
        timing["start"] = time.perf_counter()
        timing["start_cpu"] = time.process_time()

    settings: dict[str, Any] = {**CRAWL_SETTINGS, **MODES[mode]}
    process = CrawlerProcess(settings, install_root_handler=True)
    crawler = process.create_crawler(BenchSpider)
    crawler.signals.connect(opened, signal=signals.spider_opened)
    process.crawl(crawler)
    process.start()
    assert crawler.stats is not None and crawler.spider is not None
    stats = crawler.stats.get_stats()
    pages = int(crawler.spider.pages)  # type: ignore[attr-defined]
    seconds = timing["last"] - timing["start"]
    cpu = timing["last_cpu"] - timing["start_cpu"]
    result = {
        "mode": mode,
        "pages": pages,
        "seconds": seconds,
        "pps": pages / seconds,
        "cpu": cpu,
        "ppcs": pages / cpu,
        "robots_requests": stats.get("robotstxt/request_count", 0),
        "forbidden": stats.get("robotstxt/forbidden", 0),
        "parked": stats.get("robotstxt/parked", 0),
    }
    print(json.dumps(result), flush=True)


# --------------------------------------------------------------------------- driver


def _run_crawl(mode: str, origins: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--crawl", mode],
        input=json.dumps(origins),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"crawl in mode {mode!r} failed (exit {proc.returncode})")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--origins", type=int, default=50)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--no-warmup", dest="warmup", action="store_false", help="skip the untimed first crawl"
    )
    parser.add_argument(
        "--modes",
        default="off,addon",
        help="comma-separated, first is the baseline; 'builtin' is Scrapy's own middleware",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crawl", choices=sorted(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.origins, args.pages))
        return
    if args.crawl:
        _crawl(args.crawl, json.loads(sys.stdin.read()))
        return

    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown modes {sorted(unknown)}; known: {sorted(MODES)}")
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", f"--origins={args.origins}", f"--pages={args.pages}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    results: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    began = time.perf_counter()
    try:
        assert server.stdout is not None
        origins: list[str] = json.loads(server.stdout.readline())
        expected = args.origins * args.pages
        if len({urlsplit(u).hostname for u in origins}) < len(origins):
            print("note: origins share 127.0.0.1, hence one Scrapy download slot", flush=True)
        print(
            f"{len(origins)} origins x {args.pages} pages = {expected} pages per crawl, "
            f"{args.rounds} rounds, Scrapy settings {CRAWL_SETTINGS}",
            flush=True,
        )
        # The first crawl after the server starts runs slower (whichever mode it is): untimed.
        for r, mode in alternating_rounds(modes, args.rounds, args.warmup):
            res = _run_crawl(mode, origins)
            if r:
                results[mode].append(res)
            label = f"round {r}" if r else "warm-up"
            print(
                f"{label:8} {mode:8} {res['pages']:6} pages in {res['seconds']:6.2f} s"
                f" = {res['pps']:6.1f} pages/s; {res['cpu']:6.2f} CPU s"
                f" = {res['ppcs']:6.1f} pages/CPU-s  (robots.txt requests:"
                f" {res['robots_requests']}, forbidden: {res['forbidden']},"
                f" parked: {res['parked']})",
                flush=True,
            )
            if res["pages"] != expected:
                raise SystemExit(f"{mode}: crawled {res['pages']} pages, expected {expected}")
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    print()
    base = modes[0]
    for key, label in (("pps", "pages/s (wall)"), ("ppcs", "pages per CPU second")):
        for how, pick in (("median", statistics.median), ("best", max)):
            value = {m: pick(r[key] for r in results[m]) for m in modes}
            ratios = ", ".join(f"{m} / {base} {value[m] / value[base]:.3f}x" for m in modes[1:])
            shown = ", ".join(f"{m} {value[m]:.1f}" for m in modes)
            print(f"{how:6} {label:21} {shown:34} ratio {ratios}")
    print("target: addon / off >= 0.95 in pages/s; read / addon >= 0.98 (GBOT_ROBOTS_PAGE_RULES)")
    print(f"total time {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
