"""Google's crawlers and the user-agent tokens each obeys: the table behind ``--as``.

Google documents that "some crawlers have more than one user agent token; you need to match
only one crawler token for a rule to apply", and that special-case crawlers such as AdsBot
ignore the global group (``*``); user-triggered fetchers "generally ignore robots.txt rules".
Each crawler says which of the three it is (:attr:`GoogleCrawler.robots_txt`); docs/cli.md
gives the same table with its sources.  Pure data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

#: When the sources below were read for this table.
READ_ON: Final = "2026-12-07"

OVERVIEW: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/overview-google-crawlers"
)
COMMON: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/google-common-crawlers"
)
SPECIAL: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers"
)
USER_TRIGGERED: Final = (
    "https://developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers"
)
SPEC: Final = "https://developers.google.com/crawling/docs/robots-txt/robots-txt-spec"

#: How a crawler treats robots.txt: Google's three kinds of crawler.
OBEYS: Final = "obeys"  # common crawlers: "always obey robots.txt rules"
OBEYS_OWN_GROUP: Final = "obeys, ignores *"  # special-case crawlers that ignore the * group
IGNORES: Final = "ignores"  # user-triggered fetchers ("generally ignore"), Google-Safety


@dataclass(frozen=True, slots=True)
class GoogleCrawler:
    """One of Google's crawlers as robots.txt sees it."""

    name: str  # what --as takes (lower case)
    tokens: tuple[str, ...]  # most specific first
    global_group: bool  # False: it ignores the * group
    source: str  # where this was read
    robots_txt: str = OBEYS  # OBEYS, OBEYS_OWN_GROUP or IGNORES

    @property
    def obeys(self) -> bool:
        """Whether robots.txt decides what it fetches (False: the verdict is what the file
        says, not what the crawler does)."""
        return self.robots_txt != IGNORES


def _common(name: str, *tokens: str, source: str = COMMON) -> GoogleCrawler:
    return GoogleCrawler(name.lower(), (name, *tokens), True, source)


def _special(name: str) -> GoogleCrawler:
    return GoogleCrawler(name.lower(), (name,), False, SPECIAL, OBEYS_OWN_GROUP)


def _ignores(name: str, source: str = USER_TRIGGERED) -> GoogleCrawler:
    return GoogleCrawler(name.lower(), (name,), True, source, IGNORES)


GOOGLE_CRAWLERS: Final[Mapping[str, GoogleCrawler]] = {
    c.name: c
    for c in (
        _common("Googlebot"),
        # The overview's example: "User-agent: Googlebot / Disallow:" with
        # "User-agent: Googlebot-Image / Disallow: /personal" keeps images out of /personal
        # while Googlebot crawls everything; with no Googlebot-Image group, Googlebot's applies.
        _common("Googlebot-Image", "Googlebot", source=OVERVIEW),
        _common("Googlebot-News"),
        _common("Googlebot-Video"),
        # The robots.txt spec page: Storebot-Google follows the * group, not a googlebot one.
        _common("Storebot-Google", source=SPEC),
        _common("Google-InspectionTool"),
        _common("GoogleOther"),
        _common("GoogleOther-Image", "GoogleOther"),
        _common("GoogleOther-Video", "GoogleOther"),
        _common("Google-CloudVertexBot"),
        # A product token with no crawler of its own: Googlebot fetches, and a Google-Extended
        # group says whether the content may train Gemini models and ground their answers.
        _common("Google-Extended"),
        _special("APIs-Google"),
        _special("AdsBot-Google"),
        _special("AdsBot-Google-Mobile"),
        # AdSense: the page gives its entry the same note as APIs-Google's (* is ignored);
        # read in a copy of the page, the stored one being cut before it (docs/cli.md).
        _special("Mediapartners-Google"),
        _ignores("Google-Safety", SPECIAL),
        _ignores("FeedFetcher-Google"),
        _ignores("GoogleProducer"),
        _ignores("Google-Read-Aloud"),
        _ignores("Google-Site-Verification"),
        _ignores("Google-NotebookLM"),
        _ignores("Google-Pinpoint"),
    )
}


def crawler(name: str) -> GoogleCrawler | None:
    """The crawler ``--as NAME`` names (case-insensitive), or None."""
    return GOOGLE_CRAWLERS.get(name.strip().lower())
