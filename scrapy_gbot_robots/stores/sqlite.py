"""The SQLite store: every origin's robots.txt state in one file, across restarts.

Standard library only. The in-memory LRU stays in front of it (see ``TieredStore``), so a
check never waits on the file; the file is read when the LRU forgot an origin and written
once per robots.txt fetch. Entries use the ``stores/entry.py`` format (no pickles), one row per
origin, and a write never replaces a newer entry: two crawl processes on one machine may
share the file (WAL mode, a busy timeout), and a fetch lock row per origin keeps them from
fetching the same robots.txt twice at once.

Problems with the file are reported when it is opened (``SqliteError`` names the path and
what is wrong: locked, read-only, not a database), never as a silent loss of the history.
A write that fails later (disk full) is logged by the caller and the crawl goes on from
memory. Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid

from ..engine.lines import MAX_BODY_BYTES
from ..policy.states import OriginState
from .entry import MAGIC, decode, encode

_SCHEMA = """
CREATE TABLE IF NOT EXISTS robots (
    origin TEXT PRIMARY KEY,
    fetched_at REAL NOT NULL,
    entry BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS locks (
    origin TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires REAL NOT NULL
);
"""


class SqliteError(Exception):
    """The SQLite file cannot be used; the message says which file and why."""


class SqliteStore:
    """Origin states in one SQLite file; see the module docstring."""

    #: No renewal: a lock lives long enough for the slowest fetch (see the crawl's wiring).
    default_lock_ttl: float | None = None

    def __init__(self, path: str, *, max_bytes: int = MAX_BODY_BYTES, busy_timeout: float = 5.0):
        self.path = path
        self.name = f"sqlite://{path}"
        self.max_bytes = max_bytes
        self.holder = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.write_errors = 0
        self.last_error: str | None = None
        directory = os.path.dirname(path)
        db: sqlite3.Connection | None = None
        try:
            if directory:
                os.makedirs(directory, exist_ok=True)
            self._db = db = sqlite3.connect(
                path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            # Prove now that we may write: a read-only or locked file must fail at start.
            # A real write, since SQLite turns BEGIN IMMEDIATE on a read-only file into a read.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO locks (origin, holder, expires) VALUES ('', '', 0)"
                )
            finally:
                self._db.execute("ROLLBACK")
            self._db.execute("SELECT COUNT(*) FROM robots").fetchone()
        except (sqlite3.Error, OSError) as exc:
            if db is not None:
                db.close()
            raise SqliteError(f"cannot use {path!r} as the robots.txt cache: {exc}") from exc

    # -- the PersistentStore protocol ----------------------------------------------------
    def get_now(self, origin: str) -> OriginState | None:
        try:
            row = self._db.execute(
                "SELECT entry FROM robots WHERE origin = ?", (origin,)
            ).fetchone()
        except sqlite3.Error as exc:
            self._failed(exc)
            return None
        if row is None:
            return None
        return decode(row[0], max_bytes=self.max_bytes)

    def put_soon(self, origin: str, state: OriginState) -> None:
        try:
            self._db.execute(
                "INSERT INTO robots (origin, fetched_at, entry) VALUES (?, ?, ?) "
                "ON CONFLICT (origin) DO UPDATE SET fetched_at = excluded.fetched_at, "
                "entry = excluded.entry WHERE excluded.fetched_at >= robots.fetched_at "
                # A row that is not ours (damaged) must not block updates; a later version's
                # row has our magic, so its time is compared like any other.
                "OR substr(robots.entry, 1, 3) != ?",
                (origin, state.fetched_at, encode(state), MAGIC),
            )
        except sqlite3.Error as exc:
            self._failed(exc)

    async def load(self, origin: str) -> OriginState | None:
        return self.get_now(origin)

    async def acquire(self, origin: str, ttl: float) -> bool:
        now = time.time()
        try:
            cursor = self._db.execute(
                "INSERT INTO locks (origin, holder, expires) VALUES (?, ?, ?) "
                "ON CONFLICT (origin) DO UPDATE SET holder = excluded.holder, "
                "expires = excluded.expires WHERE locks.expires <= ? OR locks.holder = ?",
                (origin, self.holder, now + ttl, now, self.holder),
            )
        except sqlite3.Error as exc:
            self._failed(exc)
            return True  # the file is unusable: fetch locally rather than wait for nobody
        return cursor.rowcount > 0

    async def release(self, origin: str) -> None:
        try:
            self._db.execute(
                "DELETE FROM locks WHERE origin = ? AND holder = ?", (origin, self.holder)
            )
        except sqlite3.Error as exc:
            self._failed(exc)

    def prune(self, now: float, keep: float) -> int:
        """Forget origins not fetched for ``keep`` seconds (``GBOT_ROBOTS_STORE_KEEP``)."""
        try:
            cursor = self._db.execute("DELETE FROM robots WHERE fetched_at < ?", (now - keep,))
        except sqlite3.Error as exc:
            self._failed(exc)
            return 0
        return max(0, cursor.rowcount)

    def counters(self) -> dict[str, int]:
        return {"write_errors": self.write_errors}

    def close(self) -> None:
        try:
            self._db.execute("DELETE FROM locks WHERE holder = ?", (self.holder,))
        except sqlite3.Error as exc:
            self._failed(exc)
        finally:
            self._db.close()

    # -- inspection ----------------------------------------------------------------------------
    def __len__(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM robots").fetchone()
        return int(row[0])

    def size_on_disk(self) -> int:
        """Bytes of stored entries (the rows' payloads, not SQLite's page overhead)."""
        row = self._db.execute(
            "SELECT COALESCE(SUM(LENGTH(entry) + LENGTH(origin) + 8), 0) FROM robots"
        ).fetchone()
        return int(row[0])

    def _failed(self, exc: Exception) -> None:
        self.write_errors += 1
        self.last_error = f"{type(exc).__name__}: {exc}"
