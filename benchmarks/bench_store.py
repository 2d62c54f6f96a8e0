"""What remembering an origin costs: bytes in memory and on disk, and 100,000 origins on SQLite.

    .venv/bin/python benchmarks/bench_store.py             # full run (~1 min on 2 cores)
    .venv/bin/python benchmarks/bench_store.py --quick     # 10,000 origins in the scale pass

Why this shape:

- **Per origin**, over the corpus's real robots.txt files (``robots/*.txt``): each state is
  built the way the middleware builds it (``evaluate`` of a 200 answer, then the crawl
  token's rules with ``names_agent("Googlebot")``) and put in the LRU, inside a tracemalloc
  window in a fresh subprocess, so the figure is what one more stored origin keeps alive
  (body, parsed rules, state, LRU entry and key), not what parsing allocated and dropped. On disk:
  the ``stores/entry.py`` ``encode()`` size of that state, and the SQLite file's size divided by its
  entries once all of them are in (page and index overhead included).
- **Scale**: a broad crawl that has seen 100,000 origins keeps the hot 10,000 (the default
  ``GBOT_ROBOTS_STORE_SIZE``) in memory and the rest in the file. Each figure comes from a
  fresh subprocess, so peak RSS (``ru_maxrss``) is that store's alone: 100,000 distinct
  states (the corpus bodies in turn, each made distinct by its own last line, so no two
  origins share a body object) are put through ``TieredStore(MemoryStore(10_000),
  SqliteStore)``, then all read back once, in the order they were put: each is an LRU miss,
  read back from the file, as a crawl's next round over its origins would. The contrast is a
  memory-only ``MemoryStore(100_000)`` doing the same in another fresh subprocess. Timings
  cover the store's ``put`` and ``get`` calls only (building a state is the policy's cost).
- **The compact tier** (the default without a file): the same 100,000 states through the LRU
  of 10,000 with the compact tier behind it (``--compact-bytes``, 64 MiB as
  ``GBOT_ROBOTS_STORE_COMPACT_BYTES``): how many are read back from it rather than lost, the
  bytes it counts against its bound, and the process's peak RSS, which that bound holds
  however many origins pass.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import (
    DEFAULT_CORPUS,
    USER_AGENT,
    check_corpus,
    fail,
    fmt_bytes,
    fmt_ns,
    import_engine,
    median,
    percentile,
    ratio,
)

NOW = 1_700_000_000.0


def robots_files(corpus: Path) -> list[Path]:
    files = sorted((corpus / "robots").glob("*.txt"))
    if not files:
        fail(f"no robots.txt file in {corpus / 'robots'}")
    return files


def origin_key(i: int) -> str:
    return f"https://o{i}.example"


# --------------------------------------------------------------------------------------------
# Per origin (child process: tracemalloc)


def per_origin_child(files: Sequence[Path]) -> dict[str, Any]:
    """Bytes each origin keeps alive in the LRU, and its encoded size."""
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig
    from scrapy_gbot_robots.stores.entry import encode
    from scrapy_gbot_robots.stores.memory import MemoryStore

    cfg = PolicyConfig()
    lru = MemoryStore(len(files) + 1)  # never evicts here
    warm = evaluate(FetchResult(200, b"User-agent: *\nDisallow: /w\n"), NOW, None, cfg)
    assert warm.robots is not None
    warm.robots.names_agent(USER_AGENT)  # module-level caches: not any origin's cost
    warm.robots.allowed("https://w.example/w", USER_AGENT)
    del warm
    memory = [0] * len(files)
    encoded = [0] * len(files)
    body_sizes = [0] * len(files)
    gc.collect()
    gc.freeze()
    tracemalloc.start()
    for i, path in enumerate(files):
        before = tracemalloc.get_traced_memory()[0]
        body = path.read_bytes()  # the response body: the state keeps it (capped)
        state = evaluate(FetchResult(200, body), NOW, None, cfg)
        assert state.robots is not None
        state.robots.names_agent(USER_AGENT)  # what the middleware does after a fetch
        lru.put(origin_key(i), state)
        body_sizes[i] = len(state.robots.body)
        del body, state
        gc.collect()
        gc.freeze()
        memory[i] = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    for i in range(len(files)):  # outside the window: encoding is not what the LRU keeps
        kept = lru.get(origin_key(i))
        assert kept is not None
        encoded[i] = len(encode(kept))
    return {"memory": memory, "encoded": encoded, "body": body_sizes, "entries": len(lru)}


def sqlite_file_size(files: Sequence[Path]) -> dict[str, Any]:
    """The SQLite file holding every corpus state: bytes per entry, overhead included."""
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig
    from scrapy_gbot_robots.stores.sqlite import SqliteStore

    cfg = PolicyConfig()
    with tempfile.TemporaryDirectory(prefix="bench_store_") as tmp:
        path = os.path.join(tmp, "robots.db")
        backing = SqliteStore(path)
        for i, file in enumerate(files):
            state = evaluate(FetchResult(200, file.read_bytes()), NOW, None, cfg)
            backing.put_soon(origin_key(i), state)
        payload, entries = backing.size_on_disk(), len(backing)
        backing.close()  # checkpoints the WAL into the file
        size = _file_bytes(path)
    return {"file": size, "payload": payload, "entries": entries}


def _file_bytes(path: str) -> int:
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


# --------------------------------------------------------------------------------------------
# Failing origins under a full LRU (in this process: counts and tracemalloc)


def failing_bound(files: Sequence[Path], lru_size: int) -> dict[str, Any]:
    """What bounds memory when origins in a server-error streak are kept before others.

    ``lru_size`` origins fail (each keeping its last good copy, a corpus body), then 10x as
    many decided origins pass through; then 2x as many failing ones. Entries never exceed
    ``lru_size``: the failing ones survive the first wave, and only the second (every
    entry failing) forgets some of them.
    """
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig
    from scrapy_gbot_robots.stores.memory import MemoryStore

    cfg = PolicyConfig()
    bodies = [p.read_bytes() for p in files]
    store = MemoryStore(lru_size)
    gc.collect()
    tracemalloc.start()
    most = 0

    def fail(i: int) -> None:
        good = evaluate(FetchResult(200, bodies[i % len(bodies)]), NOW, None, cfg)
        store.put(origin_key(i), evaluate(FetchResult(503), NOW + 1, good, cfg))

    for i in range(lru_size):
        fail(i)
    for i in range(lru_size, 11 * lru_size):
        store.put(
            origin_key(i), evaluate(FetchResult(200, bodies[i % len(bodies)]), NOW, None, cfg)
        )
        most = max(most, len(store))
    kept_failing = sum(1 for i in range(lru_size) if origin_key(i) in store)
    after_decided = {"entries": len(store), "failing_kept": kept_failing}
    for i in range(11 * lru_size, 13 * lru_size):
        fail(i)
        most = max(most, len(store))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "lru": lru_size,
        "after_decided": after_decided,
        "entries_max": most,
        "failing_evictions": store.failing_evictions,
        "peak_traced": peak,
    }


def print_failing(result: dict[str, Any]) -> dict[str, Any]:
    n = result["lru"]
    after = result["after_decided"]
    print(f"\n== Failing origins under a full LRU of {n:,} (GBOT_ROBOTS_STORE_SIZE) ==")
    print(
        f"  {n:,} failing origins, then {10 * n:,} decided ones: {after['failing_kept']:,} "
        f"failing kept, {after['entries']:,} entries"
    )
    print(
        f"  then {2 * n:,} more failing ones: at most {result['entries_max']:,} entries at any "
        f"time; {result['failing_evictions']:,} failing origins forgotten "
        f"(robotstxt/store/evicted_failing)"
    )
    print(f"  peak traced memory: {fmt_bytes(result['peak_traced'])} (the bound: entries <= {n:,})")
    return result


# --------------------------------------------------------------------------------------------
# Scale (child process per store)


def _rss_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def scale_child(
    files: Sequence[Path], kind: str, origins: int, lru_size: int, compact_bytes: int = 0
) -> dict[str, Any]:
    """Put ``origins`` distinct states through one store, then read each back once."""
    from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
    from scrapy_gbot_robots.policy.states import PolicyConfig
    from scrapy_gbot_robots.stores.compact import CompactStore
    from scrapy_gbot_robots.stores.memory import MemoryStore
    from scrapy_gbot_robots.stores.sqlite import SqliteStore
    from scrapy_gbot_robots.stores.tiered import TieredStore

    cfg = PolicyConfig()
    bodies = [p.read_bytes() for p in files]
    with tempfile.TemporaryDirectory(prefix="bench_store_") as tmp:
        path = os.path.join(tmp, "robots.db")
        backing: SqliteStore | None = None
        compact: CompactStore | None = None
        store: MemoryStore | TieredStore
        if kind == "sqlite":
            backing = SqliteStore(path)
            store = TieredStore(MemoryStore(lru_size), backing)
        elif kind == "compact":
            compact = CompactStore(compact_bytes)
            store = TieredStore(MemoryStore(lru_size, forget=compact.put), compact=compact)
        else:
            store = MemoryStore(origins)
        gc.collect()
        baseline = _rss_bytes()
        put_ns = 0
        clock = time.perf_counter_ns
        for i in range(origins):
            body = bodies[i % len(bodies)] + b"\n# origin %d\n" % i
            state = evaluate(FetchResult(200, body), NOW + i, None, cfg)
            assert state.robots is not None
            state.robots.names_agent(USER_AGENT)
            key = origin_key(i)
            started = clock()
            store.put(key, state)
            put_ns += clock() - started
        del body, state
        after_put = _rss_bytes()
        get_ns = 0
        missing = 0
        for i in range(origins):
            key = origin_key(i)
            started = clock()
            got = store.get(key)
            get_ns += clock() - started
            if got is None:
                missing += 1
        result: dict[str, Any] = {
            "kind": kind,
            "origins": origins,
            "baseline_rss": baseline,
            "rss_after_put": after_put,
            "peak_rss": _rss_bytes(),
            "put_ns": put_ns / origins,
            "get_ns": get_ns / origins,
            "missing": missing,
            "in_memory": len(store),
            "reads": getattr(store, "reads", 0),
        }
        if compact is not None:
            assert isinstance(store, TieredStore)
            result["compact_reads"] = store.compact_reads
            result["forgotten"] = compact.forgotten
            result["compact_used"] = compact.used
            result["compact_bound"] = compact.max_bytes
            result["compact_entries"] = len(compact)
        if backing is not None:
            result["write_errors"] = backing.write_errors
            result["file_open"] = _file_bytes(path)
            result["payload"] = backing.size_on_disk()
            backing.close()
            result["file"] = _file_bytes(path)
            with sqlite3.connect(path) as db:
                result["rows"] = db.execute("SELECT COUNT(*) FROM robots").fetchone()[0]
            db.close()
    return result


# --------------------------------------------------------------------------------------------
# Driver


def run_child(args: argparse.Namespace, *child: str) -> dict[str, Any]:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--corpus",
        str(args.corpus),
        "--origins",
        str(args.origins),
        "--lru",
        str(args.lru),
        "--compact-bytes",
        str(args.compact_bytes),
        "--_child",
        *child,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    if proc.returncode != 0:
        fail(f"child {' '.join(child)} failed:\n{proc.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


@contextmanager
def _stage(message: str) -> Iterator[None]:
    """Progress on stderr, so that stdout holds only the report."""
    started = time.monotonic()
    print(f"{message} ...", end="", flush=True, file=sys.stderr)
    yield
    print(f" {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)


def _row(label: str, values: Sequence[float]) -> str:
    return (
        f"  {label:34} median {fmt_bytes(median(values)):>9}   p90 "
        f"{fmt_bytes(percentile(values, 90)):>9}   max {fmt_bytes(max(values)):>9}"
    )


def print_per_origin(per: dict[str, Any], disk: dict[str, Any]) -> dict[str, Any]:
    n = per["entries"]
    memory, encoded, body = per["memory"], per["encoded"], per["body"]
    print(f"\n== Per stored origin: {n} corpus robots.txt files ==")
    print(_row("robots.txt body (capped)", body))
    print(_row("in memory: state in the LRU", memory))
    print(_row("on disk: _entry.encode", encoded))
    per_row = disk["file"] / disk["entries"] if disk["entries"] else float("nan")
    print(
        f"  {'on disk: SQLite file / entries':34} {fmt_bytes(per_row):>16}   "
        f"({fmt_bytes(disk['file'])} for {disk['entries']} entries; rows' payload "
        f"{fmt_bytes(disk['payload'])})"
    )
    print(
        f"  mean in memory {fmt_bytes(sum(memory) / n)} per origin; memory / encoded "
        f"(medians) {ratio(median(memory), median(encoded)):.1f}x"
    )
    return {
        "entries": n,
        "memory": {"median": median(memory), "p90": percentile(memory, 90), "max": max(memory)},
        "encoded": {
            "median": median(encoded),
            "p90": percentile(encoded, 90),
            "max": max(encoded),
        },
        "body": {"median": median(body), "p90": percentile(body, 90), "max": max(body)},
        "sqlite_file_per_entry": per_row,
        "sqlite_file": disk["file"],
    }


def print_scale(tiered: dict[str, Any], memory: dict[str, Any], lru: int) -> dict[str, Any]:
    n = tiered["origins"]
    print(f"\n== Scale: {n:,} origins seen, each in a fresh subprocess ==")
    head = f"  {'':34}{'peak RSS':>11}{'baseline':>11}{'growth':>11}{'put':>10}{'read back':>11}"
    print(head)
    print("  " + "-" * (len(head) - 2))
    for label, r in (
        (f"SQLite + LRU of {lru:,}", tiered),
        (f"memory only, LRU of {n:,}", memory),
    ):
        growth = r["peak_rss"] - r["baseline_rss"]
        print(
            f"  {label:34}{fmt_bytes(r['peak_rss']):>11}{fmt_bytes(r['baseline_rss']):>11}"
            f"{fmt_bytes(growth):>11}{fmt_ns(r['put_ns']):>10}{fmt_ns(r['get_ns']):>11}"
        )
    t_growth = tiered["peak_rss"] - tiered["baseline_rss"]
    m_growth = memory["peak_rss"] - memory["baseline_rss"]
    print(
        f"  peak RSS, SQLite / memory only: {ratio(tiered['peak_rss'], memory['peak_rss']):.2f}"
        f" (growth over the baseline: {ratio(t_growth, m_growth):.2f})"
    )
    print(
        f"  SQLite file: {fmt_bytes(tiered['file'])} for {tiered['rows']:,} rows "
        f"({fmt_bytes(tiered['file'] / max(1, tiered['rows']))} per origin; "
        f"{fmt_bytes(tiered['file_open'])} with the WAL before closing)"
    )
    print(
        f"  read back from the file: {tiered['reads']:,} of {n:,} gets; not found: "
        f"{tiered['missing']} (SQLite), {memory['missing']} (memory); "
        f"write errors: {tiered['write_errors']}"
    )
    return {"sqlite": tiered, "memory": memory}


def print_compact(compact: dict[str, Any], memory: dict[str, Any], lru: int) -> dict[str, Any]:
    n = compact["origins"]
    growth = compact["peak_rss"] - compact["baseline_rss"]
    m_growth = memory["peak_rss"] - memory["baseline_rss"]
    print(f"\n== The compact tier: {n:,} origins through an LRU of {lru:,} ==")
    print(
        f"  peak RSS {fmt_bytes(compact['peak_rss'])}, growth {fmt_bytes(growth)} "
        f"({ratio(growth, m_growth):.2f} of memory only's); put {fmt_ns(compact['put_ns'])}, "
        f"get {fmt_ns(compact['get_ns'])}"
    )
    used, bound = compact["compact_used"], compact["compact_bound"]
    kept = compact["compact_entries"]
    print(
        f"  compact tier: {fmt_bytes(used)} counted of a {fmt_bytes(bound)} bound "
        f"({'within' if used <= bound else 'OVER'}), {kept:,} states "
        f"({fmt_bytes(used / max(1, kept))} each)"
    )
    print(
        f"  read back from it: {compact['compact_reads']:,} of {n:,} gets; forgotten at the bound: "
        f"{compact['forgotten']:,}; not found: {compact['missing']:,}"
    )
    return compact


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help=f"corpus directory (default: {DEFAULT_CORPUS})",
    )
    ap.add_argument("--quick", action="store_true", help="10,000 origins in the scale pass")
    ap.add_argument("--origins", type=int, help="origins in the scale pass (default 100,000)")
    ap.add_argument("--lru", type=int, default=10_000, help="LRU size in front of SQLite")
    ap.add_argument(
        "--compact-bytes",
        type=int,
        default=64 * 1024 * 1024,
        help="the compact tier's bound in the scale pass (GBOT_ROBOTS_STORE_COMPACT_BYTES)",
    )
    ap.add_argument("--json", type=Path, metavar="FILE", help="also save every figure as JSON")
    ap.add_argument("--_child", dest="child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.origins is None:
        args.origins = 10_000 if args.quick else 100_000
    if args.origins < 1 or args.lru < 1:
        ap.error("--origins and --lru must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.corpus = args.corpus.resolve()
    check_corpus(args.corpus)
    files = robots_files(args.corpus)
    import_engine("scrapy_gbot_robots")  # a clear message when the package is not installed
    if args.child:
        if args.child[0] == "per-origin":
            out = per_origin_child(files)
        else:
            out = scale_child(files, args.child[1], args.origins, args.lru, args.compact_bytes)
        print(json.dumps(out))
        return 0

    started = time.monotonic()
    command = shlex.join([sys.executable, *sys.argv])
    print(f"bench_store: Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}")
    print(f"command: {command}")
    print(f"corpus: {args.corpus} ({len(files)} robots.txt files)")
    with _stage("per origin, tracemalloc subprocess"):
        per = run_child(args, "per-origin")
    with _stage("per origin, SQLite file"):
        disk = sqlite_file_size(files)
    with _stage(f"scale, {args.origins:,} origins on SQLite (subprocess)"):
        tiered = run_child(args, "scale", "sqlite")
    with _stage(f"scale, {args.origins:,} origins in memory (subprocess)"):
        memory = run_child(args, "scale", "memory")
    with _stage(f"scale, {args.origins:,} origins, LRU and compact tier (subprocess)"):
        compact = run_child(args, "scale", "compact")
    with _stage("failing origins under a full LRU"):
        failing = failing_bound(files, 1_000 if args.quick else 5_000)
    results = {
        "per_origin": print_per_origin(per, disk),
        "scale": print_scale(tiered, memory, args.lru),
        "compact": print_compact(compact, memory, args.lru),
        "failing": print_failing(failing),
    }
    elapsed = time.monotonic() - started
    print(f"\ntotal benchmark time {elapsed:.0f} s")
    if args.json:
        meta = {"command": command, "elapsed_s": elapsed, "python": platform.python_version()}
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
