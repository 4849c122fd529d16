"""The timeline's pages are read beside the store's writes (``StoreWorker.read``): a message
stored while a page is being read may be in the page or not, and is shown once either way.

The session is support.stored_session's stand-in over a real store, so a test can put a write
and its announcement exactly between the page's read and the model taking it in.
"""

from __future__ import annotations

import asyncio
import threading

from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import add_messages, bridge, message, session, store, store_call  # noqa: F401

from parler_desktop.client.events import MessagesStored
from parler_desktop.store import LocalStore
from parler_desktop.app.timeline.timeline_model import PAGE_SIZE, TimelineModel


def shown(model: TimelineModel) -> list[int]:
    return [model.entry(row).seq for row in range(model.rowCount())]


def test_a_message_stored_while_the_next_page_is_read_is_shown_once(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 181)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 100)  # 80 unread: opens at the first
    model = TimelineModel(bridge)
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room("team")
    assert model.has_newer and shown(model) == list(range(81, 81 + PAGE_SIZE))
    answered = threading.Event()
    late = message(181, "team")

    def stored_before_the_page_is_taken_in() -> None:
        """On the loop's thread, once the reader has answered the page (without 181): 181 is
        stored (by a connection of its own, as the session's thread would) and announced."""
        assert answered.wait(10)
        writer = LocalStore(session.store.path)
        try:
            writer.insert_messages([late])
        finally:
            writer.close()
        session.emit(MessagesStored("team", (late,), True))

    async def scroll_down_while_storing() -> None:
        assert model.load_newer()  # its read is handed to the reader at the loop's next turn…
        marker = asyncio.ensure_future(session.store.read(lambda _store: answered.set()))  # …and this after it
        asyncio.get_running_loop().call_soon(stored_before_the_page_is_taken_in)
        await marker

    run_coroutine(qtbot, qloop, scroll_down_while_storing())
    qtbot.waitUntil(lambda: shown(model)[-1] == 181, timeout=5000)
    assert shown(model) == list(range(81, 182)) and not model.has_newer
