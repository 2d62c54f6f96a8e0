"""The back-off's books: which origins asked to slow down, until when, bounded.

A page answer of distress (:func:`~..policy.backoff.is_distress`), or a page download that
failed with a network error (``crawl/network_errors_middleware.py``), puts its origin in
back-off until the wait :func:`~..policy.backoff.backoff_delay` names has passed; the gate
(:mod:`.gate`) parks the origin's requests meanwhile and wakes them at its end. Answers of
distress that arrive while the back-off is in force came from requests sent before it began:
they lengthen it only when their ``Retry-After`` asks for a later end, and never count as one
more distress in a row (eight requests in flight answering ``503`` at once are one distress,
not a 2^8 s wait). Each healthy answer after the back-off shortens the streak by one, and an
origin whose streak is back to zero leaves the books. A fleet's ``Crawl-delay`` slot taken
by another worker (:meth:`Backoffs.hold`) parks an origin's requests the same way, without
being a back-off.

Bounded: an entry exists only while its origin is in back-off or has a streak left, and at
most ``max_entries`` (the store's size: an origin the crawl cannot remember is one it cannot
keep a back-off for either); past that, the entry that ends first goes. A healthy crawl pays
one dict lookup per request and per answer. Pure: nothing from Scrapy or Twisted; time is an
argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..policy.backoff import backoff_delay

__all__ = ["Backoffs", "Began"]


@dataclass(frozen=True, slots=True)
class Began:
    """An origin entered back-off (``new``), or its back-off was lengthened by a later
    ``Retry-After``: until ``until``, ``delay`` seconds from the answer."""

    origin: str
    until: float
    delay: float
    status: int
    asked: bool  # the server named the wait (Retry-After)
    new: bool
    #: The network error that began it (``"TimeoutError"``...): no status then.
    failure: str = ""


class _Entry:
    __slots__ = ("began", "held", "streak", "until")

    def __init__(self) -> None:
        self.began = 0.0
        self.until = 0.0
        self.streak = 0
        self.held = False  # the wait is a fleet's Crawl-delay slot (:meth:`Backoffs.hold`)


class Backoffs:
    """The origins in back-off, and those with a streak of distress left; see the module doc."""

    __slots__ = ("_active", "_cap", "_entries", "_max", "entered", "evicted", "longest")

    def __init__(self, cap: float, max_entries: int) -> None:
        self._cap = cap
        self._max = max(1, max_entries)
        self._entries: dict[str, _Entry] = {}
        #: Origins in back-off whose end :meth:`ended` has not reported yet.
        self._active: dict[str, _Entry] = {}
        self.entered = 0  # times an origin entered back-off
        self.evicted = 0  # entries let go of at the bound
        self.longest = 0.0  # the longest single wait, in seconds

    def __len__(self) -> int:
        return len(self._entries)

    def until(self, origin: str) -> float:
        """When the origin's back-off ends (0.0: none); on the hot path, one dict miss."""
        entry = self._entries.get(origin)
        return 0.0 if entry is None else entry.until

    def distress(
        self, origin: str, status: int, retry_after: str | None, now: float, failure: str = ""
    ) -> Began | None:
        """A page of ``origin`` answered ``status`` (a distress), or its download failed with
        the network error ``failure`` (status 0, no ``Retry-After``): the back-off it begins
        or lengthens, or None when one already in force covers it."""
        entry = self._entries.get(origin)
        if entry is not None and entry.until > now and not entry.held:  # sent before it began
            delay, asked = backoff_delay(retry_after, entry.streak, now, self._cap)
            if not asked or now + delay <= entry.until:
                return None
            entry.until = now + delay
            self.longest = max(self.longest, entry.until - entry.began)
            return Began(origin, entry.until, delay, status, True, False, failure)
        if entry is None:
            self._make_room(now)
            entry = self._entries[origin] = _Entry()
        entry.streak += 1
        entry.held = False
        delay, asked = backoff_delay(retry_after, entry.streak, now, self._cap)
        entry.began, entry.until = now, now + delay
        self._active[origin] = entry
        self.entered += 1
        self.longest = max(self.longest, delay)
        return Began(origin, entry.until, delay, status, asked, True, failure)

    def adopt(self, origin: str, until: float, now: float) -> Began | None:
        """Another worker of the fleet put ``origin`` in back-off until ``until``: the same
        here (no streak of ours: it was not our answer). None when ours ends as late."""
        entry = self._entries.get(origin)
        if until <= now or (entry is not None and entry.until >= until):
            return None
        new = entry is None or entry.until <= now
        if entry is None:
            self._make_room(now)
            entry = self._entries[origin] = _Entry()
        entry.held = False
        if new:
            entry.began = now
            self._active[origin] = entry
            self.entered += 1
        entry.until = until
        self.longest = max(self.longest, until - entry.began)
        return Began(origin, until, until - now, 0, True, new)

    def hold(self, origin: str, until: float, now: float) -> Began | None:
        """The fleet's ``Crawl-delay`` slot of ``origin`` is taken until ``until``
        (``stores/redis_pace.py``): its requests wait as in a back-off, which this is not (no
        streak, not counted, never reported as ended). None when a wait ends as late."""
        entry = self._entries.get(origin)
        if until <= now or (entry is not None and entry.until >= until):
            return None
        if entry is None:
            self._make_room(now)
            entry = self._entries[origin] = _Entry()
        if entry.until <= now:  # no back-off in force: the wait is the slot's
            entry.held = True
        entry.until = until
        return Began(origin, until, until - now, 0, False, False)

    def held(self, origin: str) -> bool:
        """Whether the origin's wait is a fleet's ``Crawl-delay`` slot, not a back-off."""
        entry = self._entries.get(origin)
        return entry is not None and entry.held

    def healthy(self, origin: str, now: float) -> None:
        """A page of ``origin`` answered without distress: after its back-off, the streak
        shrinks by one, and the entry goes with the last of it."""
        entry = self._entries.get(origin)
        if entry is None or entry.until > now:
            return
        entry.streak -= 1
        if entry.streak <= 0:
            del self._entries[origin]

    def active(self) -> frozenset[str]:
        """The origins in back-off, or whose end :meth:`ended` has not reported yet."""
        return frozenset(self._active)

    def ended(self, now: float) -> list[tuple[str, float]]:
        """``(origin, seconds it lasted)`` of each back-off that ended since the last call."""
        active = self._active
        if not active:
            return []
        done = [(o, e.until - e.began) for o, e in active.items() if e.until <= now]
        for origin, _ in done:
            del active[origin]
        return done

    def _make_room(self, now: float) -> None:
        entries = self._entries
        if len(entries) < self._max:
            return
        # One pass, at the bound only: the entry that ends first goes (a past one first).
        origin = min(entries, key=lambda o: entries[o].until)
        del entries[origin]
        self._active.pop(origin, None)
        self.evicted += 1
