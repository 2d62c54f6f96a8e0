"""bench_build.py: a hostile file's first check timed as a crawl meets it, the collector on.

These tests run it on small shapes and hold its figures to what it prints: a window per
library and shape, the collections each set off (counted by the collector's callbacks, so
a build that makes thousands of objects must show some), and a summary that names exactly
the shapes where ours was slower.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_build
from bench_engine import OURS, PROTEGO


def test_every_shape_gets_both_windows_and_the_summary_names_the_slower_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "build.json"
    cases = "nested-stars,20k-rules"
    args = ["--cases", cases, "--reps", "1", "--heap", "1000", "--json", str(out)]
    assert bench_build.main(args) == 0
    data = json.loads(out.read_text("utf-8"))
    shapes = {shape["case"]: shape for shape in data["shapes"]}
    assert list(shapes) == cases.split(",")
    for shape in shapes.values():
        assert set(shape["windows"]) == {OURS, PROTEGO}
        assert all(window["ms"] > 0 for window in shape["windows"].values())
    # 20,000 rules make far more than 700 objects each: the collector ran during both builds.
    big = shapes["20k-rules"]["windows"]
    assert big[OURS]["collections"] > 0 and big[PROTEGO]["collections"] > 0
    assert shapes["nested-stars"]["windows"][OURS]["collections"] == 0
    ratios = {
        case: shape["windows"][OURS]["ms"] / shape["windows"][PROTEGO]["ms"]
        for case, shape in shapes.items()
    }
    slower = sorted(case for case, ratio in ratios.items() if ratio > 1)
    assert sorted(data["summary"]["slower_than_protego"]) == slower
    assert data["summary"]["worst_ratio"] == pytest.approx(max(ratios.values()))
    printed = capsys.readouterr().out
    assert "20k-rules" in printed and "slower than Protego on" in printed
    assert gc.isenabled()


def test_an_unknown_case_is_refused_with_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench_build.main(["--cases", "no-such-shape"])
    assert "no-such-shape" in capsys.readouterr().err
