"""Needs you (issue 45, design.md §4b) through the real window on a real hub, with raw agents:
each kind of item appears once, with the count in the title; the human clears the queue with the
keyboard alone (Ctrl+I, then D, R, B, J); every agent gets its answer exactly once; then the
title and the sidebar entry say nothing waits."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from support.desktop_fixtures import click_room, join_room, post_as
from support.peer_ops import hub_history
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.app.needs_you.needs_rules import NeedKind

pytestmark = pytest.mark.timeout(90)


def send_parts(qtbot, qloop, peer, room: str, text: str, *parts: dict) -> dict:
    return post_as(qtbot, qloop, peer, room, text, parts=[{"kind": "text", "text": text}, *parts])


def answers(qtbot, qloop, peer, room: str, request_id: str) -> list[dict]:
    return [m for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m.get("replyTo") == request_id]


def need_count(window) -> int:
    title = window.windowTitle()
    return int(title.split("— ")[1].split(" need you")[0]) if " need you" in title else 0


def ask_as_human(qtbot, qloop, desktop, peer, room: str, text: str) -> str:
    """The human types a request in the room's composer; returns its message id on the hub."""
    composer = desktop.window.composer
    qtbot.keyClicks(composer.edit, text)
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    found: list[str] = []

    def sent() -> bool:
        found[:] = [m["id"] for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m["parts"][0].get("text") == text]
        return bool(found)

    qtbot.waitUntil(sent, timeout=10_000)
    return found[0]


def queue_kinds(window) -> list[NeedKind]:
    model = window.needs_you.model
    return [model.item(row).item.kind for row in range(model.rowCount())]


def open_queue(qtbot, window):
    """Ctrl+I, as the human presses it: the queue shows, its list takes the keys; its view."""
    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    view = window.needs_you.view
    qtbot.waitUntil(lambda: window.needs_you.showing and view.list.hasFocus(), timeout=5000)
    return view


def test_each_kind_appears_once_and_the_keyboard_clears_the_queue(qtbot, qloop, desktop, peer):
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    click_room(qtbot, desktop, room)
    build = ask_as_human(qtbot, qloop, desktop, peer, room, "please build the app")
    deploy = ask_as_human(qtbot, qloop, desktop, peer, room, "please deploy it")
    handoff = send_parts(qtbot, qloop, peer, room, "over to you", {"kind": "com.parler.handoff", "next": "approve the patch", "to": "Boss"})
    question = send_parts(qtbot, qloop, peer, room, "hm", {"kind": "com.parler.task", "status": "awaiting", "task": build, "note": "which **region**?"})
    failed = send_parts(qtbot, qloop, peer, room, "oops", {"kind": "com.parler.task", "status": "failed", "task": deploy, "note": "disk full"})
    post_as(qtbot, qloop, peer, room, "to anyone", parts=[{"kind": "com.parler.handoff", "next": "someone"}])  # not mine
    post_as(qtbot, qloop, peer, room, "chatter")
    qtbot.waitUntil(lambda: need_count(window) == 3, timeout=10_000)
    assert queue_kinds(window) == [NeedKind.HANDOFF, NeedKind.QUESTION, NeedKind.FAILED]
    assert window.needs_you.entry.text() == "Needs you · 3"
    assert QAccessible.queryAccessibleInterface(window.needs_you.entry).text(QAccessible.Text.Name) == "Needs you, 3 waiting"

    view = open_queue(qtbot, window)
    assert view.selected().item.message_id == handoff["id"]  # oldest first, focus on the first
    assert "approve the patch" in view.detail.toPlainText()
    QTest.keyClick(view.list, Qt.Key.Key_D)  # done: the card's Done answer
    assert view.selected().item.message_id == question["id"]  # the next one is selected
    assert "region" in view.detail.toPlainText() and "**" not in view.detail.toPlainText()  # Markdown rendered
    QTest.keyClick(view.list, Qt.Key.Key_R)
    qtbot.waitUntil(view.composer.hasFocus, timeout=2000)
    qtbot.keyClicks(view.composer, "eu-west-1")
    QTest.keyClick(view.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: need_count(window) == 1, timeout=10_000)
    assert queue_kinds(window) == [NeedKind.FAILED]
    QTest.keyClick(view.list, Qt.Key.Key_D)  # acknowledged
    qtbot.waitUntil(lambda: "need you" not in window.windowTitle(), timeout=10_000)
    assert window.needs_you.entry.text() == "Needs you"
    assert QAccessible.queryAccessibleInterface(window.needs_you.entry).text(QAccessible.Text.Name) == "Needs you, nothing waiting"
    tray = desktop.attention.tray
    assert tray is None or "need you" not in tray.toolTip()
    QTest.keyClick(view, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)  # Today…
    today = window.needs_you.today
    qtbot.waitUntil(lambda: today is not None and today.isVisible() or window.needs_you.today is not None and window.needs_you.today.isVisible(), timeout=5000)
    table = window.needs_you.today.table
    assert table.rowCount() == 1 and [table.item(0, c).text() for c in (1, 2, 3)] == ["alice", room, "3"]
    window.needs_you.today.close()

    (done,) = answers(qtbot, qloop, peer, room, handoff["id"])
    assert done["parts"][0]["text"] == "@alice done: approve the patch"
    (reply,) = answers(qtbot, qloop, peer, room, question["id"])
    assert reply["parts"][0]["text"] == "eu-west-1"
    assert answers(qtbot, qloop, peer, room, failed["id"]) == []  # acknowledged here, nothing posted


