"""The notifier over a real store: when its session goes while an announcement is under way
(the window quits, a hub is removed) it stops quietly instead of calling a closed store; a long
catch-up holds a bounded batch and ends in the same alert."""

from __future__ import annotations

import logging

import pytest
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import ALICE, ME, add_messages, bridge, message, session, store, store_call  # noqa: F401

from parler_desktop.app.attention import attention_notifier
from parler_desktop.app.attention.attention_notifier import AttentionNotifier
from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.client.events import ConnectionState, StateChanged
from parler_desktop.protocol.values import EndpointRef
from parler_desktop.store import LocalStore

BOB = EndpointRef(id="UBOB", name="bob", role="worker")


def test_a_session_gone_while_its_rooms_are_announced_ends_the_announcement_quietly(qtbot, qloop, session, bridge, caplog):
    notices: list[str] = []
    bridge.notice.connect(lambda text, _room: notices.append(text))
    notifier = AttentionNotifier(bridge, lambda: "", AttentionSettings, lambda room: room, lambda room: False, quiet_ms=20, max_wait_ms=200)
    session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, ME.id))
    add_messages(qtbot, qloop, session, [message(1, "a", "@boss look", mentions=("boss",)), message(2, "b", "@boss here", mentions=("boss",))])
    with qtbot.waitSignal(notifier._quiet.timeout, timeout=2000):
        pass  # the batches of a and b are being announced (a task, a store read per room)
    bridge.detach()  # the window quits: the session goes, then its store closes
    run_coroutine(qtbot, qloop, session.store.close())
    qtbot.waitUntil(lambda: not bridge.tasks.tasks, timeout=5000)
    assert notices == [] and not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("held_max", [40, 10_000])
def test_a_long_catch_up_holds_a_bounded_batch_and_ends_in_the_same_alert(qtbot, qloop, session, bridge, monkeypatch, held_max):
    """Issue 47: the batch held every message of a catch-up until the line was live and quiet
    (a 50,000-message wake held them all). Past ``HELD_MAX`` it lets the older ones go and reads
    them back from the store when it announces: the alert is the one a batch holding all makes
    (the 10,000 run), read ones, mine and the count of those for me included."""
    monkeypatch.setattr(attention_notifier, "HELD_MAX", held_max)
    alerts: list[attention_notifier.Alert] = []
    notifier = AttentionNotifier(bridge, lambda: "", AttentionSettings, lambda room: room, lambda room: False, quiet_ms=20, max_wait_ms=200)
    notifier.alert.connect(alerts.append)
    session.emit(StateChanged(ConnectionState.CATCHING_UP, session.hub_url, ME.id))

    def made(seq: int):
        if seq == 200:
            return message(seq, "a", "my own words", ME)
        if seq in (10, 150, 390):  # 10 is read before the line is live
            return message(seq, "a", "@boss look", BOB if seq % 3 == 0 else ALICE, mentions=("boss",))
        return message(seq, "a", f"step {seq}", BOB if seq % 3 == 0 else ALICE)

    for first in range(1, 401, 25):  # the catch-up's pages
        add_messages(qtbot, qloop, session, [made(seq) for seq in range(first, first + 25)], live=False)
        assert len(notifier._batches["a"].held) <= held_max
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "a", 100)
    session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, ME.id))
    qtbot.waitUntil(lambda: bool(alerts) and not bridge.tasks.tasks, timeout=5000)
    assert [(a.room, a.seq, a.title, a.body) for a in alerts] == [("a", 150, "a", "bob and alice: 299 new, 2 for you")]
