"""The report's per-origin view of what a robots.txt says besides its rules: RSL ``License:``
lines and the AI crawlers it keeps out of ``/`` (``gbot-robots agents``' table).

Read once per distinct body while remembered (a bounded memo, as the lint summary's), and
bounded in size: the licences and the kept-out crawlers are at most a few dozen, a file
naming more than :data:`MAX_LISTED` of them lists the first ones and counts the rest.
"""

from __future__ import annotations

from typing import Any, Final

from ..engine.ai_crawlers import snapshot, verdicts
from ..engine.rules import RobotsTxt

#: Licences and kept-out crawlers listed per origin (the count is exact).
MAX_LISTED: Final = 200
#: Distinct bodies remembered.
MEMO: Final = 256


class RobotsFacts:
    """One summary per distinct robots.txt body (by its SHA-256), remembered while bounded."""

    def __init__(self) -> None:
        self._memo: dict[str, dict[str, Any]] = {}
        #: How many bodies were read (for tests and the curious).
        self.runs = 0

    def of(self, sha: str, robots: RobotsTxt) -> dict[str, Any]:
        """``{"licenses": [...], "ai_crawlers": {...}}`` for one body."""
        found = self._memo.get(sha)
        if found is not None:
            return found
        self.runs += 1
        rows = verdicts(robots)
        blocked = [r for r in rows if not r.root_allowed]
        snap = snapshot()
        summary = {
            "licenses": list(robots.licenses[:MAX_LISTED]),
            "ai_crawlers": {
                "list": f"{snap.name} {snap.commit} ({snap.date})",
                "checked": len(rows),
                "disallowed_count": len(blocked),
                "disallowed": [
                    {
                        "token": r.crawler.token,
                        "operator": r.crawler.operator,
                        "function": r.crawler.function,
                        "group_line": r.group_line or None,
                        "line": r.line or None,
                        "rule": r.rule,
                    }
                    for r in blocked[:MAX_LISTED]
                ],
            },
        }
        if len(self._memo) >= MEMO:
            del self._memo[next(iter(self._memo))]
        self._memo[sha] = summary
        return summary