def test_mentions_leave_when_read_and_join_requests_are_approved_from_the_queue(qtbot, qloop, desktop, peer, hub):
    from support.raw_agent import RawAgent

    window = desktop.window
    invited = run_coroutine(qtbot, qloop, desktop.bridge.invite("channel", "gated", require_approval=True))
    qtbot.waitUntil(lambda: "gated" in window.rooms.room_names(), timeout=10_000)
    joiner = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="carol", role="coder"))
    try:
        run_coroutine(qtbot, qloop, joiner.ok({"op": "redeem", "code": invited.code}, "join_pending"))
        room = join_room(qtbot, qloop, desktop, peer, "chat")
        post_as(qtbot, qloop, peer, room, "hey @boss, a look?")
        qtbot.waitUntil(lambda: sorted(k.value for k in queue_kinds(window)) == ["join", "mention"], timeout=20_000)
        assert need_count(window) == 2
        view = open_queue(qtbot, window)
        while view.selected() is not None and view.selected().item.kind is not NeedKind.JOIN:
            QTest.keyClick(view.list, Qt.Key.Key_J)
        QTest.keyClick(view.list, Qt.Key.Key_A)
        qtbot.waitUntil(lambda: queue_kinds(window) == [NeedKind.MENTION], timeout=10_000)
        QTest.keyClick(view.list, Qt.Key.Key_K)
        QTest.keyClick(view.list, Qt.Key.Key_D)  # marks it read
        qtbot.waitUntil(lambda: "need you" not in window.windowTitle(), timeout=10_000)
        members = run_coroutine(qtbot, qloop, joiner.ok({"op": "rooms"}, "rooms"))
        assert "gated" in [r["name"] for r in members["rooms"]]
    finally:
        run_coroutine(qtbot, qloop, joiner.close())


