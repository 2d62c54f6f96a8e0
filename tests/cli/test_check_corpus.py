"""``gbot-robots check``'s URL handling over the carried corpus sample (issue 17, item 11).

In process, without Scrapy: ``check.run`` is fed each domain's URLs as ``--urls -`` reads them.
The data are the sample the repository carries (``tests/data/``); ``tests/full_conformance.py``
runs the same checks on the whole corpus and its 111,215 links (CI, from ``../shared``).
"""

from __future__ import annotations

from _conformance import CARRIED, check_as_written, check_cli, corpus_rows


def test_check_url_handling_agrees_with_the_reference_on_the_corpus() -> None:
    """Issue 17, item 11: every carried corpus URL through ``gbot-robots check``'s own code path.

    The reference passes each URL to Google's library verbatim. ``check`` must ask about the
    same URL (every corpus URL is printable ASCII, so none may be rewritten) and give the same
    verdict and line: one run per domain and token.
    """
    checked, rewritten = check_cli(CARRIED)
    assert checked.total == 3_348
    assert rewritten[:10] == []
    assert checked.disagreements[:10] == []


def test_real_links_are_checked_as_written() -> None:
    """The carried sample's 837 real links, read as ``--urls`` lines are: every one that a
    crawler can send as written (printable ASCII) is asked about unchanged."""
    urls = {row["url"] for row in corpus_rows(CARRIED)}
    checked = check_as_written(url.encode("utf-8") for url in sorted(urls))
    assert checked.total == len(urls) == 837
    assert checked.disagreements == []
