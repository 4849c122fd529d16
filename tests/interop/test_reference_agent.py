"""The reference agent CLI (``parler``) and the window, on our hub and on the reference hub: the
agent makes a room and hands out its invite code; what it sends shows live in the window with
the verified-signature mark; what the window posts, ``parler recv`` prints as verified (no ⚠ /
✗ UNVERIFIED badge: the reference checked our signature); its presence shows in the members list."""

from __future__ import annotations

import hashlib
import re

import pytest
from PySide6.QtCore import Qt
from support.desktop_fixtures import activate, click_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.app import roles
from parler_desktop.client.blob_save import BlobSave
from parler_desktop.protocol.canonical import sign_parts
from parler_desktop.protocol.values import RoomTarget, SignatureState
from test_window import type_and_enter

pytestmark = pytest.mark.timeout(90)


def cli_url(url: str) -> str:
    """The hub address as the reference CLI's config holds it (it dials ``/ws`` itself)."""
    return url.removesuffix("/ws")


def agent_room(qtbot, qloop, desktop, agent, room: str) -> str:
    """``agent`` creates ``room`` with ``parler invite --group``; the window redeems the code."""
    out = run_coroutine(qtbot, qloop, agent.ok("invite", "--group", room))
    code = re.search(r"code:\s*(\S+)", out)
    assert code is not None, out
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(code[1]))
    qtbot.waitUntil(lambda: room in desktop.window.rooms.room_names(), timeout=10_000)
    return room


def refbot_in_open_room(qtbot, qloop, desktop, ref_agent, hub) -> tuple:
    """(agent, room): a reference agent "refbot" made room "team", the window redeemed its code
    and shows it, in front (what arrives there is read)."""
    agent = ref_agent(cli_url(hub.url), name="refbot")
    team = agent_room(qtbot, qloop, desktop, agent, "team")
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    return agent, team


def recv_lines(qtbot, qloop, agent, room: str) -> list[str]:
    out = run_coroutine(qtbot, qloop, agent.ok("recv", "--room", room, "--all"))
    return [line for line in out.splitlines() if line.startswith("[")]


def test_the_reference_agent_and_the_window_talk_both_ways_signed(qtbot, qloop, desktop, ref_agent, hub):
    agent, team = refbot_in_open_room(qtbot, qloop, desktop, ref_agent, hub)
    window = desktop.window
    model = window.timeline_model

    out = run_coroutine(qtbot, qloop, agent.ok("send", "--room", team, "hello from the reference agent"))
    seq = int(re.search(r"seq (\d+)", out)[1])
    qtbot.waitUntil(lambda: model.newest_seq == seq, timeout=10_000)  # live, in the open room
    shown = model.entry(model.rowCount() - 1)
    assert shown.text == "hello from the reference agent"
    assert shown.sender_id == agent.id and shown.sender_name == "refbot" and not shown.mine
    assert shown.signature is SignatureState.VALID  # the ✓ the row shows

    type_and_enter(qtbot, window, "hello from the window")
    qtbot.waitUntil(lambda: model.newest_seq > seq and model.entry(model.rowCount() - 1).seq is not None, timeout=10_000)
    lines = recv_lines(qtbot, qloop, agent, team)
    mine = [line for line in lines if line.endswith("hello from the window")]
    assert mine == [f"[{model.newest_seq}] boss (supervisor): hello from the window"], lines  # once, verified by the reference
    assert lines[0] == f"[{seq}] refbot: hello from the reference agent"


