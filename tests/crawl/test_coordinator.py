"""The coordinator in the fast layer: Scrapy's real crawler, signals and stats, a fake engine
(as Scrapy's own robots.txt middleware tests use a mock crawler) and a downloader that
answers when the test says so.

What only the coordinator does: build the gate when the spider opens (``crawl/opener.py``),
carry out the gate's effects (fetch runs, ``crawl/fetch_runs.py``; releases and drops through
the engine, ``crawl/exits.py``; the paced release's turns, held while the engine is full),
wait in place, tell the gate a fetch ended, keep the spider open while requests wait, and
the close (bounded, nothing written after it, the report last, ``JOBDIR`` keeping what is
parked for the next run). Real crawls cover the same ground end to end (``test_close.py``,
``test_commands.py``, ``test_jobdir.py``); here each step is pinned without a network.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Spider
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Request, Response, TextResponse
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from scrapy_gbot_robots.crawl import coordinator as coordinator_module
from scrapy_gbot_robots.crawl import wiring
from scrapy_gbot_robots.crawl.coordinator import Coordinator
from scrapy_gbot_robots.stores.sqlite import SqliteStore

ORIGIN = "http://a.test"
RULES = b"User-agent: *\nDisallow: /private\n"


class Downloader:
    """The downloader as the coordinator reads it: full or not, and its bookkeeping."""

    def __init__(self) -> None:
        self.full = False
        self.active: set[Request] = set()
        self.total_concurrency = 16

    def needs_backout(self) -> bool:
        return self.full


class Engine:
    """The engine as the coordinator sees it: open or closing, and ``crawl()``."""

    def __init__(self) -> None:
        self._slot = type("Slot", (), {"closing": None, "scheduler": None, "nextcall": None})()
        self.crawled: list[Request] = []
        self.unfiltered: list[bool] = []  # each request's dont_filter when it was crawled
        self.downloader = Downloader()

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)
        self.unfiltered.append(request.dont_filter)

    def close(self) -> None:
        self._slot.closing = Deferred()


class Answers:
    """A downloader whose answers the test gives, one Deferred per request."""

    def __init__(self) -> None:
        self.pending: dict[str, list[Deferred[Response]]] = {}
        self.asked: list[str] = []

    async def download(self, request: Request) -> Response:
        self.asked.append(request.url)
        d: Deferred[Response] = Deferred()
        self.pending.setdefault(request.url, []).append(d)
        return await maybe_deferred_to_future(d)

    def answer(self, url: str, status: int = 200, body: bytes = RULES) -> None:
        self.pending[url].pop(0).callback(
            TextResponse(url, status=status, body=body, encoding="utf-8")
        )


def build(settings: dict[str, Any] | None = None) -> tuple[Coordinator, Engine, Answers, Any]:
    crawler = get_crawler(
        Spider,
        {
            "ROBOTSTXT_OBEY": True,
            "ADDONS": {"scrapy_gbot_robots.Addon": 0},
            "GBOT_ROBOTS_TICK": 0.05,
            "GBOT_ROBOTS_DIAGNOSTIC_STATS": True,  # the budget's stats are read
            **(settings or {}),
        },
    )
    crawler.spider = Spider("fast")
    engine = Engine()
    crawler.engine = engine  # type: ignore[assignment]
    answers = Answers()
    return wiring.build(crawler, answers), engine, answers, crawler


async def sleep(seconds: float) -> None:
    from twisted.internet import reactor, task

    await task.deferLater(reactor, seconds, lambda: None)


async def turn(times: int = 3) -> None:
    """Let the event loop run the calls the coordinator scheduled for its next turns."""
    for _ in range(times):
        await sleep(0.001)


async def until(condition: Any, what: str, bound: float = 5.0) -> None:
    for _ in range(int(bound / 0.01)):
        if condition():
            return
        await sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def started(coro: Any) -> asyncio.Future[Any]:
    """Run a coroutine the coordinator returned, as Scrapy's downloader would."""
    future: asyncio.Future[Any] = asyncio.ensure_future(coro)
    return future


