"""Every ``DEDUP_*`` setting, its default and its validation, in one place.

Components never read ``DEDUP_*`` settings themselves: they call
:meth:`DedupSettings.from_settings`, which reads each setting with the right
type and fails with a message that names the setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: Query parameters removed before a URL is fingerprinted: they tag the visitor,
#: not the page. A trailing ``*`` matches any suffix; names match case-sensitively.
DEFAULT_STRIP_PARAMS: tuple[str, ...] = (
    "utm_*",  # Google Analytics campaign tags
    "gclid",  # Google Ads
    "gclsrc",
    "dclid",  # DoubleClick
    "fbclid",  # Facebook
    "msclkid",  # Microsoft Ads
    "yclid",  # Yandex
    "twclid",  # Twitter/X
    "igshid",  # Instagram
    "mc_cid",  # Mailchimp
    "mc_eid",
    "_hsenc",  # HubSpot
    "_hsmi",
    "spm",  # Alibaba / Taobao / Youku position tracking
    "scm",
)

#: The defaults of every setting, as Scrapy settings (documented in README.rst).
DEFAULTS: dict[str, Any] = {
    "DEDUP_DIR": None,  # None: <project data dir>/dedup, i.e. .scrapy/dedup
    "DEDUP_NAMESPACE": None,  # None: the spider's name
    "DEDUP_RESET": False,
    "DEDUP_DEBUG": False,
    "DEDUP_URL_CAPACITY": 10_000_000,
    "DEDUP_URL_ERROR_RATE": 1e-4,
    "DEDUP_URL_STRIP_PARAMS": list(DEFAULT_STRIP_PARAMS),
    "DEDUP_URL_DONE_STATUSES": ["200-399"],
    "DEDUP_URL_RECRAWL": [],
    "DEDUP_URL_TTL": 0,
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def parse_bool(value: object, name: str) -> bool:
    """Read a flag given as a bool, a number or a string (spider arguments
    arrive as strings).

    >>> parse_bool("1", "dedup_reset"), parse_bool("off", "dedup_reset")
    (True, False)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def parse_statuses(values: list[Any], name: str = "DEDUP_URL_DONE_STATUSES") -> frozenset[int]:
    """Expand a list of HTTP statuses and ``"a-b"`` ranges.

    >>> sorted(parse_statuses(["200-202", 304, "404"]))
    [200, 201, 202, 304, 404]
    """
    statuses: set[int] = set()
    for value in values:
        text = str(value).strip()
        match = re.fullmatch(r"(\d{3})\s*-\s*(\d{3})", text)
        try:
            if match:
                low, high = int(match.group(1)), int(match.group(2))
                if low > high:
                    raise ValueError
                statuses.update(range(low, high + 1))
            else:
                statuses.add(int(text))
        except ValueError:
            raise ValueError(
                f"{name} must list HTTP statuses or ranges such as '200-399', got {value!r}"
            ) from None
    if not statuses or not all(100 <= s <= 599 for s in statuses):
        raise ValueError(f"{name} must list HTTP statuses between 100 and 599, got {values!r}")
    return frozenset(statuses)


def _compile_patterns(patterns: list[str], name: str) -> re.Pattern[str] | None:
    if not patterns:
        return None
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{name} has an invalid regular expression {pattern!r}: {exc}") from None
    return re.compile("|".join(f"(?:{p})" for p in patterns))


@dataclass(frozen=True)
class DedupSettings:
    """The validated ``DEDUP_*`` settings of one crawl."""

    dir: str | None = DEFAULTS["DEDUP_DIR"]
    namespace: str | None = DEFAULTS["DEDUP_NAMESPACE"]
    reset: bool = DEFAULTS["DEDUP_RESET"]
    debug: bool = DEFAULTS["DEDUP_DEBUG"]
    url_capacity: int = DEFAULTS["DEDUP_URL_CAPACITY"]
    url_error_rate: float = DEFAULTS["DEDUP_URL_ERROR_RATE"]
    url_strip_params: tuple[str, ...] = DEFAULT_STRIP_PARAMS
    url_done_statuses: frozenset[int] = frozenset(range(200, 400))
    url_recrawl: re.Pattern[str] | None = None
    url_ttl: float = DEFAULTS["DEDUP_URL_TTL"]

    def __post_init__(self) -> None:
        if self.url_capacity < 1:
            raise ValueError(f"DEDUP_URL_CAPACITY must be a positive integer, got {self.url_capacity!r}")
        if not 0 < self.url_error_rate < 1:
            raise ValueError(f"DEDUP_URL_ERROR_RATE must be in (0, 1), got {self.url_error_rate!r}")
        if self.url_ttl < 0:
            raise ValueError(f"DEDUP_URL_TTL must be 0 (off) or a number of seconds, got {self.url_ttl!r}")
        if self.namespace is not None and not re.fullmatch(r"[\w.-]+", self.namespace):
            raise ValueError(
                f"DEDUP_NAMESPACE must be letters, digits, '.', '-' or '_', got {self.namespace!r}"
            )

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> DedupSettings:
        """Read and validate every ``DEDUP_*`` setting; missing ones take :data:`DEFAULTS`."""

        def get(name: str) -> Any:
            value = settings.get(name)
            return DEFAULTS[name] if value is None else value

        def number(name: str, kind: type) -> Any:
            value = get(name)
            try:
                return kind(value)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number, got {value!r}") from None

        def listing(name: str) -> list[Any]:
            value = get(name)
            if isinstance(value, str):
                return [part.strip() for part in value.split(",") if part.strip()]
            return list(value)

        dir_ = get("DEDUP_DIR")
        namespace = get("DEDUP_NAMESPACE")
        return cls(
            dir=str(dir_) if dir_ not in (None, "") else None,
            namespace=str(namespace) if namespace not in (None, "") else None,
            reset=parse_bool(get("DEDUP_RESET"), "DEDUP_RESET"),
            debug=parse_bool(get("DEDUP_DEBUG"), "DEDUP_DEBUG"),
            url_capacity=number("DEDUP_URL_CAPACITY", int),
            url_error_rate=number("DEDUP_URL_ERROR_RATE", float),
            url_strip_params=tuple(str(p) for p in listing("DEDUP_URL_STRIP_PARAMS")),
            url_done_statuses=parse_statuses(listing("DEDUP_URL_DONE_STATUSES")),
            url_recrawl=_compile_patterns(
                [str(p) for p in listing("DEDUP_URL_RECRAWL")], "DEDUP_URL_RECRAWL"
            ),
            url_ttl=number("DEDUP_URL_TTL", float),
        )


def index_dir(config: DedupSettings, spider_name: str) -> str:
    """The directory of one spider's indexes: ``DEDUP_DIR/<namespace>``, where
    ``DEDUP_DIR`` defaults to ``dedup`` in the project's data directory
    (``.scrapy/dedup``) and the namespace to the spider's name."""
    from scrapy.utils.project import data_path

    base = config.dir if config.dir is not None else data_path("dedup")
    return str(Path(base, config.namespace or spider_name))
