"""The carried conformance data keep their rule, and the two scripts around them fail loudly.

``tests/data/draw_sample.py`` is run on a small made-up corpus (its rule, its ``--check``);
``tests/full_conformance.py`` on data that are not the full ones (it must not pass). The
carried sample itself is checked against the rule it was drawn by.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import full_conformance
import pytest
from _conformance import CARRIED, corpus_rows, robots_file

TOKENS = ("Googlebot", "Googlebot-Image", "Bingbot", "Scrapy")


def _draw_sample() -> ModuleType:
    spec = importlib.util.spec_from_file_location("draw_sample", CARRIED / "draw_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


draw_sample = _draw_sample()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _corpus(root: Path, sites: dict[str, list[tuple[str, bool]]]) -> None:
    """A made-up full corpus: per site, its URLs and whether each is disallowed (for Bingbot)."""
    (root / "conformance").mkdir(parents=True)
    (root / "conformance" / "spec_test.json").write_bytes(b"[]\n")
    (root / "corpus" / "robots").mkdir(parents=True)
    lines = []
    for domain, urls in sites.items():
        size = 512_001 if domain == draw_sample.CUT else 20
        (root / "corpus" / "robots" / f"{domain}.txt").write_bytes(b"#" * size)
        for url, disallowed in urls:
            for ua in TOKENS:
                allowed = not (disallowed and ua == "Bingbot")
                row = {"domain": domain, "ua": ua, "url": url, "allowed": allowed, "line": 1}
                lines.append(json.dumps(row) + "\n")
    (root / "corpus" / "verdicts.jsonl").write_text("".join(lines))


def test_the_draw_keeps_the_first_sites_by_hash_their_disallowed_urls_and_a_few_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(draw_sample, "DOMAINS", 2)
    monkeypatch.setattr(draw_sample, "OTHER_URLS", 1)
    names = [f"s{i}.test" for i in range(6)]
    sites = {
        name: [(f"https://{name}/{n}", n in (1, 4)) for n in range(5)]
        for name in [*names, draw_sample.CUT]
    }
    _corpus(tmp_path / "shared", sites)
    out = tmp_path / "out"
    assert draw_sample.main([str(tmp_path / "shared"), "--into", str(out)]) == 0

    first = sorted([*names, draw_sample.CUT], key=_sha)[:2]
    kept_sites = set(first) | {draw_sample.CUT}
    assert {p.stem for p in (out / "corpus" / "robots").glob("*.txt")} == kept_sites
    rows = [
        json.loads(line) for line in (out / "corpus" / "verdicts.jsonl").read_text().splitlines()
    ]
    for site in kept_sites:
        urls = [url for url, _ in sites[site]]
        other = min(
            (url for url, bad in sites[site] if not bad), key=lambda u: _sha(f"{site}\0{u}")
        )
        wanted = [url for url in urls if url in {urls[1], urls[4], other}]  # the file's order
        assert [r["url"] for r in rows if r["domain"] == site and r["ua"] == "Bingbot"] == wanted
        assert sum(r["domain"] == site for r in rows) == 3 * len(TOKENS)
    assert (out / "conformance" / "spec_test.json").read_bytes() == b"[]\n"

    # --check: as drawn, then a changed file, then an extra one.
    check = [str(tmp_path / "shared"), "--into", str(out), "--check"]
    assert draw_sample.main(check) == 0
    (out / "corpus" / "robots" / f"{first[0]}.txt").write_bytes(b"changed")
    assert draw_sample.main(check) == 1
    assert draw_sample.main([str(tmp_path / "shared"), "--into", str(out)]) == 0
    (out / "corpus" / "robots" / "extra.test.txt").write_bytes(b"")
    assert draw_sample.differences(draw_sample.drawn(tmp_path / "shared"), out) == [
        "not in the draw: corpus/robots/extra.test.txt"
    ]
    assert draw_sample.main([str(tmp_path / "nothing"), "--check"]) == 2


def test_the_carried_sample_follows_its_rule() -> None:
    """Each carried site has its robots.txt and verdicts; each URL disallowed for any token
    has all four tokens' verdicts; at most ``OTHER_URLS`` more per site; the cut file is there
    whole."""
    by_site: dict[str, dict[str, list[bool]]] = {}
    for row in corpus_rows(CARRIED):
        by_site.setdefault(row["domain"], {}).setdefault(row["url"], []).append(row["allowed"])
    robots = {p.stem for p in (CARRIED / "corpus" / "robots").glob("*.txt")}
    assert set(by_site) == robots
    assert len(robots) == draw_sample.DOMAINS + 1  # the cut file ranks after the first 150
    for site, urls in by_site.items():
        assert all(len(verdicts) == len(TOKENS) for verdicts in urls.values()), site
        assert sum(all(verdicts) for verdicts in urls.values()) <= draw_sample.OTHER_URLS, site
    assert robots_file(CARRIED, draw_sample.CUT).stat().st_size > draw_sample.CAP
    assert any(not all(v) for urls in by_site.values() for v in urls.values())


def test_the_full_command_refuses_data_that_are_not_the_full_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the carried sample it does not pass: no link lists (2), then the totals (1)."""
    assert full_conformance.main([str(CARRIED)]) == 2
    assert "has no corpus/urls" in capsys.readouterr().err

    (tmp_path / "corpus" / "urls").mkdir(parents=True)
    (tmp_path / "conformance").symlink_to(CARRIED / "conformance")
    for name in ("robots", "verdicts.jsonl"):
        (tmp_path / "corpus" / name).symlink_to(CARRIED / "corpus" / name)
    (tmp_path / "corpus" / "urls" / "a.test.txt").write_bytes(b"https://a.test/x\n\n")
    assert full_conformance.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "spec: 400/400"
    assert out[1] == "corpus: 3,348/3,348 (expected 275,856 cases: not the full data?)"
    assert out[-1] == "DISAGREEMENTS: see above"
