"""``gbot-robots doctor``: a Scrapy project's settings checked against a crawler's manners.

Run inside a project: the settings are read the way ``scrapy crawl`` reads them
(``scrapy.utils.project.get_project_settings``: ``SCRAPY_SETTINGS_MODULE``, else the
nearest ``scrapy.cfg``), with ``-s NAME=VALUE`` on top and, with ``--spider NAME``, that
spider's ``custom_settings`` applied as a crawl would. The checks are in :mod:`._manners`;
nothing is downloaded and no crawl runs.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from ._args import EXIT_FINDINGS, EXIT_OK, Command, IOStreams, UsageError
from ._manners import ADDON_NAMES, DRAFT, DRAFT_URL, LEVELS, Finding, Project, examine, names_ours
from ._render import Painter, colour_wanted, plural

if TYPE_CHECKING:
    from scrapy.settings import Settings

#: Our middleware, as a project names it in DOWNLOADER_MIDDLEWARES without the add-on.
MIDDLEWARE_NAMES = (
    "scrapy_gbot_robots.middleware.GoogleRobotsTxtMiddleware",
    "scrapy_gbot_robots.GoogleRobotsTxtMiddleware",
)

EXAMPLES = f"""\
examples:
  cd myproject && gbot-robots doctor
  gbot-robots doctor --spider quotes -s USER_AGENT="MyBot/1.0 (+https://example.com/bot)"
  gbot-robots doctor --json | jq '.findings[] | select(.level != "info")'

Checked against the IETF draft "Crawler best practices" ({DRAFT}) and Google's behaviour:
an identifiable user agent with a URL, robots.txt obeyed as Googlebot reads it, page-level
rules (X-Robots-Tag, robots meta tags), back-off on 429/5xx, a pace one site can bear, HTTP
caching. docs/cli.md lists every finding.
exit status: 0 nothing wrong (info findings aside); 1 an error or a warning; 2 usage error
(not inside a Scrapy project, an unknown spider, a malformed -s).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-s",
        "--set",
        dest="overrides",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="a setting as 'scrapy crawl -s' gives it (repeatable)",
    )
    p.add_argument("--spider", metavar="NAME", help="apply this spider's custom_settings")
    p.add_argument("--json", action="store_true", help="the findings as JSON, for CI")


def _overrides(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-s expects NAME=VALUE, got {pair!r}")
        out[name.strip()] = value
    return out


def load_settings(overrides: dict[str, str], spider: str | None) -> Settings:
    """The project's effective settings, as ``scrapy crawl [-s ...] SPIDER`` would have them.

    Raises :class:`UsageError` outside a project or for an unknown spider.
    """
    from scrapy.utils.misc import load_object
    from scrapy.utils.project import get_project_settings, inside_project

    if not inside_project():
        raise UsageError(
            "not inside a Scrapy project: run it where scrapy.cfg is (or below), or set "
            "SCRAPY_SETTINGS_MODULE"
        )
    settings = get_project_settings()
    settings.setdict(overrides, priority="cmdline")
    if spider is not None:
        loader = load_object(settings["SPIDER_LOADER_CLASS"]).from_settings(settings.frozencopy())
        try:
            spidercls = loader.load(spider)
        except KeyError:
            known = ", ".join(sorted(loader.list())) or "none"
            raise UsageError(f"no spider named {spider!r} (known: {known})") from None
        spidercls.update_settings(settings)
    return settings


def project_of(settings: Settings) -> Project:
    """Which of our parts the settings install, for the checks."""
    from .. import Addon
    from ..middleware import GoogleRobotsTxtMiddleware

    addon = any(names_ours(k, ADDON_NAMES, Addon) for k in settings.getdict("ADDONS"))
    mws = settings.getdict("DOWNLOADER_MIDDLEWARES")
    middleware = any(
        v is not None and names_ours(k, MIDDLEWARE_NAMES, GoogleRobotsTxtMiddleware)
        for k, v in mws.items()
    )
    return Project(settings, addon=addon, middleware=middleware)


def run(ns: argparse.Namespace, io: IOStreams) -> int:
    """Check the project's settings; exit 1 when an error or a warning is found."""
    settings = load_settings(_overrides(ns.overrides), ns.spider)
    findings = examine(project_of(settings))
    failing = [f for f in findings if f.level != "info"]
    if ns.json:
        data: dict[str, Any] = {
            "settings_module": _module(),
            "spider": ns.spider,
            "draft": DRAFT,
            "ok": not failing,
            "findings": [f.as_json() for f in findings],
        }
        io.out.write(json.dumps(data, indent=2) + "\n")
    else:
        _print(findings, ns, io)
    return EXIT_FINDINGS if failing else EXIT_OK


def _module() -> str | None:
    """The settings module Scrapy read (``get_project_settings`` sets the variable)."""
    return os.environ.get("SCRAPY_SETTINGS_MODULE")


def _print(findings: list[Finding], ns: argparse.Namespace, io: IOStreams) -> None:
    from .._safetext import printable

    paint = Painter(colour_wanted(ns.color, io.out))
    w = io.out.write
    where = _module() or "(no settings module)"
    spider = f", spider {ns.spider}" if ns.spider else ""
    w(paint(f"settings: {printable(str(where))}{spider}", "bold") + "\n")
    for f in findings:
        label = f"{f.level:<7}"
        head = f"{paint(label, f.level)}  {paint(f.code, 'code')}  {f.setting}"
        w(f"\n{head} = {printable(f.value)}\n")
        w(f"  {printable(f.means)}\n")
        w(f"  {paint('fix:', 'dim')} {printable(f.fix)}\n")
    counts = []
    for level in LEVELS:
        n = sum(f.level == level for f in findings)
        counts.append(f"{n} {level}" if level == "info" else plural(n, level))
    verdict = "nothing wrong" if all(f.level == "info" for f in findings) else "fix the above"
    style = "allowed" if verdict == "nothing wrong" else "error"
    w(f"\n{paint(verdict, style)}: {', '.join(counts)} (checked against {DRAFT_URL})\n")


COMMAND = Command(
    name="doctor",
    order=60,
    help="check a Scrapy project's settings against a crawler's manners",
    description="Read the project's effective settings as 'scrapy crawl' does and check them\n"
    "against the IETF's crawler best practices and Google's behaviour: each finding has a\n"
    "level, what it means, and the setting that fixes it.",
    epilog=EXAMPLES,
    example="gbot-robots doctor --spider quotes",
    add_arguments=add_arguments,
    run=run,
)
