"""``parler-desktop send`` and ``join`` end to end, as subprocesses against the embedded hub."""

from __future__ import annotations

import asyncio
import dataclasses
import signal

import pytest

from parler_desktop.cli import build_parser
from parler_desktop.client.events import OutboxStatus
from parler_desktop.identity import load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings, save_settings
from parler_desktop.store import LocalStore
from support.cli_runner import run_cli, started_cli
from support.fault_proxy import FaultProxy
from support.peer_ops import hub_history
from support.private_ca import make_private_ca
from support.os_needs import posix_signals

pytestmark = pytest.mark.timeout(60)


async def team(raw_agent, hub) -> tuple[object, str]:
    peer = await raw_agent(hub.url, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    return peer, invited["url"]


async def texts(peer) -> list[str]:
    return [m["parts"][0]["text"] for m in await hub_history(peer)]


async def test_join_by_link_names_the_hub_and_send_prints_the_seq(hub, raw_agent, tmp_path):
    peer, link = await team(raw_agent, hub)
    home = tmp_path / "home"
    joined = await run_cli(home, "join", link)  # no --hub: the link says where
    assert joined.status == 0, joined.stderr
    assert joined.stdout.strip() == "joined team (channel)"
    sent = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "hello from a script")
    assert sent.status == 0, sent.stderr
    history = await hub_history(peer)
    assert [(m["seq"], m["parts"][0]["text"]) for m in history] == [(int(sent.stdout), "hello from a script")]
    assert history[0]["parts"][-1]["kind"] == "com.parler.sig"


async def test_send_with_a_client_id_never_posts_twice(hub, raw_agent, tmp_path):
    peer, link = await team(raw_agent, hub)
    home = tmp_path / "home"
    assert (await run_cli(home, "join", link)).status == 0
    first = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--client-id", "job-42", "-", stdin="once")
    again = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--client-id", "job-42", "once")
    assert first.status == again.status == 0
    assert first.stdout == again.stdout
    other = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--client-id", "job-42", "different")
    assert other.status == 1 and "already used" in other.stderr
    assert await texts(peer) == ["once"]


async def test_send_reports_a_permanent_failure(hub, tmp_path):
    result = await run_cli(tmp_path / "home", "send", "--hub", hub.url, "--room", "nowhere", "hi")
    assert result.status == 1
    assert "not sent" in result.stderr and "not_member" in result.stderr


async def test_join_reports_a_bad_invite(hub, tmp_path):
    result = await run_cli(tmp_path / "home", "join", "--hub", hub.url, "NOPE2345")
    assert result.status == 1
    assert "invite problem" in result.stderr


async def test_join_gives_up_on_a_hub_it_cannot_reach_once_its_timeout_has_passed(tmp_path, refused_port):
    """Without ``--timeout`` it tries again until interrupted (as ``listen`` without
    ``--max-retries``): a script that joins a wrong address would never end."""
    result = await run_cli(tmp_path / "home", "join", "--hub", f"127.0.0.1:{refused_port}", "--timeout", "1", "ABCD2345")
    assert result.status == 1
    assert "cannot reach the hub" in result.stderr  # each try, as it failed
    assert "no answer from the hub within 1 s; not joined" in result.stderr


@pytest.mark.parametrize("command", [["join", "ABCD2345"], ["send", "--room", "team", "hi"]])
@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "soon"])
def test_a_timeout_must_be_a_number_of_seconds_more_than_0(command, timeout, capsys):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([command[0], "--timeout", timeout, *command[1:]])
    assert exited.value.code == 2
    assert f"argument --timeout: '{timeout}' is not a number of seconds more than 0" in capsys.readouterr().err
    assert build_parser().parse_args([command[0], "--timeout", "2.5", *command[1:]]).timeout == 2.5


