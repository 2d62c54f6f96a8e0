"""The project's own habits: docs match the code, one version source, a public API."""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
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
    """A development version (``0.3.0.dev0``) is the ``## 0.3.0 (unreleased)`` heading, a
    release (``0.3.0``) is ``## 0.3.0``; only the first heading may be unreleased."""
    text = (ROOT / "CHANGES.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\d+\.\d+\.\d+)( \(unreleased\))?", text, re.MULTILINE)
    version = re.fullmatch(r"(\d+\.\d+\.\d+)(\.dev\d+)?", scrapy_gbot_robots.__version__)
    assert version is not None, scrapy_gbot_robots.__version__
    release, dev = version.groups()
    assert headings[0] == (release, " (unreleased)" if dev else "")
    assert all(not unreleased for _, unreleased in headings[1:])
    versions = [number for number, _ in headings]
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


def test_stats_doc_says_which_stats_are_diagnostic() -> None:
    """docs/stats.md's diagnostic section lists exactly ``_stats.DIAGNOSTIC``: the stats a
    default crawl does not write (GBOT_ROBOTS_DIAGNOSTIC_STATS)."""
    text = (ROOT / "docs" / "stats.md").read_text(encoding="utf-8")
    section = text.split("## Diagnostic stats", 1)[1].split("\n## ", 1)[0]
    documented = {
        name for cell in STAT_ROW.findall(section) for name in re.findall(r"`([^`]*)`", cell)
    }
    assert documented == set(_stats.DIAGNOSTIC)


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
    "preferences",
    "report",
    "crawl/gate.py",
    "crawl/backoff.py",
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
    "_components.py",
    "_redact.py",
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


#: The direction of the layers, as docs/design.md draws them: each layer of the package (a
#: folder, or a module at its top) and the layers it may import. Bottom first: the engine
#: knows no other layer, the policy only the engine, and so on up to the Scrapy side
#: (``crawl``, the adapters at the top) and the command line (``cli``). A new module at the
#: top of the package, or a new folder, gets its row here.
_BELOW_CRAWL = frozenset(
    {"_safetext", "_meta", "signals", "_compat", "engine", "policy", "_stats", "_settings"}
    | {"_userlog", "stores", "parking", "report", "scrapy_parser", "_components", "_redact"}
    | {"page", "preferences"}
)
LAYERS: dict[str, frozenset[str]] = {
    "_safetext": frozenset(),  # text from outside made printable
    "_meta": frozenset(),
    "signals": frozenset(),
    "_compat": frozenset(),  # Scrapy's versions and internals, named
    "_components": frozenset(),  # the import paths of our Scrapy components
    "_redact": frozenset(),  # secrets out of every text that names a store or a lot
    "engine": frozenset({"_safetext"}),
    "policy": frozenset({"engine"}),
    "page": frozenset(),  # a response's page-level rules (robots meta tags, X-Robots-Tag)
    # a response's usage preferences: robots.txt's statements, headers, TDMRep, combined
    "preferences": frozenset({"engine", "page"}),
    "_stats": frozenset({"policy"}),
    "_settings": frozenset({"engine", "policy", "_redact"}),
    "_userlog": frozenset({"_settings", "_compat", "_redact"}),
    "stores": frozenset({"engine", "policy", "_redact", "_settings"}),
    "parking": frozenset({"engine", "policy", "_redact"}),
    "report": frozenset({"engine", "policy", "_safetext", "page"}),
    "scrapy_parser": frozenset({"engine"}),  # GoogleRobotParser: Scrapy's own middleware
    "crawl": _BELOW_CRAWL,
    "middleware": frozenset({"_meta", "crawl"}),  # the paths projects name: re-exports
    "body": frozenset({"crawl"}),
    "addon": frozenset({"_userlog", "_components"}),
    # The command line uses the plugin as a project does: through its public modules.
    "cli": frozenset(
        {"_safetext", "_meta", "signals", "_compat", "engine", "policy", "report", "_settings"}
        | {"middleware", "__init__", "page"}
    ),
    "__init__": frozenset(
        {"_settings", "engine", "policy", "stores", "signals", "addon", "crawl", "scrapy_parser"}
        | {"page"}
    ),
    "__main__": frozenset({"cli"}),
}


def _layer(path: Path) -> str:
    parts = path.relative_to(ROOT / "scrapy_gbot_robots").with_suffix("").parts
    return parts[0]


