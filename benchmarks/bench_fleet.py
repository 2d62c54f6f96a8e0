"""Fleet: what sharing robots.txt through Redis buys a fleet of crawlers, and what it costs Redis.

Four runs, chosen by the first argument (``share`` when there is none):

    .venv/bin/python benchmarks/bench_fleet.py [share]   # 4 crawlers: 1 fetch per origin, speed
    .venv/bin/python benchmarks/bench_fleet.py sizing    # Redis memory and latency, no crawl
    .venv/bin/python benchmarks/bench_fleet.py commands  # Redis commands per page and per origin
    .venv/bin/python benchmarks/bench_fleet.py scale     # 1 worker against 2, 4,000 sites

``sizing`` is described in ``_fleet_redis.py``, ``commands`` and ``scale`` (a real scrapy-redis
fleet) in ``_fleet_workers.py``; ``--help`` lists every option and its default per run. Each
run starts its own ``redis-server`` on 127.0.0.1 and stops it, prints the machine's facts
(cores, CPU, load, versions) with its figures, and exits 0 whatever the figures (2 when
``redis-server``, the ``redis`` client or, for ``commands`` and ``scale``, ``scrapy-redis``
is missing).

``share``, the 4-crawler run: why this shape: the reason to put the robots.txt store in Redis
(``GBOT_ROBOTS_STORE = "redis://..."``) is a fleet of crawler processes working on the same
sites; what it must buy is one robots.txt fetch per origin for the whole fleet instead of one
per process, and what it must not cost is crawl speed (a Redis round trip on each robots.txt
decision, lock waits while another process fetches). So one run is a small fleet, not one
crawler:

* ``--crawlers`` (4) ``scrapy`` processes are started together, each a fresh subprocess with
  its own reactor, all on the same ``--origins`` (100) local origins; process *k* crawls its
  own share of every origin's pages (``/p/<n>.html`` with ``n % crawlers == k``, ``--pages``
  per origin in all) plus one ``/private/`` page per origin, which robots.txt forbids. Every
  process therefore needs every origin's robots.txt, as fleet workers sharing a scheduler
  queue would.
* Origins are host names (``o0.broad.test`` ...) on one server port, resolved to 127.0.0.1 by
  ``_broad_resolver.BroadResolver`` (``TWISTED_DNS_RESOLVER``), so each has its own Scrapy
  download slot and nothing leaves the machine.
* The server is a separate asyncio process (serving must not share a crawler's CPU); robots.txt
  answers after ``--robots-delay`` seconds (a real site's latency: long enough for the
  processes to meet on the same fetch), pages at once. It counts robots.txt requests per
  origin and any disallowed page that reaches it. A fresh server per run, so counts are per
  run.
* ``redis-server`` is started by the benchmark on a free 127.0.0.1 port, without persistence,
  emptied (``FLUSHALL``) before every Redis run so that each run starts with no stored states,
  and stopped at the end.
* Modes: ``redis`` (the shared store) and ``memory`` (``GBOT_ROBOTS_STORE = "memory"``, each
  process on its own). They alternate across ``--rounds`` (order reversed every other round,
  after one untimed warm-up run) so drift on a shared machine hits both; medians are reported.
  Throughput is the fleet's: all pages crawled / (last page anywhere - first spider opened
  anywhere), one clock for all processes (``time.time``). On a busy machine the pair of runs
  of the same round, and pages per crawler CPU second, vary less; both are printed too.

Targets: robots.txt requests = origins with ``redis`` (100) and = crawlers x origins with
``memory`` (400); fleet pages/s with ``redis`` >= 0.9x ``memory`` (median); no disallowed page
fetched; every allowed page crawled. The exit status is 0 whatever the figures (2 when
``redis-server`` or the ``redis`` client is missing).

    .venv/bin/python benchmarks/bench_fleet.py [share] [--crawlers 4] [--origins 100]
        [--pages 40] [--robots-delay 0.2] [--rounds 3] [--no-warmup] [--json]

About 2-3 minutes on 2 cores with the defaults; ``sizing`` about 12 minutes, ``commands``
about 7, ``scale`` 8-15 per round (``docs/benchmarks.md`` quotes them).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import json
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from _common import (  # benchmarks/ is sys.path[0] when run as a script
    alternating_rounds,
    http_response,
    url_list_spider,
)
from _fleet_redis import RedisProc, machine_facts, run_sizing
from _fleet_workers import raise_fd_limit, run_commands, run_scale, worker_main

SUFFIX = ".broad.test"
ROBOTS_TXT = b"User-agent: *\nDisallow: /private/\n"
MODES = ("redis", "memory")

CRAWL_SETTINGS: dict[str, Any] = {
    "ROBOTSTXT_OBEY": True,
    "ADDONS": {"scrapy_gbot_robots.Addon": 0},
    "USER_AGENT": "BenchBot/1.0",
    "CONCURRENT_REQUESTS": 32,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "DOWNLOAD_DELAY": 0,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
    "CLOSESPIDER_TIMEOUT": 300,
    # The Redis store runs on the asyncio reactor (Scrapy's default only since 2.13).
    "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
}


# --------------------------------------------------------------------------- server process


ROBOTS_RESPONSE = http_response(b"200 OK", ROBOTS_TXT, b"text/plain")
PAGE_RESPONSE = http_response(
    b"200 OK",
    b"<html><head><title>fleet</title></head><body>"
    + b"<p>A page of the fleet benchmark.</p>" * 20
    + b"</body></html>",
    b"text/html; charset=utf-8",
)
NOT_FOUND = http_response(b"404 Not Found", b"not found", b"text/plain")


HOME_RESPONSE = http_response(
    b"200 OK",
    b"<html><head><title>home</title></head><body><p>A site of the fleet benchmark.</p>"
    b"</body></html>",
    b"text/html; charset=utf-8",
)


class _Http(asyncio.Protocol):
    """Just enough HTTP/1.1 for Scrapy's keep-alive GETs (one request at a time per
    connection); virtual hosts by ``Host``; robots.txt answered after a delay. Counts
    robots.txt requests per origin and fetches per page (home pages and ``/p/``)."""

    def __init__(
        self, counts: Counter[str], per_origin: Counter[bytes], per_page: Counter[bytes],
        robots_times: list[float], delay: float,
    ) -> None:  # fmt: skip
        self.counts = counts
        self.robots_times = robots_times
        self.per_origin = per_origin
        self.per_page = per_page
        self.delay = delay
        self.loop = asyncio.get_running_loop()
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
            self._request(head)

    def _request(self, head: bytes) -> None:
        line, _, headers = head.partition(b"\r\n")
        parts = line.split(b" ")
        path = parts[1] if len(parts) == 3 else b""
        host = b""
        for header in headers.split(b"\r\n"):
            name, _, value = header.partition(b":")
            if name.strip().lower() == b"host":
                host = value.strip().lower().rsplit(b":", 1)[0]
        if path == b"/robots.txt":
            self.counts["robots"] += 1
            self.per_origin[host] += 1
            self.robots_times.append(self.loop.time())
            self.counts["robots_in_flight"] += 1
            self.counts["robots_in_flight_max"] = max(
                self.counts["robots_in_flight_max"], self.counts["robots_in_flight"]
            )
            self.loop.call_later(self.delay, self._robots_ready)
        elif path.startswith(b"/p/"):
            self.counts["pages"] += 1
            self.per_page[host + path] += 1
            self._write(PAGE_RESPONSE)
        elif path == b"/":
            self.counts["home"] += 1
            self.per_page[host + path] += 1
            self._write(HOME_RESPONSE)
        elif path.startswith(b"/private/"):
            self.counts["disallowed"] += 1
            self._write(PAGE_RESPONSE)
        else:
            self.counts["not_found"] += 1
            self._write(NOT_FOUND)

    def _robots_ready(self) -> None:
        self.counts["robots_in_flight"] -= 1
        self._write(ROBOTS_RESPONSE)

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def _serve(delay: float) -> None:
    raise_fd_limit()  # one keep-alive connection per site and crawler
    loop = asyncio.get_running_loop()
    counts: Counter[str] = Counter()
    per_origin: Counter[bytes] = Counter()
    per_page: Counter[bytes] = Counter()
    robots_times: list[float] = []
    server = await loop.create_server(
        lambda: _Http(counts, per_origin, per_page, robots_times, delay),
        "127.0.0.1",
        0,
        backlog=4096,
    )
    print(json.dumps({"port": server.sockets[0].getsockname()[1]}), flush=True)
    # Serve until the parent closes our stdin (or dies), then report and leave.
    eof = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: None if eof.done() else eof.set_result(None))
    await eof
    server.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    report = {
        **counts,
        "robots_origins": len(per_origin),
        "robots_per_origin": _histogram(per_origin),
        "fetches_per_page": _histogram(per_page),
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        # When robots.txt requests arrived: seconds after the first, at each tenth of them.
        "robots_at_tenths": [
            round(robots_times[len(robots_times) * k // 10] - robots_times[0], 1)
            for k in range(1, 10)
        ]
        + [round(robots_times[-1] - robots_times[0], 1)]
        if robots_times
        else [],
    }
    print(json.dumps(report), flush=True)


def _histogram(counts: Counter[bytes]) -> dict[str, int]:
    """{times: how many URLs (or origins) were fetched that many times}."""
    return {str(k): v for k, v in sorted(Counter(counts.values()).items())}


# --------------------------------------------------------------------------- crawl process


def _urls(cfg: dict[str, Any]) -> Iterator[str]:
    """This crawler's share: its pages of every origin, interleaved, then the forbidden ones."""
    mine = [n for n in range(cfg["pages"]) if n % cfg["crawlers"] == cfg["index"]]
    origins = [f"http://o{i}{SUFFIX}:{cfg['port']}" for i in range(cfg["origins"])]
    for n in mine:
        for origin in origins:
            yield f"{origin}/p/{n}.html"
    for origin in origins:
        yield f"{origin}/private/{cfg['index']}.html"


