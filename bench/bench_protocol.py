"""Benchmark what the reference's number model costs: decoding frames and writing canonical bytes.

Run: .venv/bin/python bench/bench_protocol.py

Every frame is parsed with parse hooks (``protocol/wire_json.py``: ``-0`` is a float, integers past
64 bits become floats, NaN and ``1e400`` are refused) and canonical bytes are written by our own
writer instead of ``json.dumps``. Baselines, measured in the same run: the same work with plain
``json.loads`` and ``json.dumps(sort_keys=True)``, which get those numbers wrong.
"""

from __future__ import annotations

import json
import timeit

from parler_desktop.protocol import frames, wire_json
from parler_desktop.protocol.canonical import canonical_message_bytes

SIG = {"kind": "com.parler.sig", "alg": "ed25519", "sig": "x" * 88, "ts": 1710000000000, "uid": "u", "v": 1,
       "target": {"kind": "room", "room": "team"}}
MESSAGE = {"seq": 123456, "id": "0190f3c2-7b1e-7a00-9c1d-3e5f00000001", "room": "team", "ts": 1710000000000,
           "from": {"id": "U" * 56, "name": "alice", "role": "planner"},
           "parts": [{"kind": "text", "text": "a paragraph of agent chatter " * 8},
                     {"kind": "data", "data": {"tokens": 1234, "cost": 0.00042, "ok": True}}, SIG]}
PULLED = json.dumps({"type": "pulled", "room": "team", "cursor": 5, "messages": [MESSAGE] * 200})


def best(work, number: int) -> float:
    """Seconds per call, best of five runs."""
    return min(timeit.repeat(work, number=number, repeat=5)) / number


def decode_cost() -> tuple[float, float]:
    ours = best(lambda: frames.decode_hub_frame(PULLED), 20)
    hooked = wire_json.loads
    wire_json.loads = json.loads  # the baseline: the same decoder on plain json.loads
    try:
        plain = best(lambda: frames.decode_hub_frame(PULLED), 20)
    finally:
        wire_json.loads = hooked
    return ours, plain


def canonical_cost() -> tuple[float, float]:
    args = ("U" * 56, {"kind": "room", "room": "team"}, MESSAGE["parts"], None, 1710000000000, "u")
    ours = best(lambda: canonical_message_bytes(*args), 2000)
    body = {"v": 1, "from": args[0], "target": args[1], "ts": args[4], "uid": args[5], "parts": MESSAGE["parts"][:2]}
    plain = best(lambda: json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode(), 2000)
    return ours, plain


def main() -> None:
    ours, plain = decode_cost()
    print(f"decode a 200-message pulled frame: {ours * 1e3:.2f} ms (plain json.loads: {plain * 1e3:.2f} ms, "
          f"{ours / plain:.2f}x)")
    ours, plain = canonical_cost()
    print(f"canonical bytes of one message:    {ours * 1e6:.1f} µs (json.dumps: {plain * 1e6:.1f} µs, "
          f"{ours / plain:.2f}x)")


if __name__ == "__main__":
    main()