def _imported_modules(path: Path, source: str | None = None) -> set[Path]:
    """Our modules ``path`` (or ``source`` read as ``path``) imports, deferred imports
    included: ``from . import x`` imports ``x``, not the package it is in."""
    found: set[Path] = set()
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [
                f"{module}.{alias.name}"
                if _module_path(f"{module}.{alias.name}") is not None
                else module
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            target = _module_path(name) if name.startswith("scrapy_gbot_robots") else None
            if target is not None and target != path:
                found.add(target)
    return found


def test_the_layer_table_places_every_module() -> None:
    package = ROOT / "scrapy_gbot_robots"
    layers = {_layer(path) for path in package.rglob("*.py")}
    assert layers == set(LAYERS), "a module or folder without its row in LAYERS, or a stale row"
    for layer, allowed in LAYERS.items():
        assert layer not in allowed and allowed <= set(LAYERS), layer


#: CHANGES.md promises it ("No class over 450 lines"): a class that grows past it has taken
#: on a second job, which belongs in a collaborator of its own.
MAX_CLASS_LINES = 450


def _long_classes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES
    ]


def test_no_class_is_over_450_lines() -> None:
    long = [
        c for p in sorted((ROOT / "scrapy_gbot_robots").rglob("*.py")) for c in _long_classes(p)
    ]
    assert not long, long


def test_the_class_length_check_sees_a_long_class(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_CLASS_LINES))
    (tmp_path / "m.py").write_text(f"class Long:\n{body}\n\nclass Short:\n    y = 1\n")
    assert _long_classes(tmp_path / "m.py") == [f"m.py:Long ({MAX_CLASS_LINES + 1} lines)"]


#: The folders of the package whose every module has its test file,
#: ``tests/<folder>/test_<module>.py`` or ``tests/<folder>/test_<module>_<more>.py``
#: (``stores/memory.py``: ``test_memory_store.py``), or an entry in COVERED_ELSEWHERE.  A
#: folder joins once its tests are named by module.
CHECKED_FOLDERS = ("crawl", "engine", "parking", "stores")

#: Modules whose tests live in a file not named after them: module path (from the package)
#: -> the test file that covers it.  Suites that test a whole folder against an outside
#: reference (``tests/engine/test_semantics.py``, ``test_properties.py``,
#: ``test_conformance.py``) come on top of the per-module files, not instead of them.
COVERED_ELSEWHERE: dict[str, str] = {
    # The coordinator's collaborator for page answers: through real crawls of the back-off.
    "crawl/page_answers.py": "tests/crawl/test_backoff.py",
    # Test modules need distinct names, and tests/page/test_rules.py is page/rules.py's.
    "engine/rules.py": "tests/engine/test_robots_txt.py",
    # The old import path of engine/tokens.py, kept for code outside the package.
    "engine/agent.py": "tests/engine/test_tokens.py",
    # The linter's catalogue and its families of checks, run through the linter.
    "engine/lint_checks.py": "tests/engine/test_lint.py",
    "engine/lint_groups.py": "tests/engine/test_lint.py",
    "engine/lint_lines.py": "tests/engine/test_lint.py",
    "engine/lint_usage.py": "tests/engine/test_usage.py",
    # The crawl's small parts, each run by the test named (a file, maybe a test in it).
    "crawl/exits.py": "tests/crawl/test_coordinator.py"
    "::test_released_requests_go_one_per_turn_not_while_the_engine_is_full",
    "crawl/fetch_runs.py": "tests/crawl/test_coordinator.py"
    "::test_the_close_is_bounded_and_nothing_is_written_after_it",
    "crawl/opener.py": "tests/crawl/test_coordinator.py"
    "::test_a_jobdir_keeps_what_is_parked_and_the_next_run_takes_it_over",
    "crawl/page_rules.py": "tests/crawl/test_page_rules_middleware.py"
    "::test_the_0_2_module_path_still_loads_with_a_warning_naming_the_new_one",
    "crawl/reasons.py": "tests/crawl/test_gate.py",
    # The run's family of events and what every family shares, told through Telemetry.
    "crawl/run_events.py": "tests/crawl/test_telemetry.py",
    "crawl/telling.py": "tests/crawl/test_telemetry.py",
    "crawl/route.py": "tests/crawl/test_proxy_auth.py",  # and test_robots_fetch.py's route tests
    "parking/base.py": "tests/parking/test_lots.py",
    "stores/base.py": "tests/stores/test_tiered.py",
}


