"""Messages from a hub or a library, as sentences a person reads in a dialog or a status line."""

from __future__ import annotations


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop (a hub's lower-case message)."""
    text = " ".join(str(text).split()) or "Something went wrong"
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."
