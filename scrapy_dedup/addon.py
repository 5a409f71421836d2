"""The one-line way in: ``ADDONS = {"scrapy_dedup.Addon": 300}``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


class Addon:
    """Installs :class:`scrapy_dedup.BloomDupeFilter` as ``DUPEFILTER_CLASS``
    at ``"addon"`` priority, so a value the user sets in the project or on the
    command line still wins."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.set("DUPEFILTER_CLASS", "scrapy_dedup.BloomDupeFilter", priority="addon")