@pytest.fixture
def short_close(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(coordinator_module, "CLOSE_WAIT", 0.2)
    yield


@pytest_twisted.ensureDeferred
async def test_a_request_parks_its_fetch_starts_and_the_decision_releases_it() -> None:
    coord, engine, answers, crawler = build()
    request = Request(ORIGIN + "/page")
    with pytest.raises(IgnoreRequest, match="parked"):
        coord.scheduled(request)
    await until(lambda: answers.asked, "the fetch")
    assert answers.asked == [ORIGIN + "/robots.txt"]
    answers.answer(ORIGIN + "/robots.txt")
    await until(lambda: engine.crawled, "the release")
    assert engine.crawled == [request]
    assert crawler.stats.get_value("robotstxt/released") == 1
    assert crawler.stats.get_value("robotstxt/origin_state/rules") == 1
    assert coord.check(request) is None  # allowed now, on the hot path
    with pytest.raises(IgnoreRequest, match="Forbidden"):
        coord.check(Request(ORIGIN + "/private/x"))


@pytest_twisted.ensureDeferred
async def test_a_shell_session_is_not_a_closing_crawl() -> None:
    """Defect 2: ``scrapy shell`` never calls ``Crawler.crawl()``; ``crawling`` stays False."""
    coord, _, answers, crawler = build()
    assert crawler.crawling is False
    waiting = coord.check(Request(ORIGIN + "/page"))  # the shell's download waits in place
    task = started(waiting)
    await until(lambda: answers.asked, "the fetch a shell download waits for")
    answers.answer(ORIGIN + "/robots.txt")
    await until(task.done, "the download to go on")
    assert task.result() is None


@pytest_twisted.ensureDeferred
async def test_a_download_waiting_in_place_fails_at_once_on_a_stopped_origin() -> None:
    """Defect 3: it waits for its origin's fetch at most, never for a retry."""
    coord, _, answers, crawler = build({"GBOT_ROBOTS_RETRY_TIMES": 0})
    task = started(coord.check(Request(ORIGIN + "/file.txt")))
    await until(lambda: answers.asked, "the fetch")
    answers.answer(ORIGIN + "/robots.txt", status=503, body=b"")
    await until(task.done, "the download to fail")
    with pytest.raises(IgnoreRequest, match="stopped"):
        task.result()
    later = started(coord.check(Request(ORIGIN + "/other.txt")))  # refused, no waiting
    await until(later.done, "the refusal")
    with pytest.raises(IgnoreRequest, match="stopped"):
        later.result()
    assert answers.asked == [ORIGIN + "/robots.txt"]  # no retry waited for
    assert crawler.stats.get_value("robotstxt/dropped") == 2


@pytest_twisted.ensureDeferred
async def test_the_close_is_bounded_and_nothing_is_written_after_it(
    tmp_path: Path, short_close: None
) -> None:
    """Defect 5: a fetch still running when the close's wait runs out used to write its
    state to a store already closed, after the report was written."""
    db = tmp_path / "robots.sqlite3"
    report = tmp_path / "report.json"
    coord, engine, answers, crawler = build(
        {"GBOT_ROBOTS_STORE": f"sqlite://{db}", "GBOT_ROBOTS_REPORT": str(report)}
    )
    coord.opened(crawler.spider)
    waiting = started(coord.check(Request(ORIGIN + "/file.txt")))
    await until(lambda: answers.asked, "the fetch")
    engine.close()
    await Deferred.fromFuture(started(coord.closed(crawler.spider, "shutdown")))  # 0.2 s
    assert report.exists()
    written = report.read_bytes()
    answers.answer(ORIGIN + "/robots.txt")  # the download ends after the close
    await turn()
    assert report.read_bytes() == written
    store = SqliteStore(str(db))
    try:
        assert store.get_now(ORIGIN) is None  # the late result was not stored
    finally:
        store.close()
    data = json.loads(written)
    assert data["crawl"]["finish_reason"] == "shutdown"
    assert waiting.done()  # the waiting download was given up at the close
    with pytest.raises(IgnoreRequest):
        waiting.result()


@pytest_twisted.ensureDeferred
async def test_a_request_on_its_way_pins_its_origin_and_a_new_origin_waits_for_room() -> None:
    """Issue 26: a decided origin is kept from the moment its request passes until the
    download check sees it (or the scheduler refuses it); with a store of one state, the
    next origin's fetch waits for that room, and starts as soon as the check frees it."""
    from scrapy import signals

    coord, _, answers, crawler = build({"GBOT_ROBOTS_STORE_SIZE": 1})
    with pytest.raises(IgnoreRequest, match="parked"):
        coord.scheduled(Request(ORIGIN + "/first"))
    await until(lambda: answers.asked, "the fetch")
    answers.answer(ORIGIN + "/robots.txt")
    await until(lambda: coord.origin_state(ORIGIN) is not None, "the decision")
    page, duplicate = Request(ORIGIN + "/page"), Request(ORIGIN + "/page")
    coord.scheduled(page)  # passes: on its way to the downloader
    coord.scheduled(duplicate)
    assert coord.store.pinned == 1
    other = "http://b.test"
    with pytest.raises(IgnoreRequest, match="parked"):
        coord.scheduled(Request(other + "/x"))
    await turn()
    assert answers.asked == [ORIGIN + "/robots.txt"]  # no room: a.test would be forgotten
    crawler.signals.send_catch_log(signals.request_dropped, request=duplicate, spider=None)
    assert coord.store.pinned == 1  # the scheduler refused one; the other is on its way
    assert coord.check(page) is None  # the download check: the last pin goes
    assert coord.store.pinned == 0
    await until(lambda: len(answers.asked) == 2, "the next origin's fetch")
    assert answers.asked[1] == other + "/robots.txt"


@pytest_twisted.ensureDeferred
async def test_pins_left_when_nothing_is_on_its_way_go_at_the_next_tick() -> None:
    """A request another component drops after it passed never reaches the check: once
    neither the scheduler nor the downloader holds a request, its pin goes."""
    coord, engine, answers, crawler = build()
    with pytest.raises(IgnoreRequest, match="parked"):
        coord.scheduled(Request(ORIGIN + "/first"))
    await until(lambda: answers.asked, "the fetch")
    answers.answer(ORIGIN + "/robots.txt")
    await until(lambda: coord.origin_state(ORIGIN) is not None, "the decision")
    coord.scheduled(Request(ORIGIN + "/lost"))  # passes, then another handler refuses it
    assert coord.store.pinned == 1
    coord.opened(crawler.spider)  # the tick: the fake engine's scheduler and downloader are empty
    try:
        await until(lambda: coord.store.pinned == 0, "the lost pin to go")
        assert crawler.stats.get_value("robotstxt/fetch_budget") == 16  # the tick paced
    finally:
        engine.close()
        await Deferred.fromFuture(started(coord.closed(crawler.spider, "finished")))


async def closed(
    coord: Coordinator, engine: Engine, crawler: Any, reason: str = "finished"
) -> None:
    engine.close()
    await Deferred.fromFuture(started(coord.closed(crawler.spider, reason)))


@pytest_twisted.ensureDeferred
async def test_a_request_before_the_open_builds_the_gate_once() -> None:
    """A request scheduled before our spider_opened handler ran (another extension's) is
    parked as any other: the gate and its lot are built then, and the open reuses them."""
    coord, engine, answers, crawler = build()
    with pytest.raises(IgnoreRequest, match="parked"):
        coord.scheduled(Request(ORIGIN + "/early"))
    gate = coord._gate
    coord.opened(crawler.spider)
    try:
        assert coord._gate is gate
        await until(lambda: answers.asked, "the fetch")
        answers.answer(ORIGIN + "/robots.txt")
        await until(lambda: engine.crawled, "the release")
        assert [r.url for r in engine.crawled] == [ORIGIN + "/early"]
    finally:
        await closed(coord, engine, crawler)


@pytest_twisted.ensureDeferred
async def test_released_requests_go_one_per_turn_not_while_the_engine_is_full() -> None:
    coord, engine, answers, crawler = build()
    requests = [Request(ORIGIN + f"/p{n}") for n in range(3)]
    for request in requests:
        with pytest.raises(IgnoreRequest, match="parked"):
            coord.scheduled(request)
    await until(lambda: answers.asked, "the fetch")
    engine.downloader.full = True
    answers.answer(ORIGIN + "/robots.txt")
    await sleep(0.05)
    assert engine.crawled == []  # decided, but the downloader has no room: they wait
    with pytest.raises(IgnoreRequest, match="parked"):  # a start request waits its turn too
        coord.scheduled(Request(ORIGIN + "/start", meta={"is_start_request": True}))
    assert crawler.stats.get_value("robotstxt/waited_turn") == 1
    engine.downloader.full = False
    await until(lambda: len(engine.crawled) == 4, "the turns")
    assert engine.crawled[:3] == requests  # oldest first, one per turn
    assert engine.unfiltered == [False, False, False, False]  # the dupefilter saw none yet
    for request in requests:  # each passed the scheduling hook as released, pinned
        coord.scheduled(request)
        assert coord.check(request) is None
    assert crawler.stats.get_value("robotstxt/released") == 4


@pytest_twisted.ensureDeferred
async def test_a_request_dropped_at_its_deadline_goes_to_its_errback_through_the_engine() -> None:
    coord, engine, answers, crawler = build({"GBOT_ROBOTS_PARK_TIMEOUT": 0.2})
    coord.opened(crawler.spider)
    try:
        request = Request(ORIGIN + "/late")
        with pytest.raises(IgnoreRequest, match="parked"):
            coord.scheduled(request)
        with pytest.raises(DontCloseSpider):  # a request waits: the spider stays open
            coord.idle(crawler.spider)
        await until(lambda: engine.crawled, "the drop", bound=5.0)  # robots.txt never answers
        assert engine.crawled == [request] and engine.unfiltered == [True]
        assert request.dont_filter is False  # given back as it was
        coord.scheduled(request)  # marked DROPPED: the hook lets it through
        with pytest.raises(IgnoreRequest, match=r"undecided \(deadline\)"):
            coord.check(request)
        assert crawler.stats.get_value("robotstxt/dropped") == 1
        with pytest.raises(DontCloseSpider):  # the robots.txt download is still in flight
            coord.idle(crawler.spider)
        answers.answer(ORIGIN + "/robots.txt")
        await until(lambda: coord.origin_state(ORIGIN) is not None, "the decision")
        coord.idle(crawler.spider)  # nothing waits any more: the spider may close
    finally:
        await closed(coord, engine, crawler)


@pytest_twisted.ensureDeferred
async def test_a_jobdir_keeps_what_is_parked_and_the_next_run_takes_it_over(
    tmp_path: Path, short_close: None
) -> None:
    settings = {"JOBDIR": str(tmp_path / "job")}
    coord, engine, _, crawler = build(settings)
    coord.opened(crawler.spider)
    with pytest.raises(IgnoreRequest, match="parked"):
        coord.scheduled(Request(ORIGIN + "/kept"))
    await closed(coord, engine, crawler, "shutdown")  # a pause: Ctrl-C with JOBDIR
    assert crawler.stats.get_value("robotstxt/persisted") == 1
    assert crawler.stats.get_value("robotstxt/dropped") is None
    coord2, engine2, answers2, crawler2 = build(settings)
    coord2.opened(crawler2.spider)
    try:
        assert crawler2.stats.get_value("robotstxt/resumed") == 1
        await until(lambda: answers2.asked, "the resumed origin's fetch")
        answers2.answer(ORIGIN + "/robots.txt")
        await until(lambda: engine2.crawled, "the release")
        assert [r.url for r in engine2.crawled] == [ORIGIN + "/kept"]
    finally:
        await closed(coord2, engine2, crawler2)
