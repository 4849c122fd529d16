"""The everyday message as runs of text, for building its document without Qt's Markdown importer.

Most of what agents say is one line with at most some **strong**, *emphasis* and `code` in it.
Qt's importer (a full Markdown parser) and the code shading after it were the costliest steps
of a pushed message's way to the screen, more than laying the text out or painting it. For
such a line the runs are found here; ``markdown.fill_document`` inserts them with the very
formats the importer gives them, so the document is the one the importer would build, shading
included (``tests/test_ui_inline_markdown.py`` checks that against the importer for generated
lines).

Anything the rules below are not sure of — other Markdown, a link, a second line, a delimiter
in a place where Markdown's flanking rules could read it either way — returns None, and the
caller takes the importer's way.
"""

from __future__ import annotations

import re

Run = tuple[str, str]  # (text, kind): one of KINDS
KINDS = frozenset({"plain", "strong", "emphasis", "code"})

# Characters that may make Markdown other than the three kinds of run, outside code (inside it
# they are literal): escapes, HTML and autolinks, entities, links and images, underscore
# emphasis, strikethrough, tables, email autolinks.
_OTHER_MARKDOWN = re.compile(r"[\\<>&\[\]_~|@]")
# Anywhere: the starts of web autolinks, and of the message-link addresses the importer's caller
# turns into links.
_ADDRESS = re.compile(r"://|www\.", re.IGNORECASE)
# What can open a block at the start of a line: a list (bulleted or numbered), a quote, a
# heading, a rule.
_BLOCK_OPENING = re.compile(r"[-+>#=]|\* |\d+[.)]")
_CLOSER_FOLLOWED_BY = frozenset(".,:;!?)")  # after a closing delimiter that follows a letter


def inline_runs(text: str) -> list[Run] | None:
    """``text`` as runs, if it is one line of plain text with strong, emphasis and code only."""
    if not text.isprintable() or text != text.strip() or _ADDRESS.search(text) or _BLOCK_OPENING.match(text):
        return None  # (printable: no newline, tab or other space than U+0020)
    pieces = text.split("`")
    if len(pieces) % 2 == 0 or "``" in text:
        return None  # a backtick left unpaired, or a longer backtick string (it pairs only with its like)
    runs: list[Run] = []
    for number, piece in enumerate(pieces):
        if number % 2:
            if piece != piece.strip():
                return None  # spaces Markdown would trim
            runs.append((piece, "code"))
            continue
        found = None if _OTHER_MARKDOWN.search(piece) else _emphasis_runs(piece, number > 0, number < len(pieces) - 1)
        if found is None:
            return None
        runs.extend(found)
    return [run for run in runs if run[0]]


def _emphasis_runs(piece: str, after_code: bool, before_code: bool) -> list[Run] | None:
    """The runs of ``piece`` (text outside code): plain text, and ``**strong**`` or ``*emphasis*``
    opened after a space (or the start) and closed before a space, the end, or punctuation that
    follows a letter or digit; not nested. Any other asterisk, or a delimiter touching code: None."""
    runs: list[Run] = []
    start = 0  # of the plain text not yet in runs
    while (opening := piece.find("*", start)) >= 0:
        inner = opening
        while inner < len(piece) and piece[inner] == "*":
            inner += 1
        width = inner - opening
        closing = piece.find("*", inner)
        if width > 2 or closing < 0 or inner == closing:
            return None
        end = closing
        while end < len(piece) and piece[end] == "*":
            end += 1
        before = piece[opening - 1] if opening else ("`" if after_code else " ")
        following = piece[end] if end < len(piece) else ("`" if before_code else " ")
        content = piece[inner:closing]
        if end - closing != width or before != " " or content[0] == " " or content[-1] == " ":
            return None
        if following != " " and not (following in _CLOSER_FOLLOWED_BY and content[-1].isalnum()):
            return None
        runs += [(piece[start:opening], "plain"), (content, "strong" if width == 2 else "emphasis")]
        start = end
    runs.append((piece[start:], "plain"))
    return runs
