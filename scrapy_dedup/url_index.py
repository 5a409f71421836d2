"""Where the URL level remembers which requests are done, between runs.

:class:`UrlIndex` is the small interface the dupefilter uses;
:class:`DiskUrlIndex` is the embedded default: Bloom filters in memory, a
snapshot on disk written atomically (temp file, fsync, rename) and an
append-only journal of the fingerprints recorded since (unbuffered: every
record reaches the operating system before ``add`` returns, so a SIGKILL loses
nothing). Opening = snapshot + journal replay; a torn last record is ignored.

With a TTL, done URLs are kept in two time slices of ``ttl`` seconds each
(the current one and the one before); the slice before that is dropped, so a
URL is fetched again between ``ttl`` and ``2 × ttl`` after it was done and
memory stays within two filters.

Both files begin with a magic line, a JSON header (format version, filter
parameters, request fingerprinter) and are checked against the crawl's own
parameters; nothing here ever deletes or resets an index unless asked to
(``reset=True``). No Scrapy import.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import struct
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from .bloom import HASH_SCHEME, GrowingBloomFilter, contains_in, key_hashes, raw_digest, xxh3_digest
from .errors import IndexCorrupted, IndexLocked, IndexMismatch

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
SNAPSHOT_MAGIC = b"SCRAPY-DEDUP URL SNAPSHOT\n"
JOURNAL_MAGIC = b"SCRAPY-DEDUP URL JOURNAL\n"
DEFAULT_FINGERPRINTER = "scrapy.utils.request.RequestFingerprinter"
#: A snapshot is written (and the journal emptied) after this many records.
SNAPSHOT_EVERY = 50_000

# A journal record: fingerprint length (1 byte), time (uint32, s), fingerprint, crc32.
_RECORD_HEAD = struct.Struct("<BI")
_CRC = struct.Struct("<I")
_HEADER_LEN = struct.Struct(">I")

#: Setting names of the header parameters, for error messages.
_PARAM_SETTINGS = {
    "capacity": "DEDUP_URL_CAPACITY",
    "error_rate": "DEDUP_URL_ERROR_RATE",
    "ttl": "DEDUP_URL_TTL",
    "fingerprinter": "REQUEST_FINGERPRINTER_CLASS",
    "hash": "(the scrapy_dedup version)",
}


class UrlIndex(Protocol):
    """The done-URL store the dupefilter talks to."""

    def open(self) -> int:
        """Load the index; return how many entries it holds."""

    def contains(self, fingerprint: bytes) -> bool: ...

    def add(self, fingerprint: bytes) -> bool:
        """Record a done fingerprint; True when it was new."""

    def close(self) -> None: ...

    def __len__(self) -> int:
        """How many fingerprints the index holds."""

    def stats(self) -> dict[str, float]:
        """count, capacity, bytes, fill_ratio and estimated_fpr."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomically(target: Path, chunks: list[bytes]) -> None:
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        for chunk in chunks:
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, target)
    _fsync_dir(target.parent)


def _read_header(f: BinaryIO, magic: bytes, path: Path) -> dict[str, Any]:
    if f.read(len(magic)) != magic:
        raise IndexCorrupted(
            f"{path} is not a scrapy_dedup URL index file (wrong magic bytes). "
            "Point DEDUP_DIR at another directory, or move the file away."
        )
    raw_len = f.read(_HEADER_LEN.size)
    if len(raw_len) < _HEADER_LEN.size:
        raise IndexCorrupted(f"{path} is truncated inside its header.")
    (length,) = _HEADER_LEN.unpack(raw_len)
    raw = f.read(length)
    try:
        header = json.loads(raw)
        if not isinstance(header, dict):
            raise ValueError("not an object")
    except ValueError as exc:
        raise IndexCorrupted(f"{path} has a damaged header ({exc}).") from exc
    if header.get("format") != FORMAT_VERSION:
        raise IndexMismatch(
            f"{path} is in format version {header.get('format')!r}; this scrapy_dedup reads "
            f"version {FORMAT_VERSION}. Use the scrapy_dedup version that wrote it, or start "
            "over with DEDUP_RESET=True (scrapy crawl SPIDER -a dedup_reset=1)."
        )
    return header


