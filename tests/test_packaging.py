"""What the package index shows: the long description's links, and the metadata's promises.

``setup.py`` makes the README's relative links absolute for the index; CI (``.ci/run``) also
renders the built wheel's description as PyPI does and checks every link there.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

import scrapy_gbot_robots

ROOT = Path(__file__).resolve().parent.parent
#: A Markdown link's target; the text may run over lines, as it does in the README.
TARGET = re.compile(r"\]\(([^)\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")


def _setup() -> ModuleType:
    spec = importlib.util.spec_from_file_location("setup_under_test", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not as __main__: setup() is not called
    return module


setup = _setup()
BASE = "https://github.com/scrapy-gbot-robots/scrapy-gbot-robots"


def test_the_long_description_is_the_readme_with_each_relative_link_made_absolute() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    described = setup.long_description()
    before, after = TARGET.findall(readme), TARGET.findall(described)
    assert len(before) == len(after) > 0
    ref = (
        "main" if ".dev" in scrapy_gbot_robots.__version__ else "v" + scrapy_gbot_robots.__version__
    )
    for old, new in zip(before, after, strict=True):
        if old.startswith("https://"):
            assert new == old
        else:
            kind = "tree" if (ROOT / old.partition("#")[0]).is_dir() else "blob"
            assert new == f"{BASE}/{kind}/{ref}/{old}"
    # Nothing else changed.
    assert TARGET.sub("", described) == TARGET.sub("", readme)


def test_links_images_and_definitions_are_rewritten_and_code_is_not() -> None:
    markdown = (
        "See [the docs](docs/usage.md#a-heading), [a folder](tests/data), [here](#top),\n"
        '[a page](https://example.com/x "title") and [a [nested]\ntext](./CHANGES.md).\n'
        "![logo](docs/logo.png)\n"
        "`[code](docs/usage.md)` stays.\n"
        "```python\nx = [a](b)  # not a link\n```\n"
        "[defined]: docs/cli.md\n"
    )
    assert setup.absolute_links(markdown, "v1.0.0") == (
        f"See [the docs]({BASE}/blob/v1.0.0/docs/usage.md#a-heading),"
        f" [a folder]({BASE}/tree/v1.0.0/tests/data), [here]({BASE}/blob/v1.0.0/README.md#top),\n"
        '[a page](https://example.com/x "title") and'
        f" [a [nested]\ntext]({BASE}/blob/v1.0.0/CHANGES.md).\n"
        f"![logo]({BASE}/raw/v1.0.0/docs/logo.png)\n"
        "`[code](docs/usage.md)` stays.\n"
        "```python\nx = [a](b)  # not a link\n```\n"
        f"[defined]: {BASE}/blob/v1.0.0/docs/cli.md\n"
    )
    with pytest.raises(ValueError, match="outside the repository"):
        setup.absolute("../elsewhere.md", "main")


def test_a_release_links_to_its_tag_and_a_development_version_to_main() -> None:
    assert setup.git_ref("0.3.0") == "v0.3.0"
    assert setup.git_ref("0.3.0.dev0") == "main"
    assert setup.version() == scrapy_gbot_robots.__version__


def test_the_metadata_keeps_its_promises() -> None:
    """Typed because py.typed ships; a Scrapy framework; every Python version from
    requires-python's floor classified, with no gap; where the source, docs and issues are."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    classifiers = project["classifiers"]
    assert {"Framework :: Scrapy", "Typing :: Typed"} <= set(classifiers)
    assert (ROOT / "scrapy_gbot_robots" / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["scrapy_gbot_robots"]
    # gbot-robots agents' dated ai.robots.txt snapshot ships, with its licence inside.
    assert "data/*.json" in pyproject["tool"]["setuptools"]["package-data"]["scrapy_gbot_robots"]
    assert "MIT License" in (ROOT / "scrapy_gbot_robots" / "data" / "ai_robots.json").read_text()
    minors = [int(c.rsplit(".", 1)[1]) for c in classifiers if re.search(r":: 3\.\d+$", c)]
    floor = re.fullmatch(r">=3\.(\d+)", project["requires-python"])
    assert floor is not None
    assert minors == list(range(int(floor.group(1)), int(floor.group(1)) + len(minors)))
    assert set(project["urls"]) == {"Homepage", "Documentation", "Source", "Changelog", "Issues"}
    assert all(url.startswith("https://") for url in project["urls"].values())
    assert "readme" in project["dynamic"] and "readme" not in project  # setup.py gives it
    assert project["authors"] and project["keywords"]
