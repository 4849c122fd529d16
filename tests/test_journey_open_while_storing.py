"""Journey: a room opened while pushes are being stored is read beside the writes (issue 42 item 3:
under traffic a switch waited for every push queued before its page), and shows every message
of the room once: those its page read, and those stored after it, whichever way they raced."""

from __future__ import annotations

import threading

import pytest
from support.desktop_fixtures import click_room, click_row, join_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.store import LocalStore

pytestmark = pytest.mark.timeout(60)


def shown_seqs(desktop) -> list[int]:
    model = desktop.window.timeline_model
    return [model.entry(row).seq for row in range(model.rowCount())]


def stored_seqs(qtbot, qloop, desktop, room: str) -> list[int]:
    return [m.seq for m in run_coroutine(qtbot, qloop, desktop.bridge.store.call(LocalStore.messages_after, room, 0, 1000))]


def test_a_room_opens_while_the_store_is_busy_writing(qtbot, qloop, hub, desktop, peer):
    team, other = join_room(qtbot, qloop, desktop, peer, "team"), join_room(qtbot, qloop, desktop, peer, "other")
    model = desktop.window.timeline_model
    before = [post_as(qtbot, qloop, peer, team, f"before {n}")["seq"] for n in range(5)]
    click_room(qtbot, desktop, other)
    qtbot.waitUntil(lambda: stored_seqs(qtbot, qloop, desktop, team) == before, timeout=10_000)

    assert run_coroutine(qtbot, qloop, desktop.bridge.store.reader_opened())  # (beside the writer, on its thread)
    release = threading.Event()  # the store's writer held, as by the pushes of a busy afternoon
    busy = qloop.create_task(desktop.bridge.store.call(lambda _store: release.wait(30)))
    try:
        during = [post_as(qtbot, qloop, peer, team, f"while the store is busy {n}")["seq"] for n in range(3)]
        click_row(desktop, team)
        qtbot.waitUntil(lambda: model.room == team and not model.loading, timeout=5000)  # read beside the writer
        assert not busy.done()
        assert shown_seqs(desktop)[:5] == before
    finally:
        release.set()
    qtbot.waitUntil(busy.done, timeout=5000)
    qtbot.waitUntil(lambda: shown_seqs(desktop) == before + during, timeout=10_000)  # each stored after it: once
    assert stored_seqs(qtbot, qloop, desktop, team) == before + during


def test_a_room_switched_to_and_fro_under_pushes_shows_each_message_once(qtbot, qloop, hub, desktop, peer):
    team, other = join_room(qtbot, qloop, desktop, peer, "team"), join_room(qtbot, qloop, desktop, peer, "other")
    model = desktop.window.timeline_model
    post_as(qtbot, qloop, peer, team, "the first")
    click_room(qtbot, desktop, team)
    sent: list[int] = []

    async def post_many() -> None:
        for n in range(80):
            frame = {"op": "send", "target": {"kind": "room", "room": team}, "parts": [{"kind": "text", "text": f"push {n}"}]}
            sent.append((await peer.ok(frame, "sent"))["seq"])

    posting = qloop.create_task(post_many())
    for room in [other, team] * 4:  # while they are being pushed and stored
        click_row(desktop, room)
        qtbot.waitUntil(lambda: model.room == room and not model.loading, timeout=5000)
    qtbot.waitUntil(posting.done, timeout=30_000)
    posting.result()
    qtbot.waitUntil(lambda: shown_seqs(desktop)[-1:] == sent[-1:], timeout=10_000)
    shown = shown_seqs(desktop)
    assert shown == stored_seqs(qtbot, qloop, desktop, team)[-len(shown):]  # no gap, no message twice
