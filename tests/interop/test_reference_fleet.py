"""Issue 43 items 4–6 with the reference agent CLI (``parler``), on our hub and the reference hub:
work dispatched from the window's *Dispatch to role…* is claimed and completed by ``parler
supervise --role``, each state shown in the window; a file the window sends is fetched
byte-identical by ``parler fetch``; a fact written with ``parler remember`` shows in the room's
memory panel."""

from __future__ import annotations

import hashlib
import os
import re

import pytest
from support.desktop_fixtures import open_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_journey_dispatch import dispatch_from_dialog, shown_states
from test_journey_memory import shown_facts
from test_reference_agent import agent_room, cli_url

pytestmark = pytest.mark.timeout(120)


def test_work_dispatched_from_the_window_is_claimed_and_completed_by_parler_supervise(qtbot, qloop, desktop, ref_agent, hub):
    window = desktop.window
    agent = ref_agent(cli_url(hub.url), name="rev")
    out = run_coroutine(qtbot, qloop, agent.ok("invite", "--service", "review"))
    code = re.search(r"code:\s*(\S+)", out)
    assert code is not None, out
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(code[1]))
    qtbot.waitUntil(lambda: "svc.review" in window.rooms.room_names(), timeout=10_000)
    open_room(qtbot, desktop, "svc.review")

    dispatch_from_dialog(qtbot, window, "say hello")
    qtbot.waitUntil(lambda: shown_states(window) == ["review: say hello — queued"], timeout=10_000)
    supervisor = run_coroutine(qtbot, qloop, agent.start("supervise", "--role", "review", "--runner", "cat", "--once"))
    _, stderr = run_coroutine(qtbot, qloop, supervisor.communicate(), timeout=60)
    assert supervisor.returncode == 0, stderr
    # supervise runs as an identity of its own, made for the working directory on first launch
    # (the reference scopes supervise, work and mcp per workspace), not as rev who made the room
    made = re.search(r"initialized new agent (\S+) \((U[A-Z2-7]{55})\)", stderr.decode())
    assert made and made[2] != agent.id, stderr
    qtbot.waitUntil(lambda: shown_states(window) == [f"review: say hello — done by {made[1]}"], timeout=10_000)
    assert [step.state for step in window.dispatch.model.work(0).steps] == ["queued", "claimed", "working", "done"]


def test_a_file_the_window_sends_is_fetched_byte_identical_by_parler_fetch(qtbot, qloop, desktop, ref_agent, hub, tmp_path):
    window = desktop.window
    agent = ref_agent(cli_url(hub.url), name="refbot")
    open_room(qtbot, desktop, agent_room(qtbot, qloop, desktop, agent, "team"))
    data = os.urandom(3 * 1024 * 1024 + 1)
    (tmp_path / "report.bin").write_bytes(data)
    posted: list[str] = []
    window.uploads.statusMessage.connect(posted.append)
    window.uploads.send_files([str(tmp_path / "report.bin")])
    qtbot.waitUntil(lambda: bool(posted), timeout=30_000)
    fetched = tmp_path / "fetched.bin"
    run_coroutine(qtbot, qloop, agent.ok("fetch", hashlib.sha256(data).hexdigest(), "-o", str(fetched)))
    assert fetched.read_bytes() == data


def test_a_fact_written_with_parler_remember_shows_in_the_rooms_memory(qtbot, qloop, desktop, ref_agent, hub):
    window = desktop.window
    agent = ref_agent(cli_url(hub.url), name="refbot")
    room = agent_room(qtbot, qloop, desktop, agent, "team")
    open_room(qtbot, desktop, room)
    run_coroutine(qtbot, qloop, agent.ok("remember", "--key", "deploy-target", "--room", room, "staging-2"))
    panel = window.memory.open_panel()
    qtbot.keyClicks(panel.search, "deploy-target")
    qtbot.waitUntil(lambda: shown_facts(panel) == ["deploy-target: staging-2 — refbot"], timeout=10_000)
