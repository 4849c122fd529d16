"""Journey: a window on a hub that floods it with frames it cannot read logs the fault once and
then counts it (issue 47: the window's log rotated through all five files), and stays live."""

from __future__ import annotations

import logging

import pytest
from support.desktop_fixtures import start_desktop, stop_desktop
from support.hostile_hub import HostileHub
from support.hub_lies import FLOOD, MalformedFlood
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(90)



def test_a_flood_of_unreadable_pushes_is_logged_once_and_counted(qtbot, qloop, hub, tmp_path, caplog):
    flood = MalformedFlood()
    proxy = HostileHub.in_thread(hub.url, flood)
    caplog.set_level(logging.INFO)
    try:
        app = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
        try:
            qtbot.waitUntil(flood.done.is_set, timeout=60_000)
            invited = run_coroutine(qtbot, qloop, app.bridge.invite("channel", "after"))  # the line still answers
            assert invited.room == "after"
            qtbot.waitUntil(lambda: "after" in app.window.rooms.room_names(), timeout=15_000)
            assert app.bridge.is_live
        finally:
            stop_desktop(qtbot, qloop, app)  # the session says the count as it stops
    finally:
        proxy.stop()
    said = [record.getMessage() for record in caplog.records if "malformed" in record.getMessage()]
    assert 1 <= len(said) <= 3, f"{len(said)} log lines: {said[:3]}"
    assert any(f"{FLOOD - 1} more like this" in line for line in said), said
