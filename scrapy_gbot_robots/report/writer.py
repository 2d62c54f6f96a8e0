"""Write the audit report to its files: JSON as collected, HTML through :mod:`.html`.

Pure: imports nothing from Scrapy or Twisted.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Any


def write(data: dict[str, Any], path: str) -> None:
    """Write the report to ``path``: JSON for ``.json``, a self-contained page for ``.html``.

    Written to a temporary file beside ``path``, then renamed: a reader never sees half a
    report, and a failed write leaves the previous one in place. Missing directories are made.
    """
    lowered = path.lower()
    if lowered.endswith(".json"):
        text = json.dumps(data, indent=2, default=str) + "\n"
    elif lowered.endswith((".html", ".htm")):
        from .html import render

        text = render(data)
    else:
        raise ValueError(f"{path}: the report is written as .json or .html")
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".gbot-report-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a report is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
