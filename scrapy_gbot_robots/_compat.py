"""Every Scrapy-version-dependent path, and every Scrapy internal we lean on, in one place.

Each is named by a flag or a function that says why it exists.

The plugin supports Scrapy 2.11.2 and later (pyproject's ``[tool.gbot-robots.ci]`` table
lists the versions CI tests, and why). Code elsewhere tests these flags instead of scattering
``hasattr`` checks, as scrapy-zyte-api's ``utils.py`` does, so dropping an old version is
deleting a branch here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, cast

from scrapy import signals as _scrapy_signals
from scrapy.core.engine import ExecutionEngine
from scrapy.settings import default_settings as _default_settings
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred, DeferredList

if TYPE_CHECKING:
    from scrapy.core.scheduler import BaseScheduler
    from scrapy.http import Request, Response

#: Scrapy 2.14 added ``engine.download_async()``; before it, ``engine.download()`` returns a
#: Deferred (and 2.14+ deprecates it).
ENGINE_HAS_DOWNLOAD_ASYNC: bool = hasattr(ExecutionEngine, "download_async")

#: Scrapy 2.18 added the ``robots_parsed`` signal; before it there is nothing to send.
ROBOTS_PARSED_SIGNAL: object | None = getattr(_scrapy_signals, "robots_parsed", None)

#: Scrapy 2.19's ``HttpAuthMiddleware`` reads per-request ``http_user``, ``http_pass`` and
#: ``http_auth_domain`` meta (the release that added the ``HTTPAUTH_*`` settings); older Scrapy
#: reads only the spider's attributes, so the meta a robots.txt request carries does nothing.
HTTPAUTH_READS_META: bool = hasattr(_default_settings, "HTTPAUTH_USER")

#: Scrapy 2.14 added ``engine.close_spider_async()``; before it, ``close_spider(spider, reason)``.
ENGINE_HAS_CLOSE_SPIDER_ASYNC: bool = hasattr(ExecutionEngine, "close_spider_async")


#: Newer Scrapy reads the ``LOG_INSTALL_ROOT_HANDLER`` setting and deprecates
#: ``CrawlerProcess``'s ``install_root_handler`` argument (2.19 does); older Scrapy (2.11) has
#: only the argument.
LOG_ROOT_HANDLER_SETTING: bool = hasattr(_default_settings, "LOG_INSTALL_ROOT_HANDLER")


def crawler_process_without_log_handler(settings: dict[str, Any]) -> Any:
    """A ``CrawlerProcess`` that leaves the root logger's handlers to the caller."""
    from scrapy.crawler import CrawlerProcess

    if LOG_ROOT_HANDLER_SETTING:
        return CrawlerProcess({**settings, "LOG_INSTALL_ROOT_HANDLER": False})
    return CrawlerProcess(settings, install_root_handler=False)


async def engine_download(engine: Any, request: Request) -> Response:
    """Download through the engine (downloader middlewares, slots), on any supported Scrapy."""
    if ENGINE_HAS_DOWNLOAD_ASYNC:
        response: Response = await engine.download_async(request)
    else:
        response = await maybe_deferred_to_future(engine.download(request))
    return response


def engine_slot(engine: Any) -> Any:
    """The engine's per-spider slot: ``_slot`` since Scrapy 2.13, ``slot`` before."""
    slot = getattr(engine, "_slot", None)
    return slot if slot is not None else getattr(engine, "slot", None)


def engine_scheduler(engine: Any) -> BaseScheduler | None:
    """The scheduler in use (a public property only since Scrapy 2.19)."""
    slot = engine_slot(engine)
    return getattr(slot, "scheduler", None)


def scheduler_dupefilter(scheduler: Any) -> Any:
    """The dupefilter of Scrapy's scheduler (and scrapy-redis's), or None for another one."""
    df = getattr(scheduler, "df", None)
    return df if df is not None and callable(getattr(df, "request_seen", None)) else None


def redis_server(scheduler: Any) -> Any:
    """The Redis client of a scrapy-redis scheduler (``server`` beside a ``queue``), or None."""
    if hasattr(scheduler, "queue"):
        return getattr(scheduler, "server", None)
    return None


def signal_sender(crawler: Any) -> Any:
    """The sender a crawler's ``SignalManager`` sends as (pydispatch keys receivers by it)."""
    from pydispatch import dispatcher  # type: ignore[import-untyped]

    return getattr(crawler.signals, "sender", dispatcher.Anonymous)


