"""The fetcher without a crawl: a scripted downloader, Scrapy's own stats collector.

One robots.txt fetch: redirects followed by the fetcher itself, immediate retries, any
exception read as a server error, the route of the request that wanted it, the close
(nothing recorded for a fetch the close cut), and with a persistent store the fleet's side
(a fresh stored state instead of a download, another process holding the fetch lock). The
fetcher returns what happened (an ``Outcome``) and knows nothing of the gate.
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
from scrapy import Spider
from scrapy.http import Headers, Request, Response, TextResponse
from scrapy.utils.test import get_crawler
from twisted.internet.error import TimeoutError as TxTimeoutError

from scrapy_gbot_robots._meta import DONT_OBEY, FETCH_META
from scrapy_gbot_robots._settings import Config, load
from scrapy_gbot_robots.crawl.lifecycle import Lifecycle
from scrapy_gbot_robots.crawl.robots_fetch import Fetcher, Outcome
from scrapy_gbot_robots.crawl.route import route_of
from scrapy_gbot_robots.crawl.telemetry import Telemetry
from scrapy_gbot_robots.policy.fetch import FetchResult, evaluate
from scrapy_gbot_robots.policy.states import Kind, OriginState
from scrapy_gbot_robots.stores.base import PersistentStore
from scrapy_gbot_robots.stores.entry import encode
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


class Engine:
    """The engine's side of the lifecycle: whether it still takes requests."""

    def __init__(self) -> None:
        self.open = True

    def accepts(self) -> bool:
        return self.open


def fetcher_for(
    downloader: Scripted,
    persistent: PersistentStore | None = None,
    *,
    bounded_body: bool = True,
    revalidate: bool = True,
    **settings: Any,
) -> tuple[Fetcher, Any, Lifecycle, Engine]:
    values = {"GBOT_ROBOTS_CLOCK": lambda: NOW, **settings}
    config: Config = load(values.get)
    crawler = get_crawler(Spider)
    store = TieredStore(MemoryStore(10), persistent)
    telemetry = Telemetry(crawler, None, debug=False, diagnostic=True).fetches
    engine = Engine()
    lifecycle = Lifecycle(engine.accepts, clock=lambda: NOW)
    fetcher = Fetcher(
        config,
        store,
        downloader,
        telemetry,
        lifecycle,
        lock_ttl=60.0,
        bounded_body=bounded_body,
        revalidate=revalidate,
    )
    return fetcher, crawler.stats, lifecycle, engine


def test_redirects_are_followed_by_the_fetcher_and_counted_per_hop() -> None:
    other = "https://b.test/robots.txt"
    downloader = Scripted(
        {
            ROBOTS: [moved(ROBOTS, "/r2", 301)],
            ORIGIN + "/r2": [moved(ORIGIN + "/r2", other, 302)],
            other: [ok(other)],
        }
    )
    fetcher, stats, _, _ = fetcher_for(downloader)
    outcome = run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.RULES and state.robots is not None
    assert state.robots.body == RULES
    assert outcome == Outcome(state, None, "fetch")
    assert [r.url for r in downloader.asked] == [ROBOTS, ORIGIN + "/r2", other]
    assert stats.get_value("robotstxt/request_count") == 3
    assert stats.get_value("robotstxt/response_status_count/301") == 1
    assert stats.get_value("robotstxt/response_status_count/302") == 1


def test_the_robots_request_opts_out_of_what_would_change_its_meaning() -> None:
    downloader = Scripted({ROBOTS: [ok()]})
    fetcher, _, _, _ = fetcher_for(downloader, GBOT_ROBOTS_DOWNLOAD_TIMEOUT=7)
    run(fetcher.fetch(ORIGIN))
    meta = downloader.asked[0].meta
    assert meta[DONT_OBEY] and meta[FETCH_META] == ORIGIN and meta["dont_redirect"]
    assert meta["dont_retry"] and meta["handle_httpstatus_all"]
    assert meta["download_timeout"] == 7 and meta["download_maxsize"] == 0
    assert downloader.asked[0].dont_filter


def test_without_the_body_middleware_scrapys_size_limit_stays_at_500_kib() -> None:
    """Issue 24, item 2: the 500 KiB bound holds whatever the install."""
    fetcher, _, _, _ = fetcher_for(Scripted({}), bounded_body=False)
    assert fetcher.request(ROBOTS, ORIGIN).meta["download_maxsize"] == 512_000
    fetcher, _, _, _ = fetcher_for(Scripted({}), bounded_body=False, GBOT_ROBOTS_MAX_BYTES=1000)
    assert fetcher.request(ROBOTS, ORIGIN).meta["download_maxsize"] == 1000


