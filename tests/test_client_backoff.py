"""Reconnect timing with an injected clock: exact delays, the cap, OFFLINE, retry-now, reset."""

from __future__ import annotations

import random

import pytest

from parler_desktop.client import SessionTuning
from parler_desktop.client.events import ConnectionState, StateChanged
from support.client_harness import session_factory  # noqa: F401  (fixture)
from support.fault_proxy import FaultProxy
from support.manual_clock import ManualClock

pytestmark = pytest.mark.timeout(30)

WAITING = (ConnectionState.BACKING_OFF, ConnectionState.OFFLINE)
TUNING = SessionTuning(backoff_base_secs=0.5, backoff_cap_secs=4.0, offline_after=3, healthy_secs=60.0)


def waits(log) -> list[StateChanged]:
    return [event for event in log.of(StateChanged) if event.state in WAITING]


async def test_unreachable_hub_backs_off_with_capped_full_jitter_then_offline(session_factory, refused_port):
    clock = ManualClock()
    session, log = await session_factory(
        f"ws://127.0.0.1:{refused_port}/ws", clock=clock, rng=random.Random(11), tuning=TUNING
    )
    expected = random.Random(11)
    for attempt in range(1, 8):
        await log.wait_until(lambda: len(waits(log)) == attempt, f"wait #{attempt}")
        event = waits(log)[-1]
        delay = expected.uniform(0, min(4.0, 0.5 * 2 ** (attempt - 1)))
        assert event.attempt == attempt
        assert event.retry_at == pytest.approx(clock.time() + delay)
        assert event.state is (ConnectionState.OFFLINE if attempt >= 3 else ConnectionState.BACKING_OFF)
        assert "cannot reach" in event.detail
        connecting = log.states().count(ConnectionState.CONNECTING)
        await clock.settle()  # the session starts its timer
        clock.advance(delay * 0.99)
        await clock.settle()
        assert log.states().count(ConnectionState.CONNECTING) == connecting, "retried before its time"
        clock.advance(delay * 0.01 + 1e-6)

    # "Retry now" skips the wait; its failure does not grow the backoff (same attempt count).
    await log.wait_until(lambda: len(waits(log)) == 8, "wait #8")
    session.reconnect_now()
    await log.wait_until(lambda: len(waits(log)) == 9, "an attempt without the clock moving")
    assert waits(log)[-1].attempt == 8

    # A wake nudges once: one attempt now, never a loop.
    session.notify_wake()
    await log.wait_until(lambda: len(waits(log)) == 10, "the nudged attempt")
    await clock.settle(50)
    assert len(waits(log)) == 10


async def test_backoff_resets_only_after_a_healthy_stretch(hub, session_factory):
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    clock = ManualClock()
    try:
        session, log = await session_factory(proxy.url, clock=clock, rng=random.Random(5), tuning=TUNING)
        for round_number in (1, 2):
            await log.wait_state(ConnectionState.LIVE, count=round_number)
            proxy.cut()
            await log.wait_until(lambda: len(waits(log)) == round_number, "the drop")
            assert waits(log)[-1].attempt == round_number  # live for no time: still counting up
            await clock.settle()
            clock.advance(waits(log)[-1].retry_at - clock.time())
        await log.wait_state(ConnectionState.LIVE, count=3)
        clock.advance(61)  # a healthy minute
        await clock.settle()
        proxy.cut()
        await log.wait_until(lambda: len(waits(log)) == 3, "the third drop")
        assert waits(log)[-1].attempt == 1
    finally:
        await proxy.close()
