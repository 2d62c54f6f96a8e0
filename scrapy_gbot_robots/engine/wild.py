"""Wildcard rules at any scale: the greedy search, and screens that skip most rules unseen.

A rule with ``*`` or a final ``$`` matches when its literal pieces occur in the path in
order (the greedy search of :func:`match.wildcard_match`: each piece at its leftmost place
after the previous one).  Google tries every rule on every path; so did this matcher, and a
file of a thousand many-``*`` rules made one check cost milliseconds.  What bounds it here,
without changing a verdict:

* :class:`WildIndex` answers "which of these rules could match this path?" without trying
  each.  Every rule is filed under one condition that a path it matches must meet: its
  literal prefix (looked up by length, as plain rules are), the tail a ``$`` rule must end
  with (looked up by length from the end), the whole path of a ``/a$`` rule, or one literal
  piece the path must contain (its longest).  Many such pieces are screened together by
  their grams, the path's grams read and looked up in C (:class:`_Pieces`), or by their
  first eight characters when they are crowded on few grams.  The rules that pass are
  then checked in full, in priority order, until the first that matches.
* :class:`Chain` runs the greedy search with a length floor; runs of one piece
  (``*a*a*a…``) are counted in C rather than found one by one; the walk up to the last
  piece is shared by the rules that have the same one, and done once per path; and pieces
  for which ``str.find`` could be quadratic are searched the linear way (:func:`risky`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain as _chained
from itertools import compress, repeat
from operator import and_, eq
from struct import calcsize
from sys import byteorder
from typing import Literal, TypeVar

# Shapes of wildcard and anchored rules, each checked inline by the matcher.
PREFIX, EXACT, ONE, ONE_END, MANY, MANY_END = range(6)
ANCHORED = (EXACT, ONE_END, MANY_END)

# CPython's str.find (fastsearch.h) uses a simple search, O(len(path) * len(piece)) at
# worst, for haystacks under 2,500 characters, or under 30,000 when the needle is shorter
# than 100; beyond, the linear two-way search.  A risky needle (see risky()) is searched
# in the path padded with NULs, which makes the haystack long enough.  The padding never
# changes an answer: a risky needle holds no NUL, so no match can reach into it.
_PAD = "\0" * 30_000
_PAD_FROM = 512  # fewer characters to search than this: even the worst simple search is cheap
_RUN_LOOP = 8  # a run of one piece longer than this is counted, not found piece by piece
_GRAM = 4  # length of the grams many pieces are screened by (shorter pieces: their length)
_DIRECT_KEYS = 64  # up to this many distinct pieces are looked for one by one
_CROWDED = 4  # more pieces per distinct gram than this: filed by head (see _Heads)
_SIGNED = 64  # more pieces of one gram size than this: signatures, and grams read by cast
_BUCKET = 8  # a prefix or tail shared by more rules than this files them by piece instead
_SIGNATURE = 8  # grams of a piece checked against the path's before the piece is looked for


def risky(piece: str) -> bool:
    """Whether ``str.find`` could cost far more than one pass over the path for ``piece``.

    The simple search compares the needle from its start wherever its last character
    matches; consecutive attempts overlap, and so cost more than one pass, only as far as
    the needle's prefix repeats itself.  Its cost stays under ten passes unless some prefix
    of the needle is a block of ``s`` characters repeated eight times or more
    (``piece[s:9s] == piece[:8s]``), as in ``aaaa…ab…`` or ``abab…abc``.  Needles shorter
    than 32 cost at most 32 comparisons per character and are never padded.
    """
    size = len(piece)
    if size < 32 or "\0" in piece:
        return False
    head = piece[:8]
    shift = piece.find(head, 1)
    while shift > 0 and 9 * shift <= size:
        if piece.startswith(piece[: 8 * shift], shift):
            return True
        shift = piece.find(head, shift + 1)
    return False


def find(path: str, piece: str, pos: int, danger: bool) -> int:
    """``path.find(piece, pos)``, searched the linear way when ``danger`` (see :func:`risky`)."""
    if danger and len(path) - pos >= _PAD_FROM:
        return (path + _PAD).find(piece, pos)
    return path.find(piece, pos)


class _Walk:
    """The greedy search through a chain's pieces but its last, from where its prefix ends.

    ``steps`` holds ``(piece, count, risky)``: ``count`` successive greedy finds of one
    piece are ``count`` non-overlapping occurrences from where the search is, which is what
    ``str.count`` counts, so the end of the last of them is found by bisecting on it.  The
    last answer is kept with its path, so that the rules sharing a walk do it once per path
    (a path is a new string each check; the one kept cannot be freed, so ``is`` is sound).
    """

    __slots__ = ("_seen", "start", "steps")

    def __init__(self, start: int, pieces: Sequence[str]) -> None:
        self.start = start
        steps: list[tuple[str, int, bool]] = []
        for piece in pieces:
            if steps and steps[-1][0] == piece:
                steps[-1] = (piece, steps[-1][1] + 1, steps[-1][2])
            else:
                steps.append((piece, 1, risky(piece)))
        self.steps = tuple(steps)
        self._seen: tuple[str | None, int] = (None, 0)

    def end(self, path: str) -> int:
        """Where the search is after every piece, or -1 when one is missing."""
        seen = self._seen
        if seen[0] is path:
            return seen[1]
        pos = self.start
        for piece, count, danger in self.steps:
            if count == 1:
                pos = find(path, piece, pos, danger)
                if pos < 0:
                    break
                pos += len(piece)
            else:
                pos = _after_run(path, piece, count, pos, danger)
                if pos < 0:
                    break
        self._seen = (path, pos)
        return pos


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

    ``match`` is :func:`match.wildcard_match` for a path that starts with the prefix (the
    caller has checked it): the pieces found greedily in order, and with a final ``$`` the
    last one ending the path.  A path shorter than the prefix and the pieces together
    (``need``) cannot match, and is turned away before any search.  ``middle`` is what is
    searched before the last piece; ``walk`` searches it instead when it has runs or risky
    pieces, or when other rules share it (see :func:`share_walks`).  What the search needs
    beyond the pieces is worked out on the first match: most rules of most files are never
    tried, and a file's first check pays for all of them.
    """

    __slots__ = ("anchored", "danger", "last", "middle", "need", "start", "walk")

    def __init__(self, first: str, rest: tuple[str, ...], anchored: bool) -> None:
        self.start = len(first)
        self.anchored = anchored
        self.middle = rest[:-1]
        self.last = rest[-1]  # found after the middle; with ``anchored``, ends the path
        self.need = -1  # not worked out yet (see _prepare)
        self.walk: _Walk | None = None

    def _prepare(self) -> int:
        """Work out the length floor, whether the last piece is risky, and the walk."""
        middle, last = self.middle, self.last
        self.danger = not self.anchored and len(last) >= 32 and risky(last)
        special = (len(middle) > 1 and any(map(eq, middle, middle[1:]))) or (
            bool(middle) and max(map(len, middle)) >= 32 and any(map(risky, middle))
        )
        if special and self.walk is None:  # a shared walk (share_walks) already does it
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
        walk = self.walk
        if walk is None:
            pos = self.start
            for piece in self.middle:
                pos = path.find(piece, pos)
                if pos < 0:
                    return False
                pos += len(piece)
        else:
            pos = walk.end(path)
            if pos < 0:
                return False
        last = self.last
        if self.anchored:
            return size - len(last) >= pos and path.endswith(last)
        if self.danger:
            return find(path, last, pos, True) >= 0
        return path.find(last, pos) >= 0


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
        "_pieces",
        "_prefix_lengths",
        "_prefixes",
        "_suffix_lengths",
        "_suffixes",
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
        tails = [_tail_of(rule) if tailed else "" for rule in rules]
        prefix_count: dict[str, int] = {}
        tail_count: dict[str, int] = {}
        for (_, first, _, _), tail in zip(rules, tails, strict=True):
            if prefixed and len(first) > 1:  # "" and "/" start every path
                prefix_count[first] = prefix_count.get(first, 0) + 1
            if tail:
                tail_count[tail] = tail_count.get(tail, 0) + 1
        always: list[int] = []
        exact: dict[str, list[int]] = {}
        prefixes: dict[str, list[int]] = {}
        suffixes: dict[str, list[int]] = {}
        pieces: dict[str, list[int]] = {}
        searched: set[str] = set()  # pieces of a rule whose full check is more than a find
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
                    if shape != ONE or rule[3] is not None:
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
        self._pieces = _Pieces(pieces, searched) if pieces else None

    def candidates(self, path: str) -> list[int]:
        """The positions of the rules that could match ``path``, in ascending order."""
        found = list(self._always)
        self._collect(path, found)
        found.sort()
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


