"""What every command shares on the way in: the argument parser, exit codes, usage errors,
and reading the inputs (a robots.txt file, a file of URLs, the crawler's product tokens).

A command is a :class:`Command` value named ``COMMAND`` in its own module of this package;
:func:`build_parser` gives each one its sub-parser, with ``--color`` and ``--help``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, NoReturn

from .._safetext import printable, quoted
from ..engine.google_crawlers import GOOGLE_CRAWLERS, crawler
from ..engine.tokens import is_valid_token, product_token

PROG = "gbot-robots"

EXIT_OK = 0
EXIT_FINDINGS = 1  # check/fetch: a URL is not fetched; lint/fetch: findings at --fail-on
EXIT_USAGE = 2

FAIL_ON = ("error", "warning", "info", "never")


class UsageError(Exception):
    """A user mistake: reported in one line on stderr with exit status 2, never a traceback."""


#: ``--timeout`` of ``fetch`` and ``inspect``, in seconds: the smallest the download timeout
#: setting takes (``GBOT_ROBOTS_DOWNLOAD_TIMEOUT``), and a day.
TIMEOUT_RANGE = (0.001, 86_400.0)


def check_timeout(value: float | None) -> None:
    """``--timeout`` outside :data:`TIMEOUT_RANGE` (``inf``, ``nan``, ``1e-9``) is a usage
    error: inside the crawl it made the setting fail, read as "not decided", exit 1."""
    low, high = TIMEOUT_RANGE
    if value is not None and not low <= value <= high:  # False for nan too
        raise UsageError(f"--timeout must be between {low:g} and {high:g} seconds, got {value:g}")


@dataclass(slots=True)
class IOStreams:
    """The streams a command writes to and reads from (swapped for buffers in tests)."""

    out: IO[str]
    err: IO[str]
    stdin: IO[bytes]

    def note(self, text: str) -> None:
        """One line on stderr: notes and warnings never mix with the results on stdout.

        Escaped (:func:`printable`): a note quotes URLs, file names and header values, and a
        control character in one must neither drive the terminal nor start a second line.
        """
        self.err.write(printable(text) + "\n")


@dataclass(frozen=True, slots=True)
class Command:
    """A subcommand. Each public module of ``scrapy_gbot_robots.cli`` defines one as
    ``COMMAND``; ``gbot-robots`` finds them there, so a new command is one new module.
    """

    name: str
    order: int  # its place in 'gbot-robots --help'
    help: str  # its line in the list of commands
    description: str  # shown above the options by 'gbot-robots NAME --help'
    epilog: str  # examples and exit status, shown below the options
    example: str  # one example for 'gbot-robots --help'
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, IOStreams], int]


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through one place (exit status 2, no traceback)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        # argparse quotes the offending argument in the message: escape it like any outside text.
        self.exit(EXIT_USAGE, f"{self.prog}: error: {printable(message)}\n")


FORMATTER = argparse.RawDescriptionHelpFormatter

_MAIN_DESCRIPTION = """\
Test URLs against a robots.txt exactly the way Googlebot reads it, lint the file, or
fetch an origin's robots.txt the way the scrapy-gbot-robots middleware does.

