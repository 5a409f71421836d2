"""The URL level: a Scrapy dupefilter that remembers done URLs between runs."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.request import referer_str

from .settings import DedupSettings, index_dir, parse_bool
from .url_index import DiskUrlIndex, UrlIndex
from .urls import TrackingParams

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector
    from scrapy.utils.request import RequestFingerprinterProtocol
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: ``request.meta`` flag: fetch every run, never record done.
META_RECRAWL = "dedup_recrawl"
#: How often (seconds) the counters are copied into the crawler's stats.
STATS_INTERVAL = 1.0


class BloomDupeFilter(BaseDupeFilter):
    """Filters requests already seen in this run or done in an earlier one.

    Use it as ``DUPEFILTER_CLASS = "scrapy_dedup.BloomDupeFilter"`` (also with
    scrapy-redis's scheduler), or through :class:`scrapy_dedup.Addon`.

    Two filters answer: the *session* set holds the fingerprints let through in
    this run and not yet done (so a queued or failed request is not scheduled
    twice); the persistent :class:`~scrapy_dedup.url_index.UrlIndex` holds the
    fingerprints of requests whose response arrived with a status in
    ``DEDUP_URL_DONE_STATUSES``. Only the second is kept between runs, so what
    failed or was still queued when a crawl stopped is fetched next time. A
    request that was redirected is done with the request it ended as.

    Settings read: ``DEDUP_DIR``, ``DEDUP_NAMESPACE``, ``DEDUP_RESET`` (or the
    spider argument ``-a dedup_reset=1``), ``DEDUP_DEBUG`` (or
    ``DUPEFILTER_DEBUG``), ``DEDUP_URL_CAPACITY``, ``DEDUP_URL_ERROR_RATE``,
    ``DEDUP_URL_STRIP_PARAMS``, ``DEDUP_URL_DONE_STATUSES``,
    ``DEDUP_URL_RECRAWL``, ``DEDUP_URL_TTL``; and ``request.meta["dedup_recrawl"]``.
    """

    def __init__(
        self,
        index: Callable[[], UrlIndex],
        *,
        fingerprinter: RequestFingerprinterProtocol,
        strip_params: Iterable[str] = (),
        done_statuses: Collection[int] = range(200, 400),
        recrawl: re.Pattern[str] | None = None,
        debug: bool = False,
        stats: StatsCollector | None = None,
        capacity: int | None = None,
    ) -> None:
        self._make_index = index
        self.index: UrlIndex | None = None
        self.fingerprinter = fingerprinter
        self._fingerprint = fingerprinter.fingerprint
        self.tracking_params = TrackingParams(strip_params)
        self._tracking_finder = self.tracking_params.finder
        self.done_statuses = frozenset(done_statuses)
        self.recrawl = recrawl
        self.debug = debug
        self.stats = stats
        self.capacity = capacity
        #: Let through this run and not done: queued, downloading, failed, or recrawl pages.
        self.session: set[bytes] = set()
        #: Counters, copied into the stats by publish_stats() (a stats call costs more than
        #: a lookup on the hot path). "new" is derived: every request let through is still
        #: in the session or was recorded done.
        self.counts: dict[str, int] = dict.fromkeys(
            ("filtered/pending", "filtered/done", "done", "not_done", "recrawl", "tracking_params_removed"), 0
        )
        self._published: dict[str, int] = {}
        self._next_publish = 0.0
        self._logdupes = True
        self._warned_capacity = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = DedupSettings.from_settings(crawler.settings)

        def make_index() -> UrlIndex:
            spider = crawler.spider
            reset = config.reset or parse_bool(getattr(spider, "dedup_reset", False), "dedup_reset")
            fingerprinter = type(crawler.request_fingerprinter)
            return DiskUrlIndex(
                Path(index_dir(config, spider.name if spider else "default")),
                capacity=config.url_capacity,
                error_rate=config.url_error_rate,
                fingerprinter=f"{fingerprinter.__module__}.{fingerprinter.__qualname__}",
                ttl=config.url_ttl,
                reset=reset,
            )

        dupefilter = cls(
            make_index,
            fingerprinter=crawler.request_fingerprinter,
            strip_params=config.url_strip_params,
            done_statuses=config.url_done_statuses,
            recrawl=config.url_recrawl,
            debug=config.debug or crawler.settings.getbool("DUPEFILTER_DEBUG"),
            stats=crawler.stats,
            capacity=config.url_capacity,
        )
        crawler.signals.connect(dupefilter.response_received, signal=signals.response_received)
        # scrapy-redis's scheduler never calls close(): close on spider_closed too.
        crawler.signals.connect(dupefilter._spider_closed, signal=signals.spider_closed)
        return dupefilter

    @classmethod
    def from_spider(cls, spider: Spider) -> Self:
        """The constructor scrapy-redis's scheduler calls."""
        return cls.from_crawler(spider.crawler)

    # -- lifecycle --------------------------------------------------------
    def open(self) -> None:
        if self.index is not None:
            return
        index = self._make_index()
        loaded = index.open()
        self.index = index
        self._set_stat("dedup/url/loaded", loaded)
        logger.info(
            "URL index %s: %d done URLs loaded (capacity %d)",
            getattr(index, "path", index),
            loaded,
            self.capacity or 0,
        )

    def close(self, reason: str = "finished") -> None:
        if self.index is None:
            return
        self.publish_stats()
        index, self.index = self.index, None
        try:
            for name, value in index.stats().items():
                self._set_stat(f"dedup/url/{name}", value)
        finally:
            index.close()

    def _spider_closed(self, spider: Spider, reason: str) -> None:
        self.close(reason)

    def clear(self) -> None:
        """Called by scrapy-redis's scheduler when ``SCHEDULER_PERSIST`` is off.
        The index is never emptied but by ``DEDUP_RESET``."""
        logger.info("Not clearing the URL index (only DEDUP_RESET does that)")

    # -- filtering --------------------------------------------------------
    def _canonical(self, request: Request) -> Request:
        """``request`` without tracking parameters (the same object when it has none)."""
        url = request.url
        finder = self._tracking_finder
        query_at = url.find("?")
        if query_at >= 0 and finder is not None and finder.search(url, query_at) is not None:
            return request.replace(url=self.tracking_params.remove(url))
        return request

    def fingerprint(self, request: Request) -> bytes:
        """Scrapy's request fingerprint, after tracking parameters are removed."""
        return self._fingerprint(self._canonical(request))

    def request_seen(self, request: Request) -> bool:
        # The hot path: kept flat; whether a page is a recrawl page is asked only of done
        # pages here, of the rest when their response arrives.
        index = self.index
        if index is None:
            self.open()  # scrapy-redis's scheduler never calls open()
            index = self.index
            assert index is not None
        canonical = self._canonical(request)
        if canonical is not request:
            self.counts["tracking_params_removed"] += 1
        fp = self._fingerprint(canonical)
        session = self.session
        if fp in session:
            self.counts["filtered/pending"] += 1
            return True
        if index.contains(fp) and not self.is_recrawl(request):
            self.counts["filtered/done"] += 1
            return True
        session.add(fp)
        return False

    def is_recrawl(self, request: Request) -> bool:
        """Whether ``request`` is fetched every run and never recorded done."""
        return bool(request.meta.get(META_RECRAWL)) or (
            self.recrawl is not None and self.recrawl.search(request.url) is not None
        )

    def response_received(self, response: Response, request: Request, spider: Spider) -> None:
        """Record the request done when its status counts as done."""
        if self.index is None:
            return
        fp = self.fingerprint(request)  # Scrapy caches it per request object
        if fp not in self.session:
            return  # not let through by this filter (dont_filter), or already done
        if response.status not in self.done_statuses:
            self.counts["not_done"] += 1
            return
        if self.is_recrawl(request):
            self.counts["recrawl"] += 1
            return  # stays in the session: fetched once per run, never recorded done
        fingerprints = [fp]
        for url in request.meta.get("redirect_urls", ()):
            fingerprints.append(self.fingerprint(request.replace(url=url)))
        for done in fingerprints:
            if done in self.session:
                self.session.discard(done)
                self.counts["done"] += 1
                self.index.add(done)
        if not self._warned_capacity and self.capacity and len(self.index) >= 0.8 * self.capacity:
            self._warned_capacity = True
            logger.warning(
                "The URL index holds %d done URLs, over 80%% of DEDUP_URL_CAPACITY (%d). It keeps "
                "working past it, growing with more memory per URL; a new index sized with a "
                "larger DEDUP_URL_CAPACITY (and DEDUP_RESET=True) is smaller.",
                len(self.index),
                self.capacity,
            )
        now = time.monotonic()
        if now >= self._next_publish:
            self._next_publish = now + STATS_INTERVAL
            self.publish_stats()

    def publish_stats(self) -> None:
        """Copy the counters into the crawler's stats (every second, and at close)."""
        if self.stats is None:
            return
        filtered = self.counts["filtered/pending"] + self.counts["filtered/done"]
        new = len(self.session) + self.counts["done"]
        for key, value in (*self.counts.items(), ("filtered", filtered), ("new", new)):
            if value != self._published.get(key, 0):
                self.stats.set_value(f"dedup/url/{key}", value)
                self._published[key] = value

    def log(self, request: Request, spider: Spider) -> None:
        if self.debug:
            logger.debug(
                "Filtered duplicate request: %(request)s (referer: %(referer)s)",
                {"request": request, "referer": referer_str(request)},
                extra={"spider": spider},
            )
        elif self._logdupes:
            logger.debug(
                "Filtered duplicate request: %(request)s - no more duplicates will be shown"
                " (see DEDUP_DEBUG or DUPEFILTER_DEBUG to show all duplicates)",
                {"request": request},
                extra={"spider": spider},
            )
            self._logdupes = False
        self._inc_stat("dupefilter/filtered")

    # -- stats --------------------------------------------------------------
    def _inc_stat(self, key: str) -> None:
        if self.stats is not None:
            self.stats.inc_value(key)

    def _set_stat(self, key: str, value: Any) -> None:
        if self.stats is not None:
            self.stats.set_value(key, value)
