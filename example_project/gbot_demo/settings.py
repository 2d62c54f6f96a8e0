"""Settings of the demo project. The two lines that matter are ROBOTSTXT_OBEY and ADDONS."""

BOT_NAME = "gbot_demo"
SPIDER_MODULES = ["gbot_demo.spiders"]
NEWSPIDER_MODULE = "gbot_demo.spiders"

# Obey robots.txt the way Googlebot does: the add-on replaces Scrapy's RobotsTxtMiddleware.
ROBOTSTXT_OBEY = True
ADDONS = {"scrapy_gbot_robots.Addon": 0}

# The token obeyed in robots.txt is the product token of the User-Agent header: "DemoBot".
USER_AGENT = "DemoBot/1.0 (+https://github.com/scrapy-gbot-robots/example_project)"

# The demo's "flaky" origin answers its first robots.txt request with a 503 and
# "Retry-After: 1". No immediate retry: the origin is stopped (its requests parked) and
# robots.txt is retried after the Retry-After delay, the way Google does.
GBOT_ROBOTS_RETRY_TIMES = 0

# The audit report: what robots.txt did to the crawl, written when the spider closes, as a
# page to open in a browser and as JSON ("gbot-robots report robots-report.json" summarises
# it in the terminal). Relative paths are relative to the directory the crawl runs in.
GBOT_ROBOTS_REPORT = ["robots-report.html", "robots-report.json"]

TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
