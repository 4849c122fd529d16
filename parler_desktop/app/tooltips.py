"""Tooltips that quote wire text.

Qt shows a tooltip as rich text when it merely looks like HTML, so a name such as ``<img …>``
would be rendered (and the file it names loaded). Text from the wire is therefore escaped inside
an explicit rich-text shell: it always reads as exactly the text it is, lines kept as given (Qt
would wrap an address anywhere), each line as ``display_text`` shows it, a few lines at most.
"""

from __future__ import annotations

import html

from parler_desktop.app.display_text import NOTICE_CHARS, display_text

MAX_LINES = 12


def plain_tooltip(text: str, wrap: bool = False) -> str:
    """``wrap``: long lines break at spaces (a sentence, not an address)."""
    lines = [display_text(line, NOTICE_CHARS) for line in text.split("\n", MAX_LINES)[:MAX_LINES]]
    return f'<p style="white-space:{"pre-wrap" if wrap else "pre"}">' + html.escape("\n".join(lines)) + "</p>"
