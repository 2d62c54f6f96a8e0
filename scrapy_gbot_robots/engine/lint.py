"""How Google reads a robots.txt file, line by line, and what in it is likely a mistake.

Pure logic for ``gbot-robots lint``: everything here is derived from ``engine/lines.py``
(``report()``, the tokenizer the matcher itself uses) and from the engine, so the linter can
never disagree with the verdicts about what a line means. No Scrapy, no I/O.

This module runs the checks (:func:`lint`), builds what the command prints
(:class:`LintReport`) and holds the checks of the file as a whole. The catalogue of codes and
severities is ``engine/lint_checks.py``; each other family of checks has its own module:
``engine/lint_lines.py`` (a line, its pattern, its user-agent value, its sitemap),
``engine/lint_groups.py`` (groups) and ``engine/lint_usage.py`` (content-usage statements).
Every name the command, the report and the tests use is importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._safetext import display, quoted, short
from .lines import LICENSE_KEY, MAX_BODY_BYTES, LineKind, LineReport, bom_length, report
from .lint_checks import CHECKS, CHECKS_BY_CODE, CHECKS_BY_NAME, Check, Finding, Severity
from .lint_groups import Group, group_findings, group_lines, joined_findings, orphan_findings
from .lint_lines import (
    ASCII_WS,
    RULES,
    agent_is_global,
    agent_token,
    is_absolute_url,
    line_findings,
    normalised,
)
from .lint_usage import usage_findings, usage_mechanism
from .usage import CONTENT_SIGNAL, CONTENT_USAGE

__all__ = [
    "CHECKS",
    "CHECKS_BY_CODE",
    "CHECKS_BY_NAME",
    "Check",
    "Finding",
    "Group",
    "LineView",
    "LintReport",
    "Severity",
    "agent_is_global",
    "agent_token",
    "group_lines",
    "is_absolute_url",
    "lint",
]


@dataclass(frozen=True, slots=True)
class LineView:
    """How Google reads one non-blank physical line."""

    number: int
    read_as: str  # user-agent, allow, disallow, sitemap, unknown, comment, ignored
    key: str  # the key as written ("" when none)
    value: str  # the value as written ("" when none)
    pattern: str | None  # the normalised pattern of allow/disallow lines
    normalised: bool  # the pattern differs from the value as written
    group: int  # 1-based group of user-agent/allow/disallow lines; 0 otherwise
    text: str  # the physical line, made printable

    def as_json(self) -> dict[str, object]:
        return {
            "line": self.number,
            "read_as": self.read_as,
            "key": self.key,
            "value": self.value,
            "pattern": self.pattern,
            "normalised": self.normalised,
            "group": self.group,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class LintReport:
    """Everything ``gbot-robots lint`` prints, in file order."""

    size: int  # bytes in the file as given
    parsed_size: int  # bytes Google reads (<= 512,000)
    line_count: int
    lines: tuple[LineView, ...]
    groups: tuple[Group, ...]
    sitemaps: tuple[str, ...]
    findings: tuple[Finding, ...]
    licenses: tuple[str, ...] = ()  # RSL's License: lines, global like sitemaps

    @property
    def truncated(self) -> bool:
        return self.size > self.parsed_size

    def counts(self) -> dict[str, int]:
        out = {s.label: 0 for s in sorted(Severity, reverse=True)}
        for f in self.findings:
            out[f.severity.label] += 1
        return out

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)

    def as_json(self) -> dict[str, object]:
        return {
            "bytes": self.size,
            "parsed_bytes": self.parsed_size,
            "truncated": self.truncated,
            "lines": [v.as_json() for v in self.lines],
            "groups": [g.as_json() for g in self.groups],
            "sitemaps": list(self.sitemaps),
            "licenses": list(self.licenses),
            "findings": [f.as_json() for f in self.findings],
            "counts": self.counts(),
        }


_CANONICAL = {
    LineKind.USER_AGENT: "user-agent",
    LineKind.ALLOW: "allow",
    LineKind.DISALLOW: "disallow",
    LineKind.SITEMAP: "sitemap",
    LineKind.UNKNOWN: "unknown",
}
_HTML_NOISE = frozenset({"GR203", "GR204", "GR206"})


def lint(body: bytes) -> LintReport:
    """Read ``body`` as Google does and collect the findings, in line order (file-level first)."""
    parsed = body[:MAX_BODY_BYTES]
    reports = report(parsed)
    findings: list[Finding] = []
    add = findings.append

    def emit(code: str, line: int, message: str) -> None:
        add(Finding(CHECKS_BY_CODE[code], line, message))

    def emit_quiet(code: str, line: int, message: str) -> None:
        if code not in _HTML_NOISE:
            emit(code, line, message)

    # --- file level -------------------------------------------------------------------------
    bom = bom_length(parsed)
    if bom == 3:
        emit("GR101", 1, "UTF-8 byte order mark (EF BB BF) at the start: Google skips it")
    elif bom:
        shown = " ".join(f"{b:02X}" for b in parsed[:bom])
        emit(
            "GR102",
            1,
            f"partial byte order mark ({shown}) at the start: Google skips it, other parsers "
            "may read it as part of the first key",
        )
    if len(body) > MAX_BODY_BYTES:
        emit("GR104", *_cut(body, parsed, reports))
    html = _looks_like_html(reports)
    if html:
        emit(
            "GR105",
            0,
            "the content looks like HTML: Google tries to read rules from it and ignores "
            "everything else; serve a plain-text robots.txt (or a 404 for no restrictions)",
        )

    # --- line level -------------------------------------------------------------------------
    views: list[LineView] = []
    groups, orphans = group_lines(reports)
    group_of: dict[int, int] = {}
    for g in groups:
        for r in (*g.agent_lines, *g.rule_lines):
            group_of[r.number] = g.index
    sitemaps: list[str] = []
    licenses: list[str] = []
    current = 0  # the group a line between a group's first line and the next group's is in
    starts = {g.first_line: g.index for g in groups}

    for r in reports:
        current = starts.get(r.number, current)
        text = r.text  # the tokenizer has already dropped a leading BOM from line 1
        if not text.strip(ASCII_WS):
            continue
        views.append(_view(r, text, group_of.get(r.number, current)))
        # In an HTML page every line is "ignored" or "unknown": GR105 says it once.
        line_findings(r, text, emit_quiet if html else emit)
        mechanism = usage_mechanism(r)
        if mechanism is not None and not html:
            usage_findings(r, mechanism, current, emit)
        if r.kind is LineKind.SITEMAP:
            sitemaps.append(display(r.value))
        elif r.kind is LineKind.UNKNOWN and r.value and r.key.lower() == LICENSE_KEY:
            licenses.append(display(r.value))

    orphan_findings(orphans, emit)

    if not groups and reports and any(v.read_as != "comment" for v in views):
        emit("GR106", 0, "no User-agent line: the file places no restrictions on any crawler")
    elif not views:
        emit("GR106", 0, "the file is empty: no restrictions on any crawler")

    group_findings(parsed, groups, emit)
    joined_findings(reports, groups, emit)

    findings.sort(key=lambda f: (f.line != 0, f.line, f.code))
    return LintReport(
        size=len(body),
        parsed_size=len(parsed),
        # A final newline ends the last line; it does not start another one.
        line_count=len(reports) - (1 if reports and not reports[-1].text else 0),
        lines=tuple(views),
        groups=tuple(groups),
        sitemaps=tuple(sitemaps),
        findings=tuple(findings),
        licenses=tuple(licenses),
    )


def _cut(body: bytes, parsed: bytes, reports: Sequence[LineReport]) -> tuple[int, str]:
    """The line where the 500 KiB cut falls, and what to say about it."""
    total = (
        f"the file is {len(body):,} bytes; Google reads only the first {MAX_BODY_BYTES:,} (500 KiB)"
    )
    if not reports:
        return 0, total
    last = reports[-1]
    ends = (b"\n", b"\r")
    if parsed[-1:] in ends:  # the kept part ends with a newline: the last line is whole
        line = last.number - 1
    elif body[len(parsed) : len(parsed) + 1] in ends:  # the cut falls just before a newline
        line = last.number
    else:
        still = (
            " (still read as a rule: a cut pattern is a broader rule)"
            if last.kind in RULES and last.pattern
            else ""
        )
        return last.number, (
            f"{total}: the cut falls inside line {last.number}, leaving "
            f"{quoted(short(display(last.text)))}{still}; everything after it is ignored"
        )
    return line, f"{total}: the cut falls after line {line}; everything after it is ignored"


def _looks_like_html(reports: Sequence[LineReport]) -> bool:
    """GR105's test; ``gbot-robots check`` asks it too, so there is one definition."""
    for r in reports[:20]:
        head = r.text.lstrip(b"\xef\xbb\xbf" + ASCII_WS)[:15].lower()
        if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
            return True
    return False


def _read_as(r: LineReport, text: bytes) -> str:
    mechanism = usage_mechanism(r)
    if mechanism is not None:
        return mechanism
    if r.kind is LineKind.UNKNOWN and r.key.lower() == LICENSE_KEY:
        return "license"
    if r.kind is not None:
        return _CANONICAL[r.kind]
    if r.ignored is not None:
        return "ignored"
    return "comment" if text.lstrip(ASCII_WS).startswith(b"#") else "ignored"


def _view(r: LineReport, text: bytes, group: int) -> LineView:
    read_as = _read_as(r, text)
    usage = read_as in (CONTENT_USAGE, CONTENT_SIGNAL)
    in_group = r.kind in (LineKind.USER_AGENT, *RULES) or usage
    value = display(r.value)
    if read_as == "comment":
        value = display(text.strip(ASCII_WS))
    return LineView(
        number=r.number,
        read_as=read_as,
        key=display(r.key),
        value=value,
        pattern=r.pattern,
        normalised=normalised(r),
        group=group if in_group else 0,
        text=display(text),
    )