def test_counts_and_acknowledgements_are_the_same_after_the_window_restarts_and_with_a_fresh_cache(qtbot, qloop, hub, tmp_path):
    from support.desktop_fixtures import start_desktop, stop_desktop
    from support.needs_ops import human_request, task_on
    from support.raw_agent import RawAgent

    home = tmp_path / "home"
    app = start_desktop(qtbot, qloop, home, hub.url)
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        room = join_room(qtbot, qloop, app, peer, "builds")
        build = human_request(qtbot, qloop, app.bridge, peer, room, "please build")
        deploy = human_request(qtbot, qloop, app.bridge, peer, room, "please deploy")
        send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "sign it off", "to": "supervisor"})
        task_on(qtbot, qloop, peer, room, build, "awaiting", "which region?")
        task_on(qtbot, qloop, peer, room, deploy, "failed", "disk full")
        qtbot.waitUntil(lambda: queue_kinds(app.window) == [NeedKind.HANDOFF, NeedKind.QUESTION, NeedKind.FAILED], timeout=10_000)
        view = open_queue(qtbot, app.window)
        QTest.keyClick(view.list, Qt.Key.Key_J)
        QTest.keyClick(view.list, Qt.Key.Key_J)
        assert view.selected().item.kind is NeedKind.FAILED
        QTest.keyClick(view.list, Qt.Key.Key_D)  # acknowledged: kept in the hub's store
        qtbot.waitUntil(lambda: need_count(app.window) == 2, timeout=5000)
        stop_desktop(qtbot, qloop, app)
        app = start_desktop(qtbot, qloop, home, hub.url)
        qtbot.waitUntil(lambda: all(w.ready for w in app.window.needs._watches.values()), timeout=10_000)
        qtbot.waitUntil(lambda: queue_kinds(app.window) == [NeedKind.HANDOFF, NeedKind.QUESTION], timeout=10_000)
        assert need_count(app.window) == 2
        stop_desktop(qtbot, qloop, app)
        caches = [p for p in (home / "data" / "stores").glob("*.sqlite3") if ".outbox" not in p.name]
        assert caches
        for cache in caches:  # a fresh cache: the items come back from the hub's history
            cache.unlink()
            for extra in cache.parent.glob(cache.name + "-*"):
                extra.unlink()
        app = start_desktop(qtbot, qloop, home, hub.url)
        qtbot.waitUntil(lambda: queue_kinds(app.window) == [NeedKind.HANDOFF, NeedKind.QUESTION], timeout=15_000)
        assert need_count(app.window) == 2
    finally:
        run_coroutine(qtbot, qloop, peer.close())
        stop_desktop(qtbot, qloop, app)


def test_an_answer_queued_while_the_hub_is_down_lands_once_after_its_restart(qtbot, qloop, hub_process_factory, tmp_path):
    import asyncio

    from support.desktop_fixtures import start_desktop, stop_desktop
    from support.raw_agent import RawAgent

    hub = hub_process_factory()
    app = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        room = join_room(qtbot, qloop, app, peer, "builds")
        handoff = send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "sign it off", "to": "boss"})
        qtbot.waitUntil(lambda: need_count(app.window) == 1, timeout=10_000)
        run_coroutine(qtbot, qloop, peer.close())
        run_coroutine(qtbot, qloop, asyncio.to_thread(hub.kill))  # kill -9
        qtbot.waitUntil(lambda: not app.bridge.is_live, timeout=10_000)
        view = open_queue(qtbot, app.window)
        QTest.keyClick(view.list, Qt.Key.Key_D)
        model = app.window.needs_you.model
        qtbot.waitUntil(lambda: model.rowCount() == 1 and "answer queued" in model.line(model.item(0)), timeout=5000)
        run_coroutine(qtbot, qloop, asyncio.to_thread(hub.restart))
        qtbot.waitUntil(lambda: need_count(app.window) == 0 and model.rowCount() == 0, timeout=30_000)
        peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity=peer.identity, name="alice", role="planner"))
        (done,) = answers(qtbot, qloop, peer, room, handoff["id"])
        assert done["parts"][0]["text"] == "@alice done: sign it off"
    finally:
        run_coroutine(qtbot, qloop, peer.close())
        stop_desktop(qtbot, qloop, app)


