"""``gbot-robots agents``: which AI crawlers a robots.txt keeps out of ``/``, and by which line.

The crawlers are the dated ai.robots.txt snapshot shipped with the package; each verdict is
Google's (``engine/ai_crawlers.py`` asks the engine).  For a URL, robots.txt is fetched as
``gbot-robots fetch`` fetches it (its ``run_fetch``: the middleware's redirects, size cap and
timeout), so Scrapy is imported only then.
"""

from __future__ import annotations

import argparse
import json
from itertools import groupby

from .._safetext import printable
from ..engine.ai_crawlers import AgentVerdict, snapshot, verdicts
from ..engine.rules import RobotsTxt, parse
from ._args import EXIT_FINDINGS, EXIT_OK, Command, IOStreams, UsageError, read_robots
from ._render import Cell, Painter, colour_wanted, render_table, short

EXAMPLES = """\
examples:
  gbot-robots agents robots.txt
  gbot-robots agents https://example.com/ --json
  gbot-robots agents - --disallowed-only < robots.txt

For each AI crawler of the shipped ai.robots.txt list: the group in force for it (its first
line, or none) and Google's verdict for / with the deciding line, grouped by operator and
purpose. A URL's robots.txt is fetched as 'gbot-robots fetch' fetches it.
exit status: 0 the file was read (whatever it blocks), 1 a URL's robots.txt could not be
decided (a server error, a network failure), 2 usage error.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source", metavar="FILE|URL", help="a robots.txt file, '-' for stdin, or a site's URL"
    )
    p.add_argument(
        "--disallowed-only", action="store_true", help="list only the crawlers kept out of /"
    )
    p.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="download timeout (URL)"
    )
    p.add_argument("--json", action="store_true", help="one JSON list of objects")


def _robots(ns: argparse.Namespace, io: IOStreams) -> tuple[RobotsTxt | None, str]:
    """The file to read and what it is (a path, or the robots.txt URL it was fetched from).
    None when a URL's robots.txt was not decided, or decided as a server error."""
    source: str = ns.source
    if "://" not in source:
        return parse(read_robots(source, io.stdin)), source
    from ..policy.origin import origin_of, robots_url
    from ..policy.states import Mode, rules_in_force
    from ._args import check_timeout
    from .fetch import absolute_url, decided, run_fetch

    url = absolute_url(source)
    origin = origin_of(url)
    if origin is None:
        raise UsageError(f"{printable(url)} has no robots.txt to fetch: only http and https do")
    check_timeout(ns.timeout)
    fetched = run_fetch(url, "Googlebot", ns.timeout, False, io.err)
    found = decided(fetched, io, "agents", origin)
    where = robots_url(origin)
    if found is None:
        return None, where
    state, cfg = found
    force = rules_in_force(state, state.fetched_at, cfg)
    if force.mode is Mode.STOPPED:
        io.note(f"gbot-robots agents: {where} is not crawled for now ({state.reason})")
        return None, where
    return (force.robots or parse(b"")), where


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    robots, where = _robots(ns, io)
    if robots is None:
        return EXIT_FINDINGS
    rows = verdicts(robots)
    total, blocked = len(rows), sum(not r.root_allowed for r in rows)
    if ns.disallowed_only:
        rows = [r for r in rows if not r.root_allowed]
    if ns.json:
        io.out.write(json.dumps([r.as_json() for r in rows], indent=2) + "\n")
        return EXIT_OK
    snap = snapshot()
    paint = Painter(colour_wanted(ns.color, io.out))
    io.out.write(
        paint(
            f"AI crawlers in {printable(where)}: {blocked} of {total} kept out of / "
            f"(list: {snap.name} {snap.commit}, {snap.date}, {snap.license})",
            "bold",
        )
        + "\n"
    )
    for (operator, function), group in groupby(
        sorted(rows, key=_order), key=lambda r: (r.crawler.operator, r.crawler.function)
    ):
        io.out.write("\n" + paint(f"{short(operator, 60)} — {short(function, 60)}", "bold") + "\n")
        table: list[list[Cell]] = []
        for r in group:
            verdict = "allowed" if r.root_allowed else "disallowed"
            table.append(
                [
                    (verdict, verdict),
                    (r.crawler.token, None),
                    (f"group {r.group} (line {r.group_line})" if r.group_line else "no group",
                     None if r.group_line else "dim"),
                    (f"line {r.line}: {r.rule}" if r.line else "(no matching rule)",
                     None if r.line else "dim"),
                ]
            )
        for line in render_table(table, paint):
            io.out.write("  " + line + "\n")
    return EXIT_OK


def _order(r: AgentVerdict) -> tuple[str, str, str]:
    return (r.crawler.operator.lower(), r.crawler.function.lower(), r.crawler.token.lower())


COMMAND = Command(
    name="agents",
    order=25,
    help="which AI crawlers a robots.txt keeps out",
    description="For each AI crawler of the shipped ai.robots.txt list (a dated snapshot),\n"
    "the group in force for it and Google's verdict for /, with the deciding line.",
    epilog=EXAMPLES,
    example="gbot-robots agents robots.txt",
    add_arguments=add_arguments,
    run=run,
)
