"""Where parked requests wait: one FIFO per origin, in memory or in an SQLite file.

Requests whose origin has no usable robots.txt decision yet wait here, outside Scrapy's
scheduler and downloader. Two lots share one interface:

- :class:`MemoryLot` keeps the objects, as Scrapy's memory queues do: 16 bytes per request
  (a list slot and a float) on top of the request itself, plus one small record per origin.
- :class:`SqliteLot` keeps them serialised in one SQLite file (under ``JOBDIR``), as Scrapy's
  disk queues do, so a paused crawl finds them again and memory does not grow with them. It
  needs a codec: ``dumps`` raises ``ValueError`` for an item it cannot serialise (such items
  stay in memory for this run only, in arrival order with the others), and ``loads`` never
  raises: for bytes it cannot read back it returns a placeholder item the owner recognises,
  so counts always match.

The order within an origin is arrival order; a lot never reorders or loses an item. Pure:
imports nothing from Scrapy or Twisted (sqlite3 is the standard library).
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


class Lot(Protocol[T]):
    """Per-origin FIFO queues of waiting items, each with the time it was parked.

    A lot may be ``shared`` between processes (a fleet's Redis): then another process may
    take or add items at any time, and counts are only this process's estimate.
    """

    shared: bool

    def push(self, origin: str, item: T, parked_at: float) -> None:
        """Append ``item`` to ``origin``'s queue."""

    def take(self, origin: str, limit: int) -> list[T]:
        """Remove and return up to ``limit`` items of ``origin``, oldest first."""

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        """Remove and return the items of ``origin`` parked at or before ``cutoff``."""

    def oldest(self, origin: str) -> float | None:
        """When the oldest item of ``origin`` was parked; None when it has none."""

    def peek(self, origin: str) -> T | None:
        """The oldest item of ``origin`` without removing it."""

    def waiting(self) -> list[tuple[str, int]]:
        """Every origin with items and its count, by the age of its oldest item."""

    def __len__(self) -> int:
        """Items in the lot."""

    def flush(self) -> None:
        """Make pushed and taken items durable (a no-op in memory)."""

    def close(self, persist: bool) -> list[tuple[str, T]]:
        """Shut the lot; return the items it could not keep (all of them unless persisted)."""


class _Queue(Generic[T]):
    __slots__ = ("items", "seqs", "times")

    def __init__(self) -> None:
        self.items: list[T] = []
        self.times = array("d")
        self.seqs = array("q")


class MemoryLot(Generic[T]):
    """Parked items kept as objects: the lot of a crawl without ``JOBDIR``."""

    shared = False

    def __init__(self) -> None:
        self._queues: dict[str, _Queue[T]] = {}
        self._count = 0
        self._seq = 0

    def push(self, origin: str, item: T, parked_at: float, seq: int | None = None) -> None:
        queue = self._queues.get(origin)
        if queue is None:
            queue = self._queues[origin] = _Queue()
        queue.items.append(item)
        queue.times.append(parked_at)
        if seq is None:
            self._seq += 1
            seq = self._seq
        queue.seqs.append(seq)
        self._count += 1

    def _cut(self, origin: str, queue: _Queue[T], n: int) -> list[T]:
        taken = queue.items[:n]
        del queue.items[:n], queue.times[:n], queue.seqs[:n]
        self._count -= n
        if not queue.items:
            del self._queues[origin]
        return taken

    def take(self, origin: str, limit: int) -> list[T]:
        queue = self._queues.get(origin)
        if queue is None:
            return []
        return self._cut(origin, queue, min(limit, len(queue.items)))

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        queue = self._queues.get(origin)
        if queue is None:
            return []
        times = queue.times
        n = 0
        while n < len(times) and times[n] <= cutoff:
            n += 1
        return self._cut(origin, queue, n) if n else []

    def oldest(self, origin: str) -> float | None:
        queue = self._queues.get(origin)
        return queue.times[0] if queue is not None else None

    def drain(self, origin: str) -> list[tuple[float, T]]:
        """Every item of ``origin`` with its park time, oldest first, in one cut."""
        queue = self._queues.pop(origin, None)
        if queue is None:
            return []
        self._count -= len(queue.items)
        return list(zip(queue.times, queue.items, strict=True))

    def oldest_seq(self, origin: str) -> int | None:
        queue = self._queues.get(origin)
        return queue.seqs[0] if queue is not None else None

    def peek(self, origin: str) -> T | None:
        queue = self._queues.get(origin)
        return queue.items[0] if queue is not None else None

    def waiting(self) -> list[tuple[str, int]]:
        ordered = sorted(self._queues.items(), key=lambda kv: kv[1].seqs[0])
        return [(origin, len(queue.items)) for origin, queue in ordered]

    def __len__(self) -> int:
        return self._count

    def flush(self) -> None:
        return None

    def close(self, persist: bool) -> list[tuple[str, T]]:
        left = [(origin, item) for origin, queue in self._queues.items() for item in queue.items]
        self._queues.clear()
        self._count = 0
        return left


_SCHEMA = """
CREATE TABLE IF NOT EXISTS parked (
    seq INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    parked_at REAL NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS parked_origin ON parked (origin, seq);
"""


class SqliteLot(Generic[T]):
    """Parked items serialised into one SQLite file: durable across a pause, off the heap.

    Writes are grouped into one transaction per :meth:`flush` (the middleware flushes on its
    housekeeping tick and at close), so parking costs a serialisation and an insert, not a
    disk sync. Items the codec refuses stay in memory and are returned by :meth:`close`.
    """

    shared = False

    def __init__(self, path: str, dumps: Callable[[T], bytes], loads: Callable[[bytes], T]) -> None:
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self.path = path
        self._dumps = dumps
        self._loads = loads
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._in_tx = False
        row = self._db.execute("SELECT COALESCE(MAX(seq), 0), COUNT(*) FROM parked").fetchone()
        self._seq: int = row[0]
        self._stored: int = row[1]
        self._memory: MemoryLot[T] = MemoryLot()  # items the codec could not serialise
        self.unserialisable = 0

    # -- writing ----------------------------------------------------------------------------
    def _begin(self) -> None:
        if not self._in_tx:
            self._db.execute("BEGIN")
            self._in_tx = True

    def push(self, origin: str, item: T, parked_at: float) -> None:
        self._seq += 1
        try:
            data = self._dumps(item)
        except ValueError:
            self.unserialisable += 1
            self._memory.push(origin, item, parked_at, seq=self._seq)
            return
        self._begin()
        self._db.execute(
            "INSERT INTO parked (seq, origin, parked_at, data) VALUES (?, ?, ?, ?)",
            (self._seq, origin, parked_at, data),
        )
        self._stored += 1

    def _delete_upto(self, origin: str, last_seq: int) -> None:
        self._begin()
        cursor = self._db.execute(
            "DELETE FROM parked WHERE origin = ? AND seq <= ?", (origin, last_seq)
        )
        self._stored -= cursor.rowcount

    def _rows(self, origin: str, limit: int) -> list[tuple[int, bytes]]:
        return self._db.execute(
            "SELECT seq, data FROM parked WHERE origin = ? ORDER BY seq LIMIT ?",
            (origin, limit),
        ).fetchall()

    def take(self, origin: str, limit: int) -> list[T]:
        rows = self._rows(origin, limit)
        out: list[T] = []
        i = 0
        last_row: int | None = None
        memory = self._memory
        while len(out) < limit:
            memory_seq = memory.oldest_seq(origin)
            if i < len(rows) and (memory_seq is None or rows[i][0] < memory_seq):
                last_row = rows[i][0]
                out.append(self._loads(rows[i][1]))
                i += 1
            elif memory_seq is not None:
                out.extend(memory.take(origin, 1))
            else:
                break
        if last_row is not None:
            self._delete_upto(origin, last_row)
        return out

    def take_parked_before(self, origin: str, cutoff: float) -> list[T]:
        rows = self._db.execute(
            "SELECT seq, data FROM parked WHERE origin = ? AND parked_at <= ? ORDER BY seq",
            (origin, cutoff),
        ).fetchall()
        memory = self._memory.take_parked_before(origin, cutoff)
        if rows:  # only the rows read: one parked later may sit between them (a clock step)
            self._begin()
            cursor = self._db.execute(
                "DELETE FROM parked WHERE origin = ? AND seq <= ? AND parked_at <= ?",
                (origin, rows[-1][0], cutoff),
            )
            self._stored -= cursor.rowcount
        return [self._loads(data) for _, data in rows] + memory

    # -- reading ----------------------------------------------------------------------------
    def oldest(self, origin: str) -> float | None:
        row = self._db.execute(
            "SELECT parked_at FROM parked WHERE origin = ? ORDER BY seq LIMIT 1", (origin,)
        ).fetchone()
        stored = None if row is None else float(row[0])
        memory = self._memory.oldest(origin)
        if stored is None:
            return memory
        return stored if memory is None else min(stored, memory)

    def peek(self, origin: str) -> T | None:
        row = self._db.execute(
            "SELECT seq, data FROM parked WHERE origin = ? ORDER BY seq LIMIT 1", (origin,)
        ).fetchone()
        memory_seq = self._memory.oldest_seq(origin)
        if row is None or (memory_seq is not None and memory_seq < row[0]):
            return self._memory.peek(origin)
        return self._loads(row[1])

    def waiting(self) -> list[tuple[str, int]]:
        rows = self._db.execute(
            "SELECT origin, MIN(seq), COUNT(*) FROM parked GROUP BY origin"
        ).fetchall()
        first: dict[str, tuple[int, int]] = {origin: (seq, n) for origin, seq, n in rows}
        for origin, n in self._memory.waiting():
            seq = self._memory.oldest_seq(origin) or 0
            old = first.get(origin)
            first[origin] = (min(seq, old[0]), old[1] + n) if old else (seq, n)
        return [(o, n) for o, (_, n) in sorted(first.items(), key=lambda kv: kv[1][0])]

    def __len__(self) -> int:
        return self._stored + len(self._memory)

    # -- durability -------------------------------------------------------------------------
    def flush(self) -> None:
        if self._in_tx:
            self._db.execute("COMMIT")
            self._in_tx = False

    def close(self, persist: bool) -> list[tuple[str, T]]:
        left = self._memory.close(persist)
        if not persist:
            rows = self._db.execute("SELECT origin, data FROM parked ORDER BY seq").fetchall()
            left = [(origin, self._loads(data)) for origin, data in rows] + left
            self._begin()
            self._db.execute("DELETE FROM parked")
            self._stored = 0
        self.flush()
        self._db.close()
        return left
