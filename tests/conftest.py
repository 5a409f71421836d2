from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import scrapy
from fixture_site import Site  # tests/ is on sys.path (rootdir conftest)
from scrapy.crawler import Crawler, CrawlerRunner

BASE_SETTINGS: dict[str, Any] = {
    "ADDONS": {"scrapy_dedup.Addon": 300},
    "RETRY_ENABLED": False,  # a 500 stays a failure, to be fetched again next run
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
    "DEDUP_URL_CAPACITY": 10_000,
}


class SiteSpider(scrapy.Spider):
    """Follows every link of the test site from its home page."""

    name = "site"

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response: scrapy.http.Response) -> Any:
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)


@pytest.fixture
def site() -> Iterator[Site]:
    site = Site(articles=30).start()
    yield site
    site.stop()


def crawl(settings: dict[str, Any], spider: type[scrapy.Spider] = SiteSpider, **kwargs: Any) -> Any:
    """Run one crawl in this process (a Deferred for pytest-twisted); the
    Deferred fires with the crawler, whose ``stats`` tell what happened."""
    runner = CrawlerRunner({**BASE_SETTINGS, **settings})
    crawler: Crawler = runner.create_crawler(spider)
    deferred = runner.crawl(crawler, **kwargs)
    deferred.addCallback(lambda _: crawler)
    return deferred


def dedup_stats(crawler: Crawler) -> dict[str, Any]:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("dedup/")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on a free loopback port, for the whole session."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not on PATH (.ci/run installs it)")
        pytest.skip("redis-server is not installed: apt-get install redis-server")
    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)
