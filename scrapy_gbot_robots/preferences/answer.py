"""One usage answer per response: every source that states a preference for its URL, combined.

The sources, each read by its own specification: robots.txt's ``Content-Usage`` and
``Content-Signal`` statements in force for the URL (``engine/usage.py``, the group of the
crawl's token), the ``Content-Usage`` response header (draft-ietf-aipref-attach-05, a
Structured Field Dictionary about the response's content), and TDMRep (file, header, meta,
:mod:`.tdmrep`, its own precedence first).  Per category of the vocabulary
(draft-ietf-aipref-vocab-08: ``train-ai``, ``search``), the vocabulary's combination rule:
any "no" wins, else any "yes", else unknown (None).

How TDMRep maps onto the categories: a reservation (``tdm-reservation: 1``) says "no" to
``train-ai``, and ``0`` says "yes" to it: in the EU's law (the DSM directive's article 4,
and the AI Act's recital 105) text and data mining includes AI training.  It says nothing
about ``search``, which the vocabulary defines as a use apart.  Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ..engine.usage import CONTENT_USAGE, VOCAB, parse_statement
from .tdmrep import TdmStatement

#: The categories answered, in the vocabulary's order.
CATEGORIES: Final = tuple(sorted(VOCAB, key=("train-ai", "search").index))
#: robots.txt labels per category: the IETF label, and Cloudflare's Content-Signal one.
_LABELS: Final[Mapping[str, tuple[str, ...]]] = {
    "train-ai": ("train-ai", "ai-train"),
    "search": ("search",),
}
#: The sources a response carries itself (not known before its download).
RESPONSE_SOURCES: Final = frozenset({"header", "meta", "tdm-header"})


@dataclass(frozen=True, slots=True)
class Said:
    """One source's explicit preference for one category."""

    allowed: bool
    source: str  # "robots.txt", "header", "tdmrep.json", "tdm-header", "meta"
    where: str  # "line 4: Content-Usage: train-ai=n", "Content-Usage: train-ai=n", ...

    def as_json(self) -> dict[str, object]:
        return {"allowed": self.allowed, "source": self.source, "where": self.where}


@dataclass(frozen=True, slots=True)
class Answer:
    """Per category: the combined preference (None: unknown) and every source that spoke."""

    said: Mapping[str, tuple[Said, ...]]

    def allowed(self, category: str) -> bool | None:
        """The vocabulary's combination: any "no" wins, else any "yes", else None."""
        found = self.said.get(category, ())
        if any(not s.allowed for s in found):
            return False
        return True if found else None

    def refusal(self, category: str) -> Said | None:
        """The first source saying "no" to ``category``, or None."""
        return next((s for s in self.said.get(category, ()) if not s.allowed), None)

    def as_json(self) -> dict[str, object]:
        return {
            category: {
                "allowed": self.allowed(category),
                "sources": [s.as_json() for s in self.said.get(category, ())],
            }
            for category in CATEGORIES
        }


def from_robots(preferences: Sequence[Mapping[str, object]]) -> list[tuple[str, Said]]:
    """robots.txt's preferences in force (``Usage.as_json()["preferences"]``) per category."""
    out: list[tuple[str, Said]] = []
    for pref in preferences:
        label, allowed = pref.get("category"), pref.get("allowed")
        if not isinstance(allowed, bool):
            continue
        for category, labels in _LABELS.items():
            if label in labels:
                where = f"line {pref.get('line')}: {pref.get('text')}"
                out.append((category, Said(allowed, "robots.txt", where)))
    return out


def from_header(values: Sequence[bytes]) -> list[tuple[str, Said]]:
    """The ``Content-Usage`` response header, its field lines joined as HTTP joins them; a
    value that does not parse says nothing (the vocabulary's rule)."""
    if not values:
        return []
    joined = b", ".join(v.strip() for v in values)
    statement = parse_statement(CONTENT_USAGE, joined if not joined.startswith(b"/") else b"")
    shown = joined.decode("latin-1")
    return [
        (label, Said(allowed, "header", f"Content-Usage: {shown}"))
        for label, allowed in statement.preferences().items()
        if label in VOCAB
    ]


def from_tdm(statement: TdmStatement | None) -> list[tuple[str, Said]]:
    """TDMRep's statement in force: a reservation says "no" to ``train-ai``, 0 says "yes"."""
    if statement is None:
        return []
    source = "tdm-header" if statement.source == "header" else statement.source
    return [("train-ai", Said(not statement.reserved, source, statement.where))]


def answer(*parts: list[tuple[str, Said]]) -> Answer:
    """The sources' preferences gathered per category, in the order given."""
    said: dict[str, list[Said]] = {}
    for part in parts:
        for category, one in part:
            said.setdefault(category, []).append(one)
    return Answer({category: tuple(found) for category, found in said.items()})
