"""The feature code of seed 000 ("基于特征码的网页去重").

§3.1: the *main code* is the first character of each paragraph; the
*auxiliary code* is, for each paragraph, the character before each of its
first ``n`` = 3 punctuation marks. §3.2: two pages are the same when their
main codes are equal; when one main code is a proper subset of the other, or
their intersection is large (over 80 % of either), the auxiliary codes of the
shared paragraphs decide (the same when 80 % of them agree); an intersection
under 20 % of both means different pages. §4.3: candidates are grouped by the
clustering factor text length / main-code length, in intervals of 50.

Paragraphs are matched in order (longest common subsequence of the main
codes), so "subset" and "intersection" are taken over paragraphs, as the
paper's merging of partial reprints implies. No Scrapy import.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .text import normalize

#: Seed 000 §3.1: auxiliary code from the first n punctuation marks of each paragraph.
N = 3
#: Seed 000 §3.2: an intersection over 80 % of either main code is large.
LARGE = 0.8
#: Seed 000 §3.2: an intersection under 20 % is small.
SMALL = 0.2
#: Seed 000 §3.2: auxiliary codes agree when 80 % of them or more are the same ("80%以上").
AUX_AGREE = 0.8
#: Seed 000 §4.3: width of the clustering-factor intervals ((0, 50], (50, 100], …).
BUCKET = 50

_PUNCT = re.compile(r"[,.!?;:。、…]")


@dataclass(frozen=True)
class FeatureCode:
    """Main code (one character per paragraph) and auxiliary codes (per paragraph)."""

    main: str
    aux: tuple[str, ...]
    text_length: int

    @property
    def bucket(self) -> int:
        """Seed 000 §4.3: the interval of text length / main-code length."""
        if not self.main:
            return 0
        return int(self.text_length / len(self.main)) // BUCKET


@dataclass(frozen=True)
class Comparison:
    """The rule of seed 000 §3.2 that decided, with its evidence."""

    duplicate: bool
    rule: str
    score: float
    shared_paragraphs: int


def feature_code(paragraphs: list[str] | tuple[str, ...], *, n: int = N) -> FeatureCode:
    """Seed 000 §3.1, on normalised paragraphs (empty ones skipped).

    >>> code = feature_code(["据报道，今天上午，市政府召开会议。", "会议决定，明年起实施新规。"])
    >>> code.main, code.aux
    ('据会', ('道午议', '定规'))
    """
    mains, auxes = [], []
    length = 0
    for paragraph in paragraphs:
        text = normalize(paragraph)
        if not text:
            continue
        length += len(text.encode("utf-8"))  # seed 000 §4.3 counts bytes
        mains.append(text[0])
        marks = [m.start() for m in _PUNCT.finditer(text)][:n]
        auxes.append("".join(text[i - 1] for i in marks if i > 0))
    return FeatureCode("".join(mains), tuple(auxes), length)


def compare(a: FeatureCode, b: FeatureCode) -> Comparison:
    """The decision rules of seed 000 §3.2.

    >>> story = ["据报道，今天上午，市政府召开会议。", "会议决定，明年起实施新规。"]
    >>> first = feature_code([*story, "专家表示，新规将惠及百万市民。"])
    >>> reprint = feature_code(story)
    >>> compare(first, reprint).duplicate, compare(first, reprint).rule
    (True, 'subset')
    """
    if not a.main or not b.main:
        return Comparison(False, "empty", 0.0, 0)
    if a.main == b.main:
        return Comparison(True, "main_equal", 1.0, len(a.main))
    matcher = difflib.SequenceMatcher(None, a.main, b.main, autojunk=False)
    pairs = [(block.a + i, block.b + i) for block in matcher.get_matching_blocks() for i in range(block.size)]
    shared = len(pairs)
    share_a, share_b = shared / len(a.main), shared / len(b.main)
    if shared == len(a.main) or shared == len(b.main):
        rule = "subset"
    elif share_a > LARGE or share_b > LARGE:
        rule = "large_intersection"
    else:
        return Comparison(
            False, "small_intersection" if max(share_a, share_b) < SMALL else "no_rule", 0.0, shared
        )
    agree = sum(1 for i, j in pairs if a.aux[i] == b.aux[j])
    score = agree / shared
    return Comparison(score >= AUX_AGREE, rule, score, shared)
