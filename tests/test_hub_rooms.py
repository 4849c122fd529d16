"""Invites, redeem, approval, ownership, roster and presence, DMs and services (§7.4, §7.8–§7.11)."""

from __future__ import annotations

import asyncio
import time

import pytest

from support.raw_agent import make_room


def uncoded_error(reply: dict, words: str) -> bool:
    return reply["type"] == "error" and "code" not in reply and words in reply["message"]


async def test_invite_defaults_and_link(hub, raw_agent):
    alice = await raw_agent(hub.url)
    before = int(time.time() * 1000)
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": " My Room! "}, "invited")
    assert invited["room"] == "My_Room_" and invited["kind"] == "channel"
    assert len(invited["code"]) == 8 and set(invited["code"]) <= set("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    assert invited["url"] == f"parler://127.0.0.1:{hub.port}/join/{invited['code']}"
    assert before + 86_400_000 <= invited["expiresAt"] <= int(time.time() * 1000) + 86_400_000


async def test_generated_room_names(hub, raw_agent):
    alice = await raw_agent(hub.url)
    channel = await alice.ok({"op": "invite", "kind": "channel"})
    dm = await alice.ok({"op": "invite", "kind": "dm", "room": "ignored"})
    service = await alice.ok({"op": "invite", "kind": "service", "room": "re view"})
    assert channel["room"].startswith("room.") and len(channel["room"]) == 11
    assert dm["room"].startswith("dm.") and dm["kind"] == "dm"
    assert service["room"] == "svc.re_view"


async def test_redeem_accepts_links_and_rejoining_is_free(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "maxUses": 1})
    joined = await bob.ok({"op": "redeem", "code": f"  {invited['url']}/ "}, "joined")
    assert joined == {"type": "joined", "room": "team", "kind": "channel"}
    assert (await bob.ok({"op": "redeem", "code": invited["code"]}))["type"] == "joined"  # no use consumed


async def test_invite_failures_are_uncoded(hub, raw_agent):
    alice, bob, carol = [await raw_agent(hub.url) for _ in range(3)]
    reply = await bob.request({"op": "redeem", "code": "ZZZZZZZZ"})
    assert uncoded_error(reply, "invalid or unknown invite code")
    once = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "maxUses": 1})
    await bob.ok({"op": "redeem", "code": once["code"]}, "joined")
    assert uncoded_error(await carol.request({"op": "redeem", "code": once["code"]}), "used up")
    expired = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "ttlSecs": 0})
    while time.time_ns() // 1_000_000 <= expired["expiresAt"]:  # wait for the clock to pass expiresAt (= now)
        await asyncio.sleep(0.001)
    assert uncoded_error(await carol.request({"op": "redeem", "code": expired["code"]}), "expired")
    assert uncoded_error(await carol.request({"op": "invite", "kind": "channel", "room": "team"}),
                         "already exists")


async def test_dm_invites_have_one_use(hub, raw_agent):
    alice, bob, carol = [await raw_agent(hub.url) for _ in range(3)]
    dm = await alice.ok({"op": "invite", "kind": "dm", "maxUses": 10})
    await bob.ok({"op": "redeem", "code": dm["code"]}, "joined")
    assert uncoded_error(await carol.request({"op": "redeem", "code": dm["code"]}), "used up")


async def test_any_member_may_mint_more_invites(hub, raw_agent):
    alice, bob, carol = [await raw_agent(hub.url) for _ in range(3)]
    await make_room(alice, "team", bob)
    more = await bob.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    await carol.ok({"op": "redeem", "code": more["code"]}, "joined")


