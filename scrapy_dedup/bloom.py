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

No Scrapy import: the Redis backend and the command-line tool use it too.
"""

from __future__ import annotations

from typing import Any

from bitarray import bitarray
from pybloom_live import BloomFilter

#: Each new filter holds GROWTH times the previous one. 3 keeps memory at
#: ≤ 4 bytes per URL at 1e-4 even after outgrowing the capacity tenfold,
#: where 2 would need more, smaller filters with tighter error rates.
GROWTH = 3
#: The error rates of the filters added by growth: ``error_rate * FIRST_GROWN_SHARE * 0.5**i``.
FIRST_GROWN_SHARE = 0.2


def _filter_params(capacity: int, error_rate: float, index: int) -> tuple[int, float]:
    if index == 0:
        return capacity, error_rate
    return capacity * GROWTH**index, error_rate * FIRST_GROWN_SHARE * 0.5 ** (index - 1)


def _load_filter(meta: dict[str, Any], payload: bytes) -> BloomFilter:
    bloom = BloomFilter.__new__(BloomFilter)
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
    """A set of string keys that may answer "present" wrongly (at about
    ``error_rate``) but never "absent" wrongly, in ~2.4 bytes per key at 1e-4."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity!r}")
        if not 0 < error_rate < 1:
            raise ValueError(f"error_rate must be in (0, 1), got {error_rate!r}")
        self.capacity = capacity
        self.error_rate = error_rate
        self.filters: list[BloomFilter] = [BloomFilter(capacity, error_rate)]

    def __contains__(self, key: str) -> bool:
        return any(key in bloom for bloom in self.filters)

    def add(self, key: str) -> bool:
        """Add ``key``; return True when it was not (apparently) present."""
        if key in self:
            return False
        last = self.filters[-1]
        if last.count >= last.capacity:
            last = BloomFilter(*_filter_params(self.capacity, self.error_rate, len(self.filters)))
            self.filters.append(last)
        last.add(key, skip_check=True)
        return True

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
        cls, capacity: int, error_rate: float, metas: list[dict[str, Any]], payloads: list[bytes]
    ) -> GrowingBloomFilter:
        """Rebuild a filter from :meth:`describe` and :meth:`payloads`
        (raises ValueError when they do not fit together)."""
        if not metas or len(metas) != len(payloads):
            raise ValueError("a filter needs one payload per filter description")
        grown = cls.__new__(cls)
        grown.capacity = capacity
        grown.error_rate = error_rate
        grown.filters = [_load_filter(meta, payload) for meta, payload in zip(metas, payloads, strict=True)]
        return grown
