"""Google's crawlers and the user-agent tokens each obeys: the table behind ``--as``.

Google documents that "some crawlers have more than one user agent token; you need to match
only one crawler token for a rule to apply", and that special-case crawlers such as AdsBot
ignore the global group (``*``).  Only crawlers whose tokens (and whose treatment of ``*``)
could be confirmed are listed; docs/cli.md gives the same table with its sources.  Pure data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

#: When the sources below were read for this table.
READ_ON: Final = "2026-11-24"

OVERVIEW: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/overview-google-crawlers"
)
COMMON: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/google-common-crawlers"
)
SPECIAL: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers"
)
SPEC: Final = "https://developers.google.com/crawling/docs/robots-txt/robots-txt-spec"


@dataclass(frozen=True, slots=True)
class GoogleCrawler:
    """One of Google's crawlers as robots.txt sees it."""

    name: str  # what --as takes (lower case)
    tokens: tuple[str, ...]  # most specific first
    global_group: bool  # False: it ignores the * group
    source: str  # where this was read


GOOGLE_CRAWLERS: Final[Mapping[str, GoogleCrawler]] = {
    c.name: c
    for c in (
        GoogleCrawler("googlebot", ("Googlebot",), True, COMMON),
        # The overview's example: "User-agent: Googlebot / Disallow:" with
        # "User-agent: Googlebot-Image / Disallow: /personal" keeps images out of /personal
        # while Googlebot crawls everything; with no Googlebot-Image group, Googlebot's applies.
        GoogleCrawler("googlebot-image", ("Googlebot-Image", "Googlebot"), True, OVERVIEW),
        # The robots.txt spec page: Storebot-Google follows the * group, not a googlebot one.
        GoogleCrawler("storebot-google", ("Storebot-Google",), True, SPEC),
        GoogleCrawler("apis-google", ("APIs-Google",), False, SPECIAL),
        GoogleCrawler("adsbot-google", ("AdsBot-Google",), False, SPECIAL),
        GoogleCrawler("adsbot-google-mobile", ("AdsBot-Google-Mobile",), False, SPECIAL),
    )
}


def crawler(name: str) -> GoogleCrawler | None:
    """The crawler ``--as NAME`` names (case-insensitive), or None."""
    return GOOGLE_CRAWLERS.get(name.strip().lower())
