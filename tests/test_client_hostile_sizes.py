"""Bounded messages: a frame claiming 10 GiB is refused at its header (it once took 3.04 GB of
RSS), and a pulled page that would not fit is asked for again with fewer messages."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import struct
from typing import Any

import pytest

from parler_desktop.client import BadReply, ConnectionLost
from parler_desktop.client.blob_save import BlobSave
from parler_desktop.client.connection import MAX_MESSAGE_BYTES
from parler_desktop.client.events import ConnectionState, CursorChanged, Notice
from parler_desktop.identity import Identity
from support.client_harness import FAST, session_factory  # noqa: F401  (fixture)
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.hub_lies import BlobBody
from support.peer_ops import invite_code, say

pytestmark = pytest.mark.timeout(60)


def text_frame_header(length: int) -> bytes:
    """A server's (unmasked) final text frame header announcing ``length`` bytes of payload."""
    return bytes([0x81, 127]) + struct.pack("!Q", length)


class HugePage(Misbehaviour):
    """The first ``pull`` of ``team`` is answered by a text frame claiming 10 GiB, of which a
    first MiB is sent; later ones pass. Notes each pull's ``limit``."""

    def __init__(self) -> None:
        self.limits: list[int] = []
        self.closed_with: list[int | None] = []

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if request is None or request.get("op") != "pull" or request.get("room") != "team" or not request.get("limit"):
            return [reply]
        self.limits.append(request["limit"])
        if len(self.limits) > 1:
            return [reply]
        link.client.transport.write(text_frame_header(10 << 30) + b"[" * (1 << 20))
        link.state["huge"] = True
        return []


