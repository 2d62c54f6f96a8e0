"""The gate's count of parked items, kept apart so that the accounting rule has one home.

Every item that enters the gate (parked now, or resumed from a previous run's lot) leaves it
released, dropped or persisted, or is still parked::

    resumed + parked == released + dropped + persisted + now  (+ taken_elsewhere)

``taken_elsewhere`` counts items a lot shared between processes no longer held: another
process released them. The gate's tests check the rule after every step. The counters change only
through the methods below, so the rule has one home. Pure bookkeeping: nothing from Scrapy
or Twisted.
"""

from __future__ import annotations


class Tally:
    """Counters of the gate's items; ``now`` and ``peak`` are what the stats report."""

    __slots__ = (
        "dropped",
        "now",
        "parked",
        "peak",
        "persisted",
        "released",
        "resumed",
        "taken_elsewhere",
    )

    def __init__(self) -> None:
        self.now = 0  # parked or held at this moment
        self.peak = 0
        self.parked = 0
        self.resumed = 0
        self.released = 0
        self.dropped = 0
        self.persisted = 0
        self.taken_elsewhere = 0

    def park(self, n: int = 1) -> None:
        self.now += n
        self.parked += n
        self.peak = max(self.peak, self.now)

    def resume(self, n: int) -> None:
        """Items a previous run (or a dead worker) left in the lot, taken over by this one."""
        self.now += n
        self.resumed += n
        self.peak = max(self.peak, self.now)

    def release(self, n: int, mine: int | None = None) -> None:
        """``n`` items left the gate released; ``mine`` of them were counted here (a lot
        shared between processes may hand out items another process parked)."""
        self.now -= n if mine is None else mine
        self.released += n

    def drop(self, n: int, mine: int | None = None) -> None:
        """``n`` items were given up; ``mine`` as for :meth:`release`."""
        self.now -= n if mine is None else mine
        self.dropped += n

    def lost_to_others(self, n: int) -> None:
        """``n`` items counted here are gone from a shared lot: another process released them."""
        self.now -= n
        self.taken_elsewhere += n

    def close(self, left: int) -> int:
        """The crawl ends with ``left`` items given up; the rest persisted. Returns how many."""
        kept = self.now - left
        self.persisted += kept
        self.dropped += left
        self.now = 0
        return kept
