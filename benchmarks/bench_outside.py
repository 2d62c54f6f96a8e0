"""The 2,000-origin crawl measured from outside: a project made by ``scrapy startproject``.

Why a second harness for a figure ``bench_broad.py`` already gives: issue 26's 2,000-origin
row was also measured from outside the project (2.5x off's time, against 3.6x in
``bench_broad.py``), and a harness can flatter the code it was written beside. This one
shares nothing with the others: no resolver of ours, no in-process timing, no helper module.
It does what a user would: ``scrapy startproject``, a spider, one setting, and ``scrapy
crawl`` timed by the operating system, once with ``ROBOTSTXT_OBEY = False`` and once with
the add-on in ``ADDONS``.

* Origins are loopback addresses (``127.10.x.y:8080``, one listening socket each), so each
  is its own download slot without any name resolution; Linux routes all of ``127.0.0.0/8``
  to the loopback interface (other systems may not: the benchmark says so and stops).
* The server is this file run as ``serve`` in a process of its own: robots.txt
  (``Disallow: /private/``) answers after ``--robots-delay`` seconds, pages at once, HTTP/1.1
  keep-alive. It counts robots.txt requests, pages and forbidden pages received.
* The spider yields ``--allowed`` pages under ``/p/`` then ``--disallowed`` under
  ``/private/`` for every origin, interleaved across origins, all at once (``start()``, or
  ``start_requests()`` before Scrapy 2.13); settings are the template's but ``CONCURRENT_REQUESTS``,
  ``CONCURRENT_REQUESTS_PER_DOMAIN`` and ``DOWNLOAD_DELAY = 0``.
* Figures per crawl: the process's wall time, its CPU and peak RSS (``wait4``), Scrapy's own
  ``elapsed_time_seconds``, and the server's counts. Target: add-on / off <= 1.5x in wall
  time. The exit status is 0 whatever the figures (2 on bad usage or an unusable machine).

    .venv/bin/python benchmarks/bench_outside.py [--origins 2000] [--robots-delay 1.0]
        [--allowed 3] [--disallowed 1] [--concurrent-requests 32] [--per-domain 8]
        [--rounds 1] [--modes off,addon]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

PORT = 8080
ROBOTS = b"User-agent: *\nDisallow: /private/\n"

SPIDER = """
import scrapy

ADDRESSES = {addresses!r}


class Broad(scrapy.Spider):
    name = "broad"

    async def start(self):  # Scrapy >= 2.13
        for request in self.start_requests():
            yield request

    def start_requests(self):  # Scrapy < 2.13
        for k in range({allowed}):
            for address in ADDRESSES:
                yield scrapy.Request(f"http://{{address}}:{port}/p/{{k}}")
        for k in range({disallowed}):
            for address in ADDRESSES:
                yield scrapy.Request(f"http://{{address}}:{port}/private/{{k}}")

    def parse(self, response):
        yield {{"url": response.url}}
"""

SETTINGS = """
import os

CONCURRENT_REQUESTS = {concurrent}
CONCURRENT_REQUESTS_PER_DOMAIN = {per_domain}
DOWNLOAD_DELAY = 0
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
if os.environ.get("OUTSIDE_MODE") == "addon":
    ROBOTSTXT_OBEY = True
    ADDONS = {{"scrapy_gbot_robots.Addon": 0}}
else:
    ROBOTSTXT_OBEY = False
"""


def address(i: int) -> str:
    """The i-th origin's loopback address (200 per /24, never .0 or .255)."""
    return f"127.10.{i // 200}.{i % 200 + 1}"


async def _serve(origins: int, delay: float) -> None:
    counts: Counter[str] = Counter()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                path = line.split()[1]
                while (await reader.readline()) not in (b"\r\n", b""):
                    pass
                if path == b"/robots.txt":
                    counts["robots.txt"] += 1
                    await asyncio.sleep(delay)
                    body, kind = ROBOTS, b"text/plain"
                else:
                    counts["forbidden" if path.startswith(b"/private/") else "pages"] += 1
                    body, kind = b"<html><body>" + path + b"</body></html>", b"text/html"
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: "
                    + kind
                    + b"\r\nContent-Length: "
                    + str(len(body)).encode()
                    + b"\r\n\r\n"
                    + body
                )
                await writer.drain()
        except (ConnectionError, IndexError):
            pass
        finally:
            writer.close()

    servers = [await asyncio.start_server(handle, address(i), PORT) for i in range(origins)]
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    print("ready", flush=True)
    await stop
    for server in servers:
        server.close()
    print(json.dumps(dict(counts)), flush=True)


def _usable() -> bool:
    """Whether this system routes 127.10.0.0/16 to the loopback interface."""
    try:
        with socket.socket() as probe:
            probe.bind((address(1999), 0))
    except OSError:
        return False
    return True


