"""Agreement with Google's reference parser on the data the repository carries.

Google's whole compliance suite and a sample of the real-world corpus, with the verdicts and
matching lines of Google's C++ parser, are carried in ``tests/data/`` (its README says where
they come from and how the sample was drawn), so a clone checks them and skips nothing. The
whole corpus is checked by ``tests/full_conformance.py``, which CI runs from ``../shared``.
"""

from __future__ import annotations

from _conformance import CARRIED, check_corpus, check_spec


def test_google_compliance_suite_verdicts_and_lines_all_agree() -> None:
    checked = check_spec(CARRIED)
    assert checked.total == 400
    assert checked.disagreements == []


def test_real_corpus_verdicts_and_matching_lines_all_agree() -> None:
    """Every carried verdict: ``allowed()``, and ``decide()``'s verdict and deciding line, on
    151 real sites (docs.oracle.com's 853,036-byte file among them, cut at 500 KiB)."""
    checked = check_corpus(CARRIED)
    assert checked.total == 3_348
    assert checked.disagreements[:10] == []
