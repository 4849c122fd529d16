"""send / pull / rooms: cursors, acks, long-polls, unread, idempotency, pushes (§7.1–§7.7)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parler_desktop.hub.ops.common import fresh_delivery, stored_message
from parler_desktop.hub.sql.messages import MessageRow
from parler_desktop.protocol import encode, wire_json
from parler_desktop.protocol.frames import Delivery, decode_hub_frame
from support.raw_agent import RawAgent, make_room


def text(body: str) -> list[dict]:
    return [{"kind": "text", "text": body}]


async def say(agent: RawAgent, room: str, body: str, **extra) -> dict:
    return await agent.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": text(body), **extra}, "sent")


async def unread(agent: RawAgent, room: str) -> int:
    rooms = (await agent.ok({"op": "rooms"}, "rooms"))["rooms"]
    return next(r["unread"] for r in rooms if r["name"] == room)


@pytest.fixture
async def pair(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice", role="planner")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    return alice, bob, room


async def test_send_pull_ack_round_trip(pair):
    alice, bob, room = pair
    first = await say(alice, room, "one")
    second = await say(alice, room, "two")
    assert second["seq"] > first["seq"] and first["room"] == room
    batch = await bob.ok({"op": "pull", "room": room, "ack": 0}, "pulled")
    assert [m["seq"] for m in batch["messages"]] == [first["seq"], second["seq"]]
    assert batch["cursor"] == second["seq"]
    again = await bob.ok({"op": "pull", "room": room, "ack": 0})  # ack pull defers: same batch again
    assert [m["seq"] for m in again["messages"]] == [first["seq"], second["seq"]]
    committed = await bob.ok({"op": "pull", "room": room, "limit": 0, "ack": batch["cursor"]})
    assert committed["messages"] == [] and committed["cursor"] == second["seq"]
    assert (await bob.ok({"op": "pull", "room": room, "ack": 0}))["messages"] == []


async def test_ackless_pull_advances_the_cursor(pair):
    alice, bob, room = pair
    sent = await say(alice, room, "hello")
    assert [m["seq"] for m in (await bob.ok({"op": "pull", "room": room}))["messages"]] == [sent["seq"]]
    after = await bob.ok({"op": "pull", "room": room})
    assert after["messages"] == [] and after["cursor"] == sent["seq"]


async def test_since_reads_history_without_touching_the_cursor(pair):
    alice, bob, room = pair
    first = await say(alice, room, "one")
    second = await say(alice, room, "two")
    history = await bob.ok({"op": "pull", "room": room, "since": first["seq"], "ack": 10**12})
    assert [m["seq"] for m in history["messages"]] == [second["seq"]]
    assert history["cursor"] == second["seq"]
    empty = await bob.ok({"op": "pull", "room": room, "since": second["seq"]})
    assert empty["messages"] == [] and empty["cursor"] == second["seq"]
    assert await unread(bob, room) == 2  # neither since-pull moved the stored cursor (nor the ack)


texts = st.text(max_size=12)
stored_rows = st.builds(
    MessageRow,
    seq=st.integers(1, 2**63 - 1),
    id=texts,
    room=texts,
    author=texts,
    author_name=texts,
    author_role=st.none() | texts,
    parts=st.lists(st.builds(lambda t: {"kind": "text", "text": t}, texts), max_size=3).map(
        lambda parts: wire_json.dumps(parts, sort_keys=True)),
    mentions=st.none() | st.lists(texts, min_size=1, max_size=3).map(wire_json.dumps),
    reply_to=st.none() | texts,
    ts=st.integers(0, 2**63 - 1),
)


@given(row=stored_rows)
def test_a_fresh_delivery_is_the_stored_message_a_pull_would_send(row):
    """The push of a just-stored row is written straight from it; it must be the pull's form."""
    pushed = fresh_delivery(row)
    assert decode_hub_frame(pushed) == Delivery(message=stored_message(row))
    assert json.loads(pushed) == json.loads(encode(Delivery(message=stored_message(row))))