def _crawl(cfg: dict[str, Any]) -> None:
    # benchmarks/ is sys.path[0] when this file runs as a script
    from _broad_resolver import resolver_setting
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    timing: dict[str, float] = {}
    counts: Counter[str] = Counter()

    def page(response: Any) -> None:
        counts["disallowed_crawled" if "/private/" in response.url else "pages"] += 1
        timing["last"] = time.time()
        timing["last_cpu"] = time.process_time()

    def failed(failure: Any) -> None:
        forbidden = "Forbidden by robots.txt" in str(failure.value)
        counts["forbidden" if forbidden else "failed"] += 1

    def opened(spider: Any) -> None:
        timing["start"] = time.time()
        timing["start_cpu"] = time.process_time()

    settings = {
        **CRAWL_SETTINGS,
        **resolver_setting(),
        "GBOT_ROBOTS_STORE": cfg["store"],
    }
    process = CrawlerProcess(settings)
    spider_cls = url_list_spider("fleet_bench", lambda: _urls(cfg), page, failed)
    crawler = process.create_crawler(spider_cls)
    crawler.signals.connect(opened, signal=signals.spider_opened)
    process.crawl(crawler)
    process.start()
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()
    start = timing.get("start", 0.0)
    end = timing.get("last", start)
    result = {
        "index": cfg["index"],
        "start": start,
        "end": end,
        "seconds": end - start,
        "cpu": timing.get("last_cpu", 0.0) - timing.get("start_cpu", 0.0),
        "pages": counts["pages"],
        "forbidden": counts["forbidden"],
        "failed": counts["failed"],
        "disallowed_crawled": counts["disallowed_crawled"],
        "robots_requests": stats.get("robotstxt/request_count", 0),
        "from_store": stats.get("robotstxt/store/stored", 0),
        "lock_waits": stats.get("robotstxt/lock/waited", 0),
        "dropped": stats.get("robotstxt/dropped", 0),
        "store_errors": stats.get("robotstxt/store/errors", 0),
        "finish_reason": stats.get("finish_reason"),
    }
    print(json.dumps(result), flush=True)


