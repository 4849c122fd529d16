"""Signature verdicts are checked on the store's thread as a message is stored and kept with it (a
push shown before it is stored is checked as it arrives, and the store keeps that verdict)."""

from __future__ import annotations

import dataclasses
import functools
import sqlite3
import threading
from pathlib import Path

import pytest

from parler_desktop.client.events import ConnectionState, MessagesArrived
from parler_desktop.identity import Identity, verify_signature
from parler_desktop.client import session as session_module
from parler_desktop.protocol.canonical import sign_parts, verify_message
from parler_desktop.protocol.values import EndpointRef, RoomTarget, SignatureState, StoredMessage
from parler_desktop.store import LocalStore

from support.client_harness import session_factory  # noqa: F401  (fixture)
from test_store import make_message

AUTHOR = Identity.generate()
OWNER = "UOWNER"


def signed_message(seq: int, text: str = "signed") -> StoredMessage:
    parts = sign_parts(AUTHOR.agent_id, RoomTarget("team"), [{"kind": "text", "text": text}], None, AUTHOR.sign)
    return make_message(seq, sender=EndpointRef(id=AUTHOR.agent_id, name="author"), parts=parts)


def tampered(message: StoredMessage) -> StoredMessage:
    return make_message(message.seq, sender=message.sender, parts=({"kind": "text", "text": "forged"}, *message.parts[1:]))


def column(path: Path) -> dict[int, str | None]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT seq, signature FROM messages"))


CHECKS: list[str] = []  # the thread of every signature check since the test began


def counted(agent_id: str, data: bytes, sig: str) -> bool:
    """The real check, noting the thread it ran on."""
    CHECKS.append(threading.current_thread().name)
    return verify_signature(agent_id, data, sig)


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    CHECKS.clear()
    monkeypatch.setattr(session_module, "verify_signature", counted)  # what sessions give their store
    return CHECKS


def owners_check() -> functools.partial:
    return functools.partial(verify_message, verify=counted, my_id=OWNER)


def test_verdicts_are_stored_with_the_messages_and_read_back(tmp_path: Path, checks: list[str]):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.check_signatures_with(owners_check())
    new = store.insert_messages([signed_message(1), tampered(signed_message(2)), make_message(3)])
    assert [m.signature for m in new] == [SignatureState.VALID, SignatureState.INVALID, SignatureState.UNSIGNED]
    assert column(path) == {1: "verified", 2: "invalid", 3: "unsigned"}
    assert len(checks) == 2  # the unsigned message needs no check
    store.insert_messages([signed_message(1)])  # a pull repeating a push: stored already, not checked again
    assert len(checks) == 2
    read = store.messages_after("team", 0, 10) + [store.message_by_id("team", "msg-1")]
    assert [m.signature for m in read] == [SignatureState.VALID, SignatureState.INVALID, SignatureState.UNSIGNED, SignatureState.VALID]
    assert len(checks) == 2  # reading never checks a stored verdict again
    store.close()


def test_rows_stored_before_verdicts_are_checked_once_when_first_read(tmp_path: Path, checks: list[str]):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.insert_messages([signed_message(1), tampered(signed_message(2))])  # owner not known yet
    assert column(path) == {1: None, 2: None} and not checks
    store.close()
    store = LocalStore(path)
    store.check_signatures_with(owners_check())
    assert [m.signature for m in store.messages_slice("team", 0, 10)] == [SignatureState.VALID, SignatureState.INVALID]
    assert column(path) == {1: "verified", 2: "invalid"}
    store.messages_before("team", 10, 10)
    assert len(checks) == 2
    store.close()


async def test_a_pushed_message_is_shown_with_its_verdict_before_it_is_stored_and_checked_once(
    hub, raw_agent, session_factory, checks: list[str]
):
    peer = await raw_agent(hub.url, name="bot", identity=AUTHOR)
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(invited["code"])
    await log.wait_until(lambda: "team" in [r.name for r in session.rooms], "the room listed")
    for text in ("signed", "forged"):
        parts = sign_parts(AUTHOR.agent_id, RoomTarget("team"), [{"kind": "text", "text": "signed"}], None, AUTHOR.sign)
        parts = ({"kind": "text", "text": text}, *parts[1:])
        await peer.ok({"op": "send", "target": {"kind": "room", "room": "team"}, "parts": list(parts)}, "sent")
    await log.wait_until(lambda: len(log.messages("team")) == 2, "both messages stored")
    arrived = [m for event in log.of(MessagesArrived) for m in event.messages]
    assert [m.signature for m in arrived] == [SignatureState.VALID, SignatureState.INVALID]  # as shown at once
    assert [m.signature for m in log.messages("team")] == [SignatureState.VALID, SignatureState.INVALID]
    assert len(checks) == 2  # once each, as they arrived: the store keeps those verdicts


def test_a_verdict_that_comes_with_a_message_is_kept_without_a_second_check(tmp_path: Path, checks: list[str]):
    store = LocalStore(tmp_path / "store.sqlite3")
    store.check_signatures_with(owners_check())
    given = dataclasses.replace(signed_message(1), signature=SignatureState.VALID)
    assert [m.signature for m in store.insert_messages([given, tampered(signed_message(2))])] == [
        SignatureState.VALID, SignatureState.INVALID,
    ]
    assert column(tmp_path / "store.sqlite3") == {1: "verified", 2: "invalid"} and len(checks) == 1
    store.close()
