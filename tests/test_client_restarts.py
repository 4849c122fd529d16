"""Crashes: the hub killed with SIGKILL and restarted, and a client killed with a post in flight."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from parler_desktop.client import HubSession
from parler_desktop.client.events import ConnectionState, OutboxStatus
from parler_desktop.identity import Identity, load_or_create_identity
from parler_desktop.paths import Home
from support.client_harness import EventLog, session_factory  # noqa: F401  (fixture)
from support.fault_proxy import FaultProxy
from support.peer_ops import hub_history, hub_seqs, invite_code, say
from support.raw_agent import RawAgent
from support.os_needs import posix_signals

pytestmark = pytest.mark.timeout(90)


async def test_hub_killed_mid_stream_and_restarted_twice_loses_and_repeats_nothing(
    hub_process_factory, session_factory
):
    hub = await asyncio.to_thread(hub_process_factory)
    peer_identity = Identity.generate()
    peer = await RawAgent.connect(hub.url, identity=peer_identity, name="bot")
    code = await invite_code(peer)
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: "team" in {room.name for room in session.rooms}, "joined")
    for restart in range(3):
        for i in range(15):
            await say(peer, "team", f"round {restart} message {i}")
        if restart == 2:
            break
        await asyncio.to_thread(hub.kill)  # mid-stream: pushes may still be on their way
        await peer.close()
        await log.wait_until(lambda: session.state.state is not ConnectionState.LIVE, "the drop")
        await asyncio.to_thread(hub.restart)
        peer = await RawAgent.connect(hub.url, identity=peer_identity, name="bot")
        await log.wait_state(ConnectionState.LIVE, count=restart + 2)
    expected = await hub_seqs(peer)
    assert len(expected) == 45
    await log.wait_until(lambda: len(log.messages("team")) >= 45, "all 45 messages")
    assert [message.seq for message in log.messages("team")] == expected  # once each, in order
    await peer.close()


POSTER = """
import asyncio, sys
from parler_desktop.client import HubSession
from parler_desktop.client.events import ConnectionState
from parler_desktop.paths import Home

async def main(home, url, connect):
    session = await HubSession.open(Home.resolve(home), url)
    live = asyncio.Event()
    session.add_listener(lambda e: getattr(e, "state", None) is ConnectionState.LIVE and live.set())
    if connect == "yes":
        session.start()
        await live.wait()
        print("live", flush=True)
        sys.stdin.readline()
    item = await session.post("team", "survives kill -9")
    print(item.client_id, flush=True)
    await asyncio.Event().wait()

asyncio.run(main(*sys.argv[1:]))
"""


def start_poster(home, url: str, connect: bool) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", POSTER, str(home), url, "yes" if connect else "no"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )


async def join_home(home, url: str, code: str) -> None:
    session = await HubSession.open(Home.resolve(home), url)
    session.start()
    try:
        await session.redeem(code)
    finally:
        await session.stop()


@posix_signals
async def test_a_post_in_flight_when_the_client_is_killed_reaches_the_hub_exactly_once(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    home = tmp_path / "home"
    await join_home(home, hub.url, await invite_code(peer))
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    poster = start_poster(home, proxy.url, connect=True)
    try:
        assert (await asyncio.to_thread(poster.stdout.readline)).strip() == "live"
        proxy.stall(upstream=False)  # the hub gets the send; its `sent` never comes back
        poster.stdin.write("post\n")
        poster.stdin.flush()
        client_id = (await asyncio.to_thread(poster.stdout.readline)).strip()
        stored: list[dict] = []
        async with asyncio.timeout(15):
            while not stored:  # the hub has it, the poster does not know
                stored = await hub_history(peer)
        os.kill(poster.pid, signal.SIGKILL)
        await asyncio.to_thread(poster.wait)
        proxy.resume()

        session = await HubSession.open(Home.resolve(home), proxy.url)
        log = EventLog()
        session.add_listener(log)
        session.start()
        try:
            def sent() -> bool:
                return any(e.item.status is OutboxStatus.SENT for e in log.outbox(client_id))

            await log.wait_until(sent, "the leftover post flushed")
            assert log.outbox(client_id)[-1].item.seq == stored[0]["seq"]  # the hub's original
            assert [m["parts"][0]["text"] for m in await hub_history(peer)] == ["survives kill -9"]
        finally:
            await session.stop()
    finally:
        poster.kill()
        poster.wait()
        await proxy.close()


@posix_signals
async def test_a_post_never_sent_before_the_kill_is_sent_by_the_next_session(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    home = tmp_path / "home"
    await join_home(home, hub.url, await invite_code(peer))
    poster = start_poster(home, hub.url, connect=False)  # posts without ever connecting
    try:
        client_id = (await asyncio.to_thread(poster.stdout.readline)).strip()
        os.kill(poster.pid, signal.SIGKILL)
        await asyncio.to_thread(poster.wait)
    finally:
        poster.kill()
        poster.wait()
    assert await hub_history(peer) == []
    identity = load_or_create_identity(Home.resolve(home).key_file)
    session = await HubSession.open(Home.resolve(home), hub.url)
    assert session.agent_id == identity.agent_id
    log = EventLog()
    session.add_listener(log)
    session.start()
    try:
        await log.wait_until(
            lambda: any(e.item.status is OutboxStatus.SENT for e in log.outbox(client_id)), "the leftover post"
        )
        await log.wait_until(lambda: len(log.messages("team")) == 1, "our own message in the store")
    finally:
        await session.stop()
    assert [m["parts"][0]["text"] for m in await hub_history(peer)] == ["survives kill -9"]
