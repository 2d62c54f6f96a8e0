"""``bench_fleet.py``'s scrapy-redis fleet: its workers, and the ``commands`` and ``scale`` runs.

Why this shape: what a fleet costs Redis, and what a second worker buys, are only seen in a
real fleet: scrapy-redis's own scheduler, dupefilter and start URLs, the add-on's Redis store
(``GBOT_ROBOTS_STORE``) and its fleet parking (``RedisLot``), all on one real
``redis-server`` that the benchmark starts, empties (``FLUSHALL``) before every crawl and
stops. So each crawl is:

* a site list of ``--sites`` origins (``o<i>.broad.test``, all 127.0.0.1 through
  ``_broad_resolver.BroadResolver``, one HTTP server port), one start URL per site (its home
  page, ``/``), pushed to the spider's ``<name>:start_urls`` before any worker starts;
* ``W`` worker processes started together, each a ``RedisSpider`` with the settings of
  ``docs/stores.md`` (``SCHEDULER_PERSIST``, ``MAX_IDLE_TIME_BEFORE_CLOSE``, the asyncio
  reactor); the home page of a site links to ``--pages`` - 1 more pages and
  ``--disallowed`` pages under ``/private/`` (forbidden by robots.txt), which the spider
  follows through the shared queue, so any worker may crawl them;
* the HTTP server (``bench_fleet.py --serve``, its own process) answers robots.txt after
  ``--robots-delay`` seconds and pages at once, and counts per URL: robots.txt requests per
  origin and how many times each page was fetched (the figures "one robots.txt per origin"
  and "every page exactly once" are the server's, not the crawlers').

Time is the fleet's: first ``spider_opened`` of any worker to the last page crawled by any
(one ``time.time`` clock). CPU per process (user + sys) comes from each worker's
``resource.getrusage`` and ``time.process_time``, from the server's, and from Redis's
``INFO cpu``; the share of the whole machine that was busy (anyone's processes, from
``/proc/stat``) says whether the 2 cores, rather than latency, decided. Each crawl also
prints the add-on's stats summed over the workers, every Redis outage a worker logged (the
store's WARNING: an outage makes a worker fetch locally, so it explains a second fetch of an
origin), the pages crawled per 10 s and when each tenth of the robots.txt requests arrived.

``commands``: the same crawl with ``ROBOTSTXT_OBEY = False`` (``off``: scrapy-redis alone)
and with the add-on (``addon``), ``INFO commandstats`` deltas around each, then the add-on's
crawl once more under ``MONITOR``, which tells each command's key family and whether a
client sent it or a Lua script ran it (``MONITOR`` costs Redis CPU, so that crawl's CPU and
time are not reported), and ``redis-benchmark`` against the same server as the peer for
commands per second. ``scale``: the add-on's crawl with 1 worker and with 2 (alternating
order over ``--rounds``), the ratio of their times, and the robots.txt requests per origin.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from _fleet_redis import RedisProc, counters, cpu_times, delta, machine_busy, machine_facts

SPIDER = "fleet_workers"
SUFFIX = ".broad.test"

WORKER_SETTINGS: dict[str, Any] = {
    "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
    "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
    "SCHEDULER_PERSIST": True,
    "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    "USER_AGENT": "BenchBot/1.0",
    "CONCURRENT_REQUESTS": 32,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "DOWNLOAD_DELAY": 0,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
    "CLOSESPIDER_TIMEOUT": 1800,  # a safety net only
}
MODES: dict[str, dict[str, Any]] = {
    "addon": {"ROBOTSTXT_OBEY": True, "ADDONS": {"scrapy_gbot_robots.Addon": 0}},
    "off": {"ROBOTSTXT_OBEY": False},
}


def raise_fd_limit() -> None:
    """Thousands of keep-alive connections (one per site): soft descriptor limit to hard."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --------------------------------------------------------------------------- worker process


