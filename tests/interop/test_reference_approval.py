"""Invites that need the owner's approval, between the window and the reference ``parler`` CLI,
on our hub and on the reference hub.

- The window owns the room: the person makes an invite with approval (Hub → Invite agents with
  approval…); ``parler join CODE`` is told it is pending (it does not wait: it exits 1); the
  window lists the request (Hub → Join requests…) and the person approves it with a click (then
  the agent is a member: ``parler join`` again, ``rooms``, ``roster``, its ``send`` shows live) or
  denies it (``parler join`` says denied, ``rooms`` has no room, ``send`` is refused).
- The agent owns the room: ``parler invite --group NAME --require-approval``; the person joins
  with the code (Hub → Join with a code…) and is told it waits; the agent approves (or denies)
  with the reference CLI's own ``parler session approve|deny --room NAME <id>`` (hidden from
  ``parler --help``, printed by ``parler invite --require-approval``), after listing the window's
  request with ``parler session requests --room NAME --json``; the window then opens the room
  with its history (or says it was turned away).
"""

from __future__ import annotations

import json
import re

import pytest
from PySide6.QtWidgets import QMessageBox
from support.desktop_fixtures import activate
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_journey_approval import answer, close, invite_with_approval, join_with_code, members_shown, ok, open_join_requests, shown_box
from test_reference_agent import cli_url, recv_lines
from test_window import type_and_enter

from parler_desktop.protocol.values import SignatureState

pytestmark = pytest.mark.timeout(90)

PENDING = "error: join request for 'gated' is pending the host's approval"


def agent_asks_to_join(qtbot, qloop, agent, code: str) -> None:
    """``parler join`` of a code that needs approval: it exits 1 and says it is pending."""
    asked = run_coroutine(qtbot, qloop, agent.run("join", "--passive", code))
    assert (asked.status, asked.stdout, asked.stderr.strip()) == (1, "", PENDING), asked