def test_the_robots_request_travels_the_way_the_request_that_wanted_it_does() -> None:
    """Issue 24, item 1: ``proxy`` and ``bindaddress`` choose the network path; nothing else
    of the page's meta comes along (its callback's state is not robots.txt's business)."""
    other = "https://b.test/robots.txt"
    downloader = Scripted({ROBOTS: [moved(ROBOTS, other)], other: [ok(other)]})
    fetcher, _, _, _ = fetcher_for(downloader)
    meta = {
        "proxy": "http://user:pw@127.0.0.1:3128",
        "bindaddress": ("127.0.0.2", 0),
        "cookiejar": 1,
    }
    headers = Headers({"Proxy-Authorization": "Basic cHJveHk6cHc=", "Authorization": "Basic x"})
    route = route_of(ORIGIN + "/page", meta, headers)
    run(fetcher.fetch(ORIGIN, route=route))
    assert len(downloader.asked) == 2
    for asked in downloader.asked:  # every hop goes the same way, through the same proxy
        assert asked.meta["proxy"] == meta["proxy"]
        assert asked.meta["bindaddress"] == meta["bindaddress"]
        assert asked.headers[b"Proxy-Authorization"] == b"Basic cHJveHk6cHc="
        assert "cookiejar" not in asked.meta
    # The site's own credentials go to its own origin only (issue 46, item 1).
    assert [r.headers.get(b"Authorization") for r in downloader.asked] == [b"Basic x", None]
    assert "pw" not in repr(route) and "cHJveHk6cHc" not in repr(route)


def test_a_route_with_http_auth_meta_keeps_it_to_the_origins_host_and_port() -> None:
    """Scrapy sends ``http_user``/``http_pass`` without a domain to every URL: the robots.txt
    request names the origin's, so a redirect elsewhere carries none."""
    route = route_of("http://A.test:8080/p", {"http_user": "u", "http_pass": "p"}, Headers())
    domain = {"http_auth_domain": "a.test:8080"}
    assert dict(route.meta) == {"http_user": "u", "http_pass": "p", **domain}
    given = {"http_user": "u", "http_pass": "p", "http_auth_domain": "test"}
    assert route_of("http://a.test/p", given, Headers()).meta["http_auth_domain"] == "test"
    assert "http_user" not in route_of("http://a.test/p", {"http_auth_domain": "x"}, None).meta


def test_while_the_crawl_closes_no_retry_at_once_and_no_download_past_the_deadline() -> None:
    """A close lasts at most the park timeout: a fetch a download waits for (``proceed``
    stays True) ends by the close's deadline, with no immediate retry."""
    downloader = Scripted({ROBOTS: [ok(status=503, body=b""), ok()]})
    fetcher, stats, _, engine = fetcher_for(downloader, GBOT_ROBOTS_DOWNLOAD_TIMEOUT=30)
    engine.open = False
    run(fetcher.fetch(ORIGIN, deadline=lambda: NOW + 4.0))
    assert [r.meta["download_timeout"] for r in downloader.asked] == [4.0]
    assert stats.get_value("robotstxt/fetch_retry") is None
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    # A deadline already past: one more second, never none or negative.
    assert fetcher.request(ROBOTS, ORIGIN, deadline=NOW - 10.0).meta["download_timeout"] == 1.0


def test_a_redirect_hop_after_the_close_began_is_not_sent_and_nothing_is_recorded() -> None:
    """Issue 23, defect 1: hop 1 was the last download in flight; the engine closed after it.
    Hop 2 must not start (``AlreadyCalledError`` in Scrapy's engine), and a robots.txt served
    correctly must not be stored as a server error."""
    downloader = Scripted({ROBOTS: [moved(ROBOTS, "/r2")], ORIGIN + "/r2": [ok()]})
    fetcher, stats, _, _ = fetcher_for(downloader)
    allowed = iter([True])  # the first download may go; then the close has begun

    outcome = run(fetcher.fetch(ORIGIN, proceed=lambda: next(allowed, False)))
    assert outcome.cut and outcome.state is None
    assert [r.url for r in downloader.asked] == [ROBOTS]
    assert fetcher.store.get(ORIGIN) is None
    assert stats.get_value("robotstxt/request_count") == 1
    assert not any(k.startswith("robotstxt/exception_count") for k in stats.get_stats())


def test_a_download_under_way_when_the_close_began_is_the_servers_to_answer() -> None:
    """The engine waits for it: a timeout is the server's outcome, recorded as usual."""
    downloader = Scripted({ROBOTS: [TIMEOUT]})
    fetcher, _, _, _ = fetcher_for(downloader)
    answers = iter([True])  # the close began while the download was under way
    outcome = run(fetcher.fetch(ORIGIN, proceed=lambda: next(answers, False)))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR and outcome.state is state


