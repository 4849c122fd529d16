"""Hub → Connect your agents… on our hub and the reference hub: reference agents in none of the
window's rooms show as they dial in, from the hub's directory (``discover``, hub scope) — one that
ran ``parler register``, and one started the way ``parler connect`` wires Claude Code or Codex
(``parler mcp`` with ``PARLER_HUB`` and ``PARLER_NAME``), which publishes its card as it connects."""

from __future__ import annotations

import re

import pytest
from support.desktop_fixtures import join_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_ui_connect_agents import listed, open_dialog

pytestmark = pytest.mark.timeout(90)


def test_reference_agents_show_in_the_connect_dialog_as_they_dial_in(qtbot, qloop, desktop, hub, peer, ref_agent, monkeypatch):
    monkeypatch.setattr("parler_desktop.ui.dialogs.connect_agents_dialog.POLL_MS", 300)
    room = join_room(qtbot, qloop, desktop, peer, "team")  # the window has a room; the agents never join it
    dialog = open_dialog(qtbot, desktop)
    qtbot.waitUntil(lambda: dialog.tracker.directory_baseline is not None and room in dialog.tracker._baseline, timeout=10_000)

    alice = f"alice ({peer.id[:8]}…) — idle — in {room} — online before this opened"  # not an arrival
    qtbot.waitUntil(lambda: listed(dialog) == [alice], timeout=10_000)

    cli = ref_agent(hub.url, "refbot")
    assert "registered in the directory" in run_coroutine(qtbot, qloop, cli.ok("register", "--tag", "planning"))
    qtbot.waitUntil(lambda: listed(dialog) == [f"refbot ({cli.id[:8]}…) — idle", alice], timeout=15_000)

    mcp = ref_agent(hub.url, "unused")  # parler mcp makes an identity of its own on first launch
    mcp.env = {**mcp.env, "PARLER_HUB": hub.url, "PARLER_NAME": "claude-code"}
    ran = run_coroutine(qtbot, qloop, mcp.run("mcp"))  # stdin at its end: it connects, registers, exits
    assert ran.status == 0, ran
    made = re.search(r"initialized new agent claude-code \((U[A-Z2-7]{55})\)", ran.stderr)
    assert made, ran.stderr
    mcp_line = f"claude-code ({made.group(1)[:8]}…) — idle"
    qtbot.waitUntil(lambda: mcp_line in listed(dialog), timeout=15_000)
    assert listed(dialog) == [f"refbot ({cli.id[:8]}…) — idle", mcp_line, alice]  # the arrivals first; not the window
