"""Markdown from the wire rendered as rich text that can neither run HTML nor fetch anything.

Agents write Markdown; the text is untrusted. Qt's importer builds the document through text
cursors (no HTML parser involved) and ``MarkdownNoHTML`` keeps raw HTML as literal text. Images
are the one way Markdown could make us load something, so the document never loads a resource
and every image is replaced by its address as plain text.

Headings are sized for a chat line, not a document title: only a little larger than the body.
A single newline is a line break, as people (and agents) mean it in a chat, not a space as in
Markdown. Code, fenced or inline, is shaded; its long lines wrap instead of being cut off.
Links and the shade carry the colours of the scheme shown when the document was made.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import re

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFragment,
    QTextOption,
)

from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.timeline.inline_markdown import KINDS, inline_runs
from parler_desktop.ui.timeline.message_links import link_message_addresses

FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)

HEADING_SCALE = {1: 1.3, 2: 1.15}  # deeper levels: body size, bold
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
INLINE_SAMPLE = "plain **strong** *emphasis* `code`"  # a run of each kind (``inline_markdown``)


@dataclass(frozen=True)
class InlineFormats:
    """How the importer's documents of one font show a paragraph and each kind of run."""

    block: QTextBlockFormat
    runs: dict[str, QTextCharFormat]


class SafeTextDocument(QTextDocument):
    """A QTextDocument that refuses every external resource (images, style sheets)."""

    inline_formats: InlineFormats | None = None  # set while blank: the formats of the everyday line

    def loadResource(self, type: int, name: QUrl) -> Any:  # noqa: A002 - Qt's signature
        return None


def markdown_document(text: str, font: QFont | None = None) -> SafeTextDocument:
    return fill_document(blank_document(font), text)


def blank_document(font: QFont | None = None) -> SafeTextDocument:
    """An empty document set up for a message body (``fill_document`` gives it the text).

    Making one is about half the cost of a short message's document, so the timeline keeps one
    made ahead while idle (``LayoutCache``). Its one block already has the format of the everyday
    line's paragraph (the importer sets its own)."""
    document = SafeTextDocument()
    document.setDocumentMargin(0)
    if font is not None:
        document.setDefaultFont(font)
    option = document.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)  # a long path or log line wraps
    document.setDefaultTextOption(option)
    document.inline_formats = _inline_formats(document.defaultFont())
    if document.inline_formats is not None:
        QTextCursor(document).setBlockFormat(document.inline_formats.block)
    return document


def fill_document(document: SafeTextDocument, text: str) -> SafeTextDocument:
    """``document`` (blank) holding ``text`` rendered from Markdown (one line of plain text,
    strong, emphasis and code without the importer: ``inline_markdown``)."""
    runs = inline_runs(text)
    if runs is None or document.inline_formats is None:
        return import_markdown(document, text)
    formats, cursor = document.inline_formats.runs, QTextCursor(document)
    for run, kind in runs:
        cursor.insertText(run, formats[kind])
    return document


def import_markdown(document: SafeTextDocument, text: str) -> SafeTextDocument:
    """``document`` (blank) holding ``text`` as Qt's Markdown importer reads it, then made safe
    and shaded (any Markdown; ``fill_document`` takes it when the line is not an everyday one)."""
    document.setMarkdown(with_hard_breaks(text), FEATURES)
    if "![" in text:  # the only Markdown that makes an image (inline or by reference)
        _replace_images(document)
    if "#" in text or "==" in text or "--" in text:  # the only Markdown that makes a heading
        _scale_headings(document)
    if "parler://" in text:
        link_message_addresses(document)
    if "`" in text or "~~~" in text or "    " in text:
        _shade_code(document, text)
    return document


_INLINE_FORMATS: dict[tuple[str, str], InlineFormats | None] = {}  # by the document's font and the code shade


def code_shade() -> QColor:
    """Code's ground: the scheme's translucent shade, over whatever row it is on."""
    return QColor(theme.colours.code_shade)


def _inline_formats(font: QFont) -> InlineFormats | None:
    """The formats the importer gives a paragraph and each kind of run in a document of ``font``
    (its margins and code's size follow the font), code's shaded as ``_shade_code`` leaves it:
    read once per font from what it made of ``INLINE_SAMPLE``. None if some kind of run is not
    found there as a run of its own (another Qt might split it otherwise): then every line takes
    the importer's way."""
    key = (font.key(), theme.colours.code_shade)
    if key not in _INLINE_FORMATS:
        sample = QTextDocument()
        sample.setDefaultFont(font)
        sample.setMarkdown(INLINE_SAMPLE, FEATURES)
        runs = {kind: QTextCharFormat(f.charFormat()) for f in _fragments(sample.begin()) if (kind := f.text().strip()) in KINDS}
        if runs.keys() == KINDS:
            runs["code"].setBackground(code_shade())
            _INLINE_FORMATS[key] = InlineFormats(QTextBlockFormat(sample.begin().blockFormat()), runs)
        else:
            _INLINE_FORMATS[key] = None
    return _INLINE_FORMATS[key]


