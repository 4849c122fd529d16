"""Only web and mail links ever reach the desktop's opener, and the tooltip shows the real address."""

from __future__ import annotations

import pytest

from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.ui.timeline.links import link_tooltip, openable_url, shown_address


@pytest.mark.parametrize(
    ("href", "opened"),
    [
        ("https://docs.example/guide?page=2#intro", "https://docs.example/guide?page=2#intro"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/"),
        ("HTTPS://Docs.Example/", "https://docs.example/"),
        ("  https://docs.example/  ", "https://docs.example/"),
        ("https://exämple.org/", "https://xn--exmple-cua.org/"),  # a look-alike host shows as what it is
        ("mailto:ops@example.org", "mailto:ops@example.org"),
        ("mailto:ops@example.org?subject=hi&attach=/home/me/.ssh/id_rsa&body=x", "mailto:ops@example.org?subject=hi&body=x"),
    ],
)
def test_web_and_mail_links_open(href: str, opened: str):
    url = openable_url(href)
    assert url is not None and shown_address(url) == opened
    assert link_tooltip(href) == opened


@pytest.mark.parametrize(
    "href",
    [
        "file:///etc/passwd",
        "FILE:///C:/Windows/System32/calc.exe",
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "parler://127.0.0.1:7070/join/ABC",
        "vscode://file/etc/passwd",
        "smb://evil.example/share",
        "ftp://files.example/x",
        "http:",
        "https:///no-host",
        "//docs.example/protocol-relative",
        "docs/relative.md",
        "#fragment",
        "",
        "mailto:",
        "mailto://host/x",
        "https://bad host.example/",
    ],
)
def test_every_other_link_is_refused(href: str):
    assert openable_url(href) is None
    assert "Not opened" in link_tooltip(href)


def test_a_long_address_is_shown_whole_in_lines():
    href = "https://docs.example/" + "a" * 230
    assert link_tooltip(href) == "\n".join((href[:100], href[100:200], href[200:]))


def test_tooltips_quote_wire_text_as_text():
    assert plain_tooltip('<img src="file:///x"> & <b>bold</b>\nnext') == (
        '<p style="white-space:pre">&lt;img src=&quot;file:///x&quot;&gt; &amp; &lt;b&gt;bold&lt;/b&gt;\nnext</p>'
    )
