"""Every JSON example of protocol.md §5 (client frames) and §6 (hub frames) decodes to its frame
and re-encodes to the same JSON object: the wire spelling the reference hub and client use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parler_desktop.protocol.frames import CLIENT_FRAMES, HUB_FRAMES, decode_client_frame, decode_hub_frame, encode

EXAMPLES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "protocol_examples.jsonl").read_text(encoding="utf-8").splitlines()
]


def test_examples_cover_every_frame_kind_they_name():
    ops = {e["op"] for e in EXAMPLES if "op" in e}
    types = {e["type"] for e in EXAMPLES if "type" in e}
    assert ops == set(CLIENT_FRAMES) - {"hello"}  # hello examples live in §3
    assert types <= set(HUB_FRAMES) and len(types) >= 28


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.get("op") or e.get("type"))
def test_example_round_trips_exactly(example):
    raw = json.dumps(example)
    frame = decode_client_frame(raw) if "op" in example else decode_hub_frame(raw)
    assert type(frame).__name__ not in ("Malformed", "UnknownFrame"), frame
    assert json.loads(encode(frame)) == example
