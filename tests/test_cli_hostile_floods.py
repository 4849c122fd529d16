"""A hub that floods: ``listen`` says a repeated fault once and then counts it, instead of a
line each (a flood of 20,000 frames a second wrote 638,330 lines to stderr in 30 s); pushes past
seqs it never sends leave ``listen`` a bounded record."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3

import pytest

from parler_desktop.client.feed import FED_KEY, MAX_AHEAD, FedState
from support.cli_runner import run_cli, started_cli
from support.client_harness import wait_for
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.hub_lies import FLOOD, MalformedFlood, SkippedSeqs
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


async def test_listen_prints_pushes_past_seqs_the_hub_never_sends_and_says_so_once(hub, raw_agent, tmp_path):
    """Issue 47: for each push past seqs the hub never sends, listen remembered its seq (the gaps
    below it never filled, ~140 B a message). Past ``MAX_AHEAD`` the gaps count as skipped:
    every push is printed once, in order, stderr says it once, and the record stays bounded."""
    peer = await raw_agent(hub.url, name="bot")
    home = tmp_path / "home"
    assert (await run_cli(home, "join", "--hub", hub.url, await invite_code(peer))).status == 0
    lies = SkippedSeqs()
    proxy = await HostileHub(hub.url, lies).start()
    errors: list[str] = []
    printed: list[dict] = []
    count = MAX_AHEAD + 200
    try:
        async with started_cli(home, "listen", "--hub", proxy.url, "--json") as listener:
            reading = asyncio.ensure_future(read_lines(listener.stderr, errors))
            await wait_for(lambda: any("live" in line for line in errors), "listen live", timeout=30)
            await lies.push_skipping(count)
            while len(printed) < count:
                printed.append(json.loads(await asyncio.wait_for(listener.stdout.readline(), 30)))
            await wait_for(lambda: any("skipped" in line for line in errors), "the skip said", timeout=10)
            listener.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(listener.wait(), 30) == 0
            await reading
    finally:
        await proxy.close()
    assert [message["text"] for message in printed] == [f"pushed {n}" for n in range(count)]
    assert len([line for line in errors if "skipped" in line]) == 1, errors
    records = []
    for store_file in home.rglob("*.sqlite3"):
        with contextlib.closing(sqlite3.connect(store_file)) as db:
            with contextlib.suppress(sqlite3.Error):
                records += [FedState.parse(value) for (value,) in db.execute("SELECT value FROM meta WHERE key = ?", (FED_KEY + "team",))]
    assert records and all(len(record.ahead) <= MAX_AHEAD for record in records), [len(r.ahead) for r in records]
