"""What a timeline row says to a screen reader: "planner, 14:02: the build is green now".

A row is painted, not made of widgets, so Qt's accessibility reads it from the model
(``Qt.AccessibleTextRole``): the author, the time, what stands out (a mention of the human, a
signature that does not match, the state of the human's own post), then the text as rendered
(the view gives the painted document's words: ``MessageReading.plain_body``; Markdown syntax is
never read out), and each card in words ("handoff to supervisor: review the release notes").
The header's words (``shown_name``, ``format_time``, ``shows_role``) are the ones painted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from parler_desktop.app.display_text import display_text
from parler_desktop.app.timeline.cards import card_for
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.client.events import OutboxStatus
from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.protocol.readable import readable
from parler_desktop.protocol.values import SignatureState

WARNING = "⚠ The signature does not match: this message may have been altered or forged."
MAX_READ_CHARS = 2000  # a pasted build log is not read out whole (Copy text has it all)
POST_STATES = {OutboxStatus.PENDING: "queued", OutboxStatus.SENT: "sent", OutboxStatus.FAILED: "failed"}

Identity = tuple[str, str, str | None]  # the human's agent id, name and role on the hub


def shown_name(entry: TimelineEntry) -> str:
    """The sender's name as the row's header shows it (and is measured by): as ``display_text``
    shows a name, or the start of their id when they have none."""
    return display_text(entry.sender_name) or entry.sender_id[:8]


def shows_role(entry: TimelineEntry) -> bool:
    """A role is worth showing only when it says more than the name."""
    role = (entry.sender_role or "").strip().lower()
    return bool(role) and role != entry.sender_name.strip().lower()


def format_time(ts_ms: int) -> str:
    local = time.localtime(ts_ms / 1000)
    today = time.localtime()
    if (local.tm_year, local.tm_yday) == (today.tm_year, today.tm_yday):
        return time.strftime("%H:%M", local)
    return time.strftime("%d %b %H:%M", local)


def spoken(headline: str) -> str:
    """A card's painted title in words: its leading mark (a symbol, then a space) dropped, its
    arrow said."""
    mark, space, rest = headline.partition(" ")
    if space and len(mark) == 1 and not mark.isalnum() and mark not in "[(\"'“":
        headline = rest
    return headline.replace(" → ", " to ")


def post_state(entry: TimelineEntry, online: bool) -> str:
    """The state of the human's own post: queued (and why it waits), sent, failed (and why)."""
    if not entry.mine:
        return ""
    item = entry.outbox
    if item is None:
        return "sent"
    state = POST_STATES.get(item.status, "")
    if item.status is OutboxStatus.PENDING and not online:
        return f"{state}, waiting for the connection"
    if item.status is OutboxStatus.FAILED:
        return f"{state}: {item.error or 'unknown error'}"
    return state


def one_line(text: str) -> str:
    """``text`` readable (``protocol/readable.py``: a card's words come off the wire), its line
    breaks and runs of spaces as single spaces, cut at MAX_READ_CHARS."""
    text = " ".join(readable(text).split())
    return text if len(text) <= MAX_READ_CHARS else f"{text[:MAX_READ_CHARS]}… (more in the message)"


def sentences(pieces: list[str]) -> str:
    """The pieces one after the other, a full stop between two unless the first ends in one."""
    text = ""
    for piece in filter(None, pieces):
        text += (" " if text.endswith((".", "!", "?", ":", ";", "…")) else ". ") + piece if text else piece
    return text


class MessageReading:
    """A row's words for ``Qt.AccessibleTextRole`` (``TimelineRows.data`` asks)."""

    def __init__(self, identity: Callable[[], Identity], online: Callable[[], bool]) -> None:
        self._identity = identity
        self._online = online
        # The body as rendered: the view sets the words of the document it paints.
        self.plain_body: Callable[[TimelineEntry], str] = lambda entry: readable(entry.text)

    def text(self, entry: TimelineEntry, original: TimelineEntry | None, expanded: bool, open_cards: frozenset[int]) -> str:
        """"author[, role][, you], time[, flags]: [in reply to …. ]body[. card]…"; ``original``
        is the message it replies to when loaded, ``expanded`` whether a suspect body is shown,
        ``open_cards`` the cards the reader opened (read with every detail)."""
        my_id, my_name, my_role = self._identity()
        role = readable(entry.sender_role or "") if shows_role(entry) else ""
        head = [shown_name(entry), role, "you" if entry.mine else "", format_time(entry.ts_ms)]
        if not entry.mine and mentions_human(entry.sender_id, entry.parts, entry.mentions, my_id, my_name, my_role):
            head.append("mentions you")
        head.append(post_state(entry, self._online()))
        said: list[str] = []
        if entry.reply_to:
            said.append(f"in reply to {shown_name(original)}" if original is not None else "in reply to an earlier message")
        hidden = entry.signature is SignatureState.INVALID and not expanded
        if hidden:
            said.append(spoken(WARNING) + " The text is hidden: Show anyway shows it")
        elif entry.text.strip():
            said.append(one_line(self.plain_body(entry)))
        for number, part in enumerate(entry.extension_parts):
            card = card_for(part, my_name, my_role)
            details = ", ".join(card.more.splitlines()) if number in open_cards and card.more else card.detail
            said.append(", ".join(p for p in (spoken(card.title), one_line(details)) if p))
        return f"{', '.join(p for p in head if p)}: {sentences(said)}"
