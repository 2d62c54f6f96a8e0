"""Wildcard rules at any scale: the greedy search, and screens that skip most rules unseen.

A rule with ``*`` or a final ``$`` matches when its literal pieces occur in the path in
order (the greedy search of :func:`.path_match.wildcard_match`: each piece at its leftmost
place after the previous one).  Google tries every rule on every path; so did this matcher, and a
file of a thousand many-``*`` rules made one check cost milliseconds.  What bounds it here,
without changing a verdict:

* :class:`WildIndex` answers "which of these rules could match this path?" without trying
  each.  Every rule is filed under one condition that a path it matches must meet: its
  literal prefix (looked up by length, as plain rules are), the tail a ``$`` rule must end
  with (looked up by length from the end), the whole path of a ``/a$`` rule, or one literal
  piece the path must contain (its longest).  Many such pieces are screened together by
  their grams, the path's grams read and looked up in C (:class:`.piece_screen.PieceScreen`),
  or by their first eight characters when they are crowded on few grams.
  The rules that pass are then checked in full, in priority order, until the first that
  matches; past the first ``_CULL`` of them, those whose shared walk (below) fails on the
  path, or whose last piece is not found from where it ends, are dropped in C before the
  loop reaches them (:class:`_Culled`).
* :class:`Chain` runs the greedy search with a length floor; runs of one piece
  (``*a*a*a…``) are counted in C rather than found one by one, and a stretch of
  one-character pieces is walked in one pass of an iterator, in C; the walk up to the last
  piece is shared by the rules that have the same one, and done once per path; a rule
  without a walk searches its last piece first; and pieces for which ``str.find`` could be
  quadratic are searched the linear way (:func:`.linear_find.risky`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain as _joined
from itertools import compress, repeat
from operator import contains, eq, itemgetter, le, length_hint
from typing import Any

from .linear_find import find, risky
from .piece_screen import PieceScreen

# Shapes of wildcard and anchored rules, each checked inline by the matcher.
PREFIX, EXACT, ONE, ONE_END, MANY, MANY_END = range(6)
ANCHORED = (EXACT, ONE_END, MANY_END)
_FIRST_PIECE = itemgetter(1)  # of a Screened rule

__all__ = ["Chain", "WildIndex", "find", "risky", "share_walks"]

_RUN_LOOP = 8  # a run of one piece longer than this is counted, not found piece by piece
_BUCKET = 8  # a prefix or tail shared by more rules than this files them by piece instead
_BACK = 32  # a last piece shorter than this is searched first, from the path's end
_CHARS = 16  # a walk's stretch of this many one-character pieces is walked in one pass
_SCAN = 8  # ... unless the path left is this many times longer than the stretch
_CULL = 32  # candidates past this many are culled by their shared walks first ...
_PER_WALK = 2  # ... when each distinct walk serves this many of them on average


class _Walk:
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
        self.walk: _Walk | None = None

    def _prepare(self) -> int:
        """Work out the length floor, whether the last piece is risky, and the walk."""
        middle, last = self.middle, self.last
        self.danger = not self.anchored and len(last) >= 32 and risky(last)
        if _special(middle) and self.walk is None:  # a shared walk (share_walks) already does it
            self.walk = _Walk(self.start, middle)
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
    """Whether a chain's middle needs a :class:`_Walk`: runs, risky pieces, or many pieces."""
    return (len(middle) >= _CHARS) or (len(middle) > 1 and any(map(eq, middle, middle[1:]))) or (
        bool(middle) and max(map(len, middle)) >= 32 and any(map(risky, middle))
    )


def share_walks(chains: Iterable[Chain]) -> None:
    """Give the chains with the same prefix length and middle one shared :class:`_Walk`."""
    groups: dict[tuple[int, tuple[str, ...]], list[Chain]] = {}
    for chain in chains:
        groups.setdefault((chain.start, chain.middle), []).append(chain)
    for (start, middle), group in groups.items():
        if len(group) > 1 and len(middle) > 1:
            walk = _Walk(start, middle)
            for chain in group:
                chain.walk = walk


# What WildIndex needs of a rule: (shape, first piece, second piece, chain).
Screened = tuple[int, str, str, Chain | None]


def _number_walks(
    rules: Sequence[Screened],
) -> tuple[tuple[_Walk, ...], tuple[int, ...], tuple[str, ...]]:
    """The distinct shared walks of ``rules`` (:func:`share_walks`), each rule's number
    among them, from 1 (0: a rule without one), and the piece it must find where its walk
    ends ("" when that is not the whole of its check: see :class:`_Culled`)."""
    numbers: dict[_Walk, int] = {}  # by identity: a walk is shared by being the same object
    walk_of: list[int] = []
    lasts: list[str] = []
    for _, _, _, chain in rules:
        walk = chain.walk if chain is not None else None
        if walk is None or chain is None:
            walk_of.append(0)
            lasts.append("")
            continue
        walk_of.append(numbers.setdefault(walk, len(numbers) + 1))
        last = chain.last
        # str.find from the walk's end is the rest of Chain.match, unless the chain is
        # anchored or its last piece is searched the linear way.
        plain = not chain.anchored and not (len(last) >= 32 and risky(last))
        lasts.append(last if plain else "")
    return tuple(numbers), tuple(walk_of), tuple(lasts)


