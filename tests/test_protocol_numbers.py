"""Numbers as the reference implementation has them (protocol.md §1.3, §8.1).

``data/canonical-json.ndjson`` is the reference's own canonical text for 2,100 JSON values (made
with serde_json 1.0.150, the reference hub's writer); a signature covers these bytes, so every one
must match or a reference peer shows our signed messages as invalid.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from parler_desktop.identity import Identity, verify_signature
from parler_desktop.protocol import wire_json
from parler_desktop.protocol.canonical import SignatureState, canonical_json, sign_parts, verify_message
from parler_desktop.protocol.frames import Delivery, Malformed, Send, decode_client_frame, decode_hub_frame, encode
from parler_desktop.protocol.values import EndpointRef, RoomTarget, StoredMessage

VECTORS = Path(__file__).parent / "data" / "canonical-json.ndjson"
ALICE = Identity.generate()


def load_vectors() -> list[dict]:
    with VECTORS.open(encoding="utf-8") as lines:  # not splitlines(): some values hold U+2028
        return [json.loads(line) for line in lines]


def test_every_reference_vector_gives_the_reference_bytes():
    vectors = load_vectors()
    assert len(vectors) > 2000
    mismatched = []
    for vector in vectors:
        try:
            ours = canonical_json(wire_json.loads(vector["in"])).decode()
        except ValueError:
            ours = None
        if ours != vector["canonical"]:
            mismatched.append((vector["in"], ours, vector["canonical"]))
    assert mismatched == []


def test_the_vectors_cover_the_cases_where_python_differs():
    by_input = {vector["in"]: vector["canonical"] for vector in load_vectors()}
    assert by_input["-0"] == "-0.0" and by_input["0.00001"] == "0.00001"
    assert by_input["1e400"] is None and by_input["NaN"] is None


@pytest.mark.parametrize("value, text", [
    (1e-7, "1e-7"), (1e-5, "0.00001"), (-0.0, "-0.0"), (1e16, "1e+16"), (123456789012345680.0, "1.2345678901234568e+17"),
    (2**64 - 1, "18446744073709551615"), (-(2**63), "-9223372036854775808"), (2**64, "1.8446744073709552e+19"),
    (0.1, "0.1"), (100.0, "100.0"), (5.89e-8, "5.89e-8"),
])
def test_numbers_written_by_python_values(value, text):
    assert wire_json.number_text(value) == text


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400], ids=["nan", "inf", "-inf", "10**400"])
def test_what_json_cannot_carry_is_refused_with_a_clear_error(value):
    with pytest.raises(wire_json.NumberError, match="JSON|range"):
        canonical_json({"kind": "data", "data": {"x": [value]}})


@pytest.mark.parametrize("text", ["NaN", "-Infinity", "Infinity", "1e400", "-1e999", "1" + "0" * 400])
def test_decoding_refuses_numbers_the_reference_refuses(text):
    frame = decode_client_frame('{"op":"send","target":{"kind":"room","room":"r"},"parts":[{"kind":"data","data":%s}]}' % text)
    assert isinstance(frame, Malformed) and ("range" in frame.reason or "not a JSON number" in frame.reason)


def test_decoding_keeps_the_references_number_model():
    assert wire_json.loads("[-0, 18446744073709551616, 18446744073709551615, 1e-400]") == [-0.0, 2.0**64, 2**64 - 1, 0.0]
    assert math.copysign(1.0, wire_json.loads("-0")) < 0


def test_a_message_signed_over_awkward_numbers_still_verifies_after_the_wire():
    data = {"kind": "data", "data": {"tiny": 1e-7, "small": 1e-5, "neg0": -0.0, "big": 2**70, "nested": [[-0.0, 3.5e300]]}}
    parts = sign_parts(ALICE.agent_id, RoomTarget("team"), [data], None, ALICE.sign)
    relayed = decode_client_frame(encode(Send(target=RoomTarget("team"), parts=parts)))
    assert isinstance(relayed, Send)
    message = StoredMessage(seq=1, id="m", room="team", sender=EndpointRef(ALICE.agent_id, "alice"), parts=relayed.parts, ts=1)
    delivered = decode_hub_frame(encode(Delivery(message=message)))
    assert isinstance(delivered, Delivery)
    assert verify_message(delivered.message, verify_signature, "") is SignatureState.VALID
