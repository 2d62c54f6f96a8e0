"""``gbot-robots check``: which URLs may a crawler fetch, and which line decides.

Every verdict is ``parse(body).decide(sendable_url(url), tokens, global_group)``: the engine
the middleware obeys, asked about the URL as written, %-encoded only where a crawler could not
send it so; the usage column is ``parse(body).usage(...)``, with the same group selection. This
module adds no verdict of its own, only warnings (a file that is not robots.txt, a line that is
not an absolute URL) and notes (the encoded form that was checked).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from .._safetext import printable, quoted
from ..engine import lint as _lint
from ..engine.decision import Decision
from ..engine.lines import LineKind, LineReport, report
from ..engine.path_match import path_params_query
from ..engine.rules import RobotsTxt, parse
from ..engine.url import sendable_url
from ..engine.usage import Usage
from ._args import (
    EXIT_FINDINGS,
    EXIT_OK,
    Command,
    IOStreams,
    Tokens,
    UrlInput,
    UsageError,
    add_token_arguments,
    read_robots,
    read_url_file,
    resolve_tokens,
    token_fields,
)
from ._render import Cell, Painter, colour_wanted, line_text, plural, render_table, short

EXAMPLES = """\
examples:
  gbot-robots check robots.txt https://example.com/page
  gbot-robots check robots.txt --token Bingbot https://example.com/page
  gbot-robots check robots.txt -u Googlebot-Image,Googlebot --urls urls.txt
  gbot-robots check robots.txt --as adsbot-google https://example.com/landing
  curl -s https://example.com/robots.txt | gbot-robots check - https://example.com/
  gbot-robots check robots.txt --json https://example.com/a https://example.com/b

The crawler is Googlebot unless -u/--token or --as names another, as in every command.
exit status: 0 every URL allowed, 1 any URL disallowed, 2 usage error (a missing file, a URL
given for the file (use 'gbot-robots fetch'), a bad option, a value with no token in it).
A token is the crawler's product name: letters, '-' and '_' only (Googlebot, AdsBot-Google);
a User-Agent string is reduced to its token (Googlebot/2.1 -> Googlebot), with a warning.
With several tokens the first one that a group names decides; * applies only when none does
(and never with --no-global). --as NAME takes a crawler's tokens from Google's documentation.
A URL is checked as written; only what a crawler cannot send as written (spaces, controls,
non-ASCII) is %-encoded, the form a crawler requests (/café as /caf%C3%A9), with a note.
A URL that is not absolute (example.com/page, /page) is still checked, with a warning: Google's
parser takes the path from whatever it is given. Warnings and notes go to stderr.
"""

#: Per kind of warning or note, how many lines are printed before the rest are only counted.
SHOWN = 10


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("robots", metavar="ROBOTS", help="robots.txt file, or '-' for stdin")
    p.add_argument("url", metavar="URL", nargs="*", help="absolute URL(s) to test")
    add_token_arguments(p)
    p.add_argument(
        "--urls",
        metavar="FILE",
        help="read more URLs from FILE, one per line ('-' for stdin; '#' lines skipped)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per URL per line")


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    """Check every URL; exit 1 when any is disallowed, as Google's ``robots_main`` does."""
    later: list[str] = []  # warnings about the arguments, printed once they are all valid
    tokens = resolve_tokens(ns, later.append)
    if ns.robots == "-" and ns.urls == "-":
        raise UsageError("robots.txt and --urls cannot both be read from stdin ('-')")
    # A file first (a URL given for it gets its hint even without URLs); stdin last.
    body = read_robots(ns.robots, io.stdin) if ns.robots != "-" else b""
    targets = [UrlInput(given=url, where="", raw=url) for url in ns.url]
    if ns.urls is not None:
        targets.extend(read_url_file(ns.urls, io.stdin))
    if not targets:
        raise UsageError("no URLs to check: give them as arguments or with --urls FILE")
    if ns.robots == "-":
        body = read_robots(ns.robots, io.stdin)
    for text in later:
        io.note(text)

    rt = parse(body)
    reports = report(rt.body)
    warning = not_robots_txt("<stdin>" if ns.robots == "-" else ns.robots, body, reports)
    if warning:
        io.note(warning)
    checked = [sendable_url(t.raw) for t in targets]
    url_remarks(targets, checked, io, encoded_notes=not ns.json)
    if rt.truncated:
        io.note(
            f"note: the file is {len(body):,} bytes; as Google does, only the first "
            f"{len(rt.body):,} are read"
        )

    token, global_group = tokens.token, tokens.global_group
    decisions = [rt.decide(url, token, global_group) for url in checked]
    usages = [rt.usage(url, token, global_group) for url in checked]
    disallowed = sum(not d.allowed for d in decisions)
    if ns.json:
        for t, url, d, usage in zip(targets, checked, decisions, usages, strict=True):
            obj = verdict_json(t.given, tokens, d, reports, url, usage)
            obj["licenses"] = list(rt.licenses)
            io.out.write(json.dumps(obj) + "\n")
    else:
        paint = Painter(colour_wanted(ns.color, io.out))
        io.out.write(paint(follows(rt, reports, tokens), "dim") + "\n")
        with_usage = any(u.preferences for u in usages)
        header = ["VERDICT", "LINE", "GROUP", "RULE", *(["USAGE"] if with_usage else []), "URL"]
        rows: list[list[Cell]] = [[(name, "bold") for name in header]]
        for t, d, usage in zip(targets, decisions, usages, strict=True):
            verdict = "allowed" if d.allowed else "disallowed"
            group = d.token if d.group != "none" and d.token else "-"
            rule = short(line_text(reports, d.line), 60) if d.line else "(no matching rule)"
            row: list[Cell] = [
                (verdict, verdict),
                (str(d.line) if d.line else "-", None),
                (group, None),
                (rule, None if d.line else "dim"),
            ]
            if with_usage:
                cell = usage_text(usage)
                row.append((cell or "-", None if cell else "dim"))
            row.append((t.given, None))
            rows.append(row)
        for line in render_table(rows, paint, right=frozenset({1})):
            io.out.write(line + "\n")
        summary = (
            f"{len(decisions)} URL{'s' if len(decisions) != 1 else ''}: "
            f"{len(decisions) - disallowed} allowed, {disallowed} disallowed for {tokens.label}"
        )
        if not tokens.global_group:
            summary += " (ignoring *)"
        io.out.write(paint(summary, "disallowed" if disallowed else "allowed") + "\n")
        if with_usage:
            io.out.write(paint(USAGE_NOTE, "dim") + "\n")
        for url in rt.licenses:
            io.out.write(paint(f"License (RSL): {printable(url)}", "dim") + "\n")
    return EXIT_FINDINGS if disallowed else EXIT_OK


