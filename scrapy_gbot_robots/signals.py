"""Signals this plugin sends, for users who want to hook them.

Each is a plain ``object()`` sentinel, as Scrapy's own signals are; connect with
``crawler.signals.connect(handler, signal=scrapy_gbot_robots.signals.request_dropped)``.
Scrapy's own ``robots_parsed`` signal is sent too (see docs/signals.md).
"""

#: A parked request was dropped at the deadline.
#: Arguments: ``request``, ``spider``, ``reason`` (str).
request_dropped = object()

#: A request was forbidden by robots.txt. Arguments: ``request``, ``spider``, ``decision``.
request_forbidden = object()

#: ``GBOT_ROBOTS_PAGE_RULES = "obey"``: a request yielded by a callback was dropped because
#: the page it came from says ``nofollow``. Arguments: ``request``, ``response`` (the page),
#: ``spider``, ``sources`` (tuple of str: where ``nofollow`` came from, ``"meta:robots"``...).
request_dropped_nofollow = object()

#: A request was parked while its origin's robots.txt is undecided.
#: Arguments: ``request``, ``spider``.
request_deferred = object()

#: An origin's robots.txt state changed. Arguments: ``origin`` (str), ``state`` (str), ``spider``.
origin_state_changed = object()
