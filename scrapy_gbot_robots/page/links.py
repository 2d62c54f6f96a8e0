"""Links a page marks ``rel="nofollow"`` (or ``ugc``, ``sponsored``): hints, not rules.

Google treats these link attributes as hints ("Google uses these attributes as hints about
the link", in its guide to qualifying outbound links), unlike the page-level ``nofollow``,
which is a rule. A crawler obeying page-level rules follows such links; ``gbot-robots
inspect`` counts them for one page, so an auditor sees them. The crawl does not read them:
that would be a scan of every page's whole body, the cost the head-only reader avoids.

Bounded: at most :data:`LINKS_LIMIT` bytes and :data:`MAX_LINKS` ``<a>`` tags looked at.
Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .head import attributes

__all__ = ["HINTS", "LinkHints", "link_hints"]

#: Bytes of a body scanned for links, at most.
LINKS_LIMIT = 4 * 1024 * 1024
#: ``<a>`` tags read, at most.
MAX_LINKS = 20_000
#: The ``rel`` values Google reads as hints about a link.
HINTS = ("nofollow", "ugc", "sponsored")

_A = re.compile(rb"<a[\t\n\f\r />]", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LinkHints:
    """How many links a page has, and how many carry each hint."""

    links: int = 0
    nofollow: int = 0
    ugc: int = 0
    sponsored: int = 0
    hinted: int = 0  # links with at least one of the hints
    complete: bool = True  # False when the limits stopped the count

    def as_json(self) -> dict[str, int | bool]:
        return {
            "links": self.links,
            "nofollow": self.nofollow,
            "ugc": self.ugc,
            "sponsored": self.sponsored,
            "hinted": self.hinted,
            "complete": self.complete,
        }


def link_hints(body: bytes) -> LinkHints:
    """Count the ``<a href>`` links of ``body`` and their ``rel`` hints; never raises."""
    end = min(len(body), LINKS_LIMIT)
    counts = dict.fromkeys(HINTS, 0)
    links = hinted = 0
    pos = 0
    complete = len(body) <= LINKS_LIMIT
    for _ in range(MAX_LINKS):
        m = _A.search(body, pos, end)
        if m is None:
            break
        attrs, pos = attributes(body, m.end() - 1, end)
        if b"href" not in attrs:
            continue
        links += 1
        rel = set(attrs.get(b"rel", b"").lower().split())
        found = [hint for hint in HINTS if hint.encode() in rel]
        for hint in found:
            counts[hint] += 1
        hinted += bool(found)
    else:
        complete = False
    return LinkHints(
        links=links,
        nofollow=counts["nofollow"],
        ugc=counts["ugc"],
        sponsored=counts["sponsored"],
        hinted=hinted,
        complete=complete,
    )
