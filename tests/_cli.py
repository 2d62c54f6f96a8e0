"""``gbot-robots`` run in this process, as its console script would run it in another.

``check``, ``lint``, ``agents``, ``verify`` and ``report`` need no reactor: calling
:func:`scrapy_gbot_robots.cli.main` with the process's streams, environment and argv swapped
gives what a subprocess gives (exit status, stdout, stderr) without starting Python again, which
was most of those tests' time. ``fetch`` and ``inspect`` run Scrapy's reactor, and the tests
of the entry points themselves, of a terminal and of a pipe closed early, need a process of
their own: those stay subprocesses (:data:`ENTRY`).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
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
        proc = subprocess.run(
            [*ENTRY, *args],
            input=stdin,
            capture_output=True,
            env=env if env is not None else dict(os.environ),
            timeout=120,
            check=False,
        )
        return subprocess.CompletedProcess(
            proc.args, proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
        )
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
