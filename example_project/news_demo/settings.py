"""Settings of the example project: scrapy_dedup wired in with one line."""

BOT_NAME = "news_demo"
SPIDER_MODULES = ["news_demo.spiders"]
NEWSPIDER_MODULE = "news_demo.spiders"
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False

# scrapy_dedup: the add-on installs the URL-level dupefilter.
ADDONS = {"scrapy_dedup.Addon": 300}

# The manual alternative to the add-on:
# DUPEFILTER_CLASS = "scrapy_dedup.BloomDupeFilter"

# Where the indexes live (default: .scrapy/dedup/<spider name> in this project).
# DEDUP_DIR = ".scrapy/dedup"
DEDUP_URL_CAPACITY = 100_000  # a small crawl; the default is 10 million
# Listing pages are fetched every run, never recorded done:
DEDUP_URL_RECRAWL = [r"/$", r"/list"]
