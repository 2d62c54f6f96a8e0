"""Which names a stat is written under: the stats a user reads always, the machinery's only
when asked for (``GBOT_ROBOTS_DIAGNOSTIC_STATS``), each renamed one under its 0.2 name as well
until 0.4.

A one-site crawl dumped some twenty ``robotstxt/*`` stats, most of them the machinery's
peaks and counters; by default it now shows what happened to the requests and the fetches
(docs/stats.md says which stat is which, ``_stats.DIAGNOSTIC`` is the list). The choice is
made once, when the writer is built: one dict lookup per write, as the 0.2 names already
cost, and none on the hot path (its counts are flushed on a tick).
"""

from __future__ import annotations

from typing import Any

from .. import _stats as S


class StatWriter:
    """The crawler's stats, as telemetry writes them (see the module docstring)."""

    __slots__ = ("_names", "_stats")

    def __init__(self, stats: Any, *, diagnostic: bool) -> None:
        self._stats = stats
        #: A stat written under other names than its own: its 0.2 name too, or none at all.
        self._names: dict[str, tuple[str, ...]] = {
            new: (new, old) for new, old in S.OLD_NAMES.items()
        }
        if not diagnostic:
            self._names.update(dict.fromkeys(S.DIAGNOSTIC, ()))

    def inc_value(self, key: str, count: int = 1) -> None:
        names = self._names.get(key)
        if names is None:
            self._stats.inc_value(key, count)
            return
        for name in names:
            self._stats.inc_value(name, count)

    def set_value(self, key: str, value: Any) -> None:
        names = self._names.get(key)
        if names is None:
            self._stats.set_value(key, value)
            return
        for name in names:
            self._stats.set_value(name, value)
