"""``python -m scrapy_gbot_robots`` runs the ``gbot-robots`` command line tool."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
