"""Frame-level robustness: malformed frames, size caps, stray binary frames, fuzzing (§1.3, §7.16)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.raw_agent import make_room

OPS = ["hello", "invite", "redeem", "send", "pull", "rooms", "roster", "presence", "register",
       "put_blob", "get_blob", "serve", "claim", "remember", "recall", "nope"]


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"op": 5}',
        '{"op": "warp"}',
        '{"op": "pull"}',
        '{"op": "pull", "room": "r", "limit": -1}',
        '{"op": "invite", "kind": "channel", "requireApproval": null}',
        '{"op": "set_attention", "attention": "DND"}',
        '{"op": "send", "target": {"kind": "room", "room": "r"}, "parts": [{"kind": "image"}]}',
        '{"op": "send", "target": {"kind": "planet", "room": "r"}, "parts": []}',
        '{"op": "send", "target": {"kind": "room", "room": "\\ud800"}, "parts": []}',
    ],
)
async def test_malformed_frame_is_bad_frame_and_the_connection_stays_usable(hub, raw_agent, text):
    agent = await raw_agent(hub.url)
    await agent.send_text(text)
    reply = await agent.recv()
    assert reply["type"] == "error" and reply["code"] == "bad_frame"
    assert (await agent.request({"op": "ping"}))["type"] == "pong"


async def test_unknown_members_are_ignored_and_null_optionals_are_absent(hub, raw_agent):
    agent = await raw_agent(hub.url)
    room = await make_room(agent, "team")
    sent = await agent.ok({"op": "send", "target": {"kind": "room", "room": room}, "future": 1,
                           "parts": [{"kind": "text", "text": "x"}], "replyTo": None, "clientId": None}, "sent")
    pulled = await agent.ok({"op": "pull", "room": room, "since": None, "ack": None})
    assert [m["seq"] for m in pulled["messages"]] == [sent["seq"]]
    assert "replyTo" not in pulled["messages"][0]


async def test_oversized_text_frame_is_too_large_then_closed(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_text_frame_bytes": 4096})
    agent = await raw_agent(hub.url)
    await agent.send_text(json.dumps({"op": "ping", "pad": "é" * 3000}))  # 3000 chars, 6000 bytes
    reply = await agent.recv()
    assert reply["type"] == "error" and reply["code"] == "too_large"
    await agent.wait_closed()


async def test_binary_frame_without_pending_upload_is_protocol_error_then_closed(hub, raw_agent):
    agent = await raw_agent(hub.url)
    await agent.send_bytes(b"\x00\x01")
    reply = await agent.recv()
    assert reply["type"] == "error" and reply["code"] == "protocol"
    await agent.wait_closed()


async def test_pipelined_requests_are_answered_once_each_in_order(hub, raw_agent):
    agent = await raw_agent(hub.url)
    for text in ('{"op":"ping"}', "garbage", '{"op":"rooms"}', '{"op":"ping"}'):
        await agent.send_text(text)
    kinds = [(await agent.recv())["type"] for _ in range(4)]
    assert kinds == ["pong", "error", "rooms", "pong"]


@pytest.fixture
def fuzz_hub(hub_factory):
    """A generated invite + long-poll pair must not park for a minute."""
    return hub_factory(limits={"max_wait_secs": 0.2})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
frames = st.one_of(
    st.text(max_size=200),
    st.builds(
        lambda op, body: json.dumps({"op": op, **body}),
        st.sampled_from(OPS),
        st.dictionaries(st.sampled_from(["room", "kind", "target", "parts", "id", "code", "limit",
                                         "since", "ack", "waitSecs", "card", "size", "sha256"]),
                        json_values, max_size=5),
    ),
)


@pytest.mark.timeout(60)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(frames, min_size=1, max_size=5))
async def test_random_text_frames_never_break_the_connection(fuzz_hub, raw_agent, texts):
    agent = await raw_agent(fuzz_hub.url)
    for text in texts:
        await agent.send_text(text)
        reply = await agent.recv()
        assert reply["type"] not in ("_closed", "delivery")
        if reply["type"] == "error":
            assert "code" not in reply or reply["code"] in ("bad_frame", "not_member", "unknown_blob", "not_authorized",
                                                            "unknown_service", "protocol", "invalid_card", "too_large")
    assert (await agent.request({"op": "ping"}))["type"] == "pong"
