"""Hub → Connect your agents…: the command for the window's hub, Run it (a fake or the reference
``parler`` on PATH), and the agents that dial in: hub-wide from the directory (``discover``), and
in the window's rooms from their rosters."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox

from parler_desktop.identity import Identity
from parler_desktop.ui.dialogs.connect_agents_dialog import INSTALL_HINT, ConnectAgentsDialog
from support.desktop_fixtures import join_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from support.os_needs import linux_proc, posix_shell

REFERENCE_CLI = os.environ.get("PARLER_REFERENCE_CLI", "")

pytestmark = pytest.mark.timeout(60)


def open_dialog(qtbot, desktop) -> ConnectAgentsDialog:
    desktop.window.connect_agents_action.trigger()
    qtbot.waitUntil(lambda: desktop.window.findChild(ConnectAgentsDialog) is not None, timeout=5000)
    dialog = desktop.window.findChild(ConnectAgentsDialog)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    return dialog


def listed(dialog: ConnectAgentsDialog) -> list[str]:
    return [dialog.arrivals.item(i).text() for i in range(dialog.arrivals.count())]


async def register_card(agent: RawAgent, name: str) -> dict:
    """Publish a signed private card, as the reference MCP server does as it connects."""
    return await agent.register(name)


def put_on_path(monkeypatch, folder: Path, program: Path) -> None:
    folder.mkdir(exist_ok=True)
    target = folder / "parler"
    if program != target:
        target.symlink_to(program)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")


def fake_parler(monkeypatch, tmp_path: Path, script: str) -> None:
    fake = tmp_path / "bin" / "parler"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    put_on_path(monkeypatch, fake.parent, fake)


def test_the_menu_shows_the_command_for_this_hub(qtbot, desktop, hub, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no parler anywhere
    monkeypatch.delenv("PARLER_JOIN_SECRET", raising=False)
    dialog = open_dialog(qtbot, desktop)
    assert dialog.command.text() == f"parler connect --hub {hub.url}"
    assert dialog.command.isReadOnly() and "--join-secret" not in dialog.command.text()
    assert not dialog.run_button.isEnabled() and dialog.status.text() == INSTALL_HINT
    dialog.copy_button.click()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == dialog.command.text()


def test_a_join_secret_the_window_presents_is_in_the_command(qtbot, desktop, hub, monkeypatch):
    monkeypatch.setenv("PARLER_JOIN_SECRET", "s3cret word")
    dialog = open_dialog(qtbot, desktop)
    assert dialog.arguments == ["connect", "--hub", hub.url, "--join-secret", "s3cret word"]
    assert dialog.command.text().endswith("--join-secret 's3cret word'")


@posix_shell
def test_run_it_streams_the_output_and_says_how_it_ended(qtbot, desktop, hub, monkeypatch, tmp_path):
    fake_parler(monkeypatch, tmp_path, 'echo "wired: $*"\necho "a warning" >&2\nexit 0')
    dialog = open_dialog(qtbot, desktop)
    assert dialog.run_button.isEnabled()
    QTest.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "exit status 0" in dialog.status.text(), timeout=5000)
    assert f"wired: connect --hub {hub.url}" in dialog.output.toPlainText()
    assert "a warning" in dialog.output.toPlainText() and dialog.output.isReadOnly()
    assert dialog.run_button.isEnabled()


def test_an_agent_that_dials_in_shows_among_the_arrivals(qtbot, qloop, desktop, hub, peer, monkeypatch):
    monkeypatch.setattr("parler_desktop.ui.dialogs.connect_agents_dialog.POLL_MS", 300)
    room = join_room(qtbot, qloop, desktop, peer, "team")
    dialog = open_dialog(qtbot, desktop)
    qtbot.waitUntil(lambda: room in dialog.tracker._baseline, timeout=5000)  # alice was here before
    agent = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="codex\u202e"))
    try:
        invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": room}, "invited"))
        run_coroutine(qtbot, qloop, agent.ok({"op": "redeem", "code": invited["code"]}, "joined"))
        qtbot.waitUntil(lambda: any(line.startswith("codex") for line in listed(dialog)), timeout=10_000)
        # No card, so from the roster; the override is shown as such; alice is not new, and listed after
        assert listed(dialog) == [
            f"codex\ufffd ({agent.id[:8]}…) — idle — in {room}",
            f"alice ({peer.id[:8]}…) — idle — in {room} — online before this opened",
        ]
    finally:
        run_coroutine(qtbot, qloop, agent.close())


def test_an_agent_in_none_of_the_windows_rooms_shows_once_it_publishes_a_card(qtbot, qloop, desktop, hub, peer, monkeypatch):
    """What the reference MCP server does as it connects (auto_register): the dialog hears of it
    from the hub's directory, not from any roster. A card from before the dialog opened is not an
    arrival; markup and line breaks in a name are shown as the characters they are."""
    monkeypatch.setattr("parler_desktop.ui.dialogs.connect_agents_dialog.POLL_MS", 300)
    room = join_room(qtbot, qloop, desktop, peer, "team")  # the window has a room; the agent never joins it
    run_coroutine(qtbot, qloop, register_card(peer, "alice"))  # carded before: the baseline
    dialog = open_dialog(qtbot, desktop)
    qtbot.waitUntil(lambda: dialog.tracker.directory_baseline is not None and room in dialog.tracker._baseline, timeout=5000)
    assert peer.id in dialog.tracker.directory_baseline
    name = "claude\u202e <b>code</b>\nsecond line"
    agent = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="claude"))
    try:
        run_coroutine(qtbot, qloop, register_card(agent, name))
        qtbot.waitUntil(lambda: any(line.startswith("claude") for line in listed(dialog)), timeout=10_000)
        assert listed(dialog)[0] == f"claude\ufffd <b>code</b> second line ({agent.id[:8]}…) — idle"
        rooms = run_coroutine(qtbot, qloop, agent.ok({"op": "rooms"}, "rooms"))["rooms"]
        assert rooms == []  # it is in none of the window's rooms
    finally:
        run_coroutine(qtbot, qloop, agent.close())
    QTest.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog), timeout=5000)


def test_a_carded_agent_that_dials_in_again_shows_with_its_status(qtbot, qloop, desktop, hub, monkeypatch):
    """An agent whose card the hub already had is an arrival once it connects again (its
    lastSeen moves on); its status follows its presence."""
    monkeypatch.setattr("parler_desktop.ui.dialogs.connect_agents_dialog.POLL_MS", 300)
    identity = Identity.generate()
    first = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity, name="codex"))
    run_coroutine(qtbot, qloop, register_card(first, "codex"))
    run_coroutine(qtbot, qloop, first.close())
    dialog = open_dialog(qtbot, desktop)
    qtbot.waitUntil(lambda: dialog.tracker.directory_baseline is not None, timeout=5000)
    assert identity.agent_id in dialog.tracker.directory_baseline and listed(dialog) == ["No one yet."]
    again = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity, name="codex"))
    try:
        qtbot.waitUntil(lambda: listed(dialog) == [f"codex ({identity.agent_id[:8]}…) — idle"], timeout=10_000)
        run_coroutine(qtbot, qloop, again.ok({"op": "presence", "status": "working"}, "presence_ok"))
        qtbot.waitUntil(lambda: listed(dialog) == [f"codex ({identity.agent_id[:8]}…) — working"], timeout=10_000)
    finally:
        run_coroutine(qtbot, qloop, again.close())


def test_the_dialog_closes_when_the_window_changes_session(qtbot, qloop, desktop, hub):
    dialog = open_dialog(qtbot, desktop)
    run_coroutine(qtbot, qloop, desktop.connect(hub.url))  # e.g. Connect… to another hub
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog) or not dialog.isVisible(), timeout=5000)


@pytest.mark.skipif(not REFERENCE_CLI, reason="PARLER_REFERENCE_CLI is not set (the path of the reference parler)")
def test_the_reference_cli_prints_its_snippet_in_the_box(qtbot, desktop, hub, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "agent-home"))
    (tmp_path / "agent-home").mkdir()
    put_on_path(monkeypatch, tmp_path / "bin", Path(REFERENCE_CLI).resolve())
    dialog = open_dialog(qtbot, desktop)
    dialog.arguments = [*dialog.arguments, "--print"]  # write nothing, even to the temporary home
    QTest.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "exit status" in dialog.status.text(), timeout=20_000)
    assert "exit status 0" in dialog.status.text(), dialog.output.toPlainText()
    assert hub.url in dialog.output.toPlainText() and "mcpServers" in dialog.output.toPlainText()


@posix_shell
def test_a_character_split_between_two_reads_is_shown_whole(qtbot, desktop, monkeypatch, tmp_path):
    fake_parler(monkeypatch, tmp_path, r"printf '\342\206'; sleep 0.3; printf '\222 wired\n'")  # "→" in two writes
    dialog = open_dialog(qtbot, desktop)
    QTest.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "exit status 0" in dialog.status.text(), timeout=5000)
    assert dialog.output.toPlainText() == "→ wired\n"


@linux_proc
@posix_shell
def test_closing_the_dialog_ends_a_running_parler(qtbot, desktop, monkeypatch, tmp_path):
    fake_parler(monkeypatch, tmp_path, "exec sleep 60")
    dialog = open_dialog(qtbot, desktop)
    QTest.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.process.processId() > 0, timeout=5000)
    pid = dialog.process.processId()
    QTest.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not Path(f"/proc/{pid}").exists(), timeout=5000)  # killed and reaped


def test_agents_already_online_in_the_windows_rooms_are_listed_too(qtbot, qloop, desktop, hub, peer, monkeypatch):
    """Issue 46: the list said "No one yet." while alice was online in the window's room."""
    monkeypatch.setattr("parler_desktop.ui.dialogs.connect_agents_dialog.POLL_MS", 300)
    room = join_room(qtbot, qloop, desktop, peer, "team")
    dialog = open_dialog(qtbot, desktop)
    qtbot.waitUntil(lambda: listed(dialog) != ["No one yet."], timeout=10_000)
    assert listed(dialog) == [f"alice ({peer.id[:8]}…) — idle — in {room} — online before this opened"]
