"""View → Agents (Ctrl+Shift+A) through the real window (issue 43, items 1-3): every agent the
window knows, live from the directory, rosters and messages; filters by keyboard; an agent's card
opened with Enter, and its Message action reaching the agent in a DM made by a ``dm`` send; the
cost of the agents' work from their task receipts, with and without figures, and its CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QToolTip

from parler_desktop.app.agents.fleet_model import AGENT_KEY, COLUMNS
from parler_desktop.ui.agents.agents_view import AgentsView
from parler_desktop.ui.dialogs.handoff_dialog import HandoffDialog
from support.desktop_fixtures import join_room, open_room, post_as
from support.needs_ops import human_request
from support.peer_ops import hub_history
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

pytestmark = pytest.mark.timeout(60)
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def open_agents_view(qtbot, desktop: Any) -> AgentsView:
    desktop.agents.model.feed.refresh_ms = 300  # the directory asked often, so a presence shows at once
    desktop.window.activateWindow()
    qtbot.waitUntil(desktop.window.isActiveWindow, timeout=5000)
    qtbot.keyClick(desktop.window, Qt.Key.Key_A, CTRL_SHIFT)
    qtbot.waitUntil(lambda: desktop.agents.view is not None and desktop.agents.view.isVisible(), timeout=5000)
    return desktop.agents.view


def shown(view: AgentsView) -> dict[str, dict[str, str]]:
    """The agent rows on screen: name -> column -> text."""
    model = view.list.model()
    rows = {}
    for row in range(model.rowCount()):
        if model.index(row, 0).data(AGENT_KEY) is not None:
            cells = {column: model.index(row, number).data() for number, column in enumerate(COLUMNS)}
            rows[cells["Agent"].removesuffix(" ✓")] = cells
    return rows


def headings(view: AgentsView) -> list[str]:
    model = view.list.model()
    return [model.index(row, 0).data() for row in range(model.rowCount()) if model.index(row, 0).data(AGENT_KEY) is None]


def post_task(qtbot, qloop, agent: RawAgent, room: str, status: str, task: str = "t1", **figures: Any) -> None:
    part = {"kind": "com.parler.task", "status": status, "task": task, **figures}
    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [part]}
    run_coroutine(qtbot, qloop, agent.ok(frame, "sent"))


def hand_off_from(qtbot, card: Any, to: str, text: str) -> None:
    """The card's Hand off…: the dialog opens addressed to ``to``; ``text`` typed, OK clicked."""
    qtbot.mouseClick(card.handoff_button, Qt.MouseButton.LeftButton)
    dialog = card.findChild(HandoffDialog)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    assert dialog.to.currentText() == to
    qtbot.keyClicks(dialog.next, text)
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def test_agents_from_cards_and_rooms_live_filtered_by_keyboard_and_a_dm_from_the_card(qtbot, qloop, desktop, hub, peer):
    skills = [{"id": "plan", "name": "Planning", "description": "splits work"}]
    run_coroutine(qtbot, qloop, peer.register("alice", role="planner", description="Plans the sprint", tags=["ops"], skills=skills))
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bob", role="coder"))
    try:
        room = join_room(qtbot, qloop, desktop, bob, "build")
        post_task(qtbot, qloop, bob, room, "working", note="fixing the parser")
        view = open_agents_view(qtbot, desktop)
        qtbot.waitUntil(lambda: {"alice", "bob"} <= set(shown(view)), timeout=10_000)
        assert shown(view)["bob"]["On"] == "⚙ working — fixing the parser · in build"
        assert shown(view)["bob"]["Rooms"] == "1"
        assert shown(view)["alice"]["Role"] == "planner"

        run_coroutine(qtbot, qloop, peer.ok({"op": "presence", "status": "working", "activity": "writing the plan"}, "presence_ok"))
        qtbot.waitUntil(lambda: shown(view)["alice"]["Presence"] == "working — writing the plan", timeout=10_000)

        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)
        qtbot.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # Show: the filter
        assert view.filter.hasFocus()
        qtbot.keyClick(view.filter, Qt.Key.Key_Down)  # Working
        qtbot.waitUntil(lambda: set(shown(view)) == {"alice", "bob"}, timeout=5000)
        qtbot.keyClick(view.filter, Qt.Key.Key_Down)  # Waiting on me
        qtbot.waitUntil(lambda: set(shown(view)) == set(), timeout=5000)
        asked = human_request(qtbot, qloop, desktop.bridge, bob, room, "fix the parser")  # bob's question on it waits on the human
        post_task(qtbot, qloop, bob, room, "awaiting", task=asked, note="which parser?")
        qtbot.waitUntil(lambda: set(shown(view)) == {"bob"}, timeout=10_000)
        assert "waiting on you" in shown(view)["bob"]["Flags"]
        qtbot.keyClick(view.filter, Qt.Key.Key_Home)  # All
        view.search.setFocus()
        qtbot.keyClicks(view.search, "ali")
        qtbot.waitUntil(lambda: set(shown(view)) == {"alice"}, timeout=5000)

        qtbot.keyClick(view.search, Qt.Key.Key_Return)  # to the list, on alice
        assert view.list.hasFocus()
        qtbot.keyClick(view.list, Qt.Key.Key_Return)  # her card
        qtbot.waitUntil(lambda: desktop.agents.card is not None and desktop.agents.card.isVisible(), timeout=5000)
        card = desktop.agents.card
        directory = card.directory.text()
        assert "verified" in directory and "Plans the sprint" in directory and "Skill: Planning — splits work" in directory
        assert "Tags: ops" in directory
        qtbot.mouseClick(card.copy_button, Qt.MouseButton.LeftButton)
        assert QApplication.clipboard().text() == peer.id

        qtbot.mouseClick(card.message_button, Qt.MouseButton.LeftButton)  # no DM yet: a first message makes one
        assert card.first_message.isVisible()
        qtbot.keyClicks(card.first_message, "hello alice")
        qtbot.keyClick(card.first_message, Qt.Key.Key_Return)
        delivered = run_coroutine(qtbot, qloop, peer.recv_delivery())
        assert delivered["room"].startswith("dm.") and delivered["parts"][0] == {"kind": "text", "text": "hello alice"}
        qtbot.waitUntil(lambda: desktop.window.timeline_model.room == delivered["room"], timeout=10_000)
        open_room(qtbot, desktop, room)
        card = desktop.agents.open_card(next(k for k in desktop.agents.model.state.agents if k[1] == peer.id))
        qtbot.mouseClick(card.message_button, Qt.MouseButton.LeftButton)  # the DM they share now opens
        qtbot.waitUntil(lambda: desktop.window.timeline_model.room == delivered["room"], timeout=10_000)
        qtbot.waitUntil(desktop.window.composer.edit.hasFocus, timeout=5000)  # (set as the room opens, a turn or two on)

        view.search.clear()
        qtbot.waitUntil(lambda: "bob" in shown(view), timeout=5000)
        card = desktop.agents.open_card(next(k for k in desktop.agents.model.state.agents if k[1] == bob.id))
        qtbot.mouseClick(card.message_button, Qt.MouseButton.LeftButton)  # no card, no DM: said so
        assert "bob has no directory card" in card.note.text()
        assert not card.first_message.isVisible()
        card.close()
    finally:
        run_coroutine(qtbot, qloop, bob.close())