def _needs_a_test_file(path: Path) -> bool:
    """Every module but an ``__init__.py`` that holds only its docstring."""
    if path.name != "__init__.py":
        return True
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return not all(
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body
    )


def _untested(package: Path, tests: Path, folder: str) -> list[str]:
    """The modules of ``package/folder`` with neither ``tests/folder/test_<module>.py`` nor
    an entry in COVERED_ELSEWHERE."""
    return [
        name
        for path in sorted((package / folder).glob("*.py"))
        if _needs_a_test_file(path)
        and (name := str(path.relative_to(package))) not in COVERED_ELSEWHERE
        and not (tests / folder / f"test_{path.stem}.py").is_file()
        and not any((tests / folder).glob(f"test_{path.stem}_*.py"))
    ]


@pytest.mark.parametrize("folder", CHECKED_FOLDERS)
def test_each_module_has_a_test_file(folder: str) -> None:
    missing = _untested(ROOT / "scrapy_gbot_robots", ROOT / "tests", folder)
    assert not missing, f"no tests/{folder}/test_<module>.py nor COVERED_ELSEWHERE: {missing}"


def test_the_test_file_check_sees_a_module_without_one(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "engine").mkdir(parents=True)
    (tmp_path / "tests" / "engine").mkdir(parents=True)
    for name, text in [("__init__.py", '"""Docs only."""\n'), ("tested.py", ""), ("bare.py", "")]:
        (tmp_path / "pkg" / "engine" / name).write_text(text)
    (tmp_path / "pkg" / "engine" / "lint_checks.py").write_text("")  # covered elsewhere
    (tmp_path / "tests" / "engine" / "test_tested.py").write_text("")
    assert _untested(tmp_path / "pkg", tmp_path / "tests", "engine") == ["engine/bare.py"]
    (tmp_path / "pkg" / "engine" / "__init__.py").write_text("X = 1\n")  # code: needs tests
    found = _untested(tmp_path / "pkg", tmp_path / "tests", "engine")
    assert found == ["engine/__init__.py", "engine/bare.py"]


def test_every_covered_elsewhere_entry_names_a_module_and_a_test_file() -> None:
    package = ROOT / "scrapy_gbot_robots"
    for module, where in COVERED_ELSEWHERE.items():
        assert (package / module).is_file(), f"COVERED_ELSEWHERE: no module {module}"
        tests, _, test = where.partition("::")
        assert not _file_ref_missing(tests, test or None, ROOT), f"{module}: {where} is gone"
        # An entry is for a module without its own file: one that has it needs none.
        test_file = ROOT / "tests" / Path(module).parent / f"test_{Path(module).stem}.py"
        assert not test_file.is_file(), f"{module} has {test_file.relative_to(ROOT)}"


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    package = ROOT / "scrapy_gbot_robots"
    wrong = sorted(
        f"{path.relative_to(package)} imports {target.relative_to(package)}"
        for path in package.rglob("*.py")
        if _layer(path) == layer
        for target in _imported_modules(path)
        if _layer(target) != layer and _layer(target) not in LAYERS[layer]
    )
    assert not wrong, f"{layer} may import only {sorted(LAYERS[layer])}: {wrong}"


def test_the_layer_check_sees_relative_and_deferred_imports() -> None:
    package = ROOT / "scrapy_gbot_robots"
    source = (
        "from .. import _stats\nfrom ..policy import states\nfrom . import rules\n"
        "import scrapy_gbot_robots.report.labels\n\n\n"
        "def later() -> None:\n    from ..crawl.gate import Gate\n"
    )
    found = _imported_modules(package / "engine" / "sample.py", source)
    assert {str(t.relative_to(package)) for t in found} == {
        "_stats.py",
        "policy/states.py",
        "engine/rules.py",
        "report/labels.py",
        "crawl/gate.py",
    }


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


# ----------------------------------------------------------------------------- references

