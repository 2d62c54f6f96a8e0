"""The project's own habits: docs match the code, one version source, a public API."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

import scrapy_gbot_robots
from scrapy_gbot_robots._settings import NUMERIC, OTHER, PREFIX, known_settings

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| `(GBOT_ROBOTS_[A-Z_]+)` \| `([^`]*)`", re.MULTILINE)


def _documented() -> dict[str, str]:
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    return dict(ROW.findall(text))


def test_settings_doc_lists_exactly_the_settings_the_code_knows() -> None:
    assert set(_documented()) == set(known_settings())


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_settings_doc_gives_the_code_default_of_each_number(name: str) -> None:
    default = NUMERIC[name][0]
    assert float(_documented()[PREFIX + name]) == float(default)


@pytest.mark.parametrize("name", sorted(OTHER))
def test_settings_doc_gives_the_code_default_of_each_other_setting(name: str) -> None:
    assert _documented()[PREFIX + name] == OTHER[name]


def test_one_version_source() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    assert "version" not in project and "version" in project["dynamic"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "scrapy_gbot_robots.__version__"}
    assert metadata.version("scrapy-gbot-robots") == scrapy_gbot_robots.__version__


def test_changelog_starts_with_this_version_and_goes_back_to_0_1_0() -> None:
    text = (ROOT / "CHANGES.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\d+\.\d+\.\d+)", text, re.MULTILINE)
    assert versions[0] == scrapy_gbot_robots.__version__
    assert versions[-1] == "0.1.0"
    assert len(versions) == len(set(versions))


def test_every_public_name_imports_and_nothing_private_is_public() -> None:
    for name in scrapy_gbot_robots.__all__:
        assert getattr(scrapy_gbot_robots, name) is not None, name
        assert not name.startswith("_") or name == "__version__"


def test_docs_send_users_to_public_names_only() -> None:
    private = re.compile(r"scrapy_gbot_robots\._[a-z]+\.[A-Za-z]")
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        found = private.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name} points to private names: {found}"
