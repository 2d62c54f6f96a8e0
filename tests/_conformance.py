"""Google's verdicts, read from a folder laid out as ``../shared`` is, and checked against ours.

The folder holds ``conformance/spec_test.json`` (Google's compliance suite, each expectation
with the verdict and matching line of Google's C++ parser) and ``corpus/`` (real robots.txt
files in ``robots/``, that parser's verdict and line per domain, token and URL in
``verdicts.jsonl``; the full data also has the sites' link lists in ``urls/``). The tests run
these checks on the sample the repository carries (``CARRIED``, drawn by
``tests/data/draw_sample.py``); ``tests/full_conformance.py`` runs them on the whole of
``../shared``. Each check returns what it saw and what disagreed, so the caller asserts both:
a check that saw nothing cannot pass.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy_gbot_robots import parse
from scrapy_gbot_robots.cli import check, commands
from scrapy_gbot_robots.cli._args import IOStreams, build_parser
from scrapy_gbot_robots.engine.url import sendable_url

#: The data the repository carries: the whole compliance suite and a sample of the corpus.
CARRIED = Path(__file__).resolve().parent / "data"

Row = dict[str, Any]


@dataclass
class Checked:
    """How many cases a check saw, and the ones that disagreed (each with what was expected)."""

    total: int = 0
    disagreements: list[tuple[object, ...]] = field(default_factory=list)


def spec_cases(root: Path) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(
        (root / "conformance" / "spec_test.json").read_text("utf-8")
    )
    return cases


def spec_body(case: dict[str, Any]) -> bytes:
    """A case's robots.txt, exactly: base64 when the bytes are not UTF-8 (the broken BOMs)."""
    if "robotstxt_b64" in case:
        return base64.b64decode(case["robotstxt_b64"])
    return str(case["robotstxt"]).encode("utf-8")


def corpus_rows(root: Path) -> Iterator[Row]:
    with open(root / "corpus" / "verdicts.jsonl", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def robots_file(root: Path, domain: str) -> Path:
    return root / "corpus" / "robots" / f"{domain}.txt"


def by_domain(root: Path) -> Iterator[tuple[str, list[Row]]]:
    """The verdicts one domain at a time (the file is grouped by domain): bounded memory."""
    current: str | None = None
    rows: list[Row] = []
    for row in corpus_rows(root):
        if row["domain"] != current:
            if current is not None:
                yield current, rows
            current, rows = row["domain"], []
        rows.append(row)
    if current is not None:
        yield current, rows


def check_spec(root: Path) -> Checked:
    """Every expectation of the compliance suite: ``allowed()``, and ``decide()``'s verdict and
    line, against the reference's verdict and ``matching_line()``."""
    checked = Checked()
    for case in spec_cases(root):
        robots = parse(spec_body(case))
        for exp in case["expectations"]:
            checked.total += 1
            decision = robots.decide(exp["url"], exp["ua"])
            got = (robots.allowed(exp["url"], exp["ua"]), decision.allowed, decision.line)
            want = (exp["oracle_allowed"], exp["oracle_allowed"], exp["oracle_line"])
            if got != want:
                checked.disagreements.append((case["file"], exp["ua"], exp["url"], got, want))
    return checked


def check_corpus(root: Path) -> Checked:
    """Every corpus verdict: ``allowed()``, and ``decide()``'s verdict and line."""
    checked = Checked()
    for domain, rows in by_domain(root):
        robots = parse(robots_file(root, domain).read_bytes())
        for row in rows:
            checked.total += 1
            decision = robots.decide(row["url"], row["ua"])
            got = (robots.allowed(row["url"], row["ua"]), decision.allowed, decision.line)
            want = (row["allowed"], row["allowed"], row["line"])
            if got != want:
                checked.disagreements.append((domain, row["ua"], row["url"], got, want))
    return checked


def check_cli(root: Path) -> tuple[Checked, list[tuple[str, str]]]:
    """Every corpus verdict through ``gbot-robots check``'s own code path, and the URLs it
    rewrote (none may be: every corpus URL is printable ASCII, which is checked as written).

    ``check.run`` in process, without Scrapy: each domain's URLs read from "stdin" as
    ``--urls -`` reads them, one run per domain and token, options parsed as the command line
    parses them.
    """
    _, subs = build_parser(commands())
    parser = subs["check"]
    checked = Checked()
    rewritten: list[tuple[str, str]] = []
    for domain, rows in by_domain(root):
        tokens = list(dict.fromkeys(row["ua"] for row in rows))
        for ua in tokens:
            mine = [row for row in rows if row["ua"] == ua]
            out = io.StringIO()
            urls = "\n".join(row["url"] for row in mine).encode("utf-8")
            args = [str(robots_file(root, domain)), "-u", ua, "--json", "--urls", "-"]
            check.run(
                parser.parse_args(args),
                IOStreams(out=out, err=io.StringIO(), stdin=io.BytesIO(urls)),
            )
            got = [json.loads(line) for line in out.getvalue().splitlines()]
            if len(got) != len(mine):
                checked.disagreements.append((domain, ua, "answers", len(got), len(mine)))
                continue
            for answer, row in zip(got, mine, strict=True):
                checked.total += 1
                if answer["checked_url"] != row["url"]:
                    rewritten.append((row["url"], answer["checked_url"]))
                if (answer["allowed"], answer["line"]) != (row["allowed"], row["line"]):
                    checked.disagreements.append(
                        (domain, ua, row["url"], answer["allowed"], answer["line"], row["line"])
                    )
    return checked, rewritten


def check_as_written(lines: Iterable[bytes]) -> Checked:
    """Link-list lines as ``--urls`` reads them: each one a crawler can send as written
    (printable ASCII, no space) is asked about unchanged, whether read as bytes or text."""
    checked = Checked()
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        checked.total += 1
        text = line.decode("utf-8", "surrogateescape")
        if text.isascii() and text.isprintable() and " " not in text:
            got = (sendable_url(line), sendable_url(text))
            if got != (text, text):
                checked.disagreements.append((text, *got))
    return checked


def link_lines(root: Path) -> Iterator[bytes]:
    """Every line of the full corpus's link lists (``corpus/urls/``), as bytes."""
    for path in sorted((root / "corpus" / "urls").iterdir()):
        yield from path.read_bytes().splitlines()
