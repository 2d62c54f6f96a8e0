"""The conformance tests' checks on the whole of Google's data, not the carried sample.

usage (from the repository's root, the package installed)::

    python tests/full_conformance.py ../shared

The repository carries Google's compliance suite and a sample of the real-world corpus
(``tests/data/``), which the tests check in any clone; this command runs the same checks
(``tests/_conformance.py``) on the full data beside the checkout, as CI does (``.ci/run``):

* the 400 expectations of Google's compliance suite: ``allowed()``, ``decide()``'s verdict
  and line, against Google's C++ parser;
* the 275,856 verdicts of that parser on 1,225 real robots.txt: the same, through the engine
  and through ``gbot-robots check``'s code path (no URL rewritten);
* the 111,215 lines of those sites' link lists, read as ``--urls`` reads them.

One line per check, ``name: agreed/total``, then the first disagreements. A total that is not
the full data's (a partial copy) is a failure too. Exit 0 when everything agrees, 1 on any
disagreement or wrong total, 2 when the data are not there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from _conformance import (
    Checked,
    check_as_written,
    check_cli,
    check_corpus,
    check_spec,
    link_lines,
)

#: The full data's sizes (``../shared``'s READMEs give them): a check that saw fewer failed.
EXPECTED = {"spec": 400, "corpus": 275_856, "check": 275_856, "links": 111_215}
SHOWN = 5


def _report(name: str, checked: Checked, extra: Sequence[tuple[object, ...]] = ()) -> bool:
    wrong = checked.disagreements + list(extra)
    agreed = checked.total - len(checked.disagreements)
    whole = checked.total == EXPECTED[name]
    note = "" if whole else f" (expected {EXPECTED[name]:,} cases: not the full data?)"
    print(f"{name}: {agreed:,}/{checked.total:,}{note}")
    for case in wrong[:SHOWN]:
        print(f"  {case!r}"[:400])
    if len(wrong) > SHOWN:
        print(f"  ... and {len(wrong) - SHOWN:,} more")
    return whole and not wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shared", type=Path, help="the full data: conformance/ and corpus/")
    root = parser.parse_args(argv).shared
    needed = ["conformance/spec_test.json", "corpus/verdicts.jsonl", "corpus/robots", "corpus/urls"]
    missing = [name for name in needed if not (root / name).exists()]
    if missing:
        print(f"not the full data: {root} has no {', '.join(missing)}", file=sys.stderr)
        return 2
    cli, rewritten = check_cli(root)
    results = [
        _report("spec", check_spec(root)),
        _report("corpus", check_corpus(root)),
        _report("check", cli, [("rewritten", *pair) for pair in rewritten]),
        _report("links", check_as_written(link_lines(root))),
    ]
    print("every verdict and line agrees" if all(results) else "DISAGREEMENTS: see above")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