def test_once_the_crawl_is_closed_nothing_is_stored() -> None:
    """Issue 23, defect 5: a fetch still running after the close's wait writes nothing."""

    class Late(Scripted):
        async def download(self, request: Request) -> Response:
            lifecycle.close()  # the close's wait ran out while this download was under way
            return await super().download(request)

    downloader = Late({ROBOTS: [ok()]})
    fetcher, _, lifecycle, _ = fetcher_for(downloader)
    outcome = run(fetcher.fetch(ORIGIN))
    assert outcome.cut and fetcher.store.get(ORIGIN) is None


def test_a_server_error_is_retried_at_once_within_the_budget() -> None:
    downloader = Scripted({ROBOTS: [ok(status=503, body=b""), ok()]})
    fetcher, stats, _, _ = fetcher_for(downloader)
    run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.RULES
    assert stats.get_value("robotstxt/fetch_retry") == 1


def test_any_exception_is_a_server_error_never_no_restrictions() -> None:
    downloader = Scripted({ROBOTS: [ConnectionResetError(), ConnectionResetError()]})
    fetcher, stats, _, _ = fetcher_for(downloader)
    outcome = run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    assert state.reason == "ConnectionResetError"
    assert stats.get_value("robotstxt/exception_count/<class 'ConnectionResetError'>") == 2
    assert outcome.state is state and not outcome.cut


TIMEOUT: Exception = TxTimeoutError()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("error", [TIMEOUT, ConnectionRefusedError()])
def test_a_timeout_or_an_unreachable_host_waits_for_the_backoff_not_retried_at_once(
    error: Exception,
) -> None:
    """Issue 19: retrying a dead host at once held its slot of the budget twice as long."""
    downloader = Scripted({ROBOTS: [error, ok()]})
    fetcher, stats, _, _ = fetcher_for(downloader, GBOT_ROBOTS_RETRY_TIMES=2)
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
    fetcher, _, _, _ = fetcher_for(downloader)
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
    writer, _, _, _ = fetcher_for(Scripted({ROBOTS: [ok()]}), Shared(written))
    run(writer.fetch(ORIGIN))  # another process fetched and stored it
    downloader = Scripted({})
    fetcher, _, _, _ = fetcher_for(downloader, Shared(written))
    outcome = run(fetcher.fetch(ORIGIN))
    assert downloader.asked == []
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.RULES
    assert outcome.state is state and outcome.source == "stored"


def test_a_fresh_state_read_back_on_the_way_in_is_used_not_fetched_again(tmp_path: Path) -> None:
    """Another crawler on the file stored the state while this one waited for the lock: the
    read-back that finds it is the state in force, not a reason to fetch once more."""
    db = str(tmp_path / "robots.sqlite3")
    writer, _, _, _ = fetcher_for(Scripted({ROBOTS: [ok()]}), SqliteStore(db))
    run(writer.fetch(ORIGIN))
    downloader = Scripted({})
    fetcher, _, _, _ = fetcher_for(downloader, SqliteStore(db))
    outcome = run(fetcher.fetch(ORIGIN))
    assert downloader.asked == []
    assert outcome.state is not None and outcome.state.kind is Kind.RULES
    assert outcome.source == "stored"


def test_a_lock_held_elsewhere_asks_the_gate_to_look_again(tmp_path: Path) -> None:
    db = str(tmp_path / "robots.sqlite3")
    holder = SqliteStore(db)
    assert run(holder.acquire(ORIGIN, 60.0))
    downloader = Scripted({})
    fetcher, stats, _, _ = fetcher_for(downloader, SqliteStore(db))
    outcome = run(fetcher.fetch(ORIGIN))
    assert downloader.asked == [] and fetcher.store.get(ORIGIN) is None
    assert stats.get_value("robotstxt/lock/waited") == 1
    assert outcome == Outcome(recheck_at=NOW + 1.0)  # no state, no backoff: a recheck


def test_a_bug_while_deciding_still_reports_back_and_stores_a_server_error() -> None:
    class Broken(Scripted):
        async def download(self, request: Request) -> Response:
            return "not a response"  # type: ignore[return-value]

    fetcher, _, _, _ = fetcher_for(Broken({}))
    outcome = run(fetcher.fetch(ORIGIN))
    state = fetcher.store.get(ORIGIN)
    assert state is not None and state.kind is Kind.SERVER_ERROR
    assert outcome.state is state


@pytest.mark.parametrize("closing", [False, True])
def test_no_immediate_retry_once_the_spider_closes(closing: bool) -> None:
    downloader = Scripted({ROBOTS: [ok(status=503, body=b""), ok()]})
    fetcher, _, _, engine = fetcher_for(downloader)
    engine.open = not closing
    run(fetcher.fetch(ORIGIN))
    assert len(downloader.asked) == (1 if closing else 2)


