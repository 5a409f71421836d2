"""A Bloom filter that grows past its capacity and still keeps its error rate.

The filters are pybloom-live's (partitioned: one slice of bits per hash
function, sized from capacity and error rate). pybloom-live's own
``ScalableBloomFilter`` with its defaults overshoots its error-rate target
several times over once it grows, so growth is done here instead, following
Almeida et al., "Scalable Bloom Filters" (2007), the scheme seed 001's Bloom
filter section leaves open:

* the first filter is sized for ``capacity`` at ``error_rate``, so a crawl
  whose size is known costs the optimum, about 2.4 bytes per URL at 1e-4;
* when it is full, a filter ``GROWTH`` times larger is added, with an error
  rate of 0.2 × the target, then 0.1 ×, 0.05 × … (a geometric series summing to
  0.4 × the target), so however far the filter grows, the false-positive rate
  of all filters together stays below 1.4 × the target.

Bit positions: pybloom-live salts SHA-512 per key and encodes bytes keys by
their ``repr``; here one 128-bit digest of the key (the key itself when it is
already a uniform hash such as Scrapy's SHA-1 fingerprint, else its xxh3-128)
is split into three hashes
and slice ``i`` takes bit ``(h1 + i·h2 + i(i-1)/2·h3) mod m`` (triple hashing,
Dillinger & Manolios, "Bloom filters in probabilistic verification", 2004),
computed once per key and shared by every filter and time slice. Plain double
hashing (``h1 + i·h2``) was measured 2.4× over its error rate on a small
filter: two keys whose two hashes agree modulo m collide in every slice, a
chance of 1/m² per pair; with three hashes it is 1/m³. xxhash is already a
dependency of pybloom-live.

No Scrapy import: the Redis backend and the command-line tool use it too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import xxhash
from bitarray import bitarray
from pybloom_live import BloomFilter

#: Each new filter holds GROWTH times the previous one. 3 keeps memory at
#: ≤ 4 bytes per URL at 1e-4 even after outgrowing the capacity tenfold,
#: where 2 would need more, smaller filters with tighter error rates.
GROWTH = 3
#: The error rates of the filters added by growth: ``error_rate * FIRST_GROWN_SHARE * 0.5**i``.
FIRST_GROWN_SHARE = 0.2


_MASK43 = (1 << 43) - 1

#: Names the bit-position scheme; stored in index headers (another scheme = other bits).
HASH_SCHEME = "triple-hashing/1"

Hashes = tuple[int, int, int]
#: Turns a key into the integer whose low 128 bits give its three hashes.
Digest = Callable[[bytes], int]

#: For keys that are not already uniform hashes.
xxh3_digest: Digest = xxhash.xxh3_128_intdigest
#: For keys that are already uniform hashes of ≥ 16 bytes, such as Scrapy's
#: default request fingerprint (SHA-1): their own bits, no second hash.
raw_digest: Digest = functools.partial(int.from_bytes, byteorder="little")


def key_hashes(key: bytes, digest: Digest = xxh3_digest) -> Hashes:
    """The three hashes from which every filter derives a key's bit positions."""
    value = digest(key)
    return value & _MASK43, (value >> 43) & _MASK43, (value >> 86) & _MASK43


class _Filter(BloomFilter):
    """pybloom-live's partitioned filter, addressed by :func:`key_hashes`."""

    def add_hashes(self, hashes: Hashes) -> None:
        x, step, step_step = hashes
        bits = self.bitarray
        m = self.bits_per_slice
        for offset in range(0, self.num_bits, m):
            bits[offset + x % m] = 1
            x += step
            step += step_step
        self.count += 1


def contains_in(groups: Iterable[list[_Filter]], value: int) -> bool:
    """Whether any filter of any group holds the key whose digest is ``value``.

    The one probing loop of the package, kept short for the common case (the
    first slice's bit is clear): it runs in every ``request_seen``."""
    h1 = value & _MASK43
    for filters in groups:
        for bloom in filters:
            bits = bloom.bitarray
            m = bloom.bits_per_slice
            if not bits[h1 % m]:
                continue
            x, step, h3 = h1, (value >> 43) & _MASK43, (value >> 86) & _MASK43
            for offset in range(m, bloom.num_bits, m):
                x += step
                step += h3
                if not bits[offset + x % m]:
                    break
            else:
                return True
    return False


