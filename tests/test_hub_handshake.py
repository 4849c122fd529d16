"""The handshake of protocol.md §3: the happy path and every failure row."""

from __future__ import annotations

import asyncio

import pytest

from parler_desktop.hub import HubLimits
from parler_desktop.identity import Identity
from support.raw_agent import make_room


async def test_welcome_carries_the_signed_identity_and_the_challenge_is_hub_bound(hub, raw_agent):
    agent = await raw_agent(hub.url, name="alice", handshake=False)
    challenge = await agent.request(agent.hello(role="planner"))
    assert challenge["type"] == "challenge" and challenge["version"] == "0.2"
    prefix, version, hub_token, expiry, _uuid = challenge["nonce"].split(":")
    assert (prefix, version, len(hub_token)) == ("parler-auth", "v1", 12) and int(expiry) > 0
    nonce = challenge["nonce"]
    welcome = await agent.request(agent.hello(role="planner", nonce=nonce, sig=agent.identity.sign(nonce.encode())))
    assert welcome == {"type": "welcome", "id": agent.id, "name": "alice"}


async def test_signed_hello_without_a_challenge_is_a_protocol_error(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    reply = await agent.request(agent.hello(nonce="made-up", sig=agent.identity.sign(b"made-up")))
    assert reply["type"] == "error" and reply["code"] == "protocol"
    assert (await agent.handshake())["type"] == "welcome"  # the socket stays usable


async def test_expired_challenge_is_unauthenticated(hub_factory, raw_agent):
    hub = hub_factory(limits={"nonce_ttl_secs": -1.0})  # every nonce is born expired
    agent = await raw_agent(hub.url, handshake=False)
    reply = await agent.handshake()
    assert reply["type"] == "error" and reply["code"] == "unauthenticated"
    assert "expired" in reply["message"]


async def test_bad_signature_is_unauthenticated_and_the_same_nonce_may_be_signed_again(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    nonce = (await agent.request(agent.hello()))["nonce"]
    forged = Identity.generate().sign(nonce.encode())
    reply = await agent.request(agent.hello(nonce=nonce, sig=forged))
    assert reply["type"] == "error" and reply["code"] == "unauthenticated"
    retry = await agent.request(agent.hello(nonce=nonce, sig=agent.identity.sign(nonce.encode())))
    assert retry["type"] == "welcome"


async def test_id_that_is_not_an_nkey_is_unauthenticated(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    challenge = await agent.request({"op": "hello", "id": "not-a-key", "name": "x"})
    sig = agent.identity.sign(challenge["nonce"].encode())
    reply = await agent.request({"op": "hello", "id": "not-a-key", "name": "x", "sig": sig})
    assert reply["type"] == "error" and reply["code"] == "unauthenticated"


@pytest.mark.parametrize("secret", [None, "wrong", "s3cr3t "])
async def test_missing_or_wrong_join_secret_is_not_authorized(hub_factory, raw_agent, secret):
    hub = hub_factory(join_secret="s3cr3t")
    agent = await raw_agent(hub.url, handshake=False)
    reply = await agent.handshake(secret=secret)
    assert reply["type"] == "error" and reply["code"] == "not_authorized"


async def test_right_join_secret_is_welcomed(hub_factory, raw_agent):
    hub = hub_factory(join_secret="s3cr3t")
    agent = await raw_agent(hub.url, handshake=False)
    assert (await agent.handshake(secret="s3cr3t"))["type"] == "welcome"


async def test_open_hub_ignores_a_supplied_secret(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    assert (await agent.handshake(secret="anything"))["type"] == "welcome"


async def test_fifth_hello_is_rate_limited(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    for _ in range(4):
        assert (await agent.request(agent.hello()))["type"] == "challenge"
    reply = await agent.request(agent.hello())
    assert reply["type"] == "error" and reply["code"] == "rate_limited"


async def test_hello_after_welcome_is_a_protocol_error(hub, raw_agent):
    agent = await raw_agent(hub.url)
    reply = await agent.request(agent.hello())
    assert reply["type"] == "error" and reply["code"] == "protocol"
    assert (await agent.request({"op": "ping"}))["type"] == "pong"


async def test_ops_before_welcome_are_unauthenticated_and_keep_the_socket(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    for op in ({"op": "rooms"}, {"op": "ping"}, {"op": "pull", "room": "x"}):
        reply = await agent.request(op)
        assert reply["type"] == "error" and reply["code"] == "unauthenticated"
    assert (await agent.handshake())["type"] == "welcome"


async def test_oversized_hello_fields_are_too_large(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    reply = await agent.request({"op": "hello", "id": agent.id, "name": "n" * 257})
    assert reply["type"] == "error" and reply["code"] == "too_large"


@pytest.mark.timeout(15)
async def test_silent_unauthenticated_socket_times_out_and_closes(hub_factory, raw_agent):
    hub = hub_factory(limits={"handshake_timeout_secs": 0.3})
    agent = await raw_agent(hub.url, handshake=False)
    reply = await agent.recv(timeout=5)
    assert reply == {"type": "error", "message": "handshake timed out", "code": "timeout"}
    await agent.wait_closed()


@pytest.mark.timeout(15)
async def test_authenticated_idle_socket_is_closed_without_an_error_frame(hub_factory, raw_agent):
    hub = hub_factory(limits={"idle_timeout_secs": 0.3})
    agent = await raw_agent(hub.url)
    assert (await agent.recv(timeout=5)) == {"type": "_closed"}


@pytest.mark.timeout(15)
async def test_a_socket_in_use_is_not_idle_whether_it_sends_or_is_pushed_to(hub_factory, raw_agent):
    """Frames in either direction keep a socket open past the idle timeout; once both stop it
    closes. (Both run flat out for three timeouts: no sleeps, the hub's replies pace them.)"""
    timeout = 0.3
    hub = hub_factory(limits=HubLimits(idle_timeout_secs=timeout).relaxed())
    talker = await raw_agent(hub.url, name="talker")
    listener = await raw_agent(hub.url, name="listener")
    room = await make_room(talker, "busy", listener)
    await listener.ok({"op": "subscribe"}, "subscribed")
    loop = asyncio.get_running_loop()
    until = loop.time() + 3 * timeout
    while loop.time() < until:  # the listener only receives pushes
        await talker.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": "x"}]})
        await listener.recv_delivery()
    assert not talker.ws.close_code and not listener.ws.close_code
    assert (await listener.recv(timeout=5)) == {"type": "_closed"}  # then quiet: closed
    assert (await talker.recv(timeout=5)) == {"type": "_closed"}


async def test_reconnecting_identity_keeps_its_name_from_the_latest_hello(hub, raw_agent):
    identity = Identity.generate()
    first = await raw_agent(hub.url, name="old", identity=identity)
    await first.close()
    second = await raw_agent(hub.url, name="new", identity=identity)
    invited = await second.ok({"op": "invite", "kind": "channel", "room": "r"})
    roster = await second.ok({"op": "roster", "room": invited["room"]}, "roster")
    assert [e["name"] for e in roster["entries"]] == ["new"]
