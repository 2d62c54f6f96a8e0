"""Where the crawl is in its life: the one closing state that every step consults.

Three phases, each for good once reached:

- **open**: the engine takes requests. Parked requests are released, fetches start.
- **closing**: the engine stopped taking requests (``CloseSpider``, a ``CLOSESPIDER_*``
  limit, Ctrl-C, a ``JOBDIR`` pause), but it still waits for the downloads in progress.
  Parked requests are neither released nor dropped at their deadline: the close keeps
  them (``JOBDIR``, a fleet's lot) or drops them. A fetch goes on only for a download that
  waits in place (the engine waits for it): no new redirect hop, retry or fetch otherwise.
- **closed**: ``spider_closed`` ran its bounded wait. Nothing more is decided, stored or
  reported: a fetch still running ends without a trace, and the stores are closed.

The engine is asked (``engine_open``) only until it first says no. Pure: the question is
passed in, nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Callable


class Lifecycle:
    """The crawl's phase; see the module docstring."""

    __slots__ = ("_closed", "_closing", "_engine_open")

    def __init__(self, engine_open: Callable[[], bool]) -> None:
        self._engine_open = engine_open
        self._closing = False
        self._closed = False

    def accepting(self) -> bool:
        """Whether the engine takes requests now; the first False starts the close."""
        if self._closing:
            return False
        if self._engine_open():
            return True
        self._closing = True
        return False

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
        self._closing = True
        self._closed = True
