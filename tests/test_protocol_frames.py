"""Every frame round-trips through encode/decode; no input makes the decoders raise."""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, get_args, get_origin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parler_desktop.protocol import frames
from parler_desktop.protocol.codec import Custom, IntRange, OneOf, field_specs
from parler_desktop.protocol.frames import (
    CLIENT_FRAMES,
    HUB_FRAMES,
    Malformed,
    UnknownFrame,
    decode_client_frame,
    decode_hub_frame,
    encode,
)
from parler_desktop.protocol.values import (
    DmTarget, EndpointRef, RelayedParts, RoomTarget, Sender, ServiceTarget, SharedText, SignatureState, StoredMessage, StrictParts,
    TargetField,
)

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
json_scalar = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
json_value = st.recursive(
    json_scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3), max_leaves=8
)
parts = st.lists(
    st.one_of(
        st.builds(lambda t: {"kind": "text", "text": t}, text),
        st.builds(lambda d: {"kind": "data", "data": d}, json_value),
        st.builds(lambda n: {"kind": "com.example.thing", "n": n}, st.integers(0, 9)),
    ),
    max_size=3,
).map(tuple)
targets = st.one_of(st.builds(RoomTarget, text), st.builds(DmTarget, text), st.builds(ServiceTarget, text))


def strategy_for(hint: Any) -> st.SearchStrategy:
    if hint is StrictParts or hint is RelayedParts:
        return parts
    if hint is TargetField:
        return targets
    if hint is SharedText:
        return text
    if hint is Sender:
        return instances(EndpointRef)
    if get_origin(hint) is Annotated:
        base, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, IntRange):
                return st.integers(extra.low, extra.high)
            if isinstance(extra, OneOf):
                return st.sampled_from(extra.values)
            assert not isinstance(extra, Custom), f"no strategy for {hint}"
        return strategy_for(base)
    if hint is str:
        return text
    if hint is bool:
        return st.booleans()
    if hint is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if hint is dict:
        return st.dictionaries(text, json_value, max_size=3)
    if get_origin(hint) is tuple:
        return st.lists(strategy_for(get_args(hint)[0]), max_size=3).map(tuple)
    if dataclasses.is_dataclass(hint):
        return instances(hint)
    raise AssertionError(f"no strategy for {hint!r}")


def instances(cls: type) -> st.SearchStrategy:
    fields = {}
    for spec in field_specs(cls):
        value = strategy_for(spec.hint)
        fields[spec.name] = st.none() | value if spec.optional else value
    return st.fixed_dictionaries(fields).map(lambda kw: cls(**kw))


FRAME_DECODERS = [(cls, decode_client_frame) for cls in CLIENT_FRAMES.values()] + [
    (cls, decode_hub_frame) for cls in HUB_FRAMES.values()
]


@pytest.mark.parametrize("cls, decode", FRAME_DECODERS, ids=lambda c: getattr(c, "TAG", ""))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_frame_round_trip(cls, decode, data):
    frame = data.draw(instances(cls))
    assert decode(encode(frame)) == frame


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.binary(), json_value.map(json.dumps)))
def test_random_input_never_raises(raw):
    assert isinstance(decode_client_frame(raw), (Malformed, *CLIENT_FRAMES.values()))
    assert isinstance(decode_hub_frame(raw), (Malformed, UnknownFrame, *HUB_FRAMES.values()))


@settings(max_examples=300, deadline=None)
@given(tag=st.sampled_from(sorted(CLIENT_FRAMES)), body=st.dictionaries(text, json_value, max_size=6))
def test_random_members_for_known_ops_never_raise(tag, body):
    result = decode_client_frame(json.dumps({**body, "op": tag}))
    assert isinstance(result, (Malformed, CLIENT_FRAMES[tag]))


@pytest.mark.parametrize(
    "raw, reason",
    [
        ('{"op":"pull","room":"t","limit":-1}', "out of range"),
        ('{"op":"pull","room":"t","since":1.5}', "integer"),
        ('{"op":"presence","status":"x","attention":"DND"}', "one of"),
        ('{"op":"register","card":{"id":"U","name":"a","kind":"agent"},"visibility":null}', "null"),
        ('{"op":"invite","kind":"channel","requireApproval":null}', "null"),
        ('{"op":"discover","scope":null}', "null"),
        ('{"op":"send","target":{"kind":"room","room":"t"},"parts":[{"kind":"image"}]}', "kind"),
        ('{"op":"send","target":{"kind":"room","room":"t"},"parts":[{"kind":"text"}]}', "text"),
        ('{"op":"send","target":{"kind":"room","room":"t"},"parts":[{"kind":"data"}]}', "data"),
        ('{"op":"send","target":{"kind":"group","room":"t"},"parts":[]}', "target"),
        ('{"op":"hello","id":"\\ud800","name":"a"}', "surrogate"),
        ('{"op":"teleport"}', "unknown op"),
        ('[]', "object"),
        ("{", "JSON"),
    ],
)
def test_malformed_client_frames_say_why(raw, reason):
    result = decode_client_frame(raw)
    assert isinstance(result, Malformed)
    assert reason in result.reason


def test_null_optionals_are_absent_and_unknown_members_ignored():
    frame = decode_client_frame('{"op":"pull","room":"t","since":null,"ack":5,"future":{"x":1}}')
    assert frame == frames.Pull(room="t", ack=5)


def test_text_and_data_parts_lose_extra_members_extensions_keep_them():
    frame = decode_client_frame(
        '{"op":"send","target":{"kind":"room","room":"t"},"parts":['
        '{"kind":"text","text":"hi","bold":true},{"kind":"data","data":null,"x":1},'
        '{"kind":"com.acme.thing","a":[1,2]}]}'
    )
    assert frame.parts == ({"kind": "text", "text": "hi"}, {"kind": "data", "data": None}, {"kind": "com.acme.thing", "a": [1, 2]})


def test_encoding_omits_absent_optionals_and_default_require_approval():
    assert encode(frames.Invite(kind="dm")) == '{"op":"invite","kind":"dm"}'
    assert encode(frames.Pull(room="team", limit=0, ack=57)) == '{"op":"pull","room":"team","limit":0,"ack":57}'
    assert json.loads(encode(frames.Invite(kind="channel", room="team", require_approval=True)))["requireApproval"] is True


def test_hub_frame_of_unknown_type_is_a_value():
    result = decode_hub_frame('{"type":"presence_changed","who":"x"}')
    assert result == UnknownFrame("presence_changed", {"type": "presence_changed", "who": "x"})


def test_delivery_with_a_newer_part_kind_still_decodes():
    raw = (
        '{"type":"delivery","message":{"seq":43,"id":"m","room":"team","from":{"id":"U","name":"bob"},'
        '"parts":[{"kind":"image","url":"http://x"}],"ts":1}}'
    )
    result = decode_hub_frame(raw)
    assert isinstance(result, frames.Delivery)
    assert result.message.parts[0]["kind"] == "image"


def test_a_verdict_is_attached_like_dataclasses_replace_would_attach_it():
    message = StoredMessage(7, "m7", "team", EndpointRef("UA", "alice", "planner"), ({"kind": "text", "text": "hi"},), 1_700_000_000_000, ("bob",), "m6")
    checked = message.with_signature(SignatureState.VALID)
    expected = dataclasses.replace(message, signature=SignatureState.VALID)
    assert [getattr(checked, f.name) for f in dataclasses.fields(StoredMessage)] == [getattr(expected, f.name) for f in dataclasses.fields(StoredMessage)]
