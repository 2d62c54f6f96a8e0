"""A real ``redis-server`` for the tests: started on a free 127.0.0.1 port, killed by PID.

No persistence (``--save "" --appendonly no``), its files in a temporary directory. A test
can kill it mid-run (``kill()``: SIGKILL, as a crash) and start it again on the same port
(``restart()``), which is how the outage tests take Redis away and bring it back.

``missing()`` says why the Redis tests cannot run here (no ``redis-server``, no ``redis``
client, no ``scrapy_redis``), so each test module skips with that reason.

The crawler processes the crawl tests run next to Redis are in ``_procs.py``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def missing(*, scrapy_redis: bool = False) -> str | None:
    """Why Redis tests cannot run here, or None when everything they need is present."""
    if not os.access(REDIS_SERVER, os.X_OK):
        return "redis-server is not installed (apt-get install redis-server)"
    if importlib.util.find_spec("redis") is None:
        return "the redis client is not installed (pip install redis)"
    if scrapy_redis and importlib.util.find_spec("scrapy_redis") is None:
        return "scrapy-redis is not installed (pip install scrapy-redis)"
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pong(port: int, password: str | None = None, pid: int | None = None) -> bool:
    """The server on ``port`` answers PING (and, given ``pid``, is that process: not another
    test's server that took the port first)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            if password is not None:
                sock.sendall(f"AUTH {password}\r\n".encode())
                if not sock.recv(64).startswith(b"+OK"):
                    return False
            sock.sendall(b"PING\r\n")
            if not sock.recv(64).startswith(b"+PONG"):
                return False
            if pid is None:
                return True
            sock.sendall(b"INFO server\r\n")
            info = b""
            while b"process_id:" not in info or not info.endswith(b"\r\n\r\n"):
                chunk = sock.recv(4096)
                if not chunk or len(info) > 65_536:
                    break
                info += chunk
            return f"process_id:{pid}\r\n".encode() in info
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process; ``port`` stays the same across ``restart()``.

    ``password`` starts it with ``--requirepass``; ``args`` are more ``redis-server``
    arguments (``--unixsocket PATH``, another ``--bind``). A port picked here (none given) is
    free when picked, not when bound: another test's server, in this process or another
    pytest-xdist worker, may take it in between, so a first start that fails tries a new one.
    """

    def __init__(
        self,
        directory: Path,
        port: int | None = None,
        *,
        password: str | None = None,
        args: tuple[str, ...] = (),
    ) -> None:
        self.directory = directory
        self.port = port or free_port()
        self._picked = port is None
        self.password = password
        self.args = args
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def start(self, timeout: float = 10.0) -> RedisServer:
        """Start and wait (bounded) until it answers PING."""
        if self._picked and self.starts == 0:
            try:
                return self._start(timeout)
            except RuntimeError:
                self.port = free_port()  # taken meanwhile: a new one, once
        return self._start(timeout)

    def _start(self, timeout: float) -> RedisServer:
        if self.process is not None:
            raise RuntimeError("already running")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = self.directory / f"redis-{self.starts}.log"
        args = [
            REDIS_SERVER,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--dir", str(self.directory),
            "--daemonize", "no",
            "--logfile", str(log),
            *(("--requirepass", self.password) if self.password is not None else ()),
            *self.args,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while not _pong(self.port, self.password, self.process.pid):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                text = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server did not start on port {self.port}:\n{text}")
            time.sleep(0.02)
        return self

    def kill(self) -> None:
        """SIGKILL (a crash), then reap it."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)

    def pause(self) -> None:
        """SIGSTOP: the server keeps its sockets but answers nothing (a hung Redis)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after :meth:`pause`."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM, then SIGKILL when it has not exited within ``timeout``."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)  # a paused server must see the SIGTERM
            os.kill(process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=timeout)
        self.kill()

    def restart(self, timeout: float = 10.0) -> RedisServer:
        """Start again on the same port (after ``kill()`` or ``stop()``)."""
        self.kill()
        return self.start(timeout)

    def client(self) -> Any:
        """A synchronous client (bytes replies) for the test's own checks."""
        import redis

        return redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=5, password=self.password
        )


@contextlib.contextmanager
def running_redis(directory: Path) -> Iterator[RedisServer]:
    """A started server, stopped at the end whatever happened."""
    server = RedisServer(directory)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def wait_until(condition: Any, timeout: float, what: str, step: float = 0.02) -> None:
    """Block until ``condition()`` is true (bounded); for tests without a running reactor."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)
