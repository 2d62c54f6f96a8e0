"""``gbot-robots lint``: how Google reads a robots.txt, line by line, and what looks wrong.

The findings come from ``_lint.lint()``; this module only filters (``--ignore``), decides the
exit status (``--fail-on``) and prints. ``fetch`` prints its lint report with the same code.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import IO

from .._safetext import display, printable, quoted
from ..engine import lint as _lint
from ._args import EXIT_FINDINGS, EXIT_OK, FAIL_ON, Command, IOStreams, UsageError, read_robots
from ._render import Cell, Painter, colour_wanted, render_table, short

EXAMPLES = """\
examples:
  gbot-robots lint robots.txt
  gbot-robots lint robots.txt --findings-only --fail-on warning
  gbot-robots lint - --json < robots.txt
  gbot-robots lint robots.txt --ignore GR402,crawl-delay
  gbot-robots lint --list-checks

exit status: 0 no finding at or above --fail-on (default: error), 1 otherwise, 2 usage error.
Codes are stable; see 'gbot-robots lint --list-checks' for the catalogue.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("robots", metavar="ROBOTS", nargs="?", help="robots.txt file, or '-' for stdin")
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="exit 1 when a finding has this severity or worse (default: error)",
    )
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="skip these checks (codes or names, comma-separated; repeatable)",
    )
    p.add_argument(
        "-q", "--findings-only", action="store_true", help="print the findings, not every line"
    )
    p.add_argument("--json", action="store_true", help="one JSON document")
    p.add_argument("--list-checks", action="store_true", help="print the catalogue of checks")


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    """Lint one file (or print the catalogue); exit 1 when a finding reaches ``--fail-on``."""
    paint = Painter(colour_wanted(ns.color, io.out))
    if ns.list_checks:
        if ns.json:
            checks = [
                {"code": c.code, "name": c.name, "severity": c.severity.label, "summary": c.summary}
                for c in _lint.CHECKS
            ]
            io.out.write(json.dumps(checks, indent=2) + "\n")
        else:
            print_catalogue(io.out, paint)
        return EXIT_OK
    if ns.robots is None:
        raise UsageError("the ROBOTS argument is required (a file path, or '-' for stdin)")
    ignore = parse_ignore(ns.ignore)
    body = read_robots(ns.robots, io.stdin, "lint")
    result = _lint.lint(body)
    findings = [f for f in result.findings if f.code not in ignore]
    name = "<stdin>" if ns.robots == "-" else ns.robots
    if ns.json:
        data = {"file": name, **result.as_json()}
        data["findings"] = [f.as_json() for f in findings]
        data["counts"] = count(findings)
        io.out.write(json.dumps(data, indent=2) + "\n")
    else:
        write_lint_report(io.out, paint, name, result, findings, ns.findings_only)
    return lint_exit(findings, ns.fail_on)


def parse_ignore(values: Sequence[str]) -> set[str]:
    """The codes ``--ignore`` names (codes or names, comma-separated); unknown ones are errors."""
    codes: set[str] = set()
    for chunk in values:
        for item in chunk.split(","):
            item = item.strip()
            if not item:
                continue
            check = _lint.CHECKS_BY_CODE.get(item.upper()) or _lint.CHECKS_BY_NAME.get(item.lower())
            if check is None:
                raise UsageError(
                    f"unknown check {quoted(item)} in --ignore; "
                    "see 'gbot-robots lint --list-checks'"
                )
            codes.add(check.code)
    return codes


def lint_exit(findings: Sequence[_lint.Finding], fail_on: str) -> int:
    """1 when a finding has the ``--fail-on`` severity or worse (never, for ``never``)."""
    if fail_on == "never":
        return EXIT_OK
    threshold = _lint.Severity[fail_on.upper()]
    return EXIT_FINDINGS if any(f.severity >= threshold for f in findings) else EXIT_OK


def count(findings: Sequence[_lint.Finding]) -> dict[str, int]:
    """Findings per severity, worst first, every severity present (0 when none)."""
    out = {s.label: 0 for s in sorted(_lint.Severity, reverse=True)}
    for f in findings:
        out[f.severity.label] += 1
    return out


def print_catalogue(out: IO[str], paint: Painter) -> None:
    rows: list[list[Cell]] = [
        [("CODE", "bold"), ("SEVERITY", "bold"), ("NAME", "bold"), ("WHAT", "bold")]
    ]
    for c in _lint.CHECKS:
        rows.append(
            [
                (c.code, "code"),
                (c.severity.label, c.severity.label),
                (c.name, None),
                (c.summary, None),
            ]
        )
    for line in render_table(rows, paint):
        out.write(line + "\n")


