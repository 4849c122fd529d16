"""A hub claiming endless history cannot fill the disk or the memory: a catch-up reads a room
forward a bounded number of messages, then from its newest page (a first sync keeps only that);
what lies between is read as the human scrolls up.

Once, ``listen`` stored 224,500 made-up messages (122 MB) in 45 s and the window grew to 988 MB."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from parler_desktop.client.events import ConnectionState, CursorChanged, Notice
from parler_desktop.client.sync import DEFAULT_PAGE_SIZE
from parler_desktop.identity import Identity
from support.cli_runner import run_cli, started_cli
from support.client_harness import FAST, session_factory, wait_for  # noqa: F401  (fixture)
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.peer_ops import invite_code, say

pytestmark = pytest.mark.timeout(60)


def made_up(seq: int, room: str) -> dict:
    return {"seq": seq, "id": f"f{seq}", "room": room, "from": {"id": "UFAKE", "name": "fake"},
            "parts": [{"kind": "text", "text": f"made up {seq}"}], "ts": 1_700_000_000_000 + seq % 10**9}


class EndlessHistory(Misbehaviour):
    """Every ``since`` pull answered by a full page of made-up messages after ``since``."""

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "pulled" and request and request.get("since") is not None and request.get("limit"):
            limit = request["limit"]
            first = min(max(request["since"], 10**6), 2**63 - 1 - limit) + 1  # above the real ones, full up to the largest seq
            seqs = range(first, first + limit)
            return [{**reply, "messages": [made_up(seq, request["room"]) for seq in seqs], "cursor": seqs[-1]}]
        return [reply]


async def read_lines(stream: asyncio.StreamReader, into: list[str]) -> None:
    while line := await stream.readline():
        into.append(line.decode())


async def test_listen_reads_a_bounded_part_of_endless_history(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    home = tmp_path / "home"
    assert (await run_cli(home, "join", "--hub", hub.url, await invite_code(peer))).status == 0
    proxy = await HostileHub(hub.url, EndlessHistory()).start()
    errors: list[str] = []
    try:
        async with started_cli(home, "listen", "--hub", proxy.url, "--json") as listener:
            reading = asyncio.ensure_future(read_lines(listener.stderr, errors))
            await wait_for(lambda: any("does not end" in line for line in errors), "the endless history said", timeout=40)
            await wait_for(lambda: any(": live" in line for line in errors), "listen live", timeout=20)
            listener.terminate()
            out = await asyncio.wait_for(listener.stdout.read(), 30)
            await asyncio.wait_for(reading, 30)
    finally:
        await proxy.close()
    printed = out.decode().splitlines()
    assert len(printed) < DEFAULT_PAGE_SIZE
    assert proxy.requests["pull"] < 200, proxy.requests


async def test_a_first_sync_reads_the_newest_page_and_scrolling_up_the_rest(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    seqs = [await say(peer, "team", f"m{number}") for number in range(60)]
    session, log = await session_factory(hub.url, tuning=dataclasses.replace(FAST, page_size=10, first_sync_messages=20))
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: seqs[-1] in {m.seq for m in log.messages("team")}, "the newest message stored")
    stored = sorted(m.seq for m in log.messages("team"))
    assert stored == seqs[-len(stored):] and len(stored) < 10  # the newest page only
    assert any("scroll up" in notice.text for notice in log.of(Notice))
    pulls = 0
    while await session.pull_older("team", min(m.seq for m in log.messages("team"))):  # the window, scrolled up
        pulls += 1
    assert sorted(m.seq for m in log.messages("team")) == seqs
    assert pulls == 6  # 10 a page
    assert await session.pull_older("team", seqs[0]) == 0


async def test_a_first_sync_of_a_page_and_a_bit_keeps_both(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    seqs = [await say(peer, "team", f"m{number}") for number in range(13)]
    session, log = await session_factory(hub.url, tuning=dataclasses.replace(FAST, page_size=10, first_sync_messages=20))
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: seqs[-1] in {m.seq for m in log.messages("team")}, "the newest message stored")
    assert sorted(m.seq for m in log.messages("team")) == seqs
    assert not any("scroll up" in notice.text for notice in log.of(Notice))


async def test_a_catch_up_past_its_bound_reads_from_the_newest_page_and_the_rest_on_scroll(hub, raw_agent, session_factory, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    identity, store_path = Identity.generate(), tmp_path / "store.sqlite3"
    tuning = dataclasses.replace(FAST, page_size=10, catch_up_messages=20)
    joined, joined_log = await session_factory(hub.url, identity=identity, store_path=store_path, tuning=tuning)
    await joined.redeem(code)
    await joined_log.wait_until(lambda: joined_log.of(CursorChanged), "team's first sync over")
    await joined.stop()
    seqs = [await say(peer, "team", f"away {number}") for number in range(60)]  # a long time away
    session, log = await session_factory(hub.url, identity=identity, store_path=store_path, tuning=tuning)
    await log.wait_until(lambda: seqs[-1] in {m.seq for m in log.messages("team")}, "the newest message stored")
    stored = sorted(m.seq for m in log.messages("team"))
    assert stored[:20] == seqs[:20] and stored[20:] == seqs[-len(stored) + 20:] and len(stored) < 30  # forward, then newest
    while await session.pull_older("team", min(m.seq for m in log.messages("team") if m.seq > seqs[19])):
        pass
    assert sorted(m.seq for m in log.messages("team")) == seqs
