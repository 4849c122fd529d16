"""Waking after a night away, the sidebar counts and shows what the pulls brought before the store
has written it (a catch-up's writes wait for its pulls: client/page_writer.py), and never counts
a message twice once it is written, even when the line drops before the writes are done.

The writes are held by taking the process's write turn (``page_writer.write_turn``): every pulled
page waits for it, so what the sidebar shows meanwhile can only come from the pulls."""

from __future__ import annotations

import pytest
from support.fault_proxy import FaultProxy
from support.private_bus import look_away
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_hubs import quit_app, rows, run_app
from test_journey_hubs_failures import home_holding, joined

from parler_desktop.app import roles
from parler_desktop.client.page_writer import write_turn
from parler_desktop.store import LocalStore

pytestmark = pytest.mark.timeout(120)
NIGHT = 30  # messages into "team" while the lid is closed


def preview(window, hub: str, room: str) -> str:
    proxy = window.room_panel.proxy
    for row in range(proxy.rowCount()):
        index = proxy.index(row, 0)
        if index.data(roles.HUB_URL) == hub and index.data(roles.ROOM_NAME) == room:
            return index.data(roles.ROOM_PREVIEW) or ""
    return ""


def asleep_while(qtbot, qloop, proxy: FaultProxy, alice: RawAgent, notes: range) -> None:
    """The lid closes, alice writes ``notes`` into "team", the line dies; the network is back."""
    proxy.stall()
    for n in notes:
        frame = {"op": "send", "target": {"kind": "room", "room": "team"}, "parts": [{"kind": "text", "text": f"night note {n}"}]}
        run_coroutine(qtbot, qloop, alice.ok(frame, "sent"))
    proxy.cut()
    proxy.resume()


def stored(qtbot, qloop, entry) -> int:
    return run_coroutine(qtbot, qloop, entry.bridge.store.call(LocalStore.message_count, "team"))


async def take_write_turn() -> None:
    await write_turn().acquire()


async def give_write_turn() -> None:
    write_turn().release()


def test_a_wake_shows_each_rooms_count_and_last_message_as_pulled_before_they_are_written(qtbot, qloop, tmp_path, hub_factory):
    hub = hub_factory()
    proxy = run_coroutine(qtbot, qloop, FaultProxy("127.0.0.1", hub.port).start())
    alice = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice"))
    app, running = run_app(qtbot, qloop, home_holding(tmp_path / "home", proxy.url))
    held = False
    try:
        window = app.window
        entry = app.hubs.entries[0]
        qtbot.waitUntil(lambda: entry.bridge.is_live, timeout=30_000)
        joined(qtbot, qloop, app, alice, proxy.url, "team")
        look_away(qtbot, app)  # nothing gets read

        asleep_while(qtbot, qloop, proxy, alice, range(NIGHT))
        run_coroutine(qtbot, qloop, take_write_turn())
        held = True
        entry.bridge.notify_wake()
        qtbot.waitUntil(lambda: (proxy.url, "team", NIGHT) in rows(window), timeout=30_000)
        assert preview(window, proxy.url, "team") == f"alice: night note {NIGHT - 1}"
        assert window.windowTitle() == f"Parler — {NIGHT} unread"
        assert stored(qtbot, qloop, entry) == 0  # all of it from the pulls: the store has not written a page yet
        run_coroutine(qtbot, qloop, give_write_turn())
        held = False
        qtbot.waitUntil(lambda: entry.bridge.is_live and stored(qtbot, qloop, entry) == NIGHT, timeout=30_000)
        qtbot.waitUntil(lambda: not entry.rooms._timer.isActive(), timeout=5000)  # the reload after the writes
        assert (proxy.url, "team", NIGHT) in rows(window)  # counted once, from the store now
        assert window.windowTitle() == f"Parler — {NIGHT} unread"

        asleep_while(qtbot, qloop, proxy, alice, range(NIGHT, 2 * NIGHT))  # another night
        run_coroutine(qtbot, qloop, take_write_turn())
        held = True
        entry.bridge.notify_wake()
        qtbot.waitUntil(lambda: (proxy.url, "team", 2 * NIGHT) in rows(window), timeout=30_000)
        assert stored(qtbot, qloop, entry) == NIGHT
        proxy.cut()  # and the line drops before the pages are written
        run_coroutine(qtbot, qloop, give_write_turn())
        held = False
        qtbot.waitUntil(lambda: entry.bridge.is_live and stored(qtbot, qloop, entry) == 2 * NIGHT, timeout=30_000)
        qtbot.waitUntil(lambda: not entry.rooms._timer.isActive(), timeout=5000)
        assert (proxy.url, "team", 2 * NIGHT) in rows(window)
        assert preview(window, proxy.url, "team") == f"alice: night note {2 * NIGHT - 1}"
        assert window.windowTitle() == f"Parler — {2 * NIGHT} unread"
    finally:
        if held:
            run_coroutine(qtbot, qloop, give_write_turn())
        quit_app(qtbot, app, running)
        run_coroutine(qtbot, qloop, alice.close())
        run_coroutine(qtbot, qloop, proxy.close())
