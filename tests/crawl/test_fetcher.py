"""The fetcher without a crawl: a scripted downloader, Scrapy's own stats collector.

One robots.txt fetch: redirects followed by the fetcher itself, immediate retries, any
exception read as a server error, and with a persistent store the fleet's side (a fresh
stored state instead of a download, another process holding the fetch lock).
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from scrapy import Spider
from scrapy.http import Request, Response, TextResponse
from scrapy.utils.test import get_crawler
from twisted.internet.error import TimeoutError as TxTimeoutError

from scrapy_gbot_robots._meta import DONT_OBEY, FETCH_META
from scrapy_gbot_robots._settings import Config, load
from scrapy_gbot_robots.crawl.fetcher import Fetcher
from scrapy_gbot_robots.crawl.gate import Gate
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.parking.memory import MemoryLot
from scrapy_gbot_robots.policy.states import Kind
from scrapy_gbot_robots.stores.base import PersistentStore
from scrapy_gbot_robots.stores.memory import MemoryStore
from scrapy_gbot_robots.stores.sqlite import SqliteStore
from scrapy_gbot_robots.stores.tiered import TieredStore

ORIGIN = "http://a.test"
ROBOTS = ORIGIN + "/robots.txt"
RULES = b"User-agent: *\nDisallow: /private\n"
NOW = 1_700_000_000.0
R = TypeVar("R")


class Scripted:
    """A downloader answering each URL from a script, in order; what was asked is kept."""

    def __init__(self, script: dict[str, list[Response | Exception]]) -> None:
        self.script = script
        self.asked: list[Request] = []

    async def download(self, request: Request) -> Response:
        self.asked.append(request)
        answer = self.script[request.url].pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def ok(url: str = ROBOTS, body: bytes = RULES, status: int = 200, **headers: str) -> Response:
    return TextResponse(url, status=status, body=body, headers=headers, encoding="utf-8")


def moved(url: str, to: str, status: int = 301) -> Response:
    return Response(url, status=status, headers={"Location": to})


def run(coro: Coroutine[Any, Any, R]) -> R:
    """Drive a coroutine whose awaits never suspend (the scripted downloader answers at once)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise AssertionError("the coroutine suspended")


class Done:
    """The gate's side: which fetches ended, and whether a recheck was asked for."""

    def __init__(self) -> None:
        self.ended: list[tuple[str, float | None]] = []
        self.closing = False  # Gate.closing: the crawl closes
        self.close_deadline: float | None = None

    def fetch_done(self, origin: str, now: float, *, recheck_at: float | None = None) -> None:
        self.ended.append((origin, recheck_at))

    def peek(self, origin: str) -> object:
        return None


def fetcher_for(
    downloader: Scripted, persistent: PersistentStore | None = None, **settings: Any
) -> tuple[Fetcher, Any, Done]:
    values = {"GBOT_ROBOTS_CLOCK": lambda: NOW, **settings}
    config: Config = load(values.get)
    crawler = get_crawler(Spider)
    store = TieredStore(MemoryStore(10), persistent)
    telemetry = Telemetry(crawler, None, debug=False)
    fetcher = Fetcher(config, store, downloader, telemetry, token="bot", lock_ttl=60.0)
    done = Done()
    gate: Any = done
    fetcher.gate = gate
    return fetcher, crawler.stats, done


def test_redirects_are_followed_by_the_fetcher_and_counted_per_hop() -> None:
    other = "https://b.test/robots.txt"
    downloader = Scripted(
        {
            ROBOTS: [moved(ROBOTS, "/r2", 301)],
            ORIGIN + "/r2": [moved(ORIGIN + "/r2", other, 302)],
            other: [ok(other)],
        }
    )
    fetcher, stats, done = fetcher_for(downloader)
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.RULES and state.robots is not None
    assert state.robots.body == RULES
    assert [r.url for r in downloader.asked] == [ROBOTS, ORIGIN + "/r2", other]
    assert stats.get_value("robotstxt/request_count") == 3
    assert stats.get_value("robotstxt/response_status_count/301") == 1
    assert stats.get_value("robotstxt/response_status_count/302") == 1
    assert stats.get_value("robotstxt/origin_state/rules") == 1
    assert done.ended == [(ORIGIN, None)]