# A piece screened by grams: (piece, the rules filed under it, risky, where the gram it is
# filed under first occurs in it, that gram as an integer).
_Filed = tuple[str, tuple[int, ...], bool, int, int]
_ByText = dict[str, tuple[_Filed, ...]]


class _Signed:
    """Many pieces of one gram size, filed so that a path's grams screen them in C.

    ``by_number`` maps a gram (as an integer) to the numbers of the pieces filed under it
    (most often one: pieces are spread over grams of their own where they can), and is
    probed with every gram of the path, in C.  ``others`` holds each piece's other
    signature grams: a piece is a hit only when the path's gram set holds them all, which
    ``compress`` checks for every hit in one pass, in C, so that a path holding every filed
    gram but few pieces (the hostile case) costs no Python step per hit.
    """

    __slots__ = ("by_number", "entries", "ids", "others", "sure")

    def __init__(
        self, entries: tuple[_Filed, ...], others: tuple[tuple[int, ...], ...], searched: set[str]
    ) -> None:
        self.entries = entries
        self.others = others
        by_number: dict[int, list[int]] = {}
        for number, entry in enumerate(entries):
            by_number.setdefault(entry[4], []).append(number)
        self.by_number = {gram: tuple(group) for gram, group in by_number.items()}
        self.ids = tuple(entry[1] for entry in entries)
        # Whether no piece needs confirming: every rule filed is checked by one find of its
        # piece, which confirms it as cheaply, and only while it could still decide.
        self.sure = not any(entry[0] in searched for entry in entries)

    def hits(self, grams: set[int]) -> list[int]:
        """The numbers of the pieces whose signature grams are all among ``grams``."""
        hits = list(_chained.from_iterable(filter(None, map(self.by_number.get, grams))))
        if hits:
            hits = list(compress(hits, map(grams.issuperset, map(self.others.__getitem__, hits))))
        return hits


