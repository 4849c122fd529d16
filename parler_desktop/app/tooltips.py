"""Tooltips that quote wire text.

Qt shows a tooltip as rich text when it merely looks like HTML, so a name such as ``<img …>``
would be rendered. Text from the wire is therefore escaped inside an explicit rich-text shell:
it always reads as exactly the text it is, lines kept as given (Qt would wrap an address anywhere).
"""

from __future__ import annotations

import html


def plain_tooltip(text: str, wrap: bool = False) -> str:
    """``wrap``: long lines break at spaces (a sentence, not an address)."""
    return f'<p style="white-space:{"pre-wrap" if wrap else "pre"}">' + html.escape(text) + "</p>"
