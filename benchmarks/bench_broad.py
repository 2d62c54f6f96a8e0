"""Broad crawl: thousands of origins with a slow robots.txt, add-on against Scrapy's built-in.

Why this shape: the cost a broad crawl pays for robots.txt is not the check of one request but
the waiting for thousands of robots.txt files, and what the crawler holds meanwhile (download
slots, connections, parked requests, memory). So we crawl N origins, each with a few start
URLs (``--allowed`` pages under ``/p/`` and ``--disallowed`` ones under ``/private/``, which
its robots.txt forbids), and every robots.txt answers only after ``--robots-delay`` seconds
while pages answer at once: the run time is then mostly robots.txt waiting, which is what the
two middlewares organise differently.

* Origins are host names (``o0.broad.test`` ... ``o3999.broad.test``) on one server port:
  Scrapy's download slots and connection pool are keyed by host, so each origin gets its own
  slot, as a real site would; thousands of loopback addresses (``bench_crawl.py``'s way) would
  not scale to 20,000. The crawler resolves them with ``_broad_resolver.BroadResolver``
  (Scrapy's ``TWISTED_DNS_RESOLVER``, ``DNS_RESOLVER`` before 2.15): ``*.broad.test`` is
  127.0.0.1 and every other name fails, so nothing leaves the machine.
* The server is one asyncio process on 127.0.0.1 (so serving does not share the crawler's
  CPU), virtual hosts by the ``Host`` header, HTTP/1.1 keep-alive (idle connections closed
  after ``--keep-alive`` seconds, as real servers do, which also bounds open descriptors),
  each robots.txt answer delayed with ``loop.call_later``. It counts what only the server can
  see: robots.txt requests per origin, how many were waiting at once (the maximum over the run
  is the figure the add-on's fetch budget must bound), and disallowed pages that reached it.
* Start URLs are interleaved across origins by default (``o0/p/0``, ``o1/p/0``, ...,
  ``o0/p/1``, ...): a broad crawl's seed list is many sites with a few URLs each; every
  origin's first request comes early, so a crawler that does not bound its robots.txt fetches
  shows it at once; and the requests of one origin arrive far apart, so Scrapy's built-in
  middleware keeps its one known race out of the comparison (on the asyncio reactor only the
  first request waiting for an origin's robots.txt gets the parser, the others get ``None``
  from the shared Deferred and go unchecked: with ``--order origin``, the seed list origin by
  origin, a few disallowed pages reach the server in built-in mode).
* Each mode runs in a fresh crawler process with a fresh server (one after the other: two
  cores, one for each): a fresh reactor, per-run server counters, and a peak RSS
  (``ru_maxrss``) that belongs to that crawl alone. Wall time runs from ``engine_started`` to
  ``spider_closed``; the crawler's CPU time is printed too, because at this scale Scrapy's own
  per-request costs (its default ``DownloaderAwarePriorityQueue`` scans every origin with
  queued requests on each pop) can make a crawl CPU-bound. ``--set NAME=VALUE`` adds a Scrapy
  setting to every mode to take such costs apart, and ``--gc-threshold`` sets the crawler's
  ``gc.set_threshold()`` (full collections, counted in the table, scan every live object
  each time, and a broad crawl keeps tens of thousands of requests alive; the table also
  gives the collector's seconds per generation, timed by ``gc.callbacks``); ``--modes off`` adds
  a crawl with ``ROBOTSTXT_OBEY = False`` as a floor (it fetches the disallowed pages too).

* ``--seed upfront`` (the default) is a spider whose ``start()`` yields every URL at once,
  which Scrapy takes as fast as it can while the downloader is busy: all requests are in the
  scheduler early. ``--seed start`` is the lazy ``start()`` of Scrapy's documentation
  ("start requests lazily"): it yields the next URL only once the engine has room (waiting
  for ``scheduler_empty`` while ``engine.needs_backout()``), so ``off``'s scheduler stays
  small, the way many broad crawls are seeded.
* ``--trace`` prints, for each mode, what the crawl looked like second by second (sampled in
  the crawler): the add-on's fetch budget (the live stat ``robotstxt/fetch_budget``), the
  downloads in progress and the downloader's limit (robots.txt ones widen it), the requests
  in the scheduler, the requests parked, the pages crawled so far, and the crawler's resident
  memory then (``/proc/self/statm``: when the peak is reached); at most 40 rows (evenly
  spaced over the run).

* ``--hang-every N`` makes every N-th origin (``o<N-1>``, ``o<2N-1>``, ...) dead: the server
  accepts its connections and never answers any of its requests, robots.txt included, as a
  firewalled or broken host does. The figure to watch is then "healthy origins crawled by": when
  the last page of an origin that answers was crawled, against the same crawl without dead
  origins. Dead origins' requests stay parked until ``GBOT_ROBOTS_PARK_TIMEOUT`` (600 s;
  ``--park-timeout`` sets it) or ``--timeout``, so the wall time says little in this setup.
  "robots.txt max in flight" is counted by the server (requests received, not yet answered, the
  hung ones included), beside the add-on's bound (budget + slow lane) and its own peaks.

Targets for the add-on: robots.txt in flight <= its budget's ceiling (``--budget``, else
``GBOT_ROBOTS_CONCURRENT_FETCHES``'s default, 8 x ``CONCURRENT_REQUESTS``) plus its slow
lane; wall time <= 0.6x the built-in's; peak RSS <= 1.25x the built-in's + 20 MB; nothing
dropped (but the requests of dead origins); every allowed page of a healthy origin crawled;
no disallowed page fetched; one robots.txt request per healthy origin.
The exit status is 0 whatever the figures (2 on bad usage).

    .venv/bin/python benchmarks/bench_broad.py [--origins 4000] [--allowed 3] [--disallowed 1]
        [--robots-delay 1.0] [--concurrent-requests 32] [--per-domain 8]
        [--download-timeout 180] [--timeout 900] [--modes addon,builtin,off] [--budget N]
        [--hang-every N] [--park-timeout S] [--order interleaved|origin] [--keep-alive 15]
        [--set NAME=VALUE] [--gc-threshold G0,G1,G2] [--seed upfront|start] [--trace] [--json]

The issue's two setups: the defaults (4,000 origins, ~5-10 min for both modes on 2 cores) and
``--origins 20000 --allowed 2 --disallowed 1 --robots-delay 0.3 --per-domain 2
--download-timeout 20 --timeout 900``, with ``--modes off,addon`` for the cost of obeying against
not obeying at all. Dead hosts: ``--origins 2000 --modes addon`` against the same with
``--hang-every 20``. Quick smoke test: ``--origins 200 --robots-delay 0.2``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from _common import (  # benchmarks/ is sys.path[0] when run as a script
    http_response,
    url_list_spider,
)

SUFFIX = ".broad.test"
ROBOTS_TXT = b"User-agent: *\nDisallow: /private/\n"

MODES: dict[str, dict[str, Any]] = {
    "addon": {"ROBOTSTXT_OBEY": True, "ADDONS": {"scrapy_gbot_robots.Addon": 0}},
    "builtin": {"ROBOTSTXT_OBEY": True},
    "off": {"ROBOTSTXT_OBEY": False},  # optional floor: the pages alone (fetches /private/ too)
}

CRAWL_SETTINGS: dict[str, Any] = {
    "USER_AGENT": "BenchBot/1.0",
    "DOWNLOAD_DELAY": 0,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
}

#: Stats copied into the report besides every ``robotstxt/*`` one.
KEPT_STATS = (
    "finish_reason",
    "downloader/request_count",
    "downloader/response_count",
    "downloader/exception_count",
    "scheduler/enqueued",
    "scheduler/dequeued",
    "log_count/WARNING",
    "log_count/ERROR",
    "memusage/max",
)


def _raise_fd_limit() -> int:
    """Thousands of sockets at once: lift the soft descriptor limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024  # bytes vs KiB


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --------------------------------------------------------------------------- server process


