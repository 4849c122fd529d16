"""Journey: queue work for a role (issue 43 item 4). In a service room the person chooses
Hub → Dispatch to role…, types the task and presses Dispatch; a worker of that role (a raw agent
doing what ``parler supervise --role`` does: queue, claim, receipts, complete) takes it, and the
list above the timeline shows each state as it happens."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.desktop_fixtures import open_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_approval import choose
from test_journey_quitting import visible

from parler_desktop.ui.dispatch.dispatch_dialog import DispatchDialog

pytestmark = pytest.mark.timeout(60)


def join_service(qtbot, qloop, desktop, worker: RawAgent, service: str) -> str:
    """``worker`` serves ``service`` and invites the person into its room; the room, listed."""
    room = run_coroutine(qtbot, qloop, worker.ok({"op": "serve", "service": service}, "joined"))["room"]
    invited = run_coroutine(qtbot, qloop, worker.ok({"op": "invite", "kind": "service", "room": service}, "invited"))
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
    qtbot.waitUntil(lambda: room in desktop.window.rooms.room_names(), timeout=10_000)
    return room


def dispatch_from_dialog(qtbot, window, task: str) -> None:
    """Hub → Dispatch to role…, the task typed, Dispatch clicked."""
    choose(qtbot, window, "Hub", "Dispatch to role…")
    qtbot.waitUntil(lambda: visible(window, DispatchDialog, "dispatchDialog") is not None, timeout=5000)
    dialog = visible(window, DispatchDialog, "dispatchDialog")
    qtbot.keyClicks(dialog.task, task)
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def shown_states(window) -> list[str]:
    model = window.dispatch.model
    return [model.index(row).data() for row in range(model.rowCount())]


def receipt(worker: RawAgent, room: str, task: str, status: str) -> dict:
    part = {"kind": "com.parler.task", "status": status, "task": task, "note": f"worker is {status}"}
    return {"op": "send", "target": {"kind": "room", "room": room}, "parts": [part], "replyTo": task}


def test_work_dispatched_from_the_dialog_is_claimed_and_completed_by_a_worker_and_each_state_shows(
    qtbot, qloop, desktop, hub
) -> None:
    window = desktop.window
    worker = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="rev", role="reviewer"))
    room = join_service(qtbot, qloop, desktop, worker, "review")
    open_room(qtbot, desktop, room)
    assert not window.dispatch.panel.isVisible()

    dispatch_from_dialog(qtbot, window, "review PR 42")
    qtbot.waitUntil(lambda: shown_states(window) == ["review: review PR 42 — queued"], timeout=10_000)
    assert window.dispatch.panel.isVisible()

    run_coroutine(qtbot, qloop, worker.ok({"op": "presence", "status": "idle"}, "presence_ok"))
    queued = run_coroutine(qtbot, qloop, worker.ok({"op": "queue", "room": room, "role": "review"}, "queued"))
    [work] = queued["messages"]
    assert any(p.get("kind") == "com.parler.dispatch" and p.get("role") == "review" for p in work["parts"])
    claimed = run_coroutine(qtbot, qloop, worker.ok({"op": "claim", "room": room, "message": work["id"]}, "claimed"))
    assert claimed["claimed"]

    for status, shown in (("accepted", "claimed by rev"), ("working", "rev is working on it"), ("done", "done by rev")):
        run_coroutine(qtbot, qloop, worker.ok(receipt(worker, room, work["id"], status), "sent"))
        qtbot.waitUntil(lambda shown=shown: shown_states(window) == [f"review: review PR 42 — {shown}"], timeout=10_000)
    completed = run_coroutine(qtbot, qloop, worker.ok({"op": "complete", "room": room, "message": work["id"], "status": "done"}, "completed"))
    assert completed["completed"]
    steps = [step.state for step in window.dispatch.model.work(0).steps]
    assert steps == ["queued", "claimed", "working", "done"]
    run_coroutine(qtbot, qloop, worker.close())
