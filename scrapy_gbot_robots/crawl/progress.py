"""A progress line for long crawls, every ``LOGSTATS_INTERVAL`` while the plugin has work.

A broad crawl can spend minutes deciding robots.txt before its pages flow, and Scrapy's own
``LogStats`` line then says only "Crawled 0 pages". This line is its companion, in its
shape: the origins decided so far (by kind, and the rate), the requests parked now and why
they wait (robots.txt being fetched, a slot of the fetch budget, a retry after server errors
and when it comes, their turn), when the first of them is dropped unless decided
(``GBOT_ROBOTS_PARK_TIMEOUT``), the fetches in flight (and in the slow lane), and the requests
released, dropped and forbidden so far: a crawl that waits says what it waits for, and until
when. It is logged only while requests are parked or fetches are wanted, so a crawl whose
sites are all decided is not flooded. ``LOGSTATS_INTERVAL = 0`` turns it off, as it does
Scrapy's. The numbers are read, never counted here: the stats are telemetry's, the rest the
gate's (:meth:`.gate.Gate.why_waiting`, asked only when the line is logged).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import _stats as S
from ..policy.states import Kind

if TYPE_CHECKING:
    from .gate import GateFigures
    from .waiting import Waiting

logger = logging.getLogger("scrapy_gbot_robots.middleware")

_KIND_WORDS = {
    Kind.RULES: "rules",
    Kind.ALLOW_ALL: "no restrictions",
    Kind.SERVER_ERROR: "server error",
}


class Progress:
    """Logs the progress line; :meth:`tick` is called on every tick of the coordinator."""

    __slots__ = (
        "_clock",
        "_decided_then",
        "_interval",
        "_next",
        "_park_timeout",
        "_stats",
        "_then",
    )

    def __init__(
        self,
        stats: Any,
        interval: float,
        park_timeout: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stats = stats
        self._interval = interval  # 0: off
        self._park_timeout = park_timeout  # GBOT_ROBOTS_PARK_TIMEOUT, named in the line
        self._clock = clock  # wall time, whatever GBOT_ROBOTS_CLOCK says
        self._next: float | None = None
        self._then: float | None = None
        self._decided_then = 0

    def tick(self, gate: GateFigures, waiting: Callable[[], Waiting]) -> None:
        if not self._interval:
            return
        now = self._clock()
        if self._next is None:
            self._next, self._then, self._decided_then = now + self._interval, now, 0
            return
        if now < self._next:
            return
        self._next = now + self._interval
        if not (gate.parked_now or gate.in_flight or gate.queued):
            self._then, self._decided_then = now, self._decided()
            return
        self._log(now, gate, waiting())

    def _decided(self) -> int:
        get = self._stats.get_value
        return sum(int(get(S.ORIGIN_STATE + kind.value, 0)) for kind in Kind)

    def _log(self, now: float, gate: GateFigures, waiting: Waiting) -> None:
        get = self._stats.get_value
        kinds = ", ".join(
            f"{int(get(S.ORIGIN_STATE + kind.value, 0)):,} {word}"
            for kind, word in _KIND_WORDS.items()
        )
        decided = self._decided()
        elapsed = max(now - (self._then or now), 1e-9)
        rate = (decided - self._decided_then) * 60.0 / elapsed
        self._then, self._decided_then = now, decided
        logger.info(
            "robots.txt: %(decided)s decided (%(kinds)s) (at %(rate)d/min), %(parked)s "
            "parked%(why)s, %(running)s in flight (+%(slow)d slow, %(queued)s waiting), "
            "%(released)s released, %(dropped)s dropped, %(forbidden)s forbidden",
            {
                "decided": f"{decided:,}",
                "kinds": kinds,
                "rate": rate,
                "parked": _count(gate.parked_now, "request"),
                "why": f" ({why})" if (why := waiting.text(self._park_timeout)) else "",
                "running": _count(gate.running, "fetch", "es"),
                "slow": gate.slow,
                "queued": f"{gate.queued:,}",
                "released": f"{int(get(S.RELEASED, 0)):,}",
                "dropped": f"{int(get(S.DROPPED, 0)):,}",
                "forbidden": f"{int(get(S.FORBIDDEN, 0)):,}",
            },
        )


def _count(n: int, word: str, plural: str = "s") -> str:
    """``1 request``, ``3 requests``, ``1,024 fetches``."""
    return f"{n:,} {word}{'' if n == 1 else plural}"
