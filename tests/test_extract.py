"""Body extraction: real-looking pages in Chinese and English, charsets, hostile input."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_dedup.extract import Document, extract

FIXTURES = Path(__file__).parent / "fixtures"
EN = (FIXTURES / "article_en.html").read_bytes()
ZH_GBK = (FIXTURES / "article_zh.gbk.html").read_bytes()


def test_english_article_body_without_template() -> None:
    doc = extract(EN)
    assert doc.title == "River towns rebuild after the spring floods"
    text = doc.text
    assert doc.paragraphs[0].startswith("When the river rose")
    assert "A levee, and a plan for the next flood" in doc.paragraphs  # headings inside the body
    assert "Repair grants cover up to half of the cost of a new floor." in doc.paragraphs  # list items
    assert "we will get through it again" in text
    for noise in ("Most read", "Advertisement", "All rights reserved", "Great reporting", "Sport"):
        assert noise not in text, noise


def test_chinese_gbk_page_declared_in_meta() -> None:
    doc = extract(ZH_GBK)
    assert doc.title.startswith("山区小学迎来第一座图书馆")
    assert len(doc.paragraphs) == 5
    assert doc.paragraphs[0].startswith("五月的清晨")
    assert doc.paragraphs[-1].endswith("让有限的图书流动起来。")
    for noise in ("相关新闻", "分享到", "网友评论", "热点排行", "版权所有", "首页"):
        assert noise not in doc.text, noise


def test_undeclared_gbk_is_detected() -> None:
    undeclared = ZH_GBK.replace(b"; charset=gb2312", b"")
    assert extract(undeclared).paragraphs == extract(ZH_GBK).paragraphs


def test_http_charset_wins_and_big5_and_bom() -> None:
    html = "<html><body><div><p>臺灣的山林步道，一年四季都有不同的風景，吸引許多登山客前來健行。</p></div>"
    assert "登山客" in extract(html.encode("big5"), encoding="big5").text
    assert "登山客" in extract(b"\xef\xbb\xbf" + html.encode("utf-8")).text
    sjis = "<html><body><p>東京の春は桜の季節で、多くの人が公園に集まって花見を楽しみます。</p></body></html>"
    assert "花見" in extract(sjis.encode("shift_jis"), encoding="shift_jis").text


def test_str_input_and_trimmed() -> None:
    doc = extract(EN.decode("utf-8"))
    assert doc == extract(EN)
    text = doc.text
    trimmed = doc.trimmed()
    cut = int(len(text) * 0.1)
    assert trimmed == text[cut : len(text) - cut]
    assert Document(paragraphs=("short",)).trimmed() == "short"


# -- hostile input: an empty Document, in bounded time and memory, never an exception --------
def _random_bytes(n: int) -> bytes:
    return random.Random(1234).randbytes(n)


HOSTILE = {
    "empty bytes": b"",
    "empty str": "",
    "whitespace": "   \n\t ",
    "json": json.dumps({"title": "not html", "items": [1, 2, 3], "html": "<p>x</p>"}).encode(),
    "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" + _random_bytes(4000),
    "random binary": _random_bytes(100_000),
    "only navigation": (
        "<html><body><nav>"
        + "".join(f'<a href="/p{i}">Section {i}</a> ' for i in range(200))
        + "</nav><div>"
        + "".join(f'<a href="/q{i}">Another link {i}</a><br>' for i in range(200))
        + "</div></body></html>"
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_gives_empty_document(name: str) -> None:
    doc = extract(HOSTILE[name])
    assert isinstance(doc, Document)
    assert doc.paragraphs == ()
    assert not doc


def test_nul_bytes_and_control_characters() -> None:
    page = EN.replace(b"<p>When the river", b"<p>\x00\x01\x02When the river\x0b\x1b")
    doc = extract(page)
    assert doc.paragraphs[0].startswith("When the river rose")
    assert extract(EN.decode().replace("When", "When\x00\ud800")).paragraphs[0].startswith("When")


def test_broken_unclosed_markup() -> None:
    broken = (
        "<html><body><div class='content'><p>The first paragraph of a page whose markup was never "
        "closed, as many old pages are, and still has enough words to read.<p>A second paragraph "
        "follows without closing the first one, with <b>bold <i>and italic text that never "
        "ends<div><p>And a third paragraph inside a div that is never closed, also long enough."
    )
    doc = extract(broken)
    assert len(doc.paragraphs) >= 3
    assert "A second paragraph follows" in doc.text


@pytest.mark.timeout(60)
def test_100000_levels_of_nesting() -> None:
    deep = (
        "<div>" * 100_000 + "<p>" + "Deep text at the bottom of the page. " * 5 + "</p>" + "</div>" * 100_000
    )
    doc = extract(deep)
    assert isinstance(doc, Document)  # lxml caps the depth; what it keeps is walked without recursion


@pytest.mark.timeout(120)
def test_20_mb_page() -> None:
    paragraph = "<p>" + "A sentence of a very long page, repeated many times over. " * 20 + "</p>\n"
    huge = (
        "<html><body><div class='content'>" + paragraph * (20_000_000 // len(paragraph)) + "</div>"
    ).encode()
    assert len(huge) >= 19_000_000
    doc = extract(huge)
    assert doc.paragraphs and doc.paragraphs[0].startswith("A sentence of a very long page")


# -- command line ---------------------------------------------------------------------------
def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "scrapy_dedup.cli", *args], input=stdin, capture_output=True, timeout=60
    )


def test_cli_extract_text_json_and_stdin() -> None:
    result = _cli("extract", str(FIXTURES / "article_en.html"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith("When the river rose")

    result = _cli(
        "extract", "--json", str(FIXTURES / "article_en.html"), str(FIXTURES / "article_zh.gbk.html")
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [line["title"][:5] for line in lines] == ["River", "山区小学迎"]
    assert len(lines[1]["paragraphs"]) == 5

    result = _cli("extract", "-", stdin=ZH_GBK)
    assert result.returncode == 0 and "五月的清晨" in result.stdout.decode()


def test_cli_extract_missing_file() -> None:
    result = _cli("extract", "/nonexistent/page.html")
    assert result.returncode == 2
    assert b"page.html" in result.stderr
