"""States the store read back from its persistent tier, told as a fetch would be.

When memory had forgotten an origin (or a restart never saw it), the SQLite or Redis tier
answers instead of a new fetch. Its signals (``robots_parsed``, ``origin_state_changed``)
and its line in the report are sent once per origin and process, on the next turn of the
event loop: the read happens inside a store lookup, on the hot path, maybe inside one of
our own signal handlers, and handlers of ``robots_parsed`` may schedule requests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http import Request
from scrapy.http.request import NO_CALLBACK

from .._compat import call_later
from .._meta import DONT_OBEY, FETCH_META
from ..policy.origin import robots_url

if TYPE_CHECKING:
    from ..policy.states import OriginState
    from .lifecycle import Lifecycle
    from .telemetry import FetchEvents


class ReadBacks:
    """Hears the store's read-backs (``TieredStore(on_read=...)``); bounded memory."""

    __slots__ = ("_lifecycle", "_limit", "_seen", "_telemetry")

    def __init__(self, telemetry: FetchEvents, lifecycle: Lifecycle, *, limit: int) -> None:
        self._telemetry = telemetry
        self._lifecycle = lifecycle
        self._limit = limit
        self._seen: set[str] = set()

    def seen(self, origin: str, state: OriginState) -> None:
        """``state`` of ``origin`` came back from the persistent store."""
        if origin in self._seen:
            return
        if len(self._seen) >= self._limit:
            self._seen.clear()
        self._seen.add(origin)
        call_later(0, self._tell, origin, state)

    def _tell(self, origin: str, state: OriginState) -> None:
        if self._lifecycle.closed:
            return

        def trigger() -> Request:
            return Request(
                robots_url(origin),
                meta={DONT_OBEY: True, FETCH_META: origin},
                callback=NO_CALLBACK,
                dont_filter=True,
            )

        self._telemetry.decided(origin, state, None, trigger=trigger, source="read back")
