"""A crawl killed with SIGKILL loses nothing it recorded done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fixture_site import Site
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter

from scrapy_dedup.url_index import open_existing

SCRIPT = Path(__file__).with_name("crawl_process.py")
CONCURRENCY = 4  # CONCURRENT_REQUESTS in crawl_process.py


def _run(site: Site, dedup_dir: Path, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), site.url + "/", str(dedup_dir)],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def test_second_run_after_sigkill_fetches_exactly_what_was_not_done(tmp_path: Path) -> None:
    site = Site(articles=200, delay=0.02).start()
    try:
        first = _run(site, tmp_path, tmp_path / "first.log")
        deadline = time.monotonic() + 60
        while sum(site.fetched("/a/").values()) < 60:
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            assert time.monotonic() < deadline, "the crawl did not get going"
            time.sleep(0.005)
        os.kill(first.pid, signal.SIGKILL)
        assert first.wait(30) == -signal.SIGKILL
        fetched_first = set(site.fetched("/a/"))
        everything = set(site.article_paths())
        assert len(fetched_first) < len(everything), "killed mid-way"

        fingerprinter = RequestFingerprinter()
        index = open_existing(tmp_path / "site")
        done = {p for p in everything if index.contains(fingerprinter.fingerprint(Request(site.url + p)))}
        index.close()
        assert done <= fetched_first
        # Only responses in flight at the kill can be fetched but not yet recorded.
        assert len(fetched_first - done) <= CONCURRENCY

        site.reset_hits()
        second = _run(site, tmp_path, tmp_path / "second.log")
        assert second.wait(120) == 0, (tmp_path / "second.log").read_text()
        fetched_second = site.fetched("/a/")
        assert set(fetched_second) == everything - done, "none done fetched again, none missed"
        assert max(fetched_second.values()) == 1
    finally:
        site.stop()