class _Culled:
    """Candidates less the rules that their shared walk and last piece rule out.

    Each would cost a turn of the caller's loop to learn that its walk, done once, failed,
    or that its last piece is not after it (1,000 rules of fifteen letters in order and a
    tail of their own, on 25 walks: 187 turns of about 1.5 µs for a path that holds the
    tails before the letters).  Here each walk is done once, and each rule's last piece
    looked for from where its walk ends, in C (``map`` of ``str.find``), when the caller's
    loop reaches them (``itertools.chain`` asks for this iterable only then).  A rule that
    passes is then checked in full, so the cull only drops what could not match.  Most
    checks are decided among the first ``_CULL``.  Past them, the walks are done only where
    there are ``_PER_WALK`` rules or more per walk; one done for rules the loop then never
    reaches (an earlier rule decided) costs no more than a path that no rule decides, which
    does every walk: the file's worst check is not raised.
    """

    __slots__ = ("found", "lasts", "path", "walk_of", "walks")

    def __init__(
        self,
        walks: tuple[_Walk, ...],
        walk_of: tuple[int, ...],
        lasts: tuple[str, ...],
        path: str,
        found: list[int],
    ) -> None:
        self.walks = walks
        self.walk_of = walk_of  # the number of each rule's walk, from 1 (0: none)
        self.lasts = lasts  # what each rule finds from where its walk ends ("": no cull)
        self.path = path
        self.found = found  # every candidate, the first _CULL included (more than one past)

    def __iter__(self) -> Iterator[int]:
        rest = self.found[_CULL:]
        kinds: tuple[int, ...] = itemgetter(*rest)(self.walk_of)  # two or more: a tuple
        numbers = set(kinds)
        if len(numbers) * _PER_WALK > len(rest):
            return iter(rest)
        walks, path = self.walks, self.path
        ends = {n: walks[n - 1].end(path) if n else 0 for n in numbers}  # 0: no walk
        if not all(end >= 0 for end in ends.values()):  # a rule whose walk fails is dropped
            if all(end < 0 for end in ends.values()):
                return iter(())
            keep = list(map(le, repeat(0), map(ends.__getitem__, kinds)))
            rest = list(compress(rest, keep))
            kinds = tuple(compress(kinds, keep))
        lasts = tuple(map(self.lasts.__getitem__, rest))
        if not any(lasts):
            return iter(rest)
        # Then one whose last piece is not found from where its walk ends ("" is found).
        places = map(path.find, lasts, map(ends.__getitem__, kinds))
        return compress(rest, map(le, repeat(0), places))