def test_the_window_approves_the_reference_agents_join_request(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    window = desktop.window
    code = invite_with_approval(qtbot, window, "gated")
    agent_asks_to_join(qtbot, qloop, agent, code)
    assert "gated" not in run_coroutine(qtbot, qloop, agent.ok("rooms"))

    dialog = open_join_requests(qtbot, window)
    qtbot.waitUntil(lambda: dialog.list.count() == 1, timeout=10_000)
    assert dialog.list.item(0).text() == f"refbot — {agent.id}" and dialog.status.text() == "1 waiting to join gated:"
    answer(qtbot, dialog, agent.id, approve=True)
    assert dialog.status.text() == "refbot is now a member of gated.\nNobody is waiting to join gated."
    close(qtbot, dialog)

    joined = run_coroutine(qtbot, qloop, agent.ok("join", "--passive", code))
    assert joined.splitlines()[0] == "✓ joined channel room 'gated'", joined
    assert "#gated  [channel]  2 member(s)" in run_coroutine(qtbot, qloop, agent.ok("rooms")).splitlines()
    roster = run_coroutine(qtbot, qloop, agent.ok("roster", "--room", "gated"))
    assert f"refbot {agent.id}" in roster and f"boss {desktop.bridge.agent_id}" in roster, roster
    qtbot.waitUntil(lambda: "refbot" in members_shown(window), timeout=10_000)

    activate(qtbot, desktop)
    model = window.timeline_model
    out = run_coroutine(qtbot, qloop, agent.ok("send", "--room", "gated", "approved, on it"))
    seq = int(re.search(r"seq (\d+)", out)[1])
    qtbot.waitUntil(lambda: model.newest_seq == seq, timeout=10_000)  # live, in the open room
    shown = model.entry(model.rowCount() - 1)
    assert (shown.text, shown.sender_name, shown.signature) == ("approved, on it", "refbot", SignatureState.VALID)
    type_and_enter(qtbot, window, "welcome")
    qtbot.waitUntil(lambda: model.newest_seq > seq and model.entry(model.rowCount() - 1).seq is not None, timeout=10_000)
    assert recv_lines(qtbot, qloop, agent, "gated") == [
        f"[{seq}] refbot: approved, on it",
        f"[{model.newest_seq}] boss (supervisor): welcome",
    ]


def test_the_window_denies_the_reference_agents_join_request(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    window = desktop.window
    code = invite_with_approval(qtbot, window, "gated")
    agent_asks_to_join(qtbot, qloop, agent, code)
    dialog = open_join_requests(qtbot, window)
    answer(qtbot, dialog, agent.id, approve=False)
    assert dialog.status.text() == "refbot was turned away.\nNobody is waiting to join gated."
    close(qtbot, dialog)

    denied = run_coroutine(qtbot, qloop, agent.run("join", "--passive", code))
    assert (denied.status, denied.stderr.strip()) == (1, "error: your request to join was denied by the host"), denied
    assert "gated" not in run_coroutine(qtbot, qloop, agent.ok("rooms"))
    refused = run_coroutine(qtbot, qloop, agent.run("send", "--room", "gated", "let me in"))
    assert (refused.status, refused.stderr.strip()) == (1, "error: not a member of 'gated'"), refused
    assert members_shown(window) == ["boss"]


def agent_gated_room(qtbot, qloop, agent) -> str:
    """``parler invite --group gated --require-approval``: its code."""
    out = run_coroutine(qtbot, qloop, agent.ok("invite", "--group", "gated", "--require-approval"))
    assert "Redeemers must be approved by you first" in out, out
    return re.search(r"code:\s*(\S+)", out)[1]


def window_asks_to_join(qtbot, qloop, desktop, agent, code: str) -> None:
    """The person joins with the code and is told it waits; the agent sees the request."""
    window = desktop.window
    join_with_code(qtbot, window, code)
    ok(qtbot, shown_box(qtbot, window, "roomActionMessage", "The owner of gated has to approve you first."))
    assert "gated" not in window.rooms.room_names()
    listed = json.loads(run_coroutine(qtbot, qloop, agent.ok("session", "requests", "--room", "gated", "--json")))
    assert listed["room"] == "gated"
    assert [(r["agent"], r["name"], r.get("role")) for r in listed["requests"]] == [(desktop.bridge.agent_id, "boss", "supervisor")]


def test_the_reference_agent_approves_the_windows_join_request(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    code = agent_gated_room(qtbot, qloop, agent)
    before = run_coroutine(qtbot, qloop, agent.ok("send", "--room", "gated", "before you came"))
    before_seq = int(re.search(r"seq (\d+)", before)[1])
    window_asks_to_join(qtbot, qloop, desktop, agent, code)

    me = desktop.bridge.agent_id
    approved = run_coroutine(qtbot, qloop, agent.ok("session", "approve", "--room", "gated", me))
    assert approved.startswith(f"✓ approved {me} into 'gated'"), approved
    window = desktop.window
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.room == "gated" and model.rowCount() == 1, timeout=15_000)  # opened, with its history
    shown = model.entry(0)
    assert (shown.seq, shown.text, shown.sender_name, shown.signature) == (before_seq, "before you came", "refbot", SignatureState.VALID)
    ok(qtbot, shown_box(qtbot, window, "roomActionMessage", "The owner approved you: you are now a member of gated."))

    activate(qtbot, desktop)
    out = run_coroutine(qtbot, qloop, agent.ok("send", "--room", "gated", "and now"))
    seq = int(re.search(r"seq (\d+)", out)[1])
    qtbot.waitUntil(lambda: model.newest_seq == seq, timeout=10_000)  # live
    type_and_enter(qtbot, window, "thanks for letting me in")
    qtbot.waitUntil(lambda: model.newest_seq > seq and model.entry(model.rowCount() - 1).seq is not None, timeout=10_000)
    lines = recv_lines(qtbot, qloop, agent, "gated")
    assert lines == [
        f"[{before_seq}] refbot: before you came",
        f"[{seq}] refbot: and now",
        f"[{model.newest_seq}] boss (supervisor): thanks for letting me in",
    ]
    roster = run_coroutine(qtbot, qloop, agent.ok("roster", "--room", "gated"))
    assert f"boss {me}" in roster, roster


def test_the_reference_agent_denies_the_windows_join_request(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    code = agent_gated_room(qtbot, qloop, agent)
    window_asks_to_join(qtbot, qloop, desktop, agent, code)
    me = desktop.bridge.agent_id
    denied = run_coroutine(qtbot, qloop, agent.ok("session", "deny", "--room", "gated", me))
    assert denied.strip() == f"✓ denied {me}'s request to join 'gated'.", denied
    window = desktop.window
    box = shown_box(qtbot, window, "roomActionMessage", "denied")
    assert (box.windowTitle(), box.text(), box.icon()) == (
        "Not admitted to gated", "Your request to join was denied by the host.", QMessageBox.Icon.Critical)
    ok(qtbot, box)
    assert "gated" not in window.rooms.room_names()
    assert "(no agents waiting to join 'gated')" in run_coroutine(qtbot, qloop, agent.ok("session", "requests", "--room", "gated"))
