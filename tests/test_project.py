"""The project's own habits: docs match the code, one version source, a public API."""

from __future__ import annotations

import ast
import re
from importlib import metadata
from pathlib import Path

import pytest

import scrapy_gbot_robots
from scrapy_gbot_robots import _stats
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


STAT_ROW = re.compile(r"^\| ((?:`robotstxt/[^`]*`(?:, )?)+) \|", re.MULTILINE)


def test_stats_doc_lists_exactly_the_stats_the_code_writes() -> None:
    text = (ROOT / "docs" / "stats.md").read_text(encoding="utf-8")
    documented = {
        name for cell in STAT_ROW.findall(text) for name in re.findall(r"`([^`]*)`", cell)
    }
    assert documented == set(_stats.documented_names())


def test_stat_names_are_written_in_one_module_only() -> None:
    package = ROOT / "scrapy_gbot_robots"
    for path in package.rglob("*.py"):
        if path.name == "_stats.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr) and node.values:
                node = node.values[0]
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert not node.value.startswith("robotstxt/"), f"{where} spells a stat name"


#: The layers that know nothing of Scrapy or Twisted (docs/design.md points here, lists nothing).
PURE = [
    "engine",
    "policy",
    "page",
    "report",
    "crawl/gate.py",
    "stores/base.py",
    "stores/memory.py",
    "stores/tiered.py",
    "stores/entry.py",
    "stores/sqlite.py",
    "parking/base.py",
    "parking/memory.py",
    "parking/sqlite.py",
    "_settings.py",
    "_stats.py",
    "_meta.py",
    "_safetext.py",
]


def _imports(path: Path) -> set[str]:
    """The modules ``path`` imports, relative imports resolved to absolute names."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _module_path(name: str) -> Path | None:
    for candidate in (
        (ROOT / name.replace(".", "/")).with_suffix(".py"),
        (ROOT / name.replace(".", "/") / "__init__.py"),
    ):
        if candidate.is_file():
            return candidate
    return None


@pytest.mark.parametrize("layer", PURE)
def test_pure_layers_import_nothing_from_scrapy_or_twisted(layer: str) -> None:
    root = ROOT / "scrapy_gbot_robots" / layer
    todo = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in ("scrapy", "twisted"), f"{path.relative_to(ROOT)} imports {name}"
            if top == "scrapy_gbot_robots":
                found = _module_path(name)
                if found is not None:
                    todo.append(found)  # what it imports of ours must be pure too


def test_no_import_cycle_inside_the_package() -> None:
    package = ROOT / "scrapy_gbot_robots"
    graph: dict[Path, set[Path]] = {}
    for path in package.rglob("*.py"):
        targets = {_module_path(name) for name in _imports(path) if name.startswith("scrapy_")}
        graph[path] = {
            t for t in targets if t is not None and t != path and t.name != "__init__.py"
        }
    state: dict[Path, int] = {}

    def visit(node: Path, trail: list[Path]) -> None:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                cycle = [*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt]
                raise AssertionError(" -> ".join(str(p.relative_to(ROOT)) for p in cycle))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])


#: The pages whose links must resolve: the README, every page of docs/, the demo's README.
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "example_project" / "README.md",
]
FENCE = re.compile(r"^ {0,3}(```|~~~)")
LINK = re.compile(r"\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)")


def _prose(text: str) -> list[str]:
    """The lines of a Markdown page outside fenced code blocks, code spans removed."""
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(re.sub(r"(`+).*?\1", "", line))
    return lines


def _slug(heading: str) -> str:
    """GitHub's id for a heading: its text lower-cased, punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link: its text
    text = re.sub(r"[`*]", "", text).lower()  # markup; a trailing `*` still leaves its space
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    """The ids of a page's headings; a repeated one gets -1, -2, ... as on GitHub."""
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$", line)
        if fenced or not heading:
            continue
        slug = unique = _slug(heading.group(1))
        n = 0
        while unique in found:
            n += 1
            unique = f"{slug}-{n}"
        found.add(unique)
    return found


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("`GBOT_ROBOTS_*` settings", "gbot_robots_-settings"),
        (
            "`report`: the summary of a crawl's audit report",
            "report-the-summary-of-a-crawls-audit-report",
        ),
        (
            "Engine vs Protego (`benchmarks/bench_engine.py`)",
            "engine-vs-protego-benchmarksbench_enginepy",
        ),
        (
            "Broad crawls: the fetch budget, parking and 500 KiB",
            "broad-crawls-the-fetch-budget-parking-and-500-kib",
        ),
        (
            "Recipe: feed robots.txt sitemaps to a `SitemapSpider`",
            "recipe-feed-robotstxt-sitemaps-to-a-sitemapspider",
        ),
        ("The [engine](docs/engine.md), in **short**", "the-engine-in-short"),
        (
            "Crawlers with several tokens, and crawlers that ignore `*`",
            "crawlers-with-several-tokens-and-crawlers-that-ignore-",
        ),
    ],
)
def test_heading_ids_are_githubs(heading: str, slug: str) -> None:
    assert _slug(heading) == slug


def test_a_repeated_heading_gets_a_numbered_id(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n## Notes ##\n", "utf-8")
    assert _anchors(page) == {"notes", "notes-1", "notes-2"}


def _broken_links(page: Path) -> list[str]:
    broken = []
    for line in _prose(page.read_text(encoding="utf-8")):
        for target in [*LINK.findall(line), *REFERENCE.findall(line)]:
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # an absolute URL (https:, mailto:): not ours to check offline
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    return broken


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n", "utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#other-page) [ok](#page) [ok](https://example.com/x.md)\n"
        "[gone](missing.md) [moved](other.md#nowhere) [self](#nothing) `[code](no.md)`\n"
        "```\n[fenced](no.md)\n```\n[ref]: lost.md\n",
        "utf-8",
    )
    assert _broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading #nowhere in other.md",
        "#nothing: no heading #nothing in page.md",
        "lost.md: no such file",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """A link to a moved page or a renamed heading fails here, not in a reader's browser."""
    broken = _broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"
