"""Agreement with Google's reference parser on the shared suites (read from ../shared).

The data are not ours to commit: these tests read them from the sibling ``shared`` folder
(present in CI) and skip with the reason when it is absent.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scrapy_gbot_robots import parse

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SPEC = SHARED / "conformance" / "spec_test.json"
CORPUS = SHARED / "corpus"

needs_spec = pytest.mark.skipif(
    not SPEC.is_file(), reason=f"Google's compliance suite not found at {SPEC}"
)
needs_corpus = pytest.mark.skipif(
    not (CORPUS / "verdicts.jsonl").is_file(),
    reason=f"reference corpus verdicts not found at {CORPUS}",
)


def _spec_cases() -> list[dict[str, Any]]:
    return json.loads(SPEC.read_text("utf-8")) if SPEC.is_file() else []


def _body(case: dict[str, Any]) -> bytes:
    if "robotstxt_b64" in case:
        return base64.b64decode(case["robotstxt_b64"])
    return str(case["robotstxt"]).encode("utf-8")


@needs_spec
def test_google_compliance_suite_verdicts_and_lines_all_agree() -> None:
    disagreements: list[tuple[object, ...]] = []
    total = 0
    for case in _spec_cases():
        robots = parse(_body(case))
        for exp in case["expectations"]:
            total += 1
            allowed = robots.allowed(exp["url"], exp["ua"])
            decision = robots.decide(exp["url"], exp["ua"])
            got = (allowed, decision.allowed, decision.line)
            want = (exp["oracle_allowed"], exp["oracle_allowed"], exp["oracle_line"])
            if got != want:
                disagreements.append((case["file"], exp["ua"], exp["url"], got, want))
    assert total == 400
    assert disagreements == []


def _corpus_rows() -> Iterator[dict[str, Any]]:
    with open(CORPUS / "verdicts.jsonl", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


@needs_corpus
def test_real_corpus_verdicts_and_matching_lines_all_agree() -> None:
    current = None
    robots = parse(b"")
    total = 0
    disagreements: list[tuple[object, ...]] = []
    for row in _corpus_rows():
        if row["domain"] != current:
            current = row["domain"]
            robots = parse((CORPUS / "robots" / f"{current}.txt").read_bytes())
        total += 1
        allowed = robots.allowed(row["url"], row["ua"])
        if allowed is not row["allowed"]:
            disagreements.append((current, row["ua"], row["url"], allowed))
        elif not allowed or total % 7 == 0:
            # Every disallowed verdict and a sample of the rest also checks the reported line.
            decision = robots.decide(row["url"], row["ua"])
            if (decision.allowed, decision.line) != (row["allowed"], row["line"]):
                disagreements.append((current, row["ua"], row["url"], decision))
    assert total == 275_856
    assert disagreements[:10] == []
