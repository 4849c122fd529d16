"""The window against our hub and the reference hub: a post typed into the composer reaches the
agent once; a reply typed to the agent's message carries its id; a post typed while the hub is
down is in the room once after it restarts."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from support.desktop_fixtures import activate, click_room, join_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(90)


def type_and_enter(qtbot, window, text: str) -> None:
    composer = window.composer.edit
    composer.setFocus()
    qtbot.keyClicks(composer, text)
    qtbot.keyClick(composer, Qt.Key.Key_Return)


def no_more_deliveries(qtbot, qloop, peer, seconds: float = 1.0) -> list[dict]:
    async def drain() -> list[dict]:
        extra = []
        try:
            while True:
                extra.append(await peer.recv_delivery(timeout=seconds))
        except (TimeoutError, asyncio.TimeoutError):
            return extra

    return run_coroutine(qtbot, qloop, drain())


def test_the_window_posts_once_and_replies(qtbot, qloop, desktop, peer):
    """The reading journeys run on both hubs from test_journey_reading.py
    (test_journeys_on_both_hubs.py); here: a post typed in the composer reaches the agent once,
    and a reply carries the id of the message it answers."""
    team = join_room(qtbot, qloop, desktop, peer, "team")  # redeemed by its invite code
    window = desktop.window
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    view, model = window.timeline, window.timeline_model

    type_and_enter(qtbot, window, "on it")
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0]["text"] == "on it" and delivered["room"] == team
    assert delivered["from"]["id"] == desktop.bridge.session.identity.agent_id
    assert no_more_deliveries(qtbot, qloop, peer) == []  # exactly once
    qtbot.waitUntil(lambda: model.newest_seq == delivered["seq"], timeout=10_000)

    question = post_as(qtbot, qloop, peer, team, "which branch?")
    qtbot.waitUntil(lambda: model.newest_seq == question["seq"], timeout=10_000)
    asked = model.entry(model.rowCount() - 1)
    assert asked.text == "which branch?" and asked.message_id == question["id"]
    view.replyRequested.emit(asked)  # what the row's "Reply" menu entry does
    type_and_enter(qtbot, window, "main")
    answer = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert answer["parts"][0]["text"] == "main" and answer["replyTo"] == question["id"]
    assert no_more_deliveries(qtbot, qloop, peer) == []


def test_a_post_typed_while_the_hub_is_down_reaches_the_agent_once_after_it_restarts(qtbot, qloop, desktop, peer, hub):
    """The hub dies (the reference one with kill -9; ours is stopped); the human posts anyway; the
    hub comes back on the same port and database: the window is live again and the post is in the
    room exactly once."""
    from support.peer_ops import hub_history
    from support.raw_agent import RawAgent

    team = join_room(qtbot, qloop, desktop, peer, "team")
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    before = post_as(qtbot, qloop, peer, team, "before the crash")["seq"]
    model = desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.newest_seq == before, timeout=10_000)
    run_coroutine(qtbot, qloop, peer.close())
    hub.stop()  # the reference hub: kill -9
    qtbot.waitUntil(lambda: not desktop.bridge.is_live, timeout=15_000)
    type_and_enter(qtbot, desktop.window, "typed while the hub was down")
    hub.restart()
    qtbot.waitUntil(lambda: desktop.bridge.is_live, timeout=30_000)
    again = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity=peer.identity, name="alice", role="planner"))
    try:
        def texts() -> list[str]:
            return [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(again, team))]

        qtbot.waitUntil(lambda: len(texts()) == 2, timeout=20_000)
        assert texts() == ["before the crash", "typed while the hub was down"]
        qtbot.waitUntil(lambda: model.entry(model.rowCount() - 1).seq is not None, timeout=10_000)
        assert [model.entry(row).text for row in range(model.rowCount())] == texts()
    finally:
        run_coroutine(qtbot, qloop, again.close())
