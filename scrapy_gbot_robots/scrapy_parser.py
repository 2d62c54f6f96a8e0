"""``GoogleRobotParser``: Google's matching inside Scrapy's built-in robots.txt middleware.

The smallest way to adopt the project:
``ROBOTSTXT_PARSER = "scrapy_gbot_robots.GoogleRobotParser"``.
Scrapy's middleware still does the fetching (with its own status-code handling); only the
matching becomes Google's.

Google's matcher expects a percent-encoded URL. Scrapy always passes ``request.url``, which is
encoded, but the ``RobotParser`` interface promises an answer for any absolute URL (Scrapy's
own parser tests ask about ``https://site.local/wiki/Käyttäjä:``), so ``allowed()`` first
encodes the URL as Scrapy encodes ``request.url`` (``crawler_url``; a no-op for an encoded URL).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser

from .engine.agent import product_token
from .engine.rules import RobotsTxt, parse
from .engine.url import crawler_url

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    # typing_extensions is a Scrapy dependency; Self is in typing from 3.11 only.
    from typing_extensions import Self


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


class GoogleRobotParser(RobotParser):
    """Scrapy ``RobotParser`` backed by the Google-exact engine."""

    def __init__(self, robotstxt_body: bytes) -> None:
        self.robots: RobotsTxt = parse(robotstxt_body)
        self._tokens: dict[str, str] = {}

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

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        """Google's verdict for the URL a crawler requests: ``url`` percent-encoded first."""
        # /wiki/Käyttäjä: -> /wiki/K%C3%A4ytt%C3%A4j%C3%A4:; an encoded URL costs under 1 us.
        return self.robots.allowed(crawler_url(url), self._token(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        """The agent's first valid ``Crawl-delay`` (Scrapy 2.18 interface; Google ignores it)."""
        return self.robots.crawl_delay(self._token(user_agent))

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Sitemap URLs of the file, in file order."""
        return self.robots.sitemaps
