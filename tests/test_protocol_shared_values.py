"""Decoded messages share their sender, room and part kinds (issue 42, item 1): a catch-up holds
up to 50,000 decoded messages at once (client/page_writer.py), nearly all from a handful of agents
in a handful of rooms, and each kept its own copy of them (~480 B of ~1,180)."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from parler_desktop.protocol.codec import WireError
from parler_desktop.protocol.shared_values import SHARED_MAX
from parler_desktop.protocol.values import EndpointRef, StoredMessage, shared_senders

TEXT = "rebuilt the **index**, ran `pytest -q` and pushed the fix.\n\n- 3 files changed\n- all green"


def wire(seq: int, sender: str = "U" + "A" * 55) -> dict:
    return {"seq": seq, "id": f"01JX{seq:022d}", "room": "r001", "from": {"id": sender, "name": "agent-0-1", "role": "worker"},
            "parts": [{"kind": "text", "text": f"msg{seq:07d}: {TEXT}"}], "ts": 1_700_000_000_000 + seq}


def pulled_page(count: int) -> list[dict]:
    """As a pulled page reaches the decoder: every string its own (json makes each one anew)."""
    return json.loads(page_text(count))


def page_text(count: int) -> str:
    return json.dumps([wire(seq) for seq in range(1, count + 1)])


def test_a_page_of_one_agent_in_one_room_holds_its_sender_room_and_kind_once():
    messages = [StoredMessage.from_wire(m) for m in pulled_page(1000)]
    assert len({id(m.sender) for m in messages}) == 1
    assert len({id(m.room) for m in messages}) == 1
    assert len({id(m.parts[0]["kind"]) for m in messages}) == 1
    assert messages[0].sender == EndpointRef(id="U" + "A" * 55, name="agent-0-1", role="worker")
    assert messages[-1].to_wire() == wire(1000)


def test_what_a_decoded_message_holds_is_bounded_by_its_own_text_and_id():
    text = page_text(10_000)
    tracemalloc.start()
    try:
        page = json.loads(text)
        messages = [StoredMessage.from_wire(m) for m in page]
        del page
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(messages) == 10_000
    assert held / 10_000 < 800  # measured before: 1,183 B a message, each with its own sender, room and kind


def test_the_shared_senders_are_bounded():
    for n in range(3 * SHARED_MAX):
        StoredMessage.from_wire(json.loads(json.dumps(wire(n, sender=f"U{n:055d}"))))
    assert 0 < len(shared_senders) <= SHARED_MAX


def test_a_malformed_sender_is_refused_even_where_a_valid_one_is_shared():
    StoredMessage.from_wire(wire(1))
    bad = wire(2)
    bad["from"]["role"] = 5
    with pytest.raises(WireError):
        StoredMessage.from_wire(bad)
    bad["from"] = {"id": "U" + "A" * 55, "name": ["agent-0-1"], "role": "worker"}
    with pytest.raises(WireError):
        StoredMessage.from_wire(bad)
