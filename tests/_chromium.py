"""Headless Chromium for the tests of the report and of the docs site: the DOM it builds
from a page, at a given width.

The process group is killed if it outlives its bound, so a hung browser never hangs the run.
Without a ``chromium`` on the PATH the tests that need it skip, saying why.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
)
MISSING = "chromium is not installed (apt-get install chromium)"


def dump_dom(page: Path, profile: Path, width: int | None = None) -> str:
    """The DOM headless Chromium builds from ``page`` (after its scripts ran), in a window
    ``width`` pixels wide when given."""
    assert CHROMIUM is not None
    size = [f"--window-size={width},900"] if width else []
    proc = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            *size,
            "--dump-dom",
            page.as_uri(),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0
    return out.decode("utf-8")
