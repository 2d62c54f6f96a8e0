"""What the gate asks for, as values: start a fetch, release items, drop items, send on.

The gate (:mod:`.gate`) decides and writes its effects into an :class:`Outbox`; the
coordinator (:mod:`.coordinator`) takes them after each event and carries them out. So the
gate never calls back into the code that called it, and neither needs the other to be
built first. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class FetchReason(str, enum.Enum):
    """Why the gate wants an origin's robots.txt (the stats count some of them)."""

    MISS = "miss"  # first sight of the origin, or its state was forgotten
    EXPIRED = "expired"  # the good copy expired: the new one decides
    RETRY = "retry"  # server errors: the origin is stopped until a retry succeeds
    REFRESH = "refresh"  # a background retry during the 12 h - 30 d grace period
    RECHECK = "recheck"  # another process holds the fetch lock, or a fetch was cut


@dataclass(frozen=True, slots=True)
class Fetch:
    """Start ``origin``'s robots.txt fetch; tell the gate when it ends (``fetch_done``)."""

    origin: str
    why: FetchReason


@dataclass(frozen=True, slots=True)
class Release(Generic[T]):
    """Send these parked items on, oldest first: their origin is decided."""

    origin: str
    items: Sequence[T]


@dataclass(frozen=True, slots=True)
class Drop(Generic[T]):
    """Give these items up (``reason``: "deadline", "stopped" or the close's reason).

    ``decided``: their origin's robots.txt was decided and they were waiting their turn
    (dropped by the close), not waiting for robots.txt.
    """

    origin: str
    items: Sequence[T]
    reason: str
    decided: bool = False


@dataclass(frozen=True, slots=True)
class SendOn:
    """Decided origins wait to have their parked items sent on a few at a time: call
    :meth:`~.gate.Gate.drip` once per turn of the event loop until ``Gate.dripping`` is False."""


Effect = Fetch | Release[T] | Drop[T] | SendOn


SEND_ON = SendOn()


class Actions(Protocol[T_contra]):
    """Where the gate writes its effects (an :class:`Outbox`, or a test's recorder)."""

    def fetch(self, origin: str, why: FetchReason) -> None: ...

    def release(self, origin: str, items: Sequence[T_contra]) -> None: ...

    def drop(
        self, origin: str, items: Sequence[T_contra], reason: str, decided: bool = False
    ) -> None: ...

    def send_on(self) -> None: ...


class Outbox(Generic[T]):
    """The gate's effects, kept in order until the coordinator takes them."""

    __slots__ = ("_effects",)

    def __init__(self) -> None:
        self._effects: list[Effect[T]] = []

    def fetch(self, origin: str, why: FetchReason) -> None:
        self._effects.append(Fetch(origin, why))

    def release(self, origin: str, items: Sequence[T]) -> None:
        self._effects.append(Release(origin, items))

    def drop(self, origin: str, items: Sequence[T], reason: str, decided: bool = False) -> None:
        self._effects.append(Drop(origin, items, reason, decided))

    def send_on(self) -> None:
        self._effects.append(SEND_ON)

    def take(self) -> list[Effect[T]]:
        """Every effect written since the last call, oldest first."""
        effects, self._effects = self._effects, []
        return effects

    def __len__(self) -> int:
        return len(self._effects)
