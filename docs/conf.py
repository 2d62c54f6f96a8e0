"""Sphinx's configuration: the site built from the Markdown pages of docs/ as they are.

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (the README's
docs command). The pages are written for GitHub first, so two things are adapted while
Sphinx reads them (``_source_read``): a link out of docs/ (``../tests/data/README.md``,
``../README.md#...``) becomes a link to the file on GitHub, and ``../CHANGES.md`` the
changelog page, which includes CHANGES.md. Headings get GitHub's ids
(``myst_heading_anchors``), so ``page.md#anchor`` links resolve or fail the build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]

import scrapy_gbot_robots  # noqa: E402 - after the path above, for a checkout not installed

project = "scrapy-gbot-robots"
author = "the scrapy-gbot-robots authors"
copyright = "the scrapy-gbot-robots authors, BSD 3-Clause"
release = scrapy_gbot_robots.__version__
version = ".".join(release.split(".")[:2])

extensions = ["myst_parser", "gbot_settings"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []

myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
# Links between pages must resolve: a broken one is a warning, so an error under -W.
nitpicky = True
# A page may go from # to ### (GitHub shows it, the ids do not depend on the level): the one
# warning the site does not turn into an error.
suppress_warnings = ["myst.header"]

html_theme = "alabaster"
html_title = f"scrapy-gbot-robots {release}"
html_theme_options = {
    "description": "Obey robots.txt exactly as Googlebot does",
    "page_width": "1160px",
}
html_static_path = ["_static"]
html_css_files = ["site.css"]  # wide tables scroll inside the page

#: Where a link out of docs/ goes: the file on GitHub, on the branch of this version.
REPOSITORY = "https://github.com/scrapy-gbot-robots/scrapy-gbot-robots"
BRANCH = "main" if ".dev" in release else f"v{release}"
#: A Markdown link's target that leaves docs/: ](../path) or ](../path#anchor).
OUT = re.compile(r"\]\(\.\./([^)\s#]*)(#[^)\s]*)?\)")


def outside(match: re.Match[str]) -> str:
    """A link out of docs/, as the site can follow it."""
    path, anchor = match.group(1), match.group(2) or ""
    if path == "CHANGES.md":
        return f"](changelog.md{anchor})"
    kind = "tree" if path.endswith("/") or "." not in path.rsplit("/", 1)[-1] else "blob"
    return f"]({REPOSITORY}/{kind}/{BRANCH}/{path}{anchor})"


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    source[0] = OUT.sub(outside, source[0])


def _include_read(app: Any, path: Path, docname: str, source: list[str]) -> None:
    """CHANGES.md, included by the changelog page, links from the repository's root."""
    source[0] = ROOT_LINK.sub(root_link, source[0])


#: A relative Markdown link's target in a file at the repository's root.
ROOT_LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s]+)\)")


def root_link(match: re.Match[str]) -> str:
    """A link of CHANGES.md: to a page of the site, else to the file on GitHub."""
    target = match.group(1)
    path = target.split("#")[0]
    if path.startswith("docs/") and (ROOT / path).is_file():
        return f"]({target[len('docs/') :]})"
    return f"]({REPOSITORY}/blob/{BRANCH}/{target})"


def setup(app: Any) -> None:
    app.connect("source-read", _source_read)
    app.connect("include-read", _include_read)
