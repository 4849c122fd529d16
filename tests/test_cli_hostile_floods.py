"""A hub that floods: ``listen`` says a repeated fault once and then counts it, instead of a
line each (a flood of 20,000 frames a second wrote 638,330 lines to stderr in 30 s)."""

from __future__ import annotations

import asyncio
import json
import signal

import pytest

from support.cli_runner import run_cli, started_cli
from support.client_harness import wait_for
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.hub_lies import FLOOD, MalformedFlood
from support.peer_ops import invite_code, say

pytestmark = pytest.mark.timeout(90)



async def read_lines(stream: asyncio.StreamReader, into: list[str]) -> None:
    while line := await stream.readline():
        into.append(line.decode())


async def test_listen_counts_a_flood_of_faults_instead_of_a_line_each(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    home = tmp_path / "home"
    assert (await run_cli(home, "join", "--hub", hub.url, await invite_code(peer))).status == 0
    flood = MalformedFlood()
    proxy = HostileHub.in_thread(hub.url, flood)
    errors: list[str] = []
    try:
        async with started_cli(home, "listen", "--hub", proxy.url, "--json") as listener:
            reading = asyncio.ensure_future(read_lines(listener.stderr, errors))
            await wait_for(flood.done.is_set, "the flood sent", timeout=40)
            await say(peer, "team", "after the flood")
            line = await asyncio.wait_for(listener.stdout.readline(), 40)
            assert json.loads(line)["text"] == "after the flood"
            listener.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(listener.wait(), 30) == 0
            await reading
    finally:
        proxy.stop()
    faults = [line for line in errors if "malformed" in line]
    assert 1 <= len(faults) <= 3, f"{len(errors)} lines on stderr: {errors[:5]} …"
    assert any(f"{FLOOD - 1} more like this" in line for line in faults), faults
    assert len(errors) < 20, errors


def phantom(number: int) -> dict:
    """A well-formed push for a room nobody joined."""
    return {"type": "delivery", "message": {
        "seq": 1_000_000 + number, "id": f"p{number}", "room": f"phantom-{number}", "from": {"id": "UGHOST", "name": "ghost"},
        "parts": [{"kind": "text", "text": "boo"}], "ts": 1_700_000_000_000 + number,
    }}


class PhantomRooms(Misbehaviour):
    """Pushes for 300 rooms the hub never lists, right after ``welcome``; the test sends more."""

    def __init__(self) -> None:
        self.link: Link | None = None

    def welcomed(self, link: Link):
        self.link = link
        return link.to_client(*(phantom(number) for number in range(300)))


async def test_listen_ignores_pushes_for_rooms_the_hub_never_listed(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    home = tmp_path / "home"
    assert (await run_cli(home, "join", "--hub", hub.url, await invite_code(peer))).status == 0
    phantoms = PhantomRooms()
    proxy = await HostileHub(hub.url, phantoms).start()
    errors: list[str] = []
    printed: list[dict] = []
    try:
        async with started_cli(home, "listen", "--hub", proxy.url, "--json") as listener:
            reading = asyncio.ensure_future(read_lines(listener.stderr, errors))
            await wait_for(lambda: any("live" in line for line in errors), "listen live", timeout=30)
            assert phantoms.link is not None
            await phantoms.link.to_client(*(phantom(number) for number in range(300, 600)))
            await say(peer, "team", "real")
            while not printed or printed[-1]["text"] != "real":
                printed.append(json.loads(await asyncio.wait_for(listener.stdout.readline(), 30)))
            listener.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(listener.wait(), 30) == 0
            await reading
    finally:
        await proxy.close()
    assert [message["room"] for message in printed] == ["team"]
    assert proxy.requests["rooms"] <= 4, proxy.requests
    said = [line for line in errors if "not listed" in line]
    assert 1 <= len(said) <= 3, errors
