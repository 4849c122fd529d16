"""Tooltips that quote wire text.

Qt shows a tooltip as rich text when it merely looks like HTML, so a name such as ``<img …>``
would be rendered. Text from the wire is therefore escaped inside an explicit rich-text shell:
it always reads as exactly the text it is.
"""

from __future__ import annotations

import html


def plain_tooltip(text: str) -> str:
    return "<qt>" + html.escape(text).replace("\n", "<br>") + "</qt>"
