"""The long-sentence features of seed 001 §3 ("基于HTML标记和长句提取的网页去重算法").

§3.1: the body is cut at punctuation into "sentences"; a sentence of at least
``k`` = 8 units (字) is *long*; the ``m`` longest long sentences, each as an
MD5 digest, are the page's features. §3.2: two pages are duplicates when the
Jaccard similarity of their feature sets passes a threshold. §3.3: the
digests are the keys of a balanced search tree (a red-black tree there; the
on-disk index's B-tree here), so finding candidates is a lookup per digest.

The text we have of the paper does not print ``m`` or the threshold: ``m`` =
10 and a Jaccard threshold of 0.5 are this package's choices. Units are CJK
characters or words (see :func:`scrapy_dedup.text.units`), so English works
without a segmenter. No Scrapy import.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .text import sentences, units

#: Seed 001 §3.1: a long sentence has at least k = 8 characters.
K = 8
#: Seed 001 §3.1: only the m longest long sentences are kept (m chosen here).
M = 10
#: Seed 001 §3.2: duplicates when the Jaccard similarity exceeds a threshold (chosen here).
THRESHOLD = 0.5


@dataclass(frozen=True)
class LongSentences:
    """The features of one page: its ``m`` longest long sentences and their MD5 digests."""

    sentences: tuple[str, ...]
    digests: frozenset[bytes]


@dataclass(frozen=True)
class Comparison:
    """The Jaccard similarity of two pages' features and the sentences they share."""

    score: float
    duplicate: bool
    shared: tuple[str, ...]


def long_sentences(text: str, *, k: int = K, m: int = M) -> LongSentences:
    """The features of seed 001 §3.1 for a page's body text.

    >>> features = long_sentences("首先，该算法对网页进行去杂处理，然后提取出文中的长句作为网页的特征。")
    >>> features.sentences
    ('然后提取出文中的长句作为网页的特征', '该算法对网页进行去杂处理')
    >>> len(features.digests)
    2
    """
    long = [s for s in sentences(text) if units(s) >= k]
    # The m longest; ties in first-seen order, so the choice is stable.
    chosen = sorted(dict.fromkeys(long), key=lambda s: -units(s))[:m]
    return LongSentences(tuple(chosen), frozenset(hashlib.md5(s.encode("utf-8")).digest() for s in chosen))


def compare(a: LongSentences, b: LongSentences, *, threshold: float = THRESHOLD) -> Comparison:
    """Seed 001 §3.2: Jaccard similarity of the two digest sets.

    >>> one = long_sentences("首先，该算法对网页进行去杂处理，然后提取出文中的长句作为网页的特征。")
    >>> other = long_sentences("据报道，该算法对网页进行去杂处理，然后提取出文中的长句作为网页的特征！")
    >>> compare(one, other).score, compare(one, other).duplicate
    (1.0, True)
    """
    union = a.digests | b.digests
    if not union:
        return Comparison(0.0, False, ())
    common = a.digests & b.digests
    score = len(common) / len(union)
    shared = tuple(s for s in a.sentences if hashlib.md5(s.encode("utf-8")).digest() in common)
    return Comparison(score, score >= threshold, shared)
