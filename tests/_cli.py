"""``gbot-robots`` run in this process, as its console script would run it in another.

``check``, ``lint``, ``agents``, ``verify`` and ``report`` need no reactor: calling
:func:`scrapy_gbot_robots.cli.main` with the process's streams, environment and argv swapped
gives what a subprocess gives (exit status, stdout, stderr) without starting Python again, which
was most of those tests' time. ``fetch`` and ``inspect`` run Scrapy's reactor, and the tests
of the entry points themselves, of a terminal and of a pipe closed early, need a process of
their own: those run in a process forked for each (:func:`spawn_cli`, from a fork server that
has Scrapy imported already), or, for the entry points themselves, the real script
(:data:`ENTRY`).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

from scrapy_gbot_robots.cli import main

SCRIPT = Path(sys.executable).parent / "gbot-robots"
#: The real console script (or ``python -m``), for what must run in a process of its own.
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_gbot_robots"]
#: Commands that start Scrapy's reactor: never in the test process.
NEEDS_A_PROCESS = frozenset({"fetch", "inspect", "doctor"})


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    # What a pipe gives a Python process: UTF-8, strict (main() relaxes it), not a terminal.
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict", newline="\n")


def run_cli(
    args: list[str],
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
    *,
    refused: bool = False,
) -> subprocess.CompletedProcess[str]:
    """The console script's answer to ``args``: in this process when the command allows it.

    ``refused``: the arguments are a usage error, which every command reports before Scrapy
    is imported, so ``fetch`` and ``inspect`` too answer in this process (were they accepted
    by mistake, starting the reactor here fails the test: it is never silently passed).
    """
    if args and args[0] in NEEDS_A_PROCESS and not refused:
        return spawn_cli(args, env if env is not None else dict(os.environ), stdin)
    out, err, inp = _stream(), _stream(), _stream(stdin)
    environ = dict(os.environ) if env is None else env
    with (
        mock.patch.dict(os.environ, environ, clear=True),
        mock.patch.multiple(sys, stdout=out, stderr=err, stdin=inp, argv=["gbot-robots", *args]),
    ):
        try:
            status = main(args)
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
        out.flush()
        err.flush()
    stdout = out.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
    stderr = err.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(["gbot-robots", *args], status, stdout, stderr)


# -- the commands that need a process: forked from one that has Scrapy imported already -------

_FORKS: Any = None
#: Imported once by the fork server, so that each command's process starts with them (about
#: 0.9 s of a fresh interpreter's 2.2 s for a one-request fetch).
_PRELOAD = [
    "scrapy.crawler",
    "scrapy.commands",
    "scrapy_gbot_robots.addon",
    "scrapy_gbot_robots.cli",
]


def _child(args: list[str], env: dict[str, str], stdin: str, out: str, err: str) -> None:
    """The command, as its console script runs it, in a process forked for it."""
    os.environ.clear()
    os.environ.update(env)
    for fd, path, flags in ((0, stdin, os.O_RDONLY), (1, out, os.O_WRONLY), (2, err, os.O_WRONLY)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "rb", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "wb", closefd=False), encoding="utf-8")
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "wb", closefd=False), encoding="utf-8", errors="backslashreplace"
    )
    sys.argv = ["gbot-robots", *args]
    status = main(args)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def spawn_cli(
    args: list[str], env: dict[str, str], stdin: bytes = b"", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``gbot-robots ARGS`` in a process of its own, forked from a server that has Scrapy
    imported (``multiprocessing``'s fork server: a clean interpreter, no reactor)."""
    global _FORKS
    if _FORKS is None:
        _FORKS = multiprocessing.get_context("forkserver")
        _FORKS.set_forkserver_preload(_PRELOAD)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, name) for name in ("in", "out", "err")]
        for path, data in zip(paths, (stdin, b"", b""), strict=True):
            with open(path, "wb") as f:
                f.write(data)
        proc = _FORKS.Process(target=_child, args=(args, env, *paths))
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
            raise subprocess.TimeoutExpired(["gbot-robots", *args], timeout)
        out, err = (Path(path).read_bytes().decode("utf-8") for path in paths[1:])
    return subprocess.CompletedProcess(["gbot-robots", *args], proc.exitcode, out, err)
