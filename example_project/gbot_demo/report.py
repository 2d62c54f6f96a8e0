"""The end-of-crawl report: which URLs were crawled, forbidden (and by which line), parked."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from scrapy.settings import BaseSettings

from gbot_demo.site import (
    FLAKY_FIRST_STATUS,
    FLAKY_PAGES,
    FLAKY_ROBOTS_TXT,
    MAIN_PAGES,
    MAIN_ROBOTS_TXT,
    DemoSite,
)
from scrapy_gbot_robots import Decision, parse, product_token


@dataclass
class Outcomes:
    """What happened to each request, as the crawl and the plugin's signals told us."""

    crawled: list[str] = field(default_factory=list)
    forbidden: dict[str, Decision] = field(default_factory=dict)
    parked: list[str] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    started_at: float = 0.0  # time.time() when the crawl started: older report files are stale


def obeyed_token(settings: BaseSettings) -> str:
    """The token the middleware obeys: ROBOTSTXT_USER_AGENT, else USER_AGENT's product token."""
    return str(settings.get("ROBOTSTXT_USER_AGENT") or product_token(settings["USER_AGENT"]))


def _numbered(text: str) -> str:
    return "\n".join(f"  {n:3} | {line}" for n, line in enumerate(text.splitlines(), 1))


def _why(decision: Decision) -> str:
    if not decision.line:
        return "no rule matches"
    return f"line {decision.line}: {decision.rule}"


def print_report(site: DemoSite, outcomes: Outcomes, settings: BaseSettings) -> None:
    """Print the report to stdout (the crawl log goes to stderr)."""
    token = obeyed_token(settings)
    robots = {site.main_url: MAIN_ROBOTS_TXT, site.flaky_url: FLAKY_ROBOTS_TXT}
    order = [site.main_url + "/"]
    order += [site.main_url + p for p in MAIN_PAGES] + [site.flaky_url + p for p in FLAKY_PAGES]

    def key(url: str) -> tuple[int, str]:
        return (order.index(url) if url in order else len(order), url)

    seen = [*outcomes.crawled, *outcomes.forbidden, *outcomes.parked, *outcomes.dropped]
    width = max((len(u) for u in seen), default=20) + 2
    out: list[str] = []
    out.append("")
    out.append("=" * 26 + " scrapy-gbot-robots demo report " + "=" * 26)
    out.append(f"Token obeyed: {token}   (USER_AGENT = {settings['USER_AGENT']!r})")
    out.append("")
    out.append(f"main site   {site.main_url}   robots.txt:")
    out.append(_numbered(MAIN_ROBOTS_TXT))
    first = f"its first answer was a {FLAKY_FIRST_STATUS}"
    out.append(f"flaky site  {site.flaky_url}   robots.txt ({first}):")
    out.append(_numbered(FLAKY_ROBOTS_TXT))
    out.append("")

    out.append(f"CRAWLED ({len(outcomes.crawled)}): downloaded; the rule that allows each one")
    for url in sorted(outcomes.crawled, key=key):
        origin = url.split("/", 3)[:3]
        decision = parse(robots["/".join(origin)]).decide(url, token)
        warn = "" if decision.allowed else "!! Google's rules forbid it: "
        out.append(f"  {url:{width}}{warn}{_why(decision)}")
    out.append("")
    out.append(f"FORBIDDEN ({len(outcomes.forbidden)}): never downloaded; the deciding line")
    for url in sorted(outcomes.forbidden, key=key):
        out.append(f"  {url:{width}}{_why(outcomes.forbidden[url])}")
    out.append("")
    out.append(
        f"PARKED ({len(outcomes.parked)}): parked while their origin's robots.txt was"
        " undecided, then"
    )
    for url in sorted(outcomes.parked, key=key):
        if url in outcomes.forbidden:
            fate = "forbidden"
        elif url in outcomes.dropped:
            fate = "dropped"
        elif url in outcomes.crawled:
            fate = "crawled"
        else:
            fate = "lost (a bug: please report it)"
        out.append(f"  {url:{width}}-> {fate}")
    if outcomes.dropped:
        out.append("")
        out.append(f"DROPPED ({len(outcomes.dropped)}): parked past the deadline")
        for url in sorted(outcomes.dropped, key=key):
            out.append(f"  {url:{width}}{outcomes.dropped[url]}")

    differ = _protego_differences(site.main_url, order, token, settings["USER_AGENT"])
    if differ:
        out.append("")
        out.append("Scrapy's built-in parser (Protego) reads the main robots.txt differently here:")
        for url, google in differ:
            verdicts = f"Google: {'allowed' if google else 'forbidden'}, Protego: "
            out.append(f"  {url:{width}}{verdicts}{'forbidden' if google else 'allowed'}")
    out.append(
        "When robots.txt keeps failing (5xx, 429, timeouts), Scrapy's built-in middleware crawls"
        " the whole origin; Google stops and retries."
    )
    out.append("")
    out.append("Stats: " + ", ".join(f"{k}={v}" for k, v in sorted(outcomes.stats.items())))
    out.append("")
    out.extend(report_lines(settings, outcomes.started_at))
    out.append("=" * 84)
    print("\n".join(out), flush=True)


#: What to do with each kind of report file, shown after its path.
_HOW_TO_READ = {
    ".html": "open it in a browser",
    ".json": "summary: gbot-robots report {name}",
}


def report_lines(settings: BaseSettings, since: float = 0.0) -> list[str]:
    """One line per audit report the middleware wrote (GBOT_ROBOTS_REPORT), with its path.

    The middleware writes the files when the spider closes, before this is printed; a file
    that is missing or older than the crawl (a write error, logged by the middleware) is
    said not to be this crawl's.
    """
    lines = []
    for path in settings.getlist("GBOT_ROBOTS_REPORT"):
        full = os.path.abspath(path)
        if not os.path.exists(full) or os.path.getmtime(full) < since - 1:
            lines.append(f"Audit report: {full} was not written by this crawl (see the log)")
            continue
        how = _HOW_TO_READ.get(os.path.splitext(path)[1].lower(), "")
        how = how.format(name=path)
        lines.append(f"Audit report: {full}" + (f"  ({how})" if how else ""))
    return lines


def _protego_differences(
    main_url: str, order: list[str], token: str, user_agent: str
) -> list[tuple[str, bool]]:
    """URLs of the main site where Protego, Scrapy's default parser, disagrees with Google."""
    try:
        from protego import Protego
    except ImportError:  # Protego comes with Scrapy, but is not ours to require.
        return []
    ours = parse(MAIN_ROBOTS_TXT)
    theirs = Protego.parse(MAIN_ROBOTS_TXT)
    result = []
    for url in order:
        if url.startswith(main_url):
            google = ours.allowed(url, token)
            if google != theirs.can_fetch(url, user_agent):
                result.append((url, google))
    return result
