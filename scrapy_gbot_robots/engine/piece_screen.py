"""Many literal pieces screened at once by a path's grams, for :class:`.wild_index.WildIndex`.

A file of thousands of ``*`` rules must not cost a check per rule: the pieces a path could
hold are found from the path's own grams, read in C, and only those are looked for.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import chain as _chained
from itertools import compress, repeat
from operator import getitem, itemgetter
from struct import calcsize
from sys import byteorder
from typing import Any, Literal, TypeVar

from .linear_find import find, risky

_GRAM = 4  # length of the grams many pieces longer than _SHORT are screened by
_SHORT = 3  # many pieces up to this long are found whole by the path's windows (_Heads)
_HEAD = 8  # a _Heads hit of a piece up to this long is an occurrence (see _whole)
_DIRECT_KEYS = 64  # up to this many distinct pieces are looked for one by one
_CROWDED = 4  # more pieces per distinct gram than this: filed by head (see _Heads)
_SPACE = 1024  # fewer grams than this over the pieces' characters: a path holds few of them
_DENSE = 2  # pieces at least 1/_DENSE of all grams over their characters: filed by head too
_WINDOWS = 256  # more short pieces than this: windows (fewer: pairs, then few searches)
_SIGNED = 64  # more pieces of one gram size than this: signatures, and grams read by cast
_SIGNATURE = 8  # grams of a piece checked against the path's before the piece is looked for


# A piece screened by grams: (piece, the rules filed under it, risky, where the gram it is
# filed under first occurs in it, that gram as an integer).
_Filed = tuple[str, tuple[int, ...], bool, int, int]
_ByText = dict[str, tuple[_Filed, ...]]


class _Signed:
    """Many pieces of one gram size, filed so that a path's grams screen them in C.

    ``by_number`` maps a gram (as an integer) to the numbers of the pieces filed under it
    (most often one: pieces are spread over grams of their own where they can).  ``others``
    holds each piece's other signature grams: a piece is a hit only when the path holds
    them all, which ``compress`` checks for every hit in one pass, in C, so that a path
    holding every filed gram but few pieces (the hostile case) costs no Python step per hit.
    The path's grams are met with ``grams``, every gram of every signature, as they are
    read: only those a signature has are kept, and a path that meets no filed gram (most
    paths) costs its lookups and nothing more.
    """

    __slots__ = (
        "by_number",
        "entries",
        "grams",
        "ids",
        "others",
        "rule",
        "size",
        "sure",
        "unsure",
    )

    def __init__(
        self,
        size: int,
        entries: tuple[_Filed, ...],
        others: tuple[frozenset[int], ...],
        searched: set[str],
    ) -> None:
        self.size = size
        self.entries = entries
        self.others = others
        by_number: dict[int, list[int]] = {}
        for number, gram in enumerate(map(_GRAM_OF, entries)):
            by_number.setdefault(gram, []).append(number)
        self.by_number = {gram: tuple(group) for gram, group in by_number.items()}
        self.grams = frozenset(by_number).union(*set(others))
        self.ids = tuple(map(_IDS_OF, entries))
        self.rule = _single(self.ids)
        # Which pieces need confirming: the others' rules each start their check with one
        # search for the piece, which confirms it as cheaply, and only while it could
        # still decide.
        self.unsure = tuple(map(searched.__contains__, map(_PIECE_OF, entries)))
        self.sure = not any(self.unsure)

    def hits(self, data: bytes) -> list[int]:
        """The numbers of the pieces whose signature grams all occur in ``data`` (ASCII)."""
        casts = _casts(data, self.size)
        if _periodic(casts):  # few distinct grams: gather them first, then meet them
            grams = self.grams.intersection(_gram_set(casts))
        else:
            grams = self.grams.intersection(_chained.from_iterable(casts))
        hits = list(_chained.from_iterable(filter(None, map(self.by_number.get, grams))))
        if hits:
            # getitem, not others.__getitem__: a method-wrapper call makes a tuple per hit.
            others = map(getitem, repeat(self.others), hits)
            hits = list(compress(hits, map(grams.issuperset, others)))
        return hits


class _Heads:
    """Many pieces found by the path's windows: whole when short, by their head when long.

    Each piece is filed under its first eight characters (all of it when shorter), as an
    integer, and the path's window of that length at every place is looked up, in C.  A hit
    of a piece up to eight characters is an occurrence, so short pieces need no search,
    however many of their grams a path holds (a screen by pairs passes thousands of 15,000
    three-character pieces over 64 characters that a path of them lacks, each then
    searched).  Windows of two, four and eight characters are read by cast, like grams;
    others are cut from lanes of four or eight bytes (:func:`_cut`).  Past eight
    characters a hit is a head that occurs: the piece is searched when its rules do not start
    by searching it.  Also used for long pieces crowded on few grams (short pieces over a few
    characters: a de Bruijn path holds every gram).  A ``?`` or NUL in a piece, or a
    non-ASCII character in the path (read as ``?``), can only let more pieces through: such
    pieces are searched as long ones are.
    """

    __slots__ = ("by_length", "entries", "ids", "single", "sure", "unsure", "width")

    def __init__(self, entries: tuple[_Filed, ...], searched: set[str]) -> None:
        self.entries = entries
        self.ids = tuple(map(_IDS_OF, entries))
        pieces = list(map(_PIECE_OF, entries))
        self.unsure = (
            tuple(piece in searched and not _whole(piece) for piece in pieces)
            if searched
            else (False,) * len(pieces)
        )
        self.sure = not any(self.unsure)
        # Each piece's head, numbered, by length (one pass), then each length's heads read
        # as integers by one cast of them joined.
        numbered: dict[int, list[int]] = {}
        heads: dict[int, list[str]] = {}
        for number, head in enumerate(map(_HEAD_OF, pieces)):
            size = len(head)
            if size in heads:
                heads[size].append(head)
                numbered[size].append(number)
            else:
                heads[size] = [head]
                numbered[size] = [number]
        # Windows as wide as the widest length not read at its own size: 4 bytes cost half
        # the casts of 8, and smaller integers.
        masked = heads.keys() - _FORMATS.keys()
        self.width = width = 4 if max(masked, default=0) <= 4 else 8
        keyed: list[tuple[int, list[int], list[int]]] = []  # (length, keys, numbers)
        unique = True  # no two pieces share a key
        for size, group in sorted(heads.items()):
            # As the path's grams (size in _FORMATS) or windows (cut by mask) read it: the
            # bytes of each head, zero-padded to the window, as one native integer.
            pad = "" if size in _FORMATS else "\0" * (width - size)
            data = (pad.join(group) + pad).encode("ascii")
            keys = memoryview(data).cast(_FORMATS[size + len(pad)]).tolist()
            keyed.append((size, keys, numbered[size]))
            unique = unique and len(set(keys)) == len(keys)
        # When every hit is an occurrence, a key leads straight to its rules: no step per hit;
        # to the rule itself when each key has one (a chain over a tuple per hit cost twice
        # the lookups).  The keys again as a frozenset, for the path's windows to be met with
        # as they are read (see hits).
        ids = self.ids
        self.single = self.sure and unique and all(len(rules) == 1 for rules in ids)
        if self.single:  # one piece of one rule per key: each table built in C
            rules = list(map(_FIRST, ids))
            self.by_length: tuple[tuple[int, frozenset[int], dict[int, Any]], ...] = tuple(
                (
                    size,
                    frozenset(keys),
                    dict(zip(keys, map(rules.__getitem__, numbers), strict=True)),
                )
                for size, keys, numbers in keyed
            )
            return
        tables: list[tuple[int, frozenset[int], dict[int, Any]]] = []
        for size, keys, numbers in keyed:
            table: dict[int, list[int]] = {}
            for key, number in zip(keys, numbers, strict=True):
                if key in table:
                    table[key].append(number)
                else:
                    table[key] = [number]
            tables.append(
                (
                    size,
                    frozenset(table),
                    {
                        key: tuple(_chained.from_iterable(map(ids.__getitem__, group)))
                        if self.sure
                        else tuple(group)
                        for key, group in table.items()
                    },
                )
            )
        self.by_length = tuple(tables)

    def hits(self, data: bytes) -> list[int]:
        """What is filed under every head that occurs in ``data`` (an ASCII path).

        The rules filed under them when :attr:`sure`, else the numbers of the pieces.
        """
        hits: list[int] = []
        for size, keys, table in self.by_length:
            # The keys met, found in C with no set of the path's windows built first: growing
            # that set cost more than the lookups it saved (a third of the check of 15,000
            # pieces of 2 to 6 characters), except on a periodic path, which it cost little.
            if size in _FORMATS:  # read at that size, in C: no cut to make
                met = keys.intersection(_grams(data, size))
            else:
                met = keys.intersection(_chained.from_iterable(_cut(data, size, self.width)))
            if self.single:
                hits += map(table.__getitem__, met)
            else:
                hits += _chained.from_iterable(map(table.__getitem__, met))
        return hits


def _cut(data: bytes, size: int, width: int) -> list[memoryview]:
    """The ``size`` bytes at every place of ``data``, zero-padded to ``width``, read in C.

    Each offset's windows are ``width``-byte lanes whose bytes past ``size`` are zeroed by
    one strided slice assignment each, in C: masking every window after reading it was an
    operation and a new integer per place (half the check of 15,000 pieces of 2 to 6
    characters).
    """
    end = len(data)
    padded = data + b"\0" * (width - 1)
    code = _FORMATS[width]
    views: list[memoryview] = []
    for start in range(min(width, end)):
        stop = start + (end + width - 1 - start) // width * width
        lanes = bytearray(padded[start:stop])
        zeros = bytes((stop - start) // width)
        for byte in range(size, width):
            lanes[byte::width] = zeros
        views.append(memoryview(lanes).cast(code))
    return views


# Fields read by map() in C: a _Filed entry's piece, rules and gram; a rule tuple's first.
_PIECE_OF = _FIRST = itemgetter(0)
_IDS_OF = itemgetter(1)
_GRAM_OF = itemgetter(4)
_HEAD_OF = itemgetter(slice(0, _HEAD))  # what _Heads files a piece under
_CAST_FROM = 32  # bytes of path from which the grams are read by memoryview.cast
_SAMPLE = 16  # grams of a path's first cast that tell whether it is periodic (_periodic)
_LOOKUP = 20  # a path costs this many times its length to read whole (see PieceScreen.present)
# memoryview formats reading 2, 4 and 8 bytes as one native unsigned integer.
_Format = Literal["Q", "L", "I", "H"]
_FORMATS: dict[int, _Format] = {calcsize(code): code for code in ("Q", "L", "I", "H")}


def _single(ids: tuple[tuple[int, ...], ...]) -> tuple[int, ...] | None:
    """Each piece's one rule, when every piece has one (most files); else None."""
    if all(len(rules) == 1 for rules in ids):
        return tuple(rules[0] for rules in ids)
    return None


