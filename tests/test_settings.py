from __future__ import annotations

import pytest
from scrapy.settings import Settings

from scrapy_dedup.settings import DEFAULTS, DedupSettings


def read(**values: object) -> DedupSettings:
    return DedupSettings.from_settings(Settings(values))


def test_defaults_are_the_documented_ones() -> None:
    config = read()
    assert config.url_capacity == DEFAULTS["DEDUP_URL_CAPACITY"] == 10_000_000
    assert config.url_error_rate == 1e-4
    assert config.url_done_statuses == frozenset(range(200, 400))
    assert config.url_ttl == 0 and config.url_recrawl is None and not config.reset
    assert "utm_*" in config.url_strip_params


def test_values_from_the_command_line_are_strings() -> None:
    config = read(
        DEDUP_URL_CAPACITY="5000",
        DEDUP_URL_ERROR_RATE="0.001",
        DEDUP_RESET="false",
        DEDUP_URL_DONE_STATUSES="200,404",
        DEDUP_URL_RECRAWL="/list,/page/\\d+$",
    )
    assert config.url_capacity == 5000 and config.url_error_rate == 0.001 and config.reset is False
    assert config.url_done_statuses == {200, 404}
    assert config.url_recrawl is not None and config.url_recrawl.search("http://a/page/3")


def test_zero_and_false_can_be_set() -> None:
    assert read(DEDUP_URL_TTL=0).url_ttl == 0
    assert read(DEDUP_RESET=False).reset is False


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DEDUP_URL_ERROR_RATE", 1.5, r"DEDUP_URL_ERROR_RATE must be in \(0, 1\), got 1.5"),
        ("DEDUP_URL_CAPACITY", 0, "DEDUP_URL_CAPACITY must be a positive integer"),
        ("DEDUP_URL_CAPACITY", "lots", "DEDUP_URL_CAPACITY must be a number"),
        ("DEDUP_URL_TTL", -1, "DEDUP_URL_TTL must be 0"),
        ("DEDUP_URL_DONE_STATUSES", ["2xx"], "DEDUP_URL_DONE_STATUSES must list"),
        ("DEDUP_URL_DONE_STATUSES", ["399-200"], "DEDUP_URL_DONE_STATUSES must list"),
        ("DEDUP_URL_RECRAWL", ["(unclosed"], "DEDUP_URL_RECRAWL has an invalid regular expression"),
        ("DEDUP_RESET", "maybe", "DEDUP_RESET must be a boolean"),
        ("DEDUP_NAMESPACE", "../etc", "DEDUP_NAMESPACE must be"),
    ],
)
def test_bad_values_name_the_setting(name: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read(**{name: value})
