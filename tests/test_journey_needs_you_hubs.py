"""Issue 45's done-when: a supervisor holding three hubs clears a mixed queue of ten items (two
handoffs, two questions, a failure, a join request, three mentions, a silent agent) with the
keyboard alone (every key goes where the keyboard's focus is, and the focus stays on the queue);
each agent gets its answer once, as raw agents read the hubs' history; then the title, the tray's
tooltip, the sidebar entry and every hub's heading say nothing waits."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QSystemTrayIcon
from support.desktop_fixtures import click_row, post_as, room_row
from support.needs_ops import human_request, task_on
from support.peer_ops import hub_history, invite_code
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

from parler_desktop.app import roles
from parler_desktop.app.needs_you.needs_rules import NeedKind
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.attention.tray import Tray
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(120)


def replies_to(qtbot, qloop, peer, room: str, message_id: str) -> list[dict]:
    return [m for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m.get("replyTo") == message_id]


def test_three_hubs_ten_items_cleared_with_the_keyboard(qtbot, qloop, tmp_path, hub_factory, monkeypatch):
    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))  # (offscreen Qt has none)
    monkeypatch.setattr(Tray, "showMessage", lambda *_shown: None)
    hubs = [hub_factory() for _ in range(3)]
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=tuple(h.url for h in hubs)))
    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    peers: dict[str, RawAgent] = {}
    joiner = None
    try:
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 3 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
        for hub in hubs:
            peers[hub.url] = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
            code = run_coroutine(qtbot, qloop, invite_code(peers[hub.url], "team"))
            run_coroutine(qtbot, qloop, app.hubs.entry(hub.url).bridge.session.redeem(code))
        qtbot.waitUntil(lambda: all("team" in e.rooms.room_names() for e in app.hubs.entries), timeout=10_000)
        a, b, c = (h.url for h in hubs)
        bridge = {url: app.hubs.entry(url).bridge for url in (a, b, c)}
        window, needs = app.window, app.window.needs
        # The human looks at a room of their own meanwhile: a "team" on screen (the window opens
        # the first room listed, of any hub) would read its mention as it came.
        run_coroutine(qtbot, qloop, bridge[a].invite("channel", "quiet"))
        qtbot.waitUntil(lambda: "quiet" in app.hubs.entry(a).rooms.room_names(), timeout=10_000)
        click_row(app, "quiet", a)
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(a) and window.timeline_model.room == "quiet", timeout=10_000)
        offset = [0.0]
        needs.clock = lambda: time.time() + offset[0]

        def handoff(url: str, step: str) -> dict:
            return post_as(qtbot, qloop, peers[url], "team", "yours", parts=[{"kind": "com.parler.handoff", "next": step, "to": "boss"}])

        asked = {url: human_request(qtbot, qloop, bridge[url], peers[url], "team", f"please do it on {url[-12:]}") for url in (a, b, c)}
        silent_task = human_request(qtbot, qloop, bridge[c], peers[c], "team", "please index everything")
        task_on(qtbot, qloop, peers[c], "team", silent_task, "working")
        offset[0] = 16 * 60  # the worker has said nothing for 16 minutes
        expected = {
            "handoff a": handoff(a, "review A"),
            "handoff b": handoff(b, "review B"),
            "question a": task_on(qtbot, qloop, peers[a], "team", asked[a], "awaiting", "which region?"),
            "question b": task_on(qtbot, qloop, peers[b], "team", asked[b], "awaiting", "which size?"),
            "failure c": task_on(qtbot, qloop, peers[c], "team", asked[c], "failed", "disk full"),
            "mention a": post_as(qtbot, qloop, peers[a], "team", "@boss fyi"),
            "mention b": post_as(qtbot, qloop, peers[b], "team", "@boss fyi"),
            "mention c": post_as(qtbot, qloop, peers[c], "team", "@supervisor fyi"),
        }
        invited = run_coroutine(qtbot, qloop, bridge[b].invite("channel", "gated", require_approval=True))
        joiner = run_coroutine(qtbot, qloop, RawAgent.connect(b, name="carol", role="coder"))
        run_coroutine(qtbot, qloop, joiner.ok({"op": "redeem", "code": invited.code}, "join_pending"))
        for watch in (needs.watch(entry) for entry in app.hubs.entries):
            watch.poll_join_requests()
        qtbot.waitUntil(lambda: needs.count() == 10, timeout=20_000)
        assert "Parler — 10 need you" in window.windowTitle()
        assert window.needs_you.entry.text() == "Needs you · 10"
        assert sorted(k.value for k in (f.item.kind for f in needs.items())) == sorted(
            ["handoff"] * 2 + ["question"] * 2 + ["failed", "join", "silent"] + ["mention"] * 3
        )
        assert [room_row(app, None, url).data(roles.HUB_NEEDS) for url in (a, b, c)] == [3, 4, 3]
        tray = app.attention.tray
        assert tray is not None and "10 need you" in tray.toolTip()

        QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
        view = window.needs_you.view
        qtbot.waitUntil(view.list.hasFocus, timeout=5000)
        keys = {
            NeedKind.HANDOFF: Qt.Key.Key_D, NeedKind.QUESTION: Qt.Key.Key_B, NeedKind.FAILED: Qt.Key.Key_D,
            NeedKind.JOIN: Qt.Key.Key_A, NeedKind.MENTION: Qt.Key.Key_D, NeedKind.SILENT: Qt.Key.Key_D,
        }
        for _ in range(30):  # one key an item; an answered item waits for the hub, then leaves
            if needs.count() == 0:
                break
            found = view.selected()
            if found is None or view.model.needs.is_queued(found):
                qtbot.waitUntil(lambda: view.selected() is not None and not needs.is_queued(view.selected()) or needs.count() == 0, timeout=10_000)
                continue
            count = needs.count()
            assert QApplication.focusWidget() is view.list  # the keyboard is still on the queue
            QTest.keyClick(QApplication.focusWidget(), keys[found.item.kind])
            qtbot.waitUntil(lambda: needs.count() < count or needs.is_queued(found), timeout=10_000)
        qtbot.waitUntil(lambda: needs.count() == 0, timeout=10_000)
        assert "need you" not in window.windowTitle()
        assert window.needs_you.entry.text() == "Needs you"
        assert [room_row(app, None, url).data(roles.HUB_NEEDS) for url in (a, b, c)] == [0, 0, 0]
        assert "need you" not in tray.toolTip()

        hub_of = {"a": a, "b": b, "c": c}
        for name, message in expected.items():
            answered = replies_to(qtbot, qloop, peers[hub_of[name[-1]]], "team", message["id"])
            assert len(answered) == (1 if name.startswith(("handoff", "question")) else 0), (name, answered)
        members = run_coroutine(qtbot, qloop, joiner.ok({"op": "rooms"}, "rooms"))
        assert "gated" in [r["name"] for r in members["rooms"]]
    finally:
        for peer in [*peers.values(), *([joiner] if joiner else [])]:
            run_coroutine(qtbot, qloop, peer.close())
        app.quit()
        qtbot.waitUntil(running.done, timeout=20_000)
