"""URL level: BloomDupeFilter side by side with Scrapy's RFPDupeFilter, in one run.

Run by hand (not part of the test suite)::

    .venv/bin/python benchmarks/url_filter.py            # full: 1M and 10M URLs, a few minutes
    .venv/bin/python benchmarks/url_filter.py --quick    # 10x smaller, for a smoke run

Prints, for each figure, ours, the anchor's, the ratio and the target:

* time per ``request_seen`` on real ``Request`` objects (new URLs, the same URLs for
  both filters, each with its own objects), best of 3 rounds alternating the two
  filters. Requests carry ``meta={"depth": 1}`` as every request a spider yields does
  by the time it reaches the scheduler (DepthMiddleware sets it);
* bytes per URL after a crawl of N URLs (every request seen and then done), measured
  with tracemalloc on the whole filter object;
* measured false-positive rate on N URLs never added, with the capacity known and
  after growth from a capacity 10× too small;
* time to open an index of 10N URLs (RFPDupeFilter: its JOBDIR ``requests.seen``).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from scrapy import Request, Spider
from scrapy.dupefilters import RFPDupeFilter
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_dedup import BloomDupeFilter
from scrapy_dedup.url_index import DiskUrlIndex

FINGERPRINTER = "scrapy.utils.request.RequestFingerprinter"


def urls(n: int, tag: str) -> list[str]:
    return [f"https://news{i % 97}.example.com/{tag}/2026/11/{i}.html?id={i}&page=2" for i in range(n)]


def make_bloom(tmp: Path, capacity: int) -> BloomDupeFilter:
    crawler = get_crawler(
        settings_dict={"DEDUP_DIR": str(tmp), "DEDUP_URL_CAPACITY": capacity, "DEDUP_RESET": True}
    )
    crawler.spider = Spider("bench")
    dupefilter = build_from_crawler(BloomDupeFilter, crawler)
    dupefilter.open()
    return dupefilter


def time_request_seen(n: int, tmp: Path) -> tuple[float, float]:
    best_rfp = best_ours = float("inf")
    for round_ in range(3):
        rfp = build_from_crawler(RFPDupeFilter, get_crawler())
        ours = make_bloom(tmp / f"seen{round_}", capacity=n)
        for name, dupefilter in (("rfp", rfp), ("ours", ours)):
            requests = [Request(u, meta={"depth": 1}) for u in urls(n, f"seen{round_}")]
            gc.collect()
            start = time.perf_counter()
            for request in requests:
                dupefilter.request_seen(request)
            elapsed = (time.perf_counter() - start) / n
            if name == "rfp":
                best_rfp = min(best_rfp, elapsed)
            else:
                best_ours = min(best_ours, elapsed)
        ours.close()
    return best_ours, best_rfp


def bytes_per_url(n: int, tmp: Path) -> tuple[float, float, BloomDupeFilter]:
    """Memory the filter holds per URL after a crawl of ``n`` URLs. Both filters
    (and their crawlers) are built, and w3lib's bounded caches and lazy imports
    warmed up, before measuring: fixed costs, not costs per URL."""
    spider = Spider("bench")
    warm = make_bloom(tmp / "warm", capacity=10_000)
    for url in urls(1000, "warm"):
        request = Request(url)
        if not warm.request_seen(request):
            warm.response_received(HtmlResponse(url, status=200, request=request), request, spider)
    warm.close()
    rfp = build_from_crawler(RFPDupeFilter, get_crawler())
    crawler = get_crawler(settings_dict={"DEDUP_DIR": str(tmp / "mem"), "DEDUP_URL_CAPACITY": n})
    crawler.spider = spider
    ours = build_from_crawler(BloomDupeFilter, crawler)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for url in urls(n, "mem"):
        rfp.request_seen(Request(url))
    rfp_bytes = tracemalloc.get_traced_memory()[0] - base
    del rfp
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    ours.open()
    for url in urls(n, "mem"):
        request = Request(url)
        if not ours.request_seen(request):  # a crawl: seen, fetched, done
            ours.response_received(HtmlResponse(url, status=200, request=request), request, spider)
    gc.collect()
    ours_bytes = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return ours_bytes / n, rfp_bytes / n, ours


def fp(i: int, tag: str) -> bytes:
    return hashlib.sha1(f"{tag}{i}".encode()).digest()


def grown_index(n: int, tmp: Path) -> DiskUrlIndex:
    index = DiskUrlIndex(
        tmp / "grown", capacity=n // 10, error_rate=1e-4, fingerprinter=FINGERPRINTER, reset=True
    )
    index.open()
    for i in range(n):
        index.add(fp(i, "grown"))
    return index


def measured_fpr(contains: object, n: int) -> float:
    return sum(contains(fp(i, "never")) for i in range(n)) / n  # type: ignore[operator]


def time_open(n: int, tmp: Path) -> tuple[float, float]:
    index = DiskUrlIndex(tmp / "big", capacity=n, error_rate=1e-4, fingerprinter=FINGERPRINTER, reset=True)
    index.open()
    bloom = index.slices[0]
    for i in range(n):
        bloom.add(fp(i, "big"))
    index.pending = 1
    index.close()
    start = time.perf_counter()
    reopened = DiskUrlIndex(tmp / "big", capacity=n, error_rate=1e-4, fingerprinter=FINGERPRINTER)
    loaded = reopened.open()
    ours = time.perf_counter() - start
    reopened.close()
    assert loaded >= n * (1 - 1e-3), loaded  # keys lost to false positives at insert are not counted
    jobdir = tmp / "jobdir"
    jobdir.mkdir()
    with open(jobdir / "requests.seen", "wb") as f:
        prefix = (20).to_bytes(2, "big")
        for i in range(n):
            f.write(prefix + fp(i, "big"))
    start = time.perf_counter()
    rfp = RFPDupeFilter(str(jobdir))
    rfp_time = time.perf_counter() - start
    rfp.close("finished")
    return ours, rfp_time


def row(name: str, ours: float, anchor: float | None, target: str, ok: bool, unit: str = "") -> None:
    ratio = f"{ours / anchor:7.3f}x" if anchor else "      -"
    anchor_s = f"{anchor:12.6g}" if anchor is not None else f"{'-':>12}"
    print(f"{name:<44} {ours:12.6g} {anchor_s} {ratio}  {unit:<8} {target:<22} {'MET' if ok else 'MISSED'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer URLs")
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    seen_n = 20_000 if args.quick else 200_000
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        print(f"scrapy_dedup URL benchmark, python {sys.version.split()[0]}, pid {os.getpid()}, N = {n:,}")
        print(f"{'figure':<44} {'ours':>12} {'anchor':>12} {'ratio':>8}  {'unit':<8} {'target':<22} verdict")
        ours_t, rfp_t = time_request_seen(seen_n, tmp)
        row(
            "request_seen, new URLs (vs RFPDupeFilter)",
            ours_t * 1e6,
            rfp_t * 1e6,
            "<= 1.10x",
            ours_t <= 1.10 * rfp_t,
            "us",
        )

        ours_b, rfp_b, crawled = bytes_per_url(n, tmp)
        row(
            f"memory per URL after {n:,} done (tracemalloc)",
            ours_b,
            rfp_b,
            "<= 2.6 B",
            ours_b <= 2.6,
            "bytes",
        )
        assert crawled.index is not None
        index_bytes = crawled.index.stats()["bytes"] / n
        row("  of which Bloom bits per URL", index_bytes, None, "", True, "bytes")
        fpr = measured_fpr(crawled.index.contains, n)
        row(f"false-positive rate on {n:,} unseen (1e-4)", fpr, 1e-4, "<= 1.5x target", fpr <= 1.5e-4, "")
        crawled.close()

        grown = grown_index(n, tmp)
        grown_bytes = grown.stats()["bytes"] / n
        row("bytes per URL after 10x growth", grown_bytes, None, "<= 4 B", grown_bytes <= 4, "bytes")
        fpr = measured_fpr(grown.contains, n)
        row("false-positive rate after growth (1e-4)", fpr, 1e-4, "<= 1.5x target", fpr <= 1.5e-4, "")
        grown.close()

        ours_open, rfp_open = time_open(10 * n, tmp)
        target = 1.0 if not args.quick else 0.1
        row(
            f"open an index of {10 * n:,} URLs (vs JOBDIR)",
            ours_open,
            rfp_open,
            f"<= {target} s",
            ours_open <= target,
            "s",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
