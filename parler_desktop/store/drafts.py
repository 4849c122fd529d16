"""Drafts: what the human has typed in a room's composer and not sent yet, per room, with the
message it replies to, so switching rooms never carries text along and a restart loses none."""

from __future__ import annotations

from dataclasses import dataclass

from parler_desktop.store.database import StoreDatabase, guarded


@dataclass(frozen=True)
class Draft:
    room: str
    text: str
    reply_to: str | None = None  # the hub id of the message it answers
    reply_label: str = ""  # what the reply banner says ("alice: the question…")

    @property
    def empty(self) -> bool:
        return not self.text.strip() and self.reply_to is None


class DraftTables(StoreDatabase):
    """The draft methods of ``LocalStore``."""

    @guarded("reading a draft")
    def draft(self, room: str) -> Draft | None:
        row = self._db.execute("SELECT text, reply_to, reply_label FROM drafts WHERE room = ?", (room,)).fetchone()
        return None if row is None else Draft(room, row[0], row[1], row[2])

    @guarded("saving a draft")
    def save_draft(self, draft: Draft) -> None:
        """Keep ``draft`` as the room's draft; an empty one deletes it."""
        with self._write():
            if draft.empty:
                self._db.execute("DELETE FROM drafts WHERE room = ?", (draft.room,))
            else:
                self._db.execute(
                    "INSERT INTO drafts (room, text, reply_to, reply_label) VALUES (?, ?, ?, ?) ON CONFLICT (room) "
                    "DO UPDATE SET text = excluded.text, reply_to = excluded.reply_to, reply_label = excluded.reply_label",
                    (draft.room, draft.text, draft.reply_to, draft.reply_label),
                )
