"""Markdown reduced to the words a reader sees, for one-line previews (the room list).

The timeline renders Markdown; a preview line is plain text, so syntax has to go: links keep
their text, images become "[image]", a table's cells are set apart by " · " (its pipes and
divider go), and emphasis, heading, quote and list markers, code fences and backticks are dropped. Code (fenced or inline) and backslash-escaped characters are kept as
written. Regex-based and approximate by design: a preview is a glimpse, not a renderer.
"""

from __future__ import annotations

import re

SCAN_CHARS = 2000  # a preview shows far less; a huge message must not cost a long scan

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S+.*$")
_RULE_OR_UNDERLINE = re.compile(r"^ {0,3}(?:[-=_*]\s*){3,}$|^ {0,3}=+\s*$")
_TABLE_DIVIDER = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_QUOTE = re.compile(r"^ {0,3}(?:>\s?)+")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s+|$)(.*?)(?:\s+#+)?\s*$")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_CELL_EDGE = re.compile(r"^\s*\||(?<!\\)\|\s*$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_DESTINATION = r"(?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\]\n]*\])"  # (address "title") or [reference]
_IMAGE = re.compile(r"!\[[^\]]*\]" + _DESTINATION)
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]" + _DESTINATION)
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_STAR_EMPHASIS = re.compile(r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")
_WHITESPACE = re.compile(r"\s+")
_BLOCK_STARTS = "[-=_*|:"  # a reference definition, a rule or underline, a table divider
_LIST_STARTS = "-*+0123456789"
_KEPT_OPEN, _KEPT_CLOSE = "\ue000", "\ue001"  # private use: around the number of a kept text
_KEPT = re.compile(f"{_KEPT_OPEN}(\\d+){_KEPT_CLOSE}")


def plain_text(markdown: str, scan_chars: int = SCAN_CHARS) -> str:
    """The first ``scan_chars`` of ``markdown`` as one line of plain text, whitespace collapsed."""
    kept: list[str] = []  # code and escaped characters, put back after the syntax is gone

    def keep(text: str) -> str:
        kept.append(text)
        return f"{_KEPT_OPEN}{len(kept) - 1}{_KEPT_CLOSE}"

    lines: list[str] = []
    fence: str | None = None
    # The two characters that mark kept text are the message's own nowhere else: a body that
    # holds them (garbled or hostile) must not be read as pointing at kept text.
    scanned = markdown[:scan_chars].replace(_KEPT_OPEN, "\ufffd").replace(_KEPT_CLOSE, "\ufffd")
    fences = "`" in scanned or "~" in scanned
    scanned_lines = scanned.splitlines()
    table_rows = _table_rows(scanned_lines) if "|" in scanned else set()
    for number, line in enumerate(scanned_lines):
        opening = _FENCE.match(line) if fences else None
        if fence is not None:
            if opening is not None and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            else:
                lines.append(keep(line))
            continue
        if opening is not None:
            fence = opening.group(1)
            continue
        lines.append(_table_row(line) if number in table_rows else _block_text(line))
    text = "\n".join(lines)
    # Each pattern runs only where its syntax's characters occur: most messages are plain
    # sentences, and this runs on the store's thread for every message stored (its search words).
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: keep(m.group(2).strip()), text)
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: keep(m.group(1)), text)
    if "[" in text:
        text = _IMAGE.sub("[image]", text)
        text = _LINK.sub(r"\1", text)
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
    if "**" in text or "__" in text:
        text = _STRONG.sub(r"\2", text)
    if "~~" in text:
        text = _STRIKE.sub(r"\1", text)
    if "*" in text:
        text = _STAR_EMPHASIS.sub(r"\1", text)
    if "_" in text:
        text = _UNDERSCORE_EMPHASIS.sub(r"\1", text)
    if kept:
        text = _KEPT.sub(lambda m: kept[int(m.group(1))], text)
    return _WHITESPACE.sub(" ", text).strip()


def _table_rows(lines: list[str]) -> set[int]:
    """The numbers of the lines that are a table's rows: the header above a divider, the rows
    below it up to the first line that holds no cell border, and any line that starts with one."""
    rows: set[int] = set()
    for number, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            rows.add(number)
        elif "|" in line and "-" in line and _TABLE_DIVIDER.match(line):
            rows.add(number - 1)
            below = number + 1
            while below < len(lines) and "|" in lines[below]:
                rows.add(below)
                below += 1
    return rows


def _table_row(line: str) -> str:
    """A table row's cells set apart by " · " (a divider row: nothing)."""
    if _TABLE_DIVIDER.match(line):
        return ""
    cells = (cell.strip() for cell in _CELL_BORDER.split(_CELL_EDGE.sub("", line.strip())))
    return " · ".join(cell for cell in cells if cell)


def _block_text(line: str) -> str:
    """One line outside code blocks without its block syntax (quote, heading, list, rules)."""
    first = line.lstrip()[:1]  # each block syntax starts with one of a few characters
    if first and first in _BLOCK_STARTS and (
        _REFERENCE_DEFINITION.match(line) or _RULE_OR_UNDERLINE.match(line) or _TABLE_DIVIDER.match(line)
    ):
        return ""
    if first == ">":
        line = _QUOTE.sub("", line)
        first = line.lstrip()[:1]
    if "#" in line:
        heading = _HEADING.match(line)
        if heading is not None:
            return heading.group(1)
    return _LIST_MARKER.sub("", line) if first and first in _LIST_STARTS else line
