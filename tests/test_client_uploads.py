"""Sending a file (issue 43 item 5) through a real session and hub: the bytes a member fetches
are the file's, a line cut mid-upload is tried again and the file posted once, and a file above
the hub's limit is refused before any byte is sent, with one sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import ConnectionState, OutboxStatus
from parler_desktop.client.uploads import FileUpload, refusal_sentence
from support.client_harness import session_factory  # noqa: F401  (fixture)
from support.fault_proxy import FaultProxy
from support.peer_ops import hub_history, invite_code

pytestmark = pytest.mark.timeout(60)
MIB = 1024 * 1024


def random_file(path: Path, size: int) -> bytes:
    data = os.urandom(size)
    path.write_bytes(data)
    return data


async def joined(session, log, peer) -> None:
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(await invite_code(peer))
    await log.wait_until(lambda: "team" in {r.name for r in session.rooms}, "room listed")


async def fetched(peer, blob: str) -> bytes:
    header = await peer.ok({"op": "get_blob", "id": blob}, "blob_incoming")
    data = await peer.recv_bytes()
    assert len(data) == header["size"]
    return data


def file_parts(history: list[dict]) -> list[dict]:
    return [p for m in history for p in m["parts"] if p["kind"] == "com.parler.file"]


async def test_a_sent_file_is_posted_once_and_a_member_fetches_the_same_bytes(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="alice")
    session, log = await session_factory(hub.url)
    await joined(session, log, peer)
    data = random_file(tmp_path / "report.bin", 3 * MIB + 17)
    upload = FileUpload(tmp_path / "report.bin", "team")
    seen: list[int] = []
    item = await upload.run(session, lambda u: seen.append(u.sent))
    assert seen[-1] == len(data) and seen == sorted(seen)  # progress only grows
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "posted")
    [part] = file_parts(await hub_history(peer))
    assert (part["name"], part["size"]) == ("report.bin", len(data))
    assert await fetched(peer, part["blob"]) == data


async def test_an_upload_cut_by_a_dropped_line_is_sent_again_and_posted_once(hub, raw_agent, session_factory, tmp_path):
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    try:
        peer = await raw_agent(hub.url, name="alice")
        session, log = await session_factory(proxy.url)
        await joined(session, log, peer)
        data = random_file(tmp_path / "big.bin", 12 * MIB)
        upload = FileUpload(tmp_path / "big.bin", "team")

        def progress(u: FileUpload) -> None:
            if u.attempts == 1 and u.sent >= 4 * MIB:
                proxy.cut()  # the line drops a third of the way through

        item = await upload.run(session, progress)
        assert upload.attempts == 2
        await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "posted")
        [part] = file_parts(await hub_history(peer))  # once
        assert await fetched(peer, part["blob"]) == data
    finally:
        await proxy.close()


async def test_a_file_above_the_hubs_limit_is_refused_before_any_byte_is_sent(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="alice")
    session, log = await session_factory(hub.url)
    await joined(session, log, peer)
    with (tmp_path / "huge.iso").open("wb") as handle:
        handle.truncate(26 * MIB)
    upload = FileUpload(tmp_path / "huge.iso", "team")
    with pytest.raises(HubRefused) as refused:
        await upload.run(session, lambda u: None)
    assert upload.sent == 0 and upload.attempts == 1
    assert refusal_sentence(upload, refused.value) == "huge.iso (26.0 MiB) is too large for this hub; nothing was sent."
    assert file_parts(await hub_history(peer)) == []


async def test_a_cancelled_upload_ends_its_message_and_the_line_stays_up(hub, raw_agent, session_factory, tmp_path):
    from parler_desktop.client.uploads import UploadCancelled

    peer = await raw_agent(hub.url, name="alice")
    session, log = await session_factory(hub.url)
    await joined(session, log, peer)
    random_file(tmp_path / "big.bin", 12 * MIB)
    upload = FileUpload(tmp_path / "big.bin", "team")
    with pytest.raises(UploadCancelled):
        await upload.run(session, lambda u: u.sent >= 2 * MIB and u.cancel())
    assert upload.attempts == 1 and upload.sent < 12 * MIB
    assert log.states().count(ConnectionState.LIVE) == 1  # no reconnect
    await session.refresh_rooms()  # the line still answers
    assert file_parts(await hub_history(peer)) == []


async def test_an_upload_on_a_line_that_stalls_is_dropped_and_sent_again_once_it_flows(hub, raw_agent, session_factory, tmp_path):
    import asyncio

    from support.client_harness import wait_for

    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    try:
        peer = await raw_agent(hub.url, name="alice")
        session, log = await session_factory(proxy.url)  # FAST: nothing sent for 5 s counts as stalled
        await joined(session, log, peer)
        data = random_file(tmp_path / "big.bin", 12 * MIB)
        upload = FileUpload(tmp_path / "big.bin", "team")

        def progress(u: FileUpload) -> None:
            if u.attempts == 1 and u.sent >= 4 * MIB:
                proxy.stall()  # the socket stays open and carries nothing

        running = asyncio.get_running_loop().create_task(upload.run(session, progress))
        await wait_for(lambda: upload.attempts == 2, "the stalled upload dropped", timeout=20)
        proxy.resume()
        item = await running
        await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "posted")
        [part] = file_parts(await hub_history(peer))
        assert await fetched(peer, part["blob"]) == data
    finally:
        await proxy.close()


@pytest.mark.parametrize(
    ("limits", "sentence"),
    [
        ({"max_blob_storage_bytes": MIB}, "The hub's file storage is full, so second.bin was not sent; try again later."),
        ({"blobs_per_agent": {"count": 1, "window_secs": 3600}}, "The hub takes only so many files an hour, so second.bin was not sent; try again later."),
    ],
    ids=["storage_full", "rate_limited"],
)
async def test_the_hubs_other_limits_each_give_one_sentence_before_the_bytes_are_sent(hub_factory, raw_agent, session_factory, tmp_path, limits, sentence):
    hub = hub_factory(limits=limits)
    peer = await raw_agent(hub.url, name="alice")
    session, log = await session_factory(hub.url)
    await joined(session, log, peer)
    random_file(tmp_path / "first.bin", 600 * 1024)
    await FileUpload(tmp_path / "first.bin", "team").run(session, lambda u: None)
    random_file(tmp_path / "second.bin", 600 * 1024)
    upload = FileUpload(tmp_path / "second.bin", "team")
    with pytest.raises(HubRefused) as refused:
        await upload.run(session, lambda u: None)
    assert refusal_sentence(upload, refused.value) == sentence
    assert upload.sent == 0 and upload.attempts == 1
