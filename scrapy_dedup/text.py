"""Text normalisation and sentence cutting shared by the content matchers.

Normalise before cutting (full-width and half-width punctuation, case,
whitespace), or every sentence digest breaks between a page and its reprint.
No Scrapy import.
"""

from __future__ import annotations

import re
import unicodedata

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W\u3400-\u9fff\uf900-\ufaff]+")
_SPACE = re.compile(r"\s+")
#: Sentence boundaries of seed 001 §3.1 ("逗号，句号，感叹号等"), after NFKC, which maps
#: full-width ，！？；： to , ! ? ; : but keeps 。 and 、.
_CUT = re.compile(r"[,.!?;:。、…\n\r\t\"“”‘’()\[\]{}<>《》「」『』【】]+")


def normalize(text: str) -> str:
    """NFKC (full-width letters, digits and punctuation to half-width), lower
    case, one space between words.

    >>> normalize("ＡＢＣ，Hello　World！")
    'abc,hello world!'
    """
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().lower()


def sentences(text: str) -> list[str]:
    """The "sentences" of seed 001 §3.1: runs of text between punctuation marks.

    >>> sentences("首先，该算法对网页进行去杂处理，然后提取出文中的长句作为网页的特征。")
    ['首先', '该算法对网页进行去杂处理', '然后提取出文中的长句作为网页的特征']
    """
    return [part.strip() for part in _CUT.split(normalize(text)) if part.strip()]


def units(text: str) -> int:
    """Length in the units of the seeds' thresholds: a CJK character is one
    unit (seed 001 counts 字), and so is a word of any other script.

    >>> units("然后提取出文中的长句作为网页的特征"), units("the same page reached twice")
    (17, 5)
    """
    return len(_CJK.findall(text)) + len(_WORD.findall(text))
