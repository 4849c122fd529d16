"""A damaged local cache has a way out in the window: "Start with a fresh cache" sets the file
aside (kept, and named), refills from the hub and sends what was waiting in the outbox (a file
of its own, which no damage to the cache reaches), once."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.damaged_store import fill_and_damage, set_aside
from support.desktop_fixtures import join_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.client.outbox import build_item
from parler_desktop.identity import load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.store import LocalStore
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(60)


def start(qtbot, qloop, home: Home, hub_url: str) -> DesktopApp:
    app = DesktopApp(home, hub_url)
    app.window.show()
    run_coroutine(qtbot, qloop, app.connect(hub_url))
    return app


def stop(qtbot, qloop, app: DesktopApp) -> None:
    run_coroutine(qtbot, qloop, app.shutdown())
    app.window.close()


@pytest.mark.parametrize("how", ["garbled", "truncated"])
def test_start_with_a_fresh_cache_keeps_the_file_aside_and_sends_the_unsent(qtbot, qloop, tmp_path, hub, peer, how):
    home = Home.resolve(tmp_path / "home")
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    earlier = start(qtbot, qloop, home, hub.url)
    qtbot.waitUntil(lambda: earlier.bridge.is_live, timeout=15_000)
    team = join_room(qtbot, qloop, earlier, peer, "team")
    stop(qtbot, qloop, earlier)
    identity = load_or_create_identity(home.key_file)
    path = home.store_path(hub.url, identity.agent_id)
    store = LocalStore(path)  # the window had queued a message
    store.outbox_add(build_item(identity, team, "still unsent", created_at=time.time()))
    store.close()
    fill_and_damage(path, how)
    post_as(qtbot, qloop, peer, team, "while you were away")

    app = start(qtbot, qloop, home, hub.url)
    bar = app.window.connection_bar
    qtbot.waitUntil(bar.fresh_cache.isVisible, timeout=15_000)
    assert "damaged" in bar.text or "damaged" in app.window.statusBar().currentMessage()
    QTest.mouseClick(bar.fresh_cache, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.bridge.is_live and team in app.window.rooms.room_names(), timeout=15_000)
    aside = set_aside(path)
    assert len(aside) == 1 and not bar.fresh_cache.isVisible()
    notice = app.window.statusBar().currentMessage()
    assert str(aside[0]) in notice and "unsent message(s) will be sent" in notice  # 1, or 0 if it went out first

    texts = lambda: [  # noqa: E731
        m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, peer.ok({"op": "pull", "room": team, "since": 0}, "pulled"))["messages"]
    ]
    qtbot.waitUntil(lambda: "still unsent" in texts(), timeout=10_000)
    assert texts().count("still unsent") == 1 and "while you were away" in texts()
    stop(qtbot, qloop, app)