examples:
{examples}
Run 'gbot-robots COMMAND --help' for the options of a command.
"""


def add_colour(p: argparse.ArgumentParser) -> None:
    """``--color``, which every command has."""
    p.add_argument(
        "--color",
        "--colour",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour: auto (default) colours only a terminal, and never when NO_COLOR is set",
    )


def build_parser(
    commands: Sequence[Command],
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and one sub-parser per command, in ``order``."""
    examples = "\n".join(f"  {c.example}" for c in commands)
    top = _Parser(
        prog=PROG,
        description=_MAIN_DESCRIPTION.format(examples=examples),
        formatter_class=FORMATTER,
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    parsers: dict[str, argparse.ArgumentParser] = {}
    for c in commands:
        p = sub.add_parser(
            c.name,
            help=c.help,
            description=c.description,
            epilog=c.epilog,
            formatter_class=FORMATTER,
        )
        c.add_arguments(p)
        add_colour(p)
        parsers[c.name] = p
    return top, parsers


def _version() -> str:
    from .. import __version__

    return __version__


# ----------------------------------------------------------------------------- inputs


def read_input(path: str, stdin: IO[bytes], what: str) -> bytes:
    """The bytes of a file, or of stdin for ``-``; a problem is one usage-error line.

    ``what`` names the file for the messages: "robots.txt file", "file of URLs".
    """
    if path == "-":
        return stdin.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise UsageError(f"{what} not found: {quoted(path)}") from None
    except IsADirectoryError:
        raise UsageError(f"{quoted(path)} is a directory, not a {what}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {quoted(path)}: {exc.strerror or exc}") from None


def read_robots(path: str, stdin: IO[bytes], command: str = "check") -> bytes:
    """The robots.txt body from a file, or from stdin for ``-``.

    A URL given where the file is expected (``check https://example.com/robots.txt URL``) is
    not found as a file: the message says how to read a live robots.txt instead.
    """
    try:
        return read_input(path, stdin, "robots.txt file")
    except UsageError:
        if not _is_url(path):
            raise
        raise UsageError(
            f"{quoted(path)} is a URL, not a robots.txt file: to fetch it as the middleware "
            f"does, use '{PROG} fetch {path}' (any URL of the site will do); or download it "
            f"first: curl -s {quoted(path)} | {PROG} {command} - ..."
        ) from None


def _is_url(path: str) -> bool:
    scheme, sep, rest = path.partition("://")
    return bool(sep and rest) and scheme.lower() in ("http", "https")


@dataclass(frozen=True, slots=True)
class UrlInput:
    """One URL to check, as given and where it came from."""

    given: str  # as written; bytes that are not UTF-8 shown as \\xNN
    where: str  # "urls.txt:3" for a line of a file, "" for a command-line argument
    raw: str | bytes  # what is checked after encoding; bytes when the line is not UTF-8

    @property
    def utf8(self) -> bool:
        return isinstance(self.raw, str)


def read_url_file(path: str, stdin: IO[bytes]) -> list[UrlInput]:
    """One URL per line; blank lines and lines starting with '#' are skipped.

    No line is rejected here: whatever a line holds, Google's parser gives it a verdict, and
    ``check`` warns about the lines that are not absolute URLs or not UTF-8.
    """
    raw = read_input(path, stdin, "file of URLs")
    name = "<stdin>" if path == "-" else path
    urls = []
    for n, line in enumerate(raw.splitlines(), 1):
        text: str | bytes
        try:
            text = given = line.decode("utf-8").strip()
        except UnicodeDecodeError:
            text = line.strip()
            given = text.decode("utf-8", "backslashreplace")
        if given and not given.startswith("#"):
            urls.append(UrlInput(given=given, where=f"{name}:{n}", raw=text))
    return urls


def resolve_token(value: str, note: Callable[[str], None]) -> str:
    """The product token to check as: ``value`` itself, or reduced as the plugin reduces it.

    ``ROBOTSTXT_USER_AGENT`` and ``meta["gbot_robots_token"]`` accept a whole User-Agent
    string and use its product token; so does ``--token``, with a warning. A value with
    no token in it (``""``, ``*``, ``2.1``) is a usage error: Google's library obeys only
    ``[A-Za-z_-]+`` tokens (``IsValidUserAgentToObey``).
    """
    if is_valid_token(value):
        return value
    token = product_token(value)
    if not is_valid_token(token):
        msg = (
            f"invalid product token {quoted(value)}: a token is the crawler's product name, "
            "made of letters, '-' and '_' only (e.g. Googlebot, Googlebot-Image, AdsBot-Google)"
        )
        if value.strip() == "*":
            msg += (
                "; '*' names no crawler: to see what the * group says, give a crawler that "
                "has no group of its own"
            )
        raise UsageError(msg)
    note(
        f"warning: {quoted(value)} is not a valid robots.txt product token ([A-Za-z_-]+); "
        f"checking as {token!r} instead"
    )
    return token


# ----------------------------------------------------------------------------- the crawler


@dataclass(frozen=True, slots=True)
class Tokens:
    """The crawler a command checks as: its product tokens, most specific first, and whether
    it obeys the ``*`` group."""

    names: tuple[str, ...]
    global_group: bool = True

    @property
    def token(self) -> str | tuple[str, ...]:
        """What the engine takes: a lone token as itself, else the tuple."""
        return self.names[0] if len(self.names) == 1 else self.names

    @property
    def label(self) -> str:
        """``Googlebot-Image,Googlebot`` as the user would write it for ``-u``."""
        return ",".join(self.names)


def token_fields(tokens: Tokens) -> dict[str, object]:
    """The tokens in a ``--json`` document: ``tokens``, and ``user_agent`` (the first) and
    ``user_agents``, 0.2's names of it, written as well until 0.4."""
    return {
        "tokens": list(tokens.names),
        "user_agent": tokens.names[0],
        "user_agents": list(tokens.names),
    }


#: The crawler every command checks as when neither ``--token`` nor ``--as`` is given.
DEFAULT_TOKEN = "Googlebot"


def add_token_arguments(p: argparse.ArgumentParser) -> None:
    """``-u``/``--token``, ``--as`` and ``--no-global``: every command that checks as a
    crawler takes them the same way, with the same default (:data:`DEFAULT_TOKEN`)
    (``--user-agent``, 0.2's name of ``--token``, is read until 0.4, with a warning)."""
    p.add_argument(
        "-u",
        "--token",
        metavar="TOKEN[,TOKEN...]",
        help="the crawler's product token, or its tokens most specific first, comma-separated "
        "(Googlebot-Image,Googlebot): the first one a group names decides "
        f"(default: {DEFAULT_TOKEN})",
    )
    p.add_argument("--user-agent", dest="old_token", help=argparse.SUPPRESS)
    names = ", ".join(GOOGLE_CRAWLERS)
    p.add_argument(
        "--as",
        dest="as_crawler",
        metavar="NAME",
        help=f"check as one of Google's crawlers, with its documented tokens: {names}",
    )
    p.add_argument(
        "--no-global",
        action="store_true",
        help="the crawler ignores the * group (as Google's AdsBot does): with no group of its "
        "own, nothing is disallowed",
    )


def split_tokens(value: str) -> list[str]:
    """``a,b`` as a token list; a User-Agent header (its commas are inside parentheses,
    ``(KHTML, like Gecko)``) stays one value."""
    if "," not in value or "(" in value:
        return [value]
    parts = [part.strip() for part in value.split(",")]
    if not all(parts):
        raise UsageError(
            f"empty token in {quoted(value)}: give the tokens comma-separated, e.g. "
            "Googlebot-Image,Googlebot"
        )
    return parts


def resolve_tokens(ns: argparse.Namespace, note: Callable[[str], None]) -> Tokens:
    """The :class:`Tokens` of ``-u``/``--as``/``--no-global`` (:data:`DEFAULT_TOKEN` when
    neither is given); each token as :func:`resolve_token` reduces it."""
    given = ns.token
    if ns.old_token is not None:
        note("warning: --user-agent is deprecated: use --token (or -u), its name since 0.3")
        if given is None:
            given = ns.old_token
    if ns.as_crawler is not None:
        if given is not None:
            raise UsageError("give the crawler either with --token or with --as, not both")
        known = crawler(ns.as_crawler)
        if known is None:
            names = ", ".join(GOOGLE_CRAWLERS)
            raise UsageError(f"unknown crawler {quoted(ns.as_crawler)} for --as; known: {names}")
        if not known.obeys:
            note(f"note: {known.tokens[0]} ignores robots.txt ({known.robots_txt}, per Google's "
                 "crawler pages): the verdicts say what the file asks of it, not what it does")
        return Tokens(known.tokens, known.global_group and not ns.no_global)
    value = given if given is not None else DEFAULT_TOKEN
    tokens = tuple(resolve_token(part, note) for part in split_tokens(value))
    return Tokens(tokens, not ns.no_global)