#: The files whose docstrings and comments may name our modules and tests.
SOURCES = sorted(
    path
    for folder in ("scrapy_gbot_robots", "tests", "benchmarks")
    for path in (ROOT / folder).rglob("*.py")
)
#: The first folder of a path that is ours; any other (``scrapy/...``, ``../shared/...``)
#: belongs to another project and is not checked.
OURS = frozenset(
    {"scrapy_gbot_robots", "tests", "benchmarks", "docs", "example_project", "gbot_demo"}
    | {"engine", "policy", "stores", "parking", "crawl", "report", "cli"}
)
#: A path to a ``.py`` or ``.md`` file (``*`` globs), then maybe ``::test_name``. Never inside
#: a URL: nothing that follows ``/``, a word character, ``.`` or ``-`` starts a match.
FILE_REF = re.compile(r"(?<![\w./*-])((?:[\w.-]+/)*[\w*-]+\.(?:py|md))\b(?:::(\w+(?:::\w+)*))?")
#: A bare file name that is ours by its shape: a test module, a benchmark, a private module.
OWN_NAME = re.compile(r"(?:test_|bench_|_)[\w*]+\.py")
DOTTED_REF = re.compile(r"\bscrapy_gbot_robots(?:\.\w+)+")
MOD_REF = re.compile(r":mod:`~?(\.*\w+(?:\.\w+)*)`")
#: A private name in backticks, alone or followed by attributes or a call: a private module of
#: ours (``_settings``) or a private name that the file itself uses. A module that lost its
#: underscore (stores/entry.py, once _entry) leaves its old name in backticks stale.
PRIVATE_REF = re.compile(r"(?<![`\w])``?(_[A-Za-z0-9]\w*)(?:\.\w+)*(?:\(\))?``?(?![`\w])")

#: Stale references the lead's files still hold while the crawl side is rewritten
#: (issue 23): (file, reference) pairs, each to be fixed there and removed here.
KNOWN_STALE: frozenset[tuple[str, str]] = frozenset()


def _prose_of(source: str) -> list[tuple[int, str]]:
    """Every docstring (a statement that is a string alone) and comment, with its first line.

    One pass of the tokenizer, no parse: this runs over every file of the project.
    """
    found: list[tuple[int, str]] = []
    at_start = True  # the next token starts a statement
    pending: tuple[int, str] | None = None  # a string that may be a statement of its own
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found.append((tok.start[0], tok.string))
        elif tok.type == tokenize.NEWLINE:
            if pending is not None:
                found.append(pending)
            pending, at_start = None, True
        elif tok.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            value = ast.literal_eval(tok.string) if at_start and tok.type == tokenize.STRING else 0
            pending = (tok.start[0], value) if isinstance(value, str) else None
            at_start = False
    return found


