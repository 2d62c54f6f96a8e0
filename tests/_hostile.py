"""Hostile text for the output-safety tests (issue 17, item 10): what a server, a file or a
crawl report may carry to drive a terminal, and the check that none of it reached one raw.
"""

from __future__ import annotations

OSC_TITLE = "\x1b]0;pwned\x07"  # ESC ] 0 ; ... BEL: sets the window title
CLEAR = "\x1b[2J"  # ESC [ 2 J: clears the screen
C1_CSI = "\x9b2J"  # U+009B is CSI: the same, in one character
C1_OSC = "\x9d0;pwned\x9c"  # U+009D is OSC, U+009C is ST
RLO = "\u202eevil\u202c"  # RIGHT-TO-LEFT OVERRIDE ... POP DIRECTIONAL FORMATTING
ISOLATE = "\u2067x\u2069"  # RIGHT-TO-LEFT ISOLATE ... POP DIRECTIONAL ISOLATE
PAYLOADS = (OSC_TITLE, CLEAR, C1_CSI, C1_OSC, RLO, ISOLATE)
HOSTILE = "".join(PAYLOADS)

#: Characters that must never reach the terminal raw (newline ends our own lines; TAB is kept).
DANGEROUS = frozenset(
    [chr(c) for c in range(0x20) if c not in (0x09, 0x0A)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)]
    + ["\u2028", "\u2029"]
)


def assert_safe(text: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in text if c in DANGEROUS})
    assert not found, f"raw control characters reached the terminal: {found}\n{text!r}"