class _Heads:
    """Pieces too many for their grams, screened by their first eight characters, whole.

    When a gram size gives far fewer grams than there are pieces (short pieces over a few
    characters), a path that holds every gram (a de Bruijn sequence of them) passes every
    piece through the grams' screen.  Here each piece is filed under its first eight
    characters instead (all of it when shorter), as the integer of :func:`_grams` padded
    with NULs, and the path's every eight-character window, cut to each length filed, is
    looked up, in C: a hit is a piece that occurs (or, past eight characters, whose head
    does).  A NUL or non-ASCII character can only let more pieces through.
    """

    __slots__ = ("by_length", "entries", "ids", "sure")

    def __init__(self, entries: tuple[_Filed, ...], searched: set[str]) -> None:
        self.entries = entries
        by_length: dict[int, dict[int, list[int]]] = {}
        for number, entry in enumerate(entries):
            head = entry[0][:8].encode("ascii")
            key = from_bytes(head + b"\0" * (8 - len(head)), byteorder)
            by_length.setdefault(len(head), {}).setdefault(key, []).append(number)
        self.by_length = tuple(
            (
                from_bytes(b"\xff" * size + b"\0" * (8 - size), byteorder),
                {key: tuple(group) for key, group in table.items()},
            )
            for size, table in sorted(by_length.items())
        )
        self.ids = tuple(entry[1] for entry in entries)
        self.sure = not any(entry[0] in searched for entry in entries)

    def hits(self, data: bytes) -> list[int]:
        """The numbers of the pieces whose head occurs in ``data`` (an ASCII path)."""
        end = len(data)
        padded = data + b"\0" * 7
        windows: list[int] = []  # the eight bytes from every place of the path
        for start in range(min(8, end)):
            stop = start + (end + 7 - start) // 8 * 8
            windows += memoryview(padded[start:stop]).cast("Q")
        hits: list[int] = []
        for mask, table in self.by_length:
            grams = set(map(and_, windows, repeat(mask)))
            hits += _chained.from_iterable(filter(None, map(table.get, grams)))
        return hits


# memoryview formats reading 2, 4 and 8 bytes as one native unsigned integer.
from_bytes = int.from_bytes
_CAST_FROM = 32  # bytes of path from which the grams are read by memoryview.cast
_LOOKUP = 20  # a path costs this many times its length to read whole (see _Pieces.present)
_Format = Literal["Q", "L", "I", "H"]
_FORMATS: dict[int, _Format] = {calcsize(code): code for code in ("Q", "L", "I", "H")}


