"""The window over wss:// to either hub (this folder's ``hub`` fixture is parametrized embedded /
reference) behind a TLS terminator with a private CA, driven as a person does.

Hub → Connect…: the wss:// address and the CA file typed in, Connect clicked; a room joined with
Hub → Join with a code…; an agent's message read. Then the terminator presents a certificate the
CA file does not let through (another CA's, one for another host name, an expired one): the
connection line says why in one sentence (never a trace), and a post typed meanwhile waits in the
timeline ("Waiting for connection"), not on the hub. After the fix — the new CA file typed into
Connect…, or the right certificate served again and Retry now clicked — the post is in the room
exactly once, on the hub as in the window. A wrong host name typed into Connect… is refused in
one sentence too, and retyping the right one connects. The commands' journeys are in test_tls.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit, QMessageBox, QWidget
from support.desktop_fixtures import post_as
from support.fault_proxy import FaultProxy
from support.peer_ops import hub_history, invite_code
from support.private_ca import CERTIFICATE_FAULTS, make_private_ca
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.settings import load_settings
from parler_desktop.ui.dialogs.connect_dialog import ConnectDialog

pytestmark = pytest.mark.timeout(90)

# What the connection line says while a certificate is refused: where, why (one sentence), and
# the countdown to the next try.
REFUSED_LINE = re.compile(r"Not connected to [\w.]+:\d+: (?P<why>[^\n]+?)(?: Retrying in \d+ s\.| Retrying now…)?")  # (waiting, or trying again)


def hub_action(window: QWidget, text: str) -> QAction:
    """An entry of the window's Hub menu."""
    return next(a for a in window.menuBar().actions()[0].menu().actions() if a.text().replace("&", "") == text)


def shown(kind: type[QWidget], name: str | None = None) -> QWidget | None:
    """The visible top-level widget of ``kind`` (and object name), if any."""
    wanted = (w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible())
    return next((w for w in wanted if name in (None, w.objectName())), None)


def retype(qtbot, field: QLineEdit, text: str) -> None:
    """Select what the field holds and type ``text`` over it, as a person does."""
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, text)
    assert field.text() == text


def connect_through_the_dialog(qtbot, window: QWidget, ca_file: Path, url: str | None = None) -> None:
    """Hub → Connect…, type the address (unless ``url`` is None: the one it shows) and the CA
    file, click Connect."""
    hub_action(window, "Connect…").trigger()
    qtbot.waitUntil(lambda: shown(ConnectDialog) is not None, timeout=5000)
    dialog = shown(ConnectDialog)
    if url is not None:
        retype(qtbot, dialog.findChild(QLineEdit, "hubUrl"), url)
    retype(qtbot, dialog.findChild(QLineEdit, "caFile"), str(ca_file))
    connect = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    assert connect.text() == "Connect"
    QTest.mouseClick(connect, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: shown(ConnectDialog) is None, timeout=5000)


def join_with_a_code(qtbot, window: QWidget, code: str) -> None:
    """Hub → Join with a code…, type it, Enter; close the "Joined" box."""
    hub_action(window, "Join with a code…").trigger()
    qtbot.waitUntil(lambda: shown(QWidget, "joinDialog") is not None, timeout=5000)
    field = shown(QWidget, "joinDialog").focusWidget()
    qtbot.keyClicks(field, code)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: shown(QMessageBox, "roomActionMessage") is not None, timeout=15_000)
    box = shown(QMessageBox, "roomActionMessage")
    assert box.windowTitle() == "Joined", box.text()
    box.accept()


def type_and_enter(qtbot, window: QWidget, text: str) -> None:
    composer = window.composer.edit
    composer.setFocus()
    qtbot.keyClicks(composer, text)
    qtbot.keyClick(composer, Qt.Key.Key_Return)


def timeline_texts(window: QWidget) -> list[str]:
    model = window.timeline_model
    return [model.entry(row).text for row in range(model.rowCount())]


def refusal_is_shown(window: QWidget, words: tuple[str, ...]) -> bool:
    text = window.connection_bar.text.lower()
    return all(word in text for word in words)


def assert_one_sentence(line: str, words: tuple[str, ...]) -> None:
    """The connection line: the place, one sentence saying why (with ``words``, no trace), and
    the countdown."""
    said = REFUSED_LINE.fullmatch(line)
    assert said is not None, line
    why = said["why"]
    assert why.endswith(".") and ". " not in why and "Traceback" not in why and "Error" not in why, why
    assert all(word in why.lower() for word in words), why