def _make_project(root: Path, args: argparse.Namespace) -> Path:
    subprocess.run(
        [sys.executable, "-m", "scrapy", "startproject", "outside", str(root / "outside")],
        check=True,
        capture_output=True,
    )
    project = root / "outside"
    with (project / "outside" / "settings.py").open("a") as settings:
        settings.write(
            SETTINGS.format(concurrent=args.concurrent_requests, per_domain=args.per_domain)
        )
    (project / "outside" / "spiders" / "broad.py").write_text(
        SPIDER.format(
            addresses=[address(i) for i in range(args.origins)],
            allowed=args.allowed,
            disallowed=args.disallowed,
            port=PORT,
        )
    )
    return project


def _crawl(project: Path, mode: str, args: argparse.Namespace) -> dict[str, float | int | str]:
    server = subprocess.Popen(
        [sys.executable, __file__, "serve", str(args.origins), str(args.robots_delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    if server.stdout.readline().strip() != "ready":
        raise SystemExit("the server did not start")
    log = project / f"{mode}.log"
    log.unlink(missing_ok=True)  # Scrapy appends to LOG_FILE
    started = time.monotonic()
    crawler = subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "broad", "-s", f"LOG_FILE={log}"],
        cwd=project,
        env={**os.environ, "OUTSIDE_MODE": mode},
    )
    _, status, usage = os.wait4(crawler.pid, 0)
    wall = time.monotonic() - started
    server.send_signal(signal.SIGTERM)
    counts = json.loads(server.communicate(timeout=60)[0].strip().splitlines()[-1])
    text = log.read_text()
    elapsed = re.search(r"'elapsed_time_seconds': ([\d.]+)", text)
    return {
        "mode": mode,
        "status": os.waitstatus_to_exitcode(status),
        "wall": wall,
        "elapsed": float(elapsed.group(1)) if elapsed else float("nan"),
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "robots.txt": counts.get("robots.txt", 0),
        "pages": counts.get("pages", 0),
        "forbidden": counts.get("forbidden", 0),
    }


def main() -> int:
    if sys.argv[1:2] == ["serve"]:
        asyncio.run(_serve(int(sys.argv[2]), float(sys.argv[3])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--origins", type=int, default=2000)
    parser.add_argument("--robots-delay", type=float, default=1.0)
    parser.add_argument("--allowed", type=int, default=3)
    parser.add_argument("--disallowed", type=int, default=1)
    parser.add_argument("--concurrent-requests", type=int, default=32)
    parser.add_argument("--per-domain", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--modes", default="off,addon")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if not 1 <= args.origins <= 50_000 or set(modes) - {"off", "addon"} or args.rounds < 1:
        parser.error("--origins 1..50000, --modes from off,addon, --rounds >= 1")
    # Children inherit the limit: the server holds a socket per origin, and the crawler a
    # kept-alive connection per origin.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if not _usable():
        print("this system does not route 127.10.0.0/16 to loopback: nothing measured")
        return 2
    print(
        f"{args.origins} origins x ({args.allowed} allowed + {args.disallowed} forbidden), "
        f"robots.txt after {args.robots_delay} s, CONCURRENT_REQUESTS "
        f"{args.concurrent_requests}, {args.per_domain} per domain; load average "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    header = "mode     wall s  crawl s  CPU s   RSS MB  robots.txt  pages  forbidden  exit"
    with tempfile.TemporaryDirectory() as root:
        project = _make_project(Path(root), args)
        for round_ in range(args.rounds):
            order = modes if round_ % 2 == 0 else modes[::-1]
            runs = {mode: _crawl(project, mode, args) for mode in order}
            print(f"round {round_ + 1}\n{header}")
            for run in runs.values():
                print(
                    f"{run['mode']:<8} {run['wall']:>6.1f}  {run['elapsed']:>7.1f}  "
                    f"{run['cpu']:>5.1f}  {run['rss_mb']:>6.1f}  {run['robots.txt']:>10}  "
                    f"{run['pages']:>5}  {run['forbidden']:>9}  {run['status']:>4}"
                )
            for run in runs.values():
                if run["pages"] != args.origins * args.allowed:
                    print(f"{run['mode']}: not every allowed page was fetched (see its log)")
            if {"off", "addon"} <= runs.keys():
                ratio = float(runs["addon"]["wall"]) / float(runs["off"]["wall"])
                rss = float(runs["addon"]["rss_mb"]) / float(runs["off"]["rss_mb"])
                verdict = "met" if ratio <= 1.5 else "missed"
                print(f"add-on / off: {ratio:.2f}x wall (<= 1.5x: {verdict}), {rss:.2f}x RSS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
