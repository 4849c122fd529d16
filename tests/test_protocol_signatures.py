"""Canonical bytes, message signing and verification (§8.1, Vector B of §2.5), extension parts."""

from __future__ import annotations

import dataclasses

import pytest

from parler_desktop.identity import Identity, verify_signature
from parler_desktop.protocol.canonical import (
    SignatureState,
    canonical_card_bytes,
    canonical_json,
    canonical_message_bytes,
    sign_parts,
    verify_message,
)
from parler_desktop.protocol.parts import BundleRef, Dispatch, FileRef, Handoff, TaskStatus
from parler_desktop.protocol.values import (
    AgentCard,
    DmTarget,
    EndpointRef,
    RoomTarget,
    ServiceTarget,
    StoredMessage,
)

ALICE = Identity.from_seed("SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU")
BOB = Identity.from_seed("SUAAAAICAMCAKBQHBAEQUCYMBUHA6EARCIJRIFIWC4MBSGQ3DQOR4H776Y")
UID = "9b2f6c1e-1f7a-4c55-8d1e-0a6f3b7c2d10"
VECTOR_B_BYTES = (
    '{"from":"UCK5N7N66OBOINFXAYC2ACJQYFSOD4VYNU6APEJTAVFZB2SVHLKGEW7L","parts":[{"kind":"text","text":"ship it"}],'
    '"target":{"kind":"room","room":"team"},"ts":1710000000000,"uid":"9b2f6c1e-1f7a-4c55-8d1e-0a6f3b7c2d10","v":1}'
)
VECTOR_B_SIG = "FYSEYEcfz0ogd7M8NeCs1OMtO7+op6TuoKAR/8o/tqMTfi9hHCsTotyC+kRcIuYfaM5UNdQlnU2tm/yWtEg2Bw=="


def stored(identity: Identity, room: str, parts, reply_to=None) -> StoredMessage:
    return StoredMessage(
        seq=1, id="m1", room=room, sender=EndpointRef(identity.agent_id, "alice"), parts=tuple(parts), ts=5,
        reply_to=reply_to,
    )


def test_vector_b_message_bytes_and_signature():
    raw = canonical_message_bytes(ALICE.agent_id, {"kind": "room", "room": "team"},
                                  [{"kind": "text", "text": "ship it"}], None, 1710000000000, UID)
    assert raw.decode() == VECTOR_B_BYTES
    parts = sign_parts(ALICE.agent_id, RoomTarget("team"), [{"kind": "text", "text": "ship it"}], None,
                       ALICE.sign, ts=1710000000000, uid=UID)
    assert parts[-1]["sig"] == VECTOR_B_SIG
    assert parts[-1] == {"kind": "com.parler.sig", "sig": VECTOR_B_SIG, "ts": 1710000000000, "uid": UID,
                         "target": {"kind": "room", "room": "team"}, "alg": "ed25519", "v": 1}


def test_vector_b_card_bytes():
    card = AgentCard(id=ALICE.agent_id, name="alice", kind="agent", role="planner", protocol_version="0.2")
    assert canonical_card_bytes(card).decode() == (
        '{"id":"UCK5N7N66OBOINFXAYC2ACJQYFSOD4VYNU6APEJTAVFZB2SVHLKGEW7L","kind":"agent","name":"alice",'
        '"protocolVersion":"0.2","role":"planner"}'
    )
    assert ALICE.sign(canonical_card_bytes(card)) == (
        "LkFV7j2DJeP8UeJKg90i7IWDwZntJjBTrrEoSnP0CiXhk1HnN+GzrsvGsQJ3DydBDd3rkJKUAVLAuNxWrLqCAg=="
    )


def test_canonical_json_keeps_unicode_raw_and_escapes_controls():
    assert canonical_json({"b": "é\n\x01", "a": [2, 1]}) == '{"a":[2,1],"b":"é\\n\\u0001"}'.encode()


