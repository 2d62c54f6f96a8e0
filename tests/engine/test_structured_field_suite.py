"""The HTTP working group's Structured Field tests against the parser (issue 46, item 6).

``tests/data/structured-field-tests`` holds the suite's files for the types
``engine/structured_fields.py`` reads (see its README: source, commit, licence). Every
Dictionary test and every Item test runs; List tests are skipped (no List field here). A
``must_fail`` test must be refused; a ``can_fail`` one may be; any other must parse to the
``expected`` structure, compared with types (a Token is not a String, ``?1`` is not ``1``).
An inner list's items keep only their values here, so their parameters are not compared
(they are parsed and checked all the same).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from scrapy_gbot_robots.engine.structured_fields import (
    Date,
    DisplayString,
    StructuredFieldError,
    Token,
    parse_dictionary,
    parse_item,
)

SUITE = Path(__file__).resolve().parents[1] / "data" / "structured-field-tests"


def _cases() -> list[Any]:
    cases = []
    for path in sorted(SUITE.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            if case["header_type"] in ("dictionary", "item"):
                cases.append(pytest.param(case, id=f"{path.stem}: {case['name']}"))
    return cases


def _expected_bare(value: Any) -> tuple[str, Any]:
    if isinstance(value, dict):
        kind, inner = value["__type"], value["value"]
        if kind == "binary":
            return ("binary", base64.b32decode(inner))
        return (kind, inner)
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int):
        return ("integer", value)
    if isinstance(value, float):
        return ("decimal", value)
    return ("string", value)


def _ours(value: Any) -> tuple[str, Any]:
    kinds: list[tuple[type, str]] = [
        (bool, "boolean"),
        (Date, "date"),
        (int, "integer"),
        (float, "decimal"),
        (Token, "token"),
        (DisplayString, "displaystring"),
        (str, "string"),
        (bytes, "binary"),
    ]
    for kind, name in kinds:
        if isinstance(value, kind):
            if isinstance(value, str):
                return (name, str(value))
            return (name, int(value) if isinstance(value, Date) else value)
    raise AssertionError(f"not a bare item: {value!r}")


def _params(params: Any) -> list[tuple[str, tuple[str, Any]]]:
    out: dict[str, tuple[str, Any]] = {}
    for key, value in params:
        out[key] = _expected_bare(value) if not isinstance(value, tuple) else value
    return list(out.items())


def _our_params(params: Any) -> list[tuple[str, tuple[str, Any]]]:
    out: dict[str, tuple[str, Any]] = {}
    for key, value in params:
        out[key] = _ours(value)  # a repeated parameter: the last value, in the first place
    return list(out.items())


def _expected_member(value: Any) -> Any:
    item, params = value
    if isinstance(item, list):  # an inner list: its items' values (their parameters apart)
        return ("inner", [_expected_bare(i[0]) for i in item], _params(params))
    return ("item", _expected_bare(item), _params(params))


def _our_member(value: Any, params: Any) -> Any:
    if isinstance(value, tuple):
        return ("inner", [_ours(i) for i in value], _our_params(params))
    return ("item", _ours(value), _our_params(params))


def _parse(case: dict[str, Any]) -> Any:
    data = ", ".join(case["raw"]).encode("utf-8")
    if case["header_type"] == "item":
        value, params = parse_item(data)
        return ("item", _ours(value), _our_params(params))
    members: dict[str, Any] = {}
    for member in parse_dictionary(data):
        members[member.key] = _our_member(member.value, member.parameters)
    return list(members.items())


def _expected(case: dict[str, Any]) -> Any:
    if case["header_type"] == "item":
        return _expected_member(case["expected"])
    return [(key, _expected_member(value)) for key, value in case["expected"]]


@pytest.mark.parametrize("case", _cases())
def test_the_working_groups_case(case: dict[str, Any]) -> None:
    if case.get("must_fail"):
        with pytest.raises(StructuredFieldError):
            _parse(case)
        return
    try:
        got = _parse(case)
    except StructuredFieldError:
        if case.get("can_fail"):
            return
        raise
    assert got == _expected(case)


def test_the_suite_is_here_with_its_licence() -> None:
    assert (SUITE / "LICENSE.md").is_file() and (SUITE / "README.md").is_file()
    assert len(_cases()) > 1_000
