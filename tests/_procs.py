"""Real ``scrapy`` processes next to the test's reactor, which keeps serving HTTP meanwhile.

``spawn()`` starts ``python -m scrapy ...`` with ``reactor.spawnProcess``, ``CrawlProcess``
collects its output and signals or kills it by PID, ``until()`` and ``finish()`` wait on
conditions with a bound, and ``reap()`` kills whatever a failed test left running. Used by the
pause/resume, store-sharing and fleet tests.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any


class CrawlProcess:
    """A ``scrapy`` subprocess whose output (stdout and stderr together) is collected."""

    def __init__(self, name: str) -> None:
        from twisted.internet import defer

        self.name = name
        self.output = bytearray()
        self.ended: defer.Deferred[int] = defer.Deferred()
        self.code: int | None = None
        self.transport: Any = None

    @property
    def pid(self) -> int:
        return int(self.transport.pid)

    @property
    def running(self) -> bool:
        return self.code is None

    def text(self) -> str:
        return self.output.decode("utf-8", "replace")

    def lines(self, marker: str) -> list[str]:
        """The rest of each output line that contains ``marker`` (e.g. ``CRAWLED``)."""
        out = []
        for line in self.text().splitlines():
            at = line.find(marker + " ")
            if at >= 0:
                out.append(line[at + len(marker) + 1 :].strip())
        return out

    def stats(self) -> dict[str, Any]:
        """The crawl's stats, printed by the test spider as one ``STATS {json}`` line."""
        import json

        found = self.lines("STATS")
        return dict(json.loads(found[-1])) if found else {}

    def kill(self) -> None:
        """SIGKILL by PID (a crash); a no-op once it has ended."""
        self.signal("KILL")

    def signal(self, name: str) -> None:
        """Send a signal by name ("INT" is Ctrl-C: Scrapy's graceful stop); no-op once ended."""
        if self.running and self.transport is not None:
            with contextlib.suppress(OSError, ProcessLookupError):
                self.transport.signalProcess(name)


def spawn(name: str, args: list[str], env: dict[str, str], cwd: Path) -> CrawlProcess:
    """Start ``python -m scrapy ARGS...`` in ``cwd`` under the test's reactor."""
    import sys

    from twisted.internet import protocol, reactor

    proc = CrawlProcess(name)

    class _Protocol(protocol.ProcessProtocol):
        def outReceived(self, data: bytes) -> None:
            proc.output += data

        def errReceived(self, data: bytes) -> None:
            proc.output += data

        def processEnded(self, reason: Any) -> None:
            code = getattr(reason.value, "exitCode", None)
            proc.code = -1 if code is None else int(code)
            proc.ended.callback(proc.code)

    # The spiders import _subspider from tests/.
    path = os.pathsep.join(
        p for p in (str(Path(__file__).parent), os.environ.get("PYTHONPATH")) if p
    )
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path, **env}
    reactor_any: Any = reactor
    proc.transport = reactor_any.spawnProcess(
        _Protocol(), sys.executable, [sys.executable, "-m", "scrapy", *args],
        env=full_env, path=str(cwd),
    )  # fmt: skip
    return proc


async def until(condition: Any, timeout: float, what: str, step: float = 0.05) -> None:
    """Wait in the reactor (bounded) until ``condition()`` is true."""
    from twisted.internet import reactor, task

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await task.deferLater(reactor, step, lambda: None)


async def finish(proc: CrawlProcess, timeout: float) -> int:
    """The exit code; on a timeout the process is killed and its log shown."""
    try:
        await until(lambda: not proc.running, timeout, f"{proc.name} to finish")
    except AssertionError:
        proc.kill()
        raise AssertionError(
            f"{proc.name} did not finish in {timeout} s:\n{proc.text()[-4000:]}"
        ) from None
    assert proc.code is not None
    return proc.code


async def reap(procs: list[CrawlProcess], timeout: float = 10.0) -> None:
    """Kill whatever is still running (by PID) and wait until each has ended."""
    for proc in procs:
        proc.kill()
    with contextlib.suppress(AssertionError):
        await until(lambda: not any(p.running for p in procs), timeout, "killed processes")


async def fleet_crawl(workers: list[CrawlProcess], client: Any, urls: list[str]) -> None:
    """A scrapy-redis fleet's crawl of ``urls``, start to end: once every worker listens to
    the fleet's back-offs, the URLs go to the shared queue (``fleet:start_urls``); when each
    was crawled, every worker is closed with Ctrl-C and must exit 0. Whatever happens, no
    worker is left running."""
    import json

    try:
        await until(
            lambda: client.pubsub_numsub("gbot_robots:backoff")[0][1] == len(workers),
            60,
            "every worker to listen",
        )
        client.rpush("fleet:start_urls", *[json.dumps({"url": url}) for url in urls])
        await until(
            lambda: sum(len(w.lines("CRAWLED")) for w in workers) >= len(urls),
            60,
            "every page to be crawled",
        )
        for worker in workers:
            worker.signal("INT")  # Ctrl-C: a graceful close
        for worker in workers:
            code = await finish(worker, 30)
            assert code == 0, worker.text()[-3000:]
    finally:
        await reap(workers)
