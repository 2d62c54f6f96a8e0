"""The HTML page's column on what a robots.txt says besides its rules: the AI crawlers it
keeps out of ``/`` (with the lines) and its RSL ``License:`` lines."""

from __future__ import annotations

from typing import Any

from .markup import esc

#: Crawlers named per cell; the JSON report lists them all.
SHOWN = 12


def has_facts(origin: dict[str, Any]) -> bool:
    """Whether the origin's robots.txt keeps an AI crawler out of / or names a licence."""
    ai = origin.get("ai_crawlers")
    blocked = ai.get("disallowed_count", 0) if isinstance(ai, dict) else 0
    return bool(blocked or origin.get("licenses"))


def facts_cell(origin: dict[str, Any]) -> str:
    """``3 of 166 AI crawlers kept out of /``, each with its rule's line, then the licences."""
    ai = origin.get("ai_crawlers")
    parts: list[str] = []
    if isinstance(ai, dict) and ai.get("disallowed_count"):
        rows = ai.get("disallowed", [])
        items = "".join(
            f"<li><code>{esc(r.get('token'))}</code> ({esc(r.get('operator'))}): "
            f"line {esc(r.get('line') or '-')}</li>"
            for r in rows[:SHOWN]
            if isinstance(r, dict)
        )
        more = len(rows) - SHOWN
        tail = f'<div class="muted">and {more:,} more</div>' if more > 0 else ""
        parts.append(
            f"{int(ai['disallowed_count']):,} of {int(ai.get('checked', 0)):,} AI crawlers "
            f'kept out of /<ul class="plain">{items}</ul>{tail}'
        )
    for url in origin.get("licenses") or []:
        parts.append(f'<div class="muted">License: <code>{esc(url)}</code></div>')
    return "".join(parts) or '<span class="muted">&ndash;</span>'