def _filter_params(capacity: int, error_rate: float, index: int) -> tuple[int, float]:
    if index == 0:
        return capacity, error_rate
    return capacity * GROWTH**index, error_rate * FIRST_GROWN_SHARE * 0.5 ** (index - 1)


def _load_filter(meta: dict[str, Any], payload: bytes) -> _Filter:
    bloom = _Filter.__new__(_Filter)
    bloom._setup(
        float(meta["error_rate"]),
        int(meta["num_slices"]),
        int(meta["bits_per_slice"]),
        int(meta["capacity"]),
        int(meta["count"]),
    )
    bits = bitarray(endian="little")
    bits.frombytes(payload)
    if len(bits) < bloom.num_bits or len(bits) - bloom.num_bits >= 8:
        raise ValueError(f"filter payload holds {len(bits)} bits, expected {bloom.num_bits}")
    bloom.bitarray = bits
    return bloom


class GrowingBloomFilter:
    """A set of byte-string keys that may answer "present" wrongly (at about
    ``error_rate``) but never "absent" wrongly, in ~2.4 bytes per key at 1e-4."""

    def __init__(self, capacity: int, error_rate: float, digest: Digest = xxh3_digest) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity!r}")
        if not 0 < error_rate < 1:
            raise ValueError(f"error_rate must be in (0, 1), got {error_rate!r}")
        self.capacity = capacity
        self.error_rate = error_rate
        self.digest = digest
        self.filters: list[_Filter] = [_Filter(capacity, error_rate)]

    def __contains__(self, key: bytes) -> bool:
        return contains_in((self.filters,), self.digest(key))

    def add(self, key: bytes) -> bool:
        """Add ``key``; return True when it was not (apparently) present."""
        if key in self:
            return False
        self.insert_hashes(key_hashes(key, self.digest))
        return True

    def insert_hashes(self, hashes: Hashes) -> None:
        """Add a key known to be absent (the caller just checked)."""
        last = self.filters[-1]
        if last.count >= last.capacity:
            last = _Filter(*_filter_params(self.capacity, self.error_rate, len(self.filters)))
            self.filters.append(last)
        last.add_hashes(hashes)

    def __len__(self) -> int:
        return sum(bloom.count for bloom in self.filters)

    @property
    def nbytes(self) -> int:
        """Bytes of bits held in memory (and written to a snapshot)."""
        return sum(bloom.bitarray.nbytes for bloom in self.filters)

    @property
    def grown(self) -> bool:
        return len(self.filters) > 1

    def fill_ratio(self) -> float:
        """Share of all bits that are set (0.5 in a filter at its capacity)."""
        bits = sum(bloom.num_bits for bloom in self.filters)
        return sum(bloom.bitarray.count() for bloom in self.filters) / bits

    def estimated_false_positive_rate(self) -> float:
        """The chance that a key never added is reported present, from the
        bits actually set: each filter answers wrongly when all of its k
        slices have the key's bit set."""
        miss = 1.0
        for bloom in self.filters:
            fill = bloom.bitarray.count() / bloom.num_bits
            miss *= 1.0 - fill**bloom.num_slices
        return 1.0 - miss

    def describe(self) -> list[dict[str, Any]]:
        """The parameters of each filter, for a snapshot header."""
        return [
            {
                "capacity": bloom.capacity,
                "error_rate": bloom.error_rate,
                "num_slices": bloom.num_slices,
                "bits_per_slice": bloom.bits_per_slice,
                "count": bloom.count,
                "nbytes": bloom.bitarray.nbytes,
            }
            for bloom in self.filters
        ]

    def payloads(self) -> list[bytes]:
        return [bloom.bitarray.tobytes() for bloom in self.filters]

    @classmethod
    def restore(
        cls,
        capacity: int,
        error_rate: float,
        metas: list[dict[str, Any]],
        payloads: list[bytes],
        digest: Digest = xxh3_digest,
    ) -> GrowingBloomFilter:
        """Rebuild a filter from :meth:`describe` and :meth:`payloads`
        (raises ValueError when they do not fit together)."""
        if not metas or len(metas) != len(payloads):
            raise ValueError("a filter needs one payload per filter description")
        grown = cls.__new__(cls)
        grown.capacity = capacity
        grown.error_rate = error_rate
        grown.digest = digest
        grown.filters = [_load_filter(meta, payload) for meta, payload in zip(metas, payloads, strict=True)]
        return grown