def _header_bytes(magic: bytes, header: dict[str, Any]) -> bytes:
    raw = json.dumps(header, sort_keys=True).encode()
    return magic + _HEADER_LEN.pack(len(raw)) + raw


class DiskUrlIndex:
    """The embedded on-disk URL index in the directory ``path``.

    ``fingerprinter`` is the import path of the request fingerprinter class:
    fingerprints of another fingerprinter mean other things, so an index is
    only opened by the fingerprinter that wrote it. ``clock`` returns seconds
    since the epoch (injectable for TTL tests)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        capacity: int,
        error_rate: float,
        fingerprinter: str,
        ttl: float = 0,
        reset: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.snapshot_path = self.path / "urls.snapshot"
        self.journal_path = self.path / "urls.journal"
        # Scrapy's default fingerprints are SHA-1 digests: their bits address the filter
        # directly. Any other fingerprinter's output is hashed with xxh3-128 first.
        raw = fingerprinter == DEFAULT_FINGERPRINTER
        self.digest = raw_digest if raw else xxh3_digest
        self.params: dict[str, Any] = {
            "capacity": int(capacity),
            "error_rate": float(error_rate),
            "ttl": float(ttl),
            "fingerprinter": fingerprinter,
            "hash": f"{HASH_SCHEME}/{'raw' if raw else 'xxh3-128'}",
        }
        self.reset = reset
        self.clock = clock
        self.slices: dict[int, GrowingBloomFilter] = {}
        self._groups: list[list[Any]] = []  # each slice's live list of filters
        self._ttl = self.params["ttl"]
        self.generation = 0
        self.pending = 0  # journal records since the last snapshot
        self._slice_id = 0
        self._journal: BinaryIO | None = None
        self._lock: BinaryIO | None = None

    # -- opening --------------------------------------------------------
    def open(self) -> int:
        self.path.mkdir(parents=True, exist_ok=True)
        self._acquire_lock()
        try:
            self._slice_id = self._current_slice_id()
            if self.reset:
                self._start_over()
            elif self.snapshot_path.exists():
                self._load()
            elif self.journal_path.exists():
                raise IndexCorrupted(
                    f"{self.journal_path} exists without its snapshot {self.snapshot_path.name}. "
                    "Restore the snapshot, or start over with DEDUP_RESET=True "
                    "(scrapy crawl SPIDER -a dedup_reset=1)."
                )
            else:
                self._start_over()
            self._expire()
        except BaseException:
            self._release()
            raise
        return len(self)

    def _acquire_lock(self) -> None:
        lock = open(self.path / "urls.lock", "a+b")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise IndexLocked(
                f"The URL index in {self.path} is open in another process. One process at a "
                "time uses an on-disk URL index: give each crawl its own DEDUP_DIR or "
                "DEDUP_NAMESPACE, or share state between processes with DEDUP_REDIS_URL."
            ) from None
        self._lock = lock

    def _start_over(self) -> None:
        if self.snapshot_path.exists():
            logger.warning("DEDUP_RESET: starting %s from an empty URL index", self.path)
        self.generation += 1
        self.slices = {self._slice_id: self._new_filter()}
        self._write_snapshot()

    def _load(self) -> None:
        with open(self.snapshot_path, "rb") as f:
            header = _read_header(f, SNAPSHOT_MAGIC, self.snapshot_path)
            self._check_params(header, self.snapshot_path)
            payload = f.read()
        try:
            if len(payload) != header["payload_size"] or zlib.crc32(payload) != header["payload_crc32"]:
                raise ValueError("checksum or size of the filter bits does not match the header")
            slices: dict[int, GrowingBloomFilter] = {}
            offset = 0
            for entry in header["slices"]:
                metas = entry["filters"]
                parts = []
                for meta in metas:
                    parts.append(payload[offset : offset + meta["nbytes"]])
                    offset += meta["nbytes"]
                slices[int(entry["id"])] = GrowingBloomFilter.restore(
                    self.params["capacity"], self.params["error_rate"], metas, parts, self.digest
                )
            self.generation = int(header["generation"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IndexCorrupted(
                f"{self.snapshot_path} is corrupt ({exc}). The index cannot be trusted: restore the "
                "file from a backup, or start over with DEDUP_RESET=True "
                "(scrapy crawl SPIDER -a dedup_reset=1); the file is left as it is."
            ) from exc
        self.slices = slices
        self._expire()
        replayed = self._replay()
        if replayed:
            self._write_snapshot()  # the next open needs no replay
        else:
            self._open_journal()

    def _check_params(self, header: dict[str, Any], path: Path) -> None:
        theirs = header.get("params", {})
        for name, ours in self.params.items():
            if theirs.get(name) != ours:
                raise IndexMismatch(
                    f"The URL index {path} was made with {_PARAM_SETTINGS[name]} = "
                    f"{theirs.get(name)!r}; this crawl uses {ours!r}. Set it back to "
                    f"{theirs.get(name)!r} to keep using this index, point DEDUP_DIR or "
                    "DEDUP_NAMESPACE elsewhere, or start over with DEDUP_RESET=True "
                    "(scrapy crawl SPIDER -a dedup_reset=1)."
                )

    def _replay(self) -> int:
        if not self.journal_path.exists():
            return 0
        with open(self.journal_path, "r+b") as f:
            header = _read_header(f, JOURNAL_MAGIC, self.journal_path)
            self._check_params(header, self.journal_path)
            generation = header.get("generation")
            if not isinstance(generation, int) or generation > self.generation:
                raise IndexCorrupted(
                    f"{self.journal_path} belongs to snapshot generation {generation!r}, newer than "
                    f"the snapshot's {self.generation}: the snapshot was replaced by an older one. "
                    "Restore the matching snapshot, or start over with DEDUP_RESET=True."
                )
            start = f.tell()
            data = f.read()
        if generation < self.generation:
            # Stale (killed between the two renames of a snapshot): its records are in the
            # snapshot already. Replace it with an empty journal of the snapshot's generation.
            self._write_empty_journal()
            return 0
        replayed = 0
        end = start
        for record_end, stamp, fingerprint in self._records(data, start):
            slice_id = self._slice_of(stamp)
            if slice_id >= self._slice_id - 1:
                self.slices.setdefault(slice_id, self._new_filter()).add(fingerprint)
            replayed += 1
            end = record_end
        if end < start + len(data):
            logger.warning(
                "%s ended in a torn record (%d bytes, from a process that was killed); ignored",
                self.journal_path,
                start + len(data) - end,
            )
        return replayed

    def _records(self, data: bytes, base: int) -> Iterator[tuple[int, int, bytes]]:
        pos = 0
        head = _RECORD_HEAD.size
        while pos + head <= len(data):
            length, stamp = _RECORD_HEAD.unpack_from(data, pos)
            end = pos + head + length + _CRC.size
            if end > len(data):
                return  # torn last record
            (crc,) = _CRC.unpack_from(data, end - _CRC.size)
            if zlib.crc32(data[pos : end - _CRC.size]) != crc:
                if end == len(data):
                    return  # torn last record
                raise IndexCorrupted(
                    f"{self.journal_path} is corrupt at byte {base + pos}. The records before it "
                    "are intact; restore the file from a backup, or start over with "
                    "DEDUP_RESET=True. The file is left as it is."
                )
            yield base + end, stamp, data[pos + head : pos + head + length]
            pos = end

    # -- writing --------------------------------------------------------
    def _write_snapshot(self) -> None:
        metas, payloads = [], []
        for slice_id in sorted(self.slices):
            bloom = self.slices[slice_id]
            metas.append({"id": slice_id, "filters": bloom.describe()})
            payloads.extend(bloom.payloads())
        payload = b"".join(payloads)
        header = {
            "format": FORMAT_VERSION,
            "params": self.params,
            "generation": self.generation + 1,
            "written_at": self.clock(),
            "slices": metas,
            "payload_size": len(payload),
            "payload_crc32": zlib.crc32(payload),
        }
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        _write_atomically(self.snapshot_path, [_header_bytes(SNAPSHOT_MAGIC, header), payload])
        self.generation += 1
        # The old journal is now stale (older generation); replace it with an empty one.
        self._write_empty_journal()
        self.pending = 0
        self._open_journal()

    def _write_empty_journal(self) -> None:
        header = {"format": FORMAT_VERSION, "params": self.params, "generation": self.generation}
        _write_atomically(self.journal_path, [_header_bytes(JOURNAL_MAGIC, header)])

    def _open_journal(self) -> None:
        if not self.journal_path.exists():
            self._write_empty_journal()
        journal = open(self.journal_path, "r+b", buffering=0)  # noqa: SIM115 - held until close()
        # Drop a torn last record so that new records start on a record boundary.
        journal.seek(0)
        _read_header(journal, JOURNAL_MAGIC, self.journal_path)
        start = journal.tell()
        end = start
        for end, _stamp, _fp in self._records(journal.read(), start):  # noqa: B007
            pass
        journal.truncate(end)
        journal.seek(end)
        self._journal = journal

    # -- the interface --------------------------------------------------
    def _current_slice_id(self) -> int:
        return self._slice_of(self.clock())

    def _slice_of(self, stamp: float) -> int:
        return int(stamp // self._ttl) if self._ttl else 0

    def _new_filter(self) -> GrowingBloomFilter:
        return GrowingBloomFilter(self.params["capacity"], self.params["error_rate"], self.digest)

    def _expire(self) -> None:
        self._slice_id = self._current_slice_id()
        for slice_id in [s for s in self.slices if s < self._slice_id - 1]:
            del self.slices[slice_id]
        self.slices.setdefault(self._slice_id, self._new_filter())
        self._groups = [grown.filters for grown in self.slices.values()]

    def contains(self, fingerprint: bytes) -> bool:
        if self._ttl and self._current_slice_id() != self._slice_id:
            self._expire()
        return contains_in(self._groups, self.digest(fingerprint))

    def add(self, fingerprint: bytes) -> bool:
        if self._journal is None:
            raise RuntimeError("the URL index is not open")
        if self._ttl and self._current_slice_id() != self._slice_id:
            self._expire()
        value = self.digest(fingerprint)
        if contains_in(self._groups, value):
            return False
        now = self.clock()
        self.slices[self._slice_id].insert_hashes(key_hashes(fingerprint, self.digest))
        record = _RECORD_HEAD.pack(len(fingerprint), int(now)) + fingerprint
        self._journal.write(record + _CRC.pack(zlib.crc32(record)))
        self.pending += 1
        if self.pending >= SNAPSHOT_EVERY:
            self._write_snapshot()
        return True

    def __len__(self) -> int:
        return sum(len(bloom) for bloom in self.slices.values())

    def stats(self) -> dict[str, float]:
        blooms = list(self.slices.values())
        bits = sum(b.fill_ratio() * b.nbytes * 8 for b in blooms)
        nbytes = sum(b.nbytes for b in blooms)
        miss = 1.0
        for bloom in blooms:
            miss *= 1.0 - bloom.estimated_false_positive_rate()
        return {
            "count": len(self),
            "capacity": self.params["capacity"],
            "bytes": nbytes,
            "fill_ratio": round(bits / (nbytes * 8), 6) if nbytes else 0.0,
            "estimated_fpr": 1.0 - miss,
        }

    def close(self) -> None:
        """Write a snapshot (when anything was recorded since the last) and release the index."""
        try:
            if self._journal is not None and self.pending:
                self._write_snapshot()
        finally:
            self._release()

    def _release(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        if self._lock is not None:
            self._lock.close()  # closing the file releases the flock
            self._lock = None


def open_existing(path: str | os.PathLike[str]) -> DiskUrlIndex:
    """Open the URL index in ``path`` with the parameters it was written with
    (for inspection and tools; a crawl opens it with its own settings)."""
    snapshot = Path(path) / "urls.snapshot"
    if not snapshot.exists():
        raise FileNotFoundError(f"no URL index in {path} (no {snapshot.name})")
    with open(snapshot, "rb") as f:
        params = _read_header(f, SNAPSHOT_MAGIC, snapshot).get("params", {})
    try:
        index = DiskUrlIndex(
            path,
            capacity=params["capacity"],
            error_rate=params["error_rate"],
            fingerprinter=params["fingerprinter"],
            ttl=params["ttl"],
        )
    except KeyError as exc:
        raise IndexCorrupted(f"{snapshot} has no {exc} in its header") from exc
    index.open()
    return index
