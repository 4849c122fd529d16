"""The connection line: wording per state in words a person understands (never a raw exception
text), a live countdown, and no flashing on short blips."""

from __future__ import annotations

from parler_desktop.app.hubs.connection_status import ConnectionStatus, Tone
from parler_desktop.client.events import Cause, ConnectionState, StateChanged

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
    assert status.view.text == "Connecting to 127.0.0.1:7070…" and status.view.tone is Tone.BUSY
    status.on_state(state(ConnectionState.LIVE))
    assert status.view.text == f"Connected to {HUB} as boss" and status.view.tone is Tone.OK
    status.on_state(state(ConnectionState.AUTH_FAILED, detail="The hub rejected the join secret."))
    assert status.view.tone is Tone.ERROR and "join secret" in status.view.text and status.view.can_retry
    raw = "cannot reach ws://127.0.0.1:7070/ws: [Errno 111] Connect call failed ('127.0.0.1', 7070)"
    status.on_state(state(ConnectionState.OFFLINE, detail=raw, cause=Cause.UNREACHABLE, attempt=4, retry_at=clocks.now + 30))
    assert status.view.text == "Offline. Can't reach 127.0.0.1:7070 — is the hub running? Retrying in 30 s."
    assert status.view.can_retry and "Errno" not in status.view.text
    status.on_state(state(ConnectionState.BACKING_OFF, detail="connection closed: 1006", cause=Cause.LOST, attempt=1, retry_at=clocks.now + 1))
    assert status.view.text == "Lost the connection to 127.0.0.1:7070. Retrying in 1 s."
    status.on_state(state(ConnectionState.BACKING_OFF, detail="hub is busy (internal)", cause=Cause.REFUSED, attempt=2, retry_at=clocks.now + 2))
    assert status.view.text == "The hub at 127.0.0.1:7070 refused: Hub is busy (internal). Retrying in 2 s."
    untrusted = "the hub's TLS certificate is not trusted (self-signed certificate); trust its CA file"
    status.on_state(state(ConnectionState.BACKING_OFF, detail=untrusted, cause=Cause.TLS, attempt=1, retry_at=clocks.now + 1))
    assert status.view.text.startswith("Not connected to 127.0.0.1:7070: The hub's TLS certificate is not trusted")


def test_an_attempt_after_a_failure_keeps_saying_why(qapp):
    status, clocks = make(qapp)
    refused = dict(detail="hub at capacity — try again shortly (try_again_later)", cause=Cause.REFUSED, attempt=2)
    status.on_state(state(ConnectionState.BACKING_OFF, retry_at=clocks.now + 2, **refused))
    assert status.view.heading == "Retrying in 2 s — The hub at 127.0.0.1:7070 refused: Hub at capacity — try again shortly (try_again_later)."
    for attempt in (ConnectionState.CONNECTING, ConnectionState.AUTHENTICATING):
        status.on_state(state(attempt, **refused))
        assert status.view.heading == "Retrying now — The hub at 127.0.0.1:7070 refused: Hub at capacity — try again shortly (try_again_later)."
        assert status.view.tone is Tone.WARN and status.view.text.endswith("Retrying now…")
    status.on_state(state(ConnectionState.OFFLINE, detail="No space left on device: /home/boss/.cache/x.sqlite3", cause=Cause.DISK_FULL))
    status.on_state(state(ConnectionState.CONNECTING, detail="No space left on device: /home/boss/.cache/x.sqlite3", cause=Cause.DISK_FULL))
    assert status.view.heading == "Retrying now — The disk is full: free some space."


def test_reconnect_countdown_ticks_down(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.BACKING_OFF, attempt=3, retry_at=clocks.now + 7.2, cause=Cause.UNREACHABLE))
    assert status.view.text.endswith("Retrying in 8 s.") and status.view.can_retry
    clocks.now += 5
    status.tick()
    assert status.view.text.endswith("Retrying in 3 s.")


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
    assert status.view.text.endswith("Retrying in 3 s.")


def test_terminal_states_show_at_once(qapp):
    status, clocks = make(qapp)
    status.on_state(state(ConnectionState.LIVE))
    status.on_state(state(ConnectionState.AUTH_FAILED, detail="bad secret"))
    assert status.view.tone is Tone.ERROR
