"""``GoogleRobotParser``: Google's matching inside Scrapy's built-in robots.txt middleware.

The smallest way to adopt the project:
``ROBOTSTXT_PARSER = "scrapy_gbot_robots.GoogleRobotParser"``.
Scrapy's middleware still does the fetching (with its own status-code handling); only the
matching becomes Google's.

Google's matcher expects a percent-encoded URL. Scrapy always passes ``request.url``, which is
encoded, but the ``RobotParser`` interface promises an answer for any absolute URL (Scrapy's
own parser tests ask about ``https://site.local/wiki/Käyttäjä:``), so ``allowed()`` first
encodes the URL as Scrapy encodes ``request.url`` (``crawler_url``; a no-op for an encoded URL).

``gbot-robots check`` uses another rule, ``sendable_url``: a URL is checked as written unless
a crawler could not send it so (``http://example.com/?`` stays ``/?``, where Scrapy's encoding
drops the empty query). Both rules give the same path for every ``request.url`` Scrapy passes
(``tests/engine/test_url.py`` checks it against w3lib), so in a crawl the choice changes
nothing. They differ only for a raw URL given to ``allowed()`` by hand, and there a Scrapy
parser is asked about the request Scrapy would make for it, ``Request(url).url``: Scrapy's
encoding is the answer to that question, as it is for the Käyttäjä URL of Scrapy's own tests.

Scrapy passes one user agent; a list or tuple of tokens, most specific first
(``["Googlebot-Image", "Googlebot"]``), is accepted too, each element reduced as one would be.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser

from .engine.rules import RobotsTxt, parse
from .engine.tokens import product_token
from .engine.url import crawler_url

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    # typing_extensions is a Scrapy dependency; Self is in typing from 3.11 only.
    from typing_extensions import Self


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


class Sitemaps(tuple[str, ...]):
    """The file's sitemap URLs: a tuple, that can also be called.

    ``parser.sitemaps`` was a property; Scrapy's interface (its PR 8069) calls
    ``parser.sitemaps()``.  Both work: the value iterates and compares as the tuple of URLs,
    and calling it returns an iterator over them.
    """

    __slots__ = ()

    def __call__(self) -> Iterator[str]:
        return iter(self)


UserAgent = str | bytes | Sequence[str | bytes]


class GoogleRobotParser(RobotParser):
    """Scrapy ``RobotParser`` backed by the Google-exact engine."""

    def __init__(self, robotstxt_body: bytes, *, robots: RobotsTxt | None = None) -> None:
        """Parse ``robotstxt_body``, or take ``robots``, the same body already parsed.

        The plugin's own middleware hands ``robots_parsed`` listeners the parsed file it
        already checks against (its matchers built), rather than a second parse of it.
        """
        self.robots: RobotsTxt = parse(robotstxt_body) if robots is None else robots
        self._tokens: dict[str, str] = {}
        self._lists: dict[tuple[str | bytes, ...], tuple[str, ...]] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler, robotstxt_body: bytes) -> Self:
        return cls(robotstxt_body)

    def _token(self, user_agent: str | bytes) -> str:
        # Scrapy passes ROBOTSTXT_USER_AGENT or the whole User-Agent header.
        text = _text(user_agent)
        token = self._tokens.get(text)
        if token is None:
            token = self._tokens[text] = product_token(text)
        return token

    def _agents(self, user_agent: UserAgent) -> str | tuple[str, ...]:
        """One token, or a token list (list or tuple) with each element reduced."""
        if isinstance(user_agent, (str, bytes)):
            return self._token(user_agent)
        key = tuple(user_agent)
        tokens = self._lists.get(key)
        if tokens is None:
            tokens = self._lists[key] = tuple(self._token(value) for value in key)
        return tokens

    def allowed(self, url: str | bytes, user_agent: UserAgent) -> bool:
        """Google's verdict for the URL a crawler requests: ``url`` percent-encoded first."""
        # /wiki/Käyttäjä: -> /wiki/K%C3%A4ytt%C3%A4j%C3%A4:; an encoded URL costs under 1 us.
        if isinstance(user_agent, (str, bytes)):
            return self.robots.allowed(crawler_url(url), self._token(user_agent))
        return self.robots.allowed(crawler_url(url), self._agents(user_agent))

    def crawl_delay(self, user_agent: UserAgent) -> float | None:
        """The first valid ``Crawl-delay`` of the group in force for the agent (or tokens).

        The group the rules would use (Scrapy 2.18 interface; Google ignores the value).
        """
        return self.robots.crawl_delay(self._agents(user_agent))

    @property
    def sitemaps(self) -> Sitemaps:
        """Sitemap URLs of the file, in file order; ``parser.sitemaps()`` works too."""
        return Sitemaps(self.robots.sitemaps)