async def test_approval_flow(hub, raw_agent):
    alice, bob = await raw_agent(hub.url, name="alice"), await raw_agent(hub.url, name="bob", role="reviewer")
    gated = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "requireApproval": True})
    assert (await bob.ok({"op": "redeem", "code": gated["code"]})) == {"type": "join_pending", "room": "team"}
    assert (await bob.ok({"op": "redeem", "code": gated["code"]}))["type"] == "join_pending"
    assert (await bob.request({"op": "pull", "room": "team"}))["code"] == "not_member"
    assert uncoded_error(await bob.request({"op": "join_requests", "room": "team"}), "owner")
    requests = await alice.ok({"op": "join_requests", "room": "team"}, "join_requests")
    (request,) = requests["requests"]
    assert (request["agent"], request["name"], request["role"]) == (bob.id, "bob", "reviewer")
    assert uncoded_error(await bob.request({"op": "resolve_join", "room": "team", "agent": bob.id, "approve": True}),
                         "owner")
    resolved = await alice.ok({"op": "resolve_join", "room": "team", "agent": bob.id, "approve": True})
    assert resolved == {"type": "join_resolved", "room": "team", "agent": bob.id, "approved": True}
    assert (await bob.ok({"op": "redeem", "code": gated["code"]}))["type"] == "joined"
    assert (await bob.ok({"op": "pull", "room": "team"}))["type"] == "pulled"
    assert (await alice.ok({"op": "join_requests", "room": "team"}))["requests"] == []


