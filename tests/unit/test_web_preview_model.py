"""Preview sanitising: raw HTML is text, and only safe URLs become links or images."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from app.notes.preview_model import is_safe_url, render, resolve_link

PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 1">',
    "<svg onload=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "![i](data:image/png;base64,AAAA)",
    "![i](javascript:alert(1))",
    "<javascript:alert(1)>",
    "[ref]\n\n[ref]: javascript:alert(1)",
    '<iframe src="https://example.com"></iframe>',
    "`<script>` in code and\n\n    <script>indented</script>",
]


ALLOWED_TAGS = {
    "p",
    "a",
    "img",
    "code",
    "pre",
    "em",
    "strong",
    "h1",
    "h2",
    "h3",
    "ul",
    "ol",
    "li",
    "blockquote",
    "br",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "s",
}


class Elements(HTMLParser):
    """Every real element and attribute in the output (escaped text is not an element)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_markup_or_unsafe_url_survives(payload: str) -> None:
    parser = Elements()
    parser.feed(render(payload))
    for tag, attrs in parser.found:
        assert tag in ALLOWED_TAGS
        assert not any(name.startswith("on") for name in attrs)
        for name in ("href", "src"):
            if name in attrs:
                assert is_safe_url(attrs[name]), attrs


def test_ordinary_markdown_renders() -> None:
    html = render(
        "# Title\n\n*em* and [site](https://example.com) and [note](other.md)\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~"
    )
    assert "<h1>Title</h1>" in html and "<em>em</em>" in html
    assert 'href="https://example.com" target="_blank" rel="noopener noreferrer"' in html
    assert '<a href="other.md">note</a>' in html
    assert "<table>" in html and "<s>gone</s>" in html


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://x.org", True),
        ("mailto:a@b.c", True),
        ("other.md", True),
        ("#top", True),
        ("/abs", True),
        ("javascript:x", False),
        (" JAVASCRIPT:x", False),
        ("java\nscript:x", False),
        ("data:image/png;base64,AA", False),
        ("file:///etc/passwd", False),
    ],
)
def test_is_safe_url(url: str, safe: bool) -> None:
    assert is_safe_url(url) is safe


@pytest.mark.parametrize(
    ("note", "href", "path"),
    [
        ("projects/roadmap.md", "plan.md", "projects/plan.md"),
        ("projects/roadmap.md", "../todo.md#x", "todo.md"),
        ("todo.md", "%E6%97%A5%E8%A8%98/a.md", "日記/a.md"),
        ("todo.md", "../escape.md", None),
        ("todo.md", "https://x.org/a.md", None),
        ("todo.md", "#heading", None),
        ("todo.md", "image.png", None),
    ],
)
def test_resolve_link(note: str, href: str, path: str | None) -> None:
    assert resolve_link(note, href) == path
