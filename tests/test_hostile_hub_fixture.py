"""The hostile hub fixture itself: honest, it is the real hub; told to lie, the client meets the lie."""

from __future__ import annotations

import pytest

from support.cli_runner import run_cli
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.peer_ops import hub_history

pytestmark = pytest.mark.timeout(60)


async def test_an_honest_hostile_hub_is_the_real_hub(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    proxy = await HostileHub(hub.url).start()
    try:
        home = tmp_path / "home"
        assert (await run_cli(home, "join", "--hub", proxy.url, invited["code"])).status == 0
        sent = await run_cli(home, "send", "--hub", proxy.url, "--room", "team", "through the proxy")
        assert sent.status == 0, sent.stderr
        history = await hub_history(peer)
        assert [(m["seq"], m["parts"][0]["text"]) for m in history] == [(int(sent.stdout), "through the proxy")]
        assert proxy.requests["hello"] >= 2 and proxy.requests["send"] == 1
    finally:
        await proxy.close()


class RenumberedSent(Misbehaviour):
    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "sent":
            return [{**reply, "seq": reply["seq"] + 1000}]
        return [reply]


async def test_a_lie_reaches_the_client(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    proxy = await HostileHub(hub.url, RenumberedSent()).start()
    try:
        home = tmp_path / "home"
        assert (await run_cli(home, "join", "--hub", proxy.url, invited["code"])).status == 0
        sent = await run_cli(home, "send", "--hub", proxy.url, "--room", "team", "x")
        history = await hub_history(peer)
        assert [m["parts"][0]["text"] for m in history] == ["x"]  # the hub kept it, and said another seq:
        assert (sent.status, sent.stdout) == (1, "") and "did not keep" in sent.stderr  # the client saw through it
    finally:
        await proxy.close()