def _names_in(source: str) -> set[str]:
    """Every name a module defines, uses or spells as a string (``getattr(x, "_slot")``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.update((node.asname or node.name).split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def _defines(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.name == name
        for node in ast.walk(tree)
    )


def _file_ref_missing(ref: str, test: str | None, where: Path) -> bool:
    if "/" in ref:
        if ref.split("/")[0] not in OURS:
            return False  # another project's path
        bases = [ROOT, ROOT / "scrapy_gbot_robots", ROOT / "example_project", where.parent]
        found = [hit for base in bases for hit in base.glob(ref)]
    elif OWN_NAME.fullmatch(ref):
        found = [
            hit
            for folder in ("scrapy_gbot_robots", "tests", "benchmarks", "example_project")
            for hit in (ROOT / folder).rglob(ref)
        ]
    else:
        return False  # a bare name such as utils.py: nothing says whose it is
    if not found:
        return True
    return test is not None and not all(
        any(_defines(hit, part) for hit in found) for part in test.split("::")
    )


def _dotted_ref_missing(ref: str) -> bool:
    parts = ref.split(".")
    for n in range(len(parts), 0, -1):
        if _module_path(".".join(parts[:n])) is None:
            continue
        target: object = importlib.import_module(".".join(parts[:n]))
        for attr in parts[n:]:
            if not hasattr(target, attr):
                return True
            target = getattr(target, attr)
        return False
    return True


def _mod_ref_missing(ref: str, where: Path) -> bool:
    level = len(ref) - len(ref.lstrip("."))
    name = ref.lstrip(".")
    if level:
        package = where.relative_to(ROOT).with_suffix("").parts[:-1]
        name = ".".join([*package[: len(package) - level + 1], name])
    return _module_path(name) is None


def _stale_references(path: Path, source: str) -> list[tuple[int, str]]:
    """The references in the docstrings and comments of ``source`` (the text of ``path``) to
    files, modules, tests or private modules of ours that do not exist, each with its line."""
    patterns = (FILE_REF, DOTTED_REF, MOD_REF, PRIVATE_REF)
    if not any(pattern.search(source) for pattern in patterns):
        return []  # nothing that looks like a reference, in prose or in code
    stems = {p.stem for p in SOURCES}
    names: set[str] | None = None
    stale: list[tuple[int, str]] = []
    for start, text in _prose_of(source):
        for match in FILE_REF.finditer(text):
            if _file_ref_missing(match[1], match[2], path):
                stale.append((start + text.count("\n", 0, match.start()), match[0]))
        for match in DOTTED_REF.finditer(text):
            if _dotted_ref_missing(match[0]):
                stale.append((start + text.count("\n", 0, match.start()), match[0]))
        for match in MOD_REF.finditer(text):
            if _mod_ref_missing(match[1], path):
                stale.append((start + text.count("\n", 0, match.start()), match[0]))
        for match in PRIVATE_REF.finditer(text):
            head = match[1]
            if head in stems:
                continue
            if names is None:
                names = _names_in(source)
            if head not in names:
                stale.append((start + text.count("\n", 0, match.start()), match[0]))
    return sorted(stale)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_docstrings_and_comments_name_only_what_exists(path: Path) -> None:
    """A module path (``engine/lines.py``), a test path
    (``tests/test_project.py::test_a_stale_reference_is_found``), a dotted name
    (``scrapy_gbot_robots.engine.rules``), a ``:mod:`` target or a private module (``_settings``)
    named in a docstring or comment must exist."""
    relative = str(path.relative_to(ROOT))
    stale = [
        f"line {line}: {ref}"
        for line, ref in _stale_references(path, path.read_text(encoding="utf-8"))
        if (relative, ref) not in KNOWN_STALE
    ]
    assert not stale, f"{relative} names what does not exist: {stale}"


def test_a_stale_reference_is_found() -> None:
    source = (
        '"""From ``_lines.report()``, see engine/lines.py and engine/gone.py; tests/test_x.py\n'
        "and tests/engine/test_lint.py::test_nothing_here; tests/engine/test_lint.py; a URL\n"
        "https://example.com/tests/test_x.py; Scrapy's scrapy/utils/misc.py; utils.py;\n"
        ":mod:`.rules` (read where it is) but :mod:`.gone`; scrapy_gbot_robots.engine.rules.parse\n"
        'and scrapy_gbot_robots.engine.nothing; ``_settings``; ``_helper``.\n"""\n'
        "\n"
        "# tests/crawl/test_middleware*.py, tests/test_middleware*.py, _policy.py\n"
        "def _helper() -> None: ...\n"
    )
    stale = _stale_references(ROOT / "scrapy_gbot_robots" / "engine" / "sample.py", source)
    assert [ref for _, ref in stale] == [
        "``_lines.report()``",
        "engine/gone.py",
        "tests/test_x.py",
        "tests/engine/test_lint.py::test_nothing_here",
        ":mod:`.gone`",
        "scrapy_gbot_robots.engine.nothing",
        "_policy.py",
        "tests/test_middleware*.py",
    ]


# ----------------------------------------------------------------------------- the glossary

#: The words the glossary of docs/design.md retired (a pattern over words: a name is split into
#: words first, so ``SendOn``, ``send_on`` and "sent on" all read as "send on"), each with the
#: word that took its place.
RETIRED: dict[str, str] = {
    r"\b(un)?defer(s|red|ring|ral)?\b": "park / release",
    r"\bsen(d|ds|t|ding) on\b": "release",
    r"\bdrip": "release",
    r"\bcach(e|es|ed|ing)\b": "store",
    r"\bagents?\b": "token",
    r"\bparking lot\b": "lot",
}
#: Retired in names only: ordinary English in a sentence.
RETIRED_IN_NAMES: dict[str, str] = {
    r"\bready\b": "release",
    r"\bgiv(e|en|ing) up\b": "drop",
}
#: Retired in public names only: inside the code a URL has a host, the tokenizer blocks, the
#: budget is blocked by the store's room, none of them the glossary's concepts.
RETIRED_IN_PUBLIC_NAMES: dict[str, str] = {
    r"\bblock(s|ed|ing)?\b": "forbid",
    r"\b(site|host)s?\b": "origin",
}
#: Where a retired word is right in a name, and why: (a path of the package, or a folder of
#: it, "" for all of it; the name, or the retired word for every name with it).
ALLOWED_NAMES: dict[tuple[str, str], str] = {
    ("engine/", "agent"): "robots.txt's User-agent: line: the engine's groups and lint checks",
    ("page/", "agent"): "X-Robots-Tag's user agents (googlebot: noindex)",
    ("scrapy_parser.py", "agent"): "Scrapy's RobotParser interface: allowed(url, user_agent)",
    ("_settings.py", "user_agent"): "Scrapy's USER_AGENT header",
    ("cli/lint.py", "agents"): "a group's User-agent: lines",
    ("cli/agents.py", "agents"): "the command issue 49 names: AI crawlers, ai.robots.txt's word",
    ("", "cache_control"): "HTTP's Cache-Control header",
    ("policy/states.py", "cache_ttl"): "PolicyConfig's public field since 0.1 (GBOT_ROBOTS_TTL)",
    ("_compat.py", "UNHANDLED_IN_DEFERRED"): "Twisted's Deferred",
    ("crawl/exits.py", "deferred"): "a Twisted Deferred (a download waiting in place)",
}


