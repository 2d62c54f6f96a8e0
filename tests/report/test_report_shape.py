"""A report whose shape is wrong (issue 24, item 8): ``gbot-robots report`` refuses it with
one error line and exit status 2; the HTML page renders any report, dropping what does not fit.

The shape is ``report/schema.py``'s. The real reports the collector writes fit it; then every
field of them is replaced, one at a time, by values of other types (and hypothesis tries any
JSON value at any place): the terminal summary and the page never raise.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_report import ENTRY, _hostile_report, _observe_report, fetched, forbid, state

from scrapy_gbot_robots.cli._render import Painter
from scrapy_gbot_robots.cli.report import write_summary
from scrapy_gbot_robots.report.collector import ReportCollector
from scrapy_gbot_robots.report.html import render
from scrapy_gbot_robots.report.schema import conform, problem

Path_ = tuple[str | int, ...]


def _folded_report() -> dict[str, Any]:
    """Folded origins and rules, drop reasons, an origin without a state."""
    c = ReportCollector(max_origins=2, max_rules=1)
    for i in range(6):
        origin = f"https://o{i}.example"
        fetched(c, origin, state(200 if i % 2 else 503))
        forbid(c, origin, f"/private/{i}")
        c.dropped(origin, "deadline")
    c.parked("https://unknown.example")
    return c.to_json({"spider": "folded", "tokens": ["TestBot"], "stats": {"robotstxt/x": 1}})


REPORTS = {"observe": _observe_report, "hostile": _hostile_report, "folded": _folded_report}


def _paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every place in a JSON value: object fields and list items, depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*at, key)
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):  # the first items show every field
            yield (*at, i)
            yield from _paths(item, (*at, i))


def _replaced(data: dict[str, Any], path: Path_, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    parent: Any = out
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return out


def _summary(data: dict[str, Any]) -> str:
    out = io.StringIO()
    write_summary(out, Painter(False), "r.json", data, 10)
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_reports_a_crawl_writes_fit_the_schema(name: str) -> None:
    data = json.loads(json.dumps(REPORTS[name]()))
    assert problem(data) is None
    assert conform(data) == data


#: Values of every JSON type, and a hostile string: each field gets each of them in turn.
OTHERS: list[Any] = [None, True, 7, -1.5, "<script>alert(1)</script>", ["a"], {"k": "v"}]


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_any_field_of_any_type_renders_and_is_refused_or_summarised(name: str) -> None:
    data = json.loads(json.dumps(REPORTS[name]()))
    tried = 0
    for path in _paths(data):
        for other in OTHERS:
            bad = _replaced(data, path, other)
            page = render(bad)  # never raises
            assert "<script>" not in page
            found = problem(bad)
            if found is None:
                _summary(bad)  # what the CLI accepts, it prints
            else:
                assert "\n" not in found
            assert problem(conform(bad)) in (None, "schema is missing")
            tried += 1
    assert tried > 300


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_json_value_anywhere(data: st.DataObject) -> None:
    report = json.loads(json.dumps(_observe_report()))
    paths = list(_paths(report))
    path = data.draw(st.sampled_from(paths))
    value = data.draw(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=8), inner, max_size=3)
            ),
            max_leaves=8,
        )
    )
    bad = _replaced(report, path, value)
    render(bad)
    if problem(bad) is None:
        _summary(bad)
    assert problem(conform(bad)) in (None, "schema is missing")


def test_the_page_renders_a_wrong_type_as_absent_and_any_value_the_schema_allows() -> None:
    """``bytes: "<script>"`` raised ValueError in the page's number format."""
    data = json.loads(json.dumps(_observe_report()))
    data["origins"][0]["bytes"] = "<script>"
    page = render(data)
    assert "<script>" not in page and "&lt;script&gt;" not in page  # left out, as absent
    nullable = [
        "robots_url", "status", "source", "bytes", "sha256", "fetched_at", "refresh_at",
        "valid_seconds", "good_at", "error_since", "lint", "usage", "crawl_delay",
    ]  # fmt: skip
    for origin in data["origins"]:
        origin.update(dict.fromkeys(nullable))
        origin["chain"] = [{"url": "https://a.example/robots.txt", "status": None, "error": None}]
    data["generated_at"] = None
    assert problem(data) is None
    render(data)
    _summary(data)
    minimal = {"schema": data["schema"], "totals": {}, "origins_by_state": {}}
    minimal |= {"rules": [], "origins": [{"origin": "https://a.example"}]}
    assert problem(minimal) is None
    assert "https://a.example" in render(minimal) and "https://a.example" in _summary(minimal)


# ----------------------------------------------------------------------------- the command


def _origin_field(name: str, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["origins"][0][name] = value

    return change


def _set(path: Path_, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        parent: Any = data
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value

    return change


MALFORMED = [
    ("usage list", _origin_field("usage", ["a"]), "origins[0].usage is a list"),
    ("rules strings", _set(("rules",), ["x"]), "rules[0] is a string, expected an object"),
    ("bytes text", _origin_field("bytes", "<script>"), "origins[0].bytes is a string"),
    ("lint list", _origin_field("lint", [1]), "origins[0].lint is a list"),
    ("requests list", _origin_field("requests", [1]), "origins[0].requests is a list"),
    ("crawl list", _set(("crawl",), ["a"]), "crawl is a list, expected an object"),
    ("uses string", _set(("crawl", "uses"), "ai-train"), "crawl.uses is a string"),
    ("totals text", _set(("totals", "allowed"), "12"), "totals.allowed is a string"),
    ("rank float", _set(("rules", 0, "rank"), 1.5), "rules[0].rank is a number"),
    ("no origin", _set(("origins", 0), {"state": "rules"}), "origins[0].origin is missing"),
    ("delay text", _origin_field("crawl_delay", {"asked": "2"}), "crawl_delay.asked is a string"),
    ("folded list", _set(("folded",), []), "folded is a list"),
]


@pytest.mark.crawl
@pytest.mark.parametrize(
    ("change", "message"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_report_command_refuses_a_malformed_report_in_one_line(
    tmp_path: Path, change: Any, message: str
) -> None:
    """``"usage": ["a"]`` and ``"rules": ["x"]`` gave AttributeError, a traceback, status 1."""
    data = json.loads(json.dumps(_observe_report()))
    change(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    for args in (["report", str(path)], ["report", str(path), "--json"]):
        proc = subprocess.run(
            [*ENTRY, *args], capture_output=True, text=True, timeout=60, check=False
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == "" and "Traceback" not in proc.stderr
        errors = [line for line in proc.stderr.splitlines() if "error:" in line]
        assert errors == [proc.stderr.splitlines()[-1]]
        assert errors[0].startswith(f"gbot-robots report: error: '{path}' is not a valid report: ")
        assert message in errors[0]