def worker_main(cfg: dict[str, Any]) -> None:
    """One fleet worker (a subprocess): crawl until scrapy-redis closes it, print JSON."""
    raise_fd_limit()
    import scrapy
    from _broad_resolver import resolver_setting
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy_redis.spiders import RedisSpider  # type: ignore[import-untyped]

    timing: dict[str, float] = {}
    counts: Counter[str] = Counter()
    crawled_at: list[float] = []

    class FleetWorker(RedisSpider):  # type: ignore[misc]
        name = SPIDER
        redis_batch_size = cfg.get("batch")  # None: CONCURRENT_REQUESTS

        def make_request_from_data(self, data: bytes) -> scrapy.Request:
            url = json.loads(data)["url"]
            return scrapy.Request(url, callback=self.parse_home, errback=self.failed)

        def parse_home(self, response: Any) -> Any:
            self._crawled(response)
            base = response.url.rstrip("/")
            for k in range(1, cfg["pages"]):
                yield scrapy.Request(f"{base}/p/{k}.html", self.parse_page, errback=self.failed)
            for k in range(cfg["disallowed"]):
                yield scrapy.Request(
                    f"{base}/private/{k}.html", self.parse_page, errback=self.failed
                )

        def parse_page(self, response: Any) -> None:
            self._crawled(response)

        def _crawled(self, response: Any) -> None:
            counts["disallowed_crawled" if "/private/" in response.url else "pages"] += 1
            timing["last"] = time.time()
            crawled_at.append(timing["last"])
            timing["last_cpu"] = time.process_time()

        def failed(self, failure: Any) -> None:
            counts["forbidden" if "Forbidden by robots" in str(failure.value) else "failed"] += 1

    def opened(spider: Any) -> None:
        timing["start"] = time.time()
        timing["start_cpu"] = time.process_time()

    settings = {
        **WORKER_SETTINGS,
        **resolver_setting(),
        **MODES[cfg["mode"]],
        "REDIS_URL": cfg["redis"],
        "MAX_IDLE_TIME_BEFORE_CLOSE": cfg["idle_close"],
        "LOG_LEVEL": cfg.get("log_level", WORKER_SETTINGS["LOG_LEVEL"]),
        **cfg.get("extra", {}),
    }
    if cfg["mode"] == "addon":
        settings["GBOT_ROBOTS_STORE"] = cfg["redis"]
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(FleetWorker)
    crawler.signals.connect(opened, signal=signals.spider_opened)
    process.crawl(crawler)
    process.start()
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = timing.get("start", 0.0)
    print(
        json.dumps(
            {
                "start": start,
                "end": timing.get("last", start),
                "crawl_cpu": timing.get("last_cpu", 0.0) - timing.get("start_cpu", 0.0),
                "cpu_user": usage.ru_utime,
                "cpu_sys": usage.ru_stime,
                "peak_rss_mb": usage.ru_maxrss / 1024,
                "crawled_at": crawled_at,
                **counts,
                "stats": {
                    k: v
                    for k, v in sorted(stats.items())
                    if isinstance(v, (int, float, str))
                    and (
                        k.startswith(("robotstxt/", "scheduler/", "downloader/"))
                        or k == "finish_reason"
                    )
                },
            }
        ),
        flush=True,
    )


# --------------------------------------------------------------------------- MONITOR

_TOKEN = re.compile(rb'"((?:[^"\\]|\\.)*)"')