def _words(name: str) -> str:
    """A name as lower-case words: ``SendOn`` and ``send_on`` are "send on"."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return spaced.replace("_", " ").replace("/", " ").replace("-", " ").lower()


def _retired_in(name: str, words: dict[str, str]) -> list[str]:
    said = _words(name)
    return [pattern for pattern in words if re.search(pattern, said)]


def _defined_names(source: str) -> set[str]:
    """The names a module defines: classes, functions, arguments, variables, attributes."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
    return found


def _allowed_name(where: str, name: str) -> bool:
    return any(
        where.startswith(prefix)
        and (allowed == name or re.search(rf"\b{allowed}s?\b", _words(name)) is not None)
        for prefix, allowed in ALLOWED_NAMES
    )


def _retired_names(where: str, source: str) -> list[str]:
    """The names of a module (``where``, under the package) that use a retired word."""
    words = {**RETIRED, **RETIRED_IN_NAMES}
    names = _defined_names(source) | {Path(where).stem}
    return sorted(
        name for name in names if _retired_in(name, words) and not _allowed_name(where, name)
    )


def test_no_name_of_the_package_uses_a_retired_word() -> None:
    package = ROOT / "scrapy_gbot_robots"
    found = {
        str(path.relative_to(package)): hits
        for path in sorted(package.rglob("*.py"))
        if (hits := _retired_names(str(path.relative_to(package)), path.read_text("utf-8")))
    }
    assert not found, f"names in retired words (docs/design.md#the-glossary): {found}"


def _public_names() -> dict[str, list[str]]:
    """Every name a user meets in code: settings, stats, signals, meta keys, Config fields."""
    import dataclasses

    from scrapy_gbot_robots import _meta, signals
    from scrapy_gbot_robots._settings import Config

    return {
        "setting": sorted(known_settings()),
        "Config field": [f.name for f in dataclasses.fields(Config) if f.name != "user_agent"],
        "stat": [n for n in _stats.documented_names() if n not in _stats.OLD_NAMES.values()],
        "signal": [n for n, v in vars(signals).items() if type(v) is object],
        "meta key": [
            v
            for n, v in vars(_meta).items()
            if n.isupper() and isinstance(v, str) and v not in _meta.RENAMED
        ],
    }


def test_no_setting_stat_signal_or_meta_key_uses_a_retired_word() -> None:
    words = {**RETIRED, **RETIRED_IN_NAMES, **RETIRED_IN_PUBLIC_NAMES}
    found = [
        f"{kind} {name}"
        for kind, names in _public_names().items()
        for name in names
        if _retired_in(name, words)
    ]
    assert not found, found
    assert len(_public_names()["signal"]) == 6  # the scan saw the signals


_LOG_LEVELS = frozenset({"debug", "info", "warning", "error", "exception", "critical"})


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(part) for part in node.values)
    if isinstance(node, ast.IfExp):
        return f"{_text(node.body)} {_text(node.orelse)}"
    return " "


def _log_messages(source: str) -> list[tuple[int, str]]:
    """The messages of a module's ``logger.<level>(...)`` calls, with their lines."""
    return [
        (node.lineno, _text(node.args[0]))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _LOG_LEVELS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "logger"
        and node.args
    ]


