"""The one escaping function for text from outside (issue 17, item 10): ``_safetext``.

Whatever it is given, what it returns can be printed: no control, C1, bidi or other
invisible character survives, printable text of any script does, and escaping twice changes
nothing. The commands and reports that use it are tested in tests/cli/test_output_safety.py
and tests/report/test_report.py.
"""

from __future__ import annotations

from _hostile import C1_CSI, C1_OSC, CLEAR, DANGEROUS, OSC_TITLE, RLO
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_gbot_robots._safetext import display, printable, quoted, short


def test_every_dangerous_character_is_escaped_and_text_is_kept() -> None:
    assert printable(OSC_TITLE) == "\\x1b]0;pwned\\x07"
    assert printable(CLEAR) == "\\x1b[2J"
    assert printable(C1_CSI) == "\\x9b2J"
    assert printable(C1_OSC) == "\\x9d0;pwned\\x9c"
    assert printable(RLO) == "\\u202eevil\\u202c"
    assert printable("a\rb\nc\x7fd\u2028e\u00a0f\ufeffg\U000e0001") == (
        "a\\x0db\\x0ac\\x7fd\\u2028e\\xa0f\\ufeffg\\U000e0001"
    )
    for c in DANGEROUS:
        assert printable(c).startswith("\\"), f"U+{ord(c):04X}"
    # Kept: TAB, and printable text of any script.
    for text in ("Disallow:\t/x", "https://例え.jp/café/…", "Käyttäjä: ©", "a\\x1b"):
        assert printable(text) == text
    # A byte that is not UTF-8 shows as its value, as it did before.
    assert display(b"/caf\xe9\x1b\xc2\x9b") == "/caf\\xe9\\x1b\\x9b"
    assert printable("\udce9") == "\\xe9" and printable("\ud800") == "\\ud800"
    assert quoted("a\x1bb") == "'a\\x1bb'" == quoted(printable("a\x1bb"))
    assert short("abcdef", 4) == "abc…"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_output_is_printable_and_escaping_twice_changes_nothing(text: str) -> None:
    shown = printable(text)
    assert all(c.isprintable() or c == "\t" for c in shown)
    assert printable(shown) == shown
    if text.isprintable():
        assert shown == text


@settings(max_examples=300, deadline=None)
@given(st.binary())
def test_any_bytes_display_as_printable_text(raw: bytes) -> None:
    shown = display(raw)
    assert all(c.isprintable() or c == "\t" for c in shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert shown == printable(text)


def test_printable_lines_keeps_the_lines_and_escapes_the_rest() -> None:
    from scrapy_gbot_robots._safetext import printable_lines

    assert printable_lines("a\nb\tc") == "a\nb\tc"
    assert printable_lines("x\x1b[2J\ny\rz\u202e") == "x\\x1b[2J\ny\\x0dz\\u202e"
    assert printable_lines("") == ""
