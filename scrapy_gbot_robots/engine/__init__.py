"""The engine: robots.txt bytes to Google's verdicts, in pure Python (no Scrapy, no Twisted).

What users import comes from the package (``parse``, ``RobotsTxt``, ``Decision``,
``product_token``, ...).  The modules here, in the order data flows through them:

1. :mod:`.lines`: bytes to lines.  The one tokenizer (BOM, CR/LF, the 16,663-byte line cut,
   NUL, ``#``, keys and their typos, separators, pattern normalisation), a per-line report
   for the linter, and the one-regex fast path a plain body takes on its first check.
2. :mod:`.tokens`: product tokens, the names a crawler obeys (``product_token``,
   ``is_valid_token``); :mod:`.agent` is its old import path, kept for other packages.
3. :mod:`.groups`: lines to the group in force.  Google's group logic for one token, and
   which group a crawler with several tokens obeys.
4. :mod:`.rules`: the public object.  ``parse`` caps the bytes; ``RobotsTxt`` answers per URL
   and token, and builds one matcher per crawler on its first question.
5. :mod:`.matcher`: a group's rules to verdicts.  Plain patterns are a sorted tuple searched by
   the path, wildcard ones are tried by shape; most checks are one C call.
6. :mod:`.decision`: ``Decision``, a verdict with its line; the line detail, built on a
   crawler's first ``decide``, names the rule Google's ``matching_line()`` would.
7. :mod:`.path_match` and :mod:`.url`: Google's own functions transcribed (a URL's path, a
   pattern's match and priority: the reference the fast parts are tested against); and a URL
   as a crawler requests it, percent-encoded (``crawler_url``).

The wildcard algorithms, each an exact shortcut of Google's match or a condition every
matching path meets, so that no file can make a check slow:

* :mod:`.shapes`: a pattern with ``*`` or a final ``$``, classified once into one of six
  shapes whose test is a C call or two; ``first_match``, the one place those tests are written.
* :mod:`.chain`: a rule of many pieces, matched by the greedy search (each piece at its
  leftmost place after the last), with a length floor, runs of one piece counted in C, and
  the walk through the pieces shared by the rules that have it.
* :mod:`.wild_index`: with hundreds of wildcard rules, each is filed under one thing a path it
  matches must have (its prefix, its ``$`` tail, one of its pieces), so a check tries only the
  few a path could match.
* :mod:`.piece_screen`: thousands of such pieces looked for at once, by the path's 4-byte
  grams or its windows read in C, rather than one ``in`` each.
* :mod:`.linear_find`: ``str.find`` in linear time for the pieces CPython's simple search
  could take quadratic time on (long and self-repeating).

Beside verdicts: :mod:`.usage` (content-usage statements, read per group; never a verdict)
and :mod:`.structured_fields` (their RFC 9651 syntax); :mod:`.google_crawlers` (Google's
crawlers and their tokens, for ``gbot-robots check --as``); and the linter, :mod:`.lint` (it
runs the checks), :mod:`.lint_checks` (codes and severities), :mod:`.lint_lines`,
:mod:`.lint_groups` and :mod:`.lint_usage` (a family of checks each).  More in docs/engine.md.
"""
