"""``parler-desktop demo``: the scripted agents and the load generator on a real hub, seen by a
human on the wire (a raw agent), and the headless command end to end."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from support.cli_runner import run_cli

from parler_desktop.client.address import parse_invite
from parler_desktop.demo.director import run_script
from parler_desktop.demo.load import run_load
from parler_desktop.demo.plan import cast_identities
from parler_desktop.demo.script import BUILD, PLANNING, REVIEW, SCRIPT
from parler_desktop.identity import verify_signature
from parler_desktop.protocol.canonical import SignatureState, verify_message
from parler_desktop.protocol.values import StoredMessage


async def human_on(hub_url: str, raw_agent) -> tuple[Any, Any]:
    """A supervisor on the wire, and the ``admit`` that lets them into a room by its link."""
    human = await raw_agent(hub_url, name="Boss", role="supervisor")
    await human.ok({"op": "subscribe"}, "subscribed")

    async def admit(link: str) -> None:
        assert link.startswith("parler://")
        await human.ok({"op": "redeem", "code": parse_invite(link).code}, "joined")

    return human, admit


async def test_the_script_plays_in_three_rooms_with_everything_a_supervisor_watches(hub, raw_agent):
    human, admit = await human_on(hub.url, raw_agent)
    played = await run_script(hub.url, "Boss", admit, cast_identities(None).__getitem__, pace=0, rounds=1, seed=1)
    spoken = [beat for beat in SCRIPT if beat.presence is None]
    assert played == len(SCRIPT)
    seen = [await human.recv_delivery() for _ in spoken]
    assert {m["room"] for m in seen} == {PLANNING, BUILD, REVIEW}
    kinds = {part["kind"] for m in seen for part in m["parts"]}
    assert {"text", "com.parler.task", "com.parler.file", "com.parler.handoff", "com.parler.sig"} <= kinds
    assert any("```python" in part.get("text", "") for m in seen for part in m["parts"])
    assert any("boss" in m.get("mentions", []) and "@Boss" in m["parts"][0]["text"] for m in seen)
    handoff = next(p for m in seen for p in m["parts"] if p["kind"] == "com.parler.handoff")
    assert handoff["to"] == "boss" and handoff["next"]
    statuses = [p["status"] for m in seen for p in m["parts"] if p["kind"] == "com.parler.task"]
    assert "failed" in statuses and "done" in statuses  # one gets stuck, then it is solved
    for message in seen:  # signed like any agent's message
        state = verify_message(StoredMessage.from_wire(message), verify_signature, human.id)
        assert state is SignatureState.VALID
    file_part = next(p for m in seen for p in m["parts"] if p["kind"] == "com.parler.file")
    await human.send_text('{"op":"get_blob","id":"%s"}' % file_part["blob"])
    assert (await human.recv())["type"] == "blob_incoming"
    data = await human.recv_bytes()
    assert hashlib.sha256(data).hexdigest() == file_part["blob"] and b"passed" in data
    roster = await human.ok({"op": "roster", "room": BUILD}, "roster")
    coder = next(e for e in roster["entries"] if e["name"] == "coder")
    assert coder["activity"].startswith("stuck")  # the coder got stuck (presence belongs to the agent)


async def test_a_second_demo_with_the_same_cast_finds_its_rooms_again(hub, raw_agent, tmp_path):
    human, admit = await human_on(hub.url, raw_agent)
    cast = cast_identities(tmp_path / "demo")
    await run_script(hub.url, "Boss", admit, cast.__getitem__, pace=0, rounds=1)
    again = cast_identities(tmp_path / "demo")
    assert {name: i.agent_id for name, i in again.items()} == {name: i.agent_id for name, i in cast.items()}
    assert await run_script(hub.url, "Boss", admit, again.__getitem__, pace=0, rounds=1) == len(SCRIPT)


async def test_the_load_generator_keeps_its_rate_across_rooms_and_agents(hub_factory, raw_agent):
    from parler_desktop.hub import HubLimits

    hub = hub_factory(limits=HubLimits().relaxed())
    human, admit = await human_on(hub.url, raw_agent)
    report = await run_load(hub.url, admit, rooms=4, agents=3, rate=60, duration=1.0)
    assert 54 <= report.sent <= 63 and report.rate > 45
    assert len(report.latencies) == report.sent and "send→sent median" in report.summary()
    rooms = await human.ok({"op": "rooms"}, "rooms")
    counts = {room["name"]: room["unread"] for room in rooms["rooms"]}
    assert len(counts) == 4 and all(re.fullmatch(r"load-[0-9a-f]{4}-[1-4]", name) for name in counts)
    assert sum(counts.values()) == report.sent
    again = await run_load(hub.url, admit, rooms=2, agents=1, rate=20, duration=0.2)  # new agents, new rooms
    assert again.sent >= 3


@pytest.mark.timeout(60)
async def test_the_headless_command_prints_the_hub_and_a_link_per_room_and_stops(tmp_path):
    done = await run_cli(tmp_path / "home", "demo", "--no-window", "--pace", "0.01", "--duration", "2")
    lines = done.stdout.splitlines()
    assert done.status == 0, done.stderr
    assert lines[0].startswith("ws://127.0.0.1:") and lines[0].endswith("/ws")
    assert len([line for line in lines if line.startswith("join: parler://127.0.0.1:")]) == 3
    assert lines[-1] == "demo over"

    refused = await run_cli(tmp_path / "home", "demo", "--no-window", "--rate", "0")
    assert refused.status == 2 and "must be greater than 0" in refused.stderr
