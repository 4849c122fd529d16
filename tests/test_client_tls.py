"""wss:// as real hubs use it: a TLS terminator with a private CA in front of the embedded hub.

A certificate the system does not trust gets a clear message and the way out (trust the CA file
for that hub); a certificate for another host name is refused even then; once trusted, reconnects
and the wake-up probe behave exactly as on ws:// (protocol.md §1.1).
"""

from __future__ import annotations

import dataclasses

import pytest

from parler_desktop.client.events import ConnectionState, StateChanged
from support.client_harness import FAST, session_factory  # noqa: F401  (fixture)
from support.fault_proxy import FaultProxy
from support.manual_clock import ManualClock
from support.peer_ops import hub_history, invite_code, say
from support.private_ca import make_private_ca

pytestmark = pytest.mark.timeout(45)


@pytest.fixture
def private_ca(tmp_path):
    return make_private_ca(tmp_path)


@pytest.fixture
async def tls_proxy(hub, private_ca):
    proxy = await FaultProxy("127.0.0.1", hub.port, tls=private_ca.server_context).start()
    yield proxy
    await proxy.close()


def details(log) -> list[str]:
    return [event.detail for event in log.of(StateChanged) if event.detail]


async def test_an_untrusted_certificate_is_explained_with_the_way_out(tls_proxy, session_factory):
    session, log = await session_factory(tls_proxy.url)
    await log.wait_until(lambda: any("not trusted" in d for d in details(log)), "a certificate complaint")
    complaint = next(d for d in details(log) if "not trusted" in d)
    assert "--ca-file" in complaint and "Connect" in complaint
    assert ConnectionState.AUTHENTICATING not in log.states()  # nothing was sent over that line


async def test_trusting_the_private_ca_for_the_hub_connects_and_messages_flow(
    tls_proxy, private_ca, raw_agent, hub, session_factory
):
    assert tls_proxy.url.startswith("wss://localhost:")
    peer = await raw_agent(hub.url, name="bot")
    session, log = await session_factory(tls_proxy.url, ca_file=str(private_ca.ca_file))
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(await invite_code(peer))
    await say(peer, "team", "over TLS")
    await log.wait_until(lambda: [m.parts[0]["text"] for m in log.messages("team")] == ["over TLS"], "the peer's message")
    await session.post("team", "and back")
    await log.wait_until(lambda: len(log.messages("team")) == 2, "our post back from the hub")
    assert [m["parts"][0]["text"] for m in await hub_history(peer)] == ["over TLS", "and back"]


async def test_a_certificate_for_another_host_name_is_refused_even_with_its_ca(tls_proxy, private_ca, session_factory):
    by_address = tls_proxy.url.replace("localhost", "127.0.0.1")  # the certificate names only localhost
    session, log = await session_factory(by_address, ca_file=str(private_ca.ca_file))
    await log.wait_until(lambda: any(d.startswith("refused") for d in details(log)), "a host name refusal")
    assert "127.0.0.1" in next(d for d in details(log) if d.startswith("refused"))
    assert ConnectionState.LIVE not in log.states()


async def test_an_expired_certificate_says_so_and_who_can_fix_it(hub, tmp_path, session_factory):
    expired_ca = make_private_ca(tmp_path, expired=True)
    proxy = await FaultProxy("127.0.0.1", hub.port, tls=expired_ca.server_context).start()
    try:
        session, log = await session_factory(proxy.url, ca_file=str(expired_ca.ca_file))  # trusted, yet expired
        await log.wait_until(lambda: any("expired" in d for d in details(log)), "an expiry refusal")
        refusal = next(d for d in details(log) if "expired" in d)
        assert refusal.startswith("refused") and "renew" in refusal and "--ca-file" not in refusal
        assert ConnectionState.AUTHENTICATING not in log.states()  # nothing was sent over that line
    finally:
        await proxy.close()


async def test_a_file_that_is_no_ca_is_named_in_the_message(tls_proxy, tmp_path, session_factory):
    not_a_ca = tmp_path / "notes.txt"
    not_a_ca.write_text("not a certificate")
    session, log = await session_factory(tls_proxy.url, ca_file=str(not_a_ca))
    await log.wait_until(lambda: any(str(not_a_ca) in d for d in details(log)), "the bad CA file named")
    assert tls_proxy.accepted == 0  # refused before dialing


async def test_a_cut_line_reconnects_over_tls_as_over_ws(tls_proxy, private_ca, session_factory):
    session, log = await session_factory(tls_proxy.url, ca_file=str(private_ca.ca_file))
    await log.wait_state(ConnectionState.LIVE)
    tls_proxy.cut()  # the Wi-Fi dropped
    await log.wait_state(ConnectionState.LIVE, count=2)
    assert tls_proxy.accepted == 2


async def test_a_wake_probes_the_tls_line_at_once_and_reconnects(tls_proxy, private_ca, session_factory):
    clock = ManualClock()  # the heartbeat sleeps on this clock: only the resume probe can notice
    tuning = dataclasses.replace(FAST, pong_timeout_secs=0.5, resume_tick_secs=1.0, resume_jump_secs=5.0)
    session, log = await session_factory(tls_proxy.url, ca_file=str(private_ca.ca_file), clock=clock, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    tls_proxy.stall()  # the laptop slept; its socket looks open and is dead
    clock.sleep_machine(600)
    clock.advance(1.0)  # the detector's next tick sees the wall clock 600 s ahead
    await log.wait_state(ConnectionState.BACKING_OFF)
    assert any("probe after system resumed failed" in d for d in details(log))
    tls_proxy.resume()
    clock.advance(60.0)  # past the backoff wait, which runs on the manual clock
    await log.wait_state(ConnectionState.LIVE, count=2)