ROBOTS_RESPONSE = http_response(b"200 OK", ROBOTS_TXT, b"text/plain")
PAGE_RESPONSE = http_response(
    b"200 OK",
    b"<html><head><title>broad</title></head><body><p>A page of the broad crawl benchmark.</p>"
    b"</body></html>",
    b"text/html; charset=utf-8",
)
NOT_FOUND = http_response(b"404 Not Found", b"not found", b"text/plain")


@dataclass
class _Counters:
    robots: int = 0
    robots_in_flight: int = 0
    robots_in_flight_max: int = 0
    robots_in_flight_max_at: float = 0.0
    robots_per_origin: Counter[bytes] = field(default_factory=Counter)
    robots_cancelled: int = 0  # client went away before the delayed answer
    robots_hung: int = 0  # robots.txt requests of dead origins (never answered)
    hung: int = 0  # requests of dead origins, robots.txt included
    pages: int = 0
    disallowed: int = 0
    not_found: int = 0
    unknown_host: int = 0
    connections: int = 0
    connections_max: int = 0
    connections_total: int = 0
    idle_closed: int = 0
    first_request: float = 0.0
    last_request: float = 0.0
    errors: Counter[str] = field(default_factory=Counter)
    hang_every: int = 0

    def report(self) -> dict[str, Any]:
        """Summaries only: per-origin counts as a histogram {requests: origins}."""
        histogram = Counter(self.robots_per_origin.values())
        healthy = Counter(
            n for host, n in self.robots_per_origin.items() if not _dead(host, self.hang_every)
        )
        return {
            "robots": self.robots,
            "robots_in_flight_max": self.robots_in_flight_max,
            "robots_in_flight_max_at": round(self.robots_in_flight_max_at - self.first_request, 2)
            if self.robots
            else None,
            "robots_in_flight_at_end": self.robots_in_flight,
            "robots_cancelled": self.robots_cancelled,
            "robots_hung": self.robots_hung,
            "hung": self.hung,
            "robots_origins": len(self.robots_per_origin),
            "robots_per_origin_histogram": {str(k): v for k, v in sorted(histogram.items())},
            "robots_per_healthy_origin_histogram": {str(k): v for k, v in sorted(healthy.items())},
            "pages": self.pages,
            "disallowed": self.disallowed,
            "not_found": self.not_found,
            "unknown_host": self.unknown_host,
            "connections_max": self.connections_max,
            "connections_total": self.connections_total,
            "idle_closed": self.idle_closed,
            "active_seconds": round(self.last_request - self.first_request, 2),
            "errors": dict(self.errors),
            "peak_rss_mb": round(_peak_rss_mb(), 1),
            "cpu_seconds": round(_cpu_seconds(), 1),
        }


class _Pending:
    """One answer owed on a connection, in request order; ``data`` is None while delayed.

    ``robots``: a robots.txt answer, counted in flight until sent or the client goes away
    (a dead origin's never comes).
    """

    __slots__ = ("data", "handle", "robots")

    def __init__(self, data: bytes | None, robots: bool = False) -> None:
        self.data = data
        self.handle: asyncio.TimerHandle | None = None
        self.robots = robots


def _dead(host: bytes, hang_every: int) -> bool:
    """Whether ``o<i>.broad.test`` is a dead origin: every ``hang_every``-th one (i % N == N-1)."""
    if hang_every <= 0:
        return False
    try:
        index = int(host[1 : host.index(b".")])
    except ValueError:
        return False
    return index % hang_every == hang_every - 1