async def test_a_frame_claiming_10_gib_is_refused_and_the_page_asked_smaller(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    for number in range(3):
        await say(peer, "team", f"m{number}")
    huge = HugePage()
    proxy = await HostileHub(hub.url, huge).start()
    try:
        session, log = await session_factory(proxy.url)
        await log.wait_state(ConnectionState.LIVE)
        await session.redeem(code)
        await log.wait_until(lambda: len(log.messages("team")) == 3, "team's messages stored after a reconnect")
    finally:
        await proxy.close()
    assert huge.limits[:2] == [4, 2], huge.limits  # a first page asks for the unread count and one more, then half
    assert any(f"larger than {MAX_MESSAGE_BYTES >> 20} MiB" in notice.text for notice in log.of(Notice))


async def test_pages_that_would_not_fit_are_asked_for_with_fewer_messages(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    for number in range(60):
        await say(peer, "team", f"{number} " + "x" * 2000)
    tuning = dataclasses.replace(FAST, max_message_bytes=64 << 10)  # a page of 60 is ~130 KiB
    session, log = await session_factory(hub.url, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: len(log.messages("team")) == 60, "every message stored, a smaller page at a time", 30)
    assert sorted(int(m.text.split()[0]) for m in log.messages("team")) == list(range(60))


def server_text_frame(text: str) -> bytes:
    payload = text.encode()
    return text_frame_header(len(payload)) + payload


class BurstAfterPush(Misbehaviour):
    """A push for room ``a`` reaches the client first in one burst of 2,000 made-up pushes for
    ``b``, all written at once: a client with a small inbox drops it."""

    def push(self, link: Link, delivery: dict) -> list:
        if delivery["message"]["room"] != "a":
            return [delivery]
        fakes = [{"type": "delivery", "message": {**delivery["message"], "room": "b", "seq": 5_000_000 + n, "id": f"f{n}"}}
                 for n in range(2000)]
        link.client.transport.write(b"".join(server_text_frame(json.dumps(frame)) for frame in [delivery, *fakes]))
        return []


async def test_rooms_whose_pushes_were_dropped_are_pulled(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    identity, store_path = Identity.generate(), tmp_path / "joined.sqlite3"
    joined, joined_log = await session_factory(hub.url, identity=identity, store_path=store_path)
    for room in ("a", "b"):
        await joined.redeem(await invite_code(peer, room))
    await joined_log.wait_until(lambda: {e.room for e in joined_log.of(CursorChanged)} >= {"a", "b"}, "both rooms pulled")
    await joined.stop()
    tuning = dataclasses.replace(FAST, inbox_capacity=1, reconcile_secs=60.0)  # no full reconciliation meanwhile
    proxy = await HostileHub(hub.url, BurstAfterPush()).start()
    try:
        session, log = await session_factory(proxy.url, identity=identity, store_path=store_path, tuning=tuning)
        await log.wait_state(ConnectionState.LIVE)
        seq = await say(peer, "a", "dropped on the way")
        await log.wait_until(lambda: seq in {m.seq for m in log.messages("a")}, "the dropped push's room pulled")
    finally:
        await proxy.close()
    assert any("dropped" in notice.text for notice in log.of(Notice))


def binary_frame_header(length: int) -> bytes:
    return bytes([0x82, 127]) + struct.pack("!Q", length)


class HugeBlob(Misbehaviour):
    """``get_blob`` answered by the hub's honest ``blob_incoming`` made to announce ``size``, then a
    binary frame claiming ``body`` bytes, of which the first MiB is sent."""

    def __init__(self, size: int, body: int) -> None:
        self.size, self.body = size, body

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") != "get_blob":
            return None
        link.client.transport.write(server_text_frame(json.dumps({"type": "blob_incoming", "id": frame["id"], "size": self.size})))
        link.client.transport.write(binary_frame_header(self.body) + b"\0" * (1 << 20))
        return []


@pytest.mark.parametrize(("size", "body"), [(10 << 30, 10 << 30), (100, 30 << 20)], ids=["announced 10 GiB", "larger than announced"])
async def test_a_blob_larger_than_the_cap_or_its_announcement_is_refused_at_once(hub, session_factory, size, body):
    async def took(chunk: bytes) -> None:
        raise AssertionError(f"{len(chunk)} bytes taken of a blob that should have been refused")

    proxy = await HostileHub(hub.url, HugeBlob(size, body)).start()
    try:
        session, log = await session_factory(proxy.url, tuning=dataclasses.replace(FAST, reply_timeout_secs=20.0))
        await log.wait_state(ConnectionState.LIVE)
        started = asyncio.get_running_loop().time()
        with pytest.raises((BadReply, ConnectionLost), match="larger than"):
            await session.fetch_blob("ab" * 32, took)
        assert asyncio.get_running_loop().time() - started < 10  # not the reply timeout: refused as announced
    finally:
        await proxy.close()


async def shared(peer: Any, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    await peer.ok({"op": "put_blob", "target": {"kind": "room", "room": "team"}, "sha256": digest, "size": len(data)}, "blob_ready")
    await peer.send_bytes(data)
    assert (await peer.recv())["type"] == "blob_stored"
    return digest


async def test_a_blob_streams_to_its_file_a_fragment_at_a_time_and_a_push_before_its_bytes_is_kept(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    data = bytes(range(256)) * 1024  # 256 KiB: four fragments
    digest = await shared(peer, data)
    hostile = BlobBody(len(data), data, hold_pushes=True)
    proxy = await HostileHub(hub.url, hostile).start()
    try:
        session, log = await session_factory(proxy.url)
        await log.wait_state(ConnectionState.LIVE)
        await session.redeem(code)
        await say(peer, "team", "while the file comes")
        await log.wait_until(lambda: hostile.held, "the push held back")
        progress: list[int] = []
        await BlobSave(digest, len(data), tmp_path / "file.bin").run(session, lambda save: progress.append(save.received))
        assert (tmp_path / "file.bin").read_bytes() == data
        assert progress == [65536, 131072, 196608, 262144]  # as each fragment was written
        await log.wait_until(lambda: "while the file comes" in [m.text for m in log.messages("team")], "the push kept")
    finally:
        await proxy.close()


async def test_a_blob_that_stalls_is_dropped_with_its_line_and_leaves_no_file(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    data = b"stalls\n" * 40_000
    digest = await shared(peer, data)
    proxy = await HostileHub(hub.url, BlobBody(len(data), data[: len(data) // 2], stall=True)).start()
    folder = tmp_path / "saved"
    folder.mkdir()
    try:
        session, log = await session_factory(proxy.url)
        await log.wait_state(ConnectionState.LIVE)
        await session.redeem(code)
        with pytest.raises(ConnectionLost, match=f"sent nothing of the file for {FAST.reply_timeout_secs:g} s"):
            await BlobSave(digest, len(data), folder / "file.bin").run(session, lambda _save: None)
        assert list(folder.iterdir()) == []
        await log.wait_state(ConnectionState.LIVE)  # on a new line
    finally:
        await proxy.close()
