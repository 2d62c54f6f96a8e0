"""``gbot-robots report``: the summary of a crawl's robots.txt audit report, in the terminal.

Reads the JSON report a crawl wrote (``GBOT_ROBOTS_REPORT``, schema ``gbot-robots-report/2``,
or ``/1`` read in its words) and prints the totals, origins by state, the rules that forbade
the most requests and the origins with the most held-back requests (with their crawl-delay
and content-usage signals when the report has them). A report of an observe-mode crawl says
so first, and counts what robots.txt *would* have forbidden. Nothing is recomputed: the
numbers are the report's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import IO, Any

from .._safetext import printable, quoted
from ..report.labels import (  # SCHEMA: the schema version this command reads (and older ones)
    OLDER_SCHEMAS,
    SCHEMA,
    STATE_LABELS,
    delay_text,
    is_usage_directive,
    observed,
    tokens_text,
    usage_statements,
)
from ..report.schema import problem, upgraded
from ._args import EXIT_OK, Command, IOStreams, UsageError, read_input
from ._render import Cell, Painter, colour_wanted, plural, render_table, short

DEFAULT_TOP = 10
_Write = Callable[[str], object]

EXAMPLES = """\
examples:
  gbot-robots report robots-report.json
  gbot-robots report robots-report.json --top 25
  gbot-robots report robots-report.json --json | jq '.rules[0]'

The report is written by a crawl with GBOT_ROBOTS_REPORT = "robots-report.json" (docs/report.md).
exit status: 0 the summary was printed; 2 usage error (a missing file, a file that is not a
gbot-robots report, a report with a field of the wrong type, or a report of another schema
version).
"""

_GROUPS = {"agent": "own", "global": "*", "none": "-"}


def _group(rule: dict[str, Any]) -> str:
    """Whose group decided: the crawler's token (``own`` in reports without it), ``*``, ``-``."""
    token = rule.get("token")
    if token:  # "*", or the crawler's token (a usage line's group may say "none")
        return _text(token)
    group = str(rule.get("group"))
    return _GROUPS.get(group, _text(group))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("report", metavar="FILE.json", help="a JSON report, or '-' for stdin")
    p.add_argument(
        "--top",
        type=int,
        default=None,
        metavar="N",
        help=f"rules and origins to show (default: {DEFAULT_TOP}; with --json: all)",
    )
    p.add_argument("--json", action="store_true", help="re-emit the report as JSON")


#: Nesting a report may have, at most: a real one is a few levels deep. Deeper input is
#: refused before anything walks it (Python's json and the schema check recurse).
MAX_DEPTH = 64


