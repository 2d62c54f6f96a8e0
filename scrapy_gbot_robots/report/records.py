"""The collector's records (:mod:`.collector`): one origin's counters, the facts of its
robots.txt state, one deciding rule's count and examples; each a ``__slots__`` record whose
size is bounded, and its JSON (schema ``gbot-robots-report/2``, :mod:`.schema`), built once,
at the close. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._safetext import short
from ..engine.decision import Decision
from ..policy.states import OriginState
from .labels import is_usage_directive, iso, state_summary
from .pages import PageTally

#: One step of a robots.txt fetch: (URL, HTTP status or None, error name or None).
Hop = tuple[str, int | None, str | None]
#: Example URLs and chain URLs are cut at this many characters (memory per entry is bounded).
EXAMPLE_CHARS = 1000
#: Hops kept per fetch chain (redirects x attempts is small; this only guards the bound).
CHAIN_HOPS = 32


class FetchFacts:
    """The facts of one established robots.txt state the report shows (never the body)."""

    __slots__ = (
        "bytes",
        "chain",
        "error_since",
        "errors",
        "fetched_at",
        "good_at",
        "kind",
        "reason",
        "refresh_at",
        "robots_url",
        "sha256",
        "source",
        "status",
        "truncated",
    )

    def __init__(
        self, robots_url: str, chain: Sequence[Hop], state: OriginState, source: str, sha: str
    ) -> None:
        self.robots_url = robots_url
        self.chain = [(short(u, EXAMPLE_CHARS), s, e) for u, s, e in chain[:CHAIN_HOPS]]
        self.source = source
        self.kind = state.kind.value
        self.reason = state.reason
        self.status = state.status
        self.fetched_at = state.fetched_at
        self.refresh_at = state.refresh_at
        self.good_at = state.good_at
        self.error_since = state.error_since
        self.errors = state.errors
        robots = state.robots
        self.bytes = len(robots.body) if robots is not None else None
        self.truncated = bool(robots.truncated) if robots is not None else False
        self.sha256 = sha


#: The counters of an origin that add up into the totals and the "other" bucket.
COUNTERS = (
    "allowed",
    "forbidden",
    "would_stop",
    "parked",
    "dropped",
    "fetches",
    "stored",
    "server_errors",
)


class OriginTally:
    """Counters of one origin: the hot path increments ``allowed`` and nothing else."""

    __slots__ = (
        "allowed",
        "backoff",
        "crawl_delay",
        "drop_reasons",
        "dropped",
        "facts",
        "fetch",
        "fetches",
        "forbidden",
        "lint",
        "pages",
        "parked",
        "server_errors",
        "stored",
        "usage",
        "would_stop",
    )

    def __init__(self) -> None:
        self.allowed = 0
        self.forbidden = 0  # in observe mode: would have been forbidden (let through)
        self.would_stop = 0  # observe mode: let through to an origin in server error
        self.parked = 0
        self.dropped = 0
        self.fetches = 0  # states established by a download
        self.stored = 0  # states adopted from a shared or persistent store
        self.server_errors = 0  # of those, server errors (429, 5xx, network failures)
        self.drop_reasons: dict[str, int] | None = None
        self.fetch: FetchFacts | None = None
        self.lint: dict[str, Any] | None = None
        self.usage: dict[str, Any] | None = None  # the group's content-usage statements
        self.facts: dict[str, Any] | None = None  # License: lines, AI crawlers kept out
        self.crawl_delay: tuple[float, float] | None = None  # (asked, applied) seconds
        #: Its back-offs (GBOT_ROBOTS_BACKOFF): [times, seconds in all, longest, requests waited].
        self.backoff: list[float] | None = None
        self.pages: PageTally | None = None  # GBOT_ROBOTS_PAGE_RULES: what the pages said

    def add(self, src: OriginTally, sign: int = 1) -> None:
        """Add (``sign`` 1) or take back (-1) another entry's counters."""
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + sign * getattr(src, name))

    def interest(self) -> tuple[int, int]:
        """What compaction keeps first: requests held back, then requests at all."""
        return (
            self.forbidden + self.would_stop + self.dropped + self.parked,
            self.allowed + self.forbidden + self.would_stop + self.dropped,
        )


