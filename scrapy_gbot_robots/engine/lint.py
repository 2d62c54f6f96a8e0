"""How Google reads a robots.txt file, line by line, and what in it is likely a mistake.

Pure logic for ``gbot-robots lint``: everything here is derived from ``_lines.report()`` (the
tokenizer the matcher itself uses) and from the engine, so the linter can never disagree with
the verdicts about what a line means. No Scrapy, no I/O.

Each finding kind has a stable code (``GR`` + three digits) and a fixed severity so that CI can
gate on it; codes are never reused or renumbered (see docs/cli.md for the catalogue).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .._safetext import display, printable, quoted, short
from .agent import is_valid_token, names_everyone, token_prefix
from .lines import MAX_BODY_BYTES, MAX_LINE_BYTES, LineKind, LineReport, bom_length, report
from .rules import parse
from .usage import (
    CONTENT_SIGNAL,
    CONTENT_USAGE,
    SIGNAL_EXTRAS,
    SIGNALS,
    VOCAB_PARENT,
    Mechanism,
    parse_statement,
)
from .usage import (
    KEYS as USAGE_KEYS,
)

_Emit = Callable[[str, int, str], None]


class Severity(enum.IntEnum):
    """Ordered so that ``--fail-on`` is a simple comparison."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Check:
    """One entry of the catalogue: the stable identity of a finding kind."""

    code: str
    name: str
    severity: Severity
    summary: str


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: The catalogue. Codes are stable: add new ones, never renumber or reuse.
CHECKS: tuple[Check, ...] = (
    # File level
    Check("GR101", "bom", _I, "UTF-8 byte order mark at the start of the file (Google skips it)"),
    Check("GR102", "partial-bom", _W, "a partial byte order mark at the start (Google skips it)"),
    Check("GR103", "non-utf8", _W, "a line is not valid UTF-8"),
    Check("GR104", "over-size-limit", _E, "content past 500 KiB, which Google ignores"),
    Check("GR105", "html", _W, "the file looks like HTML, not robots.txt"),
    Check("GR106", "no-user-agent", _I, "no user-agent line: the file restricts nobody"),
    # Line level
    Check("GR201", "typo-key", _W, "a key recognised through an accepted typo"),
    Check("GR202", "missing-colon", _W, "no colon after the key; whitespace accepted instead"),
    Check("GR203", "ignored-no-separator", _W, "line ignored: no colon and not two tokens"),
    Check("GR204", "ignored-too-many-tokens", _W, "line ignored: no colon and over two tokens"),
    Check("GR205", "ignored-empty-key", _W, "line ignored: nothing before the colon"),
    Check("GR206", "unknown-key", _W, "a key Google does not know; the line is ignored"),
    Check("GR207", "crawl-delay", _I, "crawl-delay, which Google ignores"),
    Check("GR208", "inexact-key", _W, "a key read by its prefix, e.g. 'Disallowed' as disallow"),
    Check("GR209", "line-too-long", _E, "a line cut at 16,663 bytes"),
    Check("GR210", "nul-byte", _W, "a NUL byte ends the line's content"),
    Check("GR211", "hash-in-value", _W, "'#' inside a value starts a comment"),
    Check("GR212", "empty-rule", _I, "an allow/disallow without a path, which matches nothing"),
    # Patterns
    Check("GR301", "never-matches", _E, "a pattern not starting with '/' or '*' never matches"),
    Check("GR302", "dollar-in-middle", _W, "'$' before the end of a pattern is a literal '$'"),
    Check("GR303", "pattern-normalised", _I, "a pattern is matched in its %-encoded form"),
    # Groups
    Check("GR401", "rule-before-user-agent", _E, "a rule before any user-agent line (ignored)"),
    Check("GR402", "hides-global-group", _I, "an agent's own group hides the * group from it"),
    Check("GR403", "empty-group-hides-global", _W, "an agent with no rules escapes the * rules"),
    Check("GR404", "duplicate-rule", _W, "the same rule twice for the same agent"),
    Check("GR405", "conflicting-rules", _W, "allow and disallow of the same pattern (allow wins)"),
    Check("GR406", "agent-matches-nobody", _W, "a user-agent value that matches no crawler"),
    Check("GR407", "agent-read-as-token", _I, "a user-agent value read as a shorter token"),
    # Sitemaps
    Check("GR501", "sitemap-not-absolute", _W, "a sitemap that is not an absolute URL"),
    # Content-usage statements (Content-Signal, Content-Usage): read by AI-preference-aware
    # crawlers, ignored by Google
    Check("GR601", "usage-statement", _I, "Content-Signal or Content-Usage, which Google ignores"),
    Check("GR602", "usage-outside-group", _W, "a usage statement before any user-agent line"),
    Check("GR603", "usage-syntax", _E, "a usage statement that cannot be parsed: it says nothing"),
    Check("GR604", "usage-value", _W, "a usage value neither yes nor no: no preference"),
    Check("GR605", "usage-unknown-name", _W, "a signal or category outside the known vocabulary"),
    Check("GR606", "usage-duplicate", _W, "the same name twice in one statement: the last counts"),
    Check("GR607", "usage-empty", _W, "a usage statement that states no preference at all"),
    Check("GR608", "usage-bad-entry", _W, "a Content-Signal entry that is not name=value"),
)

