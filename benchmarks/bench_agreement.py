"""How often Protego (the parser Scrapy's built-in middleware uses) agrees with Google's parser.

    python benchmarks/bench_agreement.py                # the data the repository carries
    python benchmarks/bench_agreement.py ../shared      # the full data, where CI has it

Not a speed figure: the share of Google's verdicts that Protego gives too, on Google's
compliance suite (400 expectations) and on the real-world corpus (the repository's sample of
3,348 verdicts, or the full 275,856). Protego is fed what Scrapy feeds it: the body decoded as
UTF-8 with errors="ignore", the URL and the token as the expectation gives them. This engine's
own agreement is checked by the tests (100 %), not here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from protego import Protego

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import _conformance  # tests/ holds the readers of the data


def agreement(root: Path) -> dict[str, tuple[int, int]]:
    """(agreeing, total) per data set."""
    spec = [0, 0]
    for case in _conformance.spec_cases(root):
        robots = Protego.parse(_conformance.spec_body(case).decode("utf-8", errors="ignore"))
        for exp in case["expectations"]:
            spec[1] += 1
            spec[0] += robots.can_fetch(exp["url"], exp["ua"]) == exp["oracle_allowed"]
    corpus = [0, 0]
    for domain, rows in _conformance.by_domain(root):
        body = _conformance.robots_file(root, domain).read_bytes()
        robots = Protego.parse(body.decode("utf-8", errors="ignore"))
        for row in rows:
            corpus[1] += 1
            corpus[0] += robots.can_fetch(row["url"], row["ua"]) == row["allowed"]
    return {"compliance suite": (spec[0], spec[1]), "corpus": (corpus[0], corpus[1])}


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else _conformance.CARRIED
    for name, (agree, total) in agreement(root).items():
        share = f"{agree / total:.1%}"
        print(f"Protego agrees with Google on {agree:,}/{total:,} of the {name} ({share})")


if __name__ == "__main__":
    main()
