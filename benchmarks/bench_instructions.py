"""Instructions per steady check on the hostile files, counted by valgrind, against Protego.

    python benchmarks/bench_instructions.py                              # every hostile case (~1 h)
    python benchmarks/bench_instructions.py --cases mixed-pieces,dense-pieces --reps 5
    python benchmarks/bench_instructions.py --first --reps 1 --cases shared-prefix   # the build

Why this exists: the timed hostile table (``bench_engine.py --only-hostile``) moves 1.5-3x
between hours on a shared 2-core machine, for old and new code alike, so a change of 10-30 %
cannot be read from it. An instruction count is the same on every run. Each library answers
every URL of a case once (its rules built), then ``--reps`` more times; the count of a run
with no repetitions is subtracted, so what is left is the steady checks alone (callgrind,
``Ir``), divided by their number; both runs use one hash seed. Instructions are not time:
the same count of set probes and of bytecode costs differently. Read the ratio to Protego
and the change between two commits, and the timed table for milliseconds.

``--first`` counts first checks instead: each library parses the case and answers its first
URL once (what any first check pays once only, a compiled regex say, is paid there), then
``--reps`` more times on a fresh object each, the collector on, as in a crawl; the count of
a run with none is subtracted.

Needs ``valgrind`` on the PATH (``apt-get install valgrind``); says so and exits 2 without it.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import USER_AGENT
from bench_engine import HOSTILE, OURS, PROTEGO, make_libs

_COLLECTED = re.compile(r"Collected : (\d+)")


def child(lib_name: str, engine: str, case: str, reps: int, first: bool = False) -> None:
    """Build the case, answer every URL once, then ``reps`` more times (what is counted)."""
    lib = make_libs(engine)[lib_name]
    body, urls = HOSTILE[case][1]()
    if first:  # ``reps`` first checks, each on a fresh object, after one that is not counted
        for _ in range(reps + 1):
            lib.checker(lib.parse(body))(urls[0], USER_AGENT)
        return
    check = lib.checker(lib.parse(body))
    for url in urls:
        check(url, USER_AGENT)
    gc.disable()
    for _ in range(reps):
        for url in urls:
            check(url, USER_AGENT)


def count(lib_name: str, engine: str, case: str, reps: int, first: bool = False) -> int:
    """Instructions the whole child process executed (callgrind's ``Ir``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--child",
                lib_name,
                "--engine",
                engine,
                "--cases",
                case,
                "--reps",
                str(reps),
                *(["--first"] if first else []),
            ],
            capture_output=True,
            text=True,
            check=False,
            # One hash seed: str hashes decide how many slots a lookup probes.
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    found = _COLLECTED.search(run.stderr)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"valgrind failed on {lib_name} {case}:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def per_check(lib_name: str, engine: str, case: str, reps: int, first: bool = False) -> float:
    urls = 1 if first else len(HOSTILE[case][1]()[1])
    counted = count(lib_name, engine, case, reps, first) - count(lib_name, engine, case, 0, first)
    return counted / (reps * urls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(HOSTILE), help="hostile cases, comma-separated")
    parser.add_argument("--reps", type=int, default=4, help="steady checks of every URL counted")
    parser.add_argument("--engine", default="scrapy_gbot_robots", help="the engine's module")
    parser.add_argument("--libs", default=f"{OURS},{PROTEGO}", help="libraries, comma-separated")
    parser.add_argument("--first", action="store_true", help="count first checks (the build)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = [case for case in args.cases.split(",") if case]
    if args.child:
        child(args.child, args.engine, cases[0], args.reps, args.first)
        return
    unknown = sorted(set(cases) - HOSTILE.keys())
    if unknown:
        parser.error(f"unknown cases: {', '.join(unknown)}")
    if shutil.which("valgrind") is None:
        print("valgrind is not on the PATH: apt-get install valgrind", file=sys.stderr)
        raise SystemExit(2)
    libs = [lib for lib in args.libs.split(",") if lib]
    if args.first:
        print(f"instructions per first check (callgrind Ir), {args.reps} counted, collector on")
    else:
        print(f"instructions per steady check (callgrind Ir), {args.reps} checks of every URL")
    print(f"{'case':18}" + "".join(f"{lib:>14}" for lib in libs) + "   ours / Protego")
    for case in cases:
        counts = {lib: per_check(lib, args.engine, case, args.reps, args.first) for lib in libs}
        row = f"{case:18}" + "".join(f"{counts[lib] / 1e6:>12.3f} M" for lib in libs)
        if OURS in counts and PROTEGO in counts and counts[PROTEGO] > 0:
            row += f"   {counts[OURS] / counts[PROTEGO]:.3f}x"
        print(row, flush=True)


if __name__ == "__main__":
    main()
