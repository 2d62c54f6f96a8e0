"""Memory per parked request, against the same requests in Scrapy's own scheduler.

Why this shape: a broad crawl parks every request of an origin whose robots.txt is not known
yet, and Scrapy 2.13+ reads the whole seed list eagerly, so parking must cost no more than the
scheduler would for the same requests (the issue's rule), and with ``JOBDIR`` no more memory
than Scrapy's disk queues. So we build N crawl-like requests spread over many origins and put
them, in a fresh subprocess per contender (tracemalloc, so allocator noise from other runs
cannot leak in), either:

* through the gate into the memory lot (what the middleware does without ``JOBDIR``: the lot
  plus the dupefilter's fingerprint that the middleware records when it parks), or
* into Scrapy's default ``Scheduler`` (memory queues + ``RFPDupeFilter``), or
* through the gate into the SQLite lot under a ``JOBDIR`` (what the middleware does with one), or
* into Scrapy's ``Scheduler`` with a ``JOBDIR`` (disk queues).

Each prints the bytes retained per request beyond the request objects themselves (the
requests are built before the measurement starts), and the ratio ours / Scrapy's.

    .venv/bin/python benchmarks/bench_parking.py [--requests 50000] [--origins 5000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tracemalloc
from typing import Any

MODES = ("requests", "gate-memory", "scheduler-memory", "gate-jobdir", "scheduler-jobdir")


def _request(i: int, origins: int, spider: Any) -> Any:
    import scrapy

    return scrapy.Request(
        f"http://o{i % origins}.broad.test/p/{i}.html",
        callback=spider.parse,
        errback=spider.failed,
    )


def _measure(mode: str, n: int, origins: int) -> dict[str, float]:
    import scrapy
    from scrapy.utils.test import get_crawler

    class Spider(scrapy.Spider):
        name = "park"

        def parse(self, response: Any) -> None:
            return None

        def failed(self, failure: Any) -> None:
            return None

    jobdir = tempfile.mkdtemp(prefix="bench-parking-") if mode.endswith("jobdir") else None
    settings: dict[str, Any] = {"ROBOTSTXT_OBEY": True, "LOG_LEVEL": "ERROR"}
    if jobdir:
        settings["JOBDIR"] = jobdir
    crawler = get_crawler(Spider, settings)
    spider = Spider.from_crawler(crawler)
    crawler.spider = spider
    # Scrapy's default priority queue (DownloaderAwarePriorityQueue) reads the downloader.
    crawler.engine = crawler._create_engine()
    from scrapy.core.scheduler import Scheduler

    scheduler = Scheduler.from_crawler(crawler)
    scheduler.open(spider)
    _request(0, origins, spider)  # first-use caches out of the measurement
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    kept: list[Any] = []
    if mode == "requests":  # the requests alone, kept alive: what any queue holds at least
        kept = [_request(i, origins, spider) for i in range(n)]
    elif mode.startswith("scheduler"):
        for i in range(n):
            scheduler.enqueue_request(_request(i, origins, spider))
    else:
        from scrapy_gbot_robots._meta import SEEN
        from scrapy_gbot_robots.crawl.effects import Outbox
        from scrapy_gbot_robots.crawl.gate import Gate
        from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
        from scrapy_gbot_robots.crawl.pacing import Pacing
        from scrapy_gbot_robots.parking.memory import MemoryLot
        from scrapy_gbot_robots.parking.sqlite import SqliteLot
        from scrapy_gbot_robots.policy.states import PolicyConfig
        from scrapy_gbot_robots.stores.memory import MemoryStore

        def dumps(request: Any) -> bytes:
            import pickle

            return pickle.dumps(request.to_dict(spider=spider), protocol=4)

        lot: Any = (
            SqliteLot(f"{jobdir}/gbot_robots/parked.sqlite3", dumps, lambda data: data)
            if jobdir
            else MemoryLot()
        )
        gate: Gate[Any] = Gate(
            MemoryStore(10_000),
            PolicyConfig(),
            lot,
            Outbox(),
            Lifecycle(lambda: True, clock=lambda: 0.0),
            pacing=Pacing(16),
            park_timeout=600,
            max_fetches=32,
        )
        df = scheduler.df
        for i in range(n):
            request = _request(i, origins, spider)
            df.request_seen(request)  # what the middleware's admit() records at park time
            request.meta[SEEN] = True
            gate.schedule(f"http://o{i % origins}.broad.test", request, 0.0)
        lot.flush()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    retained = sum(s.size_diff for s in after.compare_to(before, "filename"))
    del kept
    return {"bytes_per_request": retained / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--origins", type=int, default=5_000)
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_measure(args.child, args.requests, args.origins)))
        return
    results: dict[str, float] = {}
    for mode in MODES:
        out = subprocess.run(
            [sys.executable, __file__, "--child", mode, "--requests", str(args.requests),
             "--origins", str(args.origins)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        results[mode] = json.loads(out.stdout.strip().splitlines()[-1])["bytes_per_request"]
    base = results["requests"]
    print(f"{args.requests:,} requests over {args.origins:,} origins; memory retained per request")
    print("(tracemalloc, a fresh process each; 'beyond' = minus the request objects themselves)")
    print(f"  {'the requests alone':26} {base:8.1f} B/request")
    for mode in MODES[1:]:
        extra = results[mode] - base
        where = "on disk: request freed" if mode.endswith("jobdir") else f"beyond: {extra:7.1f} B"
        print(f"  {mode:26} {results[mode]:8.1f} B/request   ({where})")
    memory = (results["gate-memory"] - base) / (results["scheduler-memory"] - base)
    print(f"without JOBDIR: parking / scheduler, beyond the requests = {memory:.2f}x (target <= 1)")
    disk = results["gate-jobdir"] / max(results["scheduler-jobdir"], 1.0)
    print(f"with JOBDIR:    parking / scheduler, in memory = {disk:.2f}x")


if __name__ == "__main__":
    main()