def test_coming_back_after_half_an_hour_the_queue_holds_what_happened_and_enter_opens_it(qtbot, qloop, desktop, peer):
    from support.desktop_fixtures import activate
    from support.private_bus import look_away

    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    since = window.needs_you.since
    offset = [0.0]
    since.clock = lambda: 1_000_000.0 + offset[0]
    activate(qtbot, desktop)
    look_away(qtbot, desktop)  # the human leaves
    offset[0] = 31 * 60
    handoff = send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "ship it", "to": "boss"})
    send_parts(qtbot, qloop, peer, room, "the log", {"kind": "com.parler.file", "blob": "a" * 64, "name": "build.log", "size": 3})
    chatter = post_as(qtbot, qloop, peer, room, "chatter")
    # all three stored before the human is back (the handoff alone counted, the digest once said "2 new" in CI)
    qtbot.waitUntil(lambda: need_count(window) == 1 and window.rooms.summary(room).max_seq == chatter["seq"], timeout=10_000)
    activate(qtbot, desktop)  # back after 31 minutes
    view = window.needs_you.view
    qtbot.waitUntil(lambda: view.digest.count() > 0, timeout=5000)
    texts = [view.digest.item(row).text() for row in range(view.digest.count())]
    label = window.shown_hub.label
    assert texts == [f"{label}: 1 handoff arrived", f"{label}: 1 file or bundle shared", f"{label}: {room} — 3 new"]
    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.digest_box.isVisible(), timeout=5000)
    view.digest.setFocus()
    view.digest.setCurrentRow(0)
    QTest.keyClick(view.digest, Qt.Key.Key_Return)  # opens the handoff in its room
    qtbot.waitUntil(lambda: not window.needs_you.showing and window.timeline_model.room == room, timeout=5000)
    qtbot.waitUntil(
        lambda: (e := window.timeline_model.entry(window.timeline.currentIndex().row())) is not None and e.seq == handoff["seq"],
        timeout=5000,
    )
    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.needs_you.showing, timeout=5000)
    QTest.keyClick(view, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)  # Dismiss
    qtbot.waitUntil(lambda: not view.digest_box.isVisible(), timeout=5000)
    QTest.keyClick(view.list, Qt.Key.Key_Return)  # Enter on the item opens it too
    qtbot.waitUntil(lambda: not window.needs_you.showing and window.timeline_model.room == room, timeout=5000)


def test_snoozes_hide_an_item_until_their_time_or_until_the_agent_posts_and_filters_narrow_the_queue(qtbot, qloop, desktop, peer):
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    first = send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "step one", "to": "boss"})
    send_parts(qtbot, qloop, peer, room, "also", {"kind": "com.parler.handoff", "next": "step two", "to": "boss"})
    post_as(qtbot, qloop, peer, room, "@boss and a mention")
    qtbot.waitUntil(lambda: need_count(window) == 3, timeout=10_000)
    needs = window.needs
    offset = [0.0]
    needs.clock = lambda: __import__("time").time() + offset[0]
    view, menu = open_queue(qtbot, window), window.needs_you.snooze_menu

    view.kind_filter.setCurrentIndex(view.kind_filter.findData(NeedKind.MENTION))
    view.kind_filter.activated.emit(view.kind_filter.currentIndex())
    assert queue_kinds(window) == [NeedKind.MENTION]
    view.kind_filter.setCurrentIndex(0)
    view.kind_filter.activated.emit(0)
    assert len(queue_kinds(window)) == 3

    view.list.setFocus()
    assert view.selected().item.kind is NeedKind.MENTION  # the selection stays on its item through the filters
    QTest.keyClick(view.list, Qt.Key.Key_K)
    QTest.keyClick(view.list, Qt.Key.Key_K)
    assert view.selected().item.message_id == first["id"]
    QTest.keyClick(view.list, Qt.Key.Key_S)
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    QTest.keyClick(menu, Qt.Key.Key_1)  # for 1 hour
    qtbot.waitUntil(lambda: need_count(window) == 2, timeout=5000)
    assert view.selected().item.text.startswith("step two")  # the next one is selected
    QTest.keyClick(view.list, Qt.Key.Key_S)
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    QTest.keyClick(menu, Qt.Key.Key_P)  # until the agent posts again
    qtbot.waitUntil(lambda: need_count(window) == 1, timeout=5000)
    post_as(qtbot, qloop, peer, room, "anything")  # alice speaks: "step two" is back
    qtbot.waitUntil(lambda: need_count(window) == 2, timeout=5000)
    offset[0] = 3601  # an hour later: "step one" is back too
    needs.refresh()
    qtbot.waitUntil(lambda: need_count(window) == 3, timeout=5000)


