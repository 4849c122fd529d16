"""The connection line: wording per state, a live countdown, and no flashing on short blips."""

from __future__ import annotations

from parler_desktop.app.connection_status import ConnectionStatus, Tone
from parler_desktop.client.events import ConnectionState, StateChanged

HUB = "ws://127.0.0.1:7070/ws"


class FakeClocks:
    def __init__(self) -> None:
        self.now = 1_000.0

    def wall(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


def state(kind: ConnectionState, **fields) -> StateChanged:
    return StateChanged(kind, HUB, "UABC", **fields)


def make(qapp) -> tuple[ConnectionStatus, FakeClocks]:
    clocks = FakeClocks()
    status = ConnectionStatus(wall_clock=clocks.wall, monotonic=clocks.monotonic)
    status.set_name("boss")
    return status, clocks


def test_each_state_has_its_sentence(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.CONNECTING))
    assert status.view.text == f"Connecting to {HUB}…" and status.view.tone is Tone.BUSY
    status.on_state(state(ConnectionState.LIVE))
    assert status.view.text == f"Connected to {HUB} as boss" and status.view.tone is Tone.OK
    status.on_state(state(ConnectionState.AUTH_FAILED, detail="The hub rejected the join secret."))
    assert status.view.tone is Tone.ERROR and "join secret" in status.view.text and status.view.can_retry
    status.on_state(state(ConnectionState.OFFLINE, detail="connection refused"))
    assert status.view.text == "Offline: connection refused" and status.view.can_retry


def test_reconnect_countdown_ticks_down(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.BACKING_OFF, attempt=3, retry_at=clocks.now + 7.2))
    assert status.view.text.startswith("Reconnecting in 8 s (attempt 3)") and status.view.can_retry
    clocks.now += 5
    status.tick()
    assert status.view.text.startswith("Reconnecting in 3 s (attempt 3)")


def test_a_blip_under_a_second_does_not_flash(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.LIVE))
    shown = []
    status.changed.connect(lambda view: shown.append(view.text))
    status.on_state(state(ConnectionState.BACKING_OFF, attempt=1, retry_at=clocks.now + 0.3))
    clocks.now += 0.4
    status.tick()
    status.on_state(state(ConnectionState.CONNECTING))
    status.on_state(state(ConnectionState.CATCHING_UP))
    clocks.now += 0.3
    status.on_state(state(ConnectionState.LIVE))
    assert shown == [] and status.view.tone is Tone.OK


def test_a_longer_outage_shows_after_the_debounce(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.LIVE))
    status.on_state(state(ConnectionState.BACKING_OFF, attempt=1, retry_at=clocks.now + 4))
    assert status.view.tone is Tone.OK
    clocks.now += 1.0
    status.tick()
    assert status.view.text.startswith("Reconnecting in 3 s (attempt 1)")


def test_terminal_states_show_at_once(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.LIVE))
    status.on_state(state(ConnectionState.AUTH_FAILED, detail="bad secret"))
    assert status.view.tone is Tone.ERROR
