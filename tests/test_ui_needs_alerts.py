"""Needs you's notifications in the real window, on a private session bus: one per item, naming
the agent, the kind and the question (and not a second from the notification rules); never again
after a reconnect; clicking one opens that item in the queue."""

from __future__ import annotations

import pytest
from support.desktop_fixtures import join_room, post_as
from support.needs_ops import human_request, task_on
from support.private_bus import bus_address, needs_dbus, server, settled, watching  # noqa: F401 - fixtures
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.app.needs_you.needs_rules import NeedKind

pytestmark = [needs_dbus, pytest.mark.timeout(60)]


def quiet(desktop) -> bool:
    alerts = desktop.attention.needs_alerts
    return settled(desktop) and not alerts._quiet.isActive() and not any(
        t.get_name().endswith(("notify", "notified", "notified items")) for e in desktop.hubs.entries for t in e.bridge.tasks.tasks
    )


def test_one_notification_per_item_not_again_after_a_reconnect_and_a_click_opens_it(qtbot, qloop, server, watching, peer, hub):
    from support.raw_agent import RawAgent

    desktop = watching
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    asked = human_request(qtbot, qloop, desktop.bridge, peer, room, "please build it")
    post_as(qtbot, qloop, peer, room, "yours", parts=[{"kind": "com.parler.handoff", "next": "review the patch", "to": "boss"}])
    question = task_on(qtbot, qloop, peer, room, asked, "awaiting", "which region?")
    post_as(qtbot, qloop, peer, room, "chatter")
    qtbot.waitUntil(lambda: len(server.shown) == 2 and quiet(desktop), timeout=15_000)
    shown = sorted((s.summary, s.body) for s in server.shown.values())
    assert shown == [("alice · Handoff to you · builds", "review the patch"), ("alice · Question · builds", "which region?")]
    assert server.notify_calls == 2  # the rules told nothing more about those two messages

    states: list[object] = []
    desktop.bridge.stateChanged.connect(lambda event: states.append(event.state))
    hub.restart()  # every line drops: the window reconnects and catches up
    qtbot.waitUntil(lambda: len(states) >= 2 and desktop.bridge.is_live, timeout=20_000)  # down, then live again
    again = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity=peer.identity, name="alice", role="planner"))
    post_as(qtbot, qloop, again, room, "more chatter")
    run_coroutine(qtbot, qloop, again.close())
    qtbot.waitUntil(lambda: quiet(desktop) and desktop.window.needs.count() == 2, timeout=15_000)
    assert server.notify_calls == 2

    (told,) = [s for s in server.shown.values() if s.summary.startswith("alice · Question")]
    run_coroutine(qtbot, qloop, server.invoke(told.id, "default"))
    view = desktop.window.needs_you.view
    qtbot.waitUntil(lambda: desktop.window.needs_you.showing and view.selected() is not None, timeout=5000)
    assert view.selected().item.kind is NeedKind.QUESTION and view.selected().item.message_id == question["id"]

    (handoff,) = [s for s in server.shown.values() if s.summary.startswith("alice · Handoff")]
    assert handoff.actions[-2:] == ["reply", "Reply"]
    run_coroutine(qtbot, qloop, server.invoke(handoff.id, "reply"))  # Reply: the inline composer, on that item
    qtbot.waitUntil(lambda: view.composer.isVisible() and view.selected().item.kind is NeedKind.HANDOFF, timeout=5000)


def test_many_at_once_are_one_summary_and_a_restart_tells_none_again(qtbot, qloop, server, hub, tmp_path):
    from support.desktop_fixtures import start_desktop, stop_desktop
    from support.private_bus import look_away
    from support.raw_agent import RawAgent

    home = tmp_path / "home"
    app = start_desktop(qtbot, qloop, home, hub.url)
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        assert run_coroutine(qtbot, qloop, app.attention.start()) is None
        look_away(qtbot, app)
        room = join_room(qtbot, qloop, app, peer, "builds")
        for n in range(5):
            post_as(qtbot, qloop, peer, room, "yours", parts=[{"kind": "com.parler.handoff", "next": f"step {n}", "to": "boss"}])
        qtbot.waitUntil(lambda: app.window.needs.count() == 5 and server.notify_calls >= 1 and quiet(app), timeout=15_000)
        assert [(s.summary, s.body) for s in server.shown.values()] == [("5 things need you", "Waiting on you: alice")]
        stop_desktop(qtbot, qloop, app)
        app = start_desktop(qtbot, qloop, home, hub.url)
        assert run_coroutine(qtbot, qloop, app.attention.start()) is None
        qtbot.waitUntil(lambda: app.window.needs.count() == 5 and all(w.ready for w in app.window.needs._watches.values()), timeout=15_000)
        post_as(qtbot, qloop, peer, room, "chatter")  # something arrives after the launch too
        told = app.attention.needs_alerts._told
        entry = app.hubs.entries[0]
        # the told items were read back and weighed (a repeat would be told right then)
        qtbot.waitUntil(lambda: entry in told and len(told[entry][1]) == 5 and quiet(app), timeout=10_000)
        assert server.notify_calls == 1
    finally:
        run_coroutine(qtbot, qloop, peer.close())
        stop_desktop(qtbot, qloop, app)