@posix_signals
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGINT"])
async def test_an_interrupted_send_is_flushed_by_the_next_one(hub, raw_agent, tmp_path, signal_name):
    signum = getattr(signal, signal_name)  # by name: Windows has no SIGKILL to collect
    peer, link = await team(raw_agent, hub)
    home = tmp_path / "home"
    assert (await run_cli(home, "join", link)).status == 0
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    try:
        proxy.stall()  # the first send can write its outbox but never reach the hub
        async with started_cli(home, "send", "--hub", proxy.url, "--room", "team", "left behind") as first:
            store_path = Home.resolve(home).store_path(proxy.url, load_or_create_identity(Home.resolve(home).key_file).agent_id)
            async with asyncio.timeout(30):
                while b"connecting" not in (line := await first.stderr.readline()):
                    assert line, "send ended before connecting"
                # its store is open (created and migrated): we may open it too
                while not await asyncio.to_thread(pending_items, store_path):
                    await asyncio.sleep(0.05)
            first.send_signal(signum)
            status = await first.wait()
            if signum == signal.SIGINT:
                assert status == 1
                assert "stays in the outbox" in (await first.stderr.read()).decode()
        proxy.resume()
        second = await run_cli(home, "send", "--hub", proxy.url, "--room", "team", "sent later")
        assert second.status == 0, second.stderr
        assert sorted(await texts(peer)) == ["left behind", "sent later"]
    finally:
        await proxy.close()


def pending_items(path) -> int:
    store = LocalStore(path)
    try:
        return len(store.outbox_items([OutboxStatus.PENDING]))
    finally:
        store.close()


async def test_home_and_hub_work_after_the_subcommand_too(hub, raw_agent, tmp_path):
    peer, link = await team(raw_agent, hub)
    home = tmp_path / "home"
    joined = await run_cli(None, "join", "--home", str(home), link)  # used to take DIR as the code
    assert joined.status == 0, joined.stderr
    sent = await run_cli(None, "send", "--room", "team", "--home", str(home), "--hub", hub.url, "after")
    assert sent.status == 0, sent.stderr
    author = load_or_create_identity(Home.resolve(home).key_file).agent_id
    assert [(m["from"]["id"], m["parts"][0]["text"]) for m in await hub_history(peer)] == [(author, "after")]


@pytest.mark.parametrize("argv", [
    ["--home", "H", "--hub", "ws://h:1/ws", "gui"], ["gui", "--home", "H", "--hub", "ws://h:1/ws"],
    ["--hub", "ws://h:1/ws", "listen", "--home", "H"], ["listen", "--hub", "ws://h:1/ws", "--home", "H"],
    ["hub", "--home", "H"],
])
def test_global_options_parse_the_same_before_and_after_the_command(argv):
    args = build_parser().parse_args(argv)
    assert args.home == "H"
    assert args.hub == ("ws://h:1/ws" if "--hub" in argv else None)


async def test_a_wss_hub_with_a_private_ca_is_trusted_with_ca_file_or_the_settings(hub, raw_agent, tmp_path):
    ca = make_private_ca(tmp_path)
    proxy = await FaultProxy("127.0.0.1", hub.port, tls=ca.server_context).start()
    try:
        peer, link = await team(raw_agent, hub)
        code = link.rsplit("/", 1)[1]
        home = tmp_path / "home"
        untrusted = await run_cli(home, "join", "--hub", proxy.url, "--ca-file", str(tmp_path / "missing.pem"), code)
        assert untrusted.status == 2 and "missing.pem does not exist" in untrusted.stderr
        joined = await run_cli(home, "join", "--hub", proxy.url, "--ca-file", str(ca.ca_file), code)
        assert joined.status == 0, joined.stderr
        settings = load_settings(Home.resolve(home).settings_file).settings
        save_settings(Home.resolve(home).settings_file, dataclasses.replace(settings, hub_ca_files={proxy.url: str(ca.ca_file)}))
        sent = await run_cli(home, "send", "--hub", proxy.url, "--room", "team", "over wss")  # the settings' CA
        assert sent.status == 0, sent.stderr
        assert await texts(peer) == ["over wss"]
    finally:
        await proxy.close()
