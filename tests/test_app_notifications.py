"""Desktop notifications as the supervisor sees them: a fake freedesktop notification server on
a private session bus records every Notify, and the real window runs against a real hub.

What is counted is what a human would see: notifications on screen (a replacement updates the
one shown for its room) and how many Notify calls reached the server.
"""

from __future__ import annotations

import pytest
from support.desktop_fixtures import join_room, post_as, start_desktop, stop_desktop
from support.fault_proxy import FaultProxy
from support.private_bus import (  # noqa: F401 - fixtures
    bus_address,
    forge_action,
    look_away,
    needs_dbus,
    server,
    settled,
    watching,
)
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.hub.config import HubLimits

pytestmark = [needs_dbus, pytest.mark.timeout(90)]


@pytest.fixture
def hub(hub_factory):
    return hub_factory(limits=HubLimits().relaxed())  # 500 messages from one peer


def test_a_launch_after_500_messages_in_5_rooms_shows_one_summary_per_room(qtbot, qloop, server, watching, peer, hub):
    rooms = [join_room(qtbot, qloop, watching, peer, f"room-{n}") for n in range(5)]
    run_coroutine(qtbot, qloop, watching.bridge.session.stop())  # the laptop sleeps; the agents go on
    for room in rooms:
        for n in range(100):
            if n == 50:
                post_as(qtbot, qloop, peer, room, "@boss please look at this", mentions=["boss"])
            else:
                post_as(qtbot, qloop, peer, room, f"step {n}")
    assert run_coroutine(qtbot, qloop, watching.connect(hub.url))
    qtbot.waitUntil(
        lambda: all(
            watching.window.rooms.summary(room) and watching.window.rooms.summary(room).unread == 100 for room in rooms
        ),
        timeout=30_000,
    )
    qtbot.waitUntil(lambda: server.notify_calls >= 5 and settled(watching), timeout=15_000)
    assert server.notify_calls == 5
    assert sorted((shown.summary, shown.body) for shown in server.shown.values()) == [
        (room, "alice: 100 new, 1 for you") for room in rooms
    ]
    assert all(shown.actions == ["default", "Open", "open", "Open"] for shown in server.shown.values())


def test_a_laptop_that_sleeps_through_500_messages_wakes_to_one_summary_per_room(qtbot, qloop, server, hub, peer, tmp_path):
    proxy = run_coroutine(qtbot, qloop, FaultProxy("127.0.0.1", hub.port).start())
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    try:
        run_coroutine(qtbot, qloop, desktop.attention.start())
        rooms = [join_room(qtbot, qloop, desktop, peer, f"team-{n}") for n in range(5)]
        look_away(qtbot, desktop)
        proxy.stall()  # the lid closes: the socket stays open and carries nothing
        for n in range(100):
            for room in rooms:
                if n == 70 and room in rooms[:2]:
                    post_as(qtbot, qloop, peer, room, "@boss the deploy needs your approval", mentions=["boss"])
                else:
                    post_as(qtbot, qloop, peer, room, f"progress {n}")
        proxy.cut()  # the line died while asleep
        proxy.resume()
        desktop.bridge.notify_wake()  # logind says the machine woke up
        qtbot.waitUntil(
            lambda: all((s := desktop.window.rooms.summary(r)) is not None and s.unread == 100 for r in rooms), timeout=30_000
        )
        qtbot.waitUntil(lambda: server.notify_calls >= 2 and settled(desktop), timeout=15_000)
        assert sorted((shown.summary, shown.body) for shown in server.shown.values()) == [
            (room, "alice: 100 new, 1 for you") for room in rooms[:2]
        ]  # the three rooms with nothing for the human stay quiet under the default rules
        assert server.notify_calls == 2
    finally:
        stop_desktop(qtbot, qloop, desktop)
        run_coroutine(qtbot, qloop, proxy.close())


def test_a_burst_is_one_notification_and_the_next_message_replaces_it(qtbot, qloop, server, watching, peer):
    room = join_room(qtbot, qloop, watching, peer, "incident-db")
    for n in range(30):
        post_as(
            qtbot,
            qloop,
            peer,
            room,
            f"@boss line {n}" if n == 7 else f"line {n}",
            **({"mentions": ["boss"]} if n == 7 else {}),
        )
    qtbot.waitUntil(lambda: server.notify_calls == 1 and settled(watching), timeout=15_000)
    (shown,) = server.shown.values()
    assert (shown.summary, shown.body) == ("incident-db", "alice: 30 new, 1 for you")
    post_as(qtbot, qloop, peer, room, "@boss the database is back\nsecond line", mentions=["boss"])
    qtbot.waitUntil(lambda: server.notify_calls == 2 and settled(watching), timeout=15_000)
    (replaced,) = server.shown.values()  # replaced, not stacked
    assert replaced.id == shown.id and replaced.calls == 2
    assert (replaced.summary, replaced.body) == ("alice in incident-db", "@boss the database is back second line")


def test_a_click_that_reaches_us_before_the_notify_reply_still_opens_the_message(qtbot, qloop, server, watching, peer):
    """A fast human (or a busy loop) clicks the notification before our Notify call has returned
    its id: the click names an id we do not know yet, and is kept until the reply names it."""
    first = join_room(qtbot, qloop, watching, peer, "first")
    wanted = join_room(qtbot, qloop, watching, peer, "wanted")
    window = watching.window
    assert window.room_panel.select_room(first)
    qtbot.waitUntil(lambda: window.timeline_model.room == first, timeout=5000)
    server.click_before_reply = "default"
    sent = post_as(qtbot, qloop, peer, wanted, "@boss need a decision", mentions=["boss"])
    qtbot.waitUntil(lambda: window.timeline_model.room == wanted and window.timeline_model.newest_seq == sent["seq"], timeout=10_000)


def test_open_shows_the_window_at_that_message_and_only_the_service_can_ask(
    qtbot, qloop, server, watching, peer, bus_address
):
    first = join_room(qtbot, qloop, watching, peer, "first")
    wanted = join_room(qtbot, qloop, watching, peer, "wanted")
    window = watching.window
    assert window.room_panel.select_room(first)
    qtbot.waitUntil(lambda: window.timeline_model.room == first, timeout=5000)
    for n in range(120):  # more than a page: opening must load back to the message
        post_as(qtbot, qloop, peer, wanted, f"filler {n}")
    sent = post_as(qtbot, qloop, peer, wanted, "@boss need a decision", mentions=["boss"])
    for n in range(80):
        post_as(qtbot, qloop, peer, wanted, f"after {n}")
    qtbot.waitUntil(lambda: server.notify_calls == 1 and settled(watching), timeout=20_000)
    (shown,) = server.shown.values()
    opened = []
    watching.attention.desktop.opened.connect(lambda room, seq, _hub: opened.append((room, seq)))
    run_coroutine(
        qtbot, qloop, forge_action(bus_address, shown.id, watching.attention.desktop.bus_name)
    )  # not the service: ignored
    run_coroutine(qtbot, qloop, server.invoke(shown.id, "default"))
    qtbot.waitUntil(lambda: window.timeline_model.room == wanted, timeout=5000)

    def at_message() -> bool:
        entry = window.timeline_model.entry(window.timeline.currentIndex().row())
        return entry is not None and entry.seq == sent["seq"]

    qtbot.waitUntil(at_message, timeout=10_000)
    assert opened == [(wanted, sent["seq"])]
    assert window.timeline.visualRect(window.timeline.currentIndex()).intersects(window.timeline.viewport().rect())
