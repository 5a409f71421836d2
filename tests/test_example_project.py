"""`scrapy crawl news` in example_project, twice, in subprocesses: the index persists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixture_site import Site

PROJECT = Path(__file__).resolve().parent.parent / "example_project"


def scrapy_crawl(site: Site, dedup_dir: Path, *args: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "news",
            "-a",
            f"start_url={site.url}/",
            "-s",
            f"DEDUP_DIR={dedup_dir}",
            "-s",
            "RETRY_ENABLED=False",
            *args,
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def test_example_project_second_run_fetches_no_article(tmp_path: Path) -> None:
    site = Site(articles=20).start()
    try:
        log = scrapy_crawl(site, tmp_path)
        assert "'dedup/url/done': 20" in log  # the 20 articles; /list is a recrawl page
        assert set(site.fetched("/a/")) == set(site.article_paths())
        site.reset_hits()
        log = scrapy_crawl(site, tmp_path)
        assert site.fetched("/a/") == {}, "an article done in the first run was fetched again"
        assert site.fetched("/list") == {"/list": 1}, "DEDUP_URL_RECRAWL pages are read every run"
        assert site.fetched("/fail/") == {"/fail/0": 1}, "the page that failed is fetched again"
        assert "'dedup/url/loaded': 20" in log
        site.reset_hits()
        scrapy_crawl(site, tmp_path, "-a", "dedup_reset=1")
        assert set(site.fetched("/a/")) == set(site.article_paths()), "-a dedup_reset=1 starts over"
    finally:
        site.stop()
