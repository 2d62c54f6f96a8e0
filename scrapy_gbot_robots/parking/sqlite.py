"""Parked requests serialised into one SQLite file (under ``JOBDIR``), as Scrapy's disk
queues keep theirs: a paused crawl finds them again and memory does not grow with them.

It needs a codec (:mod:`.codec`): ``dumps`` raises ``ValueError`` for an item it cannot
serialise (such items stay in memory for this run only, in arrival order with the others),
and ``loads`` never raises: for bytes it cannot read back it returns a placeholder item the
owner recognises, so counts always match. Pure: imports nothing from Scrapy or Twisted
(sqlite3 is the standard library).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import Generic, TypeVar

from .memory import MemoryLot

T = TypeVar("T")


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

    Writes are grouped into one transaction per :meth:`flush` (crawl/gate.py flushes on each
    housekeeping tick, and :meth:`close` flushes), so parking costs a serialisation and an
    insert, not a disk sync. Items the codec refuses stay in memory and are returned by
    :meth:`close`.
    """

    shared = False

    def __init__(self, path: str, dumps: Callable[[T], bytes], loads: Callable[[bytes], T]) -> None:
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self.path = self.where = path
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

    def counters(self) -> dict[str, int]:
        return {}

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
