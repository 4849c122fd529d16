"""Starting and stopping hubs: real ports, close codes, parked polls, restarts on one database."""

from __future__ import annotations

import asyncio
import socket
import sys
import time

import pytest
from websockets.asyncio.client import connect

from parler_desktop.hub import EmbeddedHub, Hub, HubConfig, event_loop
from support.raw_agent import RawAgent, make_room
from support.os_needs import posix_file_modes


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop has no Windows build")
def test_the_embedded_hub_runs_on_uvloop(hub):
    import uvloop  # a dependency everywhere but Windows (pyproject.toml)

    assert isinstance(hub._embedded._loop, uvloop.Loop)


def test_without_uvloop_the_hub_runs_on_asyncios_loop(monkeypatch):
    monkeypatch.setattr(event_loop, "uvloop", None)

    async def loop_type() -> type:
        return type(asyncio.get_running_loop())

    assert event_loop.run_hub_loop(loop_type()).__module__.startswith("asyncio.")


async def test_hub_reports_its_real_port_and_stop_closes_sockets_going_away(tmp_path):
    hub = Hub(HubConfig(db_path=tmp_path / "hub.sqlite3", port=0))
    await hub.start()
    assert hub.url.startswith("ws://127.0.0.1:") and hub.url.endswith("/ws") and hub.port != 0
    ws = await connect(hub.url, ping_interval=None)
    await hub.stop()
    await asyncio.wait_for(ws.wait_closed(), 10)
    assert ws.close_code == 1001


@pytest.mark.timeout(20)
async def test_stop_releases_a_parked_long_poll_promptly(tmp_path):
    hub = Hub(HubConfig(db_path=tmp_path / "hub.sqlite3", port=0))
    await hub.start()
    agent = await RawAgent.connect(hub.url)
    room = await make_room(agent, "team")
    await agent.send_text(f'{{"op":"pull","room":"{room}","waitSecs":60}}')
    deadline = time.monotonic() + 10
    while hub.parked_polls == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert hub.parked_polls == 1  # stopping must not wait the 60 s out
    started = time.monotonic()
    await hub.stop()
    assert time.monotonic() - started < 5
    await agent.close()


def test_embedded_hub_keeps_data_across_restarts_on_one_database(tmp_path):
    config = HubConfig(db_path=tmp_path / "hub.sqlite3", port=0)

    async def send_one(url: str) -> tuple[str, dict, RawAgent]:
        agent = await RawAgent.connect(url, name="alice")
        room = await make_room(agent, "team")
        sent = await agent.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": []})
        await agent.close()
        return room, sent, agent

    async def read_back(url: str, agent: RawAgent, room: str) -> list[int]:
        again = await RawAgent.connect(url, identity=agent.identity)
        pulled = await again.ok({"op": "pull", "room": room, "since": 0})
        await again.close()
        return [m["seq"] for m in pulled["messages"]]

    first = EmbeddedHub(config)
    room, sent, agent = asyncio.run(send_one(first.start()))
    first.stop()
    second = EmbeddedHub(config)
    try:
        assert asyncio.run(read_back(second.start(), agent, room)) == [sent["seq"]]
    finally:
        second.stop()


def test_embedded_hub_start_raises_when_the_port_is_taken(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            EmbeddedHub(HubConfig(db_path=tmp_path / "hub.sqlite3", port=port)).start()


def test_public_url_defaults_to_the_bound_address_and_can_be_configured(hub_factory):
    default = hub_factory()
    configured = hub_factory(public_url="https://hub.example/")
    assert default.public_url == f"parler://127.0.0.1:{default.port}"
    assert configured.public_url == "https://hub.example"


async def test_running_hub_restarts_on_the_same_port_and_database(hub, raw_agent):
    alice = await raw_agent(hub.url)
    room = await make_room(alice, "team")
    sent = await alice.ok({"op": "send", "target": {"kind": "room", "room": room}, "parts": []})
    url = hub.url
    await asyncio.to_thread(hub.restart)
    assert hub.url == url
    again = await raw_agent(hub.url, identity=alice.identity)
    assert [m["seq"] for m in (await again.ok({"op": "pull", "room": room, "since": 0}))["messages"]] == [sent["seq"]]


@posix_file_modes
def test_hub_files_are_private(hub_factory):
    """The database holds every message and the blob folder every file: owner-only."""
    import stat

    running = hub_factory()
    db_path = running.config.db_path
    assert stat.S_IMODE(db_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(running.config.resolved_blob_dir.stat().st_mode) == 0o700