#: Printed under a table with a USAGE column: what those statements are, and are not.
USAGE_NOTE = (
    "USAGE: Content-Signal (Cloudflare's convention) and Content-Usage (IETF draft) "
    "statements in force (line); not Google's rules, they never change a verdict"
)


def usage_text(usage: Usage) -> str:
    """``search=yes ai-train=no (3); train-ai=n (7)``: each statement's values, with its line."""
    parts: list[str] = []
    by_line: dict[int, list[str]] = {}
    for pref in usage.preferences:
        by_line.setdefault(pref.line, []).append(f"{pref.category}={pref.value}")
    for line, values in by_line.items():
        parts.append(f"{' '.join(values)} ({line})")
    return "; ".join(parts)


def verdict_json(
    url: str,
    tokens: Tokens,
    d: Decision,
    reports: Sequence[LineReport],
    checked_url: str | None = None,
    usage: Usage | None = None,
) -> dict[str, object]:
    """One ``--json`` row: the URL as given, the URL as checked, and the engine's verdict
    (``user_agent`` and ``user_agents``, 0.2's names of ``tokens``, until 0.4)."""
    return {
        "url": url,
        "checked_url": url if checked_url is None else checked_url,
        **token_fields(tokens),
        "global_group": tokens.global_group,
        "allowed": d.allowed,
        "line": d.line,
        "rule": line_text(reports, d.line) if d.line else "",
        "directive": d.directive,
        "value": d.value,
        "pattern": d.pattern,
        "group": d.group,
        "token": d.token,
        "usage": (usage or Usage(d.token)).as_json(),
    }


def _lines_of(groups: Sequence[_lint.Group]) -> str:
    return ", ".join(f"{g.first_line}-{g.last_line}" for g in groups)


def follows(rt: RobotsTxt, reports: Sequence[LineReport], tokens: Tokens) -> str:
    """Which group the engine applies to the crawler: a token's own, the * group, or none."""
    groups, _ = _lint.group_lines(reports)
    first = tokens.names[0]
    named = next((t for t in tokens.names if rt.names_agent(t)), None)
    if named is not None:
        where = _lines_of([g for g in groups if named.lower() in g.tokens])
        if named == first:
            return (
                f"{first} follows its own group (lines {where}); the * group does not apply "
                "to it"
            )
        return (
            f"{first} has no group of its own and follows the {named} group (lines {where}), "
            f"the first of {tokens.label} that a group names; the * group does not apply to it"
        )
    who = first if len(tokens.names) == 1 else f"none of {tokens.label}"
    own = "has" if len(tokens.names) == 1 else "has a group of"
    glob = [g for g in groups if g.is_global]
    if not tokens.global_group:
        return (
            f"{who} {own} no group of its own, and the * group is ignored (--no-global): "
            "nothing is disallowed for it"
        )
    if glob:
        return f"{who} {own} no group of its own and follows the * group (lines {_lines_of(glob)})"
    return f"no group applies to {tokens.label}: nothing is disallowed for it"


