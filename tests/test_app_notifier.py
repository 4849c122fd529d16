"""The notifier over a real store when its session goes while an announcement is under way
(the window quits, a hub is removed): it stops quietly instead of calling a closed store."""

from __future__ import annotations

import logging

from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import ME, add_messages, bridge, message, session, store  # noqa: F401

from parler_desktop.app.attention.attention_notifier import AttentionNotifier
from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.client.events import ConnectionState, StateChanged


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