CHECKS_BY_CODE: dict[str, Check] = {c.code: c for c in CHECKS}
CHECKS_BY_NAME: dict[str, Check] = {c.name: c for c in CHECKS}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing worth telling the author, tied to a line (0 for the file as a whole)."""

    check: Check
    line: int
    message: str

    @property
    def code(self) -> str:
        return self.check.code

    @property
    def severity(self) -> Severity:
        return self.check.severity

    def as_json(self) -> dict[str, object]:
        return {
            "code": self.check.code,
            "name": self.check.name,
            "severity": self.check.severity.label,
            "line": self.line,
            "message": self.message,
        }


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


@dataclass(slots=True)
class Group:
    """A run of user-agent lines and the rules after it, as the reference parser groups them."""

    index: int
    agent_lines: list[LineReport] = field(default_factory=list)
    rule_lines: list[LineReport] = field(default_factory=list)

    @property
    def first_line(self) -> int:
        return self.agent_lines[0].number

    @property
    def last_line(self) -> int:
        last = self.rule_lines[-1] if self.rule_lines else self.agent_lines[-1]
        return last.number

    @property
    def is_global(self) -> bool:
        return any(agent_is_global(a.value) for a in self.agent_lines)

    @property
    def tokens(self) -> list[str]:
        """Lower-cased product tokens this group names (without '*'), in file order, unique."""
        seen: list[str] = []
        for a in self.agent_lines:
            tok = agent_token(a.value)
            if tok and tok not in seen:
                seen.append(tok)
        return seen

    def as_json(self) -> dict[str, object]:
        return {
            "group": self.index,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "user_agents": [display(a.value) for a in self.agent_lines],
            "tokens": self.tokens,
            "global": self.is_global,
            "rule_lines": [r.number for r in self.rule_lines],
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
            "findings": [f.as_json() for f in self.findings],
            "counts": self.counts(),
        }


# ----------------------------------------------------------------------------- helpers

_ASCII_WS = b" \t\n\v\f\r"


def agent_is_global(value: bytes) -> bool:
    """``*`` alone or followed by whitespace is the global agent (the engine's rule)."""
    return names_everyone(value.decode("latin-1"))


def agent_token(value: bytes) -> str:
    """The lower-cased product token a user-agent *value* names ("" when it names nobody).

    Only used to label groups; which group applies to a crawler is always asked of the
    engine (``RobotsTxt.names_agent``), so this cannot change a verdict.
    """
    if agent_is_global(value):
        return ""
    return token_prefix(value.decode("latin-1")).lower()


def is_absolute_url(text: str) -> bool:
    """A URL with a scheme and a host, e.g. ``https://example.com/sitemap.xml``."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return (
        bool(parts.scheme)
        and bool(parts.netloc)
        and text.lower().startswith(f"{parts.scheme.lower()}://")
    )


_CANONICAL = {
    LineKind.USER_AGENT: "user-agent",
    LineKind.ALLOW: "allow",
    LineKind.DISALLOW: "disallow",
    LineKind.SITEMAP: "sitemap",
    LineKind.UNKNOWN: "unknown",
}
_DISPLAY_KEY = {
    LineKind.USER_AGENT: "User-agent",
    LineKind.ALLOW: "Allow",
    LineKind.DISALLOW: "Disallow",
    LineKind.SITEMAP: "Sitemap",
}
_CRAWL_DELAY = re.compile(rb"crawl[-_ ]?delay", re.IGNORECASE)
_RULES = (LineKind.ALLOW, LineKind.DISALLOW)
_HTML_NOISE = frozenset({"GR203", "GR204", "GR206"})


def _lines_list(numbers: Iterable[int]) -> str:
    nums = sorted(set(numbers))
    label = "line" if len(nums) == 1 else "lines"
    if len(nums) > 8:
        return f"{label} {', '.join(map(str, nums[:8]))}, … ({len(nums)} in all)"
    return f"{label} {', '.join(map(str, nums))}"


# ----------------------------------------------------------------------------- grouping


def group_lines(reports: Sequence[LineReport]) -> tuple[list[Group], list[LineReport]]:
    """Split the tokenized lines into groups the way the reference parser does.

    A group ends only when a user-agent line follows an allow/disallow line; rules before the
    first user-agent line belong to no group and are returned separately (Google ignores them).
    """
    groups: list[Group] = []
    orphans: list[LineReport] = []
    current: Group | None = None
    for r in reports:
        if r.kind is LineKind.USER_AGENT:
            if current is None or current.rule_lines:
                current = Group(index=len(groups) + 1)
                groups.append(current)
            current.agent_lines.append(r)
        elif r.kind in _RULES:
            if current is None:
                orphans.append(r)
            else:
                current.rule_lines.append(r)
    return groups, orphans


# ----------------------------------------------------------------------------- the linter


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
    current = 0  # the group a line between a group's first line and the next group's is in
    starts = {g.first_line: g.index for g in groups}

    for r in reports:
        current = starts.get(r.number, current)
        text = r.text  # the tokenizer has already dropped a leading BOM from line 1
        if not text.strip(_ASCII_WS):
            continue
        views.append(_view(r, text, group_of.get(r.number, current)))
        # In an HTML page every line is "ignored" or "unknown": GR105 says it once.
        _line_findings(r, text, emit_quiet if html else emit)
        mechanism = _usage_mechanism(r)
        if mechanism is not None and not html:
            _usage_findings(r, mechanism, current, emit)
        if r.kind is LineKind.SITEMAP:
            sitemaps.append(display(r.value))

    for r in orphans:
        emit(
            "GR401",
            r.number,
            f"{_rule_text(r)} comes before any User-agent line: Google ignores it "
            "(each group must begin with a User-agent line)",
        )

    if not groups and reports and any(v.read_as != "comment" for v in views):
        emit("GR106", 0, "no User-agent line: the file places no restrictions on any crawler")
    elif not views:
        emit("GR106", 0, "the file is empty: no restrictions on any crawler")

    _group_findings(parsed, groups, emit)

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
            if last.kind in _RULES and last.pattern
            else ""
        )
        return last.number, (
            f"{total}: the cut falls inside line {last.number}, leaving "
            f"{quoted(short(display(last.text)))}{still}; everything after it is ignored"
        )
    return line, f"{total}: the cut falls after line {line}; everything after it is ignored"


def _looks_like_html(reports: Sequence[LineReport]) -> bool:
    for r in reports[:20]:
        head = r.text.lstrip(b"\xef\xbb\xbf" + _ASCII_WS)[:15].lower()
        if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
            return True
    return False


def _usage_mechanism(r: LineReport) -> Mechanism | None:
    """The content-usage mechanism of an unknown line, by its exact key; else None."""
    return USAGE_KEYS.get(r.key.lower()) if r.kind is LineKind.UNKNOWN else None


def _read_as(r: LineReport, text: bytes) -> str:
    mechanism = _usage_mechanism(r)
    if mechanism is not None:
        return mechanism
    if r.kind is not None:
        return _CANONICAL[r.kind]
    if r.ignored is not None:
        return "ignored"
    return "comment" if text.lstrip(_ASCII_WS).startswith(b"#") else "ignored"


def _view(r: LineReport, text: bytes, group: int) -> LineView:
    read_as = _read_as(r, text)
    usage = read_as in (CONTENT_USAGE, CONTENT_SIGNAL)
    in_group = r.kind in (LineKind.USER_AGENT, *_RULES) or usage
    value = display(r.value)
    if read_as == "comment":
        value = display(text.strip(_ASCII_WS))
    return LineView(
        number=r.number,
        read_as=read_as,
        key=display(r.key),
        value=value,
        pattern=r.pattern,
        normalised=_normalised(r),
        group=group if in_group else 0,
        text=display(text),
    )


def _normalised(r: LineReport) -> bool:
    return r.pattern is not None and r.pattern != r.value.decode("latin-1")


def _rule_text(r: LineReport) -> str:
    key = _DISPLAY_KEY.get(r.kind, display(r.key)) if r.kind is not None else display(r.key)
    return f"'{key}: {short(display(r.value))}'" if r.value else f"'{key}:'"


def _line_findings(r: LineReport, text: bytes, emit: _Emit) -> None:
    n = r.number
    key = display(r.key)
    canonical = _DISPLAY_KEY.get(r.kind) if r.kind is not None else None

    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        emit(
            "GR103",
            n,
            f"not valid UTF-8 (byte 0x{text[exc.start]:02X} at column {exc.start + 1}): "
            "robots.txt must be UTF-8; Google keeps the bytes and may not match them as you expect",
        )
    if r.too_long:
        emit(
            "GR209",
            n,
            f"the line is {len(r.text):,} bytes; Google keeps the first {MAX_LINE_BYTES:,} and "
            "drops the rest (a cut pattern is a broader rule)",
        )
    if r.nul:
        emit("GR210", n, "a NUL byte ends the line's content; Google ignores what follows it")

    if r.ignored == "no-separator":
        emit(
            "GR203",
            n,
            # display() has already escaped control bytes; repr() would escape them twice.
            f"ignored: no ':' separator ('{short(display(text.strip(_ASCII_WS)), 40)}'); "
            "write 'field: value'",
        )
    elif r.ignored == "too-many-tokens":
        emit(
            "GR204",
            n,
            "ignored: no ':' and more than two whitespace-separated tokens; "
            "without a colon Google accepts only 'field value'",
        )
    elif r.ignored == "empty-key":
        emit("GR205", n, "ignored: nothing before the ':'")

    if r.kind is None:
        return
    if r.kind is LineKind.UNKNOWN:
        if _usage_mechanism(r) is not None:
            pass  # _usage_findings() reads it
        elif _CRAWL_DELAY.fullmatch(r.key):
            emit(
                "GR207",
                n,
                f"{key}: {display(r.value)} is ignored by Google (crawl-delay is not supported); "
                "other crawlers may read it",
            )
        else:
            emit(
                "GR206",
                n,
                f"unknown field {quoted(key)}: Google ignores the line (it reads only user-agent, "
                "allow, disallow and sitemap)",
            )
        return

    if r.typo:
        emit(
            "GR201",
            n,
            f"{quoted(key)} is read as {canonical} (an accepted typo); write {canonical!r}",
        )
    elif not r.exact_key:
        emit(
            "GR208",
            n,
            f"{quoted(key)} is read as {canonical} because it starts with {canonical!r}; "
            f"write {canonical!r}",
        )
    if not r.colon:
        emit(
            "GR202",
            n,
            f"no ':' after {quoted(key)}: Google accepts it because the line has exactly two "
            "tokens, "
            f"other parsers may not; write '{canonical}: {short(display(r.value), 40)}'",
        )
    if r.comment and r.value:
        pos = text.find(b"#")
        if pos > 0 and text[pos - 1] not in _ASCII_WS:
            emit(
                "GR211",
                n,
                f"'#' starts a comment even inside a value: the value is read as "
                f"{quoted(short(display(r.value)))}; write '%23' for a literal '#'",
            )

    if r.kind in _RULES:
        _pattern_findings(r, emit)
    elif r.kind is LineKind.USER_AGENT:
        _agent_findings(r, emit)
    elif r.kind is LineKind.SITEMAP:
        value = display(r.value)
        if not is_absolute_url(value):
            shown = quoted(short(value)) if value else "empty"
            emit(
                "GR501",
                n,
                f"sitemap {shown} is not an absolute URL: it must be fully qualified, "
                "including the protocol and host (e.g. https://example.com/sitemap.xml)",
            )


_OTHER_VOCABULARY = {
    CONTENT_USAGE: {"ai-train": "train-ai", "ai-input": None},
    CONTENT_SIGNAL: {"train-ai": "ai-train", "train-genai": "ai-train", "all": None},
}
_NAMES = {CONTENT_USAGE: "Content-Usage", CONTENT_SIGNAL: "Content-Signal"}


def _usage_findings(r: LineReport, mechanism: Mechanism, group: int, emit: _Emit) -> None:
    """Findings of one Content-Signal or Content-Usage line (engine.usage parses it)."""
    n = r.number
    name = _NAMES[mechanism]
    statement = parse_statement(mechanism, r.value)
    convention = (
        "Cloudflare's convention" if mechanism == CONTENT_SIGNAL else "an IETF draft"
    )
    emit(
        "GR601",
        n,
        f"{name} ({convention}) says how content may be used; Google ignores it, crawlers "
        "that read AI preferences use it",
    )
    if not group:
        emit(
            "GR602",
            n,
            f"{name} before any User-agent line belongs to no group: no crawler reads it; "
            "put it inside a group (e.g. after 'User-agent: *')",
        )
    if statement.error is not None:
        hint = ""
        if any("A" <= c <= "Z" for c in display(r.value)):
            hint = " (keys are lower-case: train-ai, not Train-AI)"
        emit(
            "GR603",
            n,
            f"{name} value is not a Structured Field dictionary ({statement.error}){hint}: "
            "it expresses no preference at all; write e.g. 'train-ai=n, search=y'",
        )
        return
    for problem in statement.problems:
        emit("GR608", n, f"{name}: {problem}; the entry is ignored, write name=yes or name=no")
    if not statement.entries:
        where = f" for {statement.path}" if statement.path else ""
        emit("GR607", n, f"{name}{where} states no preference (nothing after the path?)")
        return
    seen: set[str] = set()
    for entry in statement.entries:
        if entry.key in seen:
            emit(
                "GR606",
                n,
                f"{entry.key!r} appears twice: only its last value counts"
                + (" (RFC 9651 dictionary)" if mechanism == CONTENT_USAGE else ""),
            )
        seen.add(entry.key)
        _usage_entry_findings(n, mechanism, entry.key, entry.value, entry.allowed, emit)


def _usage_entry_findings(
    n: int, mechanism: Mechanism, key: str, value: str, allowed: bool | None, emit: _Emit
) -> None:
    name = _NAMES[mechanism]
    known = VOCAB_PARENT if mechanism == CONTENT_USAGE else SIGNALS
    if mechanism == CONTENT_SIGNAL and key in SIGNAL_EXTRAS:
        if value.lower() not in SIGNAL_EXTRAS[key]:
            allowed_values = ", ".join(sorted(SIGNAL_EXTRAS[key]))
            emit("GR604", n, f"{name} {key}={value!r}: expected one of {allowed_values}")
        return
    if key not in known:
        other = _OTHER_VOCABULARY[mechanism]
        if key in other:
            suggestion = other[key]
            theirs = _NAMES[CONTENT_SIGNAL if mechanism == CONTENT_USAGE else CONTENT_USAGE]
            hint = f"; that is {theirs}'s name" + (
                f", {name} calls it {suggestion!r}" if suggestion else ""
            )
        else:
            hint = ""
        names = ", ".join(sorted(known))
        emit(
            "GR605",
            n,
            f"{name} {key!r} is not a known name ({names}){hint}; crawlers ignore names they "
            "do not know",
        )
    if allowed is None:
        if mechanism == CONTENT_USAGE:
            expected = "the token y or n (e.g. train-ai=n)"
            if value.lower() in ("no", "yes", '"n"', '"y"', "?0", "?1", ""):
                expected += f", not {value or 'a bare key'!r}"
        else:
            expected = "yes or no"
        emit(
            "GR604", n, f"{name} {key}={value!r} states no preference: the value must be {expected}"
        )


def _pattern_findings(r: LineReport, emit: _Emit) -> None:
    n = r.number
    pattern = printable(r.pattern or "")
    value = display(r.value)
    what = "Disallow" if r.kind is LineKind.DISALLOW else "Allow"
    if not pattern:
        disallow = r.kind is LineKind.DISALLOW
        effect = "it disallows nothing" if disallow else "it allows nothing extra"
        emit("GR212", n, f"{what} without a path is ignored by Google: {effect}")
        return
    if not pattern.startswith(("/", "*")):
        if is_absolute_url(value):
            path = urlsplit(value).path or "/"
            hint = f"rules take a path, not a URL: write '{what}: {short(path, 40)}'"
        else:
            hint = f"did you mean '{what}: /{short(value, 40)}'?"
        emit(
            "GR301",
            n,
            f"{what} pattern {quoted(short(value))} never matches: a path must start with '/' "
            f"(or '*'); {hint}",
        )
    if "$" in pattern[:-1]:
        emit(
            "GR302",
            n,
            f"'$' in the middle of {quoted(short(pattern))} is a literal '$'; it anchors only "
            "as the last character",
        )
    if _normalised(r):
        emit(
            "GR303",
            n,
            f"matched as {quoted(short(pattern))}: non-ASCII bytes are %-encoded and %xx escapes "
            "upper-cased; URLs are compared in their %-encoded form",
        )


def _agent_findings(r: LineReport, emit: _Emit) -> None:
    value = r.value
    if agent_is_global(value):
        if value != b"*":
            emit("GR407", r.number, f"user-agent {quoted(display(value))} is read as '*'")
        return
    token = agent_token(value)
    shown = display(value)
    if not value:
        emit("GR406", r.number, "User-agent without a value matches no crawler")
    elif value.startswith(b"*"):
        emit(
            "GR406",
            r.number,
            f"user-agent {quoted(shown)} matches no crawler: '*' is the global agent only when it "
            "stands alone",
        )
    elif not token:
        emit(
            "GR406",
            r.number,
            f"user-agent {quoted(shown)} matches no crawler: a product token is letters, '-' and "
            "'_' (e.g. Googlebot-Image)",
        )
    elif token != shown.lower():
        emit(
            "GR407",
            r.number,
            f"user-agent {quoted(shown)} is read as the token {token!r} (only the leading letters, "
            "'-' and '_' count)",
        )


def _group_findings(parsed: bytes, groups: Sequence[Group], emit: _Emit) -> None:
    rt = parse(parsed)
    global_rules = [r for g in groups if g.is_global for r in g.rule_lines if r.pattern]
    # Every agent that has its own group(s): merged rules, first naming line.
    named: dict[str, list[Group]] = {}
    for g in groups:
        for tok in g.tokens:
            named.setdefault(tok, []).append(g)

    if global_rules:
        for tok, gs in named.items():
            if not is_valid_token(tok) or not rt.names_agent(tok):
                continue
            own = [r for g in gs for r in g.rule_lines]
            first = min(a.number for g in gs for a in g.agent_lines if agent_token(a.value) == tok)
            hidden = _lines_list(r.number for r in global_rules)
            if own:
                allows_all = (
                    "" if any(r.pattern for r in own) else " (its own group allows everything)"
                )
                emit(
                    "GR402",
                    first,
                    f"{tok!r} has its own group, so Google ignores the * group for it: the * "
                    f"rules ({hidden}) do not apply to {tok}{allows_all}",
                )
            else:
                # A trailing "User-agent: X" with no rule after it: usually a mistake.
                emit(
                    "GR403",
                    first,
                    f"{tok!r} has its own group but no allow/disallow line in it: {tok} may "
                    f"crawl everything, the * rules ({hidden}) do not apply to it",
                )

    # Duplicates and conflicts, per merged rule set (each named agent, and '*').
    sets: list[tuple[str, list[LineReport]]] = [
        (tok, [r for g in gs for r in g.rule_lines]) for tok, gs in named.items()
    ]
    if any(g.is_global for g in groups):
        sets.append(("*", [r for g in groups if g.is_global for r in g.rule_lines]))
    reported: dict[tuple[str, int, int], list[str]] = {}
    for agent, rules in sets:
        first_seen: dict[tuple[LineKind | None, str], LineReport] = {}
        for r in sorted(rules, key=lambda x: x.number):
            if not r.pattern:
                continue
            same = first_seen.get((r.kind, r.pattern))
            other_kind = LineKind.ALLOW if r.kind is LineKind.DISALLOW else LineKind.DISALLOW
            other = first_seen.get((other_kind, r.pattern))
            if same is not None:
                reported.setdefault(("GR404", r.number, same.number), []).append(agent)
            if other is not None:
                reported.setdefault(("GR405", r.number, other.number), []).append(agent)
            first_seen.setdefault((r.kind, r.pattern), r)
    for (code, line, earlier), agents in reported.items():
        who = ", ".join(agents)
        if code == "GR404":
            emit("GR404", line, f"the same rule as line {earlier} (for {who}); remove one")
        else:
            emit(
                "GR405",
                line,
                f"conflicts with line {earlier} (same pattern, for {who}): Google resolves the "
                "tie in favour of Allow",
            )