async def test_denied_request_is_final_and_resolving_nothing_is_uncoded(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    gated = await alice.ok({"op": "invite", "kind": "channel", "room": "team", "requireApproval": True})
    reply = await alice.request({"op": "resolve_join", "room": "team", "agent": bob.id, "approve": True})
    assert uncoded_error(reply, "no pending join request")
    await bob.ok({"op": "redeem", "code": gated["code"]}, "join_pending")
    await alice.ok({"op": "resolve_join", "room": "team", "agent": bob.id, "approve": False}, "join_resolved")
    assert uncoded_error(await bob.request({"op": "redeem", "code": gated["code"]}), "denied")


@pytest.mark.timeout(20)
async def test_deleting_a_room_ends_its_parked_long_polls_with_not_member(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    poll = asyncio.create_task(bob.request({"op": "pull", "room": room, "waitSecs": 30}, timeout=40))
    await hub.wait_parked()
    started = time.monotonic()
    await alice.ok({"op": "delete_room", "room": room}, "room_deleted")
    reply = await poll
    assert reply["code"] == "not_member" and time.monotonic() - started < 10


@pytest.mark.timeout(20)
async def test_an_approval_wakes_a_parked_poll_which_keeps_waiting_for_a_message(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    watcher = await raw_agent(hub.url, identity=alice.identity)
    room = await make_room(alice, "team")
    await alice.ok({"op": "pull", "room": room})
    poll = asyncio.create_task(watcher.request({"op": "pull", "room": room, "waitSecs": 30}, timeout=40))
    await hub.wait_parked()
    gated = await alice.ok({"op": "invite", "kind": "channel", "room": room, "requireApproval": True})
    await bob.ok({"op": "redeem", "code": gated["code"]}, "join_pending")
    await alice.ok({"op": "resolve_join", "room": room, "agent": bob.id, "approve": True})
    await hub.wait_parked()  # re-read, still empty: parked again
    sent = await bob.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": []})
    assert [m["seq"] for m in (await poll)["messages"]] == [sent["seq"]]


async def test_delete_room_is_owner_only_and_removes_it_for_everyone(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": "x"}]})
    assert uncoded_error(await bob.request({"op": "delete_room", "room": room}), "owner")
    assert (await alice.ok({"op": "delete_room", "room": room})) == {"type": "room_deleted", "room": room}
    assert (await bob.request({"op": "pull", "room": room}))["code"] == "not_member"
    to_room = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": "y"}]}
    assert (await bob.request(to_room))["code"] == "not_member"  # its members went with it
    assert (await bob.ok({"op": "rooms"}))["rooms"] == []
    again = await bob.ok({"op": "invite", "kind": "channel", "room": room}, "invited")  # the name is free again
    assert (await bob.ok({"op": "pull", "room": again["room"], "since": 0}))["messages"] == []
    assert (await alice.request(to_room))["code"] == "not_member"  # the new room is bob's alone


async def test_roster_is_sorted_and_reports_presence(hub, raw_agent):
    zed = await raw_agent(hub.url, name="zed", role="ops")
    amy = await raw_agent(hub.url, name="amy")
    room = await make_room(zed, "team", amy)
    await amy.ok({"op": "presence", "status": "working", "activity": "reviewing", "attention": "dnd"}, "presence_ok")
    await zed.ok({"op": "set_attention", "attention": "focus"}, "attention_ok")
    entries = (await zed.ok({"op": "roster", "room": room}, "roster"))["entries"]
    assert [e["name"] for e in entries] == ["amy", "zed"]
    assert entries[0]["status"] == "working" and entries[0]["activity"] == "reviewing"
    assert entries[0]["attention"] == "dnd"
    assert entries[1]["role"] == "ops" and entries[1]["status"] == "idle" and entries[1]["attention"] == "focus"
    await amy.ok({"op": "presence", "status": "waiting"})
    amy_entry = (await zed.ok({"op": "roster", "room": room}))["entries"][0]
    assert "activity" not in amy_entry and amy_entry["attention"] == "dnd"  # attention kept when omitted


@pytest.mark.timeout(20)
async def test_roster_reports_offline_without_attention_once_presence_is_stale(hub_factory, raw_agent):
    # Long enough that amy's ping and zed's roster below (two round trips) fit in it on a busy machine.
    hub = hub_factory(limits={"presence_stale_secs": 1.0})
    amy, zed = await raw_agent(hub.url, name="amy"), await raw_agent(hub.url, name="zed")
    room = await make_room(zed, "team", amy)
    await amy.ok({"op": "presence", "status": "working", "activity": "typing", "attention": "dnd"})
    deadline = time.monotonic() + 10
    while True:
        entry = (await zed.ok({"op": "roster", "room": room}))["entries"][0]
        if entry["status"] == "offline" or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    assert entry["status"] == "offline" and "attention" not in entry and entry["activity"] == "typing"
    await amy.ok({"op": "ping"}, "pong")  # a ping refreshes presence
    assert (await zed.ok({"op": "roster", "room": room}))["entries"][0]["status"] == "working"


async def test_dm_target_reuses_a_paired_room(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    dm = await alice.ok({"op": "invite", "kind": "dm"})
    await bob.ok({"op": "redeem", "code": dm["code"]}, "joined")
    sent = await alice.ok({"op": "send", "target": {"kind": "dm", "agent": bob.id}, "parts": [{"kind": "text", "text": "hi"}]})
    assert sent["room"] == dm["room"]


async def test_dm_to_an_agent_without_a_card_is_uncoded(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    reply = await alice.request({"op": "send", "target": {"kind": "dm", "agent": bob.id}, "parts": []})
    assert uncoded_error(reply, "isn't discoverable")


async def test_dm_to_an_agent_with_a_card_creates_an_ownerless_dm_room(hub, raw_agent):
    alice, bob = await raw_agent(hub.url, name="alice"), await raw_agent(hub.url, name="bob")
    await bob.ok({"op": "register", "card": {"id": bob.id, "name": "bob", "kind": "agent"}}, "registered")
    first = await alice.ok({"op": "send", "target": {"kind": "dm", "agent": bob.id}, "parts": [{"kind": "text", "text": "1"}]})
    second = await alice.ok({"op": "send", "target": {"kind": "dm", "agent": bob.id}, "parts": [{"kind": "text", "text": "2"}]})
    assert first["room"].startswith("dm.") and second["room"] == first["room"]
    rooms = (await bob.ok({"op": "rooms"}))["rooms"]
    assert rooms == [{"name": first["room"], "kind": "dm", "members": 2, "unread": 2}]
    assert uncoded_error(await alice.request({"op": "delete_room", "room": first["room"]}), "owner")


async def test_service_send_auto_joins_and_unknown_service_is_coded(hub, raw_agent):
    worker, client = await raw_agent(hub.url, name="worker"), await raw_agent(hub.url, name="client")
    reply = await client.request({"op": "send", "target": {"kind": "service", "service": "review"}, "parts": []})
    assert reply["type"] == "error" and reply["code"] == "unknown_service"
    assert (await worker.ok({"op": "serve", "service": "review"})) == {"type": "joined", "room": "svc.review", "kind": "service"}
    sent = await client.ok({"op": "send", "target": {"kind": "service", "service": " review"},
                            "parts": [{"kind": "text", "text": "please review"}, {"kind": "com.parler.dispatch", "role": "review"}]})
    assert sent["room"] == "svc.review"
    roster = (await client.ok({"op": "roster", "room": "svc.review"}))["entries"]
    assert {e["name"]: e.get("serviceRole") for e in roster} == {"client": None, "worker": "review"}
    assert len((await worker.ok({"op": "pull", "room": "svc.review"}))["messages"]) == 1


async def test_service_queue_claim_complete(hub, raw_agent):
    worker, client = await raw_agent(hub.url, name="worker"), await raw_agent(hub.url, name="client")
    await worker.ok({"op": "serve", "service": "review"})
    sent = await client.ok({"op": "send", "target": {"kind": "service", "service": "review"},
                            "parts": [{"kind": "com.parler.dispatch", "role": "review"}]})
    queued = await worker.ok({"op": "queue", "room": "svc.review", "role": "review"}, "queued")
    assert [m["id"] for m in queued["messages"]] == [sent["id"]]
    claimed = await worker.ok({"op": "claim", "room": "svc.review", "message": sent["id"], "leaseSecs": 60}, "claimed")
    assert claimed["claimed"] is True and claimed["leaseUntil"] > time.time() * 1000
    assert (await client.ok({"op": "claim", "room": "svc.review", "message": sent["id"]}))["claimed"] is False
    assert (await worker.ok({"op": "queue", "room": "svc.review", "role": "review"}))["messages"] == []
    bad = await worker.request({"op": "complete", "room": "svc.review", "message": sent["id"], "status": "working"})
    assert bad["code"] == "not_authorized"
    done = await worker.ok({"op": "complete", "room": "svc.review", "message": sent["id"], "status": "done"})
    assert done["completed"] is True
    channel = await make_room(worker, "plain")
    assert (await worker.request({"op": "queue", "room": channel, "role": "x"}))["code"] == "not_authorized"


async def test_remember_and_recall(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    await alice.ok({"op": "remember", "fact": {"key": "deploy", "text": "prod is eu-west", "room": room}}, "remembered")
    await alice.ok({"op": "remember", "fact": {"key": "deploy", "text": "prod is us-east", "room": room}})
    await alice.ok({"op": "remember", "fact": {"text": "the cat is called Tom"}})
    keyed = (await alice.ok({"op": "recall", "query": "", "key": "deploy"}, "recalled"))["hits"]
    assert [h["text"] for h in keyed] == ["prod is us-east"] and keyed[0]["score"] == 0.0
    found = (await alice.ok({"op": "recall", "query": "cat Tom"}))["hits"]
    assert [h["text"] for h in found] == ["the cat is called Tom"] and "room" not in found[0]
    assert (await alice.request({"op": "remember", "fact": {"text": "x"}, "embedding": [0.5]}))["type"] == "error"


async def test_keyed_fact_quota_is_at_capacity_but_updates_still_work(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_keyed_facts": 1})
    alice = await raw_agent(hub.url)
    await alice.ok({"op": "remember", "fact": {"key": "a", "text": "1"}})
    await alice.ok({"op": "remember", "fact": {"key": "a", "text": "2"}})
    refused = await alice.request({"op": "remember", "fact": {"key": "b", "text": "3"}})
    assert refused["code"] == "at_capacity"


async def test_a_new_hello_resets_status_and_activity_but_keeps_attention(hub, raw_agent):
    amy = await raw_agent(hub.url, name="amy")
    room = await make_room(amy, "team")
    await amy.ok({"op": "presence", "status": "working", "activity": "typing", "attention": "focus"})
    again = await raw_agent(hub.url, name="amy", identity=amy.identity)
    (entry,) = (await again.ok({"op": "roster", "room": room}))["entries"]
    assert entry["status"] == "idle" and "activity" not in entry and entry["attention"] == "focus"