def test_the_robots_request_opts_out_of_what_would_change_its_meaning() -> None:
    downloader = Scripted({ROBOTS: [ok()]})
    fetcher, _, _ = fetcher_for(downloader, GBOT_ROBOTS_DOWNLOAD_TIMEOUT=7)
    run(fetcher.fetch(ORIGIN))
    meta = downloader.asked[0].meta
    assert meta[DONT_OBEY] and meta[FETCH_META] == ORIGIN and meta["dont_redirect"]
    assert meta["dont_retry"] and meta["handle_httpstatus_all"]
    assert meta["download_timeout"] == 7 and meta["download_maxsize"] == 0
    assert downloader.asked[0].dont_filter


def test_while_the_crawl_closes_no_retry_at_once_and_no_download_past_the_deadline() -> None:
    """A close lasts at most the park timeout: a fetch started then ends by its deadline."""
    downloader = Scripted({ROBOTS: [ok(status=503, body=b""), ok()]})
    fetcher, stats, done = fetcher_for(downloader, GBOT_ROBOTS_DOWNLOAD_TIMEOUT=30)
    done.closing, done.close_deadline = True, NOW + 4.0
    run(fetcher.fetch(ORIGIN))
    assert [r.meta["download_timeout"] for r in downloader.asked] == [4.0]
    assert stats.get_value("robotstxt/fetch_retry") is None
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    done.close_deadline = NOW - 10.0  # past: one more second, never none or negative
    assert fetcher.request(ROBOTS, ORIGIN).meta["download_timeout"] == 1.0


def test_a_server_error_is_retried_at_once_within_the_budget() -> None:
    downloader = Scripted({ROBOTS: [ok(status=503, body=b""), ok()]})
    fetcher, stats, _ = fetcher_for(downloader)
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.RULES
    assert stats.get_value("robotstxt/fetch_retry") == 1
    assert stats.get_value("robotstxt/origin_state/server_error") is None


def test_any_exception_is_a_server_error_never_no_restrictions() -> None:
    downloader = Scripted({ROBOTS: [ConnectionResetError(), ConnectionResetError()]})
    fetcher, stats, done = fetcher_for(downloader)
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    assert state.reason == "ConnectionResetError"
    assert stats.get_value("robotstxt/exception_count/<class 'ConnectionResetError'>") == 2
    assert stats.get_value("robotstxt/server_error") == 1
    assert done.ended == [(ORIGIN, None)]  # reported back exactly once


TIMEOUT: Exception = TxTimeoutError()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("error", [TIMEOUT, ConnectionRefusedError()])
def test_a_timeout_or_an_unreachable_host_waits_for_the_backoff_not_retried_at_once(
    error: Exception,
) -> None:
    """Issue 19: retrying a dead host at once held its slot of the budget twice as long."""
    downloader = Scripted({ROBOTS: [error, ok()]})
    fetcher, stats, _ = fetcher_for(downloader, GBOT_ROBOTS_RETRY_TIMES=2)
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    assert len(downloader.asked) == 1 and stats.get_value("robotstxt/fetch_retry") is None
    assert state.refresh_at - NOW == 60.0  # the backoff retries it


def test_a_redirect_chain_past_the_limit_means_no_restrictions() -> None:
    hops: dict[str, list[Response | Exception]] = {
        f"{ORIGIN}/r{i}": [moved(f"{ORIGIN}/r{i}", f"/r{i + 1}")] for i in range(1, 7)
    }
    downloader = Scripted({ROBOTS: [moved(ROBOTS, "/r1")], **hops})
    fetcher, _, _ = fetcher_for(downloader)
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.ALLOW_ALL and state.reason == "redirect limit"
    assert len(downloader.asked) == 6  # the first request and 5 hops


