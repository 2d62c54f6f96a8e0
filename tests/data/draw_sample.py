"""Draw the conformance data this repository carries from the full data, byte for byte.

usage (from the repository's root)::

    python tests/data/draw_sample.py ../shared           # (re)write tests/data/ from ../shared
    python tests/data/draw_sample.py ../shared --check   # write nothing; exit 1 if they differ

The full data (Google's compliance suite and 1,225 real robots.txt with 275,856 verdicts of
Google's parser, ~45 MB) is too big to carry; this script is the one rule for what is carried,
so anyone with the full data can regenerate the carried copy and compare (``tests/data/README.md``
says where the full data comes from):

* ``conformance/spec_test.json``: copied whole.
* ``corpus/``: the first ``DOMAINS`` domains when ranked by the SHA-256 of their name, plus
  ``CUT`` (the one robots.txt over Google's 500 KiB cap); each one's robots.txt copied whole; of
  its verdicts, all four tokens' lines for every URL disallowed for at least one token, and for
  ``OTHER_URLS`` more URLs, the first when ranked by the SHA-256 of ``domain + "\\0" + url``
  (the full corpus's own ranking). Lines are copied as they are, in the full file's order.

Standard library only: it must run before the package is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOMAINS = 150
OTHER_URLS = 4
#: The one robots.txt of the corpus over 500 KiB (853,036 bytes): the only real file on which
#: the cut is checked, so it is carried whatever its rank.
CUT = "docs.oracle.com"
CAP = 500 * 1024


def _rank(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def drawn(shared: Path) -> dict[str, bytes]:
    """Every carried file, by its path under ``tests/data/``, as drawn from ``shared``."""
    files = {"conformance/spec_test.json": (shared / "conformance" / "spec_test.json").read_bytes()}
    corpus = shared / "corpus"
    # domain -> url -> its verdict lines (one per token), in the full file's order.
    by_domain: dict[str, dict[str, list[bytes]]] = {}
    disallowed: set[tuple[str, str]] = set()
    with open(corpus / "verdicts.jsonl", "rb") as fh:
        for line in fh:
            row = json.loads(line)
            by_domain.setdefault(row["domain"], {}).setdefault(row["url"], []).append(line)
            if row["allowed"] is False:
                disallowed.add((row["domain"], row["url"]))
    chosen = sorted(by_domain, key=_rank)[:DOMAINS]
    if CUT not in chosen:
        chosen.append(CUT)
    lines: list[bytes] = []
    for domain in by_domain:  # the full file's order
        if domain not in chosen:
            continue
        body = (corpus / "robots" / f"{domain}.txt").read_bytes()
        files[f"corpus/robots/{domain}.txt"] = body
        urls = by_domain[domain]
        informative = {url for url in urls if (domain, url) in disallowed}
        others = sorted(set(urls) - informative, key=lambda url: _rank(f"{domain}\0{url}"))
        kept = informative | set(others[:OTHER_URLS])
        lines.extend(line for url, rows in urls.items() if url in kept for line in rows)
    if len((corpus / "robots" / f"{CUT}.txt").read_bytes()) <= CAP:
        raise SystemExit(f"{CUT}'s robots.txt is no longer over {CAP} bytes: is this the corpus?")
    files["corpus/verdicts.jsonl"] = b"".join(lines)
    return files


def _carried(into: Path) -> set[str]:
    found = {"conformance/spec_test.json", "corpus/verdicts.jsonl"}
    found.update(f"corpus/robots/{p.name}" for p in (into / "corpus" / "robots").glob("*.txt"))
    return found


def differences(files: dict[str, bytes], into: Path) -> list[str]:
    """What in ``into`` is not as drawn: each file that differs or is missing, each extra one."""
    differ = [
        f"differs from the draw: {name}"
        for name, data in sorted(files.items())
        if not (into / name).is_file() or (into / name).read_bytes() != data
    ]
    return differ + [f"not in the draw: {name}" for name in sorted(_carried(into) - set(files))]


def write(files: dict[str, bytes], into: Path) -> None:
    for name in _carried(into) - set(files):
        (into / name).unlink()
    for name, data in files.items():
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        (into / name).write_bytes(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shared", type=Path, help="the full data: conformance/ and corpus/")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--into", type=Path, default=HERE, help="default: this script's folder")
    args = parser.parse_args(argv)
    needed = ["conformance/spec_test.json", "corpus/verdicts.jsonl", "corpus/robots"]
    missing = [name for name in needed if not (args.shared / name).exists()]
    if missing:
        print(f"not the full data: {args.shared} has no {', '.join(missing)}", file=sys.stderr)
        return 2
    files = drawn(args.shared)
    if args.check:
        found = differences(files, args.into)
        for line in found:
            print(line)
        print(f"{len(files)} files drawn, {len(found)} differences")
        return 1 if found else 0
    write(files, args.into)
    print(f"wrote {len(files)} files, {sum(map(len, files.values())):,} bytes, to {args.into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