def downloader_slot(engine: Any, request: Request) -> Any:
    """The downloader slot a request was queued in (its key is in ``download_slot`` meta)."""
    slots = getattr(getattr(engine, "downloader", None), "slots", None)
    key = request.meta.get("download_slot")
    return slots.get(key) if slots is not None and key is not None else None


def slot_for(engine: Any, request: Request) -> Any:
    """The download slot ``request`` goes to, when it exists already (None otherwise), before
    the downloader has named it in the request's meta. The slot-key method is public since
    Scrapy 2.12; private, and given the spider, before."""
    downloader: Any = getattr(engine, "downloader", None)
    try:
        if hasattr(downloader, "get_slot_key"):
            key = downloader.get_slot_key(request)
        else:  # Scrapy < 2.12: private, and it takes the spider
            key = downloader._get_slot_key(request, getattr(engine, "spider", None))
        return downloader.slots.get(key)
    except AttributeError:
        return None


def slot_wait(slot: Any, floor: float) -> float:
    """Seconds before ``slot`` sends its next request, its delay raised to ``floor`` (as
    ``crawl/crawl_delay.py`` raises it when the request reaches the slot). A slot's last send,
    ``lastseen``, is on the monotonic clock in recent Scrapy releases (2.19 has it) and on the
    wall clock in older ones: an epoch time is past 1e9, an uptime is not."""
    last = float(getattr(slot, "lastseen", 0.0) or 0.0)
    now = time.time() if last > 1e9 else time.monotonic()
    return max(0.0, last + max(float(getattr(slot, "delay", 0.0)), floor) - now)


def withdraw_queued(
    engine: Any, request: Request, take: Callable[[Request], bool], mark: Callable[[Request], None]
) -> int:
    """Take out of ``request``'s download slot the requests waiting there (not yet sent)
    that ``take`` names: each is ``mark``-ed, then handed back to the engine as a new request
    to crawl. Scrapy internals: a slot's ``queue`` holds ``(request, deferred)`` pairs whose
    deferred the download fires, and the downloader middleware manager returns a request it
    receives there as is, which the engine then crawls (every supported Scrapy). The number
    taken; 0 for a downloader without slots."""
    slot = slot_for(engine, request)
    queue = getattr(slot, "queue", None)
    if not queue:
        return 0
    taken: list[Any] = []
    kept: list[Any] = []
    for pair in queue:
        (taken if take(pair[0]) else kept).append(pair)
    if not taken:
        return 0
    queue.clear()
    queue.extend(kept)
    for queued, answer in taken:
        mark(queued)
        answer.callback(queued)
    return len(taken)


def drop_jitter(slot: Any) -> None:
    """No random factor on a slot's delay: ``jitter`` in recent Scrapy releases (2.19 has
    it), ``randomize_delay`` (a bool, deprecated there) in older ones."""
    if hasattr(slot, "jitter"):
        slot.jitter = 0.0
    else:
        slot.randomize_delay = False


def downloader_middlewares(engine: Any) -> list[Any]:
    """The downloader middleware instances of a running engine."""
    manager = getattr(getattr(engine, "downloader", None), "middleware", None)
    return list(getattr(manager, "middlewares", ()))


def wake_engine(engine: Any) -> None:
    """Let the engine notice at once that it may be idle (else: its 5 s heartbeat)."""
    nextcall = getattr(engine_slot(engine), "nextcall", None)
    if nextcall is not None:
        nextcall.schedule()


def engine_accepts_requests(crawler: Any, *, crawl_started: bool) -> bool:
    """Whether ``engine.crawl()`` may be called: the crawl not stopping, the spider not closing.

    ``slot.closing`` is set when the spider closes for any reason. On a stop (Ctrl-C),
    ``crawler.crawling`` turns False first; but ``scrapy shell`` never calls
    ``Crawler.crawl()``, so ``crawling`` is False there from the start and means nothing:
    ``crawl_started`` says whether it was True when the spider opened. The engine's own
    ``running`` is still False while ``spider_opened`` handlers run, when requests may
    already be scheduled.
    """
    engine = getattr(crawler, "engine", None)
    slot = engine_slot(engine) if engine is not None else None
    if slot is None or slot.closing is not None:
        return False
    return not crawl_started or bool(getattr(crawler, "crawling", True))


def crawl_started(crawler: Any) -> bool:
    """Whether the crawler runs a crawl (``Crawler.crawl()``), not a shell session."""
    return bool(getattr(crawler, "crawling", False))


#: Scrapy 2.14 added scheduling helpers that work with and without a Twisted reactor
#: (``TWISTED_REACTOR_ENABLED = False``, Scrapy 2.19); before it, the reactor is the loop.
HAS_LOOP_HELPERS: bool
try:
    from scrapy.utils.asyncio import call_later as _call_later
    from scrapy.utils.asyncio import create_looping_call as _create_looping_call

    HAS_LOOP_HELPERS = True
