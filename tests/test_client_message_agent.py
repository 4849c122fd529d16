"""HubSession.message_agent: a first message to an agent, posted through the outbox with a ``dm``
target (protocol.md §7.4) on the real hub: an agent with a directory card gets a DM made for the
two, signed for that target; the item then holds the DM the hub named and the DM is listed; the
next message goes to the same DM; one to an agent without a card or a shared DM fails with the
hub's sentence, as a refused post does."""

from __future__ import annotations

import pytest

from parler_desktop.client.events import ConnectionState, OutboxItem, OutboxStatus
from parler_desktop.identity import verify_signature
from parler_desktop.protocol.canonical import SignatureState, verify_message
from parler_desktop.protocol.values import StoredMessage
from support.client_harness import EventLog, session_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(30)


async def settled(log: EventLog, item: OutboxItem) -> OutboxItem:
    """The item once the hub took it or refused it."""
    def done() -> bool:
        return any(e.item.status in (OutboxStatus.SENT, OutboxStatus.FAILED) for e in log.outbox(item.client_id))

    await log.wait_until(done, f"post {item.client_id} settled")
    return log.outbox(item.client_id)[-1].item


async def test_a_discoverable_agent_gets_a_dm_made_by_the_first_message(hub, raw_agent, session_factory):
    agent = await raw_agent(hub.url, name="carded")
    await agent.register("carded")
    await agent.ok({"op": "subscribe"}, "subscribed")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    queued = await session.message_agent(agent.id, "hello")
    assert queued.status is OutboxStatus.PENDING and queued.room == ""  # on disk; the hub names the DM
    sent = await settled(log, queued)
    assert sent.status is OutboxStatus.SENT and sent.room.startswith("dm.")
    delivered = await agent.recv_delivery()
    assert delivered["room"] == sent.room and delivered["parts"][0] == {"kind": "text", "text": "hello"}
    assert verify_message(StoredMessage.from_wire(delivered), verify_signature, agent.id) is SignatureState.VALID  # for its dm
    await log.wait_until(lambda: any(r.name == sent.room and r.kind == "dm" for r in session.rooms), "the DM listed")
    again = await settled(log, await session.message_agent(agent.id, "and again"))
    assert again.room == sent.room


async def test_an_agent_without_a_card_is_refused_in_a_sentence(hub, raw_agent, session_factory):
    agent = await raw_agent(hub.url, name="hidden")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    refused = await settled(log, await session.message_agent(agent.id, "hello"))
    assert refused.status is OutboxStatus.FAILED and "discoverable" in (refused.error or "")


async def test_a_first_message_whose_sent_was_lost_is_sent_again_into_the_same_dm_once(hub, raw_agent, session_factory):
    """The hub made the DM and stored the message, the ``sent`` never came back: the resend on the
    next line (same clientId, the same ``dm`` target) finds that DM and the original message."""
    from support.fault_proxy import FaultProxy
    from support.peer_ops import hub_history

    agent = await raw_agent(hub.url, name="carded")
    await agent.register("carded")
    await agent.ok({"op": "subscribe"}, "subscribed")
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    try:
        session, log = await session_factory(proxy.url)
        await log.wait_state(ConnectionState.LIVE)
        proxy.stall(upstream=False)  # the hub gets the send; its `sent` never comes back
        queued = await session.message_agent(agent.id, "only once")
        delivered = await agent.recv_delivery()
        proxy.cut()
        proxy.resume()
        sent = await settled(log, queued)
        assert sent.status is OutboxStatus.SENT and (sent.room, sent.seq) == (delivered["room"], delivered["seq"])
        assert [m["parts"][0]["text"] for m in await hub_history(agent, sent.room)] == ["only once"]
    finally:
        await proxy.close()