def test_the_buttons_do_what_the_keys_do(qtbot, qloop, desktop, peer):
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    handoff = send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "the migration", "to": "boss"})
    post_as(qtbot, qloop, peer, room, "@boss have a look")
    qtbot.waitUntil(lambda: need_count(window) == 2, timeout=10_000)
    window.needs_you.entry.click()  # the sidebar entry opens the queue
    view = window.needs_you.view
    qtbot.waitUntil(lambda: window.needs_you.showing and view.selected() is not None, timeout=5000)
    assert view.selected().item.kind is NeedKind.HANDOFF
    assert not view.buttons["approve"].isEnabled() and view.buttons["hand back"].isEnabled()
    QTest.mouseClick(view.buttons["hand back"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.selected() is not None and view.selected().item.kind is NeedKind.MENTION, timeout=5000)
    assert not view.buttons["hand back"].isEnabled()
    QTest.mouseClick(view.buttons["done"], Qt.MouseButton.LeftButton)  # marks it read
    qtbot.waitUntil(lambda: need_count(window) == 0, timeout=10_000)
    (back,) = answers(qtbot, qloop, peer, room, handoff["id"])
    assert [p for p in back["parts"] if p["kind"] == "com.parler.handoff"] == [
        {"kind": "com.parler.handoff", "next": "the migration", "summary": "handed back by the supervisor", "to": "alice"}
    ]


def test_a_direct_message_and_a_handoff_with_no_addressee_in_a_dm_wait_on_the_human(qtbot, qloop, desktop, peer):
    window = desktop.window
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "dm"}, "invited"))
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
    room = invited["room"]
    qtbot.waitUntil(lambda: room in window.rooms.room_names(), timeout=10_000)
    post_as(qtbot, qloop, peer, room, "got a minute?")
    send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "pick the name"})
    qtbot.waitUntil(lambda: queue_kinds(window) == [NeedKind.MENTION, NeedKind.HANDOFF], timeout=10_000)
    assert need_count(window) == 2


def test_every_item_shows_how_long_it_has_waited_and_the_queue_keeps_it_current(qtbot, qloop, desktop, peer):
    """A mention and a DM say "waiting N min" like a handoff, on screen: however long the
    message, its row shows the wait (the row's end is cut to fit, and the wait was the end); and
    every row moves on with the clock (the queue's tick)."""
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "dm"}, "invited"))
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
    qtbot.waitUntil(lambda: invited["room"] in window.rooms.room_names(), timeout=10_000)
    offset = [0.0]
    window.needs.clock = lambda: time.time() + offset[0]
    send_parts(qtbot, qloop, peer, room, "over to you", {"kind": "com.parler.handoff", "next": "approve the patch", "to": "boss"})
    post_as(qtbot, qloop, peer, room, "hey @boss, " + "the build log says the linker ran out of memory again " * 8)
    post_as(qtbot, qloop, peer, invited["room"], "got a minute? " + "I would like to walk you through the migration plan " * 8)
    qtbot.waitUntil(lambda: queue_kinds(window) == [NeedKind.HANDOFF, NeedKind.MENTION, NeedKind.MENTION], timeout=10_000)
    view = open_queue(qtbot, window)

    def on_screen() -> list[str]:
        """Each row's text as far as it fits the list's width (the rest is cut off with "…")."""
        metrics, rows = view.list.fontMetrics(), range(view.model.rowCount())
        return [
            metrics.elidedText(view.model.index(row).data(), Qt.TextElideMode.ElideRight, view.list.visualRect(view.model.index(row)).width() - 8)
            for row in rows
        ]

    assert all("waiting under 1 min" in line for line in on_screen()), on_screen()
    assert on_screen()[2].startswith("Mention · alice (planner) · ") and "got a minute?" in on_screen()[2]  # the DM
    offset[0] = 14 * 60 + 5
    view.refresh_times()  # (what the queue's timer does every 30 s)
    assert all("waiting 14 min" in line for line in on_screen()), on_screen()
    assert view.header.text() == "1 agent waiting on you · longest 14 min"


