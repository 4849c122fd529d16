"""Hub → Connect your agents…: the one command that wires this machine's agents to the hub this
window watches, a way to run it without a terminal, and who dials in afterwards.

Non-modal (``open()``, signals, no nested event loop). ``parler`` runs in a QProcess with its
arguments as a list, never through a shell, and its output is shown as it arrives. The hub pushes
no presence, so while the dialog is open it polls: the hub's directory (``discover``, hub scope),
where the reference MCP server publishes a card for its agent as it connects, and the rosters of
the window's rooms, for agents without a card. Everything from the wire or the program is shown
as plain text.
"""

from __future__ import annotations

import codecs
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QProcess, QTimer
from PySide6.QtGui import QCloseEvent, QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from parler_desktop.app.display_text import one_line
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed

PROGRAM = "parler"
INSTALL_HINT = (
    "The parler command is not on your PATH: install it from "
    "https://github.com/tamdogood/parler-protocol, then reopen this dialog."
)
POLL_MS = 5000  # how often the directory and the rosters are asked while the dialog is open
MAX_POLLED_ROOMS = 6  # with POLL_MS and the directory, ~84 of the hub's 600 ops a minute per agent
ROSTER_FAILURES = (BadReply, ConnectionLost, HubRefused, SessionClosed, TimeoutError)


def connect_arguments(hub_url: str, join_secret: str | None) -> list[str]:
    """The arguments of ``parler connect`` for this hub (the secret only when the hub needs one)."""
    arguments = ["connect", "--hub", hub_url]
    if join_secret:
        arguments += ["--join-secret", join_secret]
    return arguments



@dataclass
class Arrival:
    name: str
    status: str
    rooms: set[str] = field(default_factory=set)  # the window's rooms it was seen online in


class ArrivalTracker:
    """Who dialed in to the hub since the dialog opened.

    The directory: the first answer to ``discover`` is the baseline; an agent listed later that was
    not in it, or whose ``lastSeen`` (the time of its latest handshake) has moved on since, has
    dialed in. Both hubs list every card hub-wide, most recently connected first.

    The rosters, for agents without a card: the first roster of a room the window already had is
    the baseline (those members were there before); a member online later who was not online in it
    is an arrival. In a room joined since, every online member other than the window itself counts.

    An arrival's status follows whichever source spoke last; its rooms are those of the window's
    rooms it has been seen online in. The members online in a baseline roster are listed too,
    after the arrivals (``present``: online before the dialog opened, while they stay online): a
    list that said "No one yet." beside agents at work read as if none could be reached.
    """

    def __init__(self, own_id: str, rooms_at_open: Sequence[str]) -> None:
        self._own_id = own_id
        self._rooms_at_open = set(rooms_at_open)
        self._baseline: dict[str, set[str]] = {}
        self.directory_baseline: dict[str, int] | None = None  # id -> lastSeen in the first answer
        self.arrivals: dict[str, Arrival] = {}  # id -> arrival, in arrival order
        self.present: dict[str, Arrival] = {}  # id -> online in a room's baseline roster (and still)

    def observe_directory(self, entries: Sequence[Any]) -> bool:
        """A ``discover`` answer (DirectoryEntry values); True when the arrivals changed."""
        listed = {entry.card.id: entry for entry in entries if entry.card.id != self._own_id}
        baseline = self.directory_baseline
        if baseline is None:
            self.directory_baseline = {agent_id: entry.last_seen for agent_id, entry in listed.items()}
        changed = False
        for agent_id, entry in listed.items():
            name, status = one_line(entry.card.name), one_line(entry.status)
            known = self.arrivals.get(agent_id)
            if known is None:
                if baseline is None or (agent_id in baseline and entry.last_seen <= baseline[agent_id]):
                    continue  # there before the dialog opened, and not dialed in again since
                self.arrivals[agent_id] = Arrival(name, status)
                changed = True
            elif (known.name, known.status) != (name, status):  # the card names it
                known.name, known.status = name, status
                changed = True
        return changed

    def observe(self, room: str, entries: Sequence[Any]) -> bool:
        """A room's roster; True when the arrivals changed."""
        others = [entry for entry in entries if entry.id != self._own_id]
        online = {entry.id for entry in others if (entry.status or "offline") != "offline"}
        if room not in self._baseline:
            self._baseline[room] = set(online) if room in self._rooms_at_open else set()
        changed = self._observe_present(room, others, online)
        for entry in others:
            status = one_line(entry.status or "offline")
            known = self.arrivals.get(entry.id)
            if known is None:
                if entry.id not in online or entry.id in self._baseline[room]:
                    continue
                self.arrivals[entry.id] = known = Arrival(one_line(entry.name), status)
                changed = True
            elif known.status != status:
                known.status = status
                changed = True
            if entry.id in online and room not in known.rooms:
                known.rooms.add(room)
                changed = True
        return changed

    def _observe_present(self, room: str, others: Sequence[Any], online: set[str]) -> bool:
        """Follow the members of ``room``'s baseline that are online: listed while they stay so."""
        changed = False
        for entry in others:
            if entry.id in self.arrivals or entry.id not in self._baseline[room]:
                continue
            known = self.present.get(entry.id)
            if entry.id in online:
                status = one_line(entry.status)
                if known is None:
                    self.present[entry.id] = known = Arrival(one_line(entry.name), status)
                    changed = True
                elif known.status != status:
                    known.status = status
                    changed = True
                if room not in known.rooms:
                    known.rooms.add(room)
                    changed = True
            elif known is not None and room in known.rooms:
                known.rooms.discard(room)
                if not known.rooms:
                    del self.present[entry.id]
                changed = True
        return changed

    def lines(self) -> list[str]:
        """One plain-text line per agent: name, id prefix, status and rooms; the arrivals first,
        then those online before the dialog opened."""
        shown = [_line(agent_id, arrival) for agent_id, arrival in self.arrivals.items()]
        shown += [
            f"{_line(agent_id, present)} — online before this opened"
            for agent_id, present in self.present.items() if agent_id not in self.arrivals
        ]
        return shown


