"""Which of many wildcard rules could match a path, without trying each: :class:`WildIndex`.

Google tries every rule on every path; so did this matcher, and a file of a thousand
many-``*`` rules made one check cost milliseconds.  Past :data:`INDEXED` rules (and their
pieces), the matcher and the line detail ask a :class:`WildIndex` instead.  Every rule is
filed under one condition that a path it matches must meet: its literal prefix (looked up
by length, as plain rules are), the tail a ``$`` rule must end with (looked up by length
from the end), the whole path of a ``/a$`` rule, or one literal piece the path must contain
(its longest).  Many such pieces are screened together by a
:class:`.piece_screen.PieceScreen` (the path's grams read and looked up in C, or the pieces'
first eight characters when they are crowded on few grams).  The rules that pass are then
checked in full by the caller, in priority order, until the first that matches; past the
first ``_CULL`` of them, those whose shared walk (:class:`.chain.Walk`) fails on the path,
or whose last piece is not found from where it ends, are dropped in C before the loop
reaches them (:class:`_Culled`).  No verdict changes: a rule left out could not have matched.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain as _joined
from itertools import compress, repeat
from operator import itemgetter, le

from .chain import Walk, share_walks
from .linear_find import risky
from .piece_screen import PieceScreen
from .shapes import EXACT, MANY_END, ONE, ONE_END, Shaped

#: Wildcard rules, plus the pieces of their chains, past which a :class:`WildIndex` picks
#: the few a path could match (fewer are each tried in turn, which costs less).
INDEXED = 768
_BUCKET = 8  # a prefix or tail shared by more rules than this files them by piece instead
_CULL = 32  # candidates past this many are culled by their shared walks first ...
_PER_WALK = 2  # ... when each distinct walk serves this many of them on average
_FIRST_PIECE = itemgetter(2)  # of a Screened rule


#: A rule as WildIndex files it: a shaped rule (see shapes.Shaped), whatever its payload.
Screened = Shaped[object]


def _number_walks(
    rules: Sequence[Screened],
) -> tuple[tuple[Walk, ...], tuple[int, ...], tuple[str, ...]]:
    """The distinct shared walks of ``rules`` (:func:`share_walks`), each rule's number
    among them, from 1 (0: a rule without one), and the piece it must find where its walk
    ends ("" when that is not the whole of its check: see :class:`_Culled`)."""
    numbers: dict[Walk, int] = {}  # by identity: a walk is shared by being the same object
    walk_of: list[int] = []
    lasts: list[str] = []
    for _, _, _, _, chain, _ in rules:
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
        walks: tuple[Walk, ...],
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
            _, shape, first, _, _, _ = rule
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
                    chain = rule[4]
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
        self._walks: tuple[Walk, ...] = ()
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
    _, shape, _, second, chain, _ = rule
    if shape == ONE_END:
        return second
    if shape == MANY_END and chain is not None:
        return chain.last
    return ""


def _piece_of(rule: Screened) -> str:
    """A piece the path must contain past the prefix (the longest: the rarest guess)."""
    _, shape, _, second, chain, _ = rule
    if shape == ONE:
        return second
    if chain is None:
        return ""
    if chain.anchored:
        return max(chain.middle, key=len)
    return max(chain.pieces, key=len)


def index_for(rules: Sequence[Screened], weight: int) -> WildIndex | None:
    """A :class:`WildIndex` of ``rules`` when their ``weight`` (rules and pieces) is past
    :data:`INDEXED`, their chains sharing the walks they have in common; else None."""
    if weight <= INDEXED:
        return None
    share_walks(rule[4] for rule in rules if rule[4] is not None)
    return WildIndex(rules)
