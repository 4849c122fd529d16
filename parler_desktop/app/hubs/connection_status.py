"""What the connection-state bar says, derived from the session's StateChanged events.

A healthy connection that blips (a reconnect that succeeds within a second) must not flash, so
a non-terminal degraded state is held back for ``DEBOUNCE_SECS`` after the connection was live;
terminal states (offline, credentials rejected, stopped) show at once. The reconnect countdown
is recomputed on every tick from the event's wall-clock ``retry_at`` ("Retrying in N s", with no
attempt count: the client keeps counting until a connection has stayed healthy, so a count
shown seconds after a reconnect read as a fault). Both clocks are injectable
so the logic is tested without waiting.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.wording import sentence
from parler_desktop.client.events import Cause, ConnectionState, StateChanged

DEBOUNCE_SECS = 1.0
TICK_MS = 250

DEBOUNCED = {
    ConnectionState.CONNECTING,
    ConnectionState.AUTHENTICATING,
    ConnectionState.CATCHING_UP,
    ConnectionState.BACKING_OFF,
}


class Tone(enum.Enum):
    OK = "ok"
    BUSY = "busy"
    WARN = "warn"
    ERROR = "error"


@dataclass(frozen=True)
class StatusView:
    tone: Tone
    text: str
    can_retry: bool = False
    brief: str = ""  # the line under a hub's heading in the sidebar, where the hub is named already

    @property
    def heading(self) -> str:
        return self.brief or self.text


NOT_CONNECTED = StatusView(Tone.BUSY, "Not connected")


def hub_place(hub_url: str) -> str:
    """Where the hub is, as a person names it: "127.0.0.1:42005" (the URL when it has no host)."""
    return urlsplit(hub_url).netloc or hub_url


def why(event: StateChanged) -> str:
    """What went wrong with the last attempt, in words (never a raw exception text)."""
    place = hub_place(event.hub_url)
    if event.cause is Cause.UNREACHABLE:
        return f"Can't reach {place} — is the hub running?"
    if event.cause is Cause.LOST:
        return f"Lost the connection to {place}."
    if event.cause is Cause.REFUSED:
        return f"The hub at {place} refused: {sentence(event.detail)}"
    if event.cause is Cause.OUT_OF_TURN:  # ``detail`` (what did not fit) is in the log
        return f"The hub at {place} answered out of turn; reconnecting."
    if event.cause is Cause.TLS:
        return f"Not connected to {place}: {sentence(event.detail)}"
    if event.cause in (Cause.STORE, Cause.DISK_FULL):
        return sentence(event.detail)  # the store's own sentence: which file, what to do
    if event.cause is Cause.INTERNAL:
        return "Something went wrong inside the app."
    return f"Not connected to {place}."


def brief_why(event: StateChanged) -> str:
    """``why`` under a hub's heading: for a full disk, what to do, not the file's long path."""
    return "The disk is full: free some space." if event.cause is Cause.DISK_FULL else why(event)


def describe(event: StateChanged, now: float, name: str) -> StatusView:
    """The sentence (and tone) for ``event`` at wall-clock time ``now``."""
    hub = event.hub_url
    state = event.state
    if state is ConnectionState.LIVE:
        who = name or event.agent_id[:8]
        return StatusView(Tone.OK, f"Connected to {hub} as {who}", brief=f"Live as {who}")
    if state in (ConnectionState.CONNECTING, ConnectionState.AUTHENTICATING):
        if event.cause is not None:  # trying again: the failure stays in view, not a flash of "Connecting…"
            return StatusView(Tone.WARN, f"{why(event)} Retrying now…", brief=f"Retrying now — {brief_why(event)}")
        return StatusView(Tone.BUSY, f"Connecting to {hub_place(hub)}…", brief="Connecting…")
    if state is ConnectionState.CATCHING_UP:
        return StatusView(Tone.BUSY, f"Catching up with {hub_place(hub)}…", brief="Catching up…")
    if state in (ConnectionState.BACKING_OFF, ConnectionState.OFFLINE):
        wait = max(0, math.ceil((event.retry_at or now) - now))
        when = f"Retrying in {wait} s." if event.retry_at is not None else ""  # (no attempt count: it read as a fault)
        lead = "Offline. " if state is ConnectionState.OFFLINE else ""
        if event.retry_at is not None and event.cause is not Cause.DISK_FULL:
            brief = f"{lead}Retrying in {wait} s — {brief_why(event)}"
        else:
            brief = lead + brief_why(event)
        return StatusView(Tone.WARN, " ".join(p for p in (lead + why(event), when) if p), can_retry=True, brief=brief)
    if state is ConnectionState.AUTH_FAILED:
        advice = sentence(event.detail) if event.detail else "Check the join secret."
        return StatusView(Tone.ERROR, f"Credentials rejected by {hub_place(hub)}: {advice}", can_retry=True, brief=f"Credentials rejected: {advice}")
    return StatusView(Tone.ERROR, "Disconnected")


class ConnectionStatus(QObject):
    changed = Signal(object)  # StatusView

    def __init__(
        self,
        parent: QObject | None = None,
        wall_clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self._wall = wall_clock
        self._mono = monotonic
        self._name = ""
        self._latest: StateChanged | None = None
        self._shown_event: StateChanged | None = None
        self._degraded_since: float | None = None
        self.view = NOT_CONNECTED
        self._timer = QTimer(self, interval=TICK_MS)
        self._timer.timeout.connect(self.tick)

    def set_name(self, name: str) -> None:
        self._name = name
        self.tick()

    def reset(self) -> None:
        self._forget_events(NOT_CONNECTED)

    def show_problem(self, text: str, can_retry: bool = False) -> None:
        """No session could be started: say why (the Connect… button stays available)."""
        self._forget_events(StatusView(Tone.ERROR, text, can_retry))

    def _forget_events(self, view: StatusView) -> None:
        """Drop the followed session's states and show ``view`` until the next one arrives."""
        self._latest = self._shown_event = None
        self._degraded_since = None
        self._publish(view)

    def on_state(self, event: StateChanged) -> None:
        self._latest = event
        was_live = self._shown_event is not None and self._shown_event.state is ConnectionState.LIVE
        if event.state in DEBOUNCED and was_live:
            if self._degraded_since is None:
                self._degraded_since = self._mono()
        else:
            self._degraded_since = None
            self._shown_event = event
        self.tick()

    def tick(self) -> None:
        """Recompute the view: settle a held-back state after the debounce, count down."""
        if self._degraded_since is not None and self._mono() - self._degraded_since >= DEBOUNCE_SECS:
            self._degraded_since = None
            self._shown_event = self._latest
        if self._shown_event is not None:
            self._publish(describe(self._shown_event, self._wall(), self._name))
        needs_ticks = self._degraded_since is not None or (
            self._shown_event is not None
            and self._shown_event.state in (ConnectionState.BACKING_OFF, ConnectionState.OFFLINE)
        )
        if needs_ticks and not self._timer.isActive():
            self._timer.start()
        elif not needs_ticks:
            self._timer.stop()

    def _publish(self, view: StatusView) -> None:
        if view != self.view:
            self.view = view
            self.changed.emit(view)
