"""bench_engine.py's hostile table: rounds the machine ran slowed are left out, not scaled.

The machine this project is measured on runs at two speeds, for seconds at a time
(docs/benchmarks.md), so the table also gives each check's cost over the rounds at full
speed.  These tests hold that figure to what it claims.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_engine


def _result(refs: dict[int, int], checks: dict[int, list[int]]) -> bench_engine.HostileResult:
    res = bench_engine.HostileResult(status="ok")
    res.rounds.refs = refs
    res.rounds.steady = checks
    res.rounds.rounds = {url: list(range(len(got))) for url, got in checks.items()}
    return res


def test_slowed_rounds_are_left_out_and_nothing_is_scaled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_engine, "FASTEST", [100.0])
    # Rounds 5 to 7 ran slowed (their reference work took 1.9 to 2 times the fastest).
    refs = {0: 100, 1: 120, 2: 110, 3: 105, 4: 124, 5: 190, 6: 200, 7: 195}
    res = _result(refs, {0: [10, 12, 11, 10, 13, 30, 31, 29], 1: [5, 6, 5, 5, 6, 9, 9, 9]})
    bench_engine.finish_full_speed(res)
    assert res.full_ns == 11  # URL 0's median over rounds 0 to 4, as measured
    assert res.slowed == 3 / 8
    assert res.speeds == 2.0
    assert bench_engine.verdict(res.full_ns, 10) == "FAIL"


@pytest.mark.parametrize(
    "refs",
    [
        pytest.param({r: 190 + r for r in range(8)}, id="never at full speed"),
        pytest.param({r: 100 if r < 4 else 190 for r in range(8)}, id="four rounds of eight"),
    ],
)
def test_a_case_with_too_few_rounds_at_full_speed_gets_no_figure(
    monkeypatch: pytest.MonkeyPatch, refs: dict[int, int]
) -> None:
    # Full speed is the run's fastest, not the case's: a case slowed throughout is not
    # measured against its own slowed rounds; nor is a figure given from a handful.
    monkeypatch.setattr(bench_engine, "FASTEST", [100.0])
    res = _result(refs, {0: [30 + r for r in range(8)]})
    bench_engine.finish_full_speed(res)
    assert math.isnan(res.full_ns)
    assert bench_engine.verdict(res.full_ns, 1_000_000) != "PASS"
