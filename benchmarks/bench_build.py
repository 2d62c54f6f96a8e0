"""A hostile file's first check (parse and build) against Protego's, as a crawl meets it.

    python benchmarks/bench_build.py                          # every hostile shape (~40 s)
    python benchmarks/bench_build.py --cases shared-prefix,short-pieces --reps 7

Why this exists: ``bench_engine.py`` times the first check with Python's garbage collector
off, as it times everything, so that the collector's pauses do not land on one library's
window at random. A crawl runs with the collector on, in a process that holds the crawl's
objects, and a 500 KiB file's build makes tens of thousands of new objects: every 700 of
them set off a collection. This benchmark times the first check as a crawl meets it: the
collector on, ``--heap`` long-lived objects held, and the collection that a build's new
objects owe (``gc.collect(0)``) inside the window, for every library alike.

Columns, per shape: ours and Protego (what Scrapy does: the body decoded, parsed, one
``can_fetch``), best of ``--reps``, interleaved, and their ratio. Each window also counts
the collections it set off: a count, the same on every run, where the milliseconds move
with the machine. Between two commits: ``PYTHONPATH=<old copy> python
benchmarks/bench_build.py``, one after the other (or ``bench_instructions.py``, which
counts the steady checks).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from _common import USER_AGENT
from bench_engine import HOSTILE, OURS, PROTEGO, Lib, make_libs


@dataclass
class Window:
    """The best time of one library's first check on one shape, and its collections."""

    ms: float = float("inf")
    collections: int = 0


@dataclass
class Shape:
    case: str
    label: str
    body_bytes: int
    windows: dict[str, Window] = field(default_factory=dict)


def parse_and_check(lib: Lib, body: bytes, url: str) -> object:
    """The parsed object, kept alive by the caller so that its deallocation is not timed."""
    parsed = lib.parse(body)
    lib.checker(parsed)(url, USER_AGENT)
    return parsed


def first_check(build: Callable[[], object], started: list[int]) -> tuple[float, int]:
    """Milliseconds of ``build()`` and the collection its objects owe; collections started."""
    gc.collect()
    before = len(started)
    t0 = time.perf_counter_ns()
    kept = build()
    gc.collect(0)  # the young generation, as the next collection would find it
    spent = time.perf_counter_ns() - t0
    del kept
    return spent / 1e6, len(started) - before - 1  # less the collect(0) above


def run(cases: Sequence[str], reps: int, heap: int, engine: str) -> list[Shape]:
    libs = make_libs(engine)
    held = [{"crawl": [n]} for n in range(heap)]  # a crawl's long-lived objects
    started: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    shapes: list[Shape] = []
    gc.enable()
    gc.callbacks.append(note)
    try:
        for case in cases:
            label, make = HOSTILE[case]
            body, urls = make()
            shape = Shape(case, label, len(body))
            for rep in range(reps):
                for name in (OURS, PROTEGO) if rep % 2 == 0 else (PROTEGO, OURS):
                    lib = libs[name]
                    ms, count = first_check(partial(parse_and_check, lib, body, urls[0]), started)
                    window = shape.windows.setdefault(name, Window())
                    if ms < window.ms:
                        window.ms, window.collections = ms, count
            shapes.append(shape)
            print_row(shape)
    finally:
        gc.callbacks.remove(note)
    del held
    return shapes


def print_header(args: argparse.Namespace) -> None:
    print(
        f"First check of each hostile shape, the collector on, {args.heap:,} objects held; "
        f"best of {args.reps}, interleaved; ms (collections set off)"
    )
    columns = ["ours", "Protego", "ours/Protego"]
    print(f"{'case':20} " + " ".join(f"{c:>16}" for c in columns))


def print_row(shape: Shape) -> None:
    ours, peer = shape.windows[OURS], shape.windows[PROTEGO]
    cells = [
        f"{ours.ms:9.2f} ({ours.collections:3})",
        f"{peer.ms:9.2f} ({peer.collections:3})",
        f"{ours.ms / peer.ms:16.2f}",
    ]
    print(f"{shape.case:20} " + " ".join(f"{c:>16}" for c in cells), flush=True)


def summarize(shapes: Sequence[Shape]) -> dict[str, Any]:
    ratios = {s.case: s.windows[OURS].ms / s.windows[PROTEGO].ms for s in shapes}
    slower = sorted((case for case, r in ratios.items() if r > 1), key=ratios.__getitem__)
    summary: dict[str, Any] = {
        "shapes": len(shapes),
        "slower_than_protego": slower,
        "worst_ratio": max(ratios.values(), default=0.0),
        "ours_ms_total": sum(s.windows[OURS].ms for s in shapes),
        "protego_ms_total": sum(s.windows[PROTEGO].ms for s in shapes),
    }
    return summary


def print_summary(summary: dict[str, Any]) -> None:
    print(
        f"\nslower than Protego on {len(summary['slower_than_protego'])} of "
        f"{summary['shapes']} shapes ({', '.join(summary['slower_than_protego']) or 'none'}); "
        f"worst {summary['worst_ratio']:.2f}x; all shapes: ours {summary['ours_ms_total']:.0f} ms, "
        f"Protego {summary['protego_ms_total']:.0f} ms"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cases", default=",".join(HOSTILE), help="hostile shapes, comma-separated")
    ap.add_argument("--reps", type=int, default=5, help="first checks per library and shape")
    ap.add_argument("--heap", type=int, default=300_000, help="long-lived objects held")
    ap.add_argument("--engine", default="scrapy_gbot_robots", help="the engine's package")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also save every figure as JSON")
    args = ap.parse_args(argv)
    unknown = [c for c in args.cases.split(",") if c not in HOSTILE]
    if unknown:
        ap.error(f"--cases: unknown {', '.join(unknown)}; known: {', '.join(HOSTILE)}")
    if args.reps < 1 or args.heap < 0:
        ap.error("--reps must be at least 1 and --heap at least 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_header(args)
    shapes = run(args.cases.split(","), args.reps, args.heap, args.engine)
    summary = summarize(shapes)
    print_summary(summary)
    if args.json:
        data = {"shapes": [asdict(s) for s in shapes], "summary": summary, "args": vars(args)}
        args.json.write_text(json.dumps(data, default=str, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
