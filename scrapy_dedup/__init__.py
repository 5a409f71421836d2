"""Scrapy plugin that removes duplicate web pages: at the URL level (a
persistent Bloom-filter dupefilter) and at the content level."""

from .addon import Addon
from .dupefilter import BloomDupeFilter
from .errors import DedupError, IndexCorrupted, IndexLocked, IndexMismatch

__all__ = [
    "Addon",
    "BloomDupeFilter",
    "DedupError",
    "IndexCorrupted",
    "IndexLocked",
    "IndexMismatch",
]
__version__ = "0.1.0"
