"""The documentation site: it builds with no warning, a built page shows its title and a link
to the settings in headless Chromium, and its settings table is the code's.

The test builds the site itself, into a temporary folder, with the command the README gives
(``sphinx-build -W --keep-going -b html``): so it checks the pages as they are now, never a
build left over from before, and needs no step of CI to run first. Sphinx and myst-parser come
with the ``test`` extra (through ``docs``); without them, or without ``chromium``, the tests
that need them skip, saying why.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _chromium import CHROMIUM, MISSING, dump_dom

from scrapy_gbot_robots._settings import NUMERIC, OTHER, PREFIX, RENAMED

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
HAS_SPHINX = all(importlib.util.find_spec(m) for m in ("sphinx", "myst_parser"))
NO_SPHINX = 'Sphinx or myst-parser is not installed (pip install -e ".[docs]")'


def _gbot_settings() -> Any:
    """docs/_ext/gbot_settings.py, the extension that renders the settings table."""
    path = DOCS / "_ext" / "gbot_settings.py"
    spec = importlib.util.spec_from_file_location("gbot_settings", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with warnings as errors."""
    if not HAS_SPHINX:
        pytest.skip(NO_SPHINX)
    out = tmp_path_factory.mktemp("site") / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    proc = subprocess.run(
        [*command, "-d", str(out.parent / "doctrees"), str(DOCS), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-4000:]
    return out


class _Page(HTMLParser):
    """A page's title, its links, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.links: list[str] = []
        self.text: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_title = tag == "title"
        if tag == "a":
            self.links += [value or "" for name, value in attrs if name == "href"]

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        self.text.append(data)


def _read(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


@pytest.mark.crawl
@pytest.mark.skipif(CHROMIUM is None, reason=MISSING)
def test_a_built_page_shows_its_title_and_links_to_the_settings(
    site: Path, tmp_path: Path
) -> None:
    page = _read(dump_dom(site / "migration.html", tmp_path / "profile"))
    assert page.title.startswith("Coming from ROBOTSTXT_OBEY"), page.title
    assert any(re.match(r"settings\.html(#|$)", link) for link in page.links), page.links
    # The page's own content, not an empty shell: a heading and the presets.
    text = " ".join(page.text)
    assert "A crawl that looks hung" in text and "Presets" in text


@pytest.mark.crawl
def test_the_sites_settings_table_is_the_codes(site: Path) -> None:
    html = (site / "settings.html").read_text(encoding="utf-8")
    start = html.index("at a glance")
    table = html[start : html.index("</table>", start)]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.DOTALL)
    names = [re.search(r"GBOT_ROBOTS_[A-Z_]+", row) for row in rows[1:]]
    assert [m.group(0) for m in names if m] == [PREFIX + n for n in (*NUMERIC, *OTHER)]
    for name, (default, kind, _) in NUMERIC.items():
        shown = repr(float(default)) if kind == "float" else str(int(default))
        row = next(r for r in rows if f">{PREFIX}{name}<" in r)
        assert f">{shown}<" in row, (name, shown)
    for old, new in RENAMED.items():
        row = next(r for r in rows if f">{new}<" in r)
        assert f">{old}<" in row, (new, old)


@pytest.mark.skipif(not HAS_SPHINX, reason=NO_SPHINX)
def test_the_settings_table_check_finds_drift() -> None:
    ext = _gbot_settings()
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert ext.MARKER in page
    assert ext.drift(page) == []
    missing = re.sub(r"^\| `GBOT_ROBOTS_TICK` .*\n", "", page, flags=re.MULTILINE)
    assert ext.drift(missing) == ["GBOT_ROBOTS_TICK is not documented"]
    unknown = page + "\n| `GBOT_ROBOTS_NOPE` | `1` | gone |\n"
    assert ext.drift(unknown) == ["GBOT_ROBOTS_NOPE: documented, unknown to the code"]
    wrong = page.replace("| `GBOT_ROBOTS_TICK` | `1.0` |", "| `GBOT_ROBOTS_TICK` | `2.0` |")
    assert ext.drift(wrong) == ["GBOT_ROBOTS_TICK: the page says 2.0, the code 1.0"]
