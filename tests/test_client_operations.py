"""The session's one-off operations on the real hub: invites and approval, roster and presence,
blobs, and what a post carries (signature, mentions, reply, extension parts)."""

from __future__ import annotations

import hashlib

import pytest

from parler_desktop.client.blob_save import BlobSave
from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import ConnectionState, OutboxStatus, RosterChanged
from parler_desktop.identity import verify_signature
from parler_desktop.protocol.canonical import SignatureState, verify_message
from parler_desktop.protocol.frames import Joined, JoinPending
from parler_desktop.protocol.parts import Handoff
from parler_desktop.store import LocalStore
from support.client_harness import session_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(30)


async def live_session(session_factory, url, **kwargs):
    session, log = await session_factory(url, **kwargs)
    await log.wait_state(ConnectionState.LIVE)
    return session, log


async def test_invite_with_approval_join_requests_and_resolve(hub, raw_agent, session_factory):
    session, log = await live_session(session_factory, hub.url)
    invited = await session.invite("channel", "ops", require_approval=True)
    assert invited.room == "ops" and invited.url.endswith("/join/" + invited.code)
    await log.wait_until(lambda: [r.name for r in session.rooms] == ["ops"], "our new room listed")
    guest = await raw_agent(hub.url, name="guest")
    assert (await guest.ok({"op": "redeem", "code": invited.code}))["type"] == "join_pending"
    requests = await session.join_requests("ops")
    assert [(r.agent, r.name) for r in requests] == [(guest.id, "guest")]
    resolved = await session.resolve_join("ops", guest.id, True)
    assert resolved.approved
    assert (await guest.ok({"op": "redeem", "code": invited.code}))["type"] == "joined"


async def test_redeem_reports_pending_and_bad_codes(hub, raw_agent, session_factory):
    owner = await raw_agent(hub.url, name="owner")
    gated = await owner.ok({"op": "invite", "kind": "channel", "room": "gated", "requireApproval": True}, "invited")
    session, _ = await live_session(session_factory, hub.url)
    assert isinstance(await session.redeem(gated["url"]), JoinPending)
    with pytest.raises(HubRefused) as refused:
        await session.redeem("NOSUCH23")
    assert refused.value.code is None and "invite" in refused.value.message


async def test_presence_shows_in_the_watched_roster(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    session, log = await live_session(session_factory, hub.url, name="Ada")
    assert isinstance(await session.redeem(invited["code"]), Joined)
    await session.set_presence("working", "reviewing PR 42", "focus")
    session.watch_roster(["team"])

    def ada_working() -> bool:
        return any(
            isinstance(e, RosterChanged) and any(x.name == "Ada" and x.status == "working" for x in e.entries)
            for e in log.events
        )

    await log.wait_until(ada_working, "our presence in the roster")
    entries = await session.store.call(LocalStore.roster, "team")
    ada = next(entry for entry in entries if entry.name == "Ada")
    assert (ada.activity, ada.attention, ada.role) == ("reviewing PR 42", "focus", "supervisor")


async def test_discover_lists_the_cards_of_agents_in_no_room_of_ours(hub, raw_agent, session_factory):
    planner = await raw_agent(hub.url, name="planner")
    card = {"id": planner.id, "name": "planner", "kind": "agent", "tags": ["planning"]}
    await planner.ok({"op": "register", "card": card}, "registered")
    reviewer = await raw_agent(hub.url, name="reviewer")
    await reviewer.ok({"op": "register", "card": {"id": reviewer.id, "name": "reviewer", "kind": "agent"}}, "registered")
    session, _ = await live_session(session_factory, hub.url)
    everyone = await session.discover()
    assert [(entry.card.id, entry.card.name, entry.status) for entry in everyone] == [
        (reviewer.id, "reviewer", "idle"),  # most recently connected first
        (planner.id, "planner", "idle"),
    ]
    assert all(entry.visibility == "private" and not entry.verified and entry.last_seen > 0 for entry in everyone)
    assert [entry.card.id for entry in await session.discover(tag="plan")] == [planner.id]
    assert await session.discover("public") == ()


async def test_a_saved_blob_is_checked_then_renamed_into_place(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    data = b"report bytes " * 1000
    digest = hashlib.sha256(data).hexdigest()
    await peer.ok({"op": "put_blob", "target": {"kind": "room", "room": "team"}, "sha256": digest, "size": len(data)}, "blob_ready")
    await peer.send_bytes(data)
    assert (await peer.recv())["type"] == "blob_stored"
    session, _ = await live_session(session_factory, hub.url)
    await session.redeem(invited["code"])
    folder = tmp_path / "saved"
    folder.mkdir()
    await BlobSave(digest, len(data), folder / "report.bin").run(session, lambda _save: None)
    assert (folder / "report.bin").read_bytes() == data
    with pytest.raises(HubRefused) as refused:
        await BlobSave("0" * 64, None, folder / "gone.bin").run(session, lambda _save: None)
    assert refused.value.code == "unknown_blob"
    assert [path.name for path in folder.iterdir()] == ["report.bin"]  # no partial file left


async def test_a_post_is_signed_and_carries_mentions_reply_and_extension_parts(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    session, log = await live_session(session_factory, hub.url)
    await session.redeem(invited["code"])
    handoff = Handoff(next="wire the login UI", to="webdev").to_part()
    item = await session.post("team", "over to you", mentions=["WebDev"], reply_to="m-1", extra_parts=[handoff])
    await log.wait_until(lambda: len(log.messages("team")) == 1, "our message back from the hub")
    message = log.messages("team")[0]
    assert message.seq == log.outbox(item.client_id)[-1].item.seq
    assert message.mentions == ("webdev",) and message.reply_to == "m-1"
    assert message.parts[1] == handoff
    assert verify_message(message, verify_signature, "U-someone-else") is SignatureState.VALID


async def test_posts_the_hub_refuses_fail_with_a_reason_and_can_be_retried_or_discarded(hub, raw_agent, session_factory):
    session, log = await live_session(session_factory, hub.url)
    item = await session.post("not-mine", "hello?")
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.FAILED, "failure")
    failed = log.outbox(item.client_id)[-1].item
    assert failed.error_code == "not_member" and failed.error
    owner = await raw_agent(hub.url, name="owner")
    invited = await owner.ok({"op": "invite", "kind": "channel", "room": "not-mine"}, "invited")
    await session.redeem(invited["code"])
    await session.retry_outbox(item.client_id)  # same clientId, now allowed
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "sent on retry")
    other = await session.post("nowhere", "give up")
    await log.wait_until(lambda: log.outbox(other.client_id)[-1].item.status is OutboxStatus.FAILED, "second failure")
    await session.discard_outbox(other.client_id)
    assert log.outbox(other.client_id)[-1].item.status is OutboxStatus.DISCARDED
    with pytest.raises(ValueError):
        await session.post("team", "")
