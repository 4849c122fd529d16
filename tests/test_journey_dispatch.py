"""Journey: queue work for a role (issue 43 item 4). In a service room the person chooses
Hub → Dispatch to role…, types the task and presses Dispatch; a worker of that role (a raw agent
doing what ``parler supervise --role`` does: queue, claim, receipts, complete) takes it, and the
list above the timeline shows each state as it happens."""

from __future__ import annotations

import re
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel
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


def without_lease(states: list[str]) -> list[str]:
    """The rows without the lease's countdown (a held lease's rows end with it)."""
    return [state.split(" · lease ")[0] for state in states]


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
        qtbot.waitUntil(lambda shown=shown: without_lease(shown_states(window)) == [f"review: review PR 42 — {shown}"], timeout=10_000)
    completed = run_coroutine(qtbot, qloop, worker.ok({"op": "complete", "room": room, "message": work["id"], "status": "done"}, "completed"))
    assert completed["completed"]
    steps = [step.state for step in window.dispatch.model.work(0).steps]
    assert steps == ["queued", "claimed", "working", "done"]
    run_coroutine(qtbot, qloop, worker.close())


def test_a_claims_lease_end_counts_down_in_the_room_the_agents_view_and_the_card_and_at_its_end_the_work_is_queued_again(
    qtbot, qloop, desktop, hub
) -> None:
    """The hub tells a lease's end only to its holder; the window reckons it from the holder's
    claim (its ``accepted`` receipt) and the hub's default lease, counts it down, says what
    happens when it runs out, and shows that when it has."""
    from test_journey_agents import open_agents_view, shown

    window = desktop.window
    worker = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="rev", role="reviewer"))
    try:
        room = join_service(qtbot, qloop, desktop, worker, "review")
        open_room(qtbot, desktop, room)
        dispatch_from_dialog(qtbot, window, "review PR 43")
        qtbot.waitUntil(lambda: shown_states(window) == ["review: review PR 43 — queued"], timeout=10_000)
        run_coroutine(qtbot, qloop, worker.ok({"op": "presence", "status": "idle"}, "presence_ok"))
        [work] = run_coroutine(qtbot, qloop, worker.ok({"op": "queue", "room": room, "role": "review"}, "queued"))["messages"]
        claimed = run_coroutine(qtbot, qloop, worker.ok({"op": "claim", "room": room, "message": work["id"]}, "claimed"))
        run_coroutine(qtbot, qloop, worker.ok(receipt(worker, room, work["id"], "accepted"), "sent"))

        lease = re.compile(r"^review: review PR 43 — claimed by rev · lease ends (\d\d:\d\d:\d\d) \(in ([45]:\d\d)\)$")
        qtbot.waitUntil(lambda: bool(shown_states(window)) and lease.match(shown_states(window)[0]) is not None, timeout=10_000)
        ends_at, left = lease.match(shown_states(window)[0]).groups()
        hub_end = claimed["leaseUntil"] / 1000  # what the hub told the holder
        assert abs(window.dispatch.model.work(0).lease_end_ms / 1000 - hub_end) < 5
        assert ends_at == time.strftime("%H:%M:%S", time.localtime(window.dispatch.model.work(0).lease_end_ms / 1000))
        qtbot.waitUntil(lambda: lease.match(shown_states(window)[0]).group(2) != left, timeout=5000)  # it counts down
        tip = window.dispatch.model.index(0).data(Qt.ItemDataRole.ToolTipRole)
        assert "When the lease runs out, the work goes back in the queue for the next review worker." in tip

        view = open_agents_view(qtbot, desktop)  # the holder's row and card say it too
        qtbot.waitUntil(lambda: re.search(r"· lease ends in [45]:\d\d$", shown(view).get("rev", {}).get("On", "")) is not None, timeout=10_000)
        key = next(k for k in desktop.agents.model.state.agents if k[1] == worker.id)
        fleet = desktop.agents.model
        assert "When it runs out, the work goes back in the queue" in fleet.index(fleet.row_of(key), 0).data(Qt.ItemDataRole.ToolTipRole)
        card = desktop.agents.open_card(key)
        assert re.search(r"Lease: ends \d\d:\d\d:\d\d \(in [45]:\d\d\)\. When it runs out, the work goes back in the queue", card.summary.text())

        model = window.dispatch.model  # rev shows it works, as a worker renewing its lease does: the end moves on
        resets: list[int] = []
        model.modelReset.connect(lambda: resets.append(1))
        claimed_end = model.work(0).lease_end_ms
        for status in ("working", "idle"):
            run_coroutine(qtbot, qloop, worker.ok({"op": "presence", "status": status}, "presence_ok"))
            run_coroutine(qtbot, qloop, desktop.bridge.refresh_roster(room))
        qtbot.waitUntil(lambda: model.work(0).lease_end_ms > claimed_end, timeout=10_000)
        assert model.work(0).state == "claimed" and not resets  # the rows repainted, the list stayed

        later = time.time() + 301  # five minutes on: rev said nothing more and is not working
        window.dispatch.model.clock = desktop.agents.model.clock = lambda: later
        qtbot.waitUntil(lambda: shown_states(window) == ["review: review PR 43 — rev's lease ran out: back in the queue"], timeout=5000)
        qtbot.waitUntil(lambda: shown(view)["rev"]["On"].endswith("· lease ran out: back in the queue"), timeout=5000)
        qtbot.waitUntil(lambda: "Lease: ran out: the work is back in the queue" in card.summary.text(), timeout=5000)
        card.close()
    finally:
        run_coroutine(qtbot, qloop, worker.close())


