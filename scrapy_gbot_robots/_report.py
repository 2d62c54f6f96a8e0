"""What robots.txt did to a crawl: the counters behind the audit report (skeleton).

Pure: imports nothing from Scrapy or Twisted. The middleware feeds events; the report is
rendered once, when the spider closes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._policy import OriginState
from ._rules import Decision

#: One step of a robots.txt fetch: (URL, HTTP status or None, error name or None).
Hop = tuple[str, int | None, str | None]


class ReportCollector:
    """Bounded counters per origin and per deciding rule (see the module docstring)."""

    def __init__(self, *, max_origins: int = 10_000, max_rules: int = 1_000, examples: int = 5):
        self.max_origins = max_origins
        self.max_rules = max_rules
        self.examples = examples

    def fetched(
        self,
        origin: str,
        *,
        robots_url: str,
        chain: Sequence[Hop],
        state: OriginState,
        source: str,
    ) -> None:
        """The origin's robots.txt state was established (``source``: "fetch" or "store")."""

    def allowed(self, origin: str) -> None:
        """A download of ``origin`` was checked and allowed (the hot path: a counter)."""

    def forbidden(self, origin: str, url: str, decision: Decision) -> None:
        """A request was forbidden by the rule ``decision`` names."""

    def deferred(self, origin: str) -> None:
        """A request of ``origin`` was parked."""

    def dropped(self, origin: str, reason: str) -> None:
        """A parked request of ``origin`` was given up."""

    def to_json(self, crawl: dict[str, Any]) -> dict[str, Any]:
        """The report as a JSON-ready dict (versioned schema)."""
        return {"schema": "gbot-robots-report/1", "crawl": crawl}


def write(data: dict[str, Any], path: str) -> None:
    """Write the report to ``path``: JSON for ``.json``, a self-contained page for ``.html``."""
    raise NotImplementedError
