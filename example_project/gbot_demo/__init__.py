"""A runnable Scrapy project that shows scrapy-gbot-robots deciding like Googlebot."""