def test_cost_of_receipts_with_and_without_figures_in_the_view_the_room_header_the_csv_and_a_handoff(qtbot, qloop, desktop, hub, tmp_path: Path):
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bob", role="coder"))
    try:
        room = join_room(qtbot, qloop, desktop, bob, "build")
        post_task(qtbot, qloop, bob, room, "accepted")
        post_task(qtbot, qloop, bob, room, "done", tokens=1200, elapsedMs=60_000)
        post_task(qtbot, qloop, bob, room, "failed", "t2", note="no disk")  # no figures: unknown, never zero
        post_as(qtbot, qloop, bob, room, "the last of it")
        entry = desktop.hubs.entry(hub.url)
        qtbot.waitUntil(lambda: desktop.window.rooms is entry.rooms and entry.rooms.summary(room) is not None, timeout=5000)
        qtbot.waitUntil(lambda: (entry.rooms.summary(room).last_preview or "").startswith("the last"), timeout=10_000)
        view = open_agents_view(qtbot, desktop)  # the receipts stored so far are read from the cache
        qtbot.waitUntil(lambda: "bob" in shown(view), timeout=10_000)
        today = "Today: 2 tasks, 1 failed (50%) · 1,200 tokens (+1 unknown) · 1 min (+1 unknown)"
        qtbot.waitUntil(lambda: view.costs.text().startswith(today), timeout=5000)

        post_task(qtbot, qloop, bob, room, "done", "t3", tokens=300)  # arrives: added to the totals kept
        today = "Today: 3 tasks, 1 failed (33%) · 1,500 tokens (+1 unknown) · 1 min (+2 unknown)"
        qtbot.waitUntil(lambda: view.costs.text().startswith(today), timeout=10_000)
        assert shown(view)["bob"]["Today"] == "3 tasks · 1,500+? tok"
        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)
        qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)  # Group by
        qtbot.keyClick(view.group, Qt.Key.Key_Down)  # hub: its heading says what today cost there
        qtbot.waitUntil(lambda: headings(view) == [f"{entry.label} — 1 agent · today: {today.removeprefix('Today: ')}"], timeout=5000)
        assert view.list.columnSpan(0, 0) == len(COLUMNS)
        qtbot.keyClick(view.group, Qt.Key.Key_Down)  # room
        qtbot.waitUntil(lambda: headings(view) == [f"build · {entry.label} — 1 agent · today: {today.removeprefix('Today: ')}"], timeout=5000)

        open_room(qtbot, desktop, room)
        title = desktop.window.room_title
        QApplication.sendEvent(title, QHelpEvent(QEvent.Type.ToolTip, QPoint(4, 4), title.mapToGlobal(QPoint(4, 4))))
        assert "build  ·  channel  ·  2 members" in QToolTip.text()  # the room's title, then its cost
        assert "work here today: 3 tasks, 1 failed (33%) · 1,500 tokens (+1 unknown)" in QToolTip.text()

        target = tmp_path / "costs.csv"
        qtbot.mouseClick(view.export_button, Qt.MouseButton.LeftButton)  # Export costs as CSV…: where to save
        qtbot.waitUntil(lambda: view.findChild(QFileDialog, "saveAs") is not None, timeout=5000)
        chooser = view.findChild(QFileDialog, "saveAs")
        chooser.selectFile(str(target))
        chooser.accept()
        qtbot.waitUntil(lambda: view.status.text() == f"Saved {target}", timeout=5000)
        rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
        by_scope = {row["scope"]: row for row in rows}
        assert by_scope["agent"]["name"] == f"bob ({bob.id})"
        assert by_scope["room"]["name"] == "build"
        for row in by_scope.values():
            assert (row["tasks"], row["failed"], row["tokens"], row["tasks without tokens"]) == ("3", "1", "1500", "1")
            assert (row["elapsed ms"], row["tasks without elapsed"]) == ("60000", "2")

        card = desktop.agents.open_card(next(k for k in desktop.agents.model.state.agents if k[1] == bob.id))
        history = card.history.toPlainText().splitlines()
        assert len(history) == 3  # newest first; the task ids pair the steps
        assert history[0].endswith("build · done, 300 tokens")
        assert history[1].endswith("build · failed, tokens unknown — no disk")
        assert history[2].endswith("build · accepted → done in 1 min, 1,200 tokens")
        revision = card.history.document().revision()
        desktop.agents.model.rebuild()  # the rows repaint (as every stored message makes them)
        assert card.history.document().revision() == revision  # the history the human scrolls stays put
        qtbot.waitUntil(lambda: "the last of it" in card.recent.toPlainText(), timeout=5000)
        post_as(qtbot, qloop, bob, room, "one more thing")  # said while the card is open: on top
        qtbot.waitUntil(lambda: card.recent.toPlainText().splitlines()[0].endswith("build: one more thing"), timeout=10_000)
        assert card.recent.toPlainText().count("the last of it") == 1  # (what was read stays, once)

        run_coroutine(qtbot, qloop, bob.ok({"op": "subscribe"}, "subscribed"))
        hand_off_from(qtbot, card, "bob", "review the parser")  # the handoff dialog, addressed to it
        delivered = run_coroutine(qtbot, qloop, bob.recv_delivery())
        assert delivered["room"] == room and delivered["mentions"] == ["bob"]
        assert {"kind": "com.parler.handoff", "next": "review the parser", "to": "bob"} in delivered["parts"]
        card.close()
    finally:
        run_coroutine(qtbot, qloop, bob.close())


