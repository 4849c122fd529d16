"""The periodic retention sweep (§7.16): old messages beyond the newest N, idle blobs, expired invites."""

from __future__ import annotations

import asyncio
import hashlib
import time

import pytest

from support.raw_agent import make_room

pytestmark = pytest.mark.timeout(30)


async def eventually(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "condition never became true"
        await asyncio.sleep(0.02)


async def test_sweep_keeps_the_newest_messages_and_drops_idle_blobs_and_expired_invites(hub_factory, raw_agent):
    hub = hub_factory(limits={"janitor_interval_secs": 0.05, "message_retention_days": 0,
                              "messages_kept_per_room": 2, "blob_idle_days": 0})
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    seqs = []
    for i in range(4):
        sent = await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": []})
        seqs.append(sent["seq"])
    data = b"short-lived"
    blob = hashlib.sha256(data).hexdigest()
    await alice.ok({"op": "put_blob", "target": {"kind": "room", "room": room}, "sha256": blob, "size": len(data)})
    await alice.send_bytes(data)
    assert (await alice.recv())["type"] == "blob_stored"
    invite = await alice.ok({"op": "invite", "kind": "channel", "room": room, "ttlSecs": 0})

    async def swept() -> bool:
        history = await alice.ok({"op": "pull", "room": room, "since": 0})
        gone = await alice.request({"op": "get_blob", "id": blob})
        if gone["type"] == "blob_incoming":
            await alice.recv_bytes()
        return [m["seq"] for m in history["messages"]] == seqs[-2:] and gone.get("code") == "unknown_blob"

    await eventually(swept)
    assert not any(p.is_file() for p in hub.config.resolved_blob_dir.rglob("*"))
    outsider = await raw_agent(hub.url)
    refused = await outsider.request({"op": "redeem", "code": invite["code"]})
    assert refused["message"] == "invalid or unknown invite code"
