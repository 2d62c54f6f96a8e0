"""Secrets out of every text that names a store or a lot: one function, :func:`redacted`.

A Redis URL may carry a password in two places, both read by redis-py: the userinfo
(``redis://user:PASSWORD@host:6379/0``) and the query (``?password=PASSWORD``, redis-py's
documented form for ``unix://`` sockets; ``?username=`` likewise). Log lines, error messages
(``ConfigError``), stats, the report and the command line show a store by its URL, so they all
pass it (or a whole message that may quote it) through :func:`redacted` first.

It rewrites nothing else: no parsing into parts and back, so a malformed URL (a port that is
not a number, an IPv6 host without its closing bracket) keeps its shape, an IPv6 host keeps
its brackets, and nothing can raise. Pure: the standard library only.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["HIDDEN", "redacted"]

#: What a secret is replaced with.
HIDDEN = "***"

#: Query keys whose value is a secret (compared after %-decoding, case-insensitively).
SECRET_KEYS = frozenset({"password", "username"})

# ``//`` then the authority's userinfo: up to the last ``@`` before the first ``?``, ``#`` or
# whitespace (a password may hold an unencoded ``@`` or ``/``; hiding a little too much is the
# safe side).
_USERINFO = re.compile(r"//([^?#\s]*)@")
# A query parameter: ``?`` or ``&`` or ``;``, a key, ``=``, a value up to the next separator.
_PARAM = re.compile(r"([?&;])([^=&;#\s]+)=([^&;#\s]*)")


def redacted(text: object) -> str:
    """``text`` (a store URL, or a message quoting one) with its secrets shown as ``***``.

    Hidden: the password of a URL's userinfo (``redis://user:***@host/0``; the user name is
    kept) and the values of the ``password`` and ``username`` query keys
    (``unix:///run/redis.sock?db=0&password=***``). Everything else is kept as written.
    Never raises, whatever ``text`` is.
    """
    out = text if isinstance(text, str) else str(text)
    if "@" in out:
        out = _USERINFO.sub(_hide_password, out)
    if "=" in out:
        out = _PARAM.sub(_hide_value, out)
    return out


def _hide_password(match: re.Match[str]) -> str:
    userinfo = match.group(1)
    user, colon, _ = userinfo.partition(":")
    if not colon:
        return match.group(0)  # a user name alone is no secret
    return f"//{user}:{HIDDEN}@"


def _hide_value(match: re.Match[str]) -> str:
    sep, key, value = match.groups()
    if not value or unquote(key).strip().lower() not in SECRET_KEYS:
        return match.group(0)
    return f"{sep}{key}={HIDDEN}"
