"""Where the crawl is in its life: the one closing state that every part consults.

Three phases, each for good once reached:

- **open**: the engine takes requests. Parked requests are released, fetches start.
- **closing**: the engine stopped taking requests (``CloseSpider``, a ``CLOSESPIDER_*``
  limit, Ctrl-C, a ``JOBDIR`` pause), but it still waits for the downloads in progress.
  Parked requests are neither released nor dropped at their deadline: the close keeps
  them (``JOBDIR``, a fleet's lot) or drops them. A fetch goes on only for a download that
  waits in place (the engine waits for it): no new redirect hop, retry or fetch otherwise.
  Downloads waiting in place age from the start of the close at the latest
  (:attr:`Lifecycle.closing_at`), so a close lasts at most ``GBOT_ROBOTS_PARK_TIMEOUT``.
- **closed**: ``spider_closed`` ran its bounded wait. Nothing more is decided, stored or
  reported: a fetch still running ends without a trace, and the stores are closed.

The engine is asked (``engine_open``) only until it first says no; the time of that answer
is kept, the one record of when the close began. The gate, its park clock, the fetcher and
the coordinator all ask here; none keeps a closing flag of its own. Pure: the question and
the clock are passed in, nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Callable


class Lifecycle:
    """The crawl's phase; see the module docstring."""

    __slots__ = ("_clock", "_closed", "_closing_at", "_engine_open")

    def __init__(self, engine_open: Callable[[], bool], clock: Callable[[], float]) -> None:
        self._engine_open = engine_open
        self._clock = clock
        self._closing_at: float | None = None
        self._closed = False

    def accepting(self, now: float | None = None) -> bool:
        """Whether the engine takes requests now; the first False starts the close, at
        ``now`` (the caller's clock reading) or, without one, the clock's."""
        if self._closing_at is not None:
            return False
        if self._engine_open():
            return True
        self._closing_at = self._clock() if now is None else now
        return False

    @property
    def closing_at(self) -> float | None:
        """When the close began (the first "no" from the engine); None while open. Read
        only: it asks nobody, so a part may consult it on every item."""
        return self._closing_at

    @property
    def closing(self) -> bool:
        """Whether the close has begun (asks the engine once more if it has not)."""
        return not self.accepting()

    @property
    def closed(self) -> bool:
        """Whether nothing more may be decided, stored or reported."""
        return self._closed

    def close(self) -> None:
        """``spider_closed`` finished waiting: from now on every late result is dropped."""
        if self._closing_at is None:
            self._closing_at = self._clock()
        self._closed = True
