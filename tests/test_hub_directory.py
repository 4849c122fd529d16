"""The directory: signed cards, discovery, lookup and tokens (§7.14)."""

from __future__ import annotations

from parler_desktop.identity import Identity
from parler_desktop.protocol.canonical import canonical_card_bytes
from parler_desktop.protocol.values import AgentCard


def card_of(agent, **extra) -> dict:
    return {"id": agent.id, "name": agent.name, "kind": "agent", **extra}


def signed(identity: Identity, card: dict) -> str:
    return identity.sign(canonical_card_bytes(AgentCard.from_wire(card)))


async def test_register_verifies_the_card_signature(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    card = card_of(alice, role="planner", tags=["planning"], protocolVersion="0.2")
    reply = await alice.ok({"op": "register", "card": card, "visibility": "public", "sig": signed(alice.identity, card)})
    assert reply == {"type": "registered", "id": alice.id, "visibility": "public", "verified": True}
    unsigned = await alice.ok({"op": "register", "card": card})
    assert unsigned["verified"] is False and unsigned["visibility"] == "private"


async def test_register_refuses_foreign_ids_and_bad_signatures(hub, raw_agent):
    alice, bob = await raw_agent(hub.url, name="alice"), await raw_agent(hub.url, name="bob")
    foreign = await alice.request({"op": "register", "card": card_of(bob)})
    assert foreign["code"] == "invalid_card"
    card = card_of(alice)
    forged = await alice.request({"op": "register", "card": card, "sig": signed(bob.identity, card)})
    assert forged["code"] == "invalid_card"


async def test_discover_and_lookup(hub, raw_agent):
    alice, bob = await raw_agent(hub.url, name="alice"), await raw_agent(hub.url, name="bob")
    await alice.ok({"op": "register", "card": card_of(alice, tags=["planning"],
                                                       skills=[{"id": "plan", "name": "Planning"}]), "visibility": "public"})
    await bob.ok({"op": "register", "card": card_of(bob, tags=["review"])})
    everyone = (await bob.ok({"op": "discover"}, "directory"))["agents"]
    assert {e["card"]["name"] for e in everyone} == {"alice", "bob"}
    public = (await bob.ok({"op": "discover", "scope": "public"}))["agents"]
    assert [e["card"]["name"] for e in public] == ["alice"]
    assert [e["card"]["name"] for e in (await bob.ok({"op": "discover", "query": "PLAN"}))["agents"]] == ["alice"]
    assert [e["card"]["name"] for e in (await bob.ok({"op": "discover", "tag": "rev"}))["agents"]] == ["bob"]
    assert (await bob.ok({"op": "discover", "status": "offline"}))["agents"] == []
    entry = (await bob.ok({"op": "lookup", "id": alice.id}, "card"))["entry"]
    assert entry["card"]["id"] == alice.id and entry["status"] == "idle" and entry["verified"] is False
    assert entry["hub"] == hub.config.name and entry["firstSeen"] <= entry["lastSeen"]
    assert await bob.ok({"op": "lookup", "id": "U" + "A" * 55}) == {"type": "card"}


async def test_tokens_are_minted_and_watch_is_owner_only(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    token = await alice.ok({"op": "mint_directory_token", "ttlSecs": 60}, "directory_token")
    assert len(token["token"]) == 32
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": "team"})
    await bob.ok({"op": "redeem", "code": invited["code"]})
    watch = await alice.ok({"op": "mint_watch", "room": "team"}, "watch")
    assert watch["room"] == "team" and len(watch["token"]) == 32
    refused = await bob.request({"op": "mint_watch", "room": "team"})
    assert refused["type"] == "error" and "code" not in refused