except ImportError:  # Scrapy < 2.14
    HAS_LOOP_HELPERS = False


def asyncio_available() -> bool:
    """Whether asyncio code can run on the crawl's loop: Scrapy's asyncio reactor, or no
    reactor at all (``TWISTED_REACTOR_ENABLED = False``, where the loop is asyncio's)."""
    if HAS_LOOP_HELPERS:
        from scrapy.utils.asyncio import is_asyncio_available

        return bool(is_asyncio_available())
    from scrapy.utils.reactor import is_asyncio_reactor_installed

    return bool(is_asyncio_reactor_installed())


class Timer(Protocol):
    """A call scheduled for later; ``cancel()`` may be called after it ran."""

    def cancel(self) -> None: ...


class Loop(Protocol):
    """A periodic call (Twisted's ``LoopingCall`` or Scrapy's asyncio one)."""

    @property
    def running(self) -> bool: ...

    def start(self, interval: float, now: bool = True) -> Any: ...

    def stop(self) -> None: ...


class _TwistedTimer:
    __slots__ = ("_call",)

    def __init__(self, call: Any) -> None:
        self._call = call

    def cancel(self) -> None:
        if self._call.active():
            self._call.cancel()


def call_later(delay: float, func: Callable[..., object], *args: Any) -> Timer:
    """Run ``func(*args)`` after ``delay`` seconds on the crawl's event loop, reactor or not."""
    if HAS_LOOP_HELPERS:
        return _call_later(delay, func, *args)
    from twisted.internet import reactor

    clock: Any = reactor
    return _TwistedTimer(clock.callLater(delay, func, *args))


def looping_call(func: Callable[[], object]) -> Loop:
    """A periodic call of ``func`` on the crawl's event loop, reactor or not."""
    if HAS_LOOP_HELPERS:
        loop: Loop = _create_looping_call(func)
        return loop
    from twisted.internet.task import LoopingCall

    return cast("Loop", LoopingCall(func))


async def settle(waiting: Iterable[Deferred[Any]], timeout: float) -> bool:
    """Wait until every Deferred in ``waiting`` has fired, at most ``timeout`` seconds.

    Returns whether they all fired. Failures are consumed (their owners log them). Works
    with and without a reactor, so a spider's close never needs ``reactor.callLater``.
    """
    pending = [d for d in waiting if not d.called]
    if not pending:
        return True
    done: Deferred[bool] = Deferred()

    def finish(result: bool) -> None:
        if not done.called:
            done.callback(result)

    DeferredList(pending, consumeErrors=True).addBoth(lambda _: finish(True))
    timer = call_later(timeout, finish, False)
    try:
        return await maybe_deferred_to_future(done)
    finally:
        timer.cancel()


def body_middleware_enabled(settings: Any, paths: Iterable[str]) -> bool:
    """Whether ``DOWNLOADER_MIDDLEWARES`` (with its base) enables one of ``paths``.

    Read from the settings the downloader builds its chain from, so the answer is known
    before the chain exists (our middleware is built inside that same construction).
    """
    from scrapy.utils.conf import build_component_list

    wanted = set(paths)
    for component in build_component_list(settings.getwithbase("DOWNLOADER_MIDDLEWARES")):
        name = (
            component
            if isinstance(component, str)
            else f"{component.__module__}.{component.__qualname__}"
        )
        if name in wanted:
            return True
    return False


def close_spider(engine: Any, spider: Any, reason: str) -> None:
    """Ask the engine to close the spider, on any supported Scrapy."""
    if ENGINE_HAS_CLOSE_SPIDER_ASYNC:
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(engine.close_spider_async(reason=reason))
    elif spider is not None:
        engine.close_spider(spider, reason)


def fail_bootstrap(crawler: Any) -> None:
    """Make ``scrapy crawl`` exit non-zero for a crawl that cannot start, on any Scrapy.

    Scrapy 2.15 and later count a crawl whose start-up raised as a failed bootstrap; older
    releases (2.11 to 2.14) only count a crawler without a spider, and would exit 0 after a
    bad setting.
    """
    crawler.spider = None


