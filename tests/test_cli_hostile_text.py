"""The terminal is the human's: what a hostile hub puts in its replies reaches ``join``,
``listen`` and ``send`` lines and their error lines escaped, never as control bytes (a retitle,
a clear screen, an OSC 52 clipboard write); JSON output stays JSON."""

from __future__ import annotations

import json

import pytest

from support.cli_runner import run_cli
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.peer_ops import invite_code, say

pytestmark = pytest.mark.timeout(60)

# A retitle, a clear screen, an OSC 52 clipboard write, and C1's CSI.
SEQUENCES = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b31m"
CONTROL_BYTES = ("\x1b", "\x07", "\x9b")


def assert_no_controls(*outputs: str) -> None:
    for output in outputs:
        for byte in CONTROL_BYTES:
            assert byte not in output, f"{byte!r} reached the terminal: {output!r}"


class JoinedEscapes(Misbehaviour):
    """``redeem`` answered with a room name full of terminal sequences."""

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") == "redeem":
            return [{"type": "joined", "room": "team" + SEQUENCES, "kind": "channel"}]
        return None


class RefusedEscapes(Misbehaviour):
    """Every request after the handshake refused with an error whose text holds sequences."""

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") in ("redeem", "send", "rooms"):
            return [{"type": "error", "message": "no" + SEQUENCES, "code": "internal" + SEQUENCES}]
        return None


async def test_join_escapes_the_room_the_hub_names(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    proxy = await HostileHub(hub.url, JoinedEscapes()).start()
    try:
        joined = await run_cli(tmp_path / "home", "join", "--hub", proxy.url, code)
    finally:
        await proxy.close()
    assert joined.status == 0, joined.stderr
    assert_no_controls(joined.stdout, joined.stderr)
    assert "\\x1b]0;pwned" in joined.stdout


async def test_join_and_send_escape_the_hubs_error_text(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    proxy = await HostileHub(hub.url, RefusedEscapes()).start()
    try:
        joined = await run_cli(tmp_path / "home", "join", "--hub", proxy.url, code)
        sent = await run_cli(tmp_path / "home", "send", "--hub", proxy.url, "--room", "team", "hi")
    finally:
        await proxy.close()
    assert joined.status == 1 and sent.status == 1
    assert_no_controls(joined.stdout, joined.stderr, sent.stdout, sent.stderr)
    assert "no\\x1b]0;pwned" in joined.stderr and "no\\x1b]0;pwned" in sent.stderr


async def test_listen_escapes_notices_and_keeps_json(hub, raw_agent, tmp_path):
    peer = await raw_agent(hub.url, name="bot" + SEQUENCES)
    code = await invite_code(peer)
    home = tmp_path / "home"
    assert (await run_cli(home, "join", "--hub", hub.url, code)).status == 0
    await say(peer, "team", "hello" + SEQUENCES)
    proxy = await HostileHub(hub.url, RefusedEscapes()).start()
    try:
        refused = await run_cli(home, "listen", "--hub", proxy.url, "--once", "--max-retries", "1")
    finally:
        await proxy.close()
    assert_no_controls(refused.stdout, refused.stderr)
    assert "no\\x1b]0;pwned" in refused.stderr
    listened = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert listened.status == 0, listened.stderr
    printed = [json.loads(line) for line in listened.stdout.splitlines()]
    assert printed[-1]["text"] == "hello" + SEQUENCES and printed[-1]["from"]["name"] == "bot" + SEQUENCES
    assert_no_controls(listened.stdout)  # JSON escapes them (\u001b)