def with_hard_breaks(text: str) -> str:
    """``text`` with each single newline outside code blocks made a line break, as in a chat.

    Markdown would join such lines, so each becomes a hard break; except in a list, where Qt
    turns a hard break into one more (numbered) item: there an indented line under an item is a
    line break inside it (U+2028) unless it is an item itself (nested), and a line that is neither
    an item nor indented ends the list (Markdown would carry it on as part of the last item).
    """
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    in_list = False
    joined = False  # this line was an indented continuation, already joined to its item
    for number, line in enumerate(lines):
        out.append(line)
        if number == len(lines) - 1:
            break
        following = lines[number + 1]
        opening = _FENCE.match(line)
        if fence is not None or opening is not None:
            if fence is None:
                fence = opening.group(1)  # type: ignore[union-attr]
            elif opening is not None and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            out.append("\n")
            continue
        in_list = bool(_LIST_ITEM.match(line)) or (in_list and joined)
        joined = False
        if not (line.strip() and following.strip()) or _FENCE.match(following):
            out.append("\n")
        elif in_list and _LIST_ITEM.match(following.lstrip(" \t")):
            out.append("\n")  # the next item, or one nested under this (indented as typed)
        elif in_list and following.startswith((" ", "\t")):
            out.append("\u2028")
            lines[number + 1], joined = following.lstrip(" \t"), True
        elif in_list:
            out.append("\n\n")  # a blank line: the list ends here
        else:
            out.append("\n" if line.endswith(("  ", "\\")) else "  \n")
    return "".join(out)


def _shade_code(document: QTextDocument, text: str) -> None:
    """Code blocks and inline code on a shaded ground; code blocks may wrap their lines.

    Inline code is what the importer set in a fixed-pitch font outside code blocks. (Finding it
    by searching for its words shaded the wrong characters when the same characters ran up to
    it: in ``a`aa` `` the search found the plain ``a`` and the first of code.)"""
    code = QTextCharFormat()
    code.setBackground(code_shade())
    spans: list[tuple[int, int]] = []
    block = document.begin()
    while block.isValid():
        if block.blockFormat().nonBreakableLines():
            shaded = QTextBlockFormat()
            shaded.setNonBreakableLines(False)
            shaded.setBackground(code_shade())
            QTextCursor(block).mergeBlockFormat(shaded)
        elif "`" in text:
            spans += [(f.position(), f.length()) for f in _fragments(block) if f.charFormat().fontFixedPitch()]
        block = block.next()
    cursor = QTextCursor(document)
    for position, length in spans:
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(code)


def _scale_headings(document: QTextDocument) -> None:
    """Replace the importer's title sizes (up to twice the body) with HEADING_SCALE."""
    base = document.defaultFont()
    block = document.begin()
    while block.isValid():
        level = block.blockFormat().headingLevel()
        if level > 0:
            cursor = QTextCursor(block)
            cursor.setBlockCharFormat(_heading_format(block.charFormat(), base, level))
            for fragment in _fragments(block):
                cursor.setPosition(fragment.position())
                cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(_heading_format(fragment.charFormat(), base, level))
        block = block.next()


def _fragments(block: QTextBlock) -> Iterator[QTextFragment]:
    """The block's valid text fragments (runs of one character format), in order."""
    iterator = block.begin()
    while not iterator.atEnd():
        fragment = iterator.fragment()
        if fragment.isValid():
            yield fragment
        iterator += 1


def _heading_format(current: QTextCharFormat, base: QFont, level: int) -> QTextCharFormat:
    """``current`` (which keeps a code span's font or a link) at the heading's size, bold."""
    heading = QTextCharFormat(current)
    heading.clearProperty(QTextFormat.Property.FontSizeAdjustment)
    scale = HEADING_SCALE.get(level, 1.0)
    if base.pointSizeF() > 0:
        heading.setFontPointSize(base.pointSizeF() * scale)
    else:
        heading.setProperty(QTextFormat.Property.FontPixelSize, round(base.pixelSize() * scale))
    heading.setFontWeight(QFont.Weight.Bold)
    return heading


def _replace_images(document: QTextDocument) -> None:
    images: list[tuple[int, int, str]] = []
    block = document.begin()
    while block.isValid():
        for fragment in _fragments(block):
            if fragment.charFormat().isImageFormat():
                name = fragment.charFormat().toImageFormat().name()
                images.append((fragment.position(), fragment.length(), name))
        block = block.next()
    for position, length, name in reversed(images):
        cursor = QTextCursor(document)
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[image: {name}]", QTextCharFormat())
