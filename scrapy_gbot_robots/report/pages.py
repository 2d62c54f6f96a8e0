"""The report's page-level rules: per origin, what the pages said (``GBOT_ROBOTS_PAGE_RULES``).

For each origin: the pages read, those with ``noindex`` (or past ``unavailable_after``),
those with ``nofollow``, where each rule came from (``meta:robots``, ``meta:TOKEN``,
``header``, ``header:TOKEN``, counted in pages), the requests dropped because their page
said ``nofollow``, and **the pages robots.txt disallows that carry a noindex**: Googlebot
never fetches them, so it never sees the ``noindex`` (Google: "these settings can be read
and followed only if crawlers are allowed to access the pages"). Only an observe-mode crawl
fetches such pages, so only its report can list them.

Bounded like the rest of the collector: counters, at most ``examples`` URLs per kind (each
cut at ``EXAMPLE_CHARS``), at most :data:`SOURCES_PER_RULE` sources per rule (the rest
counted under ``other``); rule names are Google's, a fixed set. Pure: imports nothing from
Scrapy or Twisted.
"""

from __future__ import annotations

from typing import Any

from .._safetext import short
from ..page.rules import PageRules

#: Distinct sources counted per rule (a crawler with several tokens has a few); more: "other".
SOURCES_PER_RULE = 8
#: The counters of a tally, in JSON order: they add up into totals and the "other" bucket.
COUNTERS = ("read", "noindex", "nofollow", "disallowed_noindex", "dropped_nofollow")
#: The kinds of pages whose example URLs are kept.
EXAMPLE_KINDS = ("disallowed_noindex", "noindex", "nofollow")
#: Example URLs are cut at this many characters (the collector's bound for every URL).
EXAMPLE_CHARS = 1000
_OTHER = "other"


class PageTally:
    """What the pages of one origin said (or of every folded origin, without examples)."""

    __slots__ = (
        "disallowed_noindex",
        "dropped_nofollow",
        "examples",
        "nofollow",
        "noindex",
        "read",
        "sources",
    )

    def __init__(self) -> None:
        self.read = 0
        self.noindex = 0
        self.nofollow = 0
        self.disallowed_noindex = 0
        self.dropped_nofollow = 0
        self.sources: dict[str, dict[str, int]] = {}
        self.examples: dict[str, list[str]] = {}

    def add(self, src: PageTally, sign: int = 1) -> None:
        """Add (``sign`` 1) or take back (-1) another tally's counters (not its examples)."""
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + sign * getattr(src, name))

    def record(
        self, url: str, rules: PageRules, *, disallowed: bool, now: float, examples: int
    ) -> None:
        """One page read: its rules for the crawler, and whether robots.txt disallows it."""
        self.read += 1
        if rules.empty:
            return
        kinds: list[str] = []
        if not rules.indexable(now):
            self.noindex += 1
            kinds.append("noindex")
            if disallowed:
                self.disallowed_noindex += 1
                kinds.append("disallowed_noindex")
        if rules.nofollow:
            self.nofollow += 1
            kinds.append("nofollow")
        for rule, where in rules.sources:
            counts = self.sources.setdefault(rule, {})
            for source in where:
                if source not in counts and len(counts) >= SOURCES_PER_RULE:
                    source = _OTHER
                counts[source] = counts.get(source, 0) + 1
        if examples:
            for kind in kinds:
                kept = self.examples.setdefault(kind, [])
                if len(kept) < examples:
                    cut = short(url, EXAMPLE_CHARS)
                    if cut not in kept:
                        kept.append(cut)

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTERS}

    def as_json(self) -> dict[str, Any]:
        return {
            **self.counts(),
            "sources": {rule: dict(counts) for rule, counts in self.sources.items()},
            "examples": {kind: list(self.examples.get(kind, ())) for kind in EXAMPLE_KINDS},
        }