class Monitor(threading.Thread):
    """Counts every command Redis runs (``MONITOR``) by key family, client or Lua script."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"MONITOR\r\n")
        self.buffer = b""
        while b"\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        self.buffer = self.buffer.split(b"\r\n", 1)[1]  # "+OK"
        self.sock.settimeout(None)
        self.counts: Counter[tuple[str, str, str]] = Counter()  # (family, source, command)

    def run(self) -> None:
        buffer = self.buffer
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\r\n")
            for line in lines:
                self._count(line)

    def _count(self, line: bytes) -> None:
        at = line.find(b"] ")
        if at < 0:
            return
        source = "script" if line[: at + 1].endswith(b" lua]") else "client"
        args = [m.group(1) for m, _ in zip(_TOKEN.finditer(line, at), range(4), strict=False)]
        if not args:
            return
        command = args[0].decode(errors="replace").lower()
        key = b""
        if command in ("evalsha", "eval") and len(args) > 3 and args[2] != b"0":
            key = args[3]
        elif len(args) > 1:
            key = args[1]
        self.counts[(_family(command, key.decode(errors="replace")), source, command)] += 1

    def stop(self) -> Counter[tuple[str, str, str]]:
        time.sleep(0.5)  # the last replies
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.join(timeout=10)
        return self.counts


def _family(command: str, key: str) -> str:
    if key.startswith("gbot_robots:origin:"):
        return "store: states"
    if key.startswith("gbot_robots:lock:"):
        return "store: fetch locks"
    if key.startswith(f"{SPIDER}:gbot_robots:"):
        return "fleet parking"
    for suffix, name in (
        (":requests", "scrapy-redis: queue"),
        (":dupefilter", "scrapy-redis: dupefilter"),
        (":start_urls", "scrapy-redis: start URLs"),
    ):
        if key == SPIDER + suffix:
            return name
    if command in ("multi", "exec"):
        return "scrapy-redis: MULTI/EXEC"
    return "connection, scripts, INFO"


# --------------------------------------------------------------------------- one crawl


def fleet_crawl(
    rp: RedisProc, script: str, mode: str, workers: int, args: Any, monitor: bool = False
) -> dict[str, Any]:
    """One crawl of the site list by ``workers`` processes; a fresh HTTP server and Redis db."""
    client = rp.client()
    client.flushall()
    server = subprocess.Popen(
        [sys.executable, script, "--serve", f"--robots-delay={args.robots_delay}",
         f"--pages={args.pages}", f"--disallowed={args.disallowed}"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    procs: list[subprocess.Popen[str]] = []
    watcher: Monitor | None = None
    try:
        port = int(json.loads(server.stdout.readline())["port"])
        sites = [f"http://o{i}{SUFFIX}:{port}/" for i in range(args.sites)]
        for at in range(0, len(sites), 1000):
            client.rpush(
                f"{SPIDER}:start_urls", *[json.dumps({"url": u}) for u in sites[at : at + 1000]]
            )
        watcher = Monitor(rp.port) if monitor else None
        if watcher is not None:
            watcher.start()
        before, busy0 = counters(client), cpu_times()
        cfg = {"mode": mode, "redis": rp.url, "idle_close": args.idle_close,
               "pages": args.pages, "disallowed": args.disallowed, "batch": args.batch,
               "extra": args.set}  # fmt: skip
        for _ in range(workers):
            procs.append(
                subprocess.Popen(
                    [sys.executable, script, "--worker", json.dumps(cfg)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        results = []
        for proc in procs:
            out, err = proc.communicate(timeout=WORKER_SETTINGS["CLOSESPIDER_TIMEOUT"] + 120)
            lines = out.strip().splitlines()
            if proc.returncode != 0 or not lines:
                sys.stderr.write(err[-3000:])
                raise SystemExit(f"{mode}: a worker exited with {proc.returncode}")
            result = json.loads(lines[-1])
            # The store's own words when it gave up on Redis (one WARNING per outage).
            result["outages"] = [
                line.split("] WARNING: ", 1)[-1][:200]
                for line in err.splitlines()
                if "unreachable (" in line or ("Redis lot" in line and "failed" in line)
            ]
            results.append(result)
        after, busy1 = counters(client), cpu_times()
        families = watcher.stop() if watcher is not None else Counter()
        watcher = None
        left = {k.decode(): client.type(k).decode() for k in client.scan_iter("*gbot_robots:*")}
        seen = f"{SPIDER}:dupefilter"
        dupefilter = (int(client.scard(seen)), int(client.memory_usage(seen, samples=0) or 0))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if watcher is not None:
            watcher.stop()
        server.stdin.close()
        served_line = server.stdout.readline()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    served = json.loads(served_line) if served_line.strip() else {}
    start = min(r["start"] for r in results)
    span = max(r["end"] for r in results) - start
    return {
        "mode": mode,
        "workers": workers,
        "span": span,
        "results": results,
        "served": served,
        "redis": delta(before, after),
        "busy": machine_busy(busy0, busy1),
        "families": families,
        "dupefilter": dupefilter,
        "left_in_redis": {k: v for k, v in left.items() if ":lock:" in k or ":parked" in k},
        "pages": served.get("pages", 0) + served.get("home", 0) + served.get("disallowed", 0),
    }


def _describe(run: dict[str, Any], sites: int) -> list[str]:
    """What every crawl prints: time, counts at the server, CPU per process."""
    served, res, r = run["served"], run["results"], run["redis"]
    span = max(run["span"], 1e-9)
    cpu = ", ".join(f"{x['cpu_user'] + x['cpu_sys']:.1f}" for x in res)
    window = ", ".join(f"{x['crawl_cpu']:.1f}" for x in res)
    share = ", ".join(f"{x['crawl_cpu'] / span:.2f}" for x in res)
    rss = ", ".join(f"{x['peak_rss_mb']:.0f}" for x in res)
    return [
        f"{run['mode']:5} {run['workers']} worker(s): {run['span']:6.1f} s, "
        f"{run['pages']:,} pages fetched ({run['pages'] / span:.0f}/s), "
        f"robots.txt requests {served.get('robots', 0):,} for {sites:,} origins "
        f"(per origin {served.get('robots_per_origin', {})}), each page fetched "
        f"{served.get('fetches_per_page', {})} times, disallowed fetched "
        f"{served.get('disallowed', 0)}, forbidden {sum(x.get('forbidden', 0) for x in res)}, "
        f"failed {sum(x.get('failed', 0) for x in res)}, dropped "
        f"{sum(x['stats'].get('robotstxt/dropped', 0) for x in res)}; left in Redis "
        f"{len(run['left_in_redis'])} lock/lot keys",
        "      add-on stats (all workers): "
        + ", ".join(
            f"{name} {sum(x['stats'].get('robotstxt/' + name, 0) for x in res):,}"
            for name in (
                "parked",
                "bounced",
                "lot/taken_elsewhere",
                "store/stored",
                "store/lock_waits",
                "fetch_slow_peak",
            )
        ),
        f"      Redis outages seen by the workers: {sum(len(x['outages']) for x in res)}"
        + "".join(f" ({x['outages'][0]})" for x in res if x["outages"])[:400],
        f"      pages crawled per 10 s (all workers): {_timeline(run)}",
        f"      robots.txt requests: at most {served.get('robots_in_flight_max', 0)} waiting at "
        f"the server at once; each tenth of them in by (s) {served.get('robots_at_tenths')}",
        f"      CPU s (user+sys): workers {cpu} (crawl window {window}; per wall s {share}), "
        f"HTTP server {served.get('cpu_seconds', 0):.1f}, redis-server {r['cpu']:.1f}; "
        f"machine busy {run['busy'] * 100:.0f} % of {os.cpu_count()} cores (anyone's); "
        f"peak RSS {rss} MB",
    ]


def redis_benchmark(port: int) -> dict[str, float]:
    """Requests per second of ``redis-benchmark`` on a few commands ({} when it is missing)."""
    binary = shutil.which("redis-benchmark")
    if binary is None:
        return {}
    tests = "ping_mbulk,set,get,sadd,zadd,lpush,lpop,hset"
    out = subprocess.run(
        [binary, "-h", "127.0.0.1", "-p", str(port), "-q", "-n", "100000", "-c", "50",
         "-r", "100000", "-t", tests, "--csv"],
        capture_output=True, text=True, timeout=300, check=False,
    ).stdout  # fmt: skip
    found = {}
    for line in out.splitlines():
        cells = [c.strip('"') for c in line.split(",")]
        if len(cells) > 1 and cells[0] != "test":
            with contextlib.suppress(ValueError):
                found[cells[0]] = float(cells[1])
    return found


def _timeline(run: dict[str, Any]) -> list[int]:
    """Pages crawled by any worker in each 10 s from the first ``spider_opened``."""
    start = min(r["start"] for r in run["results"])
    slots = Counter(int((t - start) // 10) for r in run["results"] for t in r["crawled_at"])
    return [slots.get(i, 0) for i in range(max(slots, default=-1) + 1)]


# --------------------------------------------------------------------------- the runs


def run_commands(args: Any, script: str, say: Callable[[str], None]) -> None:
    per_site = args.pages + args.disallowed
    with tempfile.TemporaryDirectory(prefix="bench_fleet_commands_") as directory:
        rp = RedisProc(directory)
        try:
            say(machine_facts(rp.client()))
            say(
                f"commands: {args.workers} workers, {args.sites:,} sites x ({args.pages} pages "
                f"+ {args.disallowed} disallowed), robots.txt after {args.robots_delay} s; "
                f"worker settings {WORKER_SETTINGS}, {args.set}, "
                f"redis_batch_size {args.batch or 'CONCURRENT_REQUESTS'}"
            )
            runs = {}
            for mode in ("off", "addon"):
                runs[mode] = run = fleet_crawl(rp, script, mode, args.workers, args)
                for line in _describe(run, args.sites):
                    say(line)
            watched = fleet_crawl(rp, script, "addon", args.workers, args, monitor=True)
            say(f"addon under MONITOR (for the families below): {watched['pages']:,} pages")
            peer = redis_benchmark(rp.port)
        finally:
            rp.stop()
    off, addon = runs["off"], runs["addon"]
    fps, size = addon["dupefilter"]
    say(
        f"scrapy-redis's dupefilter after the add-on's crawl: {fps:,} fingerprints, "
        f"{size:,} B (MEMORY USAGE), {size / max(fps, 1):.0f} B per request seen"
    )
    say("\nRedis commands (INFO commandstats deltas; Lua scripts' own commands included):")
    for mode, run in runs.items():
        cmds = run["redis"]["commands"]
        total = sum(c for c, _ in cmds.values())
        top = sorted(cmds.items(), key=lambda kv: -kv[1][0])
        say(
            f"  {mode:5}: {total:,} commands, {total / run['pages']:.2f} per page "
            f"({run['pages']:,} pages), {total / args.sites:.2f} per origin; Redis CPU "
            f"{run['redis']['cpu'] / run['pages'] * 1e6:.0f} µs per page; bytes in/out per page "
            f"{run['redis']['net_in'] / run['pages']:.0f} / "
            f"{run['redis']['net_out'] / run['pages']:.0f}"
        )
        say("         " + ", ".join(f"{n} {c:,} ({u / c:.1f} µs)" for n, (c, u) in top))
    extra = sum(c for c, _ in addon["redis"]["commands"].values()) - sum(
        c for c, _ in off["redis"]["commands"].values()
    )
    extra_cpu = addon["redis"]["cpu"] - off["redis"]["cpu"]
    say(
        f"  the add-on's share: {extra:,} more commands = {extra / args.sites:.1f} per new "
        f"origin ({per_site} requests each: robots.txt, fetch lock, store, parking, "
        f"re-queued requests); Redis CPU {extra_cpu / args.sites * 1e6:.0f} µs per new origin"
    )
    say("\nBy key family, addon under MONITOR (client = round trips sent; script = run by Lua):")
    fam: Counter[tuple[str, str]] = Counter()
    for (family, source, _), n in watched["families"].items():
        fam[(family, source)] += n
    for family in sorted({f for f, _ in fam}):
        client_n, script_n = fam[(family, "client")], fam[(family, "script")]
        names = sorted(
            (
                (c, n)
                for (f, s, c), n in watched["families"].items()
                if f == family and s == "client"
            ),
            key=lambda x: -x[1],
        )
        say(
            f"  {family:28} client {client_n / watched['pages']:6.2f}/page "
            f"{client_n / args.sites:6.2f}/origin; script {script_n / args.sites:6.2f}/origin "
            f"({', '.join(f'{c} {n:,}' for c, n in names[:6])})"
        )
    clients = sum(n for (f, s), n in fam.items() if s == "client")
    if peer:
        say(
            "\nThe peer: redis-benchmark against the same redis-server, 50 clients, no "
            "pipelining, on the same 2 cores (its client takes one): "
            + ", ".join(f"{name} {ops:,.0f}/s" for name, ops in peer.items())
        )
    say(
        f"  all client commands: {clients / watched['pages']:.2f} per page, "
        f"{clients / args.sites:.2f} per origin"
    )


def run_scale(args: Any, script: str, say: Callable[[str], None]) -> None:
    counts = [int(x) for x in args.scale_workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench_fleet_scale_") as directory:
        rp = RedisProc(directory)
        runs: dict[int, list[dict[str, Any]]] = {w: [] for w in counts}
        try:
            say(machine_facts(rp.client()))
            say(
                f"scale: {args.sites:,} sites x ({args.pages} pages + {args.disallowed} "
                f"disallowed), robots.txt after {args.robots_delay} s, workers {counts}, "
                f"{args.rounds} round(s); worker settings {WORKER_SETTINGS}, {args.set}, "
                f"redis_batch_size {args.batch or 'CONCURRENT_REQUESTS'}"
            )
            for r in range(args.rounds):
                for w in counts if r % 2 == 0 else counts[::-1]:
                    run = fleet_crawl(rp, script, "addon", w, args)
                    runs[w].append(run)
                    for line in _describe(run, args.sites):
                        say(f"round {r + 1} " + line)
            say("\n" + machine_facts(rp.client()))
        finally:
            rp.stop()
    one, most = counts[0], counts[-1]
    for i, (a, b) in enumerate(zip(runs[one], runs[most], strict=True)):
        ok = all(
            run["served"].get("robots_per_origin") == {"1": args.sites}
            and run["served"].get("fetches_per_page") == {"1": args.sites * args.pages}
            and not run["served"].get("disallowed")
            for run in (a, b)
        )
        say(
            f"round {i + 1}: {most} workers / {one}: {b['span']:.1f} s / {a['span']:.1f} s = "
            f"{b['span'] / a['span']:.2f}x (target <= 0.6x); one robots.txt per origin and "
            f"every page once in both: {'yes' if ok else 'NO'}"
        )
