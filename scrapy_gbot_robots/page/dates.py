"""The date of ``unavailable_after``, in the formats Google names, as an aware UTC datetime.

Google's page: "The date/time must be specified in a widely adopted format including, but not
limited to RFC 822, RFC 850, and ISO 8601. The rule is ignored if no valid date/time is
specified." So a date that is not understood is never guessed at: :func:`parse_date` returns
None and the caller keeps the rule as written, changing nothing.

Understood (ASCII case-insensitive, any run of spaces between the parts):

* RFC 822 / 1123 / 2822: ``[Fri,] 25 Jun 2010 [15:00[:00]] [zone]``, a two-digit year read as
  RFC 2822 says (00-49: 20xx, 50-99: 19xx); Google's own example is
  ``25 Jun 2010 15:00:00 PST``;
* RFC 850: ``Friday, 25-Jun-10 15:00:00 GMT`` (the day name may be short or missing);
* asctime (HTTP's third date form): ``Fri Jun 25 15:00:00 2010``;
* ISO 8601: ``2010-06-25``, ``2010-06-25T15:00[:00[.5]]``, with a space for ``T``, with
  ``Z``, ``+02``, ``+0200`` or ``+02:00``, and the basic forms ``20100625T150000Z``;
* the English form ``June 25, 2010 [15:00[:00]] [zone]``.

Month and day names may be short or in full. Zones: ``Z``, ``UT``, ``UTC``, ``GMT``,
RFC 822's North American ones (``EST``, ``EDT``, ``CST``, ``CDT``, ``MST``, ``MDT``, ``PST``,
``PDT``), the European ``WET``, ``WEST``, ``CET``, ``CEST``, ``EET``, ``EEST``, and numeric
offsets. A date without a zone is read as UTC (Google says nothing; UTC is the one reading
that does not depend on where the crawler runs). Any other zone name makes the date unknown.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

__all__ = ["parse_date"]

#: Longer text is not a date anyone wrote by hand; it is rejected before any regex runs.
MAX_DATE_CHARS = 100

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        1,
    )
    for name in names
}
_DAYS = "mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))

#: Zone names and their offsets from UTC, in hours.
ZONES: dict[str, int] = {
    "z": 0,
    "ut": 0,
    "utc": 0,
    "gmt": 0,
    "est": -5,
    "edt": -4,
    "cst": -6,
    "cdt": -5,
    "mst": -7,
    "mdt": -6,
    "pst": -8,
    "pdt": -7,
    "wet": 0,
    "west": 1,
    "cet": 1,
    "cest": 2,
    "eet": 2,
    "eest": 3,
}

_TIME = r"(?P<hh>\d{1,2}):(?P<mi>\d{2})(?::(?P<ss>\d{2})(?:[.,]\d+)?)?"
_ZONE = r"(?P<zone>[a-z]{1,5}|[+-]\d{2}(?::?\d{2})?)"
_FLAGS = re.IGNORECASE | re.ASCII

# RFC 822/1123/2822 and RFC 850: "[Day,] 25 Jun 2010 ..." or "[Day,] 25-Jun-10 ...".
_RFC = re.compile(
    rf"(?:(?:{_DAYS}),?\s*)?(?P<d>\d{{1,2}})(?P<sep>\s+|-)(?P<mon>{_MONTH})(?P=sep)"
    rf"(?P<y>\d{{4}}|\d{{2}})(?:\s+{_TIME})?(?:\s*{_ZONE})?",
    _FLAGS,
)
# asctime: "Fri Jun 25 15:00:00 2010".
_ASCTIME = re.compile(
    rf"(?:(?:{_DAYS}),?\s+)?(?P<mon>{_MONTH})\s+(?P<d>\d{{1,2}})\s+{_TIME}\s+(?P<y>\d{{4}})"
    rf"(?:\s+{_ZONE})?",
    _FLAGS,
)
# English: "June 25, 2010 [15:00:00] [PST]".
_ENGLISH = re.compile(
    rf"(?:(?:{_DAYS}),?\s+)?(?P<mon>{_MONTH})\s+(?P<d>\d{{1,2}}),?\s+(?P<y>\d{{4}})"
    rf"(?:,?\s+{_TIME})?(?:\s*{_ZONE})?",
    _FLAGS,
)
# ISO 8601, extended and basic.
_ISO = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:[t\s]\s*(?P<hh>\d{2}):(?P<mi>\d{2})(?::(?P<ss>\d{2})(?:[.,]\d+)?)?)?"
    r"\s*(?P<zone>z|[+-]\d{2}(?::?\d{2})?)?",
    _FLAGS,
)
_ISO_BASIC = re.compile(
    r"(?P<y>\d{4})(?P<mo>\d{2})(?P<d>\d{2})"
    r"(?:t(?P<hh>\d{2})(?P<mi>\d{2})(?P<ss>\d{2})?(?:[.,]\d+)?)?"
    r"(?P<zone>z|[+-]\d{2}(?:\d{2})?)?",
    _FLAGS,
)


def _offset(zone: str | None) -> timedelta | None:
    """The zone's offset from UTC; None for a zone name that is not in :data:`ZONES`."""
    if not zone:
        return timedelta(0)
    if zone[0] in "+-":
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours > 23 or minutes > 59:
            return None
        sign = -1 if zone[0] == "-" else 1
        return sign * timedelta(hours=hours, minutes=minutes)
    hours_off = ZONES.get(zone.lower())
    return None if hours_off is None else timedelta(hours=hours_off)


def _year(text: str) -> int:
    """A year as written; two digits as RFC 2822 reads them (00-49: 2000s, 50-99: 1900s)."""
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < 50 else 1900
    return year


def _build(fields: dict[str, str | None], month: int) -> datetime | None:
    offset = _offset(fields.get("zone"))
    if offset is None:
        return None
    try:
        local = datetime(
            _year(fields["y"] or ""),
            month,
            int(fields["d"] or 0),
            int(fields.get("hh") or 0),
            int(fields.get("mi") or 0),
            int(fields.get("ss") or 0),
            tzinfo=timezone(offset),
        )
        return local.astimezone(timezone.utc)
    except (ValueError, OverflowError):  # 31 Feb, hour 25, a year out of range
        return None


def parse_date(text: str) -> datetime | None:
    """``text`` as an aware UTC datetime, or None when it is not a date Google would read."""
    text = " ".join(text.split())
    if not text or len(text) > MAX_DATE_CHARS:
        return None
    for pattern in (_RFC, _ASCTIME, _ENGLISH):
        m = pattern.fullmatch(text)
        if m is not None:
            fields = m.groupdict()
            return _build(fields, _MONTHS[(fields["mon"] or "").lower()])
    for pattern in (_ISO, _ISO_BASIC):
        m = pattern.fullmatch(text)
        if m is not None:
            fields = m.groupdict()
            return _build(fields, int(fields["mo"] or 0))
    return None
