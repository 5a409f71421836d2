"""Follows every link of a site from a start page and yields one item per page."""

from __future__ import annotations

from typing import Any

import scrapy


class NewsSpider(scrapy.Spider):
    """``scrapy crawl news -a start_url=http://127.0.0.1:8000/``"""

    name = "news"

    def __init__(self, start_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not start_url:
            raise ValueError("give the site to crawl: scrapy crawl news -a start_url=URL")
        self.start_urls = [start_url]
        self.allowed_domains = []

    def parse(self, response: scrapy.http.Response) -> Any:
        yield {"url": response.url, "title": response.css("title::text").get()}
        yield from response.follow_all(css="a", callback=self.parse)
