"""HubSession.message_agent: a send with a ``dm`` target (protocol.md §7.4) on the real hub: an
agent with a directory card gets a DM made for the two, signed for that target and listed; the
next message goes to the same DM; an agent without a card or a shared DM is refused."""

from __future__ import annotations

import pytest

from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import ConnectionState
from parler_desktop.identity import verify_signature
from parler_desktop.protocol.canonical import SignatureState, verify_message
from parler_desktop.protocol.values import StoredMessage
from support.client_harness import session_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(30)


async def test_a_discoverable_agent_gets_a_dm_made_by_the_first_message(hub, raw_agent, session_factory):
    agent = await raw_agent(hub.url, name="carded")
    await agent.register("carded")
    await agent.ok({"op": "subscribe"}, "subscribed")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    sent = await session.message_agent(agent.id, "hello")
    assert sent.room.startswith("dm.")
    delivered = await agent.recv_delivery()
    assert delivered["room"] == sent.room and delivered["parts"][0] == {"kind": "text", "text": "hello"}
    assert verify_message(StoredMessage.from_wire(delivered), verify_signature, agent.id) is SignatureState.VALID  # for its dm
    await log.wait_until(lambda: any(r.name == sent.room and r.kind == "dm" for r in session.rooms), "the DM listed")
    again = await session.message_agent(agent.id, "and again")
    assert again.room == sent.room


async def test_an_agent_without_a_card_is_refused_in_a_sentence(hub, raw_agent, session_factory):
    agent = await raw_agent(hub.url, name="hidden")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    with pytest.raises(HubRefused) as refused:
        await session.message_agent(agent.id, "hello")
    assert "discoverable" in refused.value.message
