"""Which links in a message may be opened, and what the reader sees before clicking one.

Links come from untrusted Markdown. Only web pages (http, https, with a host) and mail addresses
(mailto) are handed to the desktop's opener: never file:, never custom schemes that start local
programs, never anything relative. A mailto link keeps only its subject and body, because some
mail programs attach local files named in other fields. The tooltip shows the address exactly as
it will be opened (hosts in their ASCII form), so a link whose text says one site while it points
to another is plain to see.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl, QUrlQuery

from parler_desktop.client.message_link import is_message_link, parse_message_link

WEB_SCHEMES = frozenset({"http", "https"})
MAIL_FIELDS_KEPT = ("subject", "body")
TOOLTIP_LINE_CHARS = 100


def openable_url(href: str) -> QUrl | None:
    """``href`` as a URL the desktop may open, or None when it must not be opened."""
    url = QUrl(href.strip(), QUrl.ParsingMode.StrictMode)
    if not url.isValid() or url.isRelative():
        return None
    scheme = url.scheme().lower()
    if scheme in WEB_SCHEMES:
        return url if url.host() else None
    if scheme == "mailto" and url.path() and not url.host():
        query = QUrlQuery(url)
        kept = QUrlQuery()
        for field in MAIL_FIELDS_KEPT:
            if query.hasQueryItem(field):
                kept.addQueryItem(field, query.queryItemValue(field, QUrl.ComponentFormattingOption.FullyEncoded))
        url.setQuery(kept)
        url.setFragment(None)
        return url
    return None


def shown_address(url: QUrl) -> str:
    """The URL as it will be opened, hosts in ASCII (punycode) so look-alike letters show."""
    return bytes(url.toEncoded()).decode("ascii")


def link_tooltip(href: str) -> str:
    """Plain text for the tooltip over a link (the caller must show it as plain text): the whole
    address, cut into lines so a long one still fits on the screen."""
    if is_message_link(href):
        link = parse_message_link(href)
        return f"{href}\nOpens message #{link.seq} of {link.room} here."
    url = openable_url(href)
    address = href if url is None else shown_address(url)
    lines = [address[start:start + TOOLTIP_LINE_CHARS] for start in range(0, len(address), TOOLTIP_LINE_CHARS)]
    if url is None:
        lines.append("Not opened: only http, https and mailto links open from messages.")
    return "\n".join(lines)
