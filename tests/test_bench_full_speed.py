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
from _common import Site


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


def _case(steady_ns: float, full_ns: float) -> dict[str, bench_engine.HostileResult]:
    ours = bench_engine.HostileResult(status="ok", steady_ns=steady_ns, full_ns=full_ns)
    ours.first_ns = 1_000.0
    theirs = bench_engine.HostileResult(status="ok", steady_ns=1.0, full_ns=1.0, first_ns=1.0)
    return {bench_engine.OURS: ours, bench_engine.PROTEGO: theirs}


@pytest.mark.parametrize(
    ("full", "expected"),
    [
        pytest.param((400_000.0, math.nan), "PASS", id="one case not measured at full speed"),
        pytest.param((1_200_000.0, math.nan), "FAIL", id="a measured case over the target"),
        pytest.param((math.nan, math.nan), "FAIL", id="no case measured at full speed"),
    ],
)
def test_the_full_speed_line_judges_the_measured_cases_and_names_the_rest(
    capsys: pytest.CaptureFixture[str], full: tuple[float, float], expected: str
) -> None:
    names = list(bench_engine.HOSTILE)[:2]
    cases = list(zip(names, full, strict=True))
    hostile = {name: _case(500_000.0, got) for name, got in cases}
    summary = bench_engine.print_hostile(hostile)
    assert summary["result_full"] == expected
    assert summary["full_unmeasured"] == [name for name, got in cases if math.isnan(got)]
    line = next(x for x in capsys.readouterr().out.splitlines() if "check at full speed:" in x)
    assert f"-> {expected}" in line
    if not math.isnan(full[0]):
        assert f"n/a on 1 of {len(names)} cases" in line
    assert summary["result"] == "PASS"  # STEADY, the target's figure, is under 1 ms in each


# The corpus table's full-speed figures: each site's repetitions between two timings of the
# reference work, the slowed ones left out, and the sites timed all slowed timed again.


class _Fake:
    """A parser whose every answer is True: the windows' times do not matter here."""

    def allowed(self, url: str, user_agent: str) -> bool:
        return True


def _libs() -> dict[str, bench_engine.Lib]:
    return {
        name: bench_engine.Lib(name, lambda body: _Fake(), "allowed")
        for name in (bench_engine.OURS, bench_engine.PROTEGO)
    }


def _site(domain: str) -> Site:
    return Site(domain, b"User-agent: *\nDisallow: /x\n", ("https://e.com/a",))


def test_corpus_figures_at_full_speed_keep_only_the_repetitions_at_full_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench_engine, "FASTEST", [100.0])
    result = bench_engine.TimingResult()
    # Site a: repetitions 0, 1, 3 at full speed (refs <= 125), 2 and 4 slowed.
    result.refs["a"] = [100, 120, 190, 125, 200]
    result.samples["a"] = {
        bench_engine.OURS: [
            (1, 2, 30, 4),
            (1, 2, 32, 4),
            (9, 9, 90, 9),
            (1, 2, 31, 5),
            (9, 9, 99, 9),
        ],
        bench_engine.PROTEGO: [(5, 6, 100, 8)] * 5,
    }
    # Site b: only two repetitions at full speed, fewer than FULL_REPS: no figure of its own.
    result.refs["b"] = [100, 100, 200, 200, 200]
    result.samples["b"] = {
        name: [(1, 1, 1, 1)] * 5 for name in (bench_engine.OURS, bench_engine.PROTEGO)
    }
    bench_engine.finish_corpus_full_speed(result, {"a": 2, "b": 1})
    assert set(result.full_per_site) == {"a"}
    ours = result.full_per_site["a"][bench_engine.OURS]
    assert ours.site == 31  # the median of 30, 32, 31: the slowed 90 and 99 are left out
    assert ours.check == 4 / 2  # per check: the median of 4, 4, 5 over its 2 URLs
    summary = bench_engine.summarize(result.full_per_site)
    assert summary["site"]["ratio_of_medians"] == 31 / 100


def test_sites_timed_all_slowed_are_timed_again_until_they_have_enough_at_full_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The reference work: slowed (200) for the whole first pass (8 timings: one before each
    # repetition, one after the last) and the next timing, then at full speed (100).
    speeds = iter([200] * 9 + [100] * 1000)
    monkeypatch.setattr(bench_engine, "machine_speed_ns", lambda: next(speeds))
    monkeypatch.setattr(bench_engine, "FASTEST", [100.0])
    sites = [_site("a")]
    result = bench_engine.run_timing(_libs(), sites, 7)
    first_pass = result.per_site["a"]
    assert len(result.refs["a"]) == 7 and not any(bench_engine._full_reps(result, "a"))
    bench_engine.top_up(_libs(), sites, result, 5.0)
    # Each pass times it once more, between two timings of the reference work: the first
    # extra repetition is straddled by a slowed timing, the next three are at full speed.
    assert result.refs["a"][7:] == [200, 100, 100, 100]
    assert sum(bench_engine._full_reps(result, "a")) == bench_engine.FULL_REPS
    assert result.retimed == 1
    assert result.per_site["a"] is first_pass  # the every-repetition figures stay as measured
    assert all(len(got) == 11 for got in result.samples["a"].values())


def test_no_time_for_timing_again_leaves_slowed_sites_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_engine, "machine_speed_ns", lambda: 200)
    monkeypatch.setattr(bench_engine, "FASTEST", [100.0])
    sites = [_site("a")]
    result = bench_engine.run_timing(_libs(), sites, 3)
    bench_engine.top_up(_libs(), sites, result, 0.0)
    bench_engine.finish_corpus_full_speed(result, {"a": 1})
    assert result.retimed == 0 and len(result.refs["a"]) == 3
    assert result.full_per_site == {}
