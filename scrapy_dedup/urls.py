"""URL normalisation done before Scrapy's request fingerprint: tracking
parameters removed, so one page reached through differently tagged links is
one URL."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable


def tracking_param_stripper(patterns: Iterable[str]) -> Callable[[str], str]:
    """Return a function that removes the query parameters named by
    ``patterns`` (a trailing ``*`` matches any suffix, case is ignored) and
    leaves the rest of the URL byte for byte as it was.

    >>> strip = tracking_param_stripper(["utm_*", "gclid"])
    >>> strip("https://a.com/p?id=3&utm_source=x&UTM_medium=y&gclid=z#top")
    'https://a.com/p?id=3#top'
    >>> strip("https://a.com/p?id=3")
    'https://a.com/p?id=3'
    >>> strip("https://a.com/p?utm_source=x")
    'https://a.com/p'
    """
    alternatives = []
    for pattern in patterns:
        if pattern.endswith("*"):
            alternatives.append(re.escape(pattern[:-1]) + r"[^=&;#]*")
        else:
            alternatives.append(re.escape(pattern))
    if not alternatives:
        return lambda url: url
    key = "(?:" + "|".join(alternatives) + ")"
    # A fast test: most URLs carry no tracking parameter and are returned as they are.
    anywhere = re.compile(r"[?&;]" + key + r"(?:[=&;#]|$)", re.IGNORECASE)
    whole_key = re.compile(key + r"\Z", re.IGNORECASE)

    def strip(url: str) -> str:
        if "?" not in url or anywhere.search(url) is None:
            return url
        base, _, rest = url.partition("?")
        query, hash_, fragment = rest.partition("#")
        kept = [
            part
            for part in re.split(r"[&;]", query)
            if part and whole_key.match(part.split("=", 1)[0]) is None
        ]
        return base + ("?" + "&".join(kept) if kept else "") + hash_ + fragment

    return strip
