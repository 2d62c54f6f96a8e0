"""The settings table of the documentation site, generated from the one place settings are
declared (``scrapy_gbot_robots._settings``: ``NUMERIC``, ``OTHER``, ``RENAMED``).

docs/settings.md carries the marker ``<!-- gbot-settings-table -->``, an HTML comment GitHub
hides; while Sphinx reads the page, this extension puts there a table of every
``GBOT_ROBOTS_*`` setting with its default, its type and its 0.2 name, so the site's table
cannot drift from the code. It also compares the page's prose table (the one
``tests/test_project.py`` checks) with the declarations, and warns (an error under
``sphinx-build -W``) about a setting the page names that the code does not know, one it
misses, or a default it gives wrongly.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from scrapy_gbot_robots import _settings

logger = logging.getLogger(__name__)

MARKER = "<!-- gbot-settings-table -->"
#: A row of the prose table: | `GBOT_ROBOTS_X` | `default` ...
ROW = re.compile(r"^\| `(GBOT_ROBOTS_[A-Z_]+)` \| `([^`]*)`", re.MULTILINE)


def declared() -> list[tuple[str, str, str]]:
    """(name, default as written in the docs, type) of each setting, in declaration order."""
    old = {new: old for old, new in _settings.RENAMED.items()}
    rows: list[tuple[str, str, str]] = []
    for name, (value, kind, minimum) in _settings.NUMERIC.items():
        shown = repr(float(value)) if kind == "float" else str(int(value))
        low = repr(float(minimum)) if kind == "float" else str(int(minimum))
        rows.append((name, shown, f"{kind}, at least {low}"))
    for name, written in _settings.OTHER.items():
        rows.append((name, written, _kind(name, written)))
    return [
        (full, default, kind + (f"; 0.2 name `{old[full]}`" if full in old else ""))
        for full, default, kind in ((_settings.PREFIX + n, d, k) for n, d, k in rows)
    ]


def _kind(name: str, written: str) -> str:
    """The type of a setting that is not a number, from what the code declares of it."""
    choices = {"MODE": _settings.MODES, "PAGE_RULES": _settings.PAGE_RULES}.get(name)
    if choices:
        return "one of " + ", ".join(f'`"{choice}"`' for choice in choices)
    if written in ("True", "False"):
        return "bool"
    if written == "[]":
        return "list, or a comma-separated string"
    return "see the table below"


def table() -> str:
    """The generated table, in Markdown (MyST reads it as it reads the rest of the page)."""
    lines = [
        "| Setting | Default | Type |",
        "|---|---|---|",
        *(f"| `{name}` | `{default}` | {kind} |" for name, default, kind in declared()),
    ]
    return "\n".join(lines) + "\n"


def drift(text: str) -> list[str]:
    """How the page's prose table differs from the declarations."""
    documented = dict(ROW.findall(text))
    code = {name: default for name, default, _ in declared()}
    found = [f"{name}: documented, unknown to the code" for name in documented.keys() - code.keys()]
    found += [f"{name} is not documented" for name in code.keys() - documented.keys()]
    for name in documented.keys() & code.keys():
        written, default = documented[name], code[name]
        numeric = name[len(_settings.PREFIX) :] in _settings.NUMERIC
        same = float(written) == float(default) if numeric else written == default
        if not same:
            found.append(f"{name}: the page says {written}, the code {default}")
    return sorted(found)


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if MARKER not in source[0]:
        return
    for problem in drift(source[0]):
        logger.warning("settings table: %s", problem, location=docname)
    source[0] = source[0].replace(MARKER, table())


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
