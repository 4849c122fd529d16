"""AgentWatch over a real store: the newest page it reads once a session has connected and caught
up, and what the session stores meanwhile, are each taken in once (a message counted twice looks
like a loop)."""

from __future__ import annotations

from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import ALICE, message, session, store, store_call  # noqa: F401 - fixtures

from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.room_list.agent_watch import AgentWatch
from parler_desktop.client.events import ConnectionState, MessagesStored, StateChanged
from parler_desktop.protocol.values import EndpointRef
from parler_desktop.store import LocalStore

BOB = EndpointRef(id="UBOB", name="bob", role="coder")
T0 = 1_700_000_000.0  # message(seq) is stamped T0 + seq seconds


def exchange(first: int, last: int) -> list:
    return [message(seq, "r", f"round {seq}", ALICE if seq % 2 else BOB) for seq in range(first, last + 1)]


def reading(bridge: SessionBridge) -> bool:
    return any(task.get_name().endswith("agent states") for task in bridge.tasks.tasks)


def test_what_a_room_stores_while_its_page_is_read_is_taken_in_once(qtbot, qloop, session):
    store_call(qtbot, qloop, session.store, LocalStore.insert_messages, exchange(1, 12))
    bridge = SessionBridge()
    watch = AgentWatch(bridge, lambda: AttentionSettings(loop_messages=12), clock=lambda: T0 + 14)
    bridge.attach(session)
    session.emit(StateChanged(ConnectionState.CATCHING_UP, session.hub_url, session.agent_id))
    session.emit(MessagesStored("r", tuple(exchange(11, 12)), False))  # the catch-up's: in the page too
    assert not reading(bridge)  # not while the session catches up
    session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, session.agent_id))  # now the room's newest page
    assert reading(bridge)
    qtbot.waitUntil(lambda: not reading(bridge), timeout=5000)
    assert watch.hints("r") == ()  # 12 messages between two agents: not more than 12
    stored = store_call(qtbot, qloop, session.store, LocalStore.insert_messages, exchange(13, 13))
    session.emit(MessagesStored("r", tuple(stored), True))
    assert [hint.text for hint in watch.hints("r")] == ["alice and bob exchanged 13 messages in 5 min without a human: a loop?"]
