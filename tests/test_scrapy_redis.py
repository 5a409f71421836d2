"""BloomDupeFilter as the dupefilter of scrapy-redis's scheduler (disk backend)."""

from __future__ import annotations

from typing import Any

from conftest import crawl, dedup_stats
from pytest_twisted import inlineCallbacks


@inlineCallbacks
def test_works_under_scrapy_redis_scheduler(site: Any, tmp_path: Any, redis_url: str) -> None:
    settings = {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "REDIS_URL": redis_url,
        "SCHEDULER_PERSIST": False,  # scrapy-redis then calls clear(): the index must survive it
        "DEDUP_DIR": str(tmp_path),
    }
    first = yield crawl(settings, start=site.url + "/")
    articles = site.fetched("/a/")
    assert set(articles) == set(site.article_paths())
    assert max(articles.values()) == 1
    stats = dedup_stats(first)
    assert stats["dedup/url/done"] == 31
    assert stats["dedup/url/count"] == 31, "closed on spider_closed (scrapy-redis never calls close)"

    site.reset_hits()
    second = yield crawl(settings, start=site.url + "/")
    assert site.fetched("/a/") == {}
    assert site.fetched("/fail/") == {"/fail/0": 1}
    assert dedup_stats(second)["dedup/url/loaded"] == 31
