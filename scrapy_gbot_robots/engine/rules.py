"""A parsed robots.txt, the engine's public object: ``parse`` and ``RobotsTxt``.

``parse`` only caps and keeps the bytes.  The first question for a crawler walks the lines
once (Google's group logic, :mod:`.groups`) and keeps, for that crawler only, a compact
:class:`.matcher.Matcher`; a broad crawl asks with one token per origin, so that is all it
pays for.  ``decide`` adds the line that decided (:mod:`.decision`); content-usage
statements are read per group (:mod:`.usage`).

A crawler may have several tokens, most specific first (Google's Googlebot-Image obeys a
``Googlebot`` group when the file has none of its own): the rules in force are those of the
first token that has a group, and only when none has one does ``*`` apply (and not even then
with ``global_group=False``, for crawlers that ignore it).  A one-token list is exactly its
token.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from .decision import Decision
from .groups import group_in_force, patterns_in_force
from .lines import LICENSE_KEY, MAX_BODY_BYTES, LineKind, directives, physical_lines
from .matcher import Matcher
from .path_match import path_params_query
from .usage import KEYS as USAGE_KEYS
from .usage import Usage, UsageIndex, UsagePreference, in_force

#: A crawler's product token, or its tokens most specific first (``["Googlebot-Image",
#: "Googlebot"]``): what every ``user_agent`` argument below accepts.
Tokens = str | Sequence[str]

_MAX_MATCHERS = 16  # matchers (and usage indexes) kept per file; more crawlers is unusual


def _tokens(user_agent: Tokens) -> tuple[str, ...]:
    return (user_agent,) if isinstance(user_agent, str) else tuple(user_agent)


def _memo_key(user_agent: Tokens, global_group: bool) -> object:
    """What a crawler's matchers are remembered under: a token alone is its own key."""
    if isinstance(user_agent, str):
        return user_agent if global_group else ((user_agent,), False)
    return (tuple(user_agent), global_group)


