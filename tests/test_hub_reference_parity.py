"""Where the reference hub's behaviour is visible to a peer, ours matches it (docs/protocol.md §12).

Trimming is Rust's ``str::trim`` (Unicode White_Space), which keeps U+001C–U+001F where Python's
``str.strip()`` removes them; a DM to yourself is refused on purpose (§12 says why).
"""

from __future__ import annotations

from parler_desktop.protocol.trim import trim
from support.raw_agent import make_room

RUST_KEEPS = "\x1c\x1d\x1e\x1f"


def test_trim_is_rusts_trim():
    assert trim(f"\u3000\t {RUST_KEEPS}x\u2028\xa0") == f"{RUST_KEEPS}x"
    assert trim(f"{RUST_KEEPS}\n") == RUST_KEEPS


async def test_room_names_keep_what_rust_keeps_then_sanitize_it(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": "\x1cteam\u3000"}, "invited")
    assert invited["room"] == "_team"


async def test_mentions_keep_what_rust_keeps(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": "hi"}],
                    "mentions": ["\x1fBob ", " BOB\u2003", "\x1f"]}, "sent")
    pulled = await bob.ok({"op": "pull", "room": room}, "pulled")
    assert pulled["messages"][0]["mentions"] == ["\x1fbob", "bob", "\x1f"]


async def test_an_invite_code_is_trimmed_like_rust(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    invited = await alice.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    assert (await bob.request({"op": "redeem", "code": f"\x1f{invited['code']}"}))["type"] == "error"
    await bob.ok({"op": "redeem", "code": f"\u3000{invited['code']}\n"}, "joined")


async def test_a_dm_to_yourself_is_refused_and_never_lands_in_another_dm(hub, raw_agent):
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    await bob.ok({"op": "register", "card": {"id": bob.id, "name": "bob", "kind": "agent"}}, "registered")
    await alice.ok({"op": "send", "target": {"kind": "dm", "agent": bob.id}, "parts": [{"kind": "text", "text": "hi"}]}, "sent")
    await alice.ok({"op": "register", "card": {"id": alice.id, "name": "alice", "kind": "agent"}}, "registered")
    refused = await alice.request({"op": "send", "target": {"kind": "dm", "agent": alice.id},
                                   "parts": [{"kind": "text", "text": "note to self"}]})
    assert refused["type"] == "error" and "another agent" in refused["message"]
    rooms = (await bob.ok({"op": "rooms"}, "rooms"))["rooms"]
    dm = next(r["name"] for r in rooms if r["kind"] == "dm")
    texts = [m["parts"][0]["text"] for m in (await bob.ok({"op": "pull", "room": dm, "since": 0}))["messages"]]
    assert texts == ["hi"]


async def test_pushes_still_arrive_while_a_long_poll_is_parked(hub, raw_agent):
    """Unlike the reference, a parked long-poll holds only replies back, not pushes (§12)."""
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    quiet = await make_room(alice, "quiet", bob)
    busy = await make_room(alice, "busy", bob)
    await bob.ok({"op": "subscribe"}, "subscribed")
    await bob.ok({"op": "pull", "room": quiet}, "pulled")
    await bob.send_text(f'{{"op":"pull","room":"{quiet}","waitSecs":30}}')
    await hub.wait_parked()
    await alice.ok({"op": "send", "target": {"kind": "room", "room": busy}, "parts": [{"kind": "text", "text": "now"}]}, "sent")
    pushed = await bob.recv_delivery(timeout=5)
    assert pushed["room"] == busy and hub.parked_polls == 1
