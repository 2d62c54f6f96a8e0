"""One literal piece searched in a path, in linear time whatever the piece.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

# CPython's str.find (fastsearch.h) uses a simple search, O(len(path) * len(piece)) at
# worst, for haystacks under 2,500 characters, or under 30,000 when the needle is shorter
# than 100; beyond, the linear two-way search.  A risky needle (see risky()) is searched
# in the path padded with NULs, which makes the haystack long enough.  The padding never
# changes an answer: a risky needle holds no NUL, so no match can reach into it.
_PAD = "\0" * 30_000
_PAD_FROM = 512  # fewer characters to search than this: even the worst simple search is cheap


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
