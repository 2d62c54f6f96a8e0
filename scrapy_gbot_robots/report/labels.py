"""Names, labels and formats shared by the report's collector, its renderers and the CLI.

Pure: imports nothing from Scrapy or Twisted, nor from the other report modules (no cycle).
"""

from __future__ import annotations

from datetime import datetime, timezone

from ..policy.states import Kind

SCHEMA = "gbot-robots-report/1"

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


def state_summary(kind: str, reason: str, has_copy: bool, error_stop: float = 43_200.0) -> str:
    """One sentence on what the state means for the crawl (the report's ``summary`` field)."""
    if kind == Kind.RULES.value:
        return f"robots.txt answered ({reason}): its rules are obeyed"
    if kind == Kind.ALLOW_ALL.value:
        if reason.isdigit():
            return f"robots.txt answered {reason}: no restrictions, whatever the body says"
        return f"{reason}: no restrictions"
    if kind == Kind.SERVER_ERROR.value:
        then = "then the last good copy" if has_copy else "then no restrictions"
        return (
            f"server error ({reason}): crawling stopped for up to {duration(error_stop)} while "
            f"robots.txt is retried, {then}"
        )
    return "no robots.txt state recorded in this crawl (still being fetched, or decided earlier)"