# ----------------------------------------------------------------------------- warnings

_DIRECTIVES = (LineKind.USER_AGENT, LineKind.ALLOW, LineKind.DISALLOW, LineKind.SITEMAP)
# Bytes that do not occur in text: C0 controls other than whitespace and ESC, and DEL.
_BINARY_BYTES = bytes(b for b in [*range(0x20), 0x7F] if b not in b"\t\n\v\f\r\x1b")


def looks_binary(body: bytes) -> bool:
    """A NUL in the first 8 KiB (as git and grep decide), or over 10 % control bytes there."""
    head = body[:8192]
    if b"\0" in head:
        return True
    controls = len(head) - len(head.translate(None, _BINARY_BYTES))
    return controls * 10 > len(head)


def not_robots_txt(name: str, body: bytes, reports: Sequence[LineReport]) -> str | None:
    """A warning when the input is not what a robots.txt looks like, else None.

    Google's parser reads any bytes and allows whatever no rule disallows, so an HTML error
    page served as robots.txt (a soft 404), a binary file or an empty file gets "allowed"
    everywhere; the verdicts stay Google's, the warning says why they may surprise.
    """
    rules = sum(1 for r in reports if r.kind in (LineKind.ALLOW, LineKind.DISALLOW) and r.pattern)
    if rules:
        anyway = f"Google reads it anyway and obeys the {plural(rules, 'rule')} it finds in it"
    else:
        anyway = "Google reads it anyway, finds no rule in it, and allows everything"
    if _lint._looks_like_html(reports):  # the linter's GR105 test: one definition
        return f"warning: {name} looks like an HTML page (a soft 404?), not a robots.txt; {anyway}"
    if looks_binary(body):
        return f"warning: {name} looks like a binary file, not a robots.txt; {anyway}"
    if not body.strip():
        return f"warning: {name} is empty: nothing is disallowed (no rules, no restrictions)"
    if not any(r.kind in _DIRECTIVES for r in reports):
        return (
            f"warning: {name} has no user-agent, allow, disallow or sitemap line, so nothing "
            "is disallowed: is it a robots.txt file?"
        )
    return None


class _Capped:
    """Prints the first :data:`SHOWN` lines of one kind on stderr, then counts the rest."""

    def __init__(self, io: IOStreams, rest: str) -> None:
        self.io, self.rest, self.count = io, rest, 0

    def __call__(self, text: str) -> None:
        self.count += 1
        if self.count <= SHOWN:
            self.io.note(text)

    def close(self) -> None:
        if self.count > SHOWN:
            self.io.note(self.rest.format(n=self.count - SHOWN))


def url_remarks(
    targets: Sequence[UrlInput], checked: Sequence[str], io: IOStreams, encoded_notes: bool
) -> None:
    """Warn about URLs that are not absolute or not UTF-8, and say which were %-encoded.

    None of them stops the run: Google's parser takes the path from any string (for
    ``example.com/page`` it is ``/page``), so each still gets Google's verdict.
    """
    not_utf8 = _Capped(io, "warning: {n} more lines are not valid UTF-8")
    relative = _Capped(io, "warning: {n} more URLs are not absolute URLs")
    encoded = _Capped(
        io, "note: {n} more URLs are checked in the %-encoded form a crawler requests"
    )
    for t, url in zip(targets, checked, strict=True):
        at = f"{t.where}: " if t.where else ""
        if not t.utf8:
            not_utf8(
                f"warning: {at}not valid UTF-8: {quoted(t.given)} is checked as {url}, its invalid "
                "bytes %-encoded"
            )
        if not _lint.is_absolute_url(t.given):
            relative(
                f"warning: {at}not an absolute URL: {quoted(t.given)} (give scheme and host, e.g. "
                f"https://example.com/page); checked anyway: Google's parser reads its path "
                f"as {quoted(path_params_query(url))}"
            )
        elif encoded_notes and t.utf8 and url != t.given:
            encoded(f"note: {at}{quoted(t.given)} is checked as {url}, the form a crawler requests")
    for capped in (not_utf8, relative, encoded):
        capped.close()


COMMAND = Command(
    name="check",
    order=10,
    help="test URLs against a robots.txt",
    description="Print, for each URL, whether the crawler may fetch it, the line that\n"
    "decides it, and whether that line comes from the crawler's own group or the * group.\n"
    "Verdicts come from the same engine the middleware obeys.",
    epilog=EXAMPLES,
    example="gbot-robots check robots.txt https://example.com/page",
    add_arguments=add_arguments,
    run=run,
)