async def test_limit_defaults_caps_and_zero(pair, hub):
    alice, bob, room = pair
    for i in range(3):
        await say(alice, room, str(i))
    assert len((await bob.ok({"op": "pull", "room": room, "since": 0, "limit": 2}))["messages"]) == 2
    assert (await bob.ok({"op": "pull", "room": room, "limit": 0}))["messages"] == []
    assert len((await bob.ok({"op": "pull", "room": room, "since": 0, "limit": 5000}))["messages"]) == 3


async def test_stored_message_shape_from_and_normalization(pair):
    """Pulled and pushed alike (the push splices the stored parts text: it must equal the pull)."""
    alice, bob, room = pair
    await bob.ok({"op": "subscribe"}, "subscribed")
    parts = [{"kind": "text", "text": "hi \u2028 \"q\" </script>", "extra": 1},
             {"kind": "data", "data": {"b": 1.5, "a": [1, -0.0, 1e-7, 2**63]}, "x": 2},
             {"kind": "com.acme.thing", "z": 1, "a": "kept"}]
    sent = await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": parts,
                           "mentions": [" Bob ", "bob", "", "REVIEW"], "replyTo": "m-0"}, "sent")
    (message,) = (await bob.ok({"op": "pull", "room": room}))["messages"]
    assert await bob.recv_delivery() == message
    assert message["id"] == sent["id"] and message["seq"] == sent["seq"] and message["room"] == room
    assert message["from"] == {"id": alice.id, "name": "alice", "role": "planner"}
    assert message["parts"] == [{"kind": "text", "text": "hi \u2028 \"q\" </script>"},
                                {"kind": "data", "data": {"a": [1, -0.0, 1e-7, 2**63], "b": 1.5}},
                                {"a": "kept", "kind": "com.acme.thing", "z": 1}]
    assert message["mentions"] == ["bob", "review"] and message["replyTo"] == "m-0"
    assert abs(message["ts"] - time.time() * 1000) < 60_000
    minted = uuid.UUID(sent["id"])  # a UUIDv7 in canonical text, its timestamp now
    assert minted.version == 7 and minted.variant == uuid.RFC_4122 and str(minted) == sent["id"]
    assert abs((minted.int >> 80) - time.time() * 1000) < 60_000


async def test_empty_mentions_are_stored_as_absent(pair):
    alice, bob, room = pair
    await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": text("x"), "mentions": [" ", ""]})
    (message,) = (await bob.ok({"op": "pull", "room": room}))["messages"]
    assert "mentions" not in message


async def test_pull_and_send_need_membership(pair, hub, raw_agent):
    alice, _bob, room = pair
    await say(alice, room, "members only")
    stranger = await raw_agent(hub.url, name="eve")
    for frame in ({"op": "pull", "room": room}, {"op": "pull", "room": "nowhere"}, {"op": "roster", "room": room},
                  {"op": "pull", "room": room, "since": 0}, {"op": "pull", "room": room, "since": 0, "waitSecs": 1},
                  {"op": "send", "target": {"kind": "room", "room": room}, "parts": text("x")}):
        reply = await stranger.request(frame)
        assert reply["type"] == "error" and reply["code"] == "not_member", frame


