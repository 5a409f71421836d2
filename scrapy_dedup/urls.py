"""URL normalisation done before Scrapy's request fingerprint: tracking
parameters removed, so one page reached through differently tagged links is
one URL."""

from __future__ import annotations

import re
from collections.abc import Iterable


def _key_pattern(patterns: Iterable[str]) -> str | None:
    alternatives = [re.escape(p[:-1]) + r"[^=&;#]*" if p.endswith("*") else re.escape(p) for p in patterns]
    return "(?:" + "|".join(alternatives) + ")" if alternatives else None


class TrackingParams:
    """Removes the query parameters named by ``patterns`` (a trailing ``*``
    matches any suffix) and leaves the rest of the URL byte for byte as it
    was. Names match case-sensitively, as web servers read them.

    >>> params = TrackingParams(["utm_*", "gclid"])
    >>> params.strip("https://a.com/p?id=3&utm_source=x&utm_medium=y&gclid=z#top")
    'https://a.com/p?id=3#top'
    >>> params.strip("https://a.com/p?utm_source=x")
    'https://a.com/p'
    >>> params.present("https://a.com/p?UTM_SOURCE=x"), params.present("https://a.com/p?id=3")
    (False, False)
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        key = _key_pattern(patterns)
        #: Finds a tracking parameter when searched from the URL's ``?``; None: no patterns.
        self.finder = re.compile(r"[?&;]" + key + r"(?:[=&;#]|$)") if key else None
        self._whole_key = re.compile(key + r"\Z") if key else None

    def present(self, url: str) -> bool:
        """Whether ``url`` carries a tracking parameter (fast: most do not)."""
        query_at = url.find("?")
        return query_at >= 0 and self.finder is not None and self.finder.search(url, query_at) is not None

    def strip(self, url: str) -> str:
        return self.remove(url) if self.present(url) else url

    def remove(self, url: str) -> str:
        """:meth:`strip` for a URL already known to carry a tracking parameter."""
        assert self._whole_key is not None
        base, _, rest = url.partition("?")
        query, hash_, fragment = rest.partition("#")
        kept = [
            part
            for part in re.split(r"[&;]", query)
            if part and self._whole_key.match(part.split("=", 1)[0]) is None
        ]
        return base + ("?" + "&".join(kept) if kept else "") + hash_ + fragment