def test_names_and_cards_from_the_hub_are_shown_as_the_characters_they_are(qtbot, qloop, desktop, hub, peer):
    run_coroutine(qtbot, qloop, peer.register("<b>eve</b>\u202e\nsecond", description="<img src=x> reads files"))
    view = open_agents_view(qtbot, desktop)
    qtbot.waitUntil(lambda: "<b>eve</b>\ufffd second" in shown(view), timeout=10_000)
    run_coroutine(qtbot, qloop, peer.ok({"op": "presence", "status": "working", "activity": "x" * 4000}, "presence_ok"))
    qtbot.waitUntil(lambda: shown(view)["<b>eve</b>\ufffd second"]["Presence"].startswith("working — xxx"), timeout=10_000)
    assert shown(view)["<b>eve</b>\ufffd second"]["Presence"] == "working — " + "x" * 119 + "…"  # a cell's worth, not 4,000
    card = desktop.agents.open_card(next(k for k in desktop.agents.model.state.agents if k[1] == peer.id))
    assert card.summary.textFormat() == Qt.TextFormat.PlainText and card.directory.textFormat() == Qt.TextFormat.PlainText
    assert card.summary.text().startswith("<b>eve</b>\ufffd second · ")
    assert "<img src=x> reads files" in card.directory.text()
    card.close()


