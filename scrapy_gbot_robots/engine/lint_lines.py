"""The linter's checks of one line: its key and separator (``GR2xx``), its pattern
(``GR3xx``), its user-agent value (``GR406``, ``GR407``) and its sitemap (``GR501``).

Each check reads the tokenizer's :class:`~.lines.LineReport` of the line, the report the
matcher's own reading comes from, so what a finding says a line means is what the verdicts
make of it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .._safetext import display, printable, quoted, short
from .lines import LICENSE_KEY, MAX_LINE_BYTES, LineKind, LineReport
from .lint_checks import Emit
from .lint_usage import usage_mechanism
from .tokens import names_everyone, token_prefix

#: What ``bytes.strip()`` strips: a line made of these alone is blank.
ASCII_WS = b" \t\n\v\f\r"
RULES = (LineKind.ALLOW, LineKind.DISALLOW)
#: Each key as a finding writes it.
DISPLAY_KEY = {
    LineKind.USER_AGENT: "User-agent",
    LineKind.ALLOW: "Allow",
    LineKind.DISALLOW: "Disallow",
    LineKind.SITEMAP: "Sitemap",
}
_CRAWL_DELAY = re.compile(rb"crawl[-_ ]?delay", re.IGNORECASE)
#: Characters no URL Scrapy requests holds as written: ``w3lib.url.safe_url_string`` (what
#: every ``Request`` goes through) %-encodes them in the path and the query, or removes them
#: (tab, CR, LF), or reads them as another (``\`` as ``/``). A pattern holding one matches no
#: request Scrapy sends (``tests/engine/test_lint.py`` checks this set against it).
NEVER_SENT = frozenset(' "<>[\\]^`{|}\x7f') | frozenset(map(chr, range(0x20)))


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


def normalised(r: LineReport) -> bool:
    """Whether an allow/disallow line's pattern differs from its value as written."""
    return r.pattern is not None and r.pattern != r.value.decode("latin-1")


def line_findings(r: LineReport, text: bytes, emit: Emit) -> None:
    """Every finding about one physical line (``text``, without a leading BOM)."""
    n = r.number
    key = display(r.key)
    canonical = DISPLAY_KEY.get(r.kind) if r.kind is not None else None

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
            f"ignored: no ':' separator ('{short(display(text.strip(ASCII_WS)), 40)}'); "
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
        if usage_mechanism(r) is not None:
            pass  # engine/lint_usage.py reads it
        elif r.key.lower() == LICENSE_KEY:
            _license_findings(r, emit)
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
        if pos > 0 and text[pos - 1] not in ASCII_WS:
            emit(
                "GR211",
                n,
                f"'#' starts a comment even inside a value: the value is read as "
                f"{quoted(short(display(r.value)))}; write '%23' for a literal '#'",
            )

    if r.kind in RULES:
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


def _license_findings(r: LineReport, emit: Emit) -> None:
    """RSL 1.0's global ``License:`` line: known (not GR206), its URL absolute."""
    n, value = r.number, display(r.value)
    emit(
        "GR502",
        n,
        f"License: {short(value) if value else '(empty)'} points to an RSL licence (RSL 1.0); "
        "Google ignores it, crawlers that read licences use it",
    )
    if not is_absolute_url(value):
        shown = quoted(short(value)) if value else "empty"
        emit(
            "GR503",
            n,
            f"License {shown} is not an absolute URL: RSL's License line names the licence "
            "document by its full URL (e.g. https://example.com/license.xml)",
        )


def _pattern_findings(r: LineReport, emit: Emit) -> None:
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
    raw = r.pattern or ""
    unsent = sorted({c for c in raw if c in NEVER_SENT})
    if unsent:
        fixed = "".join(_as_sent(c) if c in NEVER_SENT else c for c in raw)
        shown = ", ".join(f"{printable(c)!r} as {_as_sent(c)!r}" for c in unsent)
        emit(
            "GR304",
            n,
            f"{what} pattern {quoted(short(pattern))} never matches a request Scrapy sends: its "
            f"URLs carry {shown}; write '{what}: {short(printable(fixed), 60)}'",
        )
    if normalised(r):
        emit(
            "GR303",
            n,
            f"matched as {quoted(short(pattern))}: non-ASCII bytes are %-encoded and %xx escapes "
            "upper-cased; URLs are compared in their %-encoded form",
        )


def _as_sent(char: str) -> str:
    """How a URL Scrapy sends carries ``char`` (one of :data:`NEVER_SENT`)."""
    if char == "\\":
        return "/"
    if char in "\t\r\n":
        return ""  # removed
    return f"%{ord(char):02X}"


def _agent_findings(r: LineReport, emit: Emit) -> None:
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
