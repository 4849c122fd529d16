"""Text from a hub or a peer as the window shows it: a name, a notice, an error, in one line.

A hub names its rooms, and agents name themselves; a hub sends notices and error text. None of
it is trusted (issue 47): a room named with a megabyte of text made the window 32,767 px wide and
froze it while each paint laid the name out; one named ``rtl-\\u202egpj.exe`` read as
"rtl-exe.jpg". So what the window shows of such text is ``display_text(text)``:

- controls and bidirectional controls as U+FFFD (``protocol.readable``: the reader sees that
  something was there, and a name cannot reorder its neighbours), the Arabic letter mark and
  lone surrogates too (Qt cannot carry the latter);
- one line: each line break or tab is a space;
- at most ``limit`` characters, ending in "…" when cut: a widget sized to its text (a label, a
  dialog, a menu) then stays a reasonable size, and the layout of a paint stays cheap.

It is never rich text: labels showing it are ``Qt.PlainText``, and tooltips escape it
(``tooltips.plain_tooltip``), since Qt renders any tooltip that looks like HTML.
"""

from __future__ import annotations

import re

from parler_desktop.protocol.readable import readable

NAME_CHARS = 120  # a room, hub, agent or file name: wider than any panel shows, far below a screen's width
NOTICE_CHARS = 400  # a notice or an error sentence: a few lines of a dialog
_ALSO_UNREADABLE = re.compile("[\u061c\ud800-\udfff]")  # the Arabic letter mark; lone surrogates
_LINE_BREAKS = re.compile("[\n\t\u2028\u2029]")


def display_text(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` readable, on one line, at most ``limit`` characters (cut ones end in "…")."""
    cut = len(text) > limit
    line = _LINE_BREAKS.sub(" ", _ALSO_UNREADABLE.sub("\ufffd", readable(text[: limit - 1] if cut else text)))
    return line + "…" if cut else line


def one_line(text: str, limit: int = NAME_CHARS) -> str:
    """As ``display_text``, with every run of white space made one space: a list's cell or label."""
    return display_text(" ".join(text.split()), limit)