class WildIndex:
    """Which of many wildcard rules could match a path, by conditions each must meet.

    Built from the rules in the order the caller tries them; :meth:`candidates` returns
    the positions of those that pass their screen, in that order.  Every screen is a
    necessary condition of a match (a prefix the path starts with, a tail it ends with,
    the whole path of a ``/a$`` rule, a piece it contains), so a rule left out could not
    have matched, and the caller's full check decides the rest exactly as before.  A prefix
    or tail that many rules share screens few of them out: those rules get an index of
    their own under it (filed by their other conditions), consulted only for a path that
    has it.
    """

    __slots__ = (
        "_always",
        "_exact",
        "_lasts",
        "_pieces",
        "_prefix_lengths",
        "_prefixes",
        "_suffix_lengths",
        "_suffixes",
        "_walk_of",
        "_walks",
    )

    def __init__(
        self,
        rules: Sequence[Screened],
        ids: Sequence[int] | None = None,
        prefixed: bool = True,
        tailed: bool = True,
    ) -> None:
        """File ``rules``; ``ids`` are their positions (by default 0, 1, …).

        ``prefixed`` and ``tailed`` say whether to file by prefix and by tail: a nested
        index does not file again by what selected it.
        """
        places = range(len(rules)) if ids is None else ids
        tails = list(map(_tail_of, rules)) if tailed else [""] * len(rules)
        # Counted in C; "" and "/" (a first piece of one character) start every path.
        prefix_count = Counter(map(_FIRST_PIECE, rules)) if prefixed else Counter()
        for first in [first for first in prefix_count if len(first) <= 1]:
            del prefix_count[first]
        tail_count = Counter(tails)
        del tail_count[""]  # (a Counter's del of a missing key is no error)
        always: list[int] = []
        exact: dict[str, list[int]] = {}
        prefixes: dict[str, list[int]] = {}
        suffixes: dict[str, list[int]] = {}
        pieces: dict[str, list[int]] = {}
        # Pieces of a rule whose full check does not start with one search for them.
        searched: set[str] = set()
        by_prefix: dict[str, list[int]] = {}  # rules (their index in ``rules``) to nest
        by_tail: dict[str, list[int]] = {}
        for at, (rule, tail) in enumerate(zip(rules, tails, strict=True)):
            shape, first, _, _ = rule
            place = places[at]
            if shape == EXACT:
                exact.setdefault(first, []).append(place)
                continue
            shared = prefix_count.get(first, 0) if prefixed and len(first) > 1 else 0
            if 0 < shared <= _BUCKET:
                prefixes.setdefault(first, []).append(place)
                continue
            many = tail_count[tail] if tail else 0
            if 0 < many <= _BUCKET:
                suffixes.setdefault(tail, []).append(place)
            elif many and (not shared or many <= shared):
                by_tail.setdefault(tail, []).append(at)
            elif shared:
                by_prefix.setdefault(first, []).append(at)
            else:
                piece = _piece_of(rule)
                if piece:
                    pieces.setdefault(piece, []).append(place)
                    chain = rule[3]
                    if chain is not None and not chain.searches_first(piece):
                        searched.add(piece)
                else:  # "/*", "*": every path
                    always.append(place)
        self._always = tuple(always)
        self._exact = {path: tuple(group) for path, group in exact.items()}
        self._prefixes: dict[str, tuple[int, ...] | WildIndex] = {
            prefix: tuple(group) for prefix, group in prefixes.items()
        }
        for prefix, group in by_prefix.items():
            self._prefixes[prefix] = WildIndex(
                [rules[at] for at in group], [places[at] for at in group], False, tailed
            )
        self._suffixes: dict[str, tuple[int, ...] | WildIndex] = {
            tail: tuple(group) for tail, group in suffixes.items()
        }
        for tail, group in by_tail.items():
            self._suffixes[tail] = WildIndex(
                [rules[at] for at in group], [places[at] for at in group], prefixed, False
            )
        self._prefix_lengths = tuple(sorted(set(map(len, self._prefixes))))
        self._suffix_lengths = tuple(sorted(set(map(len, self._suffixes))))
        self._pieces = PieceScreen(pieces, searched) if pieces else None
        # Each rule's shared walk, numbered from 1 (0: none); only the outermost index culls.
        self._walks: tuple[_Walk, ...] = ()
        self._walk_of: tuple[int, ...] = ()
        self._lasts: tuple[str, ...] = ()
        if ids is None:
            self._walks, self._walk_of, self._lasts = _number_walks(rules)

    def candidates(self, path: str) -> Iterable[int]:
        """The positions of the rules that could match ``path``, in ascending order.

        Past the first ``_CULL``, many candidates that share few walks (rules alike but
        for their last piece) are culled by their walks, if the caller gets that far
        (:class:`_Culled`).
        """
        found = list(self._always)
        self._collect(path, found)
        found.sort()
        if len(found) > _CULL + 1 and self._walks:
            culled = _Culled(self._walks, self._walk_of, self._lasts, path, found)
            return _joined(found[:_CULL], culled)
        return found

    def _collect(self, path: str, found: list[int]) -> None:
        """Add to ``found`` the positions of the rules that pass their screens, unsorted."""
        exact = self._exact.get(path)
        if exact is not None:
            found.extend(exact)
        size = len(path)
        if self._prefix_lengths:
            get = self._prefixes.get
            for length in self._prefix_lengths:
                if length > size:
                    break
                group = get(path[:length])
                if group is None:
                    continue
                if isinstance(group, tuple):
                    found.extend(group)
                else:
                    found.extend(group._always)
                    group._collect(path, found)
        if self._suffix_lengths:
            get = self._suffixes.get
            for length in self._suffix_lengths:
                if length > size:
                    break
                group = get(path[size - length :])
                if group is None:
                    continue
                if isinstance(group, tuple):
                    found.extend(group)
                else:
                    found.extend(group._always)
                    group._collect(path, found)
        if self._pieces is not None:
            self._pieces.present(path, found)


def _tail_of(rule: Screened) -> str:
    """What a ``$`` rule's path must end with; "" for another rule."""
    shape, _, second, chain = rule
    if shape == ONE_END:
        return second
    if shape == MANY_END and chain is not None:
        return chain.last
    return ""


def _piece_of(rule: Screened) -> str:
    """A piece the path must contain past the prefix (the longest: the rarest guess)."""
    shape, _, second, chain = rule
    if shape == ONE:
        return second
    if chain is None:
        return ""
    if chain.anchored:
        return max(chain.middle, key=len)
    return max(chain.pieces, key=len)