# -- revalidation (issue 50) ----------------------------------------------------------------


def _expired_copy(fetcher: Fetcher, etag: str = '"v1"') -> OriginState:
    """Store a copy fetched a day ago with ``etag``, now expired."""
    state = evaluate(FetchResult(200, RULES, etag=etag), NOW - 90_000, None, fetcher.policy)
    fetcher.store.put(ORIGIN, state)
    return state


def test_an_expired_copy_is_asked_for_with_its_etag_and_a_304_keeps_it() -> None:
    downloader = Scripted({ROBOTS: [ok(status=304, body=b"", **{"Cache-Control": "max-age=90"})]})
    fetcher, stats, _, _ = fetcher_for(downloader)
    copy = _expired_copy(fetcher)
    outcome = run(fetcher.fetch(ORIGIN))
    assert downloader.asked[0].headers.get(b"If-None-Match") == b'"v1"'
    state = outcome.state
    assert state is not None and state.revalidated and state.robots is copy.robots
    assert state.refresh_at == NOW + 90.0 and fetcher.store.get(ORIGIN) is state
    assert stats.get_value("robotstxt/response_status_count/304") == 1


def test_a_changed_file_answers_200_and_replaces_the_copy_and_its_validators() -> None:
    downloader = Scripted({ROBOTS: [ok(body=b"User-agent: *\nDisallow: /\n", ETag='"v2"')]})
    fetcher, _, _, _ = fetcher_for(downloader)
    _expired_copy(fetcher)
    state = run(fetcher.fetch(ORIGIN)).state
    assert state is not None and not state.revalidated and state.robots is not None
    assert not state.robots.allowed(ORIGIN + "/a", "bot")
    assert state.validators is not None and state.validators.etag == '"v2"'


def test_with_scrapys_http_cache_on_no_validator_of_ours_is_sent() -> None:
    """The HTTP cache revalidates (RFC2616 policy) or replays (the default) by itself."""
    downloader = Scripted({ROBOTS: [ok()]})
    fetcher, _, _, _ = fetcher_for(downloader, revalidate=False)
    _expired_copy(fetcher)
    run(fetcher.fetch(ORIGIN))
    assert b"If-None-Match" not in downloader.asked[0].headers


def test_a_304_to_a_request_without_validators_is_not_a_revalidation() -> None:
    downloader = Scripted({ROBOTS: [ok(status=304, body=b"")]})
    fetcher, _, _, _ = fetcher_for(downloader)
    state = run(fetcher.fetch(ORIGIN)).state
    assert b"If-None-Match" not in downloader.asked[0].headers
    assert state is not None and state.kind is Kind.ALLOW_ALL and not state.revalidated


def test_a_revalidation_the_close_cuts_stores_nothing_and_the_copy_stays() -> None:
    """The close rules of any fetch: nothing established, the expired copy still stored."""
    downloader = Scripted({ROBOTS: [ok(status=304, body=b"")]})
    fetcher, _, lifecycle, _ = fetcher_for(downloader)
    copy = _expired_copy(fetcher)
    outcome = run(fetcher.fetch(ORIGIN, proceed=lambda: False))
    assert outcome.cut and downloader.asked == [] and fetcher.store.get(ORIGIN) is copy

    class Late(Scripted):
        async def download(self, request: Request) -> Response:
            lifecycle.close()  # the close's wait ran out while the 304 was on its way
            return await super().download(request)

    late = Late({ROBOTS: [ok(status=304, body=b"")]})
    fetcher, _, lifecycle, _ = fetcher_for(late)
    copy = _expired_copy(fetcher)
    outcome = run(fetcher.fetch(ORIGIN))
    assert outcome.cut and fetcher.store.get(ORIGIN) is copy


def test_a_hostile_megabyte_etag_is_not_stored_and_the_next_refresh_is_unconditional() -> None:
    """Bounded cost: two short strings per origin at most, whatever the server sends."""
    huge = '"' + "x" * 1_000_000 + '"'
    downloader = Scripted({ROBOTS: [ok(ETag=huge), ok(status=304, body=b"")]})
    fetcher, _, _, _ = fetcher_for(downloader)
    state = run(fetcher.fetch(ORIGIN)).state
    assert state is not None and state.kind is Kind.RULES and state.validators is None
    assert len(encode(state)) < 1000
    fetcher.store.put(ORIGIN, replace(state, refresh_at=NOW - 1))  # expired
    again = run(fetcher.fetch(ORIGIN)).state
    assert b"If-None-Match" not in downloader.asked[1].headers
    assert again is not None and not again.revalidated  # a 304 to no validator: a 3xx
