"""TDMRep, the W3C community group's TDM Reservation Protocol (final report): its three places.

* ``/.well-known/tdmrep.json``: a JSON array of ``{"location", "tdm-reservation",
  "tdm-policy"}``; ``location`` is a path pattern with robots.txt's ``*`` and ``$``, but the
  **first** entry whose location matches wins, not the longest (:func:`parse_file`,
  :func:`match_file`);
* the ``tdm-reservation`` and ``tdm-policy`` response headers (:func:`from_headers`);
* ``<meta name="tdm-reservation" content="1">`` (and ``tdm-policy``) in an HTML head
  (:func:`from_meta`).

The file is read first, a header overrides it, the meta overrides that; a place that says
nothing never resets what another said (:func:`combine`).  ``tdm-reservation`` is ``1``
(rights reserved) or ``0`` (not reserved); any other value says nothing.  A broken file is
no reservation, never an error.  Pure Python; bounded (:data:`MAX_ENTRIES`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from ..engine.lines import escape_pattern
from ..engine.path_match import priority
from ..page.head import meta_tags

#: Where the file lives on an origin.
WELL_KNOWN: Final = "/.well-known/tdmrep.json"
#: Entries of a file read at most (the rest are ignored): a check stays cheap.
MAX_ENTRIES: Final = 1000
_NAMES: Final = frozenset({"tdm-reservation", "tdm-policy"})


@dataclass(frozen=True, slots=True)
class TdmStatement:
    """What one place says: reserved or not, the policy's URL, and where it was said."""

    reserved: bool
    policy: str  # the tdm-policy URL, "" when none
    source: str  # "tdmrep.json", "header" or "meta"
    where: str  # the file's entry ("entry 2: /articles/*"), the header or the meta as read

    def as_json(self) -> dict[str, object]:
        return {
            "reserved": self.reserved,
            "policy": self.policy,
            "source": self.source,
            "where": self.where,
        }


@dataclass(frozen=True, slots=True)
class TdmEntry:
    """One entry of ``tdmrep.json``, its location normalised as a robots.txt pattern."""

    index: int  # 1-based, in the file's order
    location: str  # as written
    pattern: str
    reserved: bool
    policy: str


def _reservation(value: object) -> bool | None:
    """``1`` (or ``"1"``) reserves, ``0`` does not; anything else says nothing."""
    if isinstance(value, bool):
        return None
    if value in (1, "1"):
        return True
    if value in (0, "0"):
        return False
    return None


def parse_file(body: bytes) -> tuple[TdmEntry, ...]:
    """The usable entries of a ``tdmrep.json`` body; a broken file has none."""
    try:
        data: Any = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return ()
    if not isinstance(data, list):
        return ()
    entries: list[TdmEntry] = []
    for index, item in enumerate(data[:MAX_ENTRIES], 1):
        if not isinstance(item, dict):
            continue
        location = item.get("location")
        reserved = _reservation(item.get("tdm-reservation"))
        if not isinstance(location, str) or reserved is None:
            continue
        policy = item.get("tdm-policy")
        written = location if location.startswith(("/", "*")) else "/" + location
        pattern = escape_pattern(written.encode("utf-8", "surrogateescape"))
        entries.append(
            TdmEntry(index, location, pattern, reserved, policy if isinstance(policy, str) else "")
        )
    return tuple(entries)


def match_file(entries: tuple[TdmEntry, ...], path: str) -> TdmStatement | None:
    """The first entry whose location matches ``path`` (TDMRep's rule), or None."""
    for entry in entries:
        if priority(path, entry.pattern) >= 0:
            where = f"entry {entry.index}: {entry.location}"
            return TdmStatement(entry.reserved, entry.policy, "tdmrep.json", where)
    return None


def from_headers(reservation: list[bytes], policy: list[bytes]) -> TdmStatement | None:
    """The ``tdm-reservation`` header (its first value), with ``tdm-policy``; None if absent
    or neither 0 nor 1."""
    if not reservation:
        return None
    value = reservation[0].strip().decode("latin-1")
    reserved = _reservation(value)
    if reserved is None:
        return None
    url = policy[0].strip().decode("latin-1") if policy else ""
    return TdmStatement(reserved, url, "header", f"tdm-reservation: {value}")


def from_meta(body: bytes) -> TdmStatement | None:
    """``<meta name="tdm-reservation">`` (its first tag) and ``tdm-policy`` of an HTML head."""
    tags = meta_tags(body, _NAMES, limit=8)
    values = [content.strip() for name, content in tags if name == "tdm-reservation"]
    if not values:
        return None
    reserved = _reservation(values[0])
    if reserved is None:
        return None
    policies = [content.strip() for name, content in tags if name == "tdm-policy"]
    where = f'<meta name="tdm-reservation" content="{values[0]}">'
    return TdmStatement(reserved, policies[0] if policies else "", "meta", where)


def combine(*statements: TdmStatement | None) -> TdmStatement | None:
    """The statement in force: the last one said, in the order given (file, header, meta);
    one that says nothing (None) resets nothing."""
    found = None
    for statement in statements:
        if statement is not None:
            found = statement
    return found
