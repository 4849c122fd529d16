"""A damaged cache from a terminal: the command says so and names the way out, and
``parler-desktop fresh-cache`` sets the file aside; what the human wrote is in a file of its own,
so no damage to the cache loses it, and a damaged outbox gives back every message still readable."""

from __future__ import annotations

import re
import time

import pytest

from parler_desktop.client.outbox import build_item
from parler_desktop.identity import load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.store import LocalStore, outbox_path
from support.cli_runner import run_cli
from support.damaged_store import damage, garble_a_middle_leaf, set_aside
from support.peer_ops import hub_history
from support.raw_agent import RawAgent

from test_cli_listen import joined_home, team_with_messages

pytestmark = pytest.mark.timeout(60)

HISTORY = [f"history {n} " + "h" * 400 for n in range(40)]


async def texts_on_the_hub(url: str, peer: RawAgent) -> list[str]:
    """What ``team`` holds, read on a new connection of ``peer``'s (the hub may have restarted)."""
    reader = await RawAgent.connect(url, identity=peer.identity, name="bot")
    try:
        return [m["parts"][0]["text"] for m in await hub_history(reader)]
    finally:
        await reader.close()


# The three damages, and whether the next send (the hub still away) finds them: a cache
# that no longer opens, yes; 64 KiB of its messages, no (it reads none), so its message waits too.
@pytest.mark.parametrize(
    ("how", "refused"),
    [("truncated to half", True), ("first 8 KiB overwritten", True), ("64 KiB in its middle overwritten", False)],
)
async def test_a_damaged_cache_keeps_the_message_waiting_to_be_sent(hub, tmp_path, how, refused):
    peer, link = await team_with_messages(hub.url, HISTORY)
    home = await joined_home(tmp_path, link)
    filled = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")  # the cache holds the history
    assert filled.status == 0, filled.stderr
    hub.stop()
    queued = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--timeout", "0.5", "waiting")
    assert queued.status == 3, queued.stderr
    resolved = Home.resolve(home)
    path = resolved.store_path(hub.url, load_or_create_identity(resolved.key_file).agent_id)
    assert path.stat().st_size > 96 * 1024  # a room's history: 8 KiB is its start, 64 KiB its middle
    damage(path, how)

    again = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--timeout", "0.5", "again")
    if refused:
        assert again.status == 1 and "is damaged" in again.stderr, again.stderr
        assert f"parler-desktop fresh-cache --hub {hub.url} " in again.stderr and "Traceback" not in again.stderr
    else:
        assert again.status == 3, again.stderr
    waiting = ["waiting"] if refused else ["waiting", "again"]

    fresh = await run_cli(home, "fresh-cache", "--hub", hub.url)
    assert fresh.status == 0, fresh.stderr
    (aside,) = set_aside(path)
    assert str(aside) in fresh.stdout and f"{len(waiting)} unsent message(s) carried over" in fresh.stdout

    hub.restart()
    listened = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert listened.status == 0, listened.stderr
    assert await texts_on_the_hub(hub.url, peer) == [*HISTORY, *waiting]


async def test_a_damaged_outbox_gives_back_every_message_still_readable(hub, tmp_path):
    peer, link = await team_with_messages(hub.url, [])
    home = await joined_home(tmp_path, link)
    resolved = Home.resolve(home)
    identity = load_or_create_identity(resolved.key_file)
    path = resolved.store_path(hub.url, identity.agent_id)
    store = LocalStore(path)  # an earlier process queued these while the hub was away
    written = [f"queued {n:02d} " + "q" * 200 for n in range(60)]
    for n, text in enumerate(written):
        store.outbox_add(build_item(identity, "team", text, created_at=time.time() - 100 + n))
    store.close()
    garble_a_middle_leaf(outbox_path(path), "outbox")

    result = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "after")
    assert result.status == 0, result.stderr
    recovered = re.search(r"was damaged: (\d+) message\(s\)", result.stderr)
    assert recovered, result.stderr
    (aside,) = set_aside(outbox_path(path))
    assert str(aside) in result.stderr
    sent = await texts_on_the_hub(hub.url, peer)
    await peer.close()
    assert sent[-1] == "after" and sent[:-1] == [text for text in written if text in sent]
    assert 30 < len(sent) - 1 == int(recovered[1]) < len(written)  # all but the garbled page, each once


async def test_fresh_cache_without_a_cache_says_there_is_none(hub, tmp_path):
    result = await run_cli(tmp_path / "home", "fresh-cache", "--hub", hub.url)
    assert result.status == 1 and "no identity in this home" in result.stderr
