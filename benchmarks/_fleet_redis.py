"""``bench_fleet.py``'s Redis side: a ``redis-server`` of its own, what INFO says, and ``sizing``.

Why this module: the fleet benchmark needs the same real ``redis-server`` for three runs (the
4-crawler share run, the crawls of ``commands`` and ``scale``, and ``sizing``), and the
figures of a capacity model come from the server itself, not from the client: ``INFO memory``
(``used_memory``), ``MEMORY USAGE``, ``INFO commandstats``, ``INFO cpu`` and ``INFO stats``
(bytes in and out). ``sizing`` needs no crawl, so it lives here whole:

* **Per origin state**: N states (10,000 and 100,000 by default) written through the real
  ``RedisStore`` (``put_soon``, its pipelined Lua writes), after a ``FLUSHALL``;
  ``used_memory`` after minus before, divided by N, and ``MEMORY USAGE`` of a few keys. Four
  kinds: a typical robots.txt (the 2-10 KB files of the shared corpus, in turn), the whole
  corpus in turn (its real mix of sizes), an allow-all 404 and a server error (a first 5xx,
  no earlier copy). Each state goes through the policy (``evaluate``) as a fetch would. At
  the largest N, also the typical kind with a TTL (``GBOT_ROBOTS_STORE_KEEP``), and every
  kind with the server's ``hash-max-listpack-value`` raised to ``--listpack`` (4096): a
  state's hash holds an entry longer than that setting (64 B by default) as a real hash table.
* **Per parked request**: a typical ``Request`` (a 90-character URL, a ``Referer``, ``depth``
  and the plugin's marker in ``meta``, a callback and an errback) through the real codec and
  ``RedisLot.push``, 10 per origin and 1 per origin, so the per-request and per-origin
  parts (the list and its index entry) can be told apart.
* **Latency** with 100,000 typical states stored: ``load`` (one ``HGET``), a write
  (``put_soon`` and the store's flush of that origin, one Lua ``EVALSHA``) and a fetch's
  bookkeeping (``acquire``, ``put_soon``, ``release``: what a new origin costs the worker that
  fetches it), one at a time on an otherwise idle server, over loopback; p50 and p99.
"""

from __future__ import annotations

import asyncio
import os
import platform
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from _common import DEFAULT_CORPUS, fmt_bytes, percentile

#: Now, so that a state written with a TTL (``GBOT_ROBOTS_STORE_KEEP``) does not expire at once.
NOW = float(int(time.time()))
STATE_KINDS = ("typical", "corpus", "404", "5xx")


