"""The codec's object decoder makes instances without ``__init__`` (protocol/codec.py says why):
that is right only while no wire class has a ``default_factory`` or a ``__post_init__``, and an
instance decoded so must equal, compare and print as one made by its constructor."""

from __future__ import annotations

import dataclasses

from parler_desktop.protocol import frames, parts, values  # noqa: F401 - every wire class defined
from parler_desktop.protocol.codec import WireShape
from parler_desktop.protocol.values import EndpointRef, StoredMessage


def wire_classes(base: type = WireShape) -> set[type]:
    found = set()
    for sub in base.__subclasses__():
        found |= {sub} | wire_classes(sub)
    return found


def test_no_wire_class_needs_its_init_to_be_whole():
    classes = {cls for cls in wire_classes() if dataclasses.is_dataclass(cls)}
    assert len(classes) > 40  # the frames, values and parts
    for cls in classes:
        assert "__post_init__" not in vars(cls), cls
        for field in dataclasses.fields(cls):
            assert field.default_factory is dataclasses.MISSING, (cls, field.name)


def test_a_decoded_message_is_the_message_its_constructor_makes():
    wire = {"seq": 7, "id": "m7", "room": "team", "from": {"id": "UA", "name": "alice"}, "parts": [{"kind": "text", "text": "hi"}], "ts": 5}
    decoded = StoredMessage.from_wire(wire)
    made = StoredMessage(7, "m7", "team", EndpointRef(id="UA", name="alice"), ({"kind": "text", "text": "hi"},), 5)
    assert decoded == made and repr(decoded) == repr(made)
    assert (decoded.mentions, decoded.reply_to, decoded.signature, decoded.sender.role) == (None, None, None, None)  # the defaults
    assert decoded.to_wire() == wire
    assert decoded.with_signature(None) == made  # (a frozen instance all the same: replace and friends work)
    assert dataclasses.replace(decoded, seq=8).seq == 8