#: Prose where a retired word is right: robots.txt's User-agent: line and HTTP's User-Agent
#: header, Twisted's Deferred, Google's page's words, CPU caches and Scrapy's own.
ALLOWED_PROSE = (
    re.compile(r"\buser[- ]agents?\b", re.IGNORECASE),
    re.compile(r"\bDeferreds?\b"),
    re.compile(
        r"\bGoogle's (fetching and caching|robots\.txt cache)|\bFetching and caching\b"
        r"|\bCPU caches?\b|\bScrapy's caches\b",
        re.IGNORECASE,
    ),
    # HTTP's own term (RFC 9111, "HTTP Caching"; Google's crawlers' page), and a link's
    # address, which is a name like code in backticks.
    re.compile(r"\bHTTP caching\b|\]\([^)\s]*\)", re.IGNORECASE),
)


def _retired_prose(text: str) -> list[str]:
    for allowed in ALLOWED_PROSE:
        text = allowed.sub(" ", text)
    return [m[0] for p in RETIRED for m in re.finditer(p, text, re.IGNORECASE)]


def test_no_log_line_uses_a_retired_word() -> None:
    package = ROOT / "scrapy_gbot_robots"
    found = [
        f"{path.relative_to(package)}:{line}: {words}"
        for path in sorted(package.rglob("*.py"))
        for line, message in _log_messages(path.read_text("utf-8"))
        if (words := _retired_prose(message))
    ]
    assert not found, found


#: The prose of these pages is checked; CHANGES.md keeps the words of its time.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: A block (paragraph, list item, table) about Scrapy's HTTP cache may say "cache".
_HTTP_CACHE = re.compile(r"HTTP cache|HTTPCACHE|HttpCacheMiddleware")