# --------------------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisProc:
    """One ``redis-server`` on a free 127.0.0.1 port, no persistence, stopped by its PID."""

    def __init__(self, directory: str) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not os.access(binary, os.X_OK):
            print("error: redis-server is not installed", file=sys.stderr)
            raise SystemExit(2)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        command = [
            binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", directory, "--logfile", "redis.log",
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise SystemExit(f"redis-server did not start on port {self.port}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def client(self) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=30)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL by PID when it lingers."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def used_memory(client: Any) -> int:
    return int(client.info("memory")["used_memory"])


def server_cpu(client: Any) -> float:
    """The server's CPU seconds so far (user + sys, every thread)."""
    cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def counters(client: Any) -> dict[str, Any]:
    """What a crawl's deltas are taken from: commands by name, CPU, bytes in and out."""
    stats = client.info("stats")
    return {
        "commands": {
            name.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"]))
            for name, v in client.info("commandstats").items()
        },
        "cpu": server_cpu(client),
        "net_in": int(stats["total_net_input_bytes"]),
        "net_out": int(stats["total_net_output_bytes"]),
        "processed": int(stats["total_commands_processed"]),
    }


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    names = set(after["commands"]) | set(before["commands"])
    commands = {}
    for name in names:
        c0, u0 = before["commands"].get(name, (0, 0))
        c1, u1 = after["commands"].get(name, (0, 0))
        if c1 - c0:
            commands[name] = (c1 - c0, u1 - u0)
    out = {k: after[k] - before[k] for k in ("cpu", "net_in", "net_out", "processed")}
    return {**out, "commands": commands}


# --------------------------------------------------------------------------- machine facts


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat (0, 0 elsewhere)."""
    try:
        fields = [float(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    return sum(fields[:8]) - idle, sum(fields[:8])


def machine_busy(before: tuple[float, float], after: tuple[float, float]) -> float:
    """Share of every core that was busy between two ``cpu_times()`` (anyone's processes)."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else float("nan")


def machine_facts(redis_client: Any | None = None) -> str:
    """The facts a figure rests on: cores, CPU, memory, load, versions."""
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = Path("/proc/meminfo").read_text().split("\n")[0].split()[1]
        memory = f"{int(mem) / 1024 / 1024:.1f} GiB RAM"
    except (OSError, IndexError, ValueError):
        memory = "? RAM"
    load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    import redis
    import scrapy

    parts = [
        f"{os.cpu_count()} cores ({model})",
        memory,
        f"load average {load}",
        f"{platform.system()} {platform.release()}",
        f"Python {platform.python_version()}",
        f"Scrapy {scrapy.__version__}",
        f"redis-py {redis.__version__}",
    ]
    try:
        import scrapy_redis  # type: ignore[import-untyped]

        parts.append(f"scrapy-redis {getattr(scrapy_redis, '__version__', '?')}")
    except ImportError:
        pass
    if redis_client is not None:
        server = redis_client.info("server")
        memory_info = redis_client.info("memory")
        parts.append(
            f"redis-server {server['redis_version']} ({memory_info['mem_allocator']}, "
            f"{'io-threads' if server.get('io_threads_active') else 'single-threaded'})"
        )
    return "machine: " + "; ".join(parts)


# --------------------------------------------------------------------------- states


def _states(kind: str, corpus: Path) -> list[Any]:
    """The states one kind cycles through, each built by the policy as a fetch would."""
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig

    cfg = PolicyConfig()
    if kind == "404":
        return [evaluate(FetchResult(404, b"not found"), NOW, None, cfg)]
    if kind == "5xx":
        return [evaluate(FetchResult(503, b"busy"), NOW, None, cfg)]
    files = sorted((corpus / "robots").glob("*.txt"))
    if kind == "typical":
        files = [p for p in files if 2048 <= p.stat().st_size <= 10240]
    if not files:
        raise SystemExit(f"error: no robots.txt files for '{kind}' in {corpus / 'robots'}")
    return [evaluate(FetchResult(200, p.read_bytes()), NOW, None, cfg) for p in files]


def origin(i: int) -> str:
    """An origin key of a realistic length (``https://www.`` + a 14-character name)."""
    return f"https://www.site{i:07d}.example"


async def _fill(url: str, states: Sequence[Any], n: int, client: Any, keep: float) -> int:
    """Write n states through ``RedisStore.put_soon``; wait (bounded) until all are stored.

    Returns the outages the store went through (timeouts on a busy machine)."""
    from scrapy_gbot_robots.stores.redis import RedisStore

    start = int(client.dbsize())
    store = RedisStore(url, max_pending=n + 1, keep=keep)
    try:
        for i in range(n):
            store.put_soon(origin(i), states[i % len(states)])
            if i % 1000 == 999:
                await asyncio.sleep(0)  # let the flush task send
        # A timeout on a busy machine is an outage to the store: it keeps the writes and
        # sends them when Redis answers again, so only a deadline ends the wait.
        deadline = time.monotonic() + 600
        while int(client.dbsize()) < start + n:
            if time.monotonic() > deadline or store.write_errors:
                raise SystemExit(f"error: states not written ({store.counters()})")
            await asyncio.sleep(0.02)
        return store.outages
    finally:
        store.close()


def memory_per_state(
    rp: RedisProc, kinds: Sequence[str], sizes: Sequence[int], corpus: Path, listpack: int
) -> Iterator[dict[str, Any]]:
    """One row per kind and N; at the largest N also the typical kind with a TTL, and every
    kind with ``hash-max-listpack-value`` raised to ``listpack`` (a server setting; 0: not)."""
    from scrapy_gbot_robots.stores.entry import encode

    client = rp.client()
    default = client.config_get("hash-max-listpack-value")["hash-max-listpack-value"]
    largest = max(sizes)
    plan: list[tuple[str, int, float, int | None]] = []
    for kind in kinds:
        plan += [(kind, n, 0.0, None) for n in sizes]
        if kind == "typical":
            plan.append((kind, largest, 90 * 86_400.0, None))
    if listpack:
        plan += [(kind, largest, 0.0, listpack) for kind in kinds]
    for kind, n, keep, value in plan:
        states = _states(kind, corpus)
        entry = sorted(len(encode(s)) for s in states)[len(states) // 2]
        client.config_set("hash-max-listpack-value", value or default)
        client.flushall()
        before = used_memory(client)
        began = time.perf_counter()
        outages = asyncio.run(_fill(rp.url, states, n, client, keep))
        seconds = time.perf_counter() - began
        after = used_memory(client)
        keys = [f"gbot_robots:origin:{origin(i)}" for i in (0, n // 3, n // 2, n - 1)]
        usage = [int(client.memory_usage(k, samples=0) or 0) for k in keys]
        label = kind + (" +keep (TTL)" if keep else "")
        yield {
            "kind": label + (f" listpack {value}" if value else ""),
            "n": n,
            "per_state": (after - before) / n,
            "memory_usage": usage,
            "encoding": client.object("encoding", keys[0]).decode(),
            "entry_median": entry,
            "writes_per_s": n / seconds,
            "outages": outages,
        }
    client.config_set("hash-max-listpack-value", default)
    client.flushall()


# --------------------------------------------------------------------------- parked requests


def typical_request(spider: Any, i: int, j: int) -> Any:
    """A request as it is parked: made in a callback, before the downloader's middlewares."""
    from scrapy import Request

    site = origin(i)
    return Request(
        f"{site}/catalogue/category/books/travel_2/item-{j:05d}/index.html?sort=price&page={j}",
        callback=spider.parse_page,
        errback=spider.failed,
        headers={"Referer": f"{site}/catalogue/category/books/travel_2/index.html"},
        meta={"depth": 2, "_gbot_robots_seen": True},
        priority=-2,
    )


def memory_per_parked(rp: RedisProc, requests: int, per_origin: Sequence[int]) -> dict[str, Any]:
    from scrapy import Spider

    from scrapy_gbot_robots.parking.codec import RequestCodec
    from scrapy_gbot_robots.parking.redis import RedisLot

    class Shop(Spider):
        name = "shop"

        def parse_page(self, response: Any) -> None:
            pass

        def failed(self, failure: Any) -> None:
            pass

    spider = Shop()
    codec = RequestCodec(lambda: spider, lambda request, exc: None)
    client = rp.client()
    sample = codec.dumps(typical_request(spider, 0, 0))
    runs = []
    for k in per_origin:
        client.flushall()
        lot: RedisLot[Any] = RedisLot(client, "shop:gbot_robots", codec.dumps, codec.loads)
        before = used_memory(client)
        origins = requests // k
        for j in range(k):
            for i in range(origins):
                lot.push(origin(i), typical_request(spider, i, j), NOW + j)
        after = used_memory(client)
        lists = [f"shop:gbot_robots:parked:{origin(i)}" for i in (0, origins // 2)]
        runs.append(
            {
                "per_origin": k,
                "requests": origins * k,
                "origins": origins,
                "per_request": (after - before) / (origins * k),
                "list_usage": [int(client.memory_usage(x, samples=0) or 0) for x in lists],
                "list_encoding": client.object("encoding", lists[0]).decode(),
                "index_usage": int(client.memory_usage("shop:gbot_robots:parked_index", samples=0)),
                "errors": lot.errors,
            }
        )
    client.flushall()
    # used = a * requests + b * origins, from the two runs (10 per origin, 1 per origin)
    (r1, o1, m1), (r2, o2, m2) = [
        (r["requests"], r["origins"], r["per_request"] * r["requests"]) for r in runs[:2]
    ]
    det = r1 * o2 - r2 * o1
    a = (m1 * o2 - m2 * o1) / det if det else float("nan")
    b = (r1 * m2 - r2 * m1) / det if det else float("nan")
    return {"codec_bytes": len(sample) + 8, "runs": runs, "per_request": a, "per_origin": b}


# --------------------------------------------------------------------------- latency


async def _latency(url: str, n: int, samples: int, corpus: Path) -> dict[str, list[float]]:
    from scrapy_gbot_robots.stores.redis import RedisStore

    states = _states("typical", corpus)
    store = RedisStore(url, lock_wait=0.0)
    rng = random.Random(26)
    out: dict[str, list[float]] = {"load": [], "write": [], "fetch": []}
    clock = time.perf_counter
    try:
        for k in range(samples):
            who = origin(rng.randrange(n))
            t0 = clock()
            state = await store.load(who)
            out["load"].append(clock() - t0)
            if state is None:
                raise SystemExit(f"error: {who} was not stored")
            newer = replace(states[k % len(states)], fetched_at=NOW + 1 + k)
            t0 = clock()
            store.put_soon(who, newer)
            await store._write_now(who)  # the store's flush of one origin (release() awaits it)
            out["write"].append(clock() - t0)
            other = origin(rng.randrange(n))
            t0 = clock()
            if not await store.acquire(other, 30.0):
                raise SystemExit("error: lock not taken")
            store.put_soon(other, replace(newer, fetched_at=NOW + 2 + k))
            await store.release(other)
            out["fetch"].append(clock() - t0)
        if store.errors:
            raise SystemExit(f"error: store errors ({store.last_error})")
    finally:
        store.close()
    return out


def latency(rp: RedisProc, n: int, samples: int, corpus: Path) -> dict[str, Any]:
    client = rp.client()
    client.flushall()
    asyncio.run(_fill(rp.url, _states("typical", corpus), n, client, 0.0))
    asyncio.run(_latency(rp.url, n, samples // 10 or 1, corpus))  # warms scripts, connection
    before, busy = counters(client), cpu_times()
    times = asyncio.run(_latency(rp.url, n, samples, corpus))
    spent, busy_share = delta(before, counters(client)), machine_busy(busy, cpu_times())
    stored = int(client.dbsize())
    client.flushall()
    return {
        "stored": stored,
        # Redis's own time per command (its execution, not the network or the client).
        "server_usec": {k: u / c for k, (c, u) in spent["commands"].items() if c >= samples},
        "busy": busy_share,
        **{
            name: (percentile(v, 50) * 1e6, percentile(v, 99) * 1e6, sum(v) / len(v) * 1e6)
            for name, v in times.items()
        },
    }


# --------------------------------------------------------------------------- the run


def run_sizing(args: Any, say: Callable[[str], None]) -> None:
    import tempfile

    corpus = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
    sizes = [int(x) for x in args.states.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench_fleet_sizing_") as directory:
        rp = RedisProc(directory)
        try:
            client = rp.client()
            say(machine_facts(client))
            say(
                f"empty server: used_memory {fmt_bytes(used_memory(client))}; "
                f"hash-max-listpack-value {client.config_get('hash-max-listpack-value')}, "
                f"list-max-listpack-size {client.config_get('list-max-listpack-size')}"
            )
            say("\nRedis memory per origin state (INFO used_memory delta / N; MEMORY USAGE):")
            for r in memory_per_state(rp, STATE_KINDS, sizes, corpus, args.listpack):
                say(
                    f"  {r['kind']:27} N={r['n']:>7,}: {r['per_state']:7.0f} B per state "
                    f"(entry median {r['entry_median']} B, MEMORY USAGE of 4 keys "
                    f"{r['memory_usage']}, encoding {r['encoding']}; "
                    f"{r['writes_per_s']:,.0f} writes/s through put_soon"
                    + (f"; {r['outages']} store outages on the way" if r["outages"] else "")
                    + ")"
                )
            parked = memory_per_parked(rp, args.parked, (10, 1))
            say(
                f"\nRedis memory per parked request (a typical Request: "
                f"{parked['codec_bytes']} B as stored, park time + codec):"
            )
            for r in parked["runs"]:
                say(
                    f"  {r['requests']:,} requests, {r['per_origin']} per origin: "
                    f"{r['per_request']:.0f} B per request (list MEMORY USAGE "
                    f"{r['list_usage']}, {r['list_encoding']}; index {r['index_usage']:,} B; "
                    f"lot errors {r['errors']})"
                )
            say(
                f"  => {parked['per_request']:.0f} B per parked request + "
                f"{parked['per_origin']:.0f} B per origin with parked requests (list + index)"
            )
            lat = latency(rp, max(sizes), args.samples, corpus)
            say(
                f"\nLatency with {lat['stored']:,} states stored, {args.samples} samples each, "
                "one at a time over loopback (p50 / p99 / mean, µs):"
            )
            for name, label in (
                ("load", "read: load() (HGET)"),
                ("write", "write: put_soon() + flush of that origin (one EVAL)"),
                ("fetch", "a new origin's bookkeeping: acquire + put_soon + release"),
            ):
                p50, p99, mean = lat[name]
                say(f"  {label:58} {p50:7.0f} / {p99:7.0f} / {mean:7.0f}")
            say(
                "  Redis's own time per command meanwhile (commandstats): "
                + ", ".join(f"{k} {v:.1f} µs" for k, v in sorted(lat["server_usec"].items()))
                + f"; machine busy {lat['busy'] * 100:.0f} % of its cores (anyone's)"
            )
            say("\n" + machine_facts(client))
        finally:
            rp.stop()
