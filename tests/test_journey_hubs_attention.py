"""Attention across hubs, as a supervisor holding two hubs sees it: a room called "team" on each
is two rooms. Muting one from its menu leaves the other notifying; an agent of the hub not shown
puts its own dot on its own room (not on the same-named room of the hub shown) and its warnings
notify naming that hub; the hint line above the timeline follows the room and hub shown.

Notifications are counted on the fake server of a private session bus (support/private_bus.py).
"""

from __future__ import annotations

import json

import pytest
from PySide6.QtGui import QColor
from support.desktop_fixtures import click_action, click_row, post_as, room_row, row_menu
from support.peer_ops import invite_code
from support.needs_ops import human_request, task_on
from support.private_bus import bus_address, look_away, needs_dbus, server, settled  # noqa: F401 - fixtures
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

from parler_desktop.app.attention.attention_settings import LEVEL_LABELS, Level
from parler_desktop.app.room_list.agent_activity import AgentState
from parler_desktop.hub.config import HubLimits
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.room_list.agent_glance import dot_rect

pytestmark = [needs_dbus, pytest.mark.timeout(120)]


@pytest.fixture
def two_hubs(qtbot, qloop, tmp_path, server, hub_factory):
    """The window as the app runs it, holding hubs A and B (in the settings' order), each with a
    peer "alice" who made room "team" there, which the window joined; A's "team" clicked open; the
    window connected to the notification service, and another window has the focus."""
    hub_a, hub_b = hub_factory(limits=HubLimits().relaxed()), hub_factory(limits=HubLimits().relaxed())
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(hub_a.url, hub_b.url)))
    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    peers = {}
    try:  # (quit even when setting up fails: a window left behind takes the next test's shortcuts)
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 2 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
        for hub in (hub_a, hub_b):
            peers[hub.url] = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
            code = run_coroutine(qtbot, qloop, invite_code(peers[hub.url], "team"))
            run_coroutine(qtbot, qloop, app.hubs.entry(hub.url).bridge.session.redeem(code))
        qtbot.waitUntil(lambda: all("team" in entry.rooms.room_names() for entry in app.hubs.entries), timeout=10_000)
        click_row(app, "team", hub_a.url)
        qtbot.waitUntil(lambda: app.window.shown_hub is app.hubs.entry(hub_a.url) and app.window.timeline_model.room == "team", timeout=10_000)
        assert app.attention.desktop.available
        look_away(qtbot, app)
        yield app, hub_a.url, hub_b.url, peers
    finally:
        for peer in peers.values():
            run_coroutine(qtbot, qloop, peer.close())
        app.quit()
        qtbot.waitUntil(running.done, timeout=20_000)


def mention(qtbot, qloop, peer, text: str) -> dict:
    return post_as(qtbot, qloop, peer, "team", f"@boss {text}", mentions=["boss"])


def task(qtbot, qloop, peer, status: str) -> dict:
    part = {"kind": "com.parler.task", "status": status, "task": "migrate-db"}
    return post_as(qtbot, qloop, peer, "team", f"task {status}", parts=[{"kind": "text", "text": f"task {status}"}, part])


def unread(app, hub: str) -> int:
    summary = app.hubs.entry(hub).rooms.summary("team")
    return summary.unread if summary is not None else -1


def dot_colour(app, room: str, hub: str) -> QColor:
    """The colour in the middle of the dot of ``room`` of ``hub``, as painted in the room list."""
    view = app.window.room_panel.view
    rect = view.visualRect(room_row(app, room, hub))
    return view.viewport().grab().toImage().pixelColor(dot_rect(rect, view.fontMetrics().height()).center())


def test_muting_team_on_one_hub_leaves_team_on_the_other_notifying(qtbot, qloop, server, two_hubs):
    app, hub_a, hub_b, peers = two_hubs
    menu = row_menu(qtbot, app, "team", hub_a)
    notify = next(a for a in menu.actions() if a.text() == "Notify me about").menu()
    click_action(qtbot, menu, "Notify me about")
    qtbot.waitUntil(notify.isVisible, timeout=2000)
    click_action(qtbot, notify, LEVEL_LABELS[Level.NONE])
    path = app.home.config_dir / "attention.json"
    qtbot.waitUntil(lambda: path.exists() and json.loads(path.read_text()).get("room_levels") == {hub_a: {"team": "none"}}, timeout=5000)
    notify_b = next(a for a in row_menu(qtbot, app, "team", hub_b).actions() if a.text() == "Notify me about").menu()
    assert [a.text() for a in notify_b.actions() if a.isChecked()] == [LEVEL_LABELS[Level.RULES]]  # B's "team" keeps its own
    app.attention.room_menu.menu.close()
    look_away(qtbot, app)
    mention(qtbot, qloop, peers[hub_a], "on the muted hub")
    mention(qtbot, qloop, peers[hub_b], "on the other hub")
    label_b = app.hubs.entry(hub_b).label
    qtbot.waitUntil(lambda: unread(app, hub_a) == 1 and unread(app, hub_b) == 1, timeout=10_000)  # both reached the window
    qtbot.waitUntil(lambda: server.notify_calls >= 1 and settled(app), timeout=15_000)
    assert [(s.summary, s.body) for s in server.shown.values()] == [(f"alice in team · {label_b}", "@boss on the other hub")]
    assert server.notify_calls == 1  # nothing for A's muted "team"


