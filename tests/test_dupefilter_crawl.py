"""Real crawls of the local test site with BloomDupeFilter installed by the add-on."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import scrapy
from conftest import crawl, dedup_stats
from pytest_twisted import inlineCallbacks

from scrapy_dedup import BloomDupeFilter


@inlineCallbacks
def test_second_run_fetches_nothing_already_done(site: Any, tmp_path: Any) -> None:
    settings = {"DEDUP_DIR": str(tmp_path)}
    first = yield crawl(settings, start=site.url + "/")
    articles = site.fetched("/a/")
    assert set(articles) == set(site.article_paths())
    assert max(articles.values()) == 1, "an article was fetched twice in one run"
    assert site.fetched("/fail/") == {"/fail/0": 1}
    stats = dedup_stats(first)
    assert stats["dedup/url/loaded"] == 0
    # 30 articles and /list answered 200; /fail/0 answered 500 and is not done.
    assert stats["dedup/url/done"] == 31
    assert stats["dedup/url/not_done"] == 1
    assert stats["dedup/url/count"] == 31
    filtered = stats["dedup/url/filtered"]
    assert stats["dedup/url/filtered/pending"] + stats["dedup/url/filtered/done"] == filtered
    assert first.stats.get_value("dupefilter/filtered") == stats["dedup/url/filtered"]
    assert 0 < stats["dedup/url/fill_ratio"] < 0.5
    assert 0 <= stats["dedup/url/estimated_fpr"] < 1e-4

    site.reset_hits()
    second = yield crawl(settings, start=site.url + "/")
    assert site.fetched("/a/") == {}, "the second run fetched an article done in the first"
    assert site.fetched("/list") == {}
    assert site.fetched("/fail/") == {"/fail/0": 1}, "the page that failed is fetched again"
    assert site.fetched()["/"] == 1  # start URLs are dont_filter, as in Scrapy
    stats = dedup_stats(second)
    assert stats["dedup/url/loaded"] == 31
    assert stats["dedup/url/done"] == 1  # /fail/0, now answering 200
    assert stats["dedup/url/new"] == 1

    site.reset_hits()
    yield crawl(settings, start=site.url + "/")
    assert site.fetched("/fail/") == {}, "the page done in the second run is not fetched a third time"


@inlineCallbacks
def test_tracking_parameters_make_no_new_url(site: Any, tmp_path: Any) -> None:
    crawler = yield crawl({"DEDUP_DIR": str(tmp_path)}, start=site.url + "/")
    # /a/1?utm_source…, /a/2?gclid… and /a/3#top are the same pages as /a/1, /a/2, /a/3.
    assert site.fetched("/a/")["/a/1"] == 1
    assert site.fetched("/a/")["/a/2"] == 1
    assert site.fetched("/a/")["/a/3"] == 1
    assert dedup_stats(crawler)["dedup/url/tracking_params_removed"] == 2


@inlineCallbacks
def test_tracking_parameters_kept_when_the_list_is_empty(site: Any, tmp_path: Any) -> None:
    yield crawl({"DEDUP_DIR": str(tmp_path), "DEDUP_URL_STRIP_PARAMS": []}, start=site.url + "/")
    assert site.fetched("/a/")["/a/1"] == 2  # /a/1 and /a/1?utm_source=… are different URLs now
    assert site.fetched("/a/")["/a/3"] == 1  # a fragment never makes a new URL (Scrapy's fingerprint)


@inlineCallbacks
def test_recrawl_pattern_fetches_listing_every_run(site: Any, tmp_path: Any) -> None:
    settings = {"DEDUP_DIR": str(tmp_path), "DEDUP_URL_RECRAWL": [r"/list$"]}
    first = yield crawl(settings, start=site.url + "/")
    assert site.fetched("/list") == {"/list": 1}, "a recrawl page is still fetched once per run"
    assert dedup_stats(first)["dedup/url/recrawl"] == 1
    site.reset_hits()
    yield crawl(settings, start=site.url + "/")
    assert site.fetched("/list") == {"/list": 1}
    assert site.fetched("/a/") == {}


class MetaRecrawlSpider(scrapy.Spider):
    name = "meta_recrawl"

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = start

    async def start(self) -> Any:
        yield scrapy.Request(self.base + "/list", meta={"dedup_recrawl": True})
        yield scrapy.Request(self.base + "/a/0")

    def parse(self, response: Any) -> Any:
        return None


@inlineCallbacks
def test_recrawl_meta_fetches_page_every_run(site: Any, tmp_path: Any) -> None:
    settings = {"DEDUP_DIR": str(tmp_path)}
    yield crawl(settings, MetaRecrawlSpider, start=site.url)
    assert site.fetched() == {"/list": 1, "/a/0": 1}
    site.reset_hits()
    yield crawl(settings, MetaRecrawlSpider, start=site.url)
    assert site.fetched() == {"/list": 1}


@inlineCallbacks
def test_reset_setting_and_spider_argument(site: Any, tmp_path: Any) -> None:
    settings = {"DEDUP_DIR": str(tmp_path)}
    yield crawl(settings, start=site.url + "/")
    site.reset_hits()
    again = yield crawl({**settings, "DEDUP_RESET": True}, start=site.url + "/")
    assert set(site.fetched("/a/")) == set(site.article_paths())
    assert dedup_stats(again)["dedup/url/loaded"] == 0
    site.reset_hits()
    yield crawl(settings, start=site.url + "/")
    assert site.fetched("/a/") == {}, "a reset index keeps what the reset run did"
    site.reset_hits()
    yield crawl(settings, start=site.url + "/", dedup_reset="1")
    assert set(site.fetched("/a/")) == set(site.article_paths())


@inlineCallbacks
def test_done_statuses_setting(site: Any, tmp_path: Any) -> None:
    settings = {"DEDUP_DIR": str(tmp_path), "DEDUP_URL_DONE_STATUSES": ["200-299", 500]}
    yield crawl(settings, start=site.url + "/")
    site.reset_hits()
    yield crawl(settings, start=site.url + "/")
    assert site.fetched("/fail/") == {}, "with 500 counted done, the failed page is not fetched again"


@inlineCallbacks
def test_corrupt_index_stops_the_crawl(site: Any, tmp_path: Any, caplog: Any) -> None:
    settings = {"DEDUP_DIR": str(tmp_path)}
    yield crawl(settings, start=site.url + "/")
    snapshot = tmp_path / "site" / "urls.snapshot"
    data = bytearray(snapshot.read_bytes())
    data[-10] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    site.reset_hits()
    with caplog.at_level(logging.ERROR), pytest.raises(Exception, match="is corrupt"):
        yield crawl(settings, start=site.url + "/")
    assert site.fetched() == {}, "nothing is fetched with an index that cannot be read"
    assert snapshot.read_bytes() == bytes(data), "the damaged file is left as it was"


def test_log_shows_first_duplicate_only(caplog: Any) -> None:
    from scrapy.utils.misc import build_from_crawler
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(settings_dict={"DEDUP_DIR": None})
    dupefilter = build_from_crawler(BloomDupeFilter, crawler)
    spider = scrapy.Spider("x")
    spider.crawler = crawler
    with caplog.at_level(logging.DEBUG, logger="scrapy_dedup"):
        dupefilter.log(scrapy.Request("http://a.test/1"), spider)
        dupefilter.log(scrapy.Request("http://a.test/2"), spider)
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("scrapy_dedup")]
    assert len(messages) == 1
    assert "no more duplicates will be shown" in messages[0]
    assert crawler.stats.get_value("dupefilter/filtered") == 2

    debug = build_from_crawler(BloomDupeFilter, get_crawler(settings_dict={"DEDUP_DEBUG": True}))
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="scrapy_dedup"):
        debug.log(scrapy.Request("http://a.test/1"), spider)
        debug.log(scrapy.Request("http://a.test/2"), spider)
    assert len([r for r in caplog.records if r.name.startswith("scrapy_dedup")]) == 2


def test_addon_sets_dupefilter_and_user_setting_wins() -> None:
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(settings_dict={"ADDONS": {"scrapy_dedup.Addon": 300}})
    crawler._apply_settings()
    assert crawler.settings["DUPEFILTER_CLASS"] == "scrapy_dedup.BloomDupeFilter"
    crawler = get_crawler(
        settings_dict={"ADDONS": {"scrapy_dedup.Addon": 300}, "DUPEFILTER_CLASS": "my.Filter"}
    )
    crawler._apply_settings()
    assert crawler.settings["DUPEFILTER_CLASS"] == "my.Filter"


class TaggedSpider(scrapy.Spider):
    name = "tagged"

    def __init__(self, start: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = start

    async def start(self) -> Any:
        yield scrapy.Request(self.base + "/a/5?utm_source=news&id=5")  # filtered like any link

    def parse(self, response: Any) -> Any:
        return None


@inlineCallbacks
def test_tracking_parameters_counted_once_per_request(site: Any, tmp_path: Any) -> None:
    crawler = yield crawl({"DEDUP_DIR": str(tmp_path)}, TaggedSpider, start=site.url)
    assert site.fetched() == {"/a/5": 1}
    stats = dedup_stats(crawler)
    assert stats["dedup/url/tracking_params_removed"] == 1  # not again when its response arrives
    assert stats["dedup/url/done"] == 1 and stats["dedup/url/new"] == 1