def _line(agent_id: str, arrival: Arrival) -> str:
    line = f"{arrival.name or '(no name)'} ({one_line(agent_id)[:8]}…) — {arrival.status}"
    if arrival.rooms:
        line += f" — in {', '.join(sorted(one_line(room) for room in arrival.rooms))}"
    return line


class ConnectAgentsDialog(QDialog):
    """The command, Copy, Run it (when ``parler`` is installed), its output, and the arrivals."""

    def __init__(
        self,
        bridge: SessionBridge,
        join_secret: str | None,
        room_names: Callable[[], Sequence[str]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect your agents")
        self.setModal(False)
        self.resize(640, 520)
        self._bridge = bridge
        self._room_names = room_names
        self.hub_url = bridge.hub_url
        self.arguments = connect_arguments(self.hub_url, join_secret)
        self.program = shutil.which(PROGRAM)
        self.tracker = ArrivalTracker(bridge.agent_id if bridge.session is not None else "", room_names())
        self._polling = False
        self._directory_refused = False  # a hub without discover: the rosters still serve

        intro = QLabel("Run this once on each machine whose agents (Claude Code, Codex, Cursor, …) should join this hub:")
        intro.setWordWrap(True)
        self.command = QLineEdit(shlex.join([PROGRAM, *self.arguments]))
        self.command.setReadOnly(True)
        self.command.setAccessibleName("Command to run")
        self.copy_button = QPushButton("Copy")
        self.copy_button.clicked.connect(self.copy_command)
        row = QHBoxLayout()
        row.addWidget(self.command, 1)
        row.addWidget(self.copy_button)

        self.run_button = QPushButton("Run it")
        self.run_button.setEnabled(self.program is not None)
        self.run_button.clicked.connect(self.run_command)
        self.status = QLabel("" if self.program is not None else INSTALL_HINT)
        self.status.setWordWrap(True)
        self.output = QPlainTextEdit(readOnly=True, accessibleName="Output of parler connect")
        self.output.setPlaceholderText("The output of parler connect appears here.")
        self.output.setMaximumBlockCount(5000)

        arrivals_label = QLabel(
            f"Agents that dialed in to this hub since this opened, then those already online in your rooms (the "
            f"hub's directory and the rosters of up to {MAX_POLLED_ROOMS} of your rooms are asked every "
            f"{POLL_MS // 1000} s; an agent without a directory card shows once it is online in one of your rooms):"
        )
        arrivals_label.setWordWrap(True)
        self.arrivals = QListWidget(accessibleName="Agents that dialed in")
        self.arrivals.addItem("No one yet.")

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(row)
        layout.addWidget(self.run_button)
        layout.addWidget(self.status)
        layout.addWidget(self.output, 1)
        layout.addWidget(arrivals_label)
        layout.addWidget(self.arrivals, 1)
        layout.addWidget(buttons)

        self.process = QProcess(self)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # a character may span two reads
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        self.process.readyReadStandardOutput.connect(self._read_output)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._failed)

        bridge.rosterChanged.connect(self._roster_changed)
        bridge.sessionChanged.connect(self.reject)  # the command names the hub of the session it opened on
        self.timer = QTimer(self, interval=POLL_MS)
        self.timer.timeout.connect(self._poll)
        self.timer.start()
        self._poll()
        self._stopped = False
        self.finished.connect(self._stop)

    def copy_command(self) -> None:
        QGuiApplication.clipboard().setText(self.command.text())

    def run_command(self) -> None:
        """Start ``parler connect`` (no shell; the output streams into the box)."""
        if self.program is None or self.process.state() != QProcess.ProcessState.NotRunning:
            return
        self.output.clear()
        self._decoder.reset()
        self.status.setText("Running…")
        self.run_button.setEnabled(False)
        self.process.start(self.program, self.arguments)

    def _read_output(self) -> None:
        text = self._decoder.decode(bytes(self.process.readAllStandardOutput().data()))
        self.output.moveCursor(QTextCursor.MoveOperation.End)
        self.output.insertPlainText(text)
        self.output.moveCursor(QTextCursor.MoveOperation.End)

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read_output()
        self.output.insertPlainText(self._decoder.decode(b"", final=True))
        if status == QProcess.ExitStatus.CrashExit:
            self.status.setText("parler connect stopped before it finished.")
        elif code == 0:
            self.status.setText("parler connect finished (exit status 0): restart your agents and they dial in.")
        else:
            self.status.setText(f"parler connect failed with exit status {code}; its output is above.")
        self.run_button.setEnabled(self.program is not None)

    def _failed(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.status.setText(f"Could not start parler: {self.process.errorString()}")
            self.run_button.setEnabled(self.program is not None)

    def _poll(self) -> None:
        if self._polling or self._bridge.session is None or not self._bridge.is_live:
            return
        self._polling = True
        self._bridge.tasks.spawn("agent arrivals", self._refresh(list(self._room_names())[:MAX_POLLED_ROOMS]))

    async def _refresh(self, rooms: list[str]) -> None:
        try:
            await self._ask_directory()
            for room in rooms:
                try:
                    await self._bridge.refresh_roster(room)  # arrives as rosterChanged
                except ROSTER_FAILURES:
                    continue
        finally:
            self._polling = False

    async def _ask_directory(self) -> None:
        session = self._bridge.session
        if session is None or self._directory_refused:
            return
        try:
            entries = await session.discover("hub")
        except HubRefused as refused:
            self._directory_refused = not refused.is_transient
            return
        except ROSTER_FAILURES:
            return
        if shiboken6.isValid(self) and session is self._bridge.session and self.tracker.observe_directory(entries):
            self._show_arrivals()

    def _roster_changed(self, room: str, entries: Sequence[Any]) -> None:
        if self.tracker.observe(room, entries):
            self._show_arrivals()

    def _show_arrivals(self) -> None:
        """Plain-text items (a QListWidgetItem never reads its text as markup)."""
        self.arrivals.clear()
        self.arrivals.addItems(self.tracker.lines() or ["No one yet."])

    def _stop(self) -> None:
        """Closed: no more polls, and a still-running parler is ended. Runs once, though both
        ``finished`` and the close event ask (a second disconnect made PySide warn)."""
        if self._stopped:
            return
        self._stopped = True
        self.timer.stop()
        self._bridge.rosterChanged.disconnect(self._roster_changed)
        self._bridge.sessionChanged.disconnect(self.reject)
        if self.process.parent() is self and self.process.state() != QProcess.ProcessState.NotRunning:
            # Killed without waiting on the UI thread: the process object outlives the dialog
            # until it has reaped the program, then goes.
            self.process.readyReadStandardOutput.disconnect(self._read_output)
            self.process.finished.disconnect(self._finished)
            self.process.errorOccurred.disconnect(self._failed)
            self.process.setParent(QCoreApplication.instance())
            self.process.finished.connect(self.process.deleteLater)
            self.process.kill()

    def closeEvent(self, event: QCloseEvent) -> None:
        self._stop()
        super().closeEvent(event)
