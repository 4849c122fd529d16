"""Issue 47, items 1, 2 and 4a: a hub's reply must fit its request, and the human's post never
disappears. Sessions meet a real hub behind the hostile hub fixture, which answers as each case
says; every test failed before its fix."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest

from parler_desktop.client.events import Cause, ConnectionState, Notice, OutboxStatus, StateChanged
from parler_desktop.client.outbox import NOT_KEPT
from parler_desktop.identity import Identity
from parler_desktop.store import LocalStore
from support.client_harness import FAST, session_factory, wait_for  # noqa: F401  (fixture)
from support.hostile_hub import HostileHub, Misbehaviour
from support.hub_lies import (
    AnotherAuthorsSeq, PageOfAnotherRoom, PongForSend, SentButNotStored, StaleSent, StuckPage,
)
from support.peer_ops import hub_history, invite_code, member_of, say

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def proxy_for(hub) -> Any:
    """``await proxy_for(misbehaviour)`` → a started HostileHub in front of ``hub``."""
    started: list[HostileHub] = []

    async def start(misbehaviour: Misbehaviour) -> HostileHub:
        started.append(await HostileHub(hub.url, misbehaviour).start())
        return started[-1]

    yield start
    for proxy in started:
        await proxy.close()


def out_of_turn(log: Any) -> list[StateChanged]:
    return [event for event in log.of(StateChanged) if event.cause is Cause.OUT_OF_TURN]


def no_bug_reports(caplog: pytest.LogCaptureFixture, log: Any) -> None:
    """Nothing the window would show as "this is a bug": no logged trace, no internal error."""
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
    assert not [n for n in log.of(Notice) if "Internal error" in n.text]


async def test_a_page_of_another_room_moves_nothing_and_the_session_reconnects(
    hub, raw_agent, session_factory, proxy_for, caplog
):
    caplog.set_level(logging.INFO)
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    await member_of(hub.url, human, await invite_code(bot, "team"))
    seqs = [await say(bot, "team", f"team {n}") for n in range(5)]
    lie = PageOfAnotherRoom()
    proxy = await proxy_for(lie)
    session, log = await session_factory(proxy.url, identity=human)
    await log.wait_until(lambda: len(log.messages("team")) == 5, "team's five messages")
    assert lie.lies == 1
    assert [m.text for m in log.messages("team")] == [f"team {n}" for n in range(5)]
    assert await session.store.call(LocalStore.sync_mark, "team") == seqs[-1]  # the lie moved no mark
    assert not [m for m in log.messages() if m.room == "other" or m.seq >= 900]
    faults = out_of_turn(log)
    assert faults and faults[0].state is ConnectionState.BACKING_OFF and "'other'" in faults[0].detail
    assert proxy.links >= 2
    assert len([r for r in caplog.records if "'other'" in r.getMessage()]) == 1  # logged once
    no_bug_reports(caplog, log)


async def test_a_pong_for_a_send_is_no_bug_and_the_post_goes_out_once(hub, raw_agent, session_factory, proxy_for, caplog):
    caplog.set_level(logging.WARNING)
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    await member_of(hub.url, human, await invite_code(bot, "team"))
    proxy = await proxy_for(PongForSend())
    session, log = await session_factory(proxy.url, identity=human)
    await log.wait_state(ConnectionState.LIVE)
    item = await session.post("team", "hello")
    await log.wait_until(lambda: any(e.item.status is OutboxStatus.SENT for e in log.outbox(item.client_id)), "the post sent")
    assert [m["parts"][0]["text"] for m in await hub_history(bot)] == ["hello"]
    assert out_of_turn(log) and "'pong'" in out_of_turn(log)[0].detail
    assert proxy.links == 2  # one reconnect, with backoff, not a loop
    no_bug_reports(caplog, log)


async def test_a_stale_sent_is_out_of_turn_and_each_post_keeps_its_own_seq(hub, raw_agent, session_factory, proxy_for):
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    await member_of(hub.url, human, await invite_code(bot, "team"))
    proxy = await proxy_for(StaleSent())
    session, log = await session_factory(proxy.url, identity=human)
    await log.wait_state(ConnectionState.LIVE)
    items = [await session.post("team", f"post {n}") for n in range(3)]

    def sent_items() -> list:
        latest = [log.outbox(item.client_id)[-1].item for item in items]
        return latest if all(item.status is OutboxStatus.SENT for item in latest) else []

    await log.wait_until(lambda: bool(sent_items()), "three posts sent")
    history = {m["parts"][0]["text"]: m["seq"] for m in await hub_history(bot)}
    assert [item.seq for item in sent_items()] == [history[f"post {n}"] for n in range(3)]
    assert out_of_turn(log)


async def test_a_sent_for_a_message_never_stored_leaves_the_post_to_send_again(hub, raw_agent, session_factory, proxy_for):
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    await member_of(hub.url, human, await invite_code(bot, "team"))
    lie = SentButNotStored(times=None)
    proxy = await proxy_for(lie)
    session, log = await session_factory(proxy.url, identity=human)
    await log.wait_state(ConnectionState.LIVE)
    item = await session.post("team", "keep me")
    await log.wait_until(lambda: any(e.item.status is OutboxStatus.FAILED for e in log.outbox(item.client_id)), "the post failed")
    failed = log.outbox(item.client_id)[-1].item
    assert (failed.error_code, failed.seq, failed.message_id) == (NOT_KEPT, None, None)
    assert not [e for e in log.outbox(item.client_id) if e.item.status is OutboxStatus.SENT]
    assert await hub_history(bot) == []
    lie.stop()
    await session.retry_outbox(item.client_id)  # Send again: the same clientId
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "sent again")
    history = await hub_history(bot)
    assert [(m["seq"], m["parts"][0]["text"]) for m in history] == [(log.outbox(item.client_id)[-1].item.seq, "keep me")]


async def test_another_authors_seq_never_replaces_the_post(hub, raw_agent, session_factory, proxy_for):
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    await member_of(hub.url, human, await invite_code(bot, "team"))
    await say(bot, "team", "bot's own")
    bots = (await hub_history(bot))[0]
    lie = AnotherAuthorsSeq(bots["seq"], bots["id"])
    proxy = await proxy_for(lie)
    session, log = await session_factory(proxy.url, identity=human)
    await log.wait_state(ConnectionState.LIVE)
    item = await session.post("team", "mine")
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.FAILED, "the post failed")
    assert log.outbox(item.client_id)[-1].item.error_code == NOT_KEPT
    await session.retry_outbox(item.client_id)  # (it lied once)
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "sent again")
    history = await hub_history(bot)
    assert [m["parts"][0]["text"] for m in history] == ["bot's own", "mine"]  # once: the same clientId
    assert log.outbox(item.client_id)[-1].item.seq == history[1]["seq"]
    await log.wait_until(lambda: len(log.messages("team")) == 2, "both messages stored")
    assert [(m.text, m.sender.id) for m in log.messages("team")] == [("bot's own", bot.id), ("mine", human.agent_id)]


@pytest.mark.parametrize("reverse", [False, True], ids=["same page again", "seqs backwards"])
async def test_a_page_that_does_not_advance_stops_that_rooms_catch_up(
    hub, raw_agent, session_factory, proxy_for, reverse
):
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    await member_of(hub.url, human, await invite_code(bot, "team"), await invite_code(bot, "calm"))
    for n in range(12):
        await say(bot, "team", f"team {n}")
    await say(bot, "calm", "all well")
    lie = StuckPage(reverse)
    proxy = await proxy_for(lie)
    tuning = dataclasses.replace(FAST, page_size=5)
    session, log = await session_factory(proxy.url, identity=human, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    await log.wait_until(lambda: any(n.room == "team" for n in log.of(Notice)), "a notice about team")
    assert [m.text for m in log.messages("calm")] == ["all well"]  # the other room synced
    pulls_when_live, rooms_calls = lie.team_pulls, proxy.requests["rooms"]
    await wait_for(lambda: proxy.requests["rooms"] >= rooms_calls + 3, "three reconciliations")  # FAST: one a second
    assert lie.team_pulls - pulls_when_live <= 1  # held back: no hot loop
    assert await session.store.call(LocalStore.sync_mark, "team") in (0, None, 5)


# ---- the same cases through the commands ---------------------------------------------------------


async def joined_home(tmp_path: Any, hub_url: str, bot: Any, *rooms: str) -> Any:
    """A home whose identity joined ``rooms`` (through the honest hub: ``join``)."""
    from support.cli_runner import run_cli

    home = tmp_path / "home"
    for room in rooms:
        joined = await run_cli(home, "join", "--hub", hub_url, await invite_code(bot, room))
        assert joined.status == 0, joined.stderr
    return home


async def test_listen_prints_the_room_asked_for_never_a_page_of_another(hub, raw_agent, proxy_for, tmp_path):
    import json

    from support.cli_runner import run_cli

    bot = await raw_agent(hub.url, name="bot")
    home = await joined_home(tmp_path, hub.url, bot, "team")
    for n in range(5):
        await say(bot, "team", f"team {n}")
    proxy = await proxy_for(PageOfAnotherRoom())
    listened = await run_cli(home, "listen", "--hub", proxy.url, "--once", "--json")
    assert listened.status == 0, listened.stderr
    printed = [json.loads(line) for line in listened.stdout.splitlines()]
    assert [(m["room"], m["parts"][0]["text"]) for m in printed] == [("team", f"team {n}") for n in range(5)]
    assert listened.stderr.count("with a pulled of room 'other'") == 1, listened.stderr
    assert "Traceback" not in listened.stderr


async def test_send_answered_with_a_pong_reconnects_and_sends_once(hub, raw_agent, proxy_for, tmp_path):
    from support.cli_runner import run_cli

    bot = await raw_agent(hub.url, name="bot")
    home = await joined_home(tmp_path, hub.url, bot, "team")
    proxy = await proxy_for(PongForSend())
    sent = await run_cli(home, "send", "--hub", proxy.url, "--room", "team", "hello")
    assert sent.status == 0, sent.stderr
    history = await hub_history(bot)
    assert [(m["seq"], m["parts"][0]["text"]) for m in history] == [(int(sent.stdout), "hello")]
    assert "the hub answered send with a 'pong'" in sent.stderr and "Traceback" not in sent.stderr


@pytest.mark.parametrize("lie", ["never stored", "another author's seq"])
async def test_send_never_prints_a_seq_the_hub_did_not_keep(hub, raw_agent, proxy_for, tmp_path, lie):
    from support.cli_runner import run_cli

    bot = await raw_agent(hub.url, name="bot")
    home = await joined_home(tmp_path, hub.url, bot, "team")
    bots_seq = await say(bot, "team", "bot's own")
    bots_id = (await hub_history(bot))[0]["id"]
    proxy = await proxy_for(SentButNotStored() if lie == "never stored" else AnotherAuthorsSeq(bots_seq, bots_id))
    sent = await run_cli(home, "send", "--hub", proxy.url, "--room", "team", "mine")
    assert (sent.status, sent.stdout) == (1, ""), sent.stderr
    assert f"not sent: The hub did not keep this ({NOT_KEPT})" in sent.stderr
