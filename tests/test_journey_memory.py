"""Journey: a room's shared memory (issue 43 item 6). An agent remembers a keyed fact in the
room; the person opens Hub → Room memory…, searches by its key and sees it, chooses it, corrects
it and saves: the corrected fact (the person's) shows first, newest first, and the agent recalls
it. Where the hub refuses the person's facts, the panel is read-only with the hub's sentence."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.desktop_fixtures import join_room, open_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_journey_approval import choose

pytestmark = pytest.mark.timeout(60)


def shown_facts(panel) -> list[str]:
    model = panel.facts.model()
    return [model.index(row).data().rsplit(", ", 1)[0] for row in range(model.rowCount())]


def test_the_memory_panel_shows_an_agents_fact_and_saves_the_persons_correction(qtbot, qloop, desktop, peer) -> None:
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, room)
    fact = {"key": "deploy-target", "text": "staging-2 behind the VPN", "room": room}
    run_coroutine(qtbot, qloop, peer.ok({"op": "remember", "fact": fact}, "remembered"))

    choose(qtbot, window, "Hub", "Room memory…")
    panel = window.memory.panel
    qtbot.waitUntil(panel.isVisible, timeout=5000)
    assert panel.hint.text().startswith("Type words")
    qtbot.keyClicks(panel.search, "deploy-target")
    qtbot.waitUntil(lambda: shown_facts(panel) == ["deploy-target: staging-2 behind the VPN — alice"], timeout=10_000)

    QTest.mouseClick(panel.facts.viewport(), Qt.MouseButton.LeftButton, pos=panel.facts.visualRect(panel.facts.model().index(0)).center())
    assert (panel.key.text(), panel.text.text()) == ("deploy-target", "staging-2 behind the VPN")
    panel.text.selectAll()
    qtbot.keyClicks(panel.text, "prod-1")
    QTest.mouseClick(panel.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: shown_facts(panel) == ["deploy-target: prod-1 — you", "deploy-target: staging-2 behind the VPN — alice"],
        timeout=10_000,
    )
    assert panel.text.text() == ""  # saved: the form is ready for the next one

    recalled = run_coroutine(qtbot, qloop, peer.ok({"op": "recall", "query": "", "room": room, "key": "deploy-target"}, "recalled"))
    assert [(hit["text"], hit["author"]) for hit in recalled["hits"]] == [
        ("prod-1", desktop.bridge.agent_id), ("staging-2 behind the VPN", peer.id)
    ]


def test_the_memory_panel_is_read_only_where_the_hub_refuses_the_persons_facts(qtbot, qloop, desktop, peer) -> None:
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, room)
    panel = window.memory.open_panel()
    run_coroutine(qtbot, qloop, peer.ok({"op": "delete_room", "room": room}, "room_deleted"))  # the person is no member now
    panel.key.setText("owner")
    qtbot.keyClicks(panel.text, "me")
    QTest.mouseClick(panel.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.read_only.isVisible(), timeout=10_000)
    assert panel.read_only.text().startswith("The hub keeps this room's memory read-only for you: ")
    assert not panel.form.isVisible()