def test_work_dispatched_to_a_role_from_any_room_goes_to_its_service_which_opens_with_the_work_in_it(qtbot, qloop, desktop, hub, peer) -> None:
    """As ``parler send --role review`` does: no invite to the service room is needed; the post's
    service target joins the human to it (protocol.md §7.4), and the window shows it."""
    from support.desktop_fixtures import join_room

    window = desktop.window
    worker = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="rev", role="reviewer"))
    try:
        room = run_coroutine(qtbot, qloop, worker.ok({"op": "serve", "service": "review"}, "joined"))["room"]
        plans = join_room(qtbot, qloop, desktop, peer, "plans")
        open_room(qtbot, desktop, plans)  # an ordinary room
        assert room not in window.rooms.room_names()
        choose(qtbot, window, "Hub", "Dispatch to role…")
        qtbot.waitUntil(lambda: visible(window, DispatchDialog, "dispatchDialog") is not None, timeout=5000)
        dialog = visible(window, DispatchDialog, "dispatchDialog")
        assert dialog.role.text() == ""
        assert "the role's own service room" in dialog.findChild(QLabel, "dispatchWhere").text()  # said where it goes
        qtbot.keyClicks(dialog.role, "review")
        qtbot.keyClicks(dialog.task, "review PR 44")
        QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.timeline_model.room == room, timeout=10_000)  # its service room, opened
        qtbot.waitUntil(lambda: shown_states(window) == ["review: review PR 44 — queued"], timeout=10_000)
        run_coroutine(qtbot, qloop, worker.ok({"op": "presence", "status": "idle"}, "presence_ok"))
        [work] = run_coroutine(qtbot, qloop, worker.ok({"op": "queue", "room": room, "role": "review"}, "queued"))["messages"]
        assert work["from"]["id"] == desktop.bridge.agent_id
        assert run_coroutine(qtbot, qloop, worker.ok({"op": "claim", "room": room, "message": work["id"]}, "claimed"))["claimed"]
        run_coroutine(qtbot, qloop, worker.ok(receipt(worker, room, work["id"], "done"), "sent"))
        qtbot.waitUntil(lambda: shown_states(window) == ["review: review PR 44 — done by rev"], timeout=10_000)

        open_room(qtbot, desktop, plans)
        choose(qtbot, window, "Hub", "Dispatch to role…")  # a role nobody serves on this hub: said so
        qtbot.waitUntil(lambda: visible(window, DispatchDialog, "dispatchDialog") is not None, timeout=5000)
        dialog = visible(window, DispatchDialog, "dispatchDialog")
        dialog.role.setText("nobody")
        qtbot.keyClicks(dialog.task, "anything")
        QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Not dispatched to nobody: "), timeout=10_000)
    finally:
        run_coroutine(qtbot, qloop, worker.close())
