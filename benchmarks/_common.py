"""Helpers shared by the benchmark scripts: locating and loading the corpus, statistics, formatting.

Kept free of any engine or Scrapy import so that a benchmark can report a missing dependency
with a clear message instead of a traceback.
"""

from __future__ import annotations

import importlib
import statistics
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
# The shared data is never copied into the repository: it lives next to the repository's root.
DEFAULT_CORPUS = REPO_ROOT.parent / "shared" / "corpus"
USER_AGENT = "Googlebot"


@dataclass(frozen=True, slots=True)
class Site:
    """One corpus domain: the robots.txt bytes as fetched and every URL of that site."""

    domain: str
    body: bytes
    urls: tuple[str, ...]


def fail(message: str, code: int = 2) -> None:
    """Exit with a readable message: a benchmark without its inputs has nothing to say."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


def check_corpus(corpus: Path) -> None:
    """Refuse to run on a directory that is not the shared corpus, naming what is missing."""
    for sub in ("robots", "urls"):
        if not (corpus / sub).is_dir():
            fail(
                f"corpus not found: {corpus / sub} does not exist.\n"
                "The benchmark reads the shared corpus (robots/<domain>.txt, urls/<domain>.txt), "
                "by default from ../shared/corpus next to the repository root; pass --corpus PATH."
            )


def corpus_domains(corpus: Path) -> list[str]:
    """Domains that have both a robots file and a URL file, sorted for a stable order."""
    robots = {p.name[: -len(".txt")] for p in (corpus / "robots").glob("*.txt")}
    urls = {p.name[: -len(".txt")] for p in (corpus / "urls").glob("*.txt")}
    return sorted(robots & urls)


def split_urls(data: bytes) -> tuple[str, ...]:
    """Every URL line, trailing CR removed, empty lines skipped (as the reference verdicts do).

    Duplicates are kept: a crawler asks about every link it finds.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # not in the shared corpus, but never crash on someone's data
        text = data.decode("utf-8", errors="replace")
    out: list[str] = []
    for line in text.split("\n"):
        if line.endswith("\r"):
            line = line[:-1]
        if line:
            out.append(line)
    return tuple(out)


def load_site(corpus: Path, domain: str) -> Site:
    body = (corpus / "robots" / f"{domain}.txt").read_bytes()
    urls = split_urls((corpus / "urls" / f"{domain}.txt").read_bytes())
    return Site(domain, body, urls)


def load_sites(corpus: Path, quick: bool) -> list[Site]:
    """The sites to measure: every domain (or the --quick subset) that has at least one URL."""
    sites = [load_site(corpus, d) for d in select_domains(corpus_domains(corpus), quick)]
    return [s for s in sites if s.urls]


def select_domains(domains: Sequence[str], quick: bool, step: int = 10) -> list[str]:
    """The whole corpus, or every ``step``-th domain for a smoke run (deterministic)."""
    return list(domains[::step]) if quick else list(domains)


def import_engine(module: str) -> ModuleType:
    """Import the engine, falling back to the repository root when the package is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError as first:
        if str(REPO_ROOT) not in sys.path:
            sys.path.append(str(REPO_ROOT))
            try:
                return importlib.import_module(module)
            except ImportError:
                pass
        fail(
            f"cannot import the engine module {module!r}: {first!r}\n"
            'Install the project first: pip install -e ".[bench]"'
        )
        raise  # unreachable: fail() exits


def require_protego() -> None:
    """Protego is the peer every ratio is measured against; without it there is no benchmark."""
    try:
        importlib.import_module("protego")
    except ImportError:
        fail('protego is not installed; it is in the "bench" extra: pip install -e ".[bench]"')


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile, q in [0, 100]; enough for reporting tails."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return float(ordered[k])


def fmt_ns(ns: float) -> str:
    """A duration in the unit that keeps three significant figures readable."""
    if ns != ns:  # NaN
        return "n/a"
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.3g} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1_000_000:.3g} ms"
    return f"{ns / 1_000_000_000:.3g} s"


def fmt_bytes(n: float) -> str:
    if n != n:
        return "n/a"
    if abs(n) < 1_000:
        return f"{n:.0f} B"
    if abs(n) < 1_000_000:
        return f"{n / 1_000:.3g} KB"
    return f"{n / 1_000_000:.3g} MB"


def ratio(ours: float, peer: float) -> float:
    return ours / peer if peer else float("nan")


def http_response(status: bytes, body: bytes, content_type: bytes) -> bytes:
    """A whole HTTP/1.1 response, prebuilt: the benchmark servers must cost next to nothing."""
    head = (
        b"HTTP/1.1 " + status + b"\r\nContent-Type: " + content_type
        + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )  # fmt: skip
    return head + body


def alternating_rounds(modes: Sequence[str], rounds: int, warmup: bool) -> list[tuple[int, str]]:
    """``(round, mode)`` in run order; round 0 is an untimed warm-up.

    Each round reverses the previous one's order, so no mode always runs first on a machine
    whose speed drifts.
    """
    schedule = [(0, modes[0])] if warmup else []
    for r in range(rounds):
        schedule += [(r + 1, m) for m in (modes if r % 2 == 0 else modes[::-1])]
    return schedule


def url_list_spider(
    name: str,
    urls: Callable[[], Iterable[str]],
    page: Callable[[Any], None],
    failed: Callable[[Any], None],
) -> type:
    """A spider that requests ``urls()`` and hands each response or failure to a counter.

    Scrapy is imported here, not at the top, so the scripts can still say what is missing.
    """
    import scrapy

    class UrlListSpider(scrapy.Spider):
        def _requests(self) -> Iterator[Any]:
            for url in urls():
                yield scrapy.Request(url, callback=self.page, errback=self.failed)

        async def start(self) -> Any:  # Scrapy >= 2.13
            for request in self._requests():
                yield request

        def start_requests(self) -> Any:  # older Scrapy
            return self._requests()

        def page(self, response: Any) -> None:
            page(response)

        def failed(self, failure: Any) -> None:
            failed(failure)

    UrlListSpider.name = name
    return UrlListSpider
