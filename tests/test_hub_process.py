"""The hub as a process: the CLI contract, and durability across kill -9 (§11 item 4)."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import stat
import subprocess
import sys

import pytest

from support.cli_runner import run_cli
from support.raw_agent import make_room
from support.os_needs import HAS_FILE_MODES

from parler_desktop.paths import Home

pytestmark = pytest.mark.timeout(90)


async def test_sent_messages_survive_kill_9(hub_process_factory, raw_agent):
    process = hub_process_factory()
    alice = await raw_agent(process.url, name="alice")
    room = await make_room(alice, "team")
    sent = []
    for i in range(20):
        reply = await alice.ok({"op": "send", "target": {"kind": "room", "room": room},
                                "parts": [{"kind": "text", "text": str(i)}], "clientId": f"c{i}"}, "sent")
        sent.append(reply["seq"])
    process.kill()
    process.restart()
    again = await raw_agent(process.url, name="alice", identity=alice.identity)
    pulled = await again.ok({"op": "pull", "room": room, "since": 0}, "pulled")
    assert [m["seq"] for m in pulled["messages"]] == sent
    replay = await again.ok({"op": "send", "target": {"kind": "room", "room": room},
                             "parts": [{"kind": "text", "text": "0"}], "clientId": "c0"})
    assert replay["seq"] == sent[0]  # idempotency survives the restart too
    fresh = await again.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": []})
    assert fresh["seq"] > sent[-1]


async def test_no_acknowledged_send_is_lost_when_the_hub_is_killed_mid_stream(hub_process_factory, raw_agent):
    """Three agents keep sending (commits batched, replies in flight) when the hub is killed:
    every seq a ``sent`` acknowledged is there after the restart."""
    process = hub_process_factory()
    owner = await raw_agent(process.url, name="owner")
    writers = [await raw_agent(process.url, name=f"w{i}") for i in range(3)]
    room = await make_room(owner, "team", *writers)
    acknowledged: list[int] = []
    enough = asyncio.Event()

    async def keep_sending(agent) -> None:  # noqa: ANN001
        for i in range(10_000):
            reply = await agent.request({"op": "send", "target": {"kind": "room", "room": room},
                                         "parts": [{"kind": "text", "text": f"{agent.name}-{i}"}]})
            if reply["type"] != "sent":
                return  # the hub is gone
            acknowledged.append(reply["seq"])
            if len(acknowledged) >= 150:
                enough.set()

    senders = [asyncio.create_task(keep_sending(agent)) for agent in writers]
    await asyncio.wait_for(enough.wait(), 30)
    process.kill()
    await asyncio.gather(*senders, return_exceptions=True)
    process.restart()
    again = await raw_agent(process.url, name="owner", identity=owner.identity)
    pulled = await again.ok({"op": "pull", "room": room, "since": 0, "limit": 1000}, "pulled")
    stored = {m["seq"] for m in pulled["messages"]}
    assert set(acknowledged) <= stored


def test_cli_prints_exactly_one_url_line_and_exits_0_on_sigterm(hub_process_factory):
    process = hub_process_factory()
    assert process.url.startswith("ws://127.0.0.1:") and process.url.endswith("/ws")
    assert process.terminate() == 0
    assert process.stdout_lines == [process.url]  # one line, nothing after it
    assert "Traceback" not in process.stderr_text


def test_cli_port_in_use_is_a_one_line_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "parler_desktop", "hub", "--port", str(port), "--db", str(tmp_path / "h.db")],
            capture_output=True, text=True, timeout=30,
        )
    assert result.returncode == 1 and result.stdout == ""
    assert "already in use" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


async def test_cli_missing_join_secret_file_gets_a_new_private_secret(hub_process_factory, raw_agent, tmp_path):
    """As the reference hub: a missing (or blank) secret file is filled, then enforced."""
    secret_file = tmp_path / "nested" / "secret"
    process = hub_process_factory(extra_args=["--join-secret-file", str(secret_file)])
    secret = secret_file.read_text().strip()
    assert len(secret) == 32 and (not HAS_FILE_MODES or stat.S_IMODE(secret_file.stat().st_mode) == 0o600)
    assert str(secret_file) in process.stderr_text and secret not in process.stderr_text
    refused = await raw_agent(process.url, handshake=False)
    assert (await refused.handshake())["code"] == "not_authorized"
    await raw_agent(process.url, secret=secret)


def test_cli_unreadable_join_secret_file_exits_2(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "parler_desktop", "hub", "--port", "0", "--db", str(tmp_path / "h.db"),
         "--join-secret-file", str(tmp_path)],  # a folder: exists, cannot be read, never replaced
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 2 and "join secret" in result.stderr and "Traceback" not in result.stderr


async def test_cli_join_secret_file_is_enforced(hub_process_factory, raw_agent, tmp_path):
    secret_file = tmp_path / "secret"
    secret_file.write_text("\u3000 s3cr3t\t\n")  # trimmed like Rust's trim(): any Unicode whitespace
    process = hub_process_factory(extra_args=["--join-secret-file", str(secret_file)])
    refused = await raw_agent(process.url, handshake=False)
    assert (await refused.handshake())["code"] == "not_authorized"
    await raw_agent(process.url, secret="s3cr3t")
    assert secret_file.read_text() == "\u3000 s3cr3t\t\n"


async def test_one_secret_file_serves_the_hub_and_the_client(hub_process_factory, tmp_path):
    """The client trims the file as the hub does, so an editor's spaces or CRLF cannot lock it out."""
    home = tmp_path / "home"
    secret_file = Home.resolve(home).join_secret_file
    secret_file.parent.mkdir(parents=True)
    secret_file.write_text("\u3000 s3cr3t \r\n")
    process = hub_process_factory(extra_args=["--join-secret-file", str(secret_file)])
    result = await run_cli(home, "send", "--hub", process.url, "--timeout", "20", "--room", "nowhere", "hi")
    assert result.status == 1 and "not a member of 'nowhere'" in result.stderr, result.stderr  # past the handshake


