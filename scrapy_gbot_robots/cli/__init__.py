"""``gbot-robots``: test URLs against a robots.txt, lint it, or fetch it as the middleware does.

Every verdict comes from the engine (``parse(...).decide``) and every line reading from
``engine/lines.py``, so the tool can never disagree with the middleware. Scrapy is imported
only when ``fetch`` runs, which keeps ``check`` and ``lint`` fast to start.

Layout: one module per command (``check``, ``lint``, ``fetch``), each defining ``COMMAND``
(a :class:`~._args.Command`); ``_args`` holds the parser, exit codes and input reading,
``_render`` the colour and tables. Commands are found by listing this package, so a new
command (``report.py``) is one new module and nothing else.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from .._safetext import printable
from ._args import EXIT_FINDINGS, EXIT_USAGE, Command, IOStreams, UsageError, build_parser

__all__ = ["main"]


def commands() -> list[Command]:
    """Every ``COMMAND`` of this package's public modules, in their ``order``."""
    found: list[Command] = []
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("_"):
            continue
        command = getattr(importlib.import_module(f"{__name__}.{module.name}"), "COMMAND", None)
        if isinstance(command, Command):
            found.append(command)
    return sorted(found, key=lambda c: (c.order, c.name))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    io = IOStreams(out=sys.stdout, err=sys.stderr, stdin=sys.stdin.buffer)
    by_name = {c.name: c for c in commands()}
    top, subs = build_parser(list(by_name.values()))
    if not args or args[0] not in by_name:
        # --help, --version, or a mistake: argparse prints it and exits (0 or 2).
        top.parse_args(args)
        top.print_help(sys.stderr)
        return EXIT_USAGE
    parser = subs[args[0]]
    # Intermixed: "check robots.txt -u Googlebot URL ..." keeps working with options between.
    ns = parser.parse_intermixed_args(args[1:])
    try:
        return by_name[args[0]].run(ns, io)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"{parser.prog}: error: {printable(str(exc))}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (e.g. '| head'): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        return 130