def finding_cells(f: _lint.Finding) -> list[Cell]:
    return [(f.severity.label, f.severity.label), (f.code, "code"), (f.message, None)]


def finding_text(f: _lint.Finding, paint: Painter) -> str:
    label = f.severity.label
    message = printable(f.message)  # built from display()ed text; escaping twice changes nothing
    return f"{paint(label, label)}{' ' * (7 - len(label))}  {paint(f.code, 'code')}  {message}"


def write_lint_report(
    out: IO[str],
    paint: Painter,
    name: str,
    result: _lint.LintReport,
    findings: Sequence[_lint.Finding],
    findings_only: bool,
) -> None:
    """The human report: a header, every line with its findings (or only the findings),
    the groups, and the counts."""
    w = out.write
    n_groups = len(result.groups)
    size = f"{result.size:,} bytes"
    if result.truncated:
        size += f", of which Google reads the first {result.parsed_size:,}"
    n_lines = result.line_count
    head = (
        f"{printable(name)}: {size}: {n_lines:,} line{'s' if n_lines != 1 else ''}, "
        f"{n_groups} group{'s' if n_groups != 1 else ''}, "
        f"{len(result.sitemaps)} sitemap{'s' if len(result.sitemaps) != 1 else ''}"
    )
    w(paint(head, "bold") + "\n")

    if findings_only:
        rows: list[list[Cell]] = [
            [(str(f.line) if f.line else "-", None), *finding_cells(f)] for f in findings
        ]
        if rows:
            w("\n")
            for line in render_table(
                [
                    [("LINE", "bold"), ("SEVERITY", "bold"), ("CODE", "bold"), ("MESSAGE", "bold")],
                    *rows,
                ],
                paint,
                right=frozenset({0}),
            ):
                w(line + "\n")
    else:
        # File-level findings first, then each line followed by its findings.
        by_line: dict[int, list[_lint.Finding]] = {}
        for f in findings:
            by_line.setdefault(f.line, []).append(f)
        for f in by_line.pop(0, []):
            w(finding_text(f, paint) + "\n")
        table: list[list[Cell]] = [
            [("LINE", "bold"), ("GROUP", "bold"), ("READ AS", "bold"), ("VALUE", "bold")]
        ]
        attached: list[list[_lint.Finding]] = [[]]
        for v in result.lines:
            shown = v.value
            if v.read_as == "unknown":
                shown = f"{v.key}: {v.value}"
            elif v.read_as == "ignored":
                shown = v.text.strip()
            elif v.pattern is not None and v.normalised:
                shown = f"{v.value}  (matched as {printable(v.pattern)})"
            style = "dim" if v.read_as in ("comment", "ignored", "unknown") else None
            table.append(
                [
                    (str(v.number), None),
                    (str(v.group) if v.group else "", None),
                    (v.read_as, style),
                    (short(shown, 90), style),
                ]
            )
            attached.append(by_line.pop(v.number, []))
        lines = render_table(table, paint, right=frozenset({0, 1}))
        indent = " " * (sum(max(len(row[i][0]) for row in table) for i in (0, 1)) + 4)
        w("\n")
        for line, extra in zip(lines, attached, strict=True):
            w(line + "\n")
            for f in extra:
                w(indent + "^ " + finding_text(f, paint) + "\n")
        for rest in by_line.values():  # findings on blank lines
            for f in rest:
                w(f"line {f.line}: " + finding_text(f, paint) + "\n")
        if result.groups:
            w("\n" + paint("groups", "bold") + "\n")
            grows: list[list[Cell]] = []
            for g in result.groups:
                agents = ", ".join(display(a.value) for a in g.agent_lines)
                nrules = sum(1 for r in g.rule_lines if r.pattern)
                grows.append(
                    [
                        (str(g.index), None),
                        (f"lines {g.first_line}-{g.last_line}", None),
                        (agents, None),
                        (f"{nrules} rule{'s' if nrules != 1 else ''}", None),
                    ]
                )
            for line in render_table(grows, paint, right=frozenset({0})):
                w("  " + line + "\n")
    c = count(findings)
    parts = [f"{c[k]} {k}{'' if c[k] == 1 or k == 'info' else 's'}" for k in c]
    worst = max((f.severity for f in findings), default=None)
    w("\n" + paint("findings: " + ", ".join(parts), worst.label if worst else "allowed") + "\n")


COMMAND = Command(
    name="lint",
    order=20,
    help="show how Google reads a robots.txt and what looks wrong",
    description="Report, line by line, how Google reads the file, with findings that\n"
    "have a severity (error, warning, info) and a stable code (GR...).",
    epilog=EXAMPLES,
    example="gbot-robots lint robots.txt --fail-on warning",
    add_arguments=add_arguments,
    run=run,
)