def _prose_blocks(text: str) -> list[tuple[int, str, str]]:
    """(first line, block, its section's heading) of a page, without code (fenced or in
    backticks: names are the names checks' business) and without the glossary itself."""
    blocks: list[tuple[int, str, str]] = []
    heading, fence, start = "", False, 0
    lines: list[str] = []
    for n, line in enumerate([*text.split("\n"), ""], 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if line.startswith("#") or not line.strip():
            if lines and heading != "## The glossary":
                blocks.append((start, re.sub(r"`[^`]*`", " ", "\n".join(lines)), heading))
            lines = []
            heading = line if line.startswith("#") else heading
            continue
        start = start if lines else n
        lines.append(line)
    return blocks


def _retired_in_page(text: str) -> list[str]:
    found = []
    for line, block, heading in _prose_blocks(text):
        hits = _retired_prose(block)
        if _HTTP_CACHE.search(block) or _HTTP_CACHE.search(heading):
            hits = [hit for hit in hits if not re.fullmatch(RETIRED_CACHE, hit, re.IGNORECASE)]
        found += [f"line {line}+: {hit!r}" for hit in hits]
    return found


RETIRED_CACHE = r"cach(e|es|ed|ing)"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_uses_a_retired_word(page: Path) -> None:
    found = _retired_in_page(page.read_text("utf-8"))
    assert not found, f"{page.name} (docs/design.md#the-glossary): {found}"


def _old_names() -> list[str]:
    """The public names of 0.2 that changed: each still works until 0.4."""
    from scrapy_gbot_robots import _meta, signals
    from scrapy_gbot_robots._settings import RENAMED

    return [
        *RENAMED,
        *_stats.OLD_NAMES.values(),
        *signals.RENAMED,
        *_meta.RENAMED,
        "--user-agent",
    ]


def _old_names_out_of_place(text: str) -> list[str]:
    """Old names a page gives outside a block (or the block after one) that says 0.2 or 0.4:
    a page names them only to say what they became (Scrapy's own ``request_dropped`` aside)."""
    out: list[str] = []
    previous = ""
    for line, block, _ in _prose_blocks(re.sub(r"`([^`]*)`", r"@\1@", text)):
        dated = re.search(r"\b0\.[24]\b", previous + block)
        for name in _old_names():
            for hit in re.finditer(rf"@{re.escape(name)}@", block):
                scrapys = block[: hit.start()].endswith("Scrapy's ")
                if not dated and not (scrapys and name == "request_dropped"):
                    out.append(f"line {line}+: {name}")
        previous = block
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_names_an_old_name_only_to_say_what_it_became(page: Path) -> None:
    found = _old_names_out_of_place(page.read_text("utf-8"))
    assert not found, f"{page.name}: {found}"


def test_settings_doc_lists_every_renamed_setting() -> None:
    from scrapy_gbot_robots._settings import RENAMED

    text = (ROOT / "docs" / "settings.md").read_text("utf-8")
    for old, new in RENAMED.items():
        assert f"- `{old}` → `{new}`" in text, old


def test_the_glossary_checks_find_what_they_look_for() -> None:
    source = (
        "class SendOn: ...\n"
        "def drip(deferred_count: int) -> None:\n"
        "    self.user_agent = logger.info('undeferred, sent on, via the parking lot')\n"
    )
    found = _retired_names("crawl/sample.py", source)
    assert found == ["SendOn", "deferred_count", "drip", "user_agent"]
    assert _retired_names("engine/sample.py", "agent_lines = 1\n") == []  # User-agent: lines
    assert _retired_names("crawl/sample.py", "cache_control = 1\nReadyOrigins = 2\n") == [
        "ReadyOrigins"
    ]
    (message,) = _log_messages(source)
    assert _retired_prose(message[1]) == ["undeferred", "sent on", "parking lot"]
    page = (
        "# Page\n\nRequests are deferred, then sent on from the cache (a `robotstxt/deferred`\n"
        "name is code, so is\n```\ncache\n```\n). A User-agent: line, Twisted's Deferred.\n\n"
        "## Scrapy's HTTP cache\n\nThe cache answers.\n\n## The glossary\n\ndrip\n\n"
        "Until 0.4, `GBOT_ROBOTS_CACHE` still works.\n\n## Then\n\nScrapy's `request_dropped`.\n\n"
        "But `request_deferred` here does not.\n"
    )
    assert _retired_in_page(page) == [f"line 3+: {w!r}" for w in ("deferred", "sent on", "cache")]
    out_of_place = ["line 3+: robotstxt/deferred", "line 24+: request_deferred"]
    assert _old_names_out_of_place(page) == out_of_place


# ----------------------------------------------------------------------------- the signals


def _sent_by() -> dict[str, set[str]]:
    """Each signal of ours -> the ``Class.method`` of crawl/telemetry.py that send it."""
    tree = ast.parse((ROOT / "scrapy_gbot_robots" / "crawl" / "telemetry.py").read_text("utf-8"))
    found: dict[str, set[str]] = {}
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        for fn in (node for node in cls.body if isinstance(node, ast.FunctionDef)):
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                if node.func.attr not in ("_send", "send_catch_log"):
                    continue
                args = [*node.args, *(k.value for k in node.keywords if k.arg == "signal")]
                for arg in args:
                    if (
                        isinstance(arg, ast.Attribute)
                        and isinstance(arg.value, ast.Name)
                        and arg.value.id == "signals"
                    ):
                        found.setdefault(arg.attr, set()).add(f"{cls.name}.{fn.name}")
    return found


def _said_sent_by() -> dict[str, set[str]]:
    """Each signal of signals.py -> the methods its comment names: "Sent by ``X.y``: ..."."""
    said: dict[str, set[str]] = {}
    comment: list[str] = []
    for line in (ROOT / "scrapy_gbot_robots" / "signals.py").read_text("utf-8").splitlines():
        if line.startswith("#:"):
            comment.append(line[2:].strip())
            continue
        signal = re.fullmatch(r"(\w+) = object\(\)", line)
        if signal:
            head = " ".join(comment).partition(":")[0]
            assert head.startswith("Sent by "), f"{signal[1]}: say which method sends it"
            said[signal[1]] = set(re.findall(r"``(\w+\.\w+)``", head))
        comment = []
    return said


def test_each_signal_is_sent_where_its_comment_says() -> None:
    """signals.py's comments once said ``request_dropped`` fired at the deadline only and
    ``request_deferred`` for undecided origins only; each now names its sender, checked here."""
    from scrapy_gbot_robots import signals

    said = _said_sent_by()
    assert set(said) == {n for n, v in vars(signals).items() if type(v) is object}
    assert said == _sent_by()


def test_signals_doc_lists_exactly_our_signals() -> None:
    text = (ROOT / "docs" / "signals.md").read_text("utf-8")
    documented = set(re.findall(r"^\| `scrapy_gbot_robots\.signals\.(\w+)`", text, re.MULTILINE))
    assert documented == set(_said_sent_by())
