"""Edge cases where our hub must answer exactly as the reference Rust hub does.

Each test pins one observable behaviour read from the reference sources (crates/parler-hub):
error codes and the wording people read, checks in the reference's order, and pull/long-poll
corners. Clients match on ``code`` only, so wording is pinned where a human sees it.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
import uuid

import pytest

from parler_desktop.hub.ids import hub_token
from support.raw_agent import RawAgent, make_room
from test_hub_http import get_json


def text(body: str) -> list[dict]:
    return [{"kind": "text", "text": body}]


def error(reply: dict, message: str, code: str | None) -> bool:
    """An error frame with exactly this message and code (None: no ``code`` member at all)."""
    return reply["type"] == "error" and reply["message"] == message and reply.get("code") == code


async def say(agent: RawAgent, room: str, body: str, **extra) -> dict:
    return await agent.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": text(body), **extra}, "sent")


async def test_challenge_nonce_and_version_have_the_reference_format(hub, raw_agent):
    agent = await raw_agent(hub.url, handshake=False)
    before = time.time_ns() // 1_000_000
    challenge = await agent.request(agent.hello())
    after = time.time_ns() // 1_000_000
    assert challenge["version"] == "0.2"
    match = re.fullmatch(r"parler-auth:v1:([0-9a-f]{12}):(\d+):([0-9a-f-]{36})", challenge["nonce"])
    assert match is not None, challenge
    assert match[1] == hashlib.sha256(hub.public_url.encode()).hexdigest()[:12] == hub_token(hub.public_url)
    assert before + 60_000 <= int(match[2]) <= after + 60_000
    assert uuid.UUID(match[3]).version == 4


async def test_handshake_refusals_carry_the_reference_codes_and_wording(hub_factory, raw_agent):
    hub = hub_factory(join_secret="s3cr3t")
    agent = await raw_agent(hub.url, name="n" * 257, handshake=False)
    assert error(await agent.request({"op": "rooms"}), "not authenticated — send `hello` first", "unauthenticated")
    assert error(await agent.request(agent.hello()), "agent name too large: 257 bytes > limit 256", "too_large")
    agent.name = "alice"
    assert error(await agent.request(agent.hello(sig=agent.identity.sign(b"x"))),
                 "no challenge issued — send `hello` without a signature first", "protocol")
    assert error(await agent.handshake(), "this hub requires a join secret (set PARLER_JOIN_SECRET)", "not_authorized")
    assert error(await agent.request(agent.hello()),
                 "too many authentication attempts on this connection", "rate_limited")  # the 5th hello
    other = await raw_agent(hub.url, secret="s3cr3t")
    assert error(await other.request(other.hello()), "connection is already authenticated", "protocol")
    malformed = await other.request({"op": "pull"})
    assert malformed["code"] == "bad_frame" and malformed["message"].startswith("malformed frame: ")


async def test_a_waitsecs_zero_pull_is_a_long_poll_and_costs_no_operation(hub_factory, raw_agent):
    hub = hub_factory(limits={"ops_per_agent": {"count": 2, "window_secs": 60}})
    alice = await raw_agent(hub.url)
    room = (await alice.ok({"op": "invite", "kind": "channel", "room": "team"}))["room"]  # op 1
    for _ in range(3):
        await alice.ok({"op": "pull", "room": room, "waitSecs": 0}, "pulled")
    assert (await alice.request({"op": "ping"}))["type"] == "pong"  # op 2
    assert error(await alice.request({"op": "ping"}), "rate limit: too many operations — slow down", "rate_limited")


@pytest.mark.timeout(20)
async def test_a_limit_zero_long_poll_waits_out_its_time(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_wait_secs": 0.5})
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    sent = await say(alice, room, "already there")
    task = asyncio.create_task(alice.request({"op": "pull", "room": room, "limit": 0, "ack": sent["seq"], "waitSecs": 30}))
    await hub.wait_parked(timeout=3)  # the reference parks: its first (limit 0) read is always empty
    assert await task == {"type": "pulled", "room": room, "messages": [], "cursor": sent["seq"]}


async def test_pull_cursor_corners(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    first, second = await say(alice, room, "one"), await say(alice, room, "two")
    # limit 0 without ack reads nothing and moves nothing; the cursor it reports is the stored one
    assert (await bob.ok({"op": "pull", "room": room, "limit": 0}))["cursor"] == 0
    # a since-read ignores ack (the stored cursor stays 0) and reports `since` when empty
    await bob.ok({"op": "pull", "room": room, "since": 0, "ack": second["seq"]})
    assert (await bob.ok({"op": "pull", "room": room, "since": second["seq"] + 100}))["cursor"] == second["seq"] + 100
    ackless = await bob.ok({"op": "pull", "room": room, "limit": 1})
    assert [m["seq"] for m in ackless["messages"]] == [first["seq"]] and ackless["cursor"] == first["seq"]
    empty = await bob.ok({"op": "pull", "room": room, "ack": second["seq"]})
    assert empty["messages"] == [] and empty["cursor"] == second["seq"]


async def test_a_client_id_replay_after_a_reconnect_returns_the_original_and_pushes_nothing(hub, raw_agent):
    alice, bob = await raw_agent(hub.url, name="alice"), await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    await bob.ok({"op": "subscribe"}, "subscribed")
    first = await say(alice, room, "once", clientId="retry-me")
    assert (await bob.recv_delivery())["seq"] == first["seq"]
    await alice.close()
    again = await raw_agent(hub.url, name="alice", identity=alice.identity)
    assert await say(again, room, "once", clientId="retry-me") == first
    marker = await say(again, room, "marker")
    assert (await bob.recv_delivery())["seq"] == marker["seq"]


async def test_a_failed_second_put_blob_keeps_the_pending_upload(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    data = b"first bytes"
    sha = hashlib.sha256(data).hexdigest()
    await alice.ok({"op": "put_blob", "target": {"kind": "room", "room": room}, "sha256": sha, "size": len(data)})
    refused = await alice.request({"op": "put_blob", "target": {"kind": "room", "room": "elsewhere"},
                                   "sha256": "0" * 64, "size": 1})
    assert error(refused, "not a member of 'elsewhere'", "not_member")
    await alice.send_bytes(data)
    assert await alice.recv() == {"type": "blob_stored", "id": sha, "size": len(data)}


async def test_blob_refusals_use_the_reference_wording(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_blob_bytes": 10})
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team")
    target = {"kind": "room", "room": room}
    assert error(await alice.request({"op": "put_blob", "target": target, "sha256": "0" * 64, "size": 11}),
                 "blob too large: 11 bytes > limit 10", "too_large")
    await alice.ok({"op": "put_blob", "target": target, "sha256": "0" * 64, "size": 3})
    await alice.send_bytes(b"abcd")
    assert error(await alice.recv(), "blob size mismatch: got 4 bytes, expected 3", "protocol")
    sha = hashlib.sha256(b"abc").hexdigest()
    assert error(await bob.request({"op": "get_blob", "id": sha}), f"no such blob '{sha}'", "unknown_blob")
    await alice.ok({"op": "put_blob", "target": target, "sha256": sha, "size": 3})
    await alice.send_bytes(b"abc")
    await alice.recv()
    assert error(await bob.request({"op": "get_blob", "id": sha}), f"not authorized to fetch blob '{sha}'",
                 "not_authorized")


async def test_owner_only_refusals_are_uncoded_with_the_reference_wording(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    cases = [
        ({"op": "join_requests", "room": room}, f"only the session owner can view join requests for '{room}'"),
        ({"op": "resolve_join", "room": room, "agent": alice.id, "approve": True},
         f"only the session owner can approve or deny join requests for '{room}'"),
        ({"op": "mint_watch", "room": room}, f"only the session owner can mint a watch link for '{room}'"),
        ({"op": "delete_room", "room": room}, f"only the room owner can delete '{room}'"),
    ]
    for frame, message in cases:
        assert error(await bob.request(frame), message, None), frame
    assert error(await alice.request({"op": "resolve_join", "room": room, "agent": bob.id, "approve": False}),
                 f"no pending join request from '{bob.id}' for '{room}'", None)


async def test_mint_watch_checks_the_token_quota_before_ownership(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_tokens": 1})
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    await bob.ok({"op": "mint_directory_token"}, "directory_token")
    assert error(await bob.request({"op": "mint_watch", "room": room}),
                 "active token quota reached — wait for a token to expire", "at_capacity")


async def test_unknown_service_and_uncarded_dm_wording(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    reply = await alice.request({"op": "send", "target": {"kind": "service", "service": "review"}, "parts": text("x")})
    assert error(reply, "no such service 'review' — a worker must `serve` it first", "unknown_service")
    reply = await alice.request({"op": "send", "target": {"kind": "dm", "agent": bob.id}, "parts": text("x")})
    assert error(reply, f"'{bob.id}' isn't discoverable (no directory card) — pair first (invite/join)", None)


async def test_too_large_names_the_field_and_both_sizes(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_string_bytes": 100, "max_query_bytes": 1000, "max_parts_bytes": 50})
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    target = {"kind": "room", "room": room}
    cases = [
        ({"op": "send", "target": {"kind": "dm", "agent": "a" * 101}, "parts": text("x")},
         "agent id too large: 101 bytes > limit 100"),
        ({"op": "send", "target": target, "parts": text("x" * 50)}, "message too large: 77 bytes > limit 50"),
        ({"op": "send", "target": target, "parts": text("x"), "replyTo": "r" * 101},
         "reply id too large: 101 bytes > limit 100"),
        ({"op": "redeem", "code": "c" * 101}, "invite code too large: 101 bytes > limit 100"),
        ({"op": "discover", "tag": "t" * 101}, "tag too large: 101 bytes > limit 100"),
        ({"op": "discover", "query": "q" * 1001}, "directory query too large: 1001 bytes > limit 1000"),
        ({"op": "presence", "status": "s" * 101}, "presence status too large: 101 bytes > limit 100"),
    ]
    for frame, message in cases:
        assert error(await alice.request(frame), message, "too_large"), frame
    assert (await alice.request({"op": "discover", "query": "q" * 101}))["type"] == "directory"


async def test_an_embedding_of_the_wrong_size_is_refused_after_membership(hub, raw_agent):
    alice = await raw_agent(hub.url)
    bad = [0.5]
    reply = await alice.request({"op": "remember", "fact": {"text": "x", "room": "elsewhere"}, "embedding": bad})
    assert error(reply, "not a member of 'elsewhere'", "not_member")
    mismatch = "embedding dimension mismatch: got 1, expected 768"
    assert error(await alice.request({"op": "remember", "fact": {"text": "x"}, "embedding": bad}), mismatch, None)
    assert error(await alice.request({"op": "recall", "query": "x", "embedding": bad}), mismatch, None)
    assert (await alice.request({"op": "recall", "query": "", "key": "k", "embedding": bad}))["type"] == "recalled"


async def test_invite_ttl_is_capped_at_a_year(hub, raw_agent):
    alice = await raw_agent(hub.url)
    before = time.time_ns() // 1_000_000
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "ttlSecs": 10**12}, "invited")
    after = time.time_ns() // 1_000_000
    assert before + 31_536_000_000 <= invited["expiresAt"] <= after + 31_536_000_000


async def test_discover_filters_like_the_reference_sql(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    card = {"id": alice.id, "name": "Planner Bot", "kind": "agent", "tags": ["Ops", "planning"],
            "skills": [{"id": "plan", "name": "Road maps"}]}
    await alice.ok({"op": "register", "card": card}, "registered")

    async def found(**filters) -> bool:
        agents = (await alice.ok({"op": "discover", **filters}, "directory"))["agents"]
        return [entry["card"]["id"] for entry in agents] == [alice.id]

    assert await found(query="ALI")  # the name of the latest hello, ASCII case folded
    assert not await found(query="bot")  # not the card's name
    assert await found(query="ops plan")  # tags are searched as one string " ops planning "
    assert await found(tag="p_anning") and await found(skill="plan road%s")  # LIKE wildcards
    assert not await found(tag="plan road")
    assert await found(status="IDLE") and not await found(status="")


async def test_rest_directory_scope_wording_and_agent_count(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    await alice.ok({"op": "register", "card": {"id": alice.id, "name": "alice", "kind": "agent"}, "visibility": "public"})
    status, listed = await asyncio.to_thread(get_json, f"{hub.http_url}/api/directory?scope=everything")
    assert status == 200 and [entry["card"]["id"] for entry in listed] == [alice.id]
    status, refused = await asyncio.to_thread(get_json, f"{hub.http_url}/api/directory?scope=hub")
    assert (status, refused) == (401, {"error": "a directory token is required to view the hub-scope directory"})
    await raw_agent(hub.url, name="no card")
    status, described = await asyncio.to_thread(get_json, f"{hub.http_url}/api/hub")
    assert (described["agents"], described["publicAgents"]) == (1, 1)  # agents = registered cards


async def test_only_an_idle_or_waiting_worker_claims_new_work_but_a_holder_renews_while_working(hub, raw_agent):
    worker, client = await raw_agent(hub.url, name="worker"), await raw_agent(hub.url, name="client")
    await worker.ok({"op": "serve", "service": "review"})
    first, second = [
        await client.ok({"op": "send", "target": {"kind": "service", "service": "review"},
                         "parts": [{"kind": "com.parler.dispatch", "role": "Review"}]}, "sent")
        for _ in range(2)
    ]
    claim = {"op": "claim", "room": "svc.review", "message": first["id"]}
    assert (await worker.ok(claim, "claimed"))["claimed"] is True
    await worker.ok({"op": "presence", "status": "working"}, "presence_ok")
    assert (await worker.ok(claim, "claimed"))["claimed"] is True  # renewing its own live lease
    assert (await worker.ok({**claim, "message": second["id"]}, "claimed"))["claimed"] is False


async def test_tokens_are_32_characters_of_the_invite_code_alphabet(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    for frame in ({"op": "mint_directory_token"}, {"op": "mint_watch", "room": room}):
        token = (await alice.ok(frame))["token"]
        assert len(token) == 32 and set(token) <= set("ABCDEFGHJKLMNPQRSTUVWXYZ23456789"), token


async def test_invite_links_use_the_public_url_and_approval_is_only_for_channels(hub_factory, raw_agent):
    hub = hub_factory(public_url="https://hub.example")
    alice, bob, carol = [await raw_agent(hub.url) for _ in range(3)]
    service = await alice.ok({"op": "invite", "kind": "service", "room": "review", "requireApproval": True})
    assert service["url"] == f"https://hub.example/join/{service['code']}"
    assert (await bob.ok({"op": "redeem", "code": service["url"]}))["type"] == "joined"
    dm = await alice.ok({"op": "invite", "kind": "dm", "requireApproval": True, "maxUses": 5})
    assert (await bob.ok({"op": "redeem", "code": dm["code"]}))["type"] == "joined"
    assert error(await carol.request({"op": "redeem", "code": dm["code"]}), "invite has already been used up", None)
    channel = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "requireApproval": True})
    assert await bob.ok({"op": "redeem", "code": channel["code"]}) == {"type": "join_pending", "room": "team"}


async def test_hub_stats_count_messages_and_token_estimates_since_start(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    parts = [{"kind": "text", "text": "abcd"}, {"kind": "data", "data": {"n": 1, "s": "xy"}},
             {"kind": "com.parler.observation", "tool_name": "Bash", "exit": 0},
             {"kind": "com.parler.sig", "alg": "ed25519", "sig": "A" * 88, "ts": 1, "uid": "u", "v": 1,
              "target": {"kind": "room", "room": room}}]
    sent = await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": parts, "clientId": "c"})
    assert await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": parts,
                           "clientId": "c"}) == sent  # a replay is not counted again
    stats = (await asyncio.to_thread(get_json, f"{hub.http_url}/api/hub"))[1]["stats"]
    assert (stats["messagesTotal"], stats["estimatedTokensTotal"]) == (1, 3)  # ⌈(4 + 2 + 4) / 4⌉
    await asyncio.to_thread(hub.restart)  # off the loop: alice answers the hub's closing handshake
    stats = (await asyncio.to_thread(get_json, f"{hub.http_url}/api/hub"))[1]["stats"]
    assert (stats["messagesTotal"], stats["estimatedTokensTotal"]) == (0, 0)


async def test_put_blob_checks_size_then_storage_before_the_target(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_blob_bytes": 100, "max_blob_storage_bytes": 10})
    alice = await raw_agent(hub.url)
    frame = {"op": "put_blob", "target": {"kind": "room", "room": "elsewhere"}, "sha256": "0" * 64}
    assert (await alice.request({**frame, "size": 101}))["code"] == "too_large"
    assert error(await alice.request({**frame, "size": 20}), "hub blob storage is full — try again later",
                 "storage_full")
    assert (await alice.request({**frame, "size": 5}))["code"] == "not_member"
