"""The states the in-memory store forgot, kept encoded: a second tier bounded in bytes.

A parsed state costs a few KiB of Python objects; its stored form (:mod:`.entry`: a small
header and the capped body, compressed) a few hundred bytes. A crawl that meets more origins
than ``GBOT_ROBOTS_STORE_SIZE`` before it comes back to them (start requests taken round
robin, one page per site per round) would otherwise fetch each robots.txt once per round; this
tier gives the state back instead, read as an SQLite store's would be, and forgets only when
its own byte bound is reached.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import OrderedDict

from ..engine.lines import MAX_BODY_BYTES
from ..policy.states import Kind, OriginState
from .entry import decode, encode

#: What one entry costs beyond its key and its bytes: the dict slot, the key's and the
#: bytes' object headers and the tuple (tracemalloc over the shared corpus: 192).
ENTRY_OVERHEAD = 192


class CompactStore:
    """LRU of encoded states, bounded by ``max_bytes`` (keys, bytes and overhead counted).

    A state leaves this tier when it is read back (:meth:`take`): the in-memory store holds
    it again, and hands it back here when it forgets it once more, so no state is in both.
    """

    __slots__ = ("_data", "_used", "failing_forgotten", "forgotten", "max_body", "max_bytes")

    def __init__(self, max_bytes: int, *, max_body: int = MAX_BODY_BYTES) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self.max_body = max_body
        #: States forgotten for good (the byte bound, or one larger than it): fetched again.
        self.forgotten = 0
        #: Of those, states of origins in a server-error streak (their clocks are lost).
        self.failing_forgotten = 0
        self._used = 0
        self._data: OrderedDict[str, tuple[bytes, bool]] = OrderedDict()

    def put(self, origin: str, state: OriginState) -> None:
        """Keep ``state`` (one the in-memory store forgot), forgetting the oldest beyond the
        bound."""
        failing = state.kind is Kind.SERVER_ERROR
        if not self.max_bytes:
            self._forget(failing)
            return
        self.discard(origin)
        data = encode(state)
        cost = _cost(origin, data)
        if cost > self.max_bytes:
            self._forget(failing)
            return
        self._data[origin] = (data, failing)
        self._used += cost
        while self._used > self.max_bytes:
            oldest, (old, old_failing) = self._data.popitem(last=False)
            self._used -= _cost(oldest, old)
            self._forget(old_failing)

    def take(self, origin: str) -> OriginState | None:
        """The state of ``origin``, removed from this tier (None: never kept, or forgotten)."""
        entry = self._data.pop(origin, None)
        if entry is None:
            return None
        self._used -= _cost(origin, entry[0])
        return decode(entry[0], max_bytes=self.max_body)

    def discard(self, origin: str) -> None:
        """Drop an older copy (a newer state of ``origin`` is being kept in memory)."""
        entry = self._data.pop(origin, None)
        if entry is not None:
            self._used -= _cost(origin, entry[0])

    def _forget(self, failing: bool) -> None:
        self.forgotten += 1
        if failing:
            self.failing_forgotten += 1

    @property
    def used(self) -> int:
        """Bytes held, as counted against ``max_bytes``."""
        return self._used

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, origin: object) -> bool:
        return origin in self._data


def _cost(origin: str, data: bytes) -> int:
    return len(origin) + len(data) + ENTRY_OVERHEAD