class _Http(asyncio.Protocol):
    """Just enough HTTP/1.1 for Scrapy's keep-alive GETs, virtual hosts by ``Host``."""

    def __init__(
        self, counters: _Counters, robots_delay: float, keep_alive: float, hang_every: int
    ) -> None:
        self.c = counters
        self.robots_delay = robots_delay
        self.keep_alive = keep_alive
        self.hang_every = hang_every
        self.loop = asyncio.get_running_loop()
        self.buffer = b""
        self.pending: deque[_Pending] = deque()
        self.idle: asyncio.TimerHandle | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        c = self.c
        c.connections += 1
        c.connections_total += 1
        c.connections_max = max(c.connections_max, c.connections)
        self._arm_idle()

    def connection_lost(self, exc: Exception | None) -> None:
        self.c.connections -= 1
        if self.idle is not None:
            self.idle.cancel()
        for owed in self.pending:
            if owed.handle is not None:
                owed.handle.cancel()
            if owed.data is None and owed.robots:
                self.c.robots_in_flight -= 1
                self.c.robots_cancelled += 1
        self.pending.clear()
        self.transport = None

    def data_received(self, data: bytes) -> None:
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
            self._request(head)
        self._flush()

    def _request(self, head: bytes) -> None:
        c = self.c
        c.last_request = self.loop.time()
        if not c.first_request:
            c.first_request = c.last_request
        line, _, headers = head.partition(b"\r\n")
        parts = line.split(b" ")
        path = parts[1] if len(parts) == 3 else b""
        host = b""
        at = headers.lower().find(b"host:")
        if at >= 0 and (at == 0 or headers[at - 1 : at] == b"\n"):
            host = headers[at + 5 :].split(b"\r\n", 1)[0].strip().lower()
            host = host.rsplit(b":", 1)[0] if b":" in host else host
        if not host.endswith(SUFFIX.encode()):
            c.unknown_host += 1
            self.pending.append(_Pending(NOT_FOUND))
        elif path == b"/robots.txt":
            c.robots += 1
            c.robots_per_origin[host] += 1
            c.robots_in_flight += 1
            if c.robots_in_flight > c.robots_in_flight_max:
                c.robots_in_flight_max = c.robots_in_flight
                c.robots_in_flight_max_at = c.last_request
            owed = _Pending(None, robots=True)
            if _dead(host, self.hang_every):  # accepted, never answered
                c.robots_hung += 1
                c.hung += 1
            else:
                owed.handle = self.loop.call_later(self.robots_delay, self._robots_ready, owed)
            self.pending.append(owed)
        elif _dead(host, self.hang_every):
            c.hung += 1
            self.pending.append(_Pending(None))
        elif path.startswith(b"/p/"):
            c.pages += 1
            self.pending.append(_Pending(PAGE_RESPONSE))
        elif path.startswith(b"/private/"):
            c.disallowed += 1
            self.pending.append(_Pending(PAGE_RESPONSE))
        else:
            c.not_found += 1
            self.pending.append(_Pending(NOT_FOUND))

    def _robots_ready(self, owed: _Pending) -> None:
        owed.data = ROBOTS_RESPONSE
        owed.handle = None
        self.c.robots_in_flight -= 1
        self._flush()

    def _flush(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        while self.pending and self.pending[0].data is not None:
            data = self.pending.popleft().data
            assert data is not None
            self.transport.write(data)
        if not self.pending and not self.buffer:
            self._arm_idle()

    def _arm_idle(self) -> None:
        if self.keep_alive > 0:
            if self.idle is not None:
                self.idle.cancel()
            self.idle = self.loop.call_later(self.keep_alive, self._idle_close)

    def _idle_close(self) -> None:
        self.idle = None
        if self.transport is not None and not self.pending:
            self.c.idle_closed += 1
            self.transport.close()


async def _serve(robots_delay: float, keep_alive: float, hang_every: int) -> None:
    _raise_fd_limit()
    loop = asyncio.get_running_loop()
    counters = _Counters(hang_every=hang_every)
    shown = 0

    def on_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # Count instead of flooding stderr (e.g. "socket.accept() out of system resource").
        nonlocal shown
        message = str(context.get("message", "?"))
        exc = context.get("exception")
        key = f"{message} ({type(exc).__name__}: {exc})" if exc else message
        counters.errors[key[:160]] += 1
        if shown < 3:
            shown += 1
            print(f"server: {key}", file=sys.stderr, flush=True)

    loop.set_exception_handler(on_error)
    server = await loop.create_server(
        lambda: _Http(counters, robots_delay, keep_alive, hang_every), "127.0.0.1", 0, backlog=4096
    )
    port = server.sockets[0].getsockname()[1]
    print(json.dumps({"port": port}), flush=True)
    # Serve until the parent closes our stdin (or dies), then report and leave.
    eof = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: None if eof.done() else eof.set_result(None))
    await eof
    loop.remove_reader(sys.stdin.fileno())
    server.close()
    print(json.dumps(counters.report()), flush=True)


# --------------------------------------------------------------------------- crawl process