def load_report(path: str, stdin: IO[bytes]) -> dict[str, Any]:
    """The report, checked to be one this version reads; any problem is a usage error."""
    raw = read_input(path, stdin, "report file")
    too_deep = f"{quoted(path)} is not a valid report: nested deeper than {MAX_DEPTH} levels"
    try:
        data = json.loads(raw)
    except RecursionError:
        raise UsageError(too_deep) from None
    except ValueError:
        hint = " (an .html report? give the .json one)" if raw.lstrip()[:1] == b"<" else ""
        raise UsageError(f"{quoted(path)} is not JSON{hint}") from None
    if _deeper_than(data, MAX_DEPTH):
        raise UsageError(too_deep)
    schema = data.get("schema") if isinstance(data, dict) else None
    if not isinstance(schema, str) or not schema.startswith("gbot-robots-report/"):
        raise UsageError(f"{quoted(path)} is not a gbot-robots report (no 'schema' field)")
    if schema != SCHEMA and schema not in OLDER_SCHEMAS:
        readable = ", ".join(repr(name) for name in (SCHEMA, *OLDER_SCHEMAS))
        raise UsageError(
            f"{quoted(path)} has schema {quoted(schema)}; "
            f"this version of gbot-robots reads {readable}"
        )
    data = upgraded(data)
    for key, kind in (("totals", dict), ("origins_by_state", dict), ("rules", list)):
        if not isinstance(data.get(key), kind):
            raise UsageError(f"{quoted(path)} is not a complete report: {key!r} is missing")
    if not isinstance(data.get("origins"), list):
        raise UsageError(f"{quoted(path)} is not a complete report: 'origins' is missing")
    wrong = problem(data)
    if wrong is not None:
        raise UsageError(f"{quoted(path)} is not a valid report: {printable(wrong)}")
    report: dict[str, Any] = data
    return report


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether lists and objects nest deeper than ``limit``; no recursion, so no input can
    exhaust the stack here."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    """Print the summary (or re-emit the JSON); 0 unless the input is unusable (2)."""
    if ns.top is not None and ns.top < 1:
        raise UsageError(f"--top must be at least 1, got {ns.top}")
    data = load_report(ns.report, io.stdin)
    if ns.json:
        if ns.top is not None:
            data = {**data, "rules": data["rules"][: ns.top], "origins": data["origins"][: ns.top]}
        io.out.write(json.dumps(data, indent=2) + "\n")
        return EXIT_OK
    paint = Painter(colour_wanted(ns.color, io.out))
    name = "<stdin>" if ns.report == "-" else ns.report
    write_summary(io.out, paint, name, data, ns.top or DEFAULT_TOP)
    return EXIT_OK


def _text(value: Any) -> str:
    """A string from the report (URLs, robots.txt lines), safe for a terminal."""
    return printable("" if value is None else str(value))


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def write_summary(out: IO[str], paint: Painter, name: str, data: dict[str, Any], top: int) -> None:
    """Totals, origins by state, the top rules and the top origins."""
    w = out.write
    crawl = data.get("crawl") or {}
    totals = data["totals"]
    by_state = data["origins_by_state"]
    head = (
        f"robots.txt report of spider {_text(crawl.get('spider'))}, token "
        f"{_text(tokens_text(crawl))}"
    )
    if crawl.get("finish_reason"):
        head += f", finish reason: {_text(crawl.get('finish_reason'))}"
    w(paint(head, "bold") + "\n")
    observe = observed(data)
    if observe:
        w(
            paint(
                'OBSERVE MODE (GBOT_ROBOTS_MODE = "observe"): robots.txt forbade and dropped '
                "nothing;",
                "warning",
            )
            + "\n"
            + paint("every count below is what Googlebot would have done", "warning")
            + "\n"
        )
    w(paint(f"{_text(name)}: generated {_text(data.get('generated_at'))}", "dim") + "\n\n")

    checked = _int(totals.get("checked"))
    forbidden = "would be forbidden" if observe else "forbidden"
    parts = [
        paint(f"{_int(totals.get('allowed')):,} allowed", "allowed"),
        paint(f"{_int(totals.get('forbidden')):,} {forbidden}", "disallowed"),
    ]
    if observe or "would_stop" in totals:
        parts.append(
            paint(f"{_int(totals.get('would_stop')):,} would be stopped (server error)", "warning")
        )
    held = [paint(f"{_int(totals.get('dropped')):,} dropped", "warning")]
    held.append(f"{_int(totals.get('parked')):,} parked first")
    w(f"requests  {checked:,} checked: {', '.join(parts)}; {', '.join(held)}\n")
    states = [
        f"{_int(by_state.get(key)):,} {label}"
        for key, label in STATE_LABELS.items()
        if key != "unknown" or _int(by_state.get(key))
    ]
    w(f"origins   {_int(totals.get('origins')):,}: {', '.join(states)}\n")
    w(f"rules     {plural(_int(totals.get('rules')), 'deciding rule')}\n")
    folded = data.get("folded") or {}
    if _int(folded.get("origins")) or _int(folded.get("rules")):
        limits = data.get("limits") or {}
        w(
            paint(
                f"folded    {plural(_int(folded.get('origins')), 'origin')} and "
                f"{plural(_int(folded.get('rules')), 'rule')} into 'other' (the report keeps "
                f"{_int(limits.get('max_origins')):,} origins, {_int(limits.get('max_rules')):,} "
                "rules)",
                "dim",
            )
            + "\n"
        )

    _pages(w, paint, data, top)
    _rules(w, paint, data, top, observe)
    _origins(w, paint, data, top, observe)


def _pages(w: _Write, paint: Painter, data: dict[str, Any], top: int) -> None:
    """The ``pages`` line (robots meta tags and X-Robots-Tag), and the audit finding's URLs:
    disallowed pages that carry a noindex, which Googlebot never sees."""
    pages = data.get("page_rules")
    if not isinstance(pages, dict) or pages.get("level", "off") == "off":
        return
    parts = [
        paint(f"{_int(pages.get('noindex')):,} noindex", "disallowed"),
        f"{_int(pages.get('nofollow')):,} nofollow",
    ]
    hidden = _int(pages.get("disallowed_noindex"))
    parts.append(
        paint(f"{hidden:,} disallowed by robots.txt with noindex", "warning" if hidden else "dim")
    )
    line = f"pages     {_int(pages.get('read')):,} read: {', '.join(parts)}"
    if pages.get("level") == "obey" or _int(pages.get("dropped_nofollow")):
        line += f"; {plural(_int(pages.get('dropped_nofollow')), 'request')} dropped (nofollow)"
    w(line + "\n")
    if not hidden:
        return
    urls = [
        (_text(o.get("origin")), _text(url))
        for o in data["origins"]
        if isinstance(o, dict) and isinstance(o.get("pages"), dict)
        for url in (o["pages"].get("examples") or {}).get("disallowed_noindex") or ()
    ][:top]
    w(
        "\n"
        + paint(
            "disallowed by robots.txt, with noindex: Googlebot never fetches these pages, so "
            "it never sees their noindex",
            "bold",
        )
        + "\n"
    )
    for _, url in urls:
        w(f"  {url}\n")
    if hidden > len(urls):
        w(
            paint(
                f"  ... {hidden - len(urls):,} more (the JSON report has examples per origin)",
                "dim",
            )
            + "\n"
        )


def _rules(w: _Write, paint: Painter, data: dict[str, Any], top: int, observe: bool) -> None:
    """The rules that forbade (would have forbidden) the most requests."""
    rules: list[dict[str, Any]] = data["rules"][:top]
    by = "requests they would have forbidden" if observe else "requests forbidden"
    w("\n" + paint(_heading(rules, data["rules"], "rule", by), "bold") + "\n")
    if not rules:
        w(f"  no request {'would have been' if observe else 'was'} forbidden\n")
        return
    usage = any(_by_usage(r) for r in rules)
    rows: list[list[Cell]] = [
        [
            ("#", "bold"),
            ("WOULD FORBID" if observe else "FORBIDDEN", "bold"),
            ("RULE", "bold"),
            ("LINE", "bold"),
            ("GROUP", "bold"),
            *([("BY", "bold")] if usage else []),
            ("ORIGIN", "bold"),
        ]
    ]
    for r in rules:
        rows.append(
            [
                (str(_int(r.get("rank"))), None),
                (f"{_int(r.get('forbidden')):,}", "disallowed"),
                (short(_text(r.get("rule")) or "(no rule)", 60), None),
                (str(_int(r.get("line"))), None),
                (_group(r), None),
                *([("usage signal" if _by_usage(r) else "rule", None)] if usage else []),
                (_text(r.get("origin")), None),
            ]
        )
    for line in render_table(rows, paint, right=frozenset({0, 1, 3})):
        w("  " + line + "\n")
    if usage:
        uses = ", ".join(_text(u) for u in (data.get("crawl") or {}).get("uses") or ())
        named = f" (GBOT_ROBOTS_USAGE: {uses})" if uses else ""
        w(
            paint(
                f"  usage signal: forbidden by a content-usage signal{named}, not by a rule",
                "dim",
            )
            + "\n"
        )


def _by_usage(rule: dict[str, Any]) -> bool:
    return rule.get("by") == "usage" or is_usage_directive(rule.get("directive"))


def _origins(w: _Write, paint: Painter, data: dict[str, Any], top: int, observe: bool) -> None:
    """The origins with the most held-back requests, then their content-usage signals."""

    origins: list[dict[str, Any]] = data["origins"][:top]
    held = "requests that would have been held back" if observe else "requests held back"
    title = _heading(origins, data["origins"], "origin", held)
    w("\n" + paint(title, "bold") + "\n")
    if not origins:
        w("  no origin was seen\n")
        return
    stops = observe or "would_stop" in data["totals"]
    delays = any(delay_text(o.get("crawl_delay")) for o in origins)
    header: list[Cell] = [
        ("ORIGIN", "bold"),
        ("STATE", "bold"),
        ("ALLOWED", "bold"),
        ("WOULD FORBID" if observe else "FORBIDDEN", "bold"),
    ]
    if stops:
        header.append(("WOULD STOP", "bold"))
    header += [("PARKED", "bold"), ("DROPPED", "bold")]
    if delays:
        header.append(("CRAWL-DELAY", "bold"))
    header.append(("LINT", "bold"))
    orows: list[list[Cell]] = [header]
    for o in origins:
        req = o.get("requests") or {}
        row: list[Cell] = [
            (_text(o.get("origin")), None),
            (_state_text(o), "warning" if o.get("state") == "server_error" else None),
            (f"{_int(req.get('allowed')):,}", None),
            (f"{_int(req.get('forbidden')):,}", "disallowed" if req.get("forbidden") else None),
        ]
        if stops:
            row.append(
                (f"{_int(req.get('would_stop')):,}", "warning" if req.get("would_stop") else None)
            )
        row += [
            (f"{_int(req.get('parked')):,}", None),
            (f"{_int(req.get('dropped')):,}", "warning" if req.get("dropped") else None),
        ]
        if delays:
            row.append((delay_text(o.get("crawl_delay")) or "-", None))
        row.append((_lint_text(o.get("lint")), "dim"))
        orows.append(row)
    right = frozenset(range(2, 7 if stops else 6))
    for line in render_table(orows, paint, right=right):
        w("  " + line + "\n")
    _usage(w, paint, origins)


def _usage(w: _Write, paint: Painter, origins: list[dict[str, Any]]) -> None:
    """The content-usage lines of the group in force, for the origins shown that have any."""
    rows: list[list[Cell]] = []
    for o in origins:
        statements = usage_statements(o.get("usage"))
        group = (o.get("usage") or {}).get("group") or "(none)"
        for i, (number, text, _) in enumerate(statements):
            first = i == 0
            rows.append(
                [
                    (_text(o.get("origin")) if first else "", None),
                    (_text(group) if first else "", None),
                    (str(number), None),
                    (short(_text(text), 80), None),
                ]
            )
    if not rows:
        return
    w("\n" + paint("content-usage signals of those origins (the group in force)", "bold") + "\n")
    header: list[Cell] = [
        ("ORIGIN", "bold"),
        ("GROUP", "bold"),
        ("LINE", "bold"),
        ("STATEMENT", "bold"),
    ]
    for line in render_table([header, *rows], paint, right=frozenset({2})):
        w("  " + line + "\n")


def _heading(shown: list[Any], every: list[Any], word: str, by: str) -> str:
    """``top 10 of 1,234 origins, by ...`` when the list is cut; else the count, in the
    plural only for more than one (and no order to tell for one or none)."""
    n, total = len(shown), len(every)
    if total > n:
        return f"top {n:,} of {total:,} {word}s, by {by}"
    if n < 2:
        return f"{n} {word}" if n else f"{word}s"
    return f"{n:,} {word}s, by {by}"


def _state_text(origin: dict[str, Any]) -> str:
    state = str(origin.get("state"))
    label = STATE_LABELS.get(state, _text(state))
    reason = _text(origin.get("reason"))
    return f"{label} ({reason})" if reason else label


def _lint_text(lint: Any) -> str:
    if not isinstance(lint, dict):
        return "-"
    counts = lint.get("counts") or {}
    parts = [f"{_int(counts.get(s))} {s}" for s in ("error", "warning", "info") if counts.get(s)]
    return ", ".join(parts) or "clean"


COMMAND = Command(
    name="report",
    order=40,
    help="summarise a crawl's robots.txt audit report (GBOT_ROBOTS_REPORT)",
    description="Print the summary of the JSON report a crawl wrote with GBOT_ROBOTS_REPORT:\n"
    "totals, origins by state, the rules that blocked the most requests, the top origins.",
    epilog=EXAMPLES,
    example="gbot-robots report robots-report.json --top 20",
    add_arguments=add_arguments,
    run=run,
)
