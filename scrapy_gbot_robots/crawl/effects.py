"""What the gate asks for, as values: start a fetch, release items, drop items, take turns.

The gate (:mod:`.gate`) decides and writes its effects into an :class:`Outbox`; the
coordinator (:mod:`.coordinator`) takes them after each event and carries them out. So the
gate never calls back into the code that called it, and neither needs the other to be
built first. Pure: nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from .reasons import FetchReason

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


@dataclass(frozen=True, slots=True)
class Fetch:
    """Start ``origin``'s robots.txt fetch; tell the gate when it ends (``fetch_done``)."""

    origin: str
    why: FetchReason


@dataclass(frozen=True, slots=True)
class Release(Generic[T]):
    """Send these parked items back on to the engine, oldest first: their origin is decided."""

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
class TurnsDue:
    """Decided origins' parked items wait to be released a few at a time: call
    :meth:`~.gate.Gate.release_turn` once per turn of the event loop while
    :attr:`~.gate.Gate.turns_due` says so."""


Effect = Fetch | Release[T] | Drop[T] | TurnsDue


TURNS_DUE = TurnsDue()


class Actions(Protocol[T_contra]):
    """Where the gate writes its effects (an :class:`Outbox`, or a test's recorder)."""

    def fetch(self, origin: str, why: FetchReason) -> None: ...

    def release(self, origin: str, items: Sequence[T_contra]) -> None: ...

    def drop(
        self, origin: str, items: Sequence[T_contra], reason: str, decided: bool = False
    ) -> None: ...

    def turns_due(self) -> None: ...


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

    def turns_due(self) -> None:
        self._effects.append(TURNS_DUE)

    def take(self) -> list[Effect[T]]:
        """Every effect written since the last call, oldest first."""
        effects, self._effects = self._effects, []
        return effects

    def __len__(self) -> int:
        return len(self._effects)
