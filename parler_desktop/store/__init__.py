"""The client's local SQLite store per (hub, identity): a cache (rooms, messages, cursors,
roster) and, in a file of its own beside it, what the human wrote (outbox, drafts).

``LocalStore`` is the synchronous store (one thread only); ``StoreWorker`` runs it on a dedicated
thread for asyncio code: ``await worker.call(LocalStore.max_seq, "team")``.
"""

from parler_desktop.store.errors import StoreError, StoreProblem
from parler_desktop.store.local_store import FreshStart, LocalStore
from parler_desktop.store.room_counts import RoomSummary
from parler_desktop.store.outbox_file import OutboxRecovery, outbox_path
from parler_desktop.store.worker import StoreWorker, open_for_session

__all__ = [
    "FreshStart", "LocalStore", "OutboxRecovery", "RoomSummary", "StoreError", "StoreProblem", "StoreWorker",
    "open_for_session", "outbox_path",
]