@pytest.mark.parametrize("reply_to", [None, "0190f3c2-parent"])
def test_signed_message_verifies_and_tampering_is_caught(reply_to):
    parts = sign_parts(ALICE.agent_id, RoomTarget("team"), [{"kind": "text", "text": "héllo"}], reply_to, ALICE.sign)
    message = stored(ALICE, "team", parts, reply_to)
    assert verify_message(message, verify_signature, BOB.agent_id) is SignatureState.VALID
    altered = dataclasses.replace(message, parts=({"kind": "text", "text": "goodbye"}, parts[-1]))
    assert verify_message(altered, verify_signature, BOB.agent_id) is SignatureState.INVALID
    forged = dataclasses.replace(message, sender=EndpointRef(BOB.agent_id, "alice"))
    assert verify_message(forged, verify_signature, BOB.agent_id) is SignatureState.INVALID


def test_unsigned_and_malformed_signature_parts():
    assert verify_message(stored(ALICE, "team", [{"kind": "text", "text": "x"}]), verify_signature, "") is SignatureState.UNSIGNED
    float_ts = {"kind": "com.parler.sig", "sig": "x", "ts": 1.5, "uid": "u", "target": {"kind": "room", "room": "team"}}
    assert verify_message(stored(ALICE, "team", [float_ts]), verify_signature, "") is SignatureState.UNSIGNED


def test_room_binding():
    parts = sign_parts(ALICE.agent_id, RoomTarget("team"), [{"kind": "text", "text": "x"}], None, ALICE.sign)
    assert verify_message(stored(ALICE, "other", parts), verify_signature, BOB.agent_id) is SignatureState.INVALID
    svc = sign_parts(ALICE.agent_id, ServiceTarget("Code Review"), [{"kind": "text", "text": "x"}], None, ALICE.sign)
    assert verify_message(stored(ALICE, "svc.Code_Review", svc), verify_signature, BOB.agent_id) is SignatureState.VALID
    dm = sign_parts(ALICE.agent_id, DmTarget(BOB.agent_id), [{"kind": "text", "text": "x"}], None, ALICE.sign)
    assert verify_message(stored(ALICE, "dm.k3m9qx", dm), verify_signature, BOB.agent_id) is SignatureState.VALID
    assert verify_message(stored(ALICE, "dm.k3m9qx", dm), verify_signature, ALICE.agent_id) is SignatureState.INVALID


def test_resigning_replaces_an_old_signature():
    once = sign_parts(ALICE.agent_id, RoomTarget("team"), [{"kind": "text", "text": "x"}], None, ALICE.sign)
    twice = sign_parts(ALICE.agent_id, RoomTarget("team"), once, None, ALICE.sign)
    assert [p["kind"] for p in twice] == ["text", "com.parler.sig"]


def test_extension_parts_round_trip_and_reject_bad_shapes():
    for part in (
        Handoff(next="wire the UI", summary="rotation done", to="webdev"),
        TaskStatus(status="done", task="t1", note="LGTM", tokens=12, elapsed_ms=5000),
        FileRef(blob="ab" * 32, name="report.pdf", size=4096, media_type="application/pdf"),
        BundleRef(blob="cd" * 32, vcs="git", size=20480, tip="c0ffee"),
        Dispatch(role="review"),
    ):
        assert type(part).from_part(part.to_part()) == part
    assert TaskStatus.from_part({"kind": "com.parler.task", "status": "DONE"}) is None
    assert Handoff.from_part({"kind": "com.parler.handoff"}) is None
    assert FileRef.from_part({"kind": "text", "text": "x"}) is None
    assert TaskStatus.from_part({"kind": "com.parler.task", "status": "working", "elapsedMs": 7}).elapsed_ms == 7


def test_handoff_addressing_and_file_names():
    assert Handoff(next="x").is_addressed_to("ana", None)
    assert Handoff(next="x", to=" WebDev ").is_addressed_to("ana", "webdev")
    assert not Handoff(next="x", to="bob").is_addressed_to("ana", "webdev")
    assert FileRef(blob="a", name="../../etc/passwd", size=1).safe_name == "passwd"
    assert FileRef(blob="a", name="C:\\x\\..", size=1).safe_name == "download"
