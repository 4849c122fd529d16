"""Messages from a hub or a library, as sentences a person reads in a dialog or a status line."""

from __future__ import annotations

from parler_desktop.app.display_text import NOTICE_CHARS, display_text


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop (a hub's lower-case message), shown
    as ``display_text`` shows a notice (a hub writes it)."""
    text = " ".join(display_text(str(text), NOTICE_CHARS).split()) or "Something went wrong"
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."
