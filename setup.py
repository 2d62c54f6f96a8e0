"""The package's long description: the README, with its relative links made absolute.

Everything else is declared in pyproject.toml. The README links ``docs/...`` relatively, which
GitHub resolves and a package index cannot; the index page gets the same text with each
relative link pointing at that file on GitHub, at the release's tag (``v0.3.0``; the main
branch for a ``.dev`` version). The README stays one text, checked by
``tests/test_project.py`` (each link resolves, each anchor is a heading) and rendered
the same by GitHub; docs/development.md says why this and not the docs site.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent
REPOSITORY = "https://github.com/scrapy-gbot-robots/scrapy-gbot-robots"

# In the order tried at each place of the text: code is left as it is, links are rewritten.
_MARKDOWN = re.compile(
    r"(?P<fence>^(?P<ticks>```|~~~).*?^(?P=ticks)[ \t]*$)"
    r"|(?P<code>(?P<quotes>`+).+?(?P=quotes))"
    r"|(?P<image>!?)(?P<text>\[(?:[^\[\]]|\[[^\[\]]*\])*\])"
    r"\((?P<target>[^)\s]+)(?P<title>[ \t]+\"[^\"\n]*\")?\)"
    r"|(?P<label>^ {0,3}\[[^\]\n]+\]:[ \t]+)(?P<defined>\S+)",
    re.MULTILINE | re.DOTALL,
)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def version() -> str:
    """``__version__``, read without importing the package (a build has no Scrapy)."""
    text = (ROOT / "scrapy_gbot_robots" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if found is None:
        raise RuntimeError("scrapy_gbot_robots/__init__.py has no __version__ line")
    return found.group(1)


def git_ref(release: str) -> str:
    """Where a release's links point: its tag, or the main branch for a development version."""
    return "main" if ".dev" in release else f"v{release}"


def absolute(target: str, ref: str, *, image: bool = False) -> str:
    """A link of the README as the package index must show it; absolute ones unchanged."""
    if _SCHEME.match(target) or target.startswith("//"):
        return target
    path, hash_, anchor = target.partition("#")
    path = posixpath.normpath(path) if path else "README.md"
    if path.startswith("../"):
        raise ValueError(f"the README links outside the repository: {target}")
    kind = "raw" if image else "tree" if (ROOT / path).is_dir() else "blob"
    return f"{REPOSITORY}/{kind}/{ref}/{path}{hash_}{anchor}"


def absolute_links(markdown: str, ref: str) -> str:
    """``markdown`` with every relative link, image and link definition made absolute; code
    spans and fenced blocks untouched."""

    def rewrite(match: re.Match[str]) -> str:
        if match["fence"] or match["code"]:
            return match[0]
        if match["label"]:
            return match["label"] + absolute(match["defined"], ref)
        target = absolute(match["target"], ref, image=bool(match["image"]))
        return f"{match['image']}{match['text']}({target}{match['title'] or ''})"

    return _MARKDOWN.sub(rewrite, markdown)


def long_description() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return absolute_links(readme, git_ref(version()))


if __name__ == "__main__":
    from setuptools import setup

    setup(long_description=long_description(), long_description_content_type="text/markdown")
