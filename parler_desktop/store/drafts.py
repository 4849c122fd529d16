"""Drafts: what the human has typed in a room's composer and not sent yet, per room, with the
message it replies to, so switching rooms never carries text along and a restart loses none.
They live in the outbox file (``outbox_file.py``), which no fresh cache touches."""

from __future__ import annotations

from parler_desktop.store.database import StoreDatabase, guarded
from parler_desktop.store.outbox_item import Draft

__all__ = ["Draft", "DraftTables"]


class DraftTables(StoreDatabase):
    """The draft methods of ``LocalStore``."""

    @guarded("reading a draft", outbox=True)
    def draft(self, room: str) -> Draft | None:
        row = self._outbox.db.execute(
            "SELECT text, reply_to, reply_label FROM drafts WHERE room = ?", (room,)
        ).fetchone()
        return None if row is None else Draft(room, row[0], row[1], row[2])

    @guarded("saving a draft", outbox=True)
    def save_draft(self, draft: Draft) -> None:
        """Keep ``draft`` as the room's draft; an empty one deletes it."""
        with self._outbox.write():
            if draft.empty:
                self._outbox.db.execute("DELETE FROM drafts WHERE room = ?", (draft.room,))
            else:
                self._outbox.db.execute(
                    "INSERT INTO drafts (room, text, reply_to, reply_label) VALUES (?, ?, ?, ?) ON CONFLICT (room) "
                    "DO UPDATE SET text = excluded.text, reply_to = excluded.reply_to, reply_label = excluded.reply_label",
                    (draft.room, draft.text, draft.reply_to, draft.reply_label),
                )