def test_a_hub_added_while_the_view_is_open_brings_its_agents(qtbot, qloop, desktop, hub, peer, hub_factory):
    run_coroutine(qtbot, qloop, peer.register("alice"))
    view = open_agents_view(qtbot, desktop)
    qtbot.waitUntil(lambda: "alice" in shown(view), timeout=10_000)
    desktop.agents.model.feed.refresh_ms = 60_000  # the new hub's directory is asked as it comes live, not by the clock
    desktop.agents.model.feed.set_watching(True)
    other = hub_factory()
    carol = run_coroutine(qtbot, qloop, RawAgent.connect(other.url, name="carol", role="reviewer"))
    try:
        run_coroutine(qtbot, qloop, carol.register("carol", role="reviewer"))
        entry = desktop.hubs.add(other.url)
        assert run_coroutine(qtbot, qloop, desktop.connectors[entry].connect())
        qtbot.waitUntil(lambda: "carol" in shown(view), timeout=10_000)
        assert shown(view)["carol"]["Hub"] == entry.label and shown(view)["alice"]["Hub"] != entry.label
    finally:
        run_coroutine(qtbot, qloop, carol.close())


def dm_texts(qtbot, qloop, agent: RawAgent) -> dict[str, list[str]]:
    """What each DM room of ``agent`` holds on the hub: room -> its texts, oldest first."""
    rooms = run_coroutine(qtbot, qloop, agent.ok({"op": "rooms"}, "rooms"))["rooms"]
    return {
        room["name"]: [p.get("text") for m in run_coroutine(qtbot, qloop, hub_history(agent, room["name"])) for p in m["parts"] if p["kind"] == "text"]
        for room in rooms if room["kind"] == "dm"
    }


def outbox_pending(qtbot, qloop, desktop: Any) -> list[Any]:
    from parler_desktop.store import LocalStore
    from parler_desktop.store.outbox_item import OutboxStatus

    return run_coroutine(qtbot, qloop, desktop.bridge.store.call(LocalStore.outbox_items, [OutboxStatus.PENDING]))


def card_of(qtbot, desktop: Any, agent_id: str) -> Any:
    """The agent's card, opened from its row in View → Agents."""
    view = open_agents_view(qtbot, desktop)
    model = desktop.agents.model
    qtbot.waitUntil(lambda: any(k[1] == agent_id and model.row_of(k) is not None for k in model.state.agents), timeout=10_000)
    assert view.list.select_key(next(k for k in model.state.agents if k[1] == agent_id))
    view.list.setFocus()
    qtbot.keyClick(view.list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: desktop.agents.card is not None and desktop.agents.card.isVisible(), timeout=5000)
    return desktop.agents.card


def type_first_message(qtbot, card: Any, text: str) -> None:
    qtbot.mouseClick(card.message_button, Qt.MouseButton.LeftButton)  # no DM yet: a first message makes one
    assert card.first_message.isVisible()
    qtbot.keyClicks(card.first_message, text)
    qtbot.keyClick(card.first_message, Qt.Key.Key_Return)


def card_with_the_hub_down(qtbot, qloop, app: Any, hub: Any, alice: RawAgent) -> Any:
    """alice's card (she registered a directory card), open after her hub was killed (-9)."""
    import asyncio

    run_coroutine(qtbot, qloop, alice.register("alice", role="planner"))
    card = card_of(qtbot, app, alice.id)
    run_coroutine(qtbot, qloop, alice.close())
    run_coroutine(qtbot, qloop, asyncio.to_thread(hub.kill))  # kill -9
    qtbot.waitUntil(lambda: not app.bridge.is_live, timeout=10_000)
    return card