def _gram(text: str) -> int:
    """A gram as the integer ``memoryview.cast`` reads from the same bytes (ASCII text)."""
    return int.from_bytes(text.encode("ascii"), byteorder)


def _grams(data: bytes, size: int) -> dict[int, int]:
    """Every ``size``-byte gram of ``data`` (as :func:`_gram`) with a place where it occurs.

    Read in C: the bytes at each offset below ``size``, cast to integers of that size.
    """
    end = len(data)
    if end < _CAST_FROM:  # a memoryview costs more than it saves on a short path
        return {from_bytes(data[at : at + size], byteorder): at for at in range(end - size + 1)}
    found: dict[int, int] = {}
    code = _FORMATS[size]
    for start in range(size):
        stop = start + (end - start) // size * size
        grams = memoryview(data[start:stop]).cast(code)
        found.update(zip(grams, range(start, stop, size), strict=False))  # equal lengths
    return found


def _gram_set(data: bytes, size: int) -> set[int]:
    """The grams of :func:`_grams` without their places (a long path only)."""
    end = len(data)
    found: set[int] = set()
    code = _FORMATS[size]
    for start in range(size):
        found.update(memoryview(data[start : start + (end - start) // size * size]).cast(code))
    return found


def _signature(piece: str, size: int) -> list[str]:
    """Up to ``_SIGNATURE`` grams of ``size`` characters spread over ``piece``, ends included."""
    last = len(piece) - size
    if last < _SIGNATURE:
        return [piece[at : at + size] for at in range(last + 1)]
    step = last / (_SIGNATURE - 1)
    return [piece[at : at + size] for at in [round(k * step) for k in range(_SIGNATURE)]]


class _Pieces:
    """Which of a set of literal pieces occur in a path, with the rules filed under each.

    A few pieces are looked for one by one (``in``, in C).  Many are screened by grams,
    of four characters (of two for pieces shorter than that): each piece is filed under
    the one of a handful of its grams, spread over it, that the fewest (then the fewest
    before it) have.  When few grams are filed, each is looked for; else the path's grams
    are read once, in C, as integers (``memoryview.cast``), and the hits are narrowed in C
    by the pieces' other grams (see :class:`_Signed`).  A piece whose grams are all there
    is confirmed where its filed gram is (``startswith``), and searched whole only when
    that fails, unless its rules are each one search for it anyway.
    Single characters are looked for one by one (there are at most a hundred).  Only ASCII
    is filed (patterns are ASCII once normalised); a path's other characters read as ``?``,
    which can only let more pieces through to the search.
    """

    __slots__ = ("_direct", "_filed")

    def __init__(self, pieces: dict[str, list[int]], searched: set[str]) -> None:
        # Per gram size: the pieces filed under each gram as text, and (past _SIGNED
        # pieces) the same pieces filed by number for the screen in C.
        self._filed: tuple[tuple[int, _Signed | _Heads | None, _ByText], ...] = ()
        if len(pieces) <= _DIRECT_KEYS:
            self._direct = tuple((key, tuple(ids), risky(key)) for key, ids in pieces.items())
            return
        direct: list[tuple[str, tuple[int, ...], bool]] = []
        by_size: dict[int, list[tuple[str, list[int]]]] = {}
        for piece, ids in pieces.items():
            if len(piece) == 1 or not piece.isascii():
                direct.append((piece, tuple(ids), risky(piece)))
            else:
                by_size.setdefault(_GRAM if len(piece) >= _GRAM else 2, []).append((piece, ids))
        filed: list[tuple[int, _Signed | _Heads | None, _ByText]] = []
        for size, group in sorted(by_size.items()):
            if len(group) <= _DIRECT_KEYS:
                direct.extend((key, tuple(ids), risky(key)) for key, ids in group)
            else:
                filed.append((size, *_file(group, size, searched)))
        self._direct = tuple(direct)
        self._filed = tuple(filed)

    def present(self, path: str, found: list[int]) -> None:
        """Add to ``found`` the rules of every piece that occurs in ``path``."""
        for piece, ids, danger in self._direct:
            if (find(path, piece, 0, True) >= 0) if danger else piece in path:
                found.extend(ids)
        length = len(path)
        for size, signed, by_text in self._filed:
            # Reading every gram of the path costs about a dict insert per character,
            # looking for each filed gram a call and a pass: take the cheaper.
            if isinstance(signed, _Heads):
                hits = signed.hits(path.encode("ascii", "replace"))
                if signed.sure:
                    found.extend(_chained.from_iterable(map(signed.ids.__getitem__, hits)))
                    continue
                for number in hits:
                    piece, ids, danger, _, _ = signed.entries[number]
                    if find(path, piece, 0, danger) >= 0:
                        found.extend(ids)
            elif len(by_text) * (40 + length // 4) <= _LOOKUP * length:
                text: dict[str, int] = {}
                for name in by_text:
                    at = path.find(name)
                    if at >= 0:
                        text[name] = at
                _confirm(path, size, text, text, by_text, found)
            elif signed is None or length < _CAST_FROM:  # as text; no signatures
                text = {path[at : at + size]: at for at in range(length - size + 1)}
                _confirm(path, size, by_text.keys() & text.keys(), text, by_text, found)
            else:  # many pieces, a long path: the grams read in C, and screened in C
                data = path.encode("ascii", "replace")
                if signed.sure:
                    hits = signed.hits(_gram_set(data, size))
                    found.extend(_chained.from_iterable(map(signed.ids.__getitem__, hits)))
                    continue
                numbers = _grams(data, size)
                hits = signed.hits(set(numbers))
                entries = signed.entries
                for number in hits:
                    piece, ids, danger, offset, gram = entries[number]
                    at = numbers[gram]
                    if (
                        len(piece) == size
                        or (at >= offset and path.startswith(piece, at - offset))
                        or find(path, piece, 0, danger) >= 0
                    ):
                        found.extend(ids)


_Gram = TypeVar("_Gram", int, str)


def _confirm(
    path: str,
    size: int,
    hits: Iterable[_Gram],
    places: dict[_Gram, int],
    filed: dict[_Gram, tuple[_Filed, ...]],
    found: list[int],
) -> None:
    """Add the rules of the pieces filed under ``hits`` that occur in ``path``.

    ``places`` holds where each gram occurs.
    """
    for gram in hits:
        at = places[gram]
        for piece, ids, danger, offset, _ in filed[gram]:
            if (
                len(piece) == size
                or (at >= offset and path.startswith(piece, at - offset))
                or find(path, piece, 0, danger) >= 0
            ):
                found.extend(ids)


def _file(
    pieces: list[tuple[str, list[int]]], size: int, searched: set[str]
) -> tuple[_Signed | _Heads | None, _ByText]:
    """File each piece under the gram of its signature that the fewest pieces have.

    Past ``_SIGNED`` pieces, they are also filed by number, with their other grams (see
    :class:`_Signed`): this is the memory a hostile file costs, not a real one.  Pieces
    crowded on few grams (more than ``_CROWDED`` per gram) are filed by head instead
    (:class:`_Heads`).
    """
    signatures = [_signature(piece, size) for piece, _ in pieces]
    holders: dict[str, int] = {}
    for signature in signatures:
        for gram in set(signature):
            holders[gram] = holders.get(gram, 0) + 1
    filed: dict[str, list[_Filed]] = {}
    entries: list[_Filed] = []
    others: list[tuple[int, ...]] = []
    # Pieces with the fewest grams choose first, each the gram the fewest pieces chose
    # before it (then the fewest have), so that most get a gram of their own.
    taken: dict[str, int] = {}
    # One int per gram, shared by every piece that has it: the check of a hit's other
    # grams then reads what looking the path's grams up has just read.
    numbers = {gram: _gram(gram) for gram in holders}
    order = sorted(range(len(pieces)), key=lambda at: len(set(signatures[at])))
    for at in order:
        (piece, ids), signature = pieces[at], signatures[at]
        name = min(signature, key=lambda gram: (taken.get(gram, 0), holders[gram]))
        taken[name] = taken.get(name, 0) + 1
        danger = len(piece) >= 32 and risky(piece)
        entry = (piece, tuple(ids), danger, piece.find(name), numbers[name])
        filed.setdefault(name, []).append(entry)
        entries.append(entry)
        others.append(tuple({numbers[g]: None for g in signature if g != name}))
    by_text = {name: tuple(group) for name, group in filed.items()}
    if len(pieces) <= _SIGNED:
        return None, by_text
    if len(pieces) > _CROWDED * len(holders):
        return _Heads(tuple(entries), searched), by_text
    return _Signed(tuple(entries), tuple(others), searched), by_text
