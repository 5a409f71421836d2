"""One crawl of the test site in its own process: ``python crawl_process.py START_URL DEDUP_DIR``.

The SIGKILL test kills it mid-crawl."""

from __future__ import annotations

import sys
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response: Any) -> Any:
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)


if __name__ == "__main__":
    start_url, dedup_dir = sys.argv[1:3]
    process = CrawlerProcess(
        {
            "ADDONS": {"scrapy_dedup.Addon": 300},
            "DEDUP_DIR": dedup_dir,
            "DEDUP_URL_CAPACITY": 10_000,
            "CONCURRENT_REQUESTS": 4,
            "RETRY_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "INFO",
        }
    )
    process.crawl(SiteSpider, start=start_url)
    process.start()