def test_after_a_night_the_cache_is_read_for_items_once_the_catch_up_is_over(qtbot, qloop, hub, tmp_path):
    """Waking, the window reads its cache for the items it holds only once the catch-up is over
    (on the store's thread, that read held up the catch-up's own): not yet when the pulls are
    over; the items are then the same, those of the night with them."""
    from support.desktop_fixtures import start_desktop, stop_desktop
    from support.raw_agent import RawAgent

    from parler_desktop.ui.desktop import DesktopApp

    home = tmp_path / "home"
    app = start_desktop(qtbot, qloop, home, hub.url)
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        room = join_room(qtbot, qloop, app, peer, "builds")
        send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "sign it off", "to": "supervisor"})
        qtbot.waitUntil(lambda: need_count(app.window) == 1, timeout=10_000)
        stop_desktop(qtbot, qloop, app)
        for n in range(40):  # the night
            post_as(qtbot, qloop, peer, room, f"night note {n}")
        send_parts(qtbot, qloop, peer, room, "and this", {"kind": "com.parler.handoff", "next": "ship it", "to": "supervisor"})
        app = DesktopApp(app.home, hub.url)
        app.window.show()
        entry = app.hubs.entries[0]
        ready_when_pulled: list[bool] = []
        entry.bridge.pullsOver.connect(lambda: ready_when_pulled.append(app.window.needs._watches[entry].ready))
        assert run_coroutine(qtbot, qloop, app.connect(hub.url))
        qtbot.waitUntil(lambda: app.bridge.is_live and app.window.needs._watches[entry].ready, timeout=15_000)
        assert ready_when_pulled[:1] == [False]
        qtbot.waitUntil(lambda: need_count(app.window) == 2, timeout=10_000)
        assert queue_kinds(app.window) == [NeedKind.HANDOFF, NeedKind.HANDOFF]
    finally:
        run_coroutine(qtbot, qloop, peer.close())
        stop_desktop(qtbot, qloop, app)


def test_a_failure_acknowledged_just_before_quitting_is_still_acknowledged_after_the_restart(qtbot, qloop, hub, tmp_path):
    """The human presses D on a failure and quits at once, while the store's thread is busy
    (a page being written): the acknowledgement is written before the store closes. It was
    cancelled with the window's tasks, and the failure was back in the queue after the restart."""
    from support.desktop_fixtures import start_desktop, stop_desktop
    from support.needs_ops import human_request, task_on
    from support.raw_agent import RawAgent

    home = tmp_path / "home"
    app = start_desktop(qtbot, qloop, home, hub.url)
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    try:
        room = join_room(qtbot, qloop, app, peer, "builds")
        deploy = human_request(qtbot, qloop, app.bridge, peer, room, "please deploy")
        task_on(qtbot, qloop, peer, room, deploy, "failed", "disk full")
        qtbot.waitUntil(lambda: queue_kinds(app.window) == [NeedKind.FAILED], timeout=10_000)
        view = open_queue(qtbot, app.window)
        assert view.selected().item.kind is NeedKind.FAILED
        busy = qloop.create_task(app.bridge.store.call(lambda _store: time.sleep(0.5)))  # a long write
        QTest.keyClick(view.list, Qt.Key.Key_D)
        assert need_count(app.window) == 0
        stop_desktop(qtbot, qloop, app)  # quit at once
        assert busy.done()
        app = start_desktop(qtbot, qloop, home, hub.url)
        qtbot.waitUntil(lambda: all(w.ready for w in app.window.needs._watches.values()), timeout=10_000)
        send_parts(qtbot, qloop, peer, room, "yours", {"kind": "com.parler.handoff", "next": "sign it off", "to": "supervisor"})
        qtbot.waitUntil(lambda: queue_kinds(app.window) == [NeedKind.HANDOFF], timeout=10_000)  # not the failure
        assert need_count(app.window) == 1
    finally:
        run_coroutine(qtbot, qloop, peer.close())
        stop_desktop(qtbot, qloop, app)