class Shared:
    """A store shared with other processes that only a round trip can read, as Redis is."""

    name = "shared"
    default_lock_ttl: float | None = 30.0
    last_error: str | None = None

    def __init__(self, written: dict[str, Any]) -> None:
        self.written = written

    def get_now(self, origin: str) -> Any:
        return None  # no round trip on the hot path

    def put_soon(self, origin: str, state: Any) -> None:
        self.written[origin] = state

    async def load(self, origin: str) -> Any:
        return self.written.get(origin)

    async def acquire(self, origin: str, ttl: float) -> bool:
        return True

    async def release(self, origin: str) -> None:
        pass

    def prune(self, now: float, keep: float) -> int:
        return 0

    def counters(self) -> dict[str, int]:
        return {}

    def close(self) -> None:
        pass


def test_a_fresh_stored_state_is_adopted_instead_of_fetched() -> None:
    written: dict[str, Any] = {}
    writer, _, _ = fetcher_for(Scripted({ROBOTS: [ok()]}), Shared(written))
    run(writer.fetch(ORIGIN))  # another process fetched and stored it
    downloader = Scripted({})
    fetcher, stats, done = fetcher_for(downloader, Shared(written))
    run(fetcher.fetch(ORIGIN))
    assert downloader.asked == []
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.RULES
    assert stats.get_value("robotstxt/cache/stored") == 1
    assert done.ended == [(ORIGIN, None)]


def test_a_lock_held_elsewhere_asks_the_gate_to_look_again(tmp_path: Path) -> None:
    db = str(tmp_path / "robots.sqlite3")
    holder = SqliteStore(db)
    assert run(holder.acquire(ORIGIN, 60.0))
    downloader = Scripted({})
    fetcher, stats, done = fetcher_for(downloader, SqliteStore(db))
    run(fetcher.fetch(ORIGIN))
    assert downloader.asked == [] and fetcher.store.get(ORIGIN) is None
    assert stats.get_value("robotstxt/lock/waited") == 1
    assert done.ended == [(ORIGIN, NOW + 1.0)]  # no state, no backoff: a recheck


def test_a_bug_while_deciding_still_reports_back_and_stores_a_server_error() -> None:
    class Broken(Scripted):
        async def download(self, request: Request) -> Response:
            return "not a response"  # type: ignore[return-value]

    fetcher, _, done = fetcher_for(Broken({}))
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    assert done.ended == [(ORIGIN, None)]


@pytest.mark.parametrize("closing", [False, True])
def test_no_immediate_retry_once_the_spider_closes(closing: bool) -> None:
    downloader = Scripted({ROBOTS: [ok(status=503, body=b""), ok()]})
    fetcher, _, _ = fetcher_for(downloader)
    fetcher.closing = closing
    run(fetcher.fetch(ORIGIN))
    assert len(downloader.asked) == (1 if closing else 2)


def test_the_gate_hears_of_the_fetch_through_its_own_interface() -> None:
    store = TieredStore(MemoryStore(10))
    downloader = Scripted({ROBOTS: [ok()]})
    fetcher, _, _ = fetcher_for(downloader)
    fetcher.store = store

    class Actions:
        def __init__(self) -> None:
            self.released: list[str] = []

        def fetch(self, origin: str, why: str) -> None:
            pass

        def release(self, origin: str, items: Any) -> None:
            self.released.extend(items)

        def drop(self, origin: str, items: Any, reason: str) -> None:
            raise AssertionError("nothing is dropped")

        def accepting(self) -> bool:
            return True

    actions = Actions()
    gate: Gate[str] = Gate(
        store, fetcher.policy, MemoryLot(), actions, park_timeout=60, max_fetches=1
    )
    fetcher.gate = gate
    assert gate.schedule(ORIGIN, "page", NOW) is not None  # parked, fetch wanted
    run(fetcher.fetch(ORIGIN))
    assert actions.released == ["page"] and not gate.busy