def test_a_first_message_typed_on_a_card_while_the_hub_is_down_lands_once_after_the_hub_and_the_app_restart(
    qtbot, qloop, hub_process_factory, tmp_path: Path
):
    """The card's Message goes through the outbox as every post does: typed while the hub is
    killed, then the app closed before the hub is back, it lands exactly once."""
    import asyncio

    from support.desktop_fixtures import start_desktop, stop_desktop

    hub = hub_process_factory()
    home = tmp_path / "home"
    app = start_desktop(qtbot, qloop, home, hub.url)
    alice = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        card = card_with_the_hub_down(qtbot, qloop, app, hub, alice)
        type_first_message(qtbot, card, "hello alice")
        qtbot.waitUntil(lambda: card.note.text().startswith("Queued for alice"), timeout=5000)  # on disk, said so
        assert card.first_message.text() == ""
        stop_desktop(qtbot, qloop, app)  # the app goes before the hub is back
        run_coroutine(qtbot, qloop, asyncio.to_thread(hub.restart))
        app = start_desktop(qtbot, qloop, home, hub.url)
        alice = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity=alice.identity, name="alice", role="planner"))
        qtbot.waitUntil(lambda: list(dm_texts(qtbot, qloop, alice).values()) == [["hello alice"]], timeout=20_000)
        [dm] = dm_texts(qtbot, qloop, alice)
        qtbot.waitUntil(lambda: dm in app.window.rooms.room_names(), timeout=10_000)  # the DM made is listed
        qtbot.waitUntil(lambda: not outbox_pending(qtbot, qloop, app), timeout=10_000)  # nothing left to send again
        assert list(dm_texts(qtbot, qloop, alice).values()) == [["hello alice"]]  # once
    finally:
        run_coroutine(qtbot, qloop, alice.close())
        stop_desktop(qtbot, qloop, app)


def test_a_first_message_typed_on_a_card_while_the_hub_is_down_opens_its_dm_once_the_hub_is_back(qtbot, qloop, hub_process_factory, tmp_path: Path):
    import asyncio

    from support.desktop_fixtures import start_desktop, stop_desktop

    hub = hub_process_factory()
    app = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    alice = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        card = card_with_the_hub_down(qtbot, qloop, app, hub, alice)
        type_first_message(qtbot, card, "are you there?")
        qtbot.waitUntil(lambda: card.note.text().startswith("Queued for alice"), timeout=5000)
        run_coroutine(qtbot, qloop, asyncio.to_thread(hub.restart))
        alice = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity=alice.identity, name="alice", role="planner"))
        qtbot.waitUntil(lambda: list(dm_texts(qtbot, qloop, alice).values()) == [["are you there?"]], timeout=20_000)
        [dm] = dm_texts(qtbot, qloop, alice)
        qtbot.waitUntil(lambda: app.window.timeline_model.room == dm, timeout=10_000)  # the card opened it
        timeline = app.window.timeline_model
        qtbot.waitUntil(lambda: [timeline.entry(r).text for r in range(timeline.rowCount())] == ["are you there?"], timeout=10_000)
        qtbot.waitUntil(lambda: not outbox_pending(qtbot, qloop, app), timeout=10_000)
        assert list(dm_texts(qtbot, qloop, alice).values()) == [["are you there?"]]
    finally:
        run_coroutine(qtbot, qloop, alice.close())
        stop_desktop(qtbot, qloop, app)


def test_a_message_to_an_agents_dm_the_hub_refuses_after_its_card_closed_is_said_in_the_status_bar(qtbot, qloop, desktop, hub, peer):
    run_coroutine(qtbot, qloop, desktop.bridge.session.message_agent(peer.id, "hello"))  # alice has no directory card
    bar = desktop.window.statusBar()
    qtbot.waitUntil(lambda: bar.currentMessage().startswith("Your message to "), timeout=10_000)
    assert "was not sent: " in bar.currentMessage() and "discoverable" in bar.currentMessage()


def test_work_is_handed_off_to_an_agent_known_only_by_its_directory_card_in_a_dm(qtbot, qloop, desktop, hub, peer):
    """No room shared: the card's Hand off… posts the handoff by a ``dm`` target, through the
    outbox, which makes the DM (as Message does)."""
    run_coroutine(qtbot, qloop, peer.register("alice", role="planner"))
    card = card_of(qtbot, desktop, peer.id)
    assert card.handoff_button.isEnabled()
    assert "in a DM" in card.handoff_button.toolTip()
    hand_off_from(qtbot, card, "alice", "plan the sprint")
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery())
    assert delivered["room"].startswith("dm.") and delivered["mentions"] == ["alice"]
    assert {"kind": "com.parler.handoff", "next": "plan the sprint", "to": "alice"} in delivered["parts"]
    qtbot.waitUntil(lambda: card.note.text() == "Handed off in a DM with alice.", timeout=5000)
    qtbot.waitUntil(lambda: delivered["room"] in desktop.window.rooms.room_names(), timeout=10_000)  # the DM, listed
    assert list(dm_texts(qtbot, qloop, peer)) == [delivered["room"]]
    card.close()
