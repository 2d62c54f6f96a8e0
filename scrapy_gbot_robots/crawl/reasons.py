"""Why a request is parked, why a robots.txt fetch is wanted, why parked requests are dropped.

Two enums with two meanings, never one for the other:

- :class:`ParkReason` answers for a **request**: what it met when it arrived, and so what
  it waits for (stats, the DEBUG line, ``request_parked``).
- :class:`FetchReason` answers for a **fetch**: why the gate wants the origin's robots.txt
  downloaded (the fetch stats).

They share three values because a request that finds its origin unknown (``MISS``), its copy
expired (``EXPIRED``) or a retry due (``RETRY``) is what makes the fetch of the same name
wanted: :data:`WANTS` is that one link. The other reasons are one side's alone: a request
also waits behind another's fetch (``WAITING``), for a stopped origin's retry (``STOPPED``),
after a bounce (``BOUNCED``), for its turn (``TURN``), for its origin's back-off
(``BACKOFF``) or for the fleet's ``Crawl-delay`` slot (``CRAWL_DELAY``); a fetch is also a
retry in the background while requests pass (``REFRESH``) or a look again (``RECHECK``).

Drop reasons are text, since the close's carries the spider's close reason; the two fixed
ones are named here. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import enum


class ParkReason(str, enum.Enum):
    """Why a request was parked instead of passing (what it waits for)."""

    MISS = "miss"  # the origin is unknown: its robots.txt is fetched first
    EXPIRED = "expired"  # the good copy expired: the new one decides
    RETRY = "retry"  # a retry after server errors is due
    STOPPED = "stopped"  # server errors: the origin is not crawled for now
    WAITING = "waiting"  # the origin already has a fetch under way or requests waiting
    BOUNCED = "bounced"  # it reached the downloader undecided and came back
    TURN = "turn"  # decided, but taken while the engine is full: it waits its turn
    BACKOFF = "backoff"  # its origin asked to slow down (429, 5xx): it waits for the back-off
    CRAWL_DELAY = "crawl_delay"  # another worker of the fleet holds the Crawl-delay slot


class FetchReason(str, enum.Enum):
    """Why the gate wants an origin's robots.txt (the stats count some of them)."""

    MISS = "miss"  # first sight of the origin, or its state was forgotten
    EXPIRED = "expired"  # the good copy expired: the new one decides
    RETRY = "retry"  # server errors: the origin is stopped until a retry succeeds
    REFRESH = "refresh"  # a background retry during the 12 h - 30 d grace period
    RECHECK = "recheck"  # another process holds the fetch lock, or a fetch was cut


#: The fetch a request parked for this reason makes wanted (the reasons not here want none).
WANTS = {
    ParkReason.MISS: FetchReason.MISS,
    ParkReason.EXPIRED: FetchReason.EXPIRED,
    ParkReason.RETRY: FetchReason.RETRY,
}

#: A parked request whose time (``GBOT_ROBOTS_PARK_TIMEOUT``) is up.
DEADLINE = "deadline"
#: A download waiting in place whose origin is stopped by server errors: it never waits for
#: a retry.
STOPPED = "stopped"