def test_an_agent_of_the_hub_not_shown_puts_its_dot_on_its_own_room(qtbot, qloop, two_hubs):
    app, hub_a, hub_b, peers = two_hubs
    asked = human_request(qtbot, qloop, app.hubs.entry(hub_b).bridge, peers[hub_b], "team", "please migrate the db")
    task_on(qtbot, qloop, peers[hub_b], "team", asked, "awaiting", "which db?")  # on B, which the window does not show
    qtbot.waitUntil(lambda: dot_colour(app, "team", hub_b) == QColor(theme.colours.agent_dots[AgentState.WAITING]), timeout=10_000)
    assert dot_colour(app, "team", hub_a) not in [QColor(c) for c in theme.colours.agent_dots.values()]  # A's "team" has no agent at work
    task(qtbot, qloop, peers[hub_a], "working")  # and A's agent colours A's row only
    qtbot.waitUntil(lambda: dot_colour(app, "team", hub_a) == QColor(theme.colours.agent_dots[AgentState.WORKING]), timeout=10_000)
    assert dot_colour(app, "team", hub_b) == QColor(theme.colours.agent_dots[AgentState.WAITING])


def test_a_loop_on_the_hub_not_shown_notifies_naming_it_and_its_hint_shows_with_its_room(qtbot, qloop, server, two_hubs):
    app, hub_a, hub_b, peers = two_hubs
    window = app.window
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub_b, name="bob", role="coder"))
    try:
        code = run_coroutine(qtbot, qloop, invite_code(peers[hub_b], "team"))
        run_coroutine(qtbot, qloop, bob.ok({"op": "redeem", "code": code}))
        for n in range(21):
            post_as(qtbot, qloop, peers[hub_b] if n % 2 else bob, "team", f"round {n}")
        label_b = app.hubs.entry(hub_b).label
        qtbot.waitUntil(lambda: settled(app) and server.notify_calls >= 1, timeout=10_000)
        assert [(s.summary, s.body) for s in server.shown.values() if "loop" in s.summary] == [
            (f"team: agents may be in a loop · {label_b}", "alice and bob exchanged 21 messages in 5 min without a human: a loop?")
        ]
        bar = app.attention.hint_bar
        assert window.shown_hub is app.hubs.entry(hub_a) and window.timeline_model.room == "team" and not bar.isVisible()
        click_row(app, "team", hub_b)
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(hub_b) and bar.isVisible(), timeout=10_000)
        assert bar.text().startswith("⚠ alice and bob exchanged 21 messages")
        click_row(app, "team", hub_a)  # the same-named room of the other hub: no warning there
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(hub_a) and not bar.isVisible(), timeout=10_000)
    finally:
        run_coroutine(qtbot, qloop, bob.close())


@pytest.fixture
def levels_from_before_several_hubs(tmp_path):
    """The home's attention.json as the one-hub window left it: "team" muted, by name only."""
    home = Home.resolve(tmp_path / "home").ensure()
    (home.config_dir / "attention.json").write_text(json.dumps({"levels": {"team": "none"}}))


def test_a_level_saved_before_several_hubs_stays_on_the_first_hubs_room(qtbot, qloop, levels_from_before_several_hubs, two_hubs):
    app, hub_a, hub_b, _peers = two_hubs

    def checked(hub: str) -> list[str]:
        notify = next(a for a in row_menu(qtbot, app, "team", hub).actions() if a.text() == "Notify me about").menu()
        shown = [a.text() for a in notify.actions() if a.isChecked()]
        app.attention.room_menu.menu.close()
        return shown

    assert checked(hub_a) == [LEVEL_LABELS[Level.NONE]]  # the hub the window held then: the settings' first
    assert checked(hub_b) == [LEVEL_LABELS[Level.RULES]]  # a hub added since: its "team" is another room


def test_team_on_each_hub_has_its_own_notification_and_a_new_alert_replaces_only_its_own(qtbot, qloop, server, two_hubs):
    app, hub_a, hub_b, peers = two_hubs
    label_a, label_b = app.hubs.entry(hub_a).label, app.hubs.entry(hub_b).label
    mention(qtbot, qloop, peers[hub_a], "first on A")
    mention(qtbot, qloop, peers[hub_b], "first on B")
    qtbot.waitUntil(lambda: server.notify_calls == 2 and settled(app), timeout=15_000)
    by_title = {shown.summary: shown for shown in server.shown.values()}
    assert sorted(by_title) == sorted([f"alice in team · {label_a}", f"alice in team · {label_b}"])  # two rooms, two notifications
    mention(qtbot, qloop, peers[hub_a], "again on A")
    qtbot.waitUntil(lambda: server.notify_calls == 3 and settled(app), timeout=15_000)
    shown_a, shown_b = by_title[f"alice in team · {label_a}"], by_title[f"alice in team · {label_b}"]
    assert (server.shown[shown_a.id].body, server.shown[shown_a.id].calls) == ("@boss again on A", 2)  # replaced A's own
    assert (server.shown[shown_b.id].body, server.shown[shown_b.id].calls) == ("@boss first on B", 1)  # B's stays
    assert len(server.shown) == 2
