"""``gbot-robots check``'s URL handling over the shared corpus (issue 17, item 11).

In process, without Scrapy: ``check.run`` is fed each domain's URLs as ``--urls -`` reads them.
The data are not ours to commit: read from the sibling ``shared`` folder (present in CI), the
tests skip with the reason when it is absent.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scrapy_gbot_robots.cli import check, commands
from scrapy_gbot_robots.cli._args import IOStreams, build_parser
from scrapy_gbot_robots.engine.url import sendable_url

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"

needs_corpus = pytest.mark.skipif(
    not (CORPUS / "verdicts.jsonl").is_file(),
    reason=f"reference corpus verdicts not found at {CORPUS}",
)


def robots_of(domain: str) -> str:
    return str(CORPUS / "robots" / f"{domain}.txt")


def _corpus_rows() -> Iterator[dict[str, Any]]:
    with open(CORPUS / "verdicts.jsonl", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


@needs_corpus
def test_check_url_handling_agrees_with_the_reference_on_the_corpus() -> None:
    """Issue 17, item 11: every corpus URL through ``gbot-robots check``'s own code path.

    The reference passes each URL to Google's library verbatim. ``check`` must ask about the
    same URL (every corpus URL is printable ASCII, so none may be rewritten) and give the same
    verdict and line: ``check.run`` in process, each domain's URLs read from "stdin" as
    ``--urls -`` reads them, one run per domain and user agent.
    """
    _, subs = build_parser(commands())
    parser = subs["check"]  # the options exactly as the command line gives them
    by_run: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in _corpus_rows():
        by_run.setdefault((row["domain"], row["ua"]), []).append(row)
    total = 0
    rewritten: list[tuple[str, str]] = []
    disagreements: list[tuple[object, ...]] = []
    for (domain, ua), rows in by_run.items():
        out = io.StringIO()
        urls = "\n".join(row["url"] for row in rows).encode("utf-8")
        ns = parser.parse_args([robots_of(domain), "-u", ua, "--json", "--urls", "-"])
        check.run(ns, IOStreams(out=out, err=io.StringIO(), stdin=io.BytesIO(urls)))
        got = [json.loads(line) for line in out.getvalue().splitlines()]
        assert len(got) == len(rows), (domain, ua)
        for g, row in zip(got, rows, strict=True):
            total += 1
            if g["checked_url"] != row["url"]:
                rewritten.append((row["url"], g["checked_url"]))
            if (g["allowed"], g["line"]) != (row["allowed"], row["line"]):
                disagreements.append((domain, ua, row["url"], g["allowed"], g["line"]))
    assert total == 275_856
    assert rewritten[:10] == []
    assert disagreements[:10] == []


@needs_corpus
def test_real_link_lists_are_checked_as_written() -> None:
    """All 111,215 links of the corpus's link lists, read as ``--urls`` lines are: every one
    that a crawler can send as written (printable ASCII) is asked about unchanged."""
    lines = 0
    for path in sorted((CORPUS / "urls").iterdir()):
        for raw in path.read_bytes().splitlines():
            line = raw.strip()
            if not line:
                continue
            lines += 1
            text = line.decode("utf-8", "surrogateescape")
            if text.isascii() and text.isprintable() and " " not in text:
                assert sendable_url(line) == sendable_url(text) == text
    assert lines >= 111_000
