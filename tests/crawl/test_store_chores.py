"""The store's side of each tick (``crawl/store_chores.py``): the hot path's counts flushed,
the components' counters copied, and ``GBOT_ROBOTS_STORE_KEEP``'s pruning at the open and
every hour after. A real SQLite store, Scrapy's real stats."""

from __future__ import annotations

from pathlib import Path

from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_gbot_robots._settings import load
from scrapy_gbot_robots.crawl.store_chores import PRUNE_EVERY, StoreChores
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import PolicyConfig
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.sqlite import SqliteStore
from scrapy_gbot_robots.stores.tiered import TieredStore

DAY = 86_400.0


def test_old_states_are_pruned_at_the_open_and_every_hour_and_counts_flushed(
    tmp_path: Path,
) -> None:
    crawler = get_crawler(Spider)
    telemetry = Telemetry(crawler, None, debug=False, diagnostic=True)  # store/* are read
    persistent = SqliteStore(str(tmp_path / "robots.sqlite3"))
    store = TieredStore(MemoryStore(10), persistent)
    state = evaluate(FetchResult(status=404), 0.0, None, PolicyConfig())
    store.put("http://old.test", state)
    persistent.close()
    persistent = SqliteStore(str(tmp_path / "robots.sqlite3"))  # what it wrote, read back
    store = TieredStore(MemoryStore(10), persistent)
    keep = 60 * DAY  # at least the grace period and the longest max-age (the setting's rule)
    values = {"GBOT_ROBOTS_STORE_KEEP": keep}
    chores = StoreChores(load(values.get), store, telemetry.requests, telemetry.run)
    stats = crawler.stats
    start = keep + DAY
    chores.opened(start)  # fetched longer ago than that: forgotten
    assert stats.get_value("robotstxt/store/pruned") == 1
    assert persistent.get_now("http://old.test") is None
    telemetry.requests.hits += 5  # the hot path counts in a plain int
    chores.tick(start + 1.0, MemoryLot())
    assert stats.get_value("robotstxt/store/hit") == 5
    persistent.put_soon("http://old.test", state)
    chores.tick(start + PRUNE_EVERY - 1.0, MemoryLot())
    assert stats.get_value("robotstxt/store/pruned") == 1  # not an hour yet
    chores.tick(start + PRUNE_EVERY, MemoryLot())
    assert stats.get_value("robotstxt/store/pruned") == 2
    persistent.close()


def test_without_keep_nothing_is_pruned() -> None:
    crawler = get_crawler(Spider)
    telemetry = Telemetry(crawler, None, debug=False)
    no_settings: dict[str, object] = {}
    chores = StoreChores(
        load(no_settings.get), TieredStore(MemoryStore(5)), telemetry.requests, telemetry.run
    )
    chores.opened(0.0)
    chores.tick(10 * PRUNE_EVERY, MemoryLot())
    assert crawler.stats.get_value("robotstxt/store/pruned") is None
