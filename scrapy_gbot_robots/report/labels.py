"""Names, labels and formats shared by the report's collector, its renderers and the CLI.

Pure: imports nothing from Scrapy or Twisted, nor from the other report modules (no cycle).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..policy.states import Kind

#: The schema a crawl writes; a report of an older one is read through ``schema.upgraded``.
SCHEMA = "gbot-robots-report/2"
#: The older schemas the readers still take (``gbot-robots report``, the HTML page).
OLDER_SCHEMAS = ("gbot-robots-report/1",)
#: ``crawl.mode`` of a report made with ``GBOT_ROBOTS_MODE = "observe"``.
OBSERVE = "observe"
#: Keys of the content-usage lines a ``Decision`` may name (lower-cased).
_USAGE_DIRECTIVES = frozenset({"content-signal", "content-usage"})

STATE_LABELS = {
    Kind.RULES.value: "rules",
    Kind.ALLOW_ALL.value: "no restrictions",
    Kind.SERVER_ERROR.value: "server error",
    "unknown": "unknown",
}
_STATES = (Kind.RULES.value, Kind.ALLOW_ALL.value, Kind.SERVER_ERROR.value, "unknown")


def iso(timestamp: float | None) -> str | None:
    """Seconds since the epoch as ISO 8601 UTC (``2025-01-31T12:00:00Z``); None stays None."""
    if timestamp is None:
        return None
    try:
        when = datetime.fromtimestamp(timestamp, timezone.utc)
    except (OverflowError, OSError, ValueError):  # inf (never refresh), or out of range
        return None
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


def duration(seconds: float) -> str:
    """12 h, 10 min, 30 d: the unit a person would say."""
    for unit, size, least in (("d", 86_400, 172_800), ("h", 3_600, 3_600), ("min", 60, 60)):
        if seconds >= least and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    if seconds >= 3_600:
        return f"{seconds / 3_600:.1f} h"
    return f"{seconds:g} s"


def state_summary(
    kind: str, reason: str, has_copy: bool, error_stop: float = 43_200.0, observe: bool = False
) -> str:
    """One sentence on what the state means for the crawl (the report's ``summary`` field);
    ``observe``: for an observe-mode crawl, which obeyed nothing and stopped nothing."""
    if kind == Kind.RULES.value:
        if observe:
            return f"robots.txt answered ({reason}): its rules are what Googlebot obeys"
        return f"robots.txt answered ({reason}): its rules are obeyed"
    if kind == Kind.ALLOW_ALL.value:
        if reason.isdigit():
            return f"robots.txt answered {reason}: no restrictions, whatever the body says"
        return f"{reason}: no restrictions"
    if kind == Kind.SERVER_ERROR.value:
        then = "then the last good copy" if has_copy else "then no restrictions"
        if observe:
            return (
                f"server error ({reason}): Googlebot stops crawling for up to "
                f"{duration(error_stop)} while robots.txt is retried, {then} (observe mode: "
                "requests were let through)"
            )
        return (
            f"server error ({reason}): crawling stopped for up to {duration(error_stop)} while "
            f"robots.txt is retried, {then}"
        )
    return "no robots.txt state recorded in this crawl (still being fetched, or decided earlier)"


def tokens_text(crawl: Any) -> str:
    """The token(s) a report's crawl obeyed (``crawl.tokens``), as the user wrote them:
    ``Googlebot-Image, Googlebot``; empty when the report has none."""
    tokens = crawl.get("tokens") if isinstance(crawl, dict) else None
    if not isinstance(tokens, list):
        return ""
    return ", ".join(str(token) for token in tokens)


def observed(data: dict[str, Any]) -> bool:
    """Whether a report comes from an observe-mode crawl (``crawl.mode``; older reports carry
    it only in ``crawl.settings.mode``)."""
    crawl = data.get("crawl")
    if not isinstance(crawl, dict):
        return False
    settings = crawl.get("settings")
    mode = crawl.get("mode") or (settings.get("mode") if isinstance(settings, dict) else None)
    return mode == OBSERVE


def is_usage_directive(directive: Any) -> bool:
    """Whether a deciding line is a content-usage statement (``GBOT_ROBOTS_USAGE``)."""
    return isinstance(directive, str) and directive.lower() in _USAGE_DIRECTIVES


def group_label(group: Any, token: Any) -> str:
    """Whose group decided, in words: ``Googlebot (own group)``, ``* group``, ``no group``.

    The token says it when the report has one (a usage line's ``group`` is the rules'
    verdict's, ``none`` when no rule matched its URL, while its token names the group)."""
    if token == "*":
        return "* group"
    if token:
        return f"{token} (own group)"
    if group == "agent":
        return "own group"
    if group == "global":
        return "* group"
    return "no group" if group == "none" else str(group)


def delay_text(delay: Any) -> str:
    """An origin's ``crawl_delay`` in words: ``2 s, applied``, ``3600 s, capped at 30 s``;
    empty when there is none."""
    if not isinstance(delay, dict):
        return ""
    asked, applied = delay.get("asked"), delay.get("applied")
    if not isinstance(asked, (int, float)) or not isinstance(applied, (int, float)):
        return ""
    if applied < asked:
        return f"{asked:g} s, capped at {applied:g} s"
    return f"{asked:g} s, applied"


def backoff_text(backoff: Any) -> str:
    """An origin's ``backoff`` in words: ``2 times, 6 s (at most 3 s), 12 requests waited``;
    empty when it never backed off."""
    if not isinstance(backoff, dict):
        return ""
    times, seconds = backoff.get("times"), backoff.get("seconds")
    longest, waited = backoff.get("longest"), backoff.get("waited")
    if not all(isinstance(v, (int, float)) for v in (times, seconds, longest, waited)):
        return ""
    return (
        f"{times:g} time{'s' if times != 1 else ''}, {seconds:g} s (at most {longest:g} s), "
        f"{waited:g} request{'s' if waited != 1 else ''} waited"
    )


def usage_statements(usage: Any) -> list[tuple[int, str, str]]:
    """An origin's ``usage`` field as its statements: (line, text as written, path), one per
    line (a line's several preferences are one statement)."""
    if not isinstance(usage, dict):
        return []
    seen: dict[int, tuple[int, str, str]] = {}
    for pref in usage.get("preferences") or ():
        if not isinstance(pref, dict):
            continue
        line = pref.get("line")
        if isinstance(line, int) and line not in seen:
            seen[line] = (line, str(pref.get("text", "")), str(pref.get("path", "")))
    return list(seen.values())
