"""A damaged cache from a terminal: the command says so and names the way out, and
``parler-desktop fresh-cache`` sets the file aside and keeps what was waiting to be sent."""

from __future__ import annotations

import pytest

from parler_desktop.identity import load_or_create_identity
from parler_desktop.paths import Home
from support.cli_runner import run_cli
from support.damaged_store import fill_and_damage, set_aside
from support.peer_ops import hub_history
from support.raw_agent import RawAgent

from test_cli_listen import joined_home, team_with_messages

pytestmark = pytest.mark.timeout(60)


async def test_fresh_cache_sets_the_damaged_file_aside_and_the_queued_message_goes_out(hub, tmp_path):
    peer, link = await team_with_messages(hub.url, ["before"])
    home = await joined_home(tmp_path, link)
    hub.stop()
    queued = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--timeout", "0.5", "waiting")
    assert queued.status == 3, queued.stderr
    path = Home.resolve(home).store_path(hub.url, load_or_create_identity(Home.resolve(home).key_file).agent_id)
    fill_and_damage(path, "garbled")
    hub.restart()

    damaged = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert damaged.status == 1
    assert "is damaged" in damaged.stderr and "parler-desktop fresh-cache --hub URL" in damaged.stderr

    fresh = await run_cli(home, "fresh-cache", "--hub", hub.url)
    assert fresh.status == 0, fresh.stderr
    (aside,) = set_aside(path)
    assert str(aside) in fresh.stdout and "unsent message(s) carried over" in fresh.stdout  # 1, or 0 if it went out first

    listened = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert listened.status == 0, listened.stderr
    peer = await RawAgent.connect(hub.url, identity=peer.identity, name="bot")
    assert [m["parts"][0]["text"] for m in await hub_history(peer)] == ["before", "waiting"]
    await peer.close()


async def test_fresh_cache_without_a_cache_says_there_is_none(hub, tmp_path):
    result = await run_cli(tmp_path / "home", "fresh-cache", "--hub", hub.url)
    assert result.status == 1 and "no identity in this home" in result.stderr
