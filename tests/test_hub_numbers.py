"""Numbers JSON cannot carry never reach the hub's store, and a stored row it cannot send never
takes a connection down (protocol.md §1.3, §7.17 ``bad_frame``)."""

from __future__ import annotations

import math
import sqlite3

import pytest

from parler_desktop.client.events import ConnectionState, OutboxChanged
from parler_desktop.identity import verify_signature
from parler_desktop.protocol.canonical import SignatureState, verify_message
from support.client_harness import session_factory  # noqa: F401  (fixture)
from support.raw_agent import make_room

pytestmark = pytest.mark.timeout(30)


def data_send(room: str, data) -> dict:
    return {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "data", "data": data}]}


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
async def test_a_part_holding_nan_or_infinity_is_a_bad_frame_and_the_room_stays_readable(hub, raw_agent, value):
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    refused = await alice.request(data_send(room, {"x": value}))  # json.dumps writes NaN / Infinity
    assert refused["type"] == "error" and refused["code"] == "bad_frame", refused
    await alice.ok(data_send(room, {"x": 1.5}), "sent")
    await alice.send_text('{"op":"send","target":{"kind":"room","room":"%s"},"parts":[{"kind":"data","data":1e400}]}' % room)
    assert (await alice.recv())["code"] == "bad_frame"
    pulled = await bob.ok({"op": "pull", "room": room}, "pulled")
    assert [m["parts"] for m in pulled["messages"]] == [[{"kind": "data", "data": {"x": 1.5}}]]
    await alice.ok({"op": "ping"}, "pong")


async def test_a_stored_row_that_cannot_be_sent_is_relayed_as_a_notice_and_the_socket_lives(hub, raw_agent):
    """A database written by an older hub may hold NaN; every read of the room used to end in 1011."""
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    poisoned = await alice.ok(data_send(room, {"x": 1}), "sent")
    after = await alice.ok(data_send(room, {"x": 2}), "sent")
    with sqlite3.connect(hub.config.db_path) as db:
        db.execute("UPDATE messages SET parts = ? WHERE id = ?", ('[{"data":{"x":NaN},"kind":"data"}]', poisoned["id"]))
    for read in ({"op": "pull", "room": room, "since": 0}, {"op": "pull", "room": room}):
        pulled = await bob.ok(read, "pulled")
        assert [m["seq"] for m in pulled["messages"]] == [poisoned["seq"], after["seq"]]
        notice, intact = pulled["messages"]
        assert notice["parts"][0]["kind"] == "text" and "cannot relay" in notice["parts"][0]["text"]
        assert intact["parts"] == [{"kind": "data", "data": {"x": 2}}]
    await bob.ok({"op": "ping"}, "pong")


async def test_awkward_numbers_survive_the_hub_with_a_valid_signature(hub, raw_agent, session_factory):
    """Tiny floats, -0 and integers past 2^64 are signed as the reference writes them."""
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(invited["code"])
    data = {"kind": "data", "data": {"tiny": 1e-7, "small": 0.00001, "neg0": -0.0, "huge": 2**70}}
    await session.post("team", "", extra_parts=[data])
    await log.wait_until(lambda: len(log.messages("team")) == 1, "our message back from the hub")
    message = log.messages("team")[0]
    assert message.parts[0]["data"]["huge"] == 2.0**70 and math.copysign(1, message.parts[0]["data"]["neg0"]) < 0
    assert verify_message(message, verify_signature, "U-someone-else") is SignatureState.VALID


async def test_a_post_holding_nan_is_refused_before_it_reaches_the_outbox(hub, session_factory):
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    with pytest.raises(ValueError, match="NaN"):
        await session.post("team", "see data", extra_parts=[{"kind": "data", "data": {"x": math.nan}}])
    assert log.of(OutboxChanged) == []


async def test_any_reply_that_cannot_be_encoded_is_an_internal_error_not_a_dropped_socket(hub, raw_agent):
    """The last line of defence: a legacy directory card holding NaN fails its own lookup only."""
    alice = await raw_agent(hub.url, name="alice")
    await alice.ok({"op": "register", "card": {"id": alice.id, "name": "alice", "kind": "agent", "meta": {"x": 1}}}, "registered")
    with sqlite3.connect(hub.config.db_path) as db:
        db.execute("UPDATE directory SET card = ? WHERE agent = ?",
                   ('{"id":"%s","kind":"agent","meta":{"x":NaN},"name":"alice"}' % alice.id, alice.id))
    failed = await alice.request({"op": "lookup", "id": alice.id})
    assert failed["type"] == "error" and failed["code"] == "internal", failed
    await alice.ok({"op": "ping"}, "pong")
