"""A rule's pattern as the matchers file it: plain, or one of six wildcard shapes.

A plain pattern (no ``*``, no final ``$``) matches the paths it starts, and the matcher
looks those up by prefix.  Every other pattern is classified once (:func:`classify`) into a
shape whose test costs one or two C calls, or a :class:`.chain.Chain` for many pieces;
:func:`first_match` is the one place those tests are written, and both the verdict's
matcher (:mod:`.matcher`) and the line detail (:mod:`.decision`) try their shaped rules
through it.

A shaped rule is an entry ``(rank, shape, first, second, chain, payload)``: ``rank`` is
``-(2 * priority + is_allow)``, so rules sorted by rank come by priority, an allow before a
disallow of the same priority (Google's tie-break); ``first`` is the literal prefix,
``second`` the piece after the first ``*`` (or ``""``), ``chain`` the pieces of the
many-piece shapes, and ``payload`` what the caller wants back from a match (a verdict, or
the rule to report).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from .chain import Chain
from .linear_find import risky

# The shapes, each with its test in first_match():
PREFIX = 0  # "/a*", "/a*$", "/a**": any path that starts with the prefix
EXACT = 1  # "/a$": the path is the prefix
ONE = 2  # "/a*b": the piece found after the prefix
ONE_END = 3  # "/a*b$": the path ends with the piece, after the prefix
MANY = 4  # "/a*b*c" (or one piece str.find could search in quadratic time): the chain
MANY_END = 5  # "/a*b*c$": the chain, its last piece ending the path

#: The rank bound before any rule matched: every rule ranks below it.
NO_MATCH = 0

_Payload = TypeVar("_Payload")
#: A shaped rule: (rank, shape, first piece, second piece, chain, payload).
Shaped = tuple[int, int, str, str, Chain | None, _Payload]


def index_htm_fallback(pattern: str) -> str | None:
    """Google's rule: ``Allow: /d/index.htm*`` also allows ``/d/`` itself (as ``/d/$``)."""
    slash = pattern.rfind("/")
    if slash >= 0 and pattern.startswith("/index.htm", slash):
        return pattern[: slash + 1] + "$"
    return None


def classify(pattern: str, allow: bool, payload: _Payload) -> Shaped[_Payload] | None:
    """A pattern with ``*`` or a final ``$`` as a shaped rule; None when it can never match.

    A pattern that starts with neither ``/`` nor ``*`` never matches a path.  Only the
    many-piece shapes, and a risky single piece (searched the linear way), have a chain.
    """
    if pattern[0] != "/" and pattern[0] != "*":
        return None
    rank = -2 * len(pattern) - allow
    anchored = pattern[-1] == "$"
    parts = (pattern[:-1] if anchored else pattern).split("*")
    first = parts[0]
    if len(parts) == 2:  # one "*": the usual "/a*", "/*x", "/*.pdf$"
        second = parts[1]
        if not second:  # "/a*", "/a*$": any tail
            return (rank, PREFIX, first, "", None, payload)
        if anchored:
            return (rank, ONE_END, first, second, None, payload)
        if len(second) >= 32 and risky(second):  # searched by a chain (see linear_find.risky)
            return (rank, MANY, first, second, Chain(first, (second,), False), payload)
        return (rank, ONE, first, second, None, payload)
    if len(parts) == 1:  # "/a$" ("$" alone never gets here: it starts with "$")
        return (rank, EXACT, first, "", None, payload)
    pieces = tuple(filter(None, parts[1:]))
    if not pieces:  # "/a**", "/a**$": any tail
        return (rank, PREFIX, first, "", None, payload)
    if anchored and not parts[-1]:
        anchored = False  # "*$" at the end matches any tail
    if len(pieces) == 1:  # "/a**b", "/a*b*$"
        second = pieces[0]
        if anchored:
            return (rank, ONE_END, first, second, None, payload)
        if len(second) >= 32 and risky(second):
            return (rank, MANY, first, second, Chain(first, pieces, False), payload)
        return (rank, ONE, first, second, None, payload)
    shape = MANY_END if anchored else MANY
    return (rank, shape, first, pieces[0], Chain(first, pieces, anchored), payload)


def first_match(entries: Iterable[Shaped[_Payload]], path: str, bound: int) -> _Payload | None:
    """The payload of the first entry that matches ``path``, among those ranked below ``bound``.

    ``entries`` come by rank (sorted, or a :class:`.wild_index.WildIndex`'s candidates), and
    ``bound`` is the rank of the best match found so far (:data:`NO_MATCH` for none): the
    first entry not ranked below it ends the search, since no later one could win.  ``path``
    starts with ``/``.
    """
    size = len(path)
    for rank, shape, first, second, chain, payload in entries:
        if rank >= bound:
            break
        if first != "/" and not path.startswith(first):  # every path starts with "/"
            continue
        if shape == ONE:
            hit = path.find(second, len(first)) >= 0
        elif shape == ONE_END:
            hit = path.endswith(second) and size - len(second) >= len(first)
        elif shape == PREFIX:
            hit = True
        elif shape == EXACT:
            hit = size == len(first)
        else:
            assert chain is not None
            hit = chain.match(path)
        if hit:
            return payload
    return None
