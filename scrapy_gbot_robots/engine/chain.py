"""A wildcard rule's pieces after its prefix, found by the greedy search: :class:`Chain`.

A rule with two ``*`` or more matches when its literal pieces occur in the path in order
(the greedy search of :func:`.path_match.wildcard_match`: each piece at its leftmost place
after the previous one).  :class:`Chain` gives the same answer with shortcuts, so that no
rule costs more than a few passes over the path: a length floor; runs of one piece
(``*a*a*a…``) counted in C rather than found one by one; a stretch of one-character pieces
walked in one pass of an iterator, in C; the walk up to the last piece (:class:`Walk`)
shared by the rules that have the same one, and done once per path; a rule without a walk
searching its last piece first; and pieces for which ``str.find`` could be quadratic
searched the linear way (:func:`.linear_find.risky`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import contains, eq, length_hint
from typing import Any

from .linear_find import find, risky

_RUN_LOOP = 8  # a run of one piece longer than this is counted, not found piece by piece
_BACK = 32  # a last piece shorter than this is searched first, from the path's end
_CHARS = 16  # a walk's stretch of this many one-character pieces is walked in one pass
_SCAN = 8  # ... unless the path left is this many times longer than the stretch


class Walk:
    """The greedy search through a chain's pieces but its last, from where its prefix ends.

    ``steps`` holds ``(piece, count, risky)``: ``count`` successive greedy finds of one
    piece are ``count`` non-overlapping occurrences from where the search is, which is what
    ``str.count`` counts, so the end of the last of them is found by bisecting on it; a
    stretch of one-character pieces is one step, walked in one pass (:func:`_after_chars`).  The
    last answer is kept with its path, so that the rules sharing a walk do it once per path
    (a path is a new string each check; the one kept cannot be freed, so ``is`` is sound).
    """

    __slots__ = ("_seen", "floor", "start", "steps")

    def __init__(self, start: int, pieces: Sequence[str]) -> None:
        self.start = start
        # A shorter path cannot hold the pieces (with none, the walk ends at ``start``).
        self.floor = start + sum(map(len, pieces)) if pieces else 0
        steps: list[tuple[str, int, bool]] = []
        for piece in pieces:
            if steps and steps[-1][0] == piece:
                steps[-1] = (piece, steps[-1][1] + 1, steps[-1][2])
            else:
                steps.append((piece, 1, risky(piece)))
        self.steps = _chars_together(steps)
        self._seen: tuple[str | None, int] = (None, 0)

    def end(self, path: str) -> int:
        """Where the search is after every piece, or -1 when one is missing."""
        seen = self._seen
        if seen[0] is path:
            return seen[1]
        if len(path) < self.floor:  # (a chain's check tests its own floor first; a cull not)
            return -1
        pos = self.start
        for piece, count, danger in self.steps:
            if count == 1:
                # str.find inline unless risky: a walk may take thousands of steps.
                pos = find(path, piece, pos, True) if danger else path.find(piece, pos)
                if pos < 0:
                    break
                pos += len(piece)
            elif count:
                pos = _after_run(path, piece, count, pos, danger)
                if pos < 0:
                    break
            else:  # single characters, one after another (see _chars_together)
                pos = _after_chars(path, piece, pos)
                if pos < 0:
                    break
        self._seen = (path, pos)
        return pos


def _chars_together(steps: list[tuple[str, int, bool]]) -> tuple[tuple[str, int, bool], ...]:
    """``steps`` with each stretch of ``_CHARS`` or more one-character pieces made one step.

    Such a step is ``(the characters, 0, False)``, walked by :func:`_after_chars`.
    """
    out: list[tuple[str, int, bool]] = []
    stretch: list[str] = []
    for step in [*steps, ("", 0, False)]:
        if step[1] == 1 and len(step[0]) == 1:
            stretch.append(step[0])
            continue
        if len(stretch) >= _CHARS:
            out.append(("".join(stretch), 0, False))
        else:
            out.extend((char, 1, False) for char in stretch)
        stretch = []
        if step[0]:
            out.append(step)
    return tuple(out)


def _after_chars(path: str, chars: str, pos: int) -> int:
    """Where the greedy search is after finding each of ``chars`` in turn from ``pos``; -1 if not.

    The greedy search for one character after another is a scan of the path that takes
    each at its next occurrence: ``char in iterator`` consumes the iterator up to it, in C,
    so the whole stretch is one pass over the rest of the path.  When the characters are
    few for what is left of the path, one ``str.find`` each (memchr) is cheaper.
    """
    size = len(path)
    if len(chars) * _SCAN < size - pos:
        for char in chars:
            pos = path.find(char, pos)
            if pos < 0:
                return -1
            pos += 1
        return pos
    # Any: ``in`` on an iterator is a scan, which typing's Container does not describe.
    rest: Any = iter(path[pos:])
    if not all(map(contains, repeat(rest), chars)):
        return -1
    return size - length_hint(rest)


def _after_run(path: str, piece: str, count: int, pos: int, danger: bool) -> int:
    """Where the greedy search is after ``count`` finds of ``piece`` from ``pos``; -1 if short."""
    width = len(piece)
    if danger or count <= _RUN_LOOP:
        for _ in range(count):
            pos = find(path, piece, pos, danger)
            if pos < 0:
                return -1
            pos += width
        return pos
    if path.count(piece, pos) < count:
        return -1
    # count(piece, pos, end) counts the greedy occurrences that end by ``end``: the least
    # end at which it reaches ``count`` is where the last of them ends.
    low, high = pos + count * width, len(path)
    while low < high:
        middle = (low + high) // 2
        if path.count(piece, pos, middle) >= count:
            high = middle
        else:
            low = middle + 1
    return low


class Chain:
    """The pieces of a rule with two ``*`` or more, after its literal prefix.

    ``match`` is :func:`.path_match.wildcard_match` for a path that starts with the prefix (the
    caller has checked it): the pieces found greedily in order, and with a final ``$`` the
    last one ending the path.  A path shorter than the prefix and the pieces together
    (``need``) cannot match, and is turned away before any search.  ``middle`` is what is
    searched before the last piece; ``walk`` searches it instead when it has runs, risky
    pieces or many pieces, or when other rules share it (see :func:`share_walks`).  Without
    a walk, the last piece is searched first (``rfind``; ``endswith`` with ``$``): a path
    without it costs one search, and the middle's searches stop where it must start.  What
    the search needs beyond the pieces is worked out on the first match: most rules of most
    files are never tried, and a file's first check pays for all of them.
    """

    __slots__ = ("anchored", "back", "danger", "last", "middle", "need", "start", "walk")

    def __init__(self, first: str, rest: tuple[str, ...], anchored: bool) -> None:
        self.start = len(first)
        self.anchored = anchored
        self.middle = rest[:-1]
        self.last = rest[-1]  # found after the middle; with ``anchored``, ends the path
        self.need = -1  # not worked out yet (see _prepare)
        self.back = not anchored and len(self.last) < _BACK  # the last piece found by rfind
        self.walk: Walk | None = None

    def _prepare(self) -> int:
        """Work out the length floor, whether the last piece is risky, and the walk."""
        middle, last = self.middle, self.last
        self.danger = not self.anchored and len(last) >= 32 and risky(last)
        if _special(middle) and self.walk is None:  # a shared walk (share_walks) already does it
            self.walk = Walk(self.start, middle)
        self.need = need = self.start + sum(map(len, middle)) + len(last)
        return need

    def __lt__(self, other: Chain) -> bool:
        """An order, so that rules whose other fields tie still sort (how is immaterial)."""
        return (self.middle, self.last) < (other.middle, other.last)

    @property
    def pieces(self) -> tuple[str, ...]:
        """The pieces after the prefix, in order."""
        return (*self.middle, self.last)

    def match(self, path: str) -> bool:
        size = len(path)
        need = self.need
        if need < 0:
            need = self._prepare()
        if size < need:
            return False
        last = self.last
        walk = self.walk
        if walk is not None:  # done once per path, for every rule that shares it
            pos = walk.end(path)
            if pos < 0:
                return False
            if self.anchored:
                return size - len(last) >= pos and path.endswith(last)
            if self.danger:
                return find(path, last, pos, True) >= 0
            return path.find(last, pos) >= 0
        # The last piece first (a necessary condition, one search in C): a path that lacks
        # it costs no walk, and the walk's searches stop where the last piece must start.
        if self.anchored:
            if not path.endswith(last):
                return False
            end = size - len(last)
        elif self.back:
            # Some occurrence starts where the walk ends or after iff the last one does
            # (a piece under _BACK characters: the simple reverse search costs at most
            # that many compares per place).
            end = path.rfind(last)
            if end < need - len(last):
                return False
        else:
            end = size
        pos = self.start
        for piece in self.middle:
            # An occurrence that ends past ``end`` leaves the last piece no room, and a
            # later one ends later still: bounding the search changes no answer.
            pos = path.find(piece, pos, end)
            if pos < 0:
                return False
            pos += len(piece)
        if self.anchored or self.back:
            return pos <= end
        if self.danger:
            return find(path, last, pos, True) >= 0
        return path.find(last, pos) >= 0

    def searches_first(self, piece: str) -> bool:
        """Whether :meth:`match` costs little more than one search for ``piece`` without it.

        So a screen that found ``piece``'s grams in a path need not confirm it by a
        search: this chain's check starts with that search (its last piece, by rfind),
        or with a plain walk done once per path for every rule that shares it.
        """
        return (
            not self.anchored
            and piece == self.last
            and len(piece) < _BACK
            and not _special(self.middle)
        )


def _special(middle: tuple[str, ...]) -> bool:
    """Whether a chain's middle needs a :class:`Walk`: runs, risky pieces, or many pieces."""
    return (
        (len(middle) >= _CHARS)
        or (len(middle) > 1 and any(map(eq, middle, middle[1:])))
        or (bool(middle) and max(map(len, middle)) >= 32 and any(map(risky, middle)))
    )


def share_walks(chains: Iterable[Chain]) -> None:
    """Give the chains with the same prefix length and middle one shared :class:`Walk`."""
    groups: dict[tuple[int, tuple[str, ...]], list[Chain]] = {}
    for chain in chains:
        groups.setdefault((chain.start, chain.middle), []).append(chain)
    for (start, middle), group in groups.items():
        if len(group) > 1 and len(middle) > 1:
            walk = Walk(start, middle)
            for chain in group:
                chain.walk = walk