def _healthy(origins: int, hang_every: int) -> int:
    """How many of the origins answer (the others are dead, see :func:`_dead`)."""
    return origins - (origins // hang_every if hang_every > 0 else 0)


def _origin(i: int, port: int) -> str:
    return f"http://o{i}{SUFFIX}:{port}"


def _start_urls(cfg: dict[str, Any]) -> Iterator[str]:
    """Allowed pages ``/p/<k>.html`` first, then ``/private/<k>.html``, for every origin."""
    paths = [f"/p/{k}.html" for k in range(cfg["allowed"])]
    paths += [f"/private/{k}.html" for k in range(cfg["disallowed"])]
    origins = range(cfg["origins"])
    if cfg["order"] == "interleaved":
        for path in paths:
            for i in origins:
                yield _origin(i, cfg["port"]) + path
    else:
        for i in origins:
            for path in paths:
                yield _origin(i, cfg["port"]) + path


def _lazy(spider_cls: type) -> type:
    """Scrapy's lazy ``start()`` ("start requests lazily" in its docs): the next start
    request only once the engine has room."""
    from scrapy import signals

    class LazySpider(spider_cls):  # type: ignore[misc]
        async def start(self) -> Any:
            async for request in super().start():
                if self.crawler.engine.needs_backout():
                    await self.crawler.signals.wait_for(signals.scheduler_empty)
                yield request

    LazySpider.name = spider_cls.name  # type: ignore[attr-defined]
    return LazySpider


def _thin(rows: list[list[Any]], most: int) -> list[list[Any]]:
    """At most ``most`` rows, evenly spaced, the first and the last kept."""
    if len(rows) <= most:
        return rows
    step = (len(rows) - 1) / (most - 1)
    return [rows[round(i * step)] for i in range(most)]


def _crawl(cfg: dict[str, Any]) -> None:
    _raise_fd_limit()
    import scrapy

    # benchmarks/ is sys.path[0] when this file runs as a script
    from _broad_resolver import BroadResolver, resolver_setting
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import IgnoreRequest

    from scrapy_gbot_robots._compat import crawl_load, looping_call
    from scrapy_gbot_robots._settings import load

    timing: dict[str, float] = {}
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    hang_every = cfg["hang_every"]
    healthy_expected = _healthy(cfg["origins"], hang_every) * cfg["allowed"]
    limits: dict[str, int] = {}

    def page(response: Any) -> None:
        if "/private/" in response.url:
            counts["disallowed_crawled"] += 1
            return
        counts["pages"] += 1
        if _dead(response.url.split("//", 1)[1].encode(), hang_every):
            counts["dead_pages"] += 1
        else:
            counts["healthy_pages"] += 1
            if counts["healthy_pages"] == healthy_expected:
                timing["healthy"] = time.perf_counter()

    def failed(failure: Any) -> None:
        request = getattr(failure, "request", None)
        private = request is not None and "/private/" in request.url
        if failure.check(IgnoreRequest) and "Forbidden by robots.txt" in str(failure.value):
            counts["forbidden" if private else "forbidden_allowed_page"] += 1
            return
        counts["failed"] += 1
        message = re.sub(r"\w+://\S+", "<url>", str(failure.value))  # one line per kind
        reasons[f"{type(failure.value).__name__}: {message[:100]}"] += 1

    spider_cls = url_list_spider("broad", lambda: _start_urls(cfg), page, failed)
    if cfg["seed"] == "start":
        spider_cls = _lazy(spider_cls)
    trace: list[list[Any]] = []
    sampler: list[Any] = []
    # Seconds the collector ran, per generation: what a full collection costs this crawl.
    gc_seconds = [0.0, 0.0, 0.0]
    gc_began = [0.0]

    def gc_timer(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_began[0] = time.perf_counter()
        elif "start" in timing and "end" not in timing:
            gc_seconds[info["generation"]] += time.perf_counter() - gc_began[0]

    gc.callbacks.append(gc_timer)

    def sample() -> None:
        engine = crawler.engine
        if engine is None or "start" not in timing:
            return
        active, concurrency, backlog = crawl_load(engine)
        get = crawler.stats.get_value
        parked = get("robotstxt/parked", 0) - get("robotstxt/released", 0)
        trace.append(
            [
                round(time.perf_counter() - timing["start"], 1),
                get("robotstxt/fetch_budget"),
                active,
                concurrency,
                backlog,
                parked - get("robotstxt/dropped", 0),
                counts["pages"],
                _rss_now(),
            ]
        )

    def engine_started() -> None:
        timing["start"] = time.perf_counter()
        timing["start_cpu"] = time.process_time()
        timing["start_gc2"] = gc.get_stats()[2]["collections"]
        if mode == "addon":  # its bound on robots.txt downloads: the budget's ceiling + lane
            config = load(crawler.settings.get)
            limits["budget"] = config.fetch_ceiling
            limits["floor"] = config.fetch_floor
            limits["slow_lane"] = config.slow_lane()
        if cfg["trace"]:
            loop = looping_call(sample)
            loop.start(1.0, now=True)
            sampler.append(loop)

    def spider_closed(spider: Any, reason: str) -> None:
        timing["end"] = time.perf_counter()
        timing["end_cpu"] = time.process_time()
        timing["end_gc2"] = gc.get_stats()[2]["collections"]
        if sampler and sampler[0].running:
            sampler[0].stop()

    mode = cfg["mode"]
    settings: dict[str, Any] = {
        **CRAWL_SETTINGS,
        "CONCURRENT_REQUESTS": cfg["concurrent_requests"],
        "CONCURRENT_REQUESTS_PER_DOMAIN": cfg["per_domain"],
        "DOWNLOAD_TIMEOUT": cfg["download_timeout"],
        "CLOSESPIDER_TIMEOUT": cfg["timeout"],
        **resolver_setting(),
        **cfg["extra"],
        **MODES[mode],
    }
    if mode == "addon" and cfg["budget"] is not None:
        settings["GBOT_ROBOTS_CONCURRENT_FETCHES"] = cfg["budget"]
    if mode == "addon" and cfg["park_timeout"] is not None:
        settings["GBOT_ROBOTS_PARK_TIMEOUT"] = cfg["park_timeout"]
    if cfg.get("gc_threshold"):
        gc.set_threshold(*cfg["gc_threshold"])
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(spider_cls)
    crawler.signals.connect(engine_started, signal=signals.engine_started)
    crawler.signals.connect(spider_closed, signal=signals.spider_closed)
    process.crawl(crawler)
    process.start()
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()
    kept = {
        k: v
        for k, v in sorted(stats.items())
        if (k.startswith("robotstxt/") or k in KEPT_STATS) and isinstance(v, (int, float, str))
    }
    end = timing.get("end", time.perf_counter())
    start = timing.get("start", end)
    result = {
        "mode": mode,
        "scrapy": scrapy.__version__,
        "seconds": round(end - start, 2),
        # When the last page of a healthy origin was crawled (None: some never were).
        "healthy_seconds": round(timing["healthy"] - start, 2) if "healthy" in timing else None,
        "healthy_pages": counts["healthy_pages"],
        "dead_pages": counts["dead_pages"],
        "limits": limits,
        "cpu_seconds": round(timing.get("end_cpu", 0.0) - timing.get("start_cpu", 0.0), 2),
        "gc_full": int(timing.get("end_gc2", 0) - timing.get("start_gc2", 0)),
        "gc_seconds": [round(v, 2) for v in gc_seconds],
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        "pages": counts["pages"],
        "pages_per_second": round(counts["pages"] / max(end - timing.get("start", end), 1e-9), 1),
        "forbidden": counts["forbidden"],
        "forbidden_allowed_page": counts["forbidden_allowed_page"],
        "disallowed_crawled": counts["disallowed_crawled"],
        "dropped": int(stats.get("robotstxt/dropped", 0)),
        "failed": counts["failed"],
        "failure_reasons": dict(reasons.most_common(10)),
        "finish_reason": stats.get("finish_reason"),
        "dns_lookups": BroadResolver.lookups,
        "dns_refused": BroadResolver.refused,
        "stats": kept,
        "trace": _thin(trace, 40),
    }
    print(json.dumps(result), flush=True)


# --------------------------------------------------------------------------- driver


def _start_server(args: argparse.Namespace) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--serve",
            f"--robots-delay={args.robots_delay}",
            f"--keep-alive={args.keep_alive}",
            f"--hang-every={args.hang_every}",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line:
        server.wait()
        raise SystemExit(f"the server did not start (exit {server.returncode})")
    return server, int(json.loads(line)["port"])


def _stop_server(server: subprocess.Popen[str]) -> dict[str, Any] | None:
    assert server.stdin is not None and server.stdout is not None
    server.stdin.close()
    line = server.stdout.readline()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    return json.loads(line) if line.strip() else None


def _run_mode(mode: str, args: argparse.Namespace, log: TextIO) -> dict[str, Any]:
    began = time.perf_counter()
    server, port = _start_server(args)
    cfg = {
        "mode": mode,
        "port": port,
        "origins": args.origins,
        "allowed": args.allowed,
        "disallowed": args.disallowed,
        "order": args.order,
        "concurrent_requests": args.concurrent_requests,
        "per_domain": args.per_domain,
        "download_timeout": args.download_timeout,
        "timeout": args.timeout,
        "budget": args.budget,
        "park_timeout": args.park_timeout,
        "hang_every": args.hang_every,
        "gc_threshold": args.gc_threshold,
        "extra": args.set,
        "seed": args.seed,
        "trace": args.trace,
    }
    crawl: dict[str, Any] | None = None
    error = None
    try:
        with tempfile.TemporaryFile("w+") as stderr:
            try:
                proc = subprocess.run(
                    [sys.executable, __file__, "--crawl", json.dumps(cfg)],
                    stdout=subprocess.PIPE,
                    stderr=stderr,
                    text=True,
                    # CLOSESPIDER_TIMEOUT ends the crawl; the rest is start-up and shutdown.
                    timeout=args.timeout + 300,
                    check=False,
                )
                lines = proc.stdout.strip().splitlines()
                if proc.returncode == 0 and lines:
                    crawl = json.loads(lines[-1])
                else:
                    error = f"crawler exited with {proc.returncode}"
            except subprocess.TimeoutExpired:
                error = f"crawler killed after {args.timeout + 300} s"
            stderr.seek(0, os.SEEK_END)
            size = stderr.tell()
            stderr.seek(max(0, size - 3000))
            tail = stderr.read()
            if error:
                print(f"{mode}: {error}; last stderr:\n{tail}", file=log, flush=True)
            elif tail.strip():
                print(f"{mode}: crawler stderr ({size} bytes), last lines:", file=log)
                print("  " + "\n  ".join(tail.strip().splitlines()[-40:]), file=log, flush=True)
    finally:
        served = _stop_server(server)
    return {
        "crawl": crawl,
        "server": served,
        "error": error,
        "run_seconds": round(time.perf_counter() - began, 1),
    }


def _histogram_text(histogram: dict[str, int]) -> str:
    return ", ".join(f"{v}x{k}" for k, v in histogram.items()) or "none"


def _rows(runs: dict[str, dict[str, Any]], args: argparse.Namespace) -> list[tuple[str, list[str]]]:
    healthy = _healthy(args.origins, args.hang_every)
    expected_pages = healthy * args.allowed
    expected_forbidden = healthy * args.disallowed

    def cell(run: dict[str, Any], what: str) -> str:
        crawl, served = run["crawl"] or {}, run["server"] or {}
        stats = crawl.get("stats", {})
        limits = crawl.get("limits") or {}
        values: dict[str, Any] = {
            "wall time (s)": crawl.get("seconds"),
            "healthy origins crawled by (s)": crawl.get("healthy_seconds"),
            "allowed pages per second": crawl.get("pages_per_second"),
            "crawler CPU (s)": crawl.get("cpu_seconds"),
            "  full GC collections (generation 2)": crawl.get("gc_full"),
            "  GC seconds (young, middle, full)": (
                "/".join(f"{v:.2f}" for v in crawl["gc_seconds"])
                if crawl.get("gc_seconds")
                else None
            ),
            "server CPU (s)": served.get("cpu_seconds"),
            "peak RSS (MB)": crawl.get("peak_rss_mb"),
            "robots.txt max in flight": served.get("robots_in_flight_max"),
            "  add-on bound (budget + slow lane)": (
                f"{limits['budget']} + {limits['slow_lane']}" if limits else None
            ),
            "  add-on budget (floor, peak)": (
                f"{limits['floor']}, {stats.get('robotstxt/fetch_budget_peak')}"
                f" ({stats.get('robotstxt/fetch_budget_grew', 0)} up,"
                f" {stats.get('robotstxt/fetch_budget_shrank', 0)} down)"
                if limits
                else None
            ),
            "  add-on peaks (budget, slow lane)": (
                f"{stats.get('robotstxt/fetch_in_flight_peak')},"
                f" {stats.get('robotstxt/fetch_slow_peak', 0)}"
                if "robotstxt/fetch_in_flight_peak" in stats
                else None
            ),
            "  reached at (s)": served.get("robots_in_flight_max_at"),
            "robots.txt requests": served.get("robots"),
            "  per origin (count x requests)": _histogram_text(
                served.get("robots_per_origin_histogram", {})
            )
            + (
                f", {args.origins - served['robots_origins']} never"
                if served and served.get("robots_origins", 0) < args.origins
                else ""
            ),
            "pages crawled / expected": f"{crawl.get('healthy_pages', '-')} / {expected_pages}"
            + (f" (+{crawl.get('dead_pages')} of dead origins)" if crawl.get("dead_pages") else ""),
            "requests hung by dead origins (server)": served.get("hung"),
            "forbidden / expected": f"{crawl.get('forbidden', '-')} / {expected_forbidden}",
            "dropped (robotstxt/dropped)": crawl.get("dropped"),
            "failed (other errbacks)": crawl.get("failed"),
            "disallowed fetched (server)": served.get("disallowed"),
            "TCP connections (max open / total)": (
                f"{served['connections_max']} / {served['connections_total']}" if served else None
            ),
            "finish reason": crawl.get("finish_reason"),
            "robotstxt/parked_peak": stats.get("robotstxt/parked_peak"),
            "run time incl. start/stop (s)": run["run_seconds"],
        }
        value = values[what]
        return "-" if value is None else str(value)

    names = [
        "wall time (s)",
        "healthy origins crawled by (s)",
        "allowed pages per second",
        "crawler CPU (s)",
        "  full GC collections (generation 2)",
        "  GC seconds (young, middle, full)",
        "server CPU (s)",
        "peak RSS (MB)",
        "robots.txt max in flight",
        "  add-on bound (budget + slow lane)",
        "  add-on budget (floor, peak)",
        "  add-on peaks (budget, slow lane)",
        "  reached at (s)",
        "robots.txt requests",
        "  per origin (count x requests)",
        "pages crawled / expected",
        "requests hung by dead origins (server)",
        "forbidden / expected",
        "dropped (robotstxt/dropped)",
        "failed (other errbacks)",
        "disallowed fetched (server)",
        "TCP connections (max open / total)",
        "finish reason",
        "robotstxt/parked_peak",
        "run time incl. start/stop (s)",
    ]
    if not any(
        (r["crawl"] or {}).get("stats", {}).get("robotstxt/parked_peak") for r in runs.values()
    ):
        names.remove("robotstxt/parked_peak")
    if not args.hang_every:
        names.remove("requests hung by dead origins (server)")
    return [(name, [cell(run, name) for run in runs.values()]) for name in names]


def _checks(
    runs: dict[str, dict[str, Any]], args: argparse.Namespace
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The ratios add-on / built-in and add-on / off, and the add-on's targets (``ok`` None:
    cannot tell)."""
    addon = runs.get("addon", {})
    builtin = runs.get("builtin", {})
    a, a_srv = addon.get("crawl") or {}, addon.get("server") or {}
    b = builtin.get("crawl") or {}
    b_srv = builtin.get("server") or {}
    ratios: dict[str, float] = {}
    for key, label in (("seconds", "wall time"), ("pages_per_second", "pages/s"),
                       ("cpu_seconds", "crawler CPU"), ("peak_rss_mb", "peak RSS")):  # fmt: skip
        if a.get(key) and b.get(key):
            ratios[label] = round(a[key] / b[key], 3)
    if a_srv.get("robots_in_flight_max") and b_srv.get("robots_in_flight_max"):
        ratios["robots.txt max in flight"] = round(
            a_srv["robots_in_flight_max"] / b_srv["robots_in_flight_max"], 3
        )
    off = (runs.get("off") or {}).get("crawl") or {}
    for key, label in (("seconds", "wall time"), ("peak_rss_mb", "peak RSS"),
                       ("healthy_seconds", "healthy origins crawled by")):  # fmt: skip
        if a.get(key) and off.get(key):
            ratios[f"{label} vs off"] = round(a[key] / off[key], 3)
    if not addon:
        return ratios, []
    limits = a.get("limits") or {}
    budget = limits.get("budget") or (
        args.budget if args.budget is not None else 8 * args.concurrent_requests
    )
    bound = budget + limits.get("slow_lane", 0)
    checks: list[dict[str, Any]] = []

    def check(name: str, ok: bool | None, detail: str) -> None:
        checks.append({"check": name, "ok": ok, "detail": detail})

    have_a, have_s = bool(a), bool(a_srv)
    in_flight = a_srv.get("robots_in_flight_max")
    check(
        f"robots.txt in flight <= budget + slow lane ({budget} + {bound - budget})",
        in_flight <= bound if have_s else None,
        f"max {in_flight}",
    )
    if have_a and b.get("seconds"):
        check(
            "wall time <= 0.6x built-in",
            a["seconds"] <= 0.6 * b["seconds"],
            f"{a['seconds']} s vs 0.6 x {b['seconds']} s = {0.6 * b['seconds']:.1f} s"
            + (
                " (the built-in stopped at CLOSESPIDER_TIMEOUT: its real time is longer;"
                " compare pages/s)"
                if b.get("finish_reason") == "closespider_timeout"
                else ""
            ),
        )
    else:
        check("wall time <= 0.6x built-in", None, "needs both modes")
    if have_a and b.get("peak_rss_mb"):
        limit = 1.25 * b["peak_rss_mb"] + 20
        check(
            "peak RSS <= 1.25x built-in + 20 MB",
            a["peak_rss_mb"] <= limit,
            f"{a['peak_rss_mb']} MB vs {limit:.1f} MB",
        )
    else:
        check("peak RSS <= 1.25x built-in + 20 MB", None, "needs both modes")
    dead = args.origins - _healthy(args.origins, args.hang_every)
    dead_requests = dead * (args.allowed + args.disallowed)
    check(
        "zero drops" + (f" but the {dead_requests} requests of dead origins" if dead else ""),
        a.get("dropped") == dead_requests if have_a else None,
        f"dropped {a.get('dropped')}, other failures {a.get('failed')}",
    )
    expected = (args.origins - dead) * args.allowed
    check(
        "every allowed page crawled" + (" (of healthy origins)" if dead else ""),
        a.get("healthy_pages") == expected if have_a else None,
        f"{a.get('healthy_pages')} / {expected}",
    )
    check(
        "no disallowed page fetched",
        a_srv.get("disallowed") == 0 and a.get("disallowed_crawled", 0) == 0 if have_s else None,
        f"server saw {a_srv.get('disallowed')}",
    )
    histogram = a_srv.get("robots_per_healthy_origin_histogram", {})
    check(
        "exactly one robots.txt request per origin" + (" (healthy ones)" if dead else ""),
        histogram == ({"1": args.origins - dead} if args.origins > dead else {})
        if have_s
        else None,
        f"{a_srv.get('robots')} requests; per origin: {_histogram_text(histogram)}"
        + (f" (+{a_srv.get('robots_hung')} to dead origins)" if dead else ""),
    )
    return ratios, checks


def _print_report(
    runs: dict[str, dict[str, Any]],
    ratios: dict[str, float],
    checks: list[dict[str, Any]],
    args: argparse.Namespace,
) -> None:
    rows = _rows(runs, args)
    modes = list(runs)
    first = max(len(name) for name, _ in rows)
    widths = [max(len(m), *(len(cells[i]) for _, cells in rows)) for i, m in enumerate(modes)]
    print()
    print(f"{'':{first}}  " + "  ".join(f"{m:>{w}}" for m, w in zip(modes, widths, strict=True)))
    for name, cells in rows:
        print(
            f"{name:{first}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))
        )
    for mode, run in runs.items():
        crawl = run["crawl"] or {}
        robots_stats = {
            k.removeprefix("robotstxt/"): v
            for k, v in crawl.get("stats", {}).items()
            if k.startswith("robotstxt/")
        }
        if robots_stats:
            print(f"{mode} robotstxt/* stats: {robots_stats}")
        if crawl.get("failure_reasons"):
            print(f"{mode} failures: {crawl['failure_reasons']}")
        if crawl.get("forbidden_allowed_page"):
            print(f"{mode}: {crawl['forbidden_allowed_page']} allowed pages were forbidden")
    if ratios:
        print()
        versus = {k: v for k, v in ratios.items() if not k.endswith(" vs off")}
        if versus:
            print("add-on / built-in: " + ", ".join(f"{k} {v:.2f}x" for k, v in versus.items()))
        floor = {k[: -len(" vs off")]: v for k, v in ratios.items() if k.endswith(" vs off")}
        if floor:
            print("add-on / off: " + ", ".join(f"{k} {v:.2f}x" for k, v in floor.items()))
    if checks:
        print()
        for c in checks:
            mark = {True: "✅", False: "❌", None: "  "}[c["ok"]]
            print(f"{mark} {c['check']}: {c['detail']}")
    stats = ((runs.get("addon") or {}).get("crawl") or {}).get("stats", {})
    if "robotstxt/parked_peak" in stats:
        print(f"add-on robotstxt/parked_peak: {stats['robotstxt/parked_peak']}")
    if args.trace:
        for mode, run in runs.items():
            _print_trace(mode, (run["crawl"] or {}).get("trace") or [])


def _rss_now() -> float | None:
    """The crawler's resident memory now (Linux), to see when the peak is reached."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def _print_trace(mode: str, rows: list[list[Any]]) -> None:
    if not rows:
        return
    print()
    print(f"{mode}, second by second:")
    head = ("t (s)", "budget", "downloading", "limit", "scheduler", "parked", "pages", "RSS (MB)")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join("-" if v is None else str(v) for v in row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--origins", type=int, default=4000)
    parser.add_argument("--allowed", type=int, default=3, help="allowed start URLs per origin")
    parser.add_argument(
        "--disallowed", type=int, default=1, help="start URLs per origin under /private/"
    )
    parser.add_argument(
        "--robots-delay", type=float, default=1.0, help="seconds before each robots.txt answer"
    )
    parser.add_argument("--concurrent-requests", type=int, default=32)
    parser.add_argument("--per-domain", type=int, default=8, help="CONCURRENT_REQUESTS_PER_DOMAIN")
    parser.add_argument("--download-timeout", type=float, default=180.0)
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="CLOSESPIDER_TIMEOUT of each crawl"
    )
    parser.add_argument(
        "--modes", default="addon,builtin", help=f"comma-separated, of {', '.join(MODES)}"
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=None,
        help="GBOT_ROBOTS_CONCURRENT_FETCHES (the budget's ceiling) for the add-on (not set"
        " unless given)",
    )
    parser.add_argument(
        "--order",
        choices=("interleaved", "origin"),
        default="interleaved",
        help="start URLs round-robin over origins, or origin by origin",
    )
    parser.add_argument(
        "--keep-alive", type=float, default=15.0, help="server's idle keep-alive timeout (s)"
    )
    parser.add_argument(
        "--hang-every",
        type=int,
        default=0,
        metavar="N",
        help="every N-th origin is dead: it accepts connections and never answers (0: none)",
    )
    parser.add_argument(
        "--park-timeout",
        type=float,
        default=None,
        help="GBOT_ROBOTS_PARK_TIMEOUT for the add-on (not set unless given): how long the"
        " requests of dead origins keep the crawl open",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra Scrapy setting for every mode (VALUE read as JSON if it parses), e.g."
        " SCHEDULER_PRIORITY_QUEUE=scrapy.pqueues.ScrapyPriorityQueue; repeatable",
    )
    parser.add_argument(
        "--gc-threshold",
        default=None,
        metavar="G0,G1,G2",
        help="the crawler's gc.set_threshold() in every mode (Python's default: 700,10,10)",
    )
    parser.add_argument(
        "--seed",
        choices=("upfront", "start"),
        default="upfront",
        help="start() yields every URL at once, or lazily, as the engine has room",
    )
    parser.add_argument(
        "--trace", action="store_true", help="print the crawl second by second (budget, queues)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crawl", metavar="CONFIG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.robots_delay, args.keep_alive, args.hang_every))
        return
    if args.crawl:
        _crawl(json.loads(args.crawl))
        return

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes: unknown or empty {args.modes!r}; known: {', '.join(MODES)}")
    if len(set(modes)) != len(modes):
        parser.error("--modes: a mode appears twice")
    for name in ("origins", "concurrent_requests", "per_domain"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.allowed < 0 or args.disallowed < 0 or args.allowed + args.disallowed < 1:
        parser.error("--allowed and --disallowed must be >= 0, with at least one start URL")
    if args.budget is not None and args.budget < 1:
        parser.error("--budget must be >= 1")
    if args.hang_every < 0:
        parser.error("--hang-every must be >= 0")
    if args.park_timeout is not None and args.park_timeout <= 0:
        parser.error("--park-timeout must be > 0")
    if min(args.robots_delay, args.keep_alive) < 0 or min(args.download_timeout, args.timeout) <= 0:
        parser.error("delays must be >= 0 and timeouts > 0")

    if args.gc_threshold is not None:
        try:
            args.gc_threshold = [int(v) for v in args.gc_threshold.split(",")]
        except ValueError:
            args.gc_threshold = []
        if len(args.gc_threshold) != 3 or min(args.gc_threshold) < 0:
            parser.error("--gc-threshold: expected three integers >= 0, e.g. 100000,50,1000")
    extra: dict[str, Any] = {}
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"--set: expected NAME=VALUE, got {item!r}")
        try:
            extra[name.strip()] = json.loads(value)
        except ValueError:
            extra[name.strip()] = value
    args.set = extra

    log = sys.stderr if args.json else sys.stdout
    print(
        f"{args.origins} origins x ({args.allowed} allowed + {args.disallowed} disallowed) start"
        f" URLs ({args.order}), robots.txt after {args.robots_delay} s, CONCURRENT_REQUESTS"
        f" {args.concurrent_requests}, per domain {args.per_domain}, DOWNLOAD_TIMEOUT"
        f" {args.download_timeout}, CLOSESPIDER_TIMEOUT {args.timeout}"
        + (f", add-on budget {args.budget}" if args.budget is not None else "")
        + (", start() lazy" if args.seed == "start" else "")
        + (
            f", every {args.hang_every}-th origin dead ({args.origins // args.hang_every})"
            if args.hang_every
            else ""
        )
        + (f", park timeout {args.park_timeout}" if args.park_timeout is not None else "")
        + (f", extra settings {extra}" if extra else "")
        + (f", gc threshold {tuple(args.gc_threshold)}" if args.gc_threshold else ""),
        file=log,
        flush=True,
    )
    began = time.perf_counter()
    runs: dict[str, dict[str, Any]] = {}
    for mode in modes:
        print(f"{mode}: crawling ...", file=log, flush=True)
        run = _run_mode(mode, args, log)
        runs[mode] = run
        crawl, served = run["crawl"] or {}, run["server"] or {}
        print(
            f"{mode}: {crawl.get('pages')} pages in {crawl.get('seconds')} s"
            f" ({crawl.get('finish_reason')}), healthy origins done at"
            f" {crawl.get('healthy_seconds')} s, peak RSS {crawl.get('peak_rss_mb')} MB,"
            f" robots.txt max in flight {served.get('robots_in_flight_max')};"
            f" run took {run['run_seconds']} s",
            file=log,
            flush=True,
        )
    ratios, checks = _checks(runs, args)
    if args.json:
        config = {k: v for k, v in vars(args).items() if k not in ("serve", "crawl", "json")}
        print(json.dumps({"config": config, "runs": runs, "ratios": ratios, "checks": checks}))
    else:
        _print_report(runs, ratios, checks, args)
    print(f"total time {time.perf_counter() - began:.0f} s", file=log)


if __name__ == "__main__":
    main()