def test_cli_database_that_is_not_a_database_is_a_one_line_error(tmp_path):
    db = tmp_path / "h.db"
    db.write_bytes(b"this is not sqlite" * 100)
    result = subprocess.run(
        [sys.executable, "-m", "parler_desktop", "hub", "--port", "0", "--db", str(db)],
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 1 and str(db) in result.stderr and "Traceback" not in result.stderr


async def test_cli_max_blob_bytes_takes_a_file_that_large_and_refuses_one_larger(hub_process_factory, raw_agent):
    """``--max-blob-bytes`` (the reference hub's option): 60 MiB is over the default 25 MiB and over
    the default 50 MiB reserved for uploads in flight, and is taken; a byte more is refused."""
    limit = 60 * 1024 * 1024
    process = hub_process_factory(extra_args=["--max-blob-bytes", str(limit)])
    alice = await raw_agent(process.url)
    room = await make_room(alice, "files")
    target = {"kind": "room", "room": room}
    too_big = await alice.request({"op": "put_blob", "target": target, "sha256": "0" * 64, "size": limit + 1})
    assert too_big["code"] == "too_large"
    data = bytes(limit)
    ready = await alice.ok({"op": "put_blob", "target": target, "sha256": hashlib.sha256(data).hexdigest(), "size": limit}, "blob_ready")
    await alice.send_bytes(data)
    assert (await alice.recv())["type"] == "blob_stored", ready


def test_cli_max_blob_bytes_below_one_exits_2(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "parler_desktop", "hub", "--port", "0", "--db", str(tmp_path / "h.db"), "--max-blob-bytes", "0"],
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 2 and "--max-blob-bytes must be at least 1" in result.stderr
