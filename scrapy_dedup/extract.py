"""Body text of a web page, by HTML formatting (seed 001 §2.2), in Chinese and English.

Seed 001 §2.2 removes template noise with the HTML formatting itself: links
are dropped, and the largest block of text that shares one format is the
body. Here a "format" is the container a run of text blocks sits in: every
block of text (a paragraph, a list item, a heading…) gives its text, minus the
text of its links, to the element that holds it and, half, to that element's
parent (readability's scheme), weighted by how much it reads like prose
(sentence punctuation, length). The container with the best score, damped by
its link density, is the body; blocks inside it are kept in document order,
less those that are mostly links. The body grows to its parent while the parent
adds prose from outside it, and takes in siblings that score nearly as well or
hold prose (an article split over several ``div``\\ s). When the body holds
under 30 % of the page's prose, the pick was wrong (a references list, a
teaser, a footer) and the deepest element holding most of the prose wins.

The 10 % head/tail trim of seed 001 §2.2 is not part of the body: the
long-sentence features apply it with :meth:`Document.trimmed`.

No Scrapy import. Hostile input (binary, JSON, PDF, NUL bytes, deep nesting,
huge pages) gives an empty :class:`Document`, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from lxml import etree
from w3lib.encoding import html_to_unicode

__all__ = ["Document", "extract"]

#: Pages are cut to this many characters before parsing (bounded time and memory).
MAX_CHARS = 8_000_000

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")  # lxml refuses it in a str
_SPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u3000\u200b\ufeff]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SENTENCE_PUNCT = re.compile(r"[,.;:!?，。；：！？、]")

#: Elements never part of a body.
_DROP = {
    "script", "style", "noscript", "iframe", "svg", "canvas", "template", "object", "embed",
    "button", "select", "textarea", "input", "option", "nav", "aside", "footer", "map", "audio",
    "video", "head", "title", "meta", "link", "dialog", "figcaption",
}  # fmt: skip
#: Elements that start a new block of text.
_BLOCKS = {
    "p", "div", "li", "td", "th", "tr", "table", "ul", "ol", "dl", "dd", "dt", "h1", "h2", "h3",
    "h4", "h5", "h6", "pre", "blockquote", "article", "section", "main", "header", "form",
    "figure", "figcaption", "center", "br", "hr", "address", "body", "html", "tbody", "caption",
}  # fmt: skip
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

# Class/id words that mark containers of body text, or of template (readability's lists, plus
# the pinyin and English names Chinese templates use).
_POSITIVE = re.compile(
    r"article|body|content|entry|hentry|main|page|post|text|blog|story|detail|zhengwen|neirong",
    re.I,
)
_NEGATIVE = re.compile(
    r"comment|combx|contact|foot|footer|footnote|masthead|media|meta|outbrain|promo|related|"
    r"scroll|shoutbox|sidebar|sponsor|shopping|tags|tool|widget|share|social|nav|menu|breadcrumb|"
    r"advert|banner|\bad\b|ads|popup|login|copyright|recommend|hot|rank|pinglun|xiangguan|tuijian",
    re.I,
)

#: First words of class and id names that surely mark template (comment threads, related
#: lists, share bars…). Whole words, not substrings: "contentWithSidebar", "url-breadcrumb"
#: and "tooltipbg" hold bodies.
_TEMPLATE_WORDS = frozenset(
    {
        "comment", "comments", "commentlist", "disqus", "reply", "replies", "respond", "related",
        "share", "sharing", "sidebar", "footer", "breadcrumb", "breadcrumbs", "copyright", "advert",
        "advertisement", "ads", "promo", "recommend", "recommended", "pinglun", "xiangguan", "tuijian",
        "rail", "teaser", "teasers", "carousel", "swiper", "newsletter", "subscribe", "trending",
        "popular", "latest", "outbrain", "taboola",
    }
)  # fmt: skip
_NAME_WORDS = re.compile(r"[-_]|(?<=[a-z])(?=[A-Z])")


def _template_name(name: str | None) -> bool:
    """Whether a class or id attribute names template.

    >>> _template_name("comment-list"), _template_name("post relatedPosts")
    (True, True)
    >>> _template_name("contentWithSidebar"), _template_name("url-breadcrumb is-active")
    (False, False)
    """
    if not name:
        return False
    return any(_NAME_WORDS.split(token, 1)[0].lower() in _TEMPLATE_WORDS for token in name.split())


@dataclass(frozen=True)
class Document:
    """The extracted body of a page: its title and its paragraphs in order."""

    title: str = ""
    paragraphs: tuple[str, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        return "\n".join(self.paragraphs)

    def __bool__(self) -> bool:
        return bool(self.paragraphs)

    def trimmed(self, share: float = 0.1) -> str:
        """The body text less ``share`` of its characters at the head and at
        the tail (seed 001 §2.2: where pages put source lines, editors and
        copyright notes that differ between reprints)."""
        text = self.text
        cut = int(len(text) * share)
        return text[cut : len(text) - cut] if cut else text


def _decode(html: str | bytes, encoding: str | None) -> str:
    if isinstance(html, str):
        return html
    content_type = f"text/html; charset={encoding}" if encoding else None
    _, text = html_to_unicode(content_type, html, auto_detect_fun=_detect_encoding)
    return text


def _detect_encoding(data: bytes) -> str | None:
    """The first encoding that decodes the bytes strictly (no declaration found)."""
    for candidate in ("utf-8", "gb18030", "big5", "shift_jis", "euc-kr"):
        try:
            data.decode(candidate)
        except UnicodeDecodeError:
            continue
        return candidate
    return "cp1252"


def _looks_like_html(text: str) -> bool:
    head = text[:4096].lstrip()
    if not head or head.startswith(("{", "[", "%PDF")):
        return False
    if "<" not in head and "<" not in text[:65536]:
        return False
    controls = sum(1 for ch in head if ch < " " and ch not in "\t\r\n")
    return controls < len(head) * 0.05


def _clean(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _text_weight(text: str) -> int:
    """Length in reading units: a CJK character counts as two letters."""
    return len(text) + len(_CJK.findall(text))


@dataclass
class _Block:
    element: etree._Element
    text: str
    link_chars: int
    heading: bool
    weight: int  # _text_weight(text)


_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)


def _parse(text: str) -> etree._Element | None:
    # Plain lxml elements (not lxml.html's, whose class lookup costs on every access).
    try:
        return etree.fromstring(text, _PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _blocks(root: etree._Element) -> Iterator[_Block]:
    """Runs of text between block boundaries, each with the block element that holds it."""
    parts: list[str] = []
    link_chars = 0
    owner: etree._Element | None = None
    in_link = 0
    dropped = None  # the element whose subtree is skipped: its next event is its own end
    # lxml walks the tree in C, without recursion (pages nest thousands deep).
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, element in walker:
        tag = element.tag
        boundary = None  # the owner of the text that follows, when a block starts or ends here
        if event == "start":
            if not isinstance(tag, str) or tag in _DROP or _hidden(element):
                dropped = element
                walker.skip_subtree()
                continue
            if tag == "a":
                in_link += 1
            if tag in _BLOCKS:
                boundary = element
            text = element.text
        else:
            if element is dropped:
                dropped = None
            else:
                if tag == "a":
                    in_link -= 1
                if tag in _BLOCKS:
                    boundary = _block_owner(element)
            text = element.tail
        if boundary is not None:
            if parts:
                block = _block(owner, parts, link_chars)
                if block is not None:
                    yield block
                parts, link_chars = [], 0
            owner = boundary
        if text:
            parts.append(text)
            if in_link:
                link_chars += len(text.strip())
    block = _block(owner, parts, link_chars)
    if block is not None:
        yield block


def _block(owner: etree._Element | None, parts: list[str], link_chars: int) -> _Block | None:
    raw = "".join(parts)
    if owner is None or not raw or raw.isspace():
        return None
    text = _clean(raw)
    return _Block(owner, text, link_chars, owner.tag in _HEADINGS, _text_weight(text))


def _block_owner(element: etree._Element) -> etree._Element:
    parent = element.getparent()
    while parent is not None and parent.tag not in _BLOCKS:
        parent = parent.getparent()
    return parent if parent is not None else element


def _hidden(element: etree._Element) -> bool:
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    style = element.get("style")
    return bool(style) and re.search(r"display\s*:\s*none|visibility\s*:\s*hidden", style) is not None


def _class_weight(element: etree._Element, cache: dict[etree._Element, float]) -> float:
    """+25 for a body-like class or id, -25 for a template-like one (readability's weights)."""
    weight = cache.get(element)
    if weight is None:
        weight = 0.0
        for name in (element.get("class"), element.get("id")):
            if not name:
                continue
            if _NEGATIVE.search(name):
                weight -= 25
            if _POSITIVE.search(name):
                weight += 25
        cache[element] = weight
    return weight


def _title(root: etree._Element) -> str:
    for xpath in ('//meta[@property="og:title"]/@content', "//title//text()", "//h1//text()"):
        found = _clean(" ".join(root.xpath(xpath)))
        if found:
            return found
    return ""


def _choose_body(blocks: list[_Block]) -> set[etree._Element]:
    weights: dict[etree._Element, float] = {}
    scores: dict[etree._Element, float] = {}
    text_len: dict[etree._Element, int] = {}
    link_len: dict[etree._Element, int] = {}
    for block in blocks:
        weight = block.weight
        prose = weight - 2 * block.link_chars
        element = block.element
        ancestors = [element, *_ancestors(element, 3)]
        for ancestor in ancestors:
            text_len[ancestor] = text_len.get(ancestor, 0) + weight
            link_len[ancestor] = link_len.get(ancestor, 0) + 2 * block.link_chars
        if prose < 20:
            continue
        score = 1 + len(_SENTENCE_PUNCT.findall(block.text)) + min(prose / 100, 3)
        for depth, ancestor in enumerate(ancestors[1:3], start=1):
            scores[ancestor] = scores.get(ancestor, 0.0) + score / depth
    if not scores:
        return set()

    finals = {}
    for element, score in scores.items():
        density = link_len.get(element, 0) / max(text_len.get(element, 1), 1)
        finals[element] = (score + _class_weight(element, weights)) * (1 - min(density, 1))
    best = max(finals, key=finals.__getitem__)
    # Climb while the parent adds prose from outside the container (an article split over
    # several containers, or paragraphs beside it) and is not mostly links.
    prose = _prose_mass(blocks)
    while True:
        parent = best.getparent()
        if parent is None or parent.tag in ("body", "html"):
            break
        outside = prose.get(parent, 0) - prose.get(best, 0)
        density = link_len.get(parent, 0) / max(text_len.get(parent, 1), 1)
        if outside < 0.25 * prose.get(best, 0) or density > 0.35:
            break
        best = parent
    # A safeguard against a wrong pick (a references list, a teaser, a footer): a body that
    # holds under 30 % of the page's prose gives way to the deepest element holding most of it.
    total = max(prose.values(), default=0)
    if total and prose.get(best, 0) < 0.3 * total:
        holders = [e for e, mass in prose.items() if mass >= 0.6 * total]
        best = max(holders, key=_depth)
    chosen = {best}
    # Seed 001 §2.2: the body is the text sharing one format. Articles cut into chunks by
    # advertisements repeat their container (same tag, same class): take every repeat.
    css_class = best.get("class")
    if css_class:
        for element, mass in prose.items():
            if mass and element.tag == best.tag and element.get("class") == css_class:
                chosen.add(element)
    parent = best.getparent()
    threshold = max(10.0, finals.get(best, 0.0) * 0.2)
    if parent is not None:
        for sibling in parent:
            if sibling is best:
                continue
            if finals.get(sibling, -1.0) >= threshold or prose.get(sibling, 0) >= 160:
                chosen.add(sibling)  # a scored container, or prose beside the body
    return chosen


def _prose_mass(blocks: list[_Block]) -> dict[etree._Element, int]:
    """Per element: the weight of the prose blocks inside it (blocks that read
    like sentences, not links, not in template-named subtrees)."""
    mass: dict[etree._Element, int] = {}
    for block in blocks:
        weight = block.weight - 2 * block.link_chars
        if weight < 40 or _in_template(block.element):
            continue
        node: etree._Element | None = block.element
        while node is not None:
            mass[node] = mass.get(node, 0) + weight
            node = node.getparent()
    return mass


def _is_template(node: etree._Element) -> bool:
    return _template_name(node.get("class")) or _template_name(node.get("id"))


def _in_template(element: etree._Element) -> bool:
    """Whether a template-named element near it (comments, related lists…) holds it."""
    node: etree._Element | None = element
    for _ in range(3):  # near ancestors only: page-wide wrappers say "has-sidebar" too
        if node is None or node.tag in ("body", "html"):
            return False
        if _is_template(node):
            return True
        node = node.getparent()
    return False


def _depth(element: etree._Element) -> int:
    return sum(1 for _ in element.iterancestors())


def _ancestors(element: etree._Element, count: int) -> list[etree._Element]:
    return list(islice(element.iterancestors(), count))


def _in_body(element: etree._Element, containers: set[etree._Element]) -> bool:
    """Whether a body container holds ``element`` with no template-named element
    (comments, related lists…) between them."""
    path = []
    node: etree._Element | None = element
    while node is not None:
        if node in containers:  # names are read only for blocks inside the body
            return not any(_is_template(n) for n in path)
        path.append(node)
        node = node.getparent()
    return False


def extract(html: str | bytes, *, url: str | None = None, encoding: str | None = None) -> Document:
    """Extract the title and body paragraphs of ``html`` (str, or bytes in any
    charset: ``encoding`` is the HTTP charset when known). ``url`` is the page's
    address: accepted now so that callers pass it, not used yet (per-site
    template learning will). Returns an empty :class:`Document` when the input
    is not a page with text."""
    try:
        text = _decode(html, encoding)
    except (LookupError, ValueError):
        return Document()
    if not _looks_like_html(text):
        return Document()
    text = _XML_DECLARATION.sub("", _CONTROL.sub("", text[:MAX_CHARS]), count=1)
    root = _parse(text)
    if root is None:
        return Document()
    title = _title(root)
    blocks = list(_blocks(root))
    containers = _choose_body(blocks)
    paragraphs = []
    for block in blocks:
        # No block reads like prose (a very short page): every block that is not mostly
        # links is the body.
        if containers and not _in_body(block.element, containers):
            continue  # outside the body, or a comment thread or related list inside it
        if block.link_chars * 2 > block.weight * 0.5 and not block.heading:
            continue  # mostly links: navigation, tag lists, "related" lines
        if block.heading and not paragraphs and title and block.text in title:
            continue  # the headline is the title, not body text
        paragraphs.append(block.text)
    return Document(title=title, paragraphs=tuple(paragraphs))
