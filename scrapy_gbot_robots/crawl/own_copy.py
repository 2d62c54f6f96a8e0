"""A spider's own request for robots.txt, answered from the plugin's fetch of it.

``SitemapSpider`` with ``sitemap_urls = [origin + "/robots.txt"]`` (or any spider that reads
robots.txt) would make the origin serve the file twice: once to the plugin, once to the
spider. When the plugin's copy is the whole file, the spider gets it instead: the same
status and body (a 200 for a copy a 304 revalidated), ``Content-Type: text/plain``, the
request's URL (so ``SitemapSpider`` recognises it), and the ``gbot_robots_own_copy`` flag.
A file cut at 500 KiB, a server error or a redirect chain that gave up go to the network as
usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http import Response, TextResponse

from ..policy.origin import robots_url
from ..policy.states import Kind

if TYPE_CHECKING:
    from scrapy.http import Request

    from ..policy.states import OriginState

#: The flag of a response served from the plugin's own fetch.
OWN_COPY_FLAG = "gbot_robots_own_copy"
ROBOTS_PATH = "/robots.txt"


def own_copy(request: Request, origin: str, state: OriginState | None) -> Response | None:
    """The response for a spider's robots.txt request of ``origin``, or None: download it."""
    if state is None or state.status is None or request.url != robots_url(origin):
        return None
    # A copy a 304 confirmed is the file a 200 brought: the spider gets it as that 200.
    status = 200 if state.revalidated else state.status
    if state.kind is Kind.RULES and state.robots is not None and not state.robots.truncated:
        return TextResponse(
            request.url,
            status=status,
            headers={"Content-Type": "text/plain; charset=utf-8"},
            body=state.robots.body,
            encoding="utf-8",
            request=request,
            flags=[OWN_COPY_FLAG],
        )
    if state.kind is Kind.ALLOW_ALL and 400 <= status < 500:  # "no file": no body either
        return Response(request.url, status=status, request=request, flags=[OWN_COPY_FLAG])
    return None