def _whole(piece: str) -> bool:
    """Whether a :class:`_Heads` hit of ``piece`` is an occurrence (see there)."""
    return len(piece) <= _HEAD and "?" not in piece and "\0" not in piece


def _gram(text: str) -> int:
    """A gram as the integer ``memoryview.cast`` reads from the same bytes (ASCII text)."""
    return int.from_bytes(text.encode("ascii"), byteorder)


def _gram_set(casts: list[memoryview]) -> set[int]:
    """Every gram of :func:`_casts`, as a set (cheap for a periodic path only)."""
    found: set[int] = set()
    for grams in casts:  # update per cast: no generator step per gram
        found.update(grams)
    return found


def _periodic(casts: list[memoryview]) -> bool:
    """Whether a path's first grams repeat: then its grams are few, and a set of them cheap.

    A path of one character repeated meets a filed gram at every place; gathering its
    grams in a set first costs one insert of a known key each, half of meeting them all.
    """
    if not casts:
        return False
    sample = casts[0][:_SAMPLE]
    return len(set(sample)) * 4 <= len(sample)


def _grams(data: bytes, size: int) -> Iterable[int]:
    """Every ``size``-byte gram of ``data``, as :func:`_gram`, repeats included."""
    return _chained.from_iterable(_casts(data, size))


