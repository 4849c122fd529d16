"""Links to messages inside a message's text: a bare ``parler://…/room/ROOM/SEQ`` (as "Copy
link" puts it on the clipboard) becomes a link that opens the message here; Qt's Markdown only
links bare web addresses by itself. Code is left alone."""

from __future__ import annotations

import re

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument

from parler_desktop.client.message_link import is_message_link

BARE_LINK = re.compile(r"parler://[^\s<>()\[\]`]+/room/[^\s<>()\[\]`]+/\d+")


def link_message_addresses(document: QTextDocument) -> None:
    found: list[tuple[int, int, str]] = []
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            iterator += 1
            style = fragment.charFormat()
            if not fragment.isValid() or style.isAnchor() or style.fontFixedPitch():
                continue
            for match in BARE_LINK.finditer(fragment.text()):
                if is_message_link(match.group()):
                    found.append((fragment.position() + match.start(), len(match.group()), match.group()))
        block = block.next()
    for position, length, href in found:
        cursor = QTextCursor(document)
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setAnchorHref(href)
        link.setFontUnderline(True)
        cursor.mergeCharFormat(link)