def crawl_load(engine: Any) -> tuple[int, int, int]:
    """What the fetch budget's pacing reads, once per tick: (downloads in progress,
    robots.txt ones included; the downloader's limit, 0 for none; requests waiting in the
    scheduler).

    ``downloader.active`` and ``total_concurrency`` are the downloader's own bookkeeping
    (what ``needs_backout()`` compares); the scheduler's backlog is ``len(scheduler)``
    (Scrapy's and scrapy-redis's; ``has_pending_requests()``, as 0 or 1, for another one).
    A scheduler that cannot answer now (a fleet's Redis away) counts as holding requests.
    """
    downloader: Any = getattr(engine, "downloader", None)
    active = len(getattr(downloader, "active", ()))
    limit = getattr(downloader, "total_concurrency", 0)
    scheduler: Any = engine_scheduler(engine)
    try:
        if scheduler is None:
            backlog = 0
        elif hasattr(scheduler, "__len__"):
            backlog = len(scheduler)
        else:
            backlog = int(bool(scheduler.has_pending_requests()))
    except Exception:
        backlog = 1
    return active, limit if isinstance(limit, int) else 0, backlog


def engine_full(engine: Any) -> bool:
    """Whether the downloader or the scraper has no room for more work now: what Scrapy's
    engine asks (its ``needs_backout()``; a private method before 2.13) before it takes a
    start request, less its running and closing checks (the lifecycle's business). Both
    parts are public in every supported Scrapy; an engine without them is never full."""
    downloader: Any = getattr(engine, "downloader", None)
    slot: Any = getattr(getattr(engine, "scraper", None), "slot", None)
    try:
        return bool(
            (downloader is not None and downloader.needs_backout())
            or (slot is not None and slot.needs_backout())
        )
    except Exception:
        return False


def reserve_download_slot(engine: Any, delta: int) -> None:
    """Widen (``+1``) or narrow (``-1``) the downloader's global limit for one robots.txt fetch.

    The engine stops feeding the downloader once ``len(downloader.active)`` reaches
    ``CONCURRENT_REQUESTS``, and a robots.txt download sits in ``active`` like a page: with
    ``GBOT_ROBOTS_CONCURRENT_FETCHES`` of them in flight, no page of an already-decided
    origin would be downloaded until they end. Robots.txt downloads have their own budget,
    so each one widens the limit while it runs. A limit of 0 (unlimited) is left alone.
    """
    downloader: Any = getattr(engine, "downloader", None)
    limit = getattr(downloader, "total_concurrency", 0)
    if isinstance(limit, int) and limit > 0 and limit + delta > 0:
        downloader.total_concurrency = limit + delta


def drop_from_twisted_stderr_printer(kind: type[BaseException]) -> bool:
    """Stop Twisted's start-up printer from writing a ``kind`` failure's traceback to stderr.

    Until an application calls ``globalLogBeginner.beginLoggingTo()`` (Scrapy never does),
    Twisted's ``LogBeginner`` keeps a temporary observer that writes every critical event to
    stderr as text, traceback included, beside Scrapy's ``PythonLoggingObserver``. On a
    reactor other than asyncio's, an exception raised while Scrapy builds the middlewares
    ends as such an event ("Unhandled error in Deferred"), which no ``logging`` filter sees.
    The observer (``_temporaryObserver``, in the publisher's ``_observers``) is wrapped so
    that it skips those events and passes every other one on; True when it was. Twisted
    internals: when they are not there, nothing changes.
    """
    from twisted.logger import globalLogBeginner, globalLogPublisher

    observer = getattr(globalLogBeginner, "_temporaryObserver", None)
    observers = getattr(globalLogPublisher, "_observers", None)
    if observer is None or not isinstance(observers, list) or observer not in observers:
        return False
    if isinstance(observer, _SkippingObserver):
        return True
    skipping = _SkippingObserver(observer, kind)
    observers[observers.index(observer)] = skipping
    # beginLoggingTo() removes the attribute's observer: it must remove this one.
    setattr(globalLogBeginner, "_temporaryObserver", skipping)  # noqa: B010
    return True


#: What Twisted logs, as an event of its own, just before an unhandled Deferred's failure.
UNHANDLED_IN_DEFERRED = "Unhandled error in Deferred:"


class _SkippingObserver:
    """A Twisted log observer that passes every event on, except failures of one kind.

    The "Unhandled error in Deferred:" event that Twisted sends just before such a failure is
    held until the next event says whether it belongs to one (then both are skipped).
    """

    def __init__(self, inner: Any, kind: type[BaseException]) -> None:
        self.inner = inner
        self.kind = kind
        self._held: dict[str, Any] | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        held, self._held = self._held, None
        failure = event.get("log_failure")
        if failure is None and event.get("log_format") == UNHANDLED_IN_DEFERRED:
            self._held = event
            return
        if isinstance(getattr(failure, "value", None), self.kind):
            return
        if held is not None:
            self.inner(held)
        self.inner(event)
