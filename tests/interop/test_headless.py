"""The headless commands (``join``, ``send``, ``listen --json``) against our hub and the reference
hub, and ``listen`` through two kill -9s of the hub during a 1,000-message stream."""

from __future__ import annotations

import asyncio
import json
import signal

import pytest
from support.cli_runner import run_cli, started_cli
from support.peer_ops import say
from support.raw_agent import RawAgent

from parler_desktop.identity import Identity

pytestmark = pytest.mark.timeout(120)

STREAM = 1000


async def all_seqs(agent: RawAgent, room: str) -> list[int]:
    """Every seq the hub holds for ``room``, paging (a hub may cap a page below 1000)."""
    seqs: list[int] = []
    while True:
        page = await agent.ok({"op": "pull", "room": room, "since": seqs[-1] if seqs else 0, "limit": 200}, "pulled")
        if not page["messages"]:
            return seqs
        seqs.extend(message["seq"] for message in page["messages"])


async def test_join_send_and_listen_json(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    other = await peer.ok({"op": "invite", "kind": "channel", "room": "ops"}, "invited")
    home = tmp_path / "home"
    joined = await run_cli(home, "join", invited["url"])  # the link names the hub
    assert joined.status == 0, joined.stderr
    assert joined.stdout.strip() == "joined team (channel)"
    by_code = await run_cli(home, "join", "--hub", hub.url, other["code"])
    assert by_code.status == 0, by_code.stderr
    assert by_code.stdout.strip() == "joined ops (channel)"

    first = await say(peer, "team", "one")
    sent = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "two from a script")
    assert sent.status == 0, sent.stderr
    pulled = (await peer.ok({"op": "pull", "room": "team", "since": 0}, "pulled"))["messages"]
    assert [(m["seq"], m["parts"][0]["text"]) for m in pulled] == [(first, "one"), (int(sent.stdout), "two from a script")]
    assert pulled[1]["parts"][-1]["kind"] == "com.parler.sig"

    result = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert result.status == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(m["room"], m["seq"], m["text"]) for m in lines] == [("team", first, "one"), ("team", int(sent.stdout), "two from a script")]
    assert lines[0]["from"] == {"id": peer.id, "name": "bot"} and lines[0]["signature"] == "unsigned"
    assert lines[1]["signature"] == "verified"


@pytest.fixture(params=["embedded", "reference"])
def killable_hub(request, hub_process_factory):
    """A hub in a process of its own that ``kill()`` kills with -9 and ``restart()`` brings back
    on the same port and database: ``python -m parler_desktop hub``, or the reference hub."""
    if request.param == "reference":
        return request.getfixturevalue("reference_hub")
    return hub_process_factory(extra_args=["--relaxed-limits"])  # 1,000 sends in a minute


@pytest.mark.timeout(240)
async def test_listen_prints_a_1000_message_stream_once_in_order_through_two_hub_kills(killable_hub, tmp_path):
    hub = killable_hub
    identity = Identity.generate()
    peer = await RawAgent.connect(hub.url, identity=identity, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    home = tmp_path / "home"
    assert (await run_cli(home, "join", "--hub", hub.url, invited["code"])).status == 0
    printed: list[dict] = []
    try:
        async with started_cli(home, "listen", "--hub", hub.url, "--json") as listener:

            async def read_until(count: int) -> None:
                while len(printed) < count:
                    line = await asyncio.wait_for(listener.stdout.readline(), 60)
                    assert line, (await listener.stderr.read()).decode()[-2000:]
                    printed.append(json.loads(line))

            await say(peer, "team", "message 0")
            await read_until(1)  # listening, live
            sent = 1
            for stop in (STREAM // 3, 2 * STREAM // 3):
                while sent < stop:
                    await say(peer, "team", f"message {sent}")
                    sent += 1
                await peer.close()
                await asyncio.to_thread(hub.kill)  # mid-stream: the listener has not printed it all yet
                await asyncio.to_thread(hub.restart)
                peer = await RawAgent.connect(hub.url, identity=identity, name="bot")
            while sent < STREAM:
                await say(peer, "team", f"message {sent}")
                sent += 1
            await read_until(STREAM)
            listener.send_signal(signal.SIGINT)
            assert await asyncio.wait_for(listener.wait(), 30) == 0
            assert (await listener.stdout.read()) == b""  # nothing printed twice
            hub_seqs = await all_seqs(peer, "team")
            assert len(hub_seqs) == STREAM
            assert sorted(m["seq"] for m in printed) == hub_seqs  # every message once
            assert sorted(m["text"] for m in printed) == sorted(f"message {n}" for n in range(STREAM))
            assert [m["seq"] for m in printed] == hub_seqs  # in order
    finally:
        await peer.close()


SECRET = "s3cr3t-for-the-test"


@pytest.fixture(params=["embedded", "reference"])
def secret_hub(request, hub_factory):
    """A hub that requires a join secret: ours, or the reference with ``--join-secret``."""
    if request.param == "reference":
        return request.getfixturevalue("reference_hub_factory")("--join-secret", SECRET)
    return hub_factory(join_secret=SECRET)


async def test_a_join_secret_lets_join_and_send_in_and_a_wrong_one_ends_listen_with_1(secret_hub, raw_agent, tmp_path):
    hub = secret_hub
    peer = await raw_agent(hub.url, name="bot", secret=SECRET)
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    home = tmp_path / "home"
    joined = await run_cli(home, "join", "--hub", hub.url, invited["code"], PARLER_JOIN_SECRET=SECRET)
    assert joined.status == 0, joined.stderr
    sent = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "behind the secret", PARLER_JOIN_SECRET=SECRET)
    assert sent.status == 0, sent.stderr
    pulled = (await peer.ok({"op": "pull", "room": "team", "since": 0}, "pulled"))["messages"]
    assert [(m["seq"], m["parts"][0]["text"]) for m in pulled] == [(int(sent.stdout), "behind the secret")]
    refused = await run_cli(tmp_path / "other", "listen", "--hub", hub.url, PARLER_JOIN_SECRET="wrong")
    assert refused.status == 1 and "join secret" in refused.stderr, refused