def test_the_reference_agents_presence_shows_in_the_members_list(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    team = agent_room(qtbot, qloop, desktop, agent, "team")
    click_room(qtbot, desktop, team)
    run_coroutine(qtbot, qloop, agent.ok("presence", "working", "--activity", "running the tests"))
    roster = desktop.window.roster

    def shown() -> tuple[str, str] | None:
        for row in range(roster.rowCount()):
            index = roster.index(row)
            if index.data(Qt.ItemDataRole.DisplayRole) == "refbot":
                return index.data(roles.MEMBER_STATUS), index.data(roles.MEMBER_ACTIVITY)
        return None

    def refreshed() -> bool:
        run_coroutine(qtbot, qloop, desktop.bridge.session.refresh_roster(team))  # what the periodic poll does
        return shown() == ("working", "running the tests")

    qtbot.waitUntil(refreshed, timeout=10_000)


def test_the_reference_cli_and_the_window_agree_on_each_signature(qtbot, qloop, desktop, ref_agent, peer, hub):
    """A signed message, one altered after signing and an unsigned one: the window marks them
    verified / invalid / unsigned, and ``parler recv`` prints no badge / ✗ UNVERIFIED / ⚠."""
    from test_journey_rendering import signed_send

    agent = ref_agent(cli_url(hub.url), name="refbot")
    team = agent_room(qtbot, qloop, desktop, agent, "team")
    code = re.search(r"code:\s*(\S+)", run_coroutine(qtbot, qloop, agent.ok("invite", "--group", team)))[1]
    run_coroutine(qtbot, qloop, peer.ok({"op": "redeem", "code": code}, "joined"))
    click_room(qtbot, desktop, team)
    signed = signed_send(qtbot, qloop, peer, team, "ship it")["seq"]
    altered = signed_send(qtbot, qloop, peer, team, "deploy to staging", tamper="deploy to prod")["seq"]
    unsigned = run_coroutine(qtbot, qloop, peer.ok(
        {"op": "send", "target": {"kind": "room", "room": team}, "parts": [{"kind": "text", "text": "no sig"}]}, "sent"))["seq"]
    model = desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.newest_seq == unsigned, timeout=10_000)
    marks = {model.entry(row).seq: model.entry(row).signature for row in range(model.rowCount())}
    assert marks == {signed: SignatureState.VALID, altered: SignatureState.INVALID, unsigned: SignatureState.UNSIGNED}
    assert recv_lines(qtbot, qloop, agent, team) == [
        f"[{signed}] alice (planner): ship it",
        f"[{altered}] ✗ UNVERIFIED alice (planner): deploy to prod",
        f"[{unsigned}] ⚠ alice (planner): no sig",
    ]


def test_the_reference_agent_joins_by_the_windows_invite_link_and_writes_to_it_directly(qtbot, qloop, desktop, ref_agent, hub):
    """The window mints an invite; ``parler join`` takes its link; then the agent posts in the
    room, pairs by the window's DM invite and sends it a DM (``parler send --to``): both show in
    the window."""
    agent = ref_agent(cli_url(hub.url), name="refbot")
    invited = run_coroutine(qtbot, qloop, desktop.bridge.session.invite("channel", "deploy"))
    joined = run_coroutine(qtbot, qloop, agent.run("join", "--passive", invited.url))
    assert joined.status == 0 and "deploy" in joined.stdout, joined
    window = desktop.window
    qtbot.waitUntil(lambda: invited.room in window.rooms.room_names(), timeout=10_000)
    click_room(qtbot, desktop, invited.room)
    model = window.timeline_model
    run_coroutine(qtbot, qloop, agent.ok("send", "--room", invited.room, "joined, on it"))
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).text == "joined, on it", timeout=10_000)
    assert model.entry(0).signature is SignatureState.VALID

    me = desktop.bridge.session.identity.agent_id  # the window has no directory card: pair by a DM invite
    paired = run_coroutine(qtbot, qloop, desktop.bridge.session.invite("dm"))
    run_coroutine(qtbot, qloop, agent.ok("join", "--passive", paired.code))
    run_coroutine(qtbot, qloop, agent.ok("send", "--to", me, "a word in private"))

    def dm_room() -> str | None:
        return next((name for name in window.rooms.room_names() if name not in (invited.room,)), None)

    qtbot.waitUntil(lambda: dm_room() is not None, timeout=10_000)
    click_room(qtbot, desktop, dm_room())
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).text == "a word in private", timeout=10_000)
    assert model.entry(0).sender_id == agent.id and model.entry(0).signature is SignatureState.VALID


