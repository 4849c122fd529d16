"""The session under faults: cut and stalled lines, dropped pushes, wrong secrets, rate limits."""

from __future__ import annotations

import dataclasses

import pytest

from parler_desktop.client.events import ConnectionState, CursorChanged, Notice, OutboxStatus, StateChanged
from support.client_harness import FAST, session_factory  # noqa: F401  (fixture)
from support.fault_proxy import FaultProxy
from support.manual_clock import ManualClock
from support.peer_ops import hub_history, invite_code, say

pytestmark = pytest.mark.timeout(45)


async def join_team(session, log, peer) -> None:
    """Join the peer's room "team" and wait until the session lists it."""
    code = await invite_code(peer)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: "team" in {r.name for r in session.rooms}, "room listed")


@pytest.fixture
async def proxy(hub):
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    yield proxy
    await proxy.close()


async def test_heartbeat_notices_a_stalled_line_and_reconnects(hub, proxy, raw_agent, session_factory):
    tuning = dataclasses.replace(FAST, heartbeat_secs=0.3, heartbeat_jitter_secs=0.1, pong_timeout_secs=0.5)
    session, log = await session_factory(proxy.url, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    proxy.stall()  # the socket stays open: only the missing pong tells
    await log.wait_state(ConnectionState.BACKING_OFF, timeout=10)
    assert "0.5 s" in log.of(type(session.state))[-1].detail
    proxy.resume()
    await log.wait_state(ConnectionState.LIVE, count=2)


async def test_a_detected_resume_probes_at_once_instead_of_waiting_for_the_heartbeat(hub, proxy, session_factory):
    clock = ManualClock()  # the heartbeat sleeps on this clock: only the resume probe can notice
    tuning = dataclasses.replace(FAST, pong_timeout_secs=0.5, resume_tick_secs=1.0, resume_jump_secs=5.0)
    session, log = await session_factory(proxy.url, clock=clock, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    proxy.stall()  # the laptop slept; its socket looks open and is dead
    clock.sleep_machine(600)
    clock.advance(1.0)  # the detector's next tick sees the wall clock 600 s ahead
    await log.wait_state(ConnectionState.BACKING_OFF)
    assert any("probe after system resumed failed" in e.detail for e in log.of(StateChanged))


async def test_cuts_and_stalls_while_a_peer_sends_and_we_post(hub, proxy, raw_agent, session_factory):
    tuning = dataclasses.replace(FAST, open_timeout_secs=1.0, reply_timeout_secs=1.0, pong_timeout_secs=0.5)
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(proxy.url, tuning=tuning)
    await join_team(session, log, peer)
    posted = []
    for i in range(12):
        await say(peer, "team", f"peer {i}")
        if i % 3 == 0:
            posted.append(await session.post("team", f"ours {i}"))
        if i == 4:
            proxy.cut()
        if i == 8:
            proxy.stall()
    await log.wait_state(ConnectionState.BACKING_OFF, count=2)
    proxy.resume()

    def all_sent() -> bool:
        return all(any(e.item.status is OutboxStatus.SENT for e in log.outbox(p.client_id)) for p in posted)

    await log.wait_until(all_sent, "every post sent")
    history = await hub_history(peer)
    ours = [m for m in history if m["from"]["id"] == session.agent_id]
    assert sorted(m["parts"][0]["text"] for m in ours) == sorted(p.parts[0]["text"] for p in posted)
    await log.wait_until(lambda: len(log.messages("team")) == len(history), "the whole history stored")
    assert sorted(m.seq for m in log.messages("team")) == [m["seq"] for m in history]


async def test_a_reconnect_pulls_only_the_rooms_that_changed(hub, proxy, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(proxy.url, tuning=dataclasses.replace(FAST, reconcile_secs=600.0))
    await log.wait_state(ConnectionState.LIVE)
    rooms = [f"room-{index:02d}" for index in range(30)]
    for room in rooms:
        await session.redeem(await invite_code(peer, room))
    await log.wait_until(lambda: {e.room for e in log.of(CursorChanged)} == set(rooms), "every room synced")
    await log.wait_until(lambda: len(session.rooms) == 30, "every room listed")
    before = session.requests_sent
    proxy.cut()
    await log.wait_state(ConnectionState.BACKING_OFF)
    await say(peer, "room-07", "while you were away")
    await log.wait_state(ConnectionState.LIVE, count=2)
    await log.wait_until(lambda: [m.text for m in log.messages("room-07")] == ["while you were away"], "the news")
    assert session.requests_sent - before <= 4  # subscribe, rooms, one pull: not 30 pulls


async def test_dropped_pushes_are_healed_by_reconciliation(hub_factory, raw_agent, session_factory):
    hub = hub_factory(faults={"drop_pushes": True})
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(hub.url, tuning=dataclasses.replace(FAST, reconcile_secs=0.5))
    await join_team(session, log, peer)
    seqs = [await say(peer, "team", f"lost push {i}") for i in range(5)]
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == seqs, "reconciled messages")


async def test_a_burst_with_some_pushes_dropped_heals_when_it_quiets(hub_factory, raw_agent, session_factory):
    hub = hub_factory(faults={"push_drop_probability": 0.5})
    peer = await raw_agent(hub.url, name="bot")
    tuning = dataclasses.replace(FAST, reconcile_secs=600.0, quiet_secs=0.2)  # only the quiet trigger
    session, log = await session_factory(hub.url, tuning=tuning)
    await join_team(session, log, peer)
    seqs = [await say(peer, "team", f"burst {i}") for i in range(30)]
    await log.wait_until(lambda: sorted(m.seq for m in log.messages("team")) == seqs, "the whole burst")
    assert len(log.messages("team")) == 30


async def test_a_wake_reconciles_at_once(hub_factory, raw_agent, session_factory):
    hub = hub_factory(faults={"drop_pushes": True})
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(hub.url, tuning=dataclasses.replace(FAST, reconcile_secs=600.0))
    await join_team(session, log, peer)
    seq = await say(peer, "team", "while you slept")
    session.notify_wake()
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [seq], "the message, after the wake")


async def test_a_wrong_join_secret_ends_in_auth_failed_until_it_changes(hub_factory, session_factory):
    hub = hub_factory(join_secret="s3cr3t")
    session, log = await session_factory(hub.url, join_secret="wrong")
    await log.wait_state(ConnectionState.AUTH_FAILED)
    assert "join secret" in session.state.detail
    session.notify_wake()  # neither a wake nor time gets it out of there
    await log.wait_until(lambda: log.states()[-1] is ConnectionState.AUTH_FAILED, "still failed")
    assert log.states().count(ConnectionState.CONNECTING) == 1
    session.set_join_secret("s3cr3t")
    await log.wait_state(ConnectionState.LIVE)


async def test_a_name_the_hub_refuses_is_terminal_too(hub, session_factory):
    session, log = await session_factory(hub.url, name="x" * 300)  # over the 256-byte hello bound
    await log.wait_state(ConnectionState.AUTH_FAILED)
    assert "limit 256" in session.state.detail  # the hub's own words


async def test_rate_limited_sends_are_delayed_never_lost(hub_factory, raw_agent, session_factory):
    hub = hub_factory(limits={"sends_per_agent": {"count": 5, "window_secs": 1.0}})
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(hub.url)
    await join_team(session, log, peer)
    posted = [await session.post("team", f"quick {i}") for i in range(12)]

    def all_sent() -> bool:
        return all(any(e.item.status is OutboxStatus.SENT for e in log.outbox(p.client_id)) for p in posted)

    await log.wait_until(all_sent, "every post sent", timeout=30)
    texts = [m["parts"][0]["text"] for m in await hub_history(peer)]
    assert texts == [f"quick {i}" for i in range(12)]


async def test_a_hub_that_refuses_subscribe_is_polled(hub_factory, raw_agent, session_factory):
    """The real hub answering subscribe like a hub without push: messages still arrive."""
    hub = hub_factory(faults={"refuse_subscribe": True})
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(hub.url, tuning=dataclasses.replace(FAST, poll_secs=0.2))
    await join_team(session, log, peer)
    assert any(isinstance(e, Notice) and "polling" in e.text for e in log.events)
    seqs = [await say(peer, "team", f"polled {i}") for i in range(3)]
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == seqs, "the polled messages")