# --------------------------------------------------------------------------- driver


def _run(mode: str, args: argparse.Namespace, rp: RedisProc) -> dict[str, Any]:
    """One fleet run: a fresh server, ``args.crawlers`` crawl processes started together."""
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", f"--robots-delay={args.robots_delay}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    crawlers: list[subprocess.Popen[str]] = []
    try:
        port = int(json.loads(server.stdout.readline())["port"])
        if mode == "redis":
            rp.client().flushall()
        store = rp.url if mode == "redis" else "memory"
        for index in range(args.crawlers):
            cfg = {
                "index": index,
                "crawlers": args.crawlers,
                "origins": args.origins,
                "pages": args.pages,
                "port": port,
                "store": store,
            }
            crawlers.append(
                subprocess.Popen(
                    [sys.executable, __file__, "--crawl", json.dumps(cfg)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        results = []
        for proc in crawlers:
            out, err = proc.communicate(timeout=CRAWL_SETTINGS["CLOSESPIDER_TIMEOUT"] + 60)
            lines = out.strip().splitlines()
            if proc.returncode != 0 or not lines:
                sys.stderr.write(err[-3000:])
                raise SystemExit(f"{mode}: a crawler exited with {proc.returncode}")
            results.append(json.loads(lines[-1]))
    finally:
        for proc in crawlers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        server.stdin.close()
        served_line = server.stdout.readline()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    served = json.loads(served_line) if served_line.strip() else {}
    span = max(r["end"] for r in results) - min(r["start"] for r in results)
    pages = sum(r["pages"] for r in results)
    return {
        "mode": mode,
        "pages": pages,
        "span": span,
        "pps": pages / span if span > 0 else 0.0,
        "cpu": sum(r["cpu"] for r in results),
        "robots_served": served.get("robots", 0),
        "robots_per_origin": served.get("robots_per_origin", {}),
        "disallowed_served": served.get("disallowed", 0),
        "forbidden": sum(r["forbidden"] for r in results),
        "failed": sum(r["failed"] for r in results),
        "dropped": sum(r["dropped"] for r in results),
        "from_store": sum(r["from_store"] for r in results),
        "lock_waits": sum(r["lock_waits"] for r in results),
        "store_errors": sum(r["store_errors"] for r in results),
        "per_crawler_pps": [round(r["pages"] / r["seconds"], 1) for r in results if r["seconds"]],
    }


#: Each run's defaults where they differ; None in the parser means "this run's default".
RUN_DEFAULTS: dict[str, dict[str, Any]] = {
    "share": {"pages": 40, "robots_delay": 0.2, "rounds": 3},
    "commands": {"pages": 3, "robots_delay": 0.2, "sites": 1000, "workers": "2"},
    "scale": {"pages": 3, "robots_delay": 1.0, "rounds": 1, "sites": 4000, "workers": "1,2"},
    "sizing": {},
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Redis as a fleet's robots.txt store and lot: "
        + "; ".join(f"{run}: {RUN_HELP[run]}" for run in RUN_DEFAULTS),
        epilog="Defaults per run: "
        + "; ".join(
            f"{run}: " + ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in d.items())
            for run, d in RUN_DEFAULTS.items()
            if d
        ),
    )
    parser.add_argument("run", nargs="?", default="share", choices=list(RUN_DEFAULTS))
    common = parser.add_argument_group("share, commands and scale")
    common.add_argument(
        "--pages", type=int, help="share: allowed pages per origin in all; commands, scale: "
        "pages per site (its home page + links to the others)",
    )  # fmt: skip
    common.add_argument("--robots-delay", type=float, help="seconds before robots.txt answers")
    common.add_argument("--rounds", type=int, help="share, scale: rounds, order alternating")
    share = parser.add_argument_group("share (4 crawlers, each with its own URL list)")
    share.add_argument("--crawlers", type=int, default=4)
    share.add_argument("--origins", type=int, default=100)
    share.add_argument("--no-warmup", dest="warmup", action="store_false")
    share.add_argument("--json", action="store_true", help="also print every run as JSON")
    fleet = parser.add_argument_group("commands and scale (scrapy-redis workers, a site list)")
    fleet.add_argument("--sites", type=int, help="origins in the site list")
    fleet.add_argument(
        "--workers", help="commands: workers per crawl (one number); scale: worker counts "
        "to compare, the first against the last (e.g. 1,2)",
    )  # fmt: skip
    fleet.add_argument("--disallowed", type=int, default=1, help="/private/ links per site")
    fleet.add_argument(
        "--batch", type=int, help="scrapy-redis redis_batch_size: start URLs a worker takes "
        "each time it idles (default: scrapy-redis's, CONCURRENT_REQUESTS)",
    )  # fmt: skip
    fleet.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE",
        help="extra Scrapy setting for every worker (VALUE read as JSON if it parses), e.g. "
        "GBOT_ROBOTS_CONCURRENT_FETCHES=64; repeatable",
    )  # fmt: skip
    fleet.add_argument(
        "--idle-close", type=int, default=5,
        help="scrapy-redis MAX_IDLE_TIME_BEFORE_CLOSE of the workers (not in the timed span)",
    )  # fmt: skip
    sizing = parser.add_argument_group("sizing (no crawl)")
    sizing.add_argument("--states", default="10000,100000", help="N origin states, each run")
    sizing.add_argument(
        "--listpack", type=int, default=4096,
        help="also measure every state kind with the server's hash-max-listpack-value at "
        "this (0: not)",
    )  # fmt: skip
    sizing.add_argument("--parked", type=int, default=100_000, help="parked requests")
    sizing.add_argument("--samples", type=int, default=2000, help="latency samples per figure")
    sizing.add_argument("--corpus", help="the shared corpus (default ../shared/corpus)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crawl", help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser


RUN_HELP = {
    "share": "4 crawlers over 100 origins, Redis store against memory (fetches, pages/s)",
    "commands": "Redis commands, CPU and bytes per page and per new origin in a real "
    "scrapy-redis fleet, with and without the add-on",
    "scale": "1 scrapy-redis worker against 2 over 4,000 sites whose robots.txt takes 1 s",
    "sizing": "Redis memory per origin state and per parked request, latency of a read "
    "and a write with 100,000 states stored",
}


def main() -> None:
    args = _parser().parse_args()
    for name, value in RUN_DEFAULTS[args.run].items():
        if getattr(args, name, None) is None:
            setattr(args, name, value)
    if args.serve:
        asyncio.run(_serve(args.robots_delay))
        return
    if args.crawl:
        _crawl(json.loads(args.crawl))
        return
    if args.worker:
        worker_main(json.loads(args.worker))
        return
    extra: dict[str, Any] = {}
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SystemExit(f"error: --set: expected NAME=VALUE, got {item!r}")
        try:
            extra[name.strip()] = json.loads(value)
        except ValueError:
            extra[name.strip()] = value
    args.set = extra
    for module in ("redis", "scrapy_redis") if args.run in ("commands", "scale") else ("redis",):
        if importlib.util.find_spec(module) is None:
            print(f"error: {module} is not installed (pip install {module})", file=sys.stderr)
            raise SystemExit(2)
    # A SIGTERM (a timeout, Ctrl-C from a wrapper) still stops redis-server and the workers.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    began = time.perf_counter()
    say = functools.partial(print, flush=True)
    if args.run == "sizing":
        run_sizing(args, say)
    elif args.run == "commands":
        if "," in args.workers:
            raise SystemExit("error: commands takes one worker count (--workers N)")
        args.workers = int(args.workers)
        run_commands(args, __file__, say)
    elif args.run == "scale":
        args.scale_workers = args.workers
        run_scale(args, __file__, say)
    else:
        _share(args)
    print(f"total time {time.perf_counter() - began:.0f} s")


def _share(args: argparse.Namespace) -> None:
    expected_pages = args.origins * args.pages
    print(
        f"{args.crawlers} crawlers x {args.origins} origins, {expected_pages} allowed pages "
        f"per run in all (+{args.crawlers * args.origins} forbidden), robots.txt answering "
        f"after {args.robots_delay} s; {args.rounds} rounds; Scrapy settings {CRAWL_SETTINGS}",
        flush=True,
    )
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_fleet_redis_") as directory:
        rp = RedisProc(directory)
        try:
            print(machine_facts(rp.client()), flush=True)
            for r, mode in alternating_rounds(MODES, args.rounds, args.warmup):
                res = _run(mode, args, rp)
                if r:
                    runs[mode].append(res)
                label = f"round {r}" if r else "warm-up"
                print(
                    f"{label:8} {mode:6} {res['pages']:6} pages in {res['span']:6.2f} s = "
                    f"{res['pps']:7.1f} pages/s (crawlers: {res['per_crawler_pps']}); "
                    f"robots.txt requests {res['robots_served']} "
                    f"(per origin {res['robots_per_origin']}), read from the store "
                    f"{res['from_store']}, lock waits {res['lock_waits']}; forbidden "
                    f"{res['forbidden']}, disallowed fetched {res['disallowed_served']}, "
                    f"dropped {res['dropped']}, store errors {res['store_errors']}",
                    flush=True,
                )
                if args.json:
                    print(json.dumps(res), flush=True)
                if res["pages"] != expected_pages:
                    problems.append(f"{label} {mode}: {res['pages']} pages of {expected_pages}")
                if res["disallowed_served"] or res["dropped"] or res["failed"]:
                    problems.append(f"{label} {mode}: disallowed/dropped/failed requests")
        finally:
            rp.stop()

    print()
    fetches = {m: statistics.median(r["robots_served"] for r in runs[m]) for m in MODES}
    pps = {m: statistics.median(r["pps"] for r in runs[m]) for m in MODES}
    ratio = pps["redis"] / pps["memory"] if pps["memory"] else 0.0
    # Steadier on a shared machine: the same round's two runs, and pages per CPU second.
    paired = [a["pps"] / b["pps"] for a, b in zip(runs["redis"], runs["memory"], strict=True)]
    ppcs = {m: statistics.median(r["pages"] / r["cpu"] for r in runs[m]) for m in MODES}
    print(
        f"robots.txt requests (median): redis {fetches['redis']:g} "
        f"(target {args.origins}), memory {fetches['memory']:g} "
        f"(target {args.crawlers * args.origins})"
    )
    print(
        f"fleet pages/s (median): redis {pps['redis']:.1f}, memory {pps['memory']:.1f}; "
        f"ratio redis / memory {ratio:.3f}x (target >= 0.9x)"
    )
    print(
        f"  per round: {', '.join(f'{x:.2f}x' for x in paired)} (median "
        f"{statistics.median(paired):.3f}x); pages per crawler CPU second (median): redis "
        f"{ppcs['redis']:.1f}, memory {ppcs['memory']:.1f} "
        f"({ppcs['redis'] / ppcs['memory']:.3f}x)"
    )
    ok = fetches["redis"] == args.origins and ratio >= 0.9 and not problems
    print("targets met" if ok else "TARGETS MISSED: " + ("; ".join(problems) or "see above"))


if __name__ == "__main__":
    main()