class RobotsTxt:
    """A parsed robots.txt body: ask it what Google's parser would decide.

    Every question takes the crawler's token, or its tokens most specific first (see the
    module docstring), and ``global_group=False`` for a crawler that ignores ``*``.  Matching
    state is built per token list on first use and kept for the last one in a fast slot (a
    crawl asks with one), others in a small bounded dict; content-usage statements likewise.
    """

    __slots__ = (
        "_licenses",
        "_matcher",
        "_others",
        "_site",
        "_sitemaps",
        "_token",
        "_usage",
        "body",
        "truncated",
    )

    def __init__(self, body: bytes, truncated: bool = False) -> None:
        self.body = body
        self.truncated = truncated
        # The fast slot: the token (or tokens) as given (a list is copied) and its matcher.
        self._token: str | Sequence[str] | None = None
        self._matcher: Matcher | None = None
        self._others: dict[object, Matcher] | None = None
        self._usage: dict[object, UsageIndex] | None = None
        self._sitemaps: tuple[str, ...] | None = None
        self._licenses: tuple[str, ...] | None = None
        # "scheme://host/" of the last http(s) URL and its length (just past the "/" that
        # starts the path), in one tuple read once per check (another thread may change
        # it).  Before the first: "\0/", which is itself a prefix whose path starts at its
        # "/" (a URL that starts with it has its path there).
        self._site = ("\0/", 2)

    def __repr__(self) -> str:
        return f"<RobotsTxt {len(self.body)} bytes{' (truncated)' if self.truncated else ''}>"

    # global_group is not keyword-only, on purpose: CPython fills a missing keyword-only
    # default through a dict lookup, which costs these per-request calls ~8 % (measured).
    # Pass it by name.

    def allowed(self, url: str, user_agent: Tokens, global_group: bool = True) -> bool:
        """Google's verdict for ``url`` (already percent-encoded) and a product token.

        ``user_agent`` may also be a list of tokens, most specific first; with
        ``global_group=False`` the ``*`` group never applies (no group: everything allowed).
        The URL is matched literally, as Google's library does; encode a raw URL first with
        ``scrapy_gbot_robots.engine.url.crawler_url`` (what Scrapy does to ``request.url``).
        """
        # The token(s) of the last question, as given (a crawl asks with one object): identity
        # is the cheap test, _matcher_for() the sure one.
        matcher: Matcher = (
            self._matcher  # type: ignore[assignment]  # set whenever _token is
            if user_agent is self._token and global_group
            else self._matcher_for(user_agent, global_group)
        )
        # (A matcher that can refuse nothing, an eighth of the corpus's files for Googlebot,
        # needs no test of its own: its _firsts is empty and its _screen None, so the first
        # test below answers.  One test less for the others, one step more for it.)
        # Fast path.  A site's URLs share "scheme://host/": once one URL showed where its
        # path starts, one comparison finds the path of the next (a slice and ==, which
        # cost less than str.startswith's argument parsing: ~3 % of a median check).
        site, cut = self._site  # cut: just past the path's "/"
        if url[:cut] != site:
            if url == site[:-1] and cut > 2:  # "https://host" alone: the home page, path "/"
                return matcher.home()
            cut = self._path_start(url) + 1
            if cut <= 0:  # -1: "https://host" alone (a site's home page), whose path is "/"
                return matcher.home() if cut == -1 else matcher.allowed_path(path_params_query(url))
        # The path is url[cut - 1:] up to "#" (or a NUL): a prefilter entry that starts the
        # path starts url[cut - 1:] (no pattern holds "#" or NUL), and has the path's second
        # character in _firsts.  Most checks end at that one index and one "in".
        try:
            second = url[cut]
        except IndexError:  # the path is "/": shorter than every entry
            second = "\n"  # which no pattern holds
        if second not in matcher.firsts:  # no entry starts the path
            needles = matcher.screen
            if needles is None:  # no "/*..." rule: nothing more can match
                return True
            prefixed = False
            # The screens of "/*..." rules (see allowed_path), on the URL: a piece that is
            # not in the URL is not in its path, and when nothing cuts the path short the
            # URL ends as it does.
            tails = matcher.tails
            if not tails or ("#" not in url and "\0" not in url and not url.endswith(tails)):
                for needle in needles:
                    if needle in url:
                        break
                else:
                    return True
        else:
            slash = cut - 1
            heads = matcher.heads
            if heads is not None:
                prefixed = url[slash : slash + matcher.head] in heads and url.startswith(
                    matcher.prefilter, slash
                )
            elif matcher.free is None:
                prefixed = url.startswith(matcher.prefilter, slash)
            else:  # the path's predecessor among them ("#..." after it changes nothing)
                rest = url[slash:]
                at = bisect_right(matcher.free, rest)
                prefixed = at > 0 and rest.startswith(matcher.free[at - 1])
            if not prefixed:  # the same screens as above (kept inline: this is per request)
                needles = matcher.screen
                if needles is None:
                    return True
                tails = matcher.tails
                if not tails or ("#" not in url and "\0" not in url and not url.endswith(tails)):
                    for needle in needles:
                        if needle in url:
                            break
                    else:
                        return True
        slash = cut - 1
        path = url[slash : url.find("#", slash)] if "#" in url else url[slash:]
        if "\0" in path:
            path = path[: path.index("\0")]
        # An entry that starts url[slash:] starts the path: no pattern holds "#" or NUL.
        return matcher.verdict(path, prefixed)

    def _path_start(self, url: str) -> int:
        """Where an http(s) URL's path starts (its first "/"), remembering the site prefix.

        -1 when the general extraction is needed: another scheme, or a "?", ";" or "#" before
        the first "/" (the path then starts there, or is "/"); -2 when the URL has no "/",
        "?" or ";" after its scheme, so that its path is "/" (``https://host``, a home page,
        usually a site's first URL; ``path_params_query`` gives "/" for it too).  A home page
        without "#" gives the prefix too: its URL and a "/", as the site's next URL would.
        """
        # Slices and "in", not startswith() and find(start, end): their argument parsing
        # was most of this function's cost, which every site pays on its first URL.  The
        # scheme holds no "?", ";" or "#", so a test of what includes it tests past it.
        if url[:8] == "https://":
            start = 8
        elif url[:7] == "http://":
            start = 7
        else:
            return -1
        slash = url.find("/", start)
        if slash < 0:
            if "?" in url or ";" in url:
                return -1
            if "#" not in url:  # the site's prefix is this URL and its "/"
                self._site = (url + "/", len(url) + 1)
            return -2
        site = url[: slash + 1]
        if "?" in site or ";" in site or "#" in site:
            return -1
        self._site = (site, slash + 1)
        return slash

    def _path_of(self, url: str) -> str:
        """The path Google matches (what :meth:`allowed` finds, without its shortcuts)."""
        site, cut = self._site
        slash = cut - 1
        if not url.startswith(site):
            slash = self._path_start(url)
            if slash < 0:
                return path_params_query(url)
        end = url.find("#", slash)
        path = url[slash:end] if end >= 0 else url[slash:]
        if "\0" in path:
            path = path[: path.index("\0")]
        return path

    def decide(self, url: str, user_agent: Tokens, global_group: bool = True) -> Decision:
        """The verdict with the deciding line, and (``Decision.token``) whose group it was.

        Like :meth:`allowed`, it expects a percent-encoded URL (see ``crawler_url`` in
        ``engine/url.py``). The first call for a crawler precompiles its rules with their
        lines (a :class:`.decision.LineDetail`; nothing of it is built for :meth:`allowed`
        alone); later calls cost about what :meth:`allowed` costs.
        """
        matcher = self._matcher
        if user_agent != self._token or matcher is None or not global_group:
            matcher = self._matcher_for(user_agent, global_group)
        # The path as allowed() finds it (_path_of(), inlined: this is a per-request call).
        site, cut = self._site
        slash = cut - 1
        if not url.startswith(site):
            slash = self._path_start(url)
            if slash < 0:
                return matcher.decide(path_params_query(url))
        end = url.find("#", slash)
        path = url[slash:end] if end >= 0 else url[slash:]
        if "\0" in path:
            path = path[: path.index("\0")]
        return matcher.decide(path)

    def names_agent(self, user_agent: Tokens) -> bool:
        """Whether a group names this token (or one of these tokens): ``*`` is then hidden."""
        return self._matcher_for(user_agent).specific

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Every sitemap URL in file order, from anywhere in the file."""
        if self._sitemaps is None:
            self._sitemaps = tuple(
                value.decode("utf-8", "backslashreplace")
                for _, kind, _, value in directives(self.body)
                if kind is LineKind.SITEMAP and value
            )
        return self._sitemaps

    @property
    def licenses(self) -> tuple[str, ...]:
        """Every ``License:`` URL (RSL 1.0) in file order, from anywhere in the file.

        RSL's line is global, as ``Sitemap:`` is: it belongs to no group.  Google's parser
        reads it as an unknown key, so the tokenizer still does (the verdicts cannot change);
        it is recognised here, by its exact key.
        """
        if self._licenses is None:
            self._licenses = tuple(
                value.decode("utf-8", "backslashreplace")
                for _, kind, key, value in directives(self.body)
                if kind is LineKind.UNKNOWN and key.lower() == LICENSE_KEY and value
            )
        return self._licenses

    def crawl_delay(self, user_agent: Tokens, global_group: bool = True) -> float | None:
        """The first valid ``Crawl-delay`` of the group in force (Google ignores it)."""
        group = group_in_force(directives(self.body), _tokens(user_agent), global_group)
        for _, key, value in group.unknown:
            if not key.lower().startswith(b"crawl-delay"):
                continue
            try:
                delay = float(value.decode("ascii"))
            except (UnicodeDecodeError, ValueError):
                continue
            if 0 <= delay < float("inf"):
                return delay
        return None

    def usage(self, url: str, user_agent: Tokens, global_group: bool = True) -> Usage:
        """What the group in force says about *using* the content of ``url``.

        Content-Signal and Content-Usage statements (a vendor convention and a draft; see
        :mod:`scrapy_gbot_robots.engine.usage`), chosen with the same group selection as the
        rules.  Google ignores them: they never change :meth:`allowed`.
        """
        index = self._usage_index(user_agent, global_group)
        if index.empty:
            return Usage(index.token)
        return index.usage(self._path_of(url))

    def usage_statements(self, user_agent: Tokens, global_group: bool = True) -> Usage:
        """Every content-usage statement of the group in force, whatever path it names.

        :meth:`usage` answers for one URL; this is the group's whole say, in file order
        (each preference's ``path`` is where it applies, ``""`` everywhere), for a view of a
        site rather than of a page (the audit report's per-origin column).
        """
        return self._usage_index(user_agent, global_group).every()

    def refuses(
        self,
        url: str,
        user_agent: Tokens,
        uses: Iterable[str],
        global_group: bool = True,
    ) -> UsagePreference | None:
        """The statement saying "no" to one of ``uses`` (e.g. ``("ai-train",)``) for ``url``.

        None when the site refuses none of them.  Built for a per-request check: the
        statements are parsed once per crawler, a file without any costs a dict lookup, and
        when no statement names a path the answer per ``uses`` tuple is remembered (pass
        the same tuple each time).
        """
        index = self._usage_index(user_agent, global_group)
        if index.empty:
            return None
        wanted = uses if isinstance(uses, tuple) else tuple(uses)
        if index.constant:
            return index.refuses(None, wanted)
        return index.refuses(self._path_of(url), wanted)

    def _usage_index(self, user_agent: Tokens, global_group: bool) -> UsageIndex:
        key = _memo_key(user_agent, global_group)
        memo = self._usage
        index = memo.get(key) if memo is not None else None
        if index is None:
            group = group_in_force(directives(self.body), _tokens(user_agent), global_group)
            lines = [entry for entry in group.unknown if entry[1].lower() in USAGE_KEYS]
            texts = physical_lines(self.body) if lines else []
            index = in_force(group.token, lines, texts)
            if memo is None:
                memo = self._usage = {}
            elif len(memo) >= _MAX_MATCHERS:
                del memo[next(iter(memo))]
            memo[key] = index
        return index

    def _matcher_for(self, user_agent: Tokens, global_group: bool = True) -> Matcher:
        if global_group and user_agent == self._token and self._matcher is not None:
            return self._matcher
        if self._token is None and global_group and isinstance(user_agent, str):
            # The first question, as a crawl asks it: nothing to remember aside.
            built = self._matcher = self._build_matcher(user_agent, True)
            self._token = user_agent
            return built
        key = _memo_key(user_agent, global_group)
        others = self._others
        matcher = others.get(key) if others is not None else None
        if matcher is None:
            matcher = self._build_matcher(user_agent, global_group)
        if not global_group:  # kept aside: the fast slot answers global_group=True only
            if others is None:
                others = self._others = {}
            elif key not in others and len(others) >= _MAX_MATCHERS:
                del others[next(iter(others))]
            others[key] = matcher
            return matcher
        # The newest crawler takes the fast slot; the previous one moves to the bounded dict.
        if self._matcher is not None and self._token is not None:
            if others is None:
                others = self._others = {}
            elif len(others) >= _MAX_MATCHERS:
                del others[next(iter(others))]
            others[_memo_key(self._token, True)] = self._matcher
        if others is not None:
            others.pop(key, None)
        # A list is copied: the caller may change it, and == still finds it next time.
        self._token = user_agent if isinstance(user_agent, (str, tuple)) else list(user_agent)
        self._matcher = matcher
        return matcher

    def _build_matcher(self, user_agent: Tokens, global_group: bool) -> Matcher:
        """The matcher of the group in force; its first decide() builds its line detail."""
        if isinstance(user_agent, str):
            asked: str | tuple[str, ...] = user_agent
            tokens: tuple[str, ...] = (user_agent,)
        else:  # a list is copied: the caller may change it
            asked = tokens = tuple(user_agent)
        specific, allows, disallows = patterns_in_force(self.body, tokens, global_group)
        return Matcher(allows, disallows, specific, self.body, asked, global_group)


def parse(body: bytes | str, *, max_bytes: int = MAX_BODY_BYTES) -> RobotsTxt:
    """Parse a robots.txt body (bytes; a ``str`` is UTF-8 encoded) with Google's 500 KiB cap.

    Never raises for any bytes: the cap is a plain byte cut, and a partial last line is
    still a line.
    """
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogateescape")
    elif not isinstance(body, bytes):
        body = bytes(body)
    truncated = len(body) > max_bytes
    if truncated:
        body = body[:max_bytes]
    return RobotsTxt(body, truncated)
