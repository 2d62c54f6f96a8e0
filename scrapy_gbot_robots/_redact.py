"""Secrets out of every text that names a store or a lot: one function, :func:`redacted`.

A Redis URL may carry a secret in two places, both read by redis-py: the userinfo
(``redis://user:PASSWORD@host:6379/0``) and the query: ``?password=``, redis-py's documented
form for ``unix://`` sockets, ``?username=`` likewise, and ``?ssl_password=`` (redis-py hands
every query key it does not parse itself to the connection, and this one is the TLS key's
passphrase). Log lines, error messages (``ConfigError``), stats, the report and the command
line show a store by its URL, so they all pass it (or a whole message that may quote it)
through :func:`redacted` first.

The userinfo runs to the last ``@`` before whitespace, whatever it holds: a password with an
unencoded ``#``, ``?``, ``/`` or ``@`` is hidden whole (a parser splits such a URL elsewhere,
and its error message may then quote a piece of the password: :func:`secret_pieces` names
what such a message must not show). A raw whitespace ends a URL in a message; hiding a little
too much is the safe side.

It rewrites nothing else: no parsing into parts and back, so a malformed URL (a port that is
not a number, an IPv6 host without its closing bracket) keeps its shape, an IPv6 host keeps
its brackets, and nothing can raise. Pure: the standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

__all__ = ["HIDDEN", "redacted", "secret_pieces"]

#: What a secret is replaced with.
HIDDEN = "***"

#: Query keys whose value is a secret (compared after %-decoding, case-insensitively):
#: redis-py's credentials and the TLS key's passphrase.
SECRET_KEYS = frozenset({"password", "username", "ssl_password"})

# ``//`` then the authority's userinfo: up to the last ``@`` before whitespace that a host
# can follow (no ``&``, ``;`` or ``=`` after it before a ``?``: an ``@`` in a query value is
# not the end of a userinfo). A password may hold an unencoded ``@``, ``/``, ``#`` or ``?``;
# hiding a little too much is the safe side.
_USERINFO = re.compile(r"//(\S*)@(?=[^?&;=\s]*(?:[?\s]|$))")
# A query parameter: ``?`` or ``&`` or ``;``, a key, ``=``, a value up to the next separator.
_PARAM = re.compile(r"([?&;])([^=&;#\s]+)=([^&;#\s]*)")


def redacted(text: object, also: Iterable[str] = ()) -> str:
    """``text`` (a store URL, or a message quoting one) with its secrets shown as ``***``.

    Hidden: the password of a URL's userinfo (``redis://user:***@host/0``; the user name is
    kept), the values of the secret query keys (``password``, ``username``, ``ssl_password``:
    ``unix:///run/redis.sock?db=0&password=***``), and every string of ``also`` wherever it
    is (a store URL's :func:`secret_pieces`, for a message that may quote a piece of them).
    Everything else is kept as written. Never raises, whatever ``text`` is.
    """
    out = text if isinstance(text, str) else str(text)
    if "@" in out:
        out = _USERINFO.sub(_hide_password, out)
    if "=" in out:
        out = _PARAM.sub(_hide_value, out)
    for piece in also:
        if piece:
            out = out.replace(piece, HIDDEN)
    return out


def _hide_password(match: re.Match[str]) -> str:
    userinfo = match.group(1)
    user, colon, _ = userinfo.partition(":")
    if not colon:
        return match.group(0)  # a user name alone is no secret
    return f"//{user}:{HIDDEN}@"


def _hide_value(match: re.Match[str]) -> str:
    sep, key, value = match.groups()
    if not value or not _is_secret_key(key):
        return match.group(0)
    return f"{sep}{key}={HIDDEN}"


def _is_secret_key(key: str) -> bool:
    return unquote(key).strip().lower() in SECRET_KEYS


def secret_pieces(url: object) -> tuple[str, ...]:
    """The secrets of a store URL, and the pieces a URL parser may cut its password into.

    A password with an unencoded ``#`` or ``?`` makes a parser end the authority there, and
    its error ("Port could not be cast to integer value as 'PIECE'") quotes a piece: a text
    that shows any of these must not be shown. Never raises.
    """
    text = url if isinstance(url, str) else str(url)
    pieces: list[str] = []
    match = _USERINFO.search(text)
    if match is not None:
        _, colon, password = match.group(1).partition(":")
        if colon and password:
            pieces.append(password)
            pieces.extend(re.split(r"[#?/@]", password))
    for param in _PARAM.finditer(text):
        if param.group(3) and _is_secret_key(param.group(2)):
            pieces.append(param.group(3))
    return tuple(sorted({p for p in pieces if p}, key=lambda p: (-len(p), p)))
