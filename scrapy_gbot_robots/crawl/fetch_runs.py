"""The robots.txt fetches under way: each one run, told, and waited for at the close.

The coordinator starts a run for each ``Fetch`` the gate asks for (:meth:`FetchRuns.start`),
with the request that made it wanted (its route and credentials, :mod:`.route`; its
signal's request). The run awaits the
fetcher (:mod:`.robots_fetch`), tells telemetry what it decided, and hands the
:class:`~.robots_fetch.Outcome` back to the coordinator (``then``), which tells the gate.
The close waits for the runs still deciding (:meth:`FetchRuns.settle`, bounded); once the
crawl is closed (:mod:`.lifecycle`), a run that ends tells nothing and decides nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from .._compat import settle
from ..policy.origin import robots_url
from .robots_fetch import Outcome
from .route import route_of

if TYPE_CHECKING:
    from scrapy.http import Request

    from .lifecycle import Lifecycle
    from .robots_fetch import Fetcher
    from .telemetry import FetchEvents

logger = logging.getLogger("scrapy_gbot_robots.middleware")

#: What a run hands back once its fetch ended: the origin and what the fetch established.
Then = Callable[[str, Outcome], None]


class FetchRuns:
    """The runs in flight; see the module docstring."""

    __slots__ = ("_events", "_fetcher", "_lifecycle", "_running")

    def __init__(self, fetcher: Fetcher, lifecycle: Lifecycle, events: FetchEvents) -> None:
        self._fetcher = fetcher
        self._lifecycle = lifecycle
        self._events = events
        self._running: set[Deferred[None]] = set()

    def start(
        self,
        origin: str,
        request: Request | None,
        *,
        proceed: Callable[[], bool],
        deadline: Callable[[], float | None],
        then: Then,
    ) -> None:
        """Fetch on behalf of ``request`` (None: a fetch nobody's request made wanted)."""
        d = deferred_from_coro(self._run(origin, request, proceed, deadline, then))
        self._running.add(d)
        d.addBoth(self._ended, d)

    async def settle(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) for the runs still deciding."""
        await settle(list(self._running), timeout)

    def __len__(self) -> int:
        return len(self._running)

    def _ended(self, result: Any, d: Deferred[None]) -> None:
        self._running.discard(d)
        if isinstance(result, Failure):  # the fetcher never raises: a bug of ours
            logger.error(
                "Error fetching robots.txt: %s", result.getErrorMessage(), exc_info=result.value
            )

    async def _run(
        self,
        origin: str,
        request: Request | None,
        proceed: Callable[[], bool],
        deadline: Callable[[], float | None],
        then: Then,
    ) -> None:
        fetcher = self._fetcher
        outcome = await fetcher.fetch(
            origin,
            route=None if request is None else route_of(request.url, request.meta, request.headers),
            proceed=proceed,
            deadline=deadline,
        )
        if self._lifecycle.closed:
            return  # nothing is told nor decided once the crawl is closed
        try:
            if outcome.state is not None:
                self._events.decided(
                    origin,
                    outcome.state,
                    outcome.previous,
                    trigger=lambda: request or fetcher.request(robots_url(origin), origin),
                    source=outcome.source,
                )
        except Exception:  # the report or a signal handler: the state is stored already
            logger.exception("Error while recording robots.txt of %s", origin)
        finally:
            self._events.fetch_ended(origin)
            then(origin, outcome)
