"""wss:// to either hub (this folder's ``hub`` fixture is parametrized embedded / reference)
behind a TLS terminator with a private CA.

- The session-level wss:// tests of tests/test_client_tls.py, collected here again.
- The commands (``join``, ``send``, ``listen`` with ``--ca-file``) as subprocesses: connected
  through the terminator; then the terminator presents a certificate the CA file does not vouch
  for (another CA's, one for another host name, an expired one): each command says so in one
  sentence on stderr (no traceback) and ends as its options say; a ``send`` made meanwhile stays
  queued and reaches the room exactly once after the fix (the new CA trusted, or the right
  certificate served again). A wrong host name given with ``--hub`` is refused the same way.
  The window's journeys are in test_tls_window.py.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from support.cli_runner import run_cli, started_cli
from support.fault_proxy import FaultProxy
from support.peer_ops import hub_history, invite_code
from support.private_ca import CERTIFICATE_FAULTS, make_private_ca
from test_client_tls import (  # noqa: F401 - fixtures and tests, collected here on both hubs
    private_ca,
    test_a_certificate_for_another_host_name_is_refused_even_with_its_ca,
    test_a_cut_line_reconnects_over_tls_as_over_ws,
    test_an_expired_certificate_says_so_and_who_can_fix_it,
    test_an_untrusted_certificate_is_explained_with_the_way_out,
    test_trusting_the_private_ca_for_the_hub_connects_and_messages_flow,
    tls_proxy,
)
from support.client_harness import session_factory  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(90)
ALL = ["over wss", "sent while refused", "after the fix"]  # what the command journey posts, in order
QUEUED = "queued; it will be sent by the next send, listen or window on this home"


def certificate_lines(stderr: str, command: str) -> list[str]:
    """stderr's lines about the certificate, without the command prefix and the retry countdown."""
    prefix = f"parler-desktop {command}: "
    lines = [line.removeprefix(prefix) for line in stderr.splitlines()]
    return [line.split("; retrying in ")[0] for line in lines if "certificate" in line]


def assert_one_sentence(stderr: str, command: str, words: tuple[str, ...]) -> None:
    """Every line is the command's own (no traceback, no log record); the certificate is
    explained by one sentence, the same at every retry, with ``words`` in it."""
    prefix = f"parler-desktop {command}: "
    assert "Traceback" not in stderr and all(line.startswith(prefix) for line in stderr.splitlines()), stderr
    said = set(certificate_lines(stderr, command))
    assert len(said) == 1, stderr
    sentence = said.pop()
    assert all(word in sentence.lower() for word in words), sentence
    assert "\n" not in sentence and sentence.count(". ") == 0, sentence


async def wait_for_certificate_line(process: asyncio.subprocess.Process, command: str) -> str:
    """Read the running command's stderr up to its first line about the certificate."""
    assert process.stderr is not None
    seen = ""
    while not certificate_lines(seen, command):
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        assert line, f"{command} ended before saying anything about the certificate: {seen!r}"
        seen += line.decode()
    return seen


@pytest.mark.parametrize("fault", CERTIFICATE_FAULTS, ids=lambda fault: fault.name)
async def test_the_commands_over_wss_explain_a_refused_certificate_in_one_sentence_and_lose_nothing(
    hub, raw_agent, tmp_path, fault
):
    ca = make_private_ca(tmp_path)
    proxy = await FaultProxy("127.0.0.1", hub.port, tls=ca.server_context).start()
    try:
        peer = await raw_agent(hub.url, name="bot")
        code = await invite_code(peer)
        home = tmp_path / "home"
        trusting = ("--hub", proxy.url, "--ca-file", str(ca.ca_file))
        joined = await run_cli(home, "join", *trusting, code)
        assert (joined.status, joined.stdout.strip()) == (0, "joined team (channel)"), joined.stderr
        first = await run_cli(home, "send", *trusting, "--room", "team", "over wss")
        assert first.status == 0, first.stderr

        refused_context, fixed_ca_file = fault.presented(ca, tmp_path)
        await proxy.present(refused_context)
        queued = await run_cli(home, "send", *trusting, "--room", "team", "--timeout", "2", "sent while refused")
        assert queued.status == 3, queued  # queued in the outbox, not lost
        assert_one_sentence(queued.stderr, "send", fault.words)
        assert any(line.endswith(QUEUED) for line in queued.stderr.splitlines()), queued.stderr
        listened = await run_cli(home, "listen", *trusting, "--once", "--json", "--max-retries", "0")
        assert listened.status == 1 and listened.stdout == "", listened
        assert_one_sentence(listened.stderr, "listen", fault.words)
        rejoined = await run_cli(home, "join", *trusting, "--timeout", "2", code)
        assert rejoined.status == 1, rejoined
        assert_one_sentence(rejoined.stderr, "join", fault.words)
        assert [m["parts"][0]["text"] for m in await hub_history(peer)] == ["over wss"]

        fixed = ("--hub", proxy.url, "--ca-file", str(fixed_ca_file))
        async with started_cli(home, "send", *fixed, "--room", "team", "after the fix") as sending:
            if fault.fixed_by_operator:
                said = await wait_for_certificate_line(sending, "send")
                assert_one_sentence(said, "send", fault.words)
                await proxy.present(ca.server_context)  # the operator serves the right certificate
            out, err = await asyncio.wait_for(sending.communicate(), 30)
        assert sending.returncode == 0 and "Traceback" not in err.decode(), err
        history = await hub_history(peer)
        assert [m["parts"][0]["text"] for m in history] == ALL
        assert int(out) == history[-1]["seq"]
        caught_up = await run_cli(home, "listen", *fixed, "--once", "--json")
        assert caught_up.status == 0, caught_up.stderr
        assert [json.loads(line)["text"] for line in caught_up.stdout.splitlines()] == ALL
        assert [m["parts"][0]["text"] for m in await hub_history(peer)] == ALL  # still once each
    finally:
        await proxy.close()


async def test_a_wrong_host_name_given_to_the_commands_is_refused_in_one_sentence(hub, raw_agent, tmp_path):
    ca = make_private_ca(tmp_path)
    proxy = await FaultProxy("127.0.0.1", hub.port, tls=ca.server_context).start()
    try:
        peer = await raw_agent(hub.url, name="bot")
        by_address = proxy.url.replace("localhost", "127.0.0.1")  # the certificate names only localhost
        home = tmp_path / "home"
        words = ("refused", "not for the address", by_address, "check the address")
        trusting = ("--hub", by_address, "--ca-file", str(ca.ca_file))
        joined = await run_cli(home, "join", *trusting, "--timeout", "2", await invite_code(peer))
        assert joined.status == 1, joined
        assert_one_sentence(joined.stderr, "join", words)
        listened = await run_cli(home, "listen", *trusting, "--once", "--max-retries", "0")
        assert listened.status == 1 and listened.stdout == "", listened
        assert_one_sentence(listened.stderr, "listen", words)
    finally:
        await proxy.close()