@pytest.mark.parametrize("fault", CERTIFICATE_FAULTS, ids=lambda fault: fault.name)
def test_the_window_over_wss_says_why_a_certificate_is_refused_and_sends_the_post_typed_meanwhile_once(
    qtbot, qloop, desktop, peer, hub, tmp_path, fault
):
    ca = make_private_ca(tmp_path)
    proxy = run_coroutine(qtbot, qloop, FaultProxy("127.0.0.1", hub.port, tls=ca.server_context).start())
    window, bridge = desktop.window, desktop.bridge
    try:
        local = bridge.session
        connect_through_the_dialog(qtbot, window, ca.ca_file, url=proxy.url)
        qtbot.waitUntil(lambda: bridge.session is not local and bridge.is_live, timeout=15_000)
        assert window.connection_bar.text.startswith(f"Connected to {proxy.url} as boss")
        join_with_a_code(qtbot, window, run_coroutine(qtbot, qloop, invite_code(peer)))
        qtbot.waitUntil(lambda: window.timeline_model.room == "team" and not window.timeline_model.loading, timeout=10_000)
        post_as(qtbot, qloop, peer, "team", "read over wss")
        qtbot.waitUntil(lambda: timeline_texts(window) == ["read over wss"], timeout=10_000)

        refused, fixed_ca_file = fault.presented(ca, tmp_path)
        run_coroutine(qtbot, qloop, proxy.present(refused))  # the line drops; the next tries are refused
        # (Retry now is offered while the session waits for its next try, not during one: the line then says "Retrying now…")
        qtbot.waitUntil(lambda: refusal_is_shown(window, fault.words) and window.connection_bar.retry.isVisible(), timeout=20_000)
        assert_one_sentence(window.connection_bar.text, fault.words)
        type_and_enter(qtbot, window, "typed while refused")
        model = window.timeline_model
        qtbot.waitUntil(lambda: timeline_texts(window) == ["read over wss", "typed while refused"], timeout=5000)
        assert window.timeline.row_layout(model.index(1)).status_text == "Waiting for connection"
        assert [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peer))] == ["read over wss"]

        if fault.fixed_by_operator:
            run_coroutine(qtbot, qloop, proxy.present(ca.server_context))  # the right certificate again
            QTest.mouseClick(window.connection_bar.retry, Qt.MouseButton.LeftButton)
        else:
            connect_through_the_dialog(qtbot, window, fixed_ca_file)  # the address it shows, the new CA
        qtbot.waitUntil(lambda: bridge.is_live, timeout=20_000)
        assert window.connection_bar.text.startswith(f"Connected to {proxy.url} as boss")
        qtbot.waitUntil(lambda: model.rowCount() == 2 and model.entry(1).outbox is None, timeout=10_000)  # stored
        on_hub = run_coroutine(qtbot, qloop, hub_history(peer))
        assert [m["parts"][0]["text"] for m in on_hub] == ["read over wss", "typed while refused"]
        assert on_hub[1]["from"]["id"] == bridge.session.identity.agent_id
        assert timeline_texts(window) == ["read over wss", "typed while refused"]
        assert model.entry(1).seq == on_hub[1]["seq"]
        assert load_settings(desktop.home.settings_file).settings.hub_ca_files == {proxy.url: str(fixed_ca_file)}
        assert desktop.errors.box is None  # nothing failed with a trace on the way
    finally:
        run_coroutine(qtbot, qloop, desktop.shutdown())
        run_coroutine(qtbot, qloop, proxy.close())


def test_a_wrong_host_name_typed_into_connect_is_refused_in_one_sentence_and_the_right_one_connects(
    qtbot, qloop, desktop, hub, tmp_path
):
    ca = make_private_ca(tmp_path)
    proxy = run_coroutine(qtbot, qloop, FaultProxy("127.0.0.1", hub.port, tls=ca.server_context).start())
    window, bridge = desktop.window, desktop.bridge
    try:
        by_address = proxy.url.replace("localhost", "127.0.0.1")  # the certificate names only localhost
        connect_through_the_dialog(qtbot, window, ca.ca_file, url=by_address)
        words = ("refused", "not for the address", by_address, "check the address")
        qtbot.waitUntil(lambda: refusal_is_shown(window, words), timeout=20_000)
        assert_one_sentence(window.connection_bar.text, words)
        connect_through_the_dialog(qtbot, window, ca.ca_file, url=proxy.url)
        qtbot.waitUntil(lambda: bridge.is_live, timeout=20_000)
        assert window.connection_bar.text.startswith(f"Connected to {proxy.url} as boss")
        assert desktop.errors.box is None
    finally:
        run_coroutine(qtbot, qloop, desktop.shutdown())
        run_coroutine(qtbot, qloop, proxy.close())
