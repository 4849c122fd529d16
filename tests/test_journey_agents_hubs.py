"""Issue 43's done-when through the real window: a supervisor holding three hubs sees who is
working on what, who is stuck and what today cost (View → Agents, grouped by hub), then hands
work to a role (Dispatch to role…, taken from the worker's queue), hands work to an agent (its
card's Hand off…) and sends an agent a file (its card's Message makes the DM, a file dropped on
the composer there), each reaching the agent once."""

from __future__ import annotations

import os
import time

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox
from support.desktop_fixtures import click_row
from support.needs_ops import human_request
from support.peer_ops import invite_code
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_agents import card_of, headings, open_agents_view, post_task, shown, type_first_message
from test_journey_approval import choose
from test_journey_dispatch import shown_states
from test_journey_quitting import visible
from test_journey_send_files import fetched, received_file, urls

from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.dialogs.handoff_dialog import HandoffDialog
from parler_desktop.ui.dispatch.dispatch_dialog import DispatchDialog

pytestmark = pytest.mark.timeout(120)


def test_three_hubs_who_works_on_what_who_is_stuck_what_today_cost_and_work_and_a_file_handed_out(qtbot, qloop, tmp_path, hub_factory):
    hubs = [hub_factory() for _ in range(3)]
    a, b, c = (hub.url for hub in hubs)
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(a, b, c)))
    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    agents: dict[str, RawAgent] = {}
    try:
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 3 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
        for url, name, role in ((a, "ann", "coder"), (b, "ben", "reviewer"), (c, "cat", "planner")):
            agent = agents[name] = run_coroutine(qtbot, qloop, RawAgent.connect(url, name=name, role=role))
            run_coroutine(qtbot, qloop, agent.register(name, role=role))
            run_coroutine(qtbot, qloop, agent.ok({"op": "subscribe"}, "subscribed"))
            run_coroutine(qtbot, qloop, app.hubs.entry(url).bridge.session.redeem(run_coroutine(qtbot, qloop, invite_code(agent, "team"))))
        qtbot.waitUntil(lambda: all("team" in e.rooms.room_names() for e in app.hubs.entries), timeout=10_000)
        ann, ben, cat = agents["ann"], agents["ben"], agents["cat"]
        post_task(qtbot, qloop, ann, "team", "done", "t0", tokens=500, elapsedMs=30_000)
        post_task(qtbot, qloop, ann, "team", "working", note="fixing the parser")
        run_coroutine(qtbot, qloop, ann.ok({"op": "presence", "status": "working", "activity": "the parser"}, "presence_ok"))
        run_coroutine(qtbot, qloop, ben.ok({"op": "serve", "service": "review"}, "joined"))
        run_coroutine(qtbot, qloop, ben.ok({"op": "presence", "status": "idle"}, "presence_ok"))

        view = open_agents_view(qtbot, app)  # who is working on what
        qtbot.waitUntil(lambda: {"ann", "ben", "cat"} <= set(shown(view)) and shown(view)["ann"]["Presence"] == "working — the parser", timeout=15_000)
        labels = {url: app.hubs.entry(url).label for url in (a, b, c)}
        assert [shown(view)[name]["Hub"] for name in ("ann", "ben", "cat")] == [labels[a], labels[b], labels[c]]
        assert shown(view)["ann"]["On"] == "⚙ working — fixing the parser · in team"
        asked = human_request(qtbot, qloop, app.hubs.entry(c).bridge, cat, "team", "plan the sprint")
        assert run_coroutine(qtbot, qloop, cat.recv_delivery())["id"] == asked  # (cat is subscribed: it gets the request)
        post_task(qtbot, qloop, cat, "team", "working", task=asked, note="planning the sprint")
        qtbot.waitUntil(lambda: shown(view)["cat"]["On"].startswith("⚙ working — planning the sprint"), timeout=10_000)
        needs = app.window.needs
        needs.clock = lambda: time.time() + 16 * 60  # who is stuck: cat, silent 16 minutes on the human's request
        needs.refresh()
        qtbot.waitUntil(lambda: shown(view)["cat"]["Flags"] == "silent on your work", timeout=10_000)
        assert shown(view)["ann"]["Flags"] == shown(view)["ben"]["Flags"] == ""  # (ann works on no request of the human's)
        needs.clock = time.time
        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)
        qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)
        qtbot.keyClick(view.group, Qt.Key.Key_Down)  # by hub: what today cost on each
        qtbot.waitUntil(lambda: any(h.startswith(f"{labels[a]} — 1 agent · today: 1 task") for h in headings(view)), timeout=5000)
        assert f"{labels[b]} — 1 agent" in headings(view) and f"{labels[c]} — 1 agent" in headings(view)
        assert view.costs.text().startswith("Today: 1 task, 0 failed (0%) · 500 tokens · 30 s")

        window = app.window  # hand work to a role, on hub b
        click_row(app, "team", b)
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(b) and window.timeline_model.room == "team", timeout=10_000)
        choose(qtbot, window, "Hub", "Dispatch to role…")
        qtbot.waitUntil(lambda: visible(window, DispatchDialog, "dispatchDialog") is not None, timeout=5000)
        dialog = visible(window, DispatchDialog, "dispatchDialog")
        qtbot.keyClicks(dialog.role, "review")
        qtbot.keyClicks(dialog.task, "review PR 45")
        QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.timeline_model.room == "svc.review" and shown_states(window) == ["review: review PR 45 — queued"], timeout=10_000)
        [work] = run_coroutine(qtbot, qloop, ben.ok({"op": "queue", "room": "svc.review", "role": "review"}, "queued"))["messages"]
        assert [p["text"] for p in work["parts"] if p["kind"] == "text"] == ["review PR 45"]

        card = card_of(qtbot, app, ann.id)  # hand work to an agent
        qtbot.mouseClick(card.handoff_button, Qt.MouseButton.LeftButton)
        handoff = card.findChild(HandoffDialog)
        qtbot.waitUntil(handoff.isVisible, timeout=5000)
        qtbot.keyClicks(handoff.next, "ship the parser")
        qtbot.mouseClick(handoff.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
        delivered = run_coroutine(qtbot, qloop, ann.recv_delivery())
        assert {"kind": "com.parler.handoff", "next": "ship the parser", "to": "ann"} in delivered["parts"]
        card.close()

        card = card_of(qtbot, app, cat.id)  # send an agent a file: its DM made by a first message
        type_first_message(qtbot, card, "a file for you")
        greeting = run_coroutine(qtbot, qloop, cat.recv_delivery())
        dm = greeting["room"]
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(c) and window.timeline_model.room == dm, timeout=10_000)
        data = os.urandom(70_000)
        path = tmp_path / "plan.bin"
        path.write_bytes(data)
        mime = urls(path)
        edit = window.composer.edit
        drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        assert window.uploads.intake.eventFilter(edit.viewport(), drop)
        part = received_file(qtbot, qloop, cat)
        assert part["name"] == "plan.bin" and fetched(qtbot, qloop, cat, part["blob"]) == data
    finally:
        for agent in agents.values():
            run_coroutine(qtbot, qloop, agent.close())
        app.quit()
        qtbot.waitUntil(running.done, timeout=20_000)