async def test_new_member_first_pull_returns_the_backlog(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    room = await make_room(alice, "team")
    sent = [await say(alice, room, str(i)) for i in range(3)]
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": room})
    carol = await raw_agent(hub.url, name="carol")
    await carol.ok({"op": "redeem", "code": invited["code"]}, "joined")
    assert [m["seq"] for m in (await carol.ok({"op": "pull", "room": room}))["messages"]] == [s["seq"] for s in sent]


async def test_unread_after_send_pull_and_ack(pair):
    alice, bob, room = pair
    assert await unread(bob, room) == 0
    await say(alice, room, "one")
    sent = await say(alice, room, "two")
    assert await unread(bob, room) == 2
    assert await unread(alice, room) == 2  # own messages count until a pull moves the cursor
    batch = await bob.ok({"op": "pull", "room": room, "ack": 0})
    assert await unread(bob, room) == 2  # deferred ack: still unread
    await bob.ok({"op": "pull", "room": room, "limit": 0, "ack": batch["cursor"]})
    assert await unread(bob, room) == 0
    await alice.ok({"op": "pull", "room": room})  # ack-less pull advances
    assert await unread(alice, room) == 0
    assert batch["cursor"] == sent["seq"]


async def test_rooms_lists_memberships_in_byte_order(hub, raw_agent):
    alice = await raw_agent(hub.url)
    for name in ("zeta", "Alpha", "beta"):
        await make_room(alice, name)
    rooms = (await alice.ok({"op": "rooms"}))["rooms"]
    assert [r["name"] for r in rooms] == ["Alpha", "beta", "zeta"]
    assert rooms[0] == {"name": "Alpha", "kind": "channel", "members": 1, "unread": 0}


async def test_client_id_replay_returns_the_original_and_pushes_nothing(pair):
    alice, bob, room = pair
    await bob.ok({"op": "subscribe"}, "subscribed")
    first = await say(alice, room, "once", clientId="c-1")
    await bob.recv_delivery()
    replay = await say(alice, room, "different content", clientId="c-1")
    assert replay == first
    marker = await say(alice, room, "marker")
    assert (await bob.recv_delivery())["seq"] == marker["seq"]  # nothing was pushed for the replay
    history = (await bob.ok({"op": "pull", "room": room, "since": 0}))["messages"]
    assert [m["parts"][0]["text"] for m in history] == ["once", "marker"]


async def test_same_client_id_from_another_author_is_a_new_message(pair):
    alice, bob, room = pair
    a = await say(alice, room, "a", clientId="same")
    b = await say(bob, room, "b", clientId="same")
    assert a["seq"] != b["seq"]


async def test_subscriber_gets_peers_deliveries_but_not_its_own(hub, pair, raw_agent):
    alice, bob, room = pair
    alice_again = await raw_agent(hub.url, name="alice", identity=alice.identity)
    for agent in (alice, bob, alice_again):
        await agent.ok({"op": "subscribe"}, "subscribed")
    await agent.ok({"op": "subscribe"}, "subscribed")  # repeating is harmless
    sent = await say(alice, room, "from alice")
    delivered = await bob.recv_delivery()
    pulled = (await bob.ok({"op": "pull", "room": room, "since": 0}))["messages"]
    assert delivered == pulled[0] and delivered["seq"] == sent["seq"]
    reply = await say(bob, room, "from bob")
    assert (await alice.recv_delivery())["seq"] == reply["seq"]
    assert (await alice_again.recv_delivery())["seq"] == reply["seq"]
    assert alice.deliveries.empty() and alice_again.deliveries.empty() and bob.deliveries.empty()


async def test_unsubscribed_connections_get_no_deliveries(pair):
    alice, bob, room = pair
    await say(alice, room, "x")
    assert (await bob.ok({"op": "ping"}))["type"] == "pong"
    assert bob.deliveries.empty()


async def test_dropped_pushes_fault_option(hub_factory, raw_agent):
    hub = hub_factory(faults={"drop_pushes": True})
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    await bob.ok({"op": "subscribe"})
    sent = await say(alice, room, "lost push")
    assert (await bob.ok({"op": "pull", "room": room}))["messages"][0]["seq"] == sent["seq"]
    assert bob.deliveries.empty()


@pytest.mark.timeout(20)
async def test_long_poll_is_woken_by_a_message_in_that_room(pair, hub, raw_agent):
    alice, bob, room = pair
    other = await make_room(alice, "other")
    poll = asyncio.create_task(bob.request({"op": "pull", "room": room, "ack": 0, "waitSecs": 30}, timeout=40))
    await hub.wait_parked()
    await say(alice, other, "elsewhere")  # does not wake the poll on `room`
    assert hub.parked_polls == 1 and not poll.done()
    started = time.monotonic()
    sent = await say(alice, room, "wake up")
    reply = await poll
    assert [m["seq"] for m in reply["messages"]] == [sent["seq"]]
    assert time.monotonic() - started < 5


@pytest.mark.timeout(20)
async def test_long_poll_times_out_empty_with_unchanged_cursor(pair):
    _alice, bob, room = pair
    started = time.monotonic()
    reply = await bob.request({"op": "pull", "room": room, "ack": 0, "waitSecs": 1})
    assert reply["messages"] == [] and reply["cursor"] == 0
    assert time.monotonic() - started >= 0.9


@pytest.mark.timeout(20)
async def test_long_poll_returns_at_once_when_messages_wait(pair):
    alice, bob, room = pair
    sent = await say(alice, room, "ready")
    started = time.monotonic()
    reply = await bob.request({"op": "pull", "room": room, "waitSecs": 30})
    assert [m["seq"] for m in reply["messages"]] == [sent["seq"]] and time.monotonic() - started < 5


async def test_seq_is_global_and_never_reused_after_a_room_is_deleted(hub, raw_agent):
    alice = await raw_agent(hub.url)
    first_room = await make_room(alice, "first")
    second_room = await make_room(alice, "second")
    a = await say(alice, first_room, "a")
    b = await say(alice, second_room, "b")
    await alice.ok({"op": "delete_room", "room": second_room}, "room_deleted")
    c = await say(alice, first_room, "c")
    assert a["seq"] < b["seq"] < c["seq"]


async def test_send_budget_per_agent_is_rate_limited(hub_factory, raw_agent):
    hub = hub_factory(limits={"sends_per_agent": {"count": 2, "window_secs": 60}})
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    await say(alice, room, "1")
    await say(alice, room, "2")
    reply = await alice.request({"op": "send", "target": {"kind": "room", "room": room}, "parts": text("3")})
    assert reply["type"] == "error" and reply["code"] == "rate_limited"


async def test_operation_budget_counts_every_op(hub_factory, raw_agent):
    hub = hub_factory(limits={"ops_per_agent": {"count": 3, "window_secs": 60}})
    alice = await raw_agent(hub.url)
    replies = [(await alice.request({"op": "ping"}))["type"] for _ in range(4)]
    assert replies == ["pong", "pong", "pong", "error"]


async def test_oversized_parts_and_strings_are_too_large(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_parts_bytes": 1000, "max_string_bytes": 100, "max_mentions": 2})
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    target = {"kind": "room", "room": room}
    for frame in (
        {"op": "send", "target": target, "parts": text("x" * 1000)},
        {"op": "send", "target": target, "parts": text("x"), "clientId": "c" * 101},
        {"op": "send", "target": target, "parts": text("x"), "mentions": ["a", "b", "c"]},
        {"op": "send", "target": {"kind": "room", "room": "r" * 101}, "parts": text("x")},
    ):
        reply = await alice.request(frame)
        assert reply["type"] == "error" and reply["code"] == "too_large", frame


async def test_an_ack_at_or_below_the_cursor_changes_nothing(pair):
    alice, bob, room = pair
    first = await say(alice, room, "one")
    second = await say(alice, room, "two")
    await bob.ok({"op": "pull", "room": room, "limit": 0, "ack": second["seq"]})
    back = await bob.ok({"op": "pull", "room": room, "limit": 0, "ack": first["seq"]})
    assert back["cursor"] == second["seq"] and await unread(bob, room) == 0


@pytest.mark.timeout(20)
async def test_a_since_pull_never_parks(pair):
    _alice, bob, room = pair
    started = time.monotonic()
    reply = await bob.request({"op": "pull", "room": room, "since": 0, "waitSecs": 30})
    assert reply["messages"] == [] and time.monotonic() - started < 5
