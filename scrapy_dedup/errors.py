"""Exceptions raised when an index cannot be used as it is.

None of them is ever handled by deleting or resetting the index: the message
says what the user can do instead.
"""

from __future__ import annotations


class DedupError(Exception):
    """Base class of every scrapy_dedup error."""


class IndexCorrupted(DedupError):
    """An index file is damaged or is not a scrapy_dedup index."""


class IndexMismatch(DedupError):
    """An index was written with other parameters, another format version or
    another request fingerprinter than this crawl uses."""


class IndexLocked(DedupError):
    """Another process has the on-disk index open."""
