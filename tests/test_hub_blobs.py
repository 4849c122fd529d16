"""Blob upload and download with the binary-frame sequencing of §7.13."""

from __future__ import annotations

import hashlib

from support.raw_agent import RawAgent, make_room


async def upload(agent: RawAgent, room: str, data: bytes, media_type: str | None = "text/plain") -> dict:
    frame = {"op": "put_blob", "target": {"kind": "room", "room": room},
             "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    if media_type:
        frame["mediaType"] = media_type
    ready = await agent.ok(frame, "blob_ready")
    assert ready["id"] == frame["sha256"]
    await agent.send_bytes(data)
    return await agent.recv()


async def test_upload_then_download_by_a_member(hub, raw_agent):
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    data = b"hello blob \x00\xff" * 1000
    blob_id = hashlib.sha256(data).hexdigest()
    assert await upload(alice, room, data) == {"type": "blob_stored", "id": blob_id, "size": len(data)}
    incoming = await bob.ok({"op": "get_blob", "id": blob_id}, "blob_incoming")
    assert incoming == {"type": "blob_incoming", "id": blob_id, "size": len(data), "mediaType": "text/plain"}
    received = await bob.recv_bytes()
    assert hashlib.sha256(received).hexdigest() == blob_id
    assert (await bob.request({"op": "ping"}))["type"] == "pong"


async def test_identical_bytes_are_stored_once(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    assert (await upload(alice, room, b"same"))["type"] == "blob_stored"
    assert (await upload(alice, room, b"same"))["type"] == "blob_stored"
    files = [p for p in hub.config.resolved_blob_dir.rglob("*") if p.is_file()]
    assert len(files) == 1 and files[0].read_bytes() == b"same"


async def test_size_and_hash_mismatches_are_protocol_errors(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    target = {"kind": "room", "room": room}
    await alice.ok({"op": "put_blob", "target": target, "sha256": hashlib.sha256(b"abc").hexdigest(), "size": 3})
    await alice.send_bytes(b"abcd")
    reply = await alice.recv()
    assert reply["code"] == "protocol" and "size" in reply["message"]
    await alice.ok({"op": "put_blob", "target": target, "sha256": hashlib.sha256(b"abc").hexdigest(), "size": 3})
    await alice.send_bytes(b"xyz")
    reply = await alice.recv()
    assert reply["code"] == "protocol" and "content id" in reply["message"]
    assert (await alice.request({"op": "ping"}))["type"] == "pong"  # mismatches keep the socket


async def test_download_refusals(hub, raw_agent):
    alice, eve = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team")
    unknown = await eve.request({"op": "get_blob", "id": "0" * 64})
    assert unknown["code"] == "unknown_blob"
    stored = await upload(alice, room, b"secret")
    refused = await eve.request({"op": "get_blob", "id": stored["id"]})
    assert refused["code"] == "not_authorized"


async def test_upload_refusals(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_blob_bytes": 1024, "max_blob_storage_bytes": 1500})
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    target = {"kind": "room", "room": room}
    too_big = await alice.request({"op": "put_blob", "target": target, "sha256": "0" * 64, "size": 1025})
    assert too_big["code"] == "too_large"
    assert (await upload(alice, room, b"x" * 1000))["type"] == "blob_stored"
    full = await alice.request({"op": "put_blob", "target": target, "sha256": "1" * 64, "size": 600})
    assert full["code"] == "storage_full"
    stranger = await alice.request({"op": "put_blob", "target": {"kind": "room", "room": "nope"}, "sha256": "1" * 64, "size": 1})
    assert stranger["code"] == "not_member"


async def test_upload_reservations_are_bounded_and_released(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_blob_bytes": 100, "upload_reservation_pool_bytes": 100})
    alice, bob = await raw_agent(hub.url), await raw_agent(hub.url)
    room = await make_room(alice, "team", bob)
    target = {"kind": "room", "room": room}
    await alice.ok({"op": "put_blob", "target": target, "sha256": hashlib.sha256(b"a").hexdigest(), "size": 1})
    busy = await bob.request({"op": "put_blob", "target": target, "sha256": "0" * 64, "size": 1})
    assert busy["code"] == "at_capacity"
    await alice.send_bytes(b"a")
    assert (await alice.recv())["type"] == "blob_stored"
    assert (await upload(bob, room, b"b"))["type"] == "blob_stored"


async def test_a_second_put_blob_replaces_the_pending_one(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    target = {"kind": "room", "room": room}
    await alice.ok({"op": "put_blob", "target": target, "sha256": hashlib.sha256(b"first").hexdigest(), "size": 5})
    assert (await upload(alice, room, b"second!"))["size"] == 7