def _casts(data: bytes, size: int) -> list[memoryview]:
    """The bytes at each offset below ``size``, read in C as integers of that size."""
    end = len(data)
    code = _FORMATS[size]
    return [
        memoryview(data[start : start + (end - start) // size * size]).cast(code)
        for start in range(min(size, end))
    ]


def _signatures(pieces: list[tuple[str, list[int]]], size: int) -> list[list[str]]:
    """Each piece's signature: up to ``_SIGNATURE`` grams spread over it, ends included.

    The places depend only on a piece's length, so each length's slices are made once and
    cut in C (``map``): a hostile file's many pieces share a few lengths.
    """
    plans: dict[int, list[slice]] = {}
    out: list[list[str]] = []
    for piece, _ in pieces:
        last = len(piece) - size
        plan = plans.get(last)
        if plan is None:
            if last < _SIGNATURE:
                starts: Iterable[int] = range(last + 1)
            else:
                step = last / (_SIGNATURE - 1)
                starts = [round(k * step) for k in range(_SIGNATURE)]
            plan = plans[last] = [slice(at, at + size) for at in starts]
        out.append(list(map(piece.__getitem__, plan)))
    return out


class PieceScreen:
    """Which of a set of literal pieces occur in a path, with the rules filed under each.

    A few pieces are looked for one by one (``in``, in C).  Many pieces of two or three
    characters are found whole by the path's windows (:class:`_Heads`): a screen by pairs cannot
    tell them apart on a path that holds most pairs.  Longer ones (and a few short ones, by
    pairs) are screened by grams of four characters: each piece is filed under the one of a
    handful of its grams, spread over it, that the fewest (then the fewest before it) have.
    When few grams are filed, each is looked for; else the path's grams are read once, in C, as
    integers (``memoryview.cast``), and the hits are narrowed in C by the pieces' other grams
    (see :class:`_Signed`).  A piece whose grams are all there is confirmed where its filed gram
    is (``startswith``), and searched whole only when that fails, unless its rules are each one
    search for it anyway.  Single characters are looked for one by one (there are at most a
    hundred).  Only ASCII is filed (patterns are ASCII once normalised); a path's other
    characters read as ``?``, which can only let more pieces through to the search.
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
        short: list[tuple[str, list[int]]] = []
        long: list[tuple[str, list[int]]] = []
        for piece, ids in pieces.items():
            if len(piece) == 1 or not piece.isascii():
                direct.append((piece, tuple(ids), risky(piece)))
            else:
                (short if len(piece) <= _SHORT else long).append((piece, ids))
        filed: list[tuple[int, _Signed | _Heads | None, _ByText]] = []
        for group in (short, long):
            if len(group) <= _DIRECT_KEYS:
                direct.extend((key, tuple(ids), risky(key)) for key, ids in group)
            elif group is short and len(group) > _WINDOWS:
                keys, rules = zip(*group, strict=True)
                entries = tuple(zip(keys, map(tuple, rules), repeat(False), repeat(0), repeat(0)))
                filed.append((_HEAD, _Heads(entries, searched), {}))
            else:
                size = 2 if group is short else _GRAM
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
                if signed.sure:  # the hits are rules
                    found.extend(hits)
                    continue
                unsure = signed.unsure
                for number in hits:
                    piece, ids, danger, _, _ = signed.entries[number]
                    if not unsure[number] or find(path, piece, 0, danger) >= 0:
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
                hits = signed.hits(path.encode("ascii", "replace"))
                if signed.sure:
                    if signed.rule is not None:
                        found.extend(map(signed.rule.__getitem__, hits))
                    else:
                        found.extend(_chained.from_iterable(map(getitem, repeat(signed.ids), hits)))
                    continue
                # Confirmed by a search (in C), not at the places of the grams: a dict of
                # every gram's place costs more than the few searches its hits need.
                entries, unsure = signed.entries, signed.unsure
                for number in hits:
                    piece, ids, danger, _, _ = entries[number]
                    # A whole gram is its piece, unless "?" stood in for what ASCII lacks.
                    if (
                        not unsure[number]
                        or (len(piece) == size and piece.isascii() and "?" not in piece)
                    ) or ((find(path, piece, 0, True) if danger else path.find(piece)) >= 0):
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
    crowded on few grams (more than ``_CROWDED`` per gram), or dense among the grams their
    characters can make, are filed by head instead (:class:`_Heads`).
    """
    signatures = _signatures(pieces, size)
    grams = list(map(set, signatures))
    holders = Counter(_chained.from_iterable(grams))
    filed: dict[str, list[_Filed]] = {}
    entries: list[_Filed] = []
    others: list[frozenset[int]] = []
    # A set, not a tuple: set.issuperset copies any other argument into a new set first.
    shared: dict[frozenset[int], frozenset[int]] = {}
    # Pieces with the fewest grams choose first, each the gram the fewest pieces chose
    # before it (then the fewest have), so that most get a gram of their own.  The two
    # counts are one number, (chosen, held) in order, so that min() ranks in C.
    rank: dict[str, int] = dict(holders)
    chosen = len(pieces) + 1  # more than any gram's holders
    # One int per gram, shared by every piece that has it: the check of a hit's other
    # grams then reads what looking the path's grams up has just read.
    numbers = {gram: _gram(gram) for gram in holders}
    number_of = numbers.__getitem__
    for at in sorted(range(len(pieces)), key=list(map(len, grams)).__getitem__):
        (piece, ids), signature = pieces[at], signatures[at]
        name = min(signature, key=rank.__getitem__)
        rank[name] += chosen
        number = numbers[name]
        entry = (piece, tuple(ids), len(piece) >= 32 and risky(piece), piece.find(name), number)
        filed.setdefault(name, []).append(entry)
        entries.append(entry)
        other = set(map(number_of, grams[at]))
        other.discard(number)  # (grams are ASCII: distinct grams, distinct numbers)
        kept = frozenset(other)
        others.append(shared.setdefault(kept, kept))
    by_text = {name: tuple(group) for name, group in filed.items()}
    if len(pieces) <= _SIGNED:
        return None, by_text
    # Dense: a path over the pieces' characters then finds pieces filed under most of its
    # grams, and pays a check of their other grams for each (15,000 pieces over 11
    # characters: 1,840 hits for a path of 2,000); by head, it pays a lookup per length.
    # Not when those characters make few grams (100 pairs over 11): a path then holds few
    # distinct ones, gathered and checked for less than a pass per length.
    space = len(set("".join(piece for piece, _ in pieces))) ** size
    dense = space >= _SPACE and len(pieces) * _DENSE >= space
    if dense or len(pieces) > _CROWDED * len(holders):
        return _Heads(tuple(entries), searched), by_text
    return _Signed(size, tuple(entries), tuple(others), searched), by_text