def test_a_file_the_reference_agent_sends_shows_in_the_window_and_its_bytes_come_back(qtbot, qloop, desktop, ref_agent, hub, tmp_path):
    """``parler send-file --note``: the window's row holds the note and the file card (name,
    size, the blob's sha256), verified; the window fetches the same bytes back from the hub."""
    agent = ref_agent(cli_url(hub.url), name="refbot")
    team = agent_room(qtbot, qloop, desktop, agent, "team")
    click_room(qtbot, desktop, team)
    payload = bytes(range(256)) * 40 + b"the end\n"
    path = tmp_path / "build.log"
    path.write_bytes(payload)
    run_coroutine(qtbot, qloop, agent.ok("send-file", "--room", team, "--note", "the build log", str(path)))
    model = desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=10_000)
    shown = model.entry(0)
    assert shown.text == "the build log" and shown.signature is SignatureState.VALID
    card = next(part for part in shown.parts if part["kind"] == "com.parler.file")
    assert (card["name"], card["size"]) == ("build.log", len(payload))
    assert card["blob"] == hashlib.sha256(payload).hexdigest()
    saved = tmp_path / "saved.log"
    run_coroutine(qtbot, qloop, BlobSave(card["blob"], card["size"], saved).run(desktop.bridge.session, lambda _save: None))
    assert saved.read_bytes() == payload


def test_a_watching_reference_agent_gets_the_windows_post_as_it_is_sent(qtbot, qloop, desktop, ref_agent, hub):
    """``parler recv --watch`` (pushes): the composer's post is printed once, verified."""
    import asyncio

    agent = ref_agent(cli_url(hub.url), name="refbot")
    team = agent_room(qtbot, qloop, desktop, agent, "team")
    click_room(qtbot, desktop, team)
    watcher = run_coroutine(qtbot, qloop, agent.start("recv", "--room", team, "--watch"))

    async def next_message_line() -> str:
        while True:
            line = (await asyncio.wait_for(watcher.stdout.readline(), 15)).decode()
            assert line, "recv --watch ended"
            if line.startswith("["):
                return line.rstrip("\n")

    async def nothing_more() -> bool:
        try:
            await asyncio.wait_for(next_message_line(), 1.5)
        except (TimeoutError, asyncio.TimeoutError):
            return True
        return False

    async def subscribed() -> None:  # recv --watch says so on stderr once it has subscribed
        while True:
            line = (await asyncio.wait_for(watcher.stderr.readline(), 15)).decode()
            assert line, "recv --watch ended before it subscribed"
            if "watching" in line:
                return

    run_coroutine(qtbot, qloop, subscribed())
    type_and_enter(qtbot, desktop.window, "watch this")
    line = run_coroutine(qtbot, qloop, next_message_line())
    model = desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).seq is not None, timeout=10_000)
    assert line == f"[{model.entry(0).seq}] boss (supervisor): watch this"
    assert run_coroutine(qtbot, qloop, nothing_more())
    run_coroutine(qtbot, qloop, agent.stop())


def test_the_reference_cli_verifies_what_we_sign_with_numbers_in_a_data_part(qtbot, qloop, desktop, ref_agent, peer, hub):
    """The signed bytes of a data part hold its numbers as each side writes them: integers,
    fractions, negatives and exponents must come out the same in Python and in Rust."""
    agent = ref_agent(cli_url(hub.url), name="refbot")
    team = agent_room(qtbot, qloop, desktop, agent, "team")
    code = re.search(r"code:\s*(\S+)", run_coroutine(qtbot, qloop, agent.ok("invite", "--group", team)))[1]
    run_coroutine(qtbot, qloop, peer.ok({"op": "redeem", "code": code}, "joined"))
    data = {"kind": "data", "data": {"count": 3, "ratio": 1.5, "tenth": 0.1, "below": -7, "huge": 1e21, "tiny": 2.5e-7}}
    parts = list(sign_parts(peer.id, RoomTarget(team), [{"kind": "text", "text": "figures"}, data], None, peer.identity.sign))
    seq = run_coroutine(qtbot, qloop, peer.ok({"op": "send", "target": {"kind": "room", "room": team}, "parts": parts}, "sent"))["seq"]
    line = next(line for line in recv_lines(qtbot, qloop, agent, team) if line.startswith(f"[{seq}]"))
    assert "UNVERIFIED" not in line and "⚠" not in line, line