class RuleTally:
    """One deciding rule of one origin's file: how many requests it forbade, and examples."""

    __slots__ = (
        "directive",
        "examples",
        "forbidden",
        "group",
        "line",
        "origin",
        "pattern",
        "token",
        "value",
    )

    def __init__(self, origin: str, decision: Decision) -> None:
        self.origin = origin
        self.line = decision.line
        self.directive = decision.directive
        self.value = decision.value
        self.pattern = decision.pattern
        self.group = decision.group
        self.token = decision.token  # whose group was in force (the first seen, if several)
        self.forbidden = 0
        self.examples: list[str] = []


def rule_json(rank: int, rule: RuleTally) -> dict[str, Any]:
    return {
        "rank": rank,
        "origin": rule.origin,
        "line": rule.line,
        "rule": f"{rule.directive}: {rule.value}" if rule.directive else "",
        "directive": rule.directive,
        "value": rule.value,
        "pattern": rule.pattern,
        "group": rule.group,
        "token": rule.token,
        "by": "usage" if is_usage_directive(rule.directive) else "rules",
        "forbidden": rule.forbidden,
        "examples": list(rule.examples),
    }


def origin_json(
    origin: str, entry: OriginTally, error_stop: float, stops: bool, observe: bool
) -> dict[str, Any]:
    fetch = entry.fetch
    out: dict[str, Any] = {"origin": origin}
    if fetch is None:
        out.update(
            robots_url=None,
            state="unknown",
            reason="",
            summary=state_summary("unknown", "", False),
            status=None,
            source=None,
            chain=[],
            bytes=None,
            truncated=False,
            sha256=None,
            fetched_at=None,
            refresh_at=None,
            valid_seconds=None,
            good_at=None,
            error_since=None,
            errors=0,
        )
    else:
        valid = fetch.refresh_at - fetch.fetched_at
        out.update(
            robots_url=fetch.robots_url,
            state=fetch.kind,
            reason=fetch.reason,
            summary=state_summary(
                fetch.kind, fetch.reason, fetch.bytes is not None, error_stop, observe
            ),
            status=fetch.status,
            source=fetch.source,
            chain=[{"url": u, "status": s, "error": e} for u, s, e in fetch.chain],
            bytes=fetch.bytes,
            truncated=fetch.truncated,
            sha256=fetch.sha256 or None,
            fetched_at=iso(fetch.fetched_at),
            refresh_at=iso(fetch.refresh_at),
            valid_seconds=round(valid, 3) if valid < float("inf") else None,
            good_at=iso(fetch.good_at),
            error_since=iso(fetch.error_since),
            errors=fetch.errors,
        )
    out["fetches"] = entry.fetches
    out["from_store"] = entry.stored
    out["server_errors"] = entry.server_errors
    out["lint"] = entry.lint
    out["usage"] = entry.usage
    facts = entry.facts or {}
    out["licenses"] = facts.get("licenses", [])
    out["ai_crawlers"] = facts.get("ai_crawlers")
    out["requests"] = {
        "allowed": entry.allowed,
        "forbidden": entry.forbidden,
        **({"would_stop": entry.would_stop} if stops else {}),
        "parked": entry.parked,
        "dropped": entry.dropped,
    }
    out["drop_reasons"] = dict(entry.drop_reasons or {})
    delay = entry.crawl_delay
    out["crawl_delay"] = None if delay is None else {"asked": delay[0], "applied": delay[1]}
    out["pages"] = None if entry.pages is None else entry.pages.as_json()
    b = entry.backoff
    out["backoff"] = (
        None
        if b is None
        else {"times": int(b[0]), "seconds": round(b[1], 3), "longest": b[2], "waited": int(b[3])}
    )
    return out
