"""Path extraction and pattern matching, with Google's semantics and linear worst cases.

Google's ``Matches()`` keeps a set of positions per pattern byte.  For patterns made of
literal pieces separated by ``*`` the same answer comes from a greedy left-to-right search:
each piece is found at its leftmost position (``str.find``, in C), and a final ``$`` only
asks that the last piece end the path.  No backtracking, no regular expressions, so a
hostile pattern costs O(len(path) + len(pattern)).
"""

from __future__ import annotations


def path_params_query(url: str) -> str:
    """The part of ``url`` Google matches: path, params and query, without the fragment.

    A transcription of ``GetPathParamsQuery`` in robots.cc; the URL is not normalised.
    """
    if url.startswith("https://"):
        start = 8
        search_start = 0
    elif url.startswith("http://"):
        start = 7
        search_start = 0
    else:
        search_start = 2 if url.startswith("//") else 0
        early = _first_of(url, search_start)
        proto = url.find("://", search_start)
        # "://" marks the scheme only when no path, params or query starts before it.
        start = search_start if proto < 0 or 0 <= early < proto else proto + 3
    path_start = _first_of(url, start)
    if path_start < 0:
        return "/"
    hash_at = url.find("#", search_start)
    if 0 <= hash_at < path_start:
        return "/"
    path = url[path_start:hash_at] if hash_at >= 0 else url[path_start:]
    if "\0" in path:  # the reference handles the path as a C string
        path = path[: path.index("\0")]
    if path[:1] != "/":
        path = "/" + path
    return path


def _first_of(url: str, start: int) -> int:
    """Index of the first ``/``, ``?`` or ``;`` at or after ``start``, or -1."""
    end = url.find("/", start)
    stop = end if end >= 0 else len(url)
    query = url.find("?", start, stop)
    if query >= 0:
        end = stop = query
    params = url.find(";", start, stop)
    if params >= 0:
        end = params
    return end


def wildcard_match(path: str, pieces: tuple[str, ...], anchored: bool) -> bool:
    """Match ``pieces`` (a pattern split on ``*``, first piece already checked as a prefix).

    ``pieces[0]`` is the literal prefix the caller has verified with ``startswith``; the
    rest are found greedily.  With ``anchored`` (a final ``$``), the last piece must end the
    path at or after where the greedy search got to.
    """
    pos = len(pieces[0])
    last = len(pieces) - 1
    for i in range(1, last):
        piece = pieces[i]
        found = path.find(piece, pos)
        if found < 0:
            return False
        pos = found + len(piece)
    tail = pieces[last]
    if anchored:
        if last == 0:
            return len(path) == pos
        return len(path) - len(tail) >= pos and path.endswith(tail)
    if last == 0:
        return True
    return path.find(tail, pos) >= 0


def priority(path: str, pattern: str) -> int:
    """Google's match priority: the normalised pattern's length if it matches, else -1.

    The empty pattern matches everything with priority 0.  Shared by the rules' reference
    replay and the content-usage rules, which match paths "as for Allow and Disallow".
    """
    if not pattern:
        return 0
    anchored = pattern.endswith("$")
    pieces = tuple((pattern[:-1] if anchored else pattern).split("*"))
    if path.startswith(pieces[0]) and wildcard_match(path, pieces, anchored):
        return len(pattern)
    return -1
