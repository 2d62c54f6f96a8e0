"""Which AI crawlers a robots.txt keeps out: the answer behind ``gbot-robots agents``.

The crawlers are ai.robots.txt's list (``robots.json``: each crawler's token, operator,
function and whether it says it respects robots.txt), shipped as a dated snapshot in
``scrapy_gbot_robots/data/ai_robots.json`` with its source, commit and MIT licence text:
a snapshot rather than a dependency, because no maintained package on the index ships the
list, and a crawl must give the same answer offline.  For each crawler, Google's verdict for
``/`` with its deciding line, and the first line of the group in force for it: Google's
matching, not a matcher of our own.  Pure Python.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from .lines import LineKind, directives
from .rules import RobotsTxt
from .tokens import names_everyone, product_token, token_prefix

#: A URL whose path is ``/``: only the path is matched.
ROOT = "http://robots.invalid/"


@dataclass(frozen=True, slots=True)
class AiCrawler:
    """One crawler of the snapshot."""

    token: str  # as ai.robots.txt lists it ("AI2Bot", "ChatGPT Agent")
    operator: str
    function: str  # its purpose, in the list's words ("AI Data Scrapers"...)
    respect: str  # whether it says it obeys robots.txt ("Yes", "No", "Unclear at this time.")

    @property
    def checked_as(self) -> str:
        """The product token Google's matching compares (``AI2Bot`` is read as ``AI``, as
        Google's parser reads a ``User-agent: AI2Bot`` line)."""
        return product_token(self.token)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The shipped list and where it comes from."""

    name: str
    source: str
    commit: str
    date: str
    license: str
    crawlers: tuple[AiCrawler, ...]


@lru_cache(maxsize=1)
def snapshot() -> Snapshot:
    """The shipped snapshot, read once."""
    text = resources.files("scrapy_gbot_robots").joinpath("data/ai_robots.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    crawlers = tuple(AiCrawler(*(str(v) for v in row)) for row in data["agents"])
    return Snapshot(
        data["name"], data["source"], data["commit"], data["date"], data["license"], crawlers
    )


@dataclass(frozen=True, slots=True)
class AgentVerdict:
    """One crawler's answer for a file."""

    crawler: AiCrawler
    group: str  # whose group is in force: the token checked, "*", or "" (none applies)
    group_line: int  # that group's first user-agent line (0: no group applies)
    root_allowed: bool  # Google's verdict for "/"
    line: int  # the deciding rule's line (0: no rule matched)
    rule: str  # the deciding rule as written ("Disallow: /"), "" when none

    @property
    def named(self) -> bool:
        """Whether the file names this crawler (its own group, not ``*``)."""
        return self.group not in ("", "*")

    def as_json(self) -> dict[str, object]:
        c = self.crawler
        return {
            "token": c.token,
            "checked_as": c.checked_as,
            "operator": c.operator,
            "function": c.function,
            "respects_robots_txt": c.respect,
            "group": self.group,
            "group_line": self.group_line or None,
            "root_allowed": self.root_allowed,
            "line": self.line or None,
            "rule": self.rule,
        }


def first_lines(body: bytes) -> dict[str, int]:
    """Each token's first ``User-agent`` line, lower-cased (``"*"`` for the global group)."""
    firsts: dict[str, int] = {}
    for number, kind, _, value in directives(body):
        if kind is not LineKind.USER_AGENT:
            continue
        text = value.decode("latin-1")
        key = "*" if names_everyone(text) else token_prefix(text).lower()
        firsts.setdefault(key, number)
    return firsts


def verdicts(
    robots: RobotsTxt, crawlers: Sequence[AiCrawler] | None = None
) -> list[AgentVerdict]:
    """Each crawler's group in force and Google's verdict for ``/``, in the list's order.

    Only the crawlers the file names get a question of their own; every other one obeys the
    same ``*`` group (or none), so one question answers them all: a file costs one group walk
    per crawler it names, plus one.  The questions are asked of a copy of the file, so its
    bounded matcher memo is left to the crawl's own token.
    """
    listed = snapshot().crawlers if crawlers is None else crawlers
    copy = RobotsTxt(robots.body, robots.truncated)
    firsts = first_lines(robots.body)
    shared: AgentVerdict | None = None
    out: list[AgentVerdict] = []
    for crawler in listed:
        token = crawler.checked_as
        named = token.lower() in firsts
        if not named and shared is not None:
            out.append(replace(shared, crawler=crawler))
            continue
        decision = copy.decide(ROOT, token)
        group = decision.token
        line = firsts.get(group.lower(), 0) if group else 0
        verdict = AgentVerdict(crawler, group, line, decision.allowed, decision.line, decision.rule)
        if not named:
            shared = verdict
        out.append(verdict)
    return out
