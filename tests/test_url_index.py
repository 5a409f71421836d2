"""The on-disk URL index: persistence, TTL slices, damaged files, locking, error rate."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import pytest

from scrapy_dedup import IndexCorrupted, IndexLocked, IndexMismatch
from scrapy_dedup.bloom import GrowingBloomFilter
from scrapy_dedup.cli import main as cli_main
from scrapy_dedup.url_index import DiskUrlIndex

FINGERPRINTER = "scrapy.utils.request.RequestFingerprinter"


def fp(i: int, prefix: str = "in") -> bytes:
    return hashlib.sha1(f"{prefix}{i}".encode()).digest()


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def copy_files(source: Path, names: tuple[str, ...] = ("urls.snapshot", "urls.journal")) -> Path:
    """Copy index files as they are on disk now (as a killed process leaves them)."""
    copy = source / "copy"
    copy.mkdir()
    for name in names:
        (copy / name).write_bytes((source / name).read_bytes())
    return copy


def make(path: Path, **kwargs: Any) -> DiskUrlIndex:
    params: dict[str, Any] = {"capacity": 1000, "error_rate": 1e-4, "fingerprinter": FINGERPRINTER}
    params.update(kwargs)
    return DiskUrlIndex(path, **params)


def test_entries_survive_close_and_reopen(tmp_path: Path) -> None:
    index = make(tmp_path)
    assert index.open() == 0
    assert all(index.add(fp(i)) for i in range(100))
    assert not index.add(fp(5)), "adding a present fingerprint reports it present"
    index.close()
    again = make(tmp_path)
    assert again.open() == 100
    assert all(again.contains(fp(i)) for i in range(100))
    assert not any(again.contains(fp(i, "out")) for i in range(100))
    again.close()


def test_journal_alone_restores_entries_of_a_killed_process(tmp_path: Path) -> None:
    index = make(tmp_path)
    index.open()
    for i in range(10):
        index.add(fp(i))
    # The process dies here: no close(), so no snapshot; only the journal has the entries.
    copy = copy_files(tmp_path)
    index.close()
    restored = make(copy)
    assert restored.open() == 10
    assert all(restored.contains(fp(i)) for i in range(10))
    restored.close()


def test_truncated_journal_opens_and_keeps_whole_records(tmp_path: Path, caplog: Any) -> None:
    index = make(tmp_path)
    index.open()
    for i in range(10):
        index.add(fp(i))
    copy = copy_files(tmp_path)
    journal = (copy / "urls.journal").read_bytes()
    (copy / "urls.journal").write_bytes(journal[:-7])  # the last record torn by a kill
    index.close()

    with caplog.at_level(logging.WARNING, logger="scrapy_dedup"):
        torn = make(copy)
        assert torn.open() == 9
    assert "torn record" in caplog.text
    assert all(torn.contains(fp(i)) for i in range(9))
    assert not torn.contains(fp(9))
    torn.add(fp(9))
    torn.add(fp(10))
    torn.close()
    again = make(copy)
    assert again.open() == 11
    assert all(again.contains(fp(i)) for i in range(11))
    again.close()


def test_records_written_after_a_torn_record_are_read_back(tmp_path: Path) -> None:
    index = make(tmp_path)
    index.open()
    index.add(fp(0))
    index._journal.write(b"\x14\x00\x00")  # a torn record, as a kill mid-write leaves
    index._journal.close()
    index._journal = None
    index._release()
    reopened = make(tmp_path)
    # The snapshot written at this open includes fp(0); add more after it, kill again.
    assert reopened.open() == 1
    reopened.add(fp(1))
    reopened._release()
    last = make(tmp_path)
    assert last.open() == 2
    assert last.contains(fp(0)) and last.contains(fp(1))
    last.close()


def test_corrupt_snapshot_fails_with_documented_error(tmp_path: Path) -> None:
    index = make(tmp_path)
    index.open()
    index.add(fp(1))
    index.close()
    snapshot = tmp_path / "urls.snapshot"
    data = bytearray(snapshot.read_bytes())
    data[-1] ^= 0x01
    snapshot.write_bytes(bytes(data))
    with pytest.raises(IndexCorrupted, match="DEDUP_RESET"):
        make(tmp_path).open()
    assert snapshot.read_bytes() == bytes(data), "never deleted, never rewritten"
    # The lock was released: once the user resets, the same directory opens.
    fresh = make(tmp_path, reset=True)
    assert fresh.open() == 0
    fresh.close()


@pytest.mark.parametrize(
    "content",
    [b"", b"not an index at all", b"SCRAPY-DEDUP URL SNAPSHOT\n\x00\x00\x00\x05{bad!"],
)
def test_foreign_or_broken_files_fail(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "urls.snapshot").write_bytes(content)
    with pytest.raises(IndexCorrupted):
        make(tmp_path).open()


def test_journal_without_snapshot_fails(tmp_path: Path) -> None:
    index = make(tmp_path)
    index.open()
    index.close()
    (tmp_path / "urls.snapshot").unlink()
    with pytest.raises(IndexCorrupted, match="without its snapshot"):
        make(tmp_path).open()


def test_other_parameters_or_fingerprinter_fail(tmp_path: Path) -> None:
    index = make(tmp_path)
    index.open()
    index.close()
    with pytest.raises(IndexMismatch, match="DEDUP_URL_CAPACITY"):
        make(tmp_path, capacity=2000).open()
    with pytest.raises(IndexMismatch, match="DEDUP_URL_ERROR_RATE"):
        make(tmp_path, error_rate=1e-3).open()
    with pytest.raises(IndexMismatch, match="REQUEST_FINGERPRINTER_CLASS"):
        make(tmp_path, fingerprinter="my.Fingerprinter").open()
    with pytest.raises(IndexMismatch, match="DEDUP_URL_TTL"):
        make(tmp_path, ttl=3600).open()


def test_another_format_version_fails(tmp_path: Path) -> None:
    index = make(tmp_path)
    index.open()
    index.close()
    snapshot = tmp_path / "urls.snapshot"
    snapshot.write_bytes(snapshot.read_bytes().replace(b'"format": 1', b'"format": 9', 1))
    with pytest.raises(IndexMismatch, match="format version 9"):
        make(tmp_path).open()


def test_second_process_is_refused(tmp_path: Path) -> None:
    first = make(tmp_path)
    first.open()
    with pytest.raises(IndexLocked, match="DEDUP_REDIS_URL"):
        make(tmp_path).open()
    first.close()
    second = make(tmp_path)
    second.open()
    second.close()


def test_ttl_expires_done_urls_by_time_slices(tmp_path: Path) -> None:
    clock = Clock(1_000_000.0)  # a multiple of the TTL: the start of a slice
    index = make(tmp_path, ttl=100, clock=clock)
    index.open()
    index.add(fp(1))
    clock.now += 99
    assert index.contains(fp(1)), "younger than the TTL"
    clock.now += 2  # 101 s: next slice, the previous one is kept
    assert index.contains(fp(1))
    index.add(fp(2))
    assert len(index.slices) == 2, "never more than two slices"
    index.close()

    clock.now += 100  # 201 s: the first slice is gone; fp(2) is 100 s old
    reopened = make(tmp_path, ttl=100, clock=clock)
    reopened.open()
    assert not reopened.contains(fp(1)), "older than twice the TTL: expired"
    assert reopened.contains(fp(2))
    assert len(reopened.slices) <= 2
    clock.now += 100
    assert not reopened.contains(fp(2))
    assert len(reopened.slices) <= 2
    reopened.close()


def test_ttl_applies_to_journal_replay(tmp_path: Path) -> None:
    clock = Clock(1_000_000.0)
    index = make(tmp_path, ttl=100, clock=clock)
    index.open()
    index.add(fp(1))
    clock.now += 150
    index.add(fp(2))
    index._release()  # killed: both entries only in the journal
    clock.now += 100  # fp(1)'s slice is now two slices old
    replayed = make(tmp_path, ttl=100, clock=clock)
    replayed.open()
    assert not replayed.contains(fp(1))
    assert replayed.contains(fp(2))
    replayed.close()


def test_snapshot_every_bounds_the_journal(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr("scrapy_dedup.url_index.SNAPSHOT_EVERY", 5)
    index = make(tmp_path)
    index.open()
    empty_journal = (tmp_path / "urls.journal").stat().st_size
    for i in range(12):
        index.add(fp(i))
    # Snapshots were written at 5 and 10 records: the journal holds the last 2 (29 bytes each).
    assert (tmp_path / "urls.journal").stat().st_size == empty_journal + 2 * 29
    index._release()
    again = make(tmp_path)
    assert again.open() == 12
    assert all(again.contains(fp(i)) for i in range(12))
    again.close()


@pytest.mark.parametrize(("capacity", "added"), [(10_000, 10_000), (1_000, 10_000)])
def test_false_positive_rate_within_1_5x(capacity: int, added: int) -> None:
    # 1e-3 gives ~100 expected false positives in 100k lookups: a measurable rate.
    rate = 1e-3
    bloom = GrowingBloomFilter(capacity, rate)
    for i in range(added):
        bloom.add(fp(i))
    assert all(fp(i) in bloom for i in range(added)), "a Bloom filter never forgets"
    false_positives = sum(fp(i, "unseen") in bloom for i in range(100_000))
    measured = false_positives / 100_000
    assert measured <= 1.5 * rate, f"measured {measured}, target {rate}"
    assert bloom.grown == (added > capacity)
    assert bloom.estimated_false_positive_rate() <= 1.5 * rate


def test_cli_stats_reports_the_index(tmp_path: Path, capsys: Any) -> None:
    index = make(tmp_path)
    index.open()
    for i in range(50):
        index.add(fp(i))
    index.close()
    assert cli_main(["stats", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"count": 50' in out and '"capacity": 1000' in out
    assert cli_main(["stats", str(tmp_path / "missing")]) == 2
    assert "no URL index" in capsys.readouterr().err
