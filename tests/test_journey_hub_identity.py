"""Another identity for a hub, as a supervisor picks it: Hub → Add a hub…, the address typed, "An
identity of its own for this hub" picked, Connect. The agents of that hub hear the human as the
new agent, those of the first hub as the home's; a script given that hub's address posts as the
same agent (one store, one outbox); a restart, or removing the hub and adding it again, keeps each
hub's identity; a key file that cannot be used is refused in the dialog, or on its hub's own line
when the settings name one, and never replaced by the home's identity."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QDialogButtonBox, QLineEdit
from support.cli_runner import run_cli
from support.desktop_fixtures import click_row, room_row
from support.peer_ops import hub_history, invite_code
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from support.os_needs import HAS_FILE_MODES
from test_journey_hubs import heading_state

from parler_desktop.identity import Identity, load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, load_settings, save_settings
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.dialogs.connect_dialog import ConnectDialog

pytestmark = pytest.mark.timeout(120)


def start(qtbot, qloop, home: Home, live: int):
    """The app as it runs (``DesktopApp.run``) on ``home``, once ``live`` hubs are live."""
    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    qtbot.waitUntil(lambda: sum(1 for e in app.hubs.entries if e.bridge.is_live) == live, timeout=30_000)
    return app, running


def stop(qtbot, app, running) -> None:
    app.quit()
    qtbot.waitUntil(running.done, timeout=20_000)


def hub_dialog(qtbot, app, action: str) -> ConnectDialog:
    """Hub → ``action`` ("Add a hub…", "Connect…") from the menu bar, and the dialog it opens."""
    next(a for a in app.window.menuBar().actions()[0].menu().actions() if a.text().replace("&", "") == action).trigger()
    found: list[ConnectDialog] = []

    def shown() -> bool:
        found[:] = [w for w in QApplication.topLevelWidgets() if isinstance(w, ConnectDialog) and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(shown, timeout=5000)
    return found[0]


def pick_identity(qtbot, dialog: ConnectDialog, starting: str) -> None:
    """Choose the identity whose words start with ``starting``, with the keyboard."""
    combo = dialog.findChild(QComboBox, "hubIdentity")
    combo.setFocus()
    for _ in range(combo.count()):
        if combo.currentText().startswith(starting):
            return
        QTest.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentText().startswith(starting), combo.currentText()


def fill_and_connect(qtbot, dialog: ConnectDialog, url: str, identity: str, key_file: str | None = None) -> None:
    field = dialog.findChild(QLineEdit, "hubUrl")
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, url)
    pick_identity(qtbot, dialog, identity)
    if key_file is not None:
        path = dialog.findChild(QLineEdit, "keyFile")
        assert path.isVisible()
        qtbot.keyClick(path, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(path, key_file)
    QTest.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def post(qtbot, app, hub_url: str, room: str, text: str) -> None:
    """Click ``room`` of ``hub_url`` in the sidebar, type ``text`` and press Enter."""
    window = app.window
    click_row(app, room, hub_url)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(hub_url) and window.timeline_model.room == room, timeout=10_000)
    qtbot.keyClicks(window.composer.edit, text)
    QTest.keyClick(window.composer.edit, Qt.Key.Key_Return)


def author_of(qtbot, qloop, agent: RawAgent, room: str, text: str) -> str:
    """The agent id the hub stored ``text`` in ``room`` from (once it is there)."""
    found: list[str] = []

    def stored() -> bool:
        found[:] = [m["from"]["id"] for m in run_coroutine(qtbot, qloop, hub_history(agent, room)) if m["parts"][0]["text"] == text]
        return bool(found)

    qtbot.waitUntil(stored, timeout=10_000)
    assert len(found) == 1, found  # posted once
    return found[0]


def join(qtbot, qloop, app, hub_url: str, owner: RawAgent, room: str) -> None:
    code = run_coroutine(qtbot, qloop, invite_code(owner, room))
    run_coroutine(qtbot, qloop, app.hubs.entry(hub_url).bridge.session.redeem(code))
    qtbot.waitUntil(lambda: app.hubs.entry(hub_url).rooms.summary(room) is not None, timeout=10_000)


def test_a_hub_added_with_an_identity_of_its_own_keeps_it_for_the_window_scripts_and_restarts(qtbot, qloop, tmp_path, hub_factory):
    first, second = hub_factory(), hub_factory()
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(first.url,)))
    app, running = start(qtbot, qloop, home, live=1)
    home_id = load_or_create_identity(home.key_file).agent_id
    alice = run_coroutine(qtbot, qloop, RawAgent.connect(first.url, name="alice"))
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(second.url, name="bob"))
    join(qtbot, qloop, app, first.url, alice, "team")

    dialog = hub_dialog(qtbot, app, "Add a hub…")
    qtbot.waitUntil(lambda: f"({home_id[:8]}…)" in dialog.findChild(QComboBox, "hubIdentity").itemText(0), timeout=5000)
    fill_and_connect(qtbot, dialog, second.url, "An identity of its own")
    qtbot.waitUntil(lambda: app.hubs.entry(second.url) is not None and app.hubs.entry(second.url).bridge.is_live, timeout=15_000)
    key_file = home.hub_key_file(second.url)
    assert key_file.parent.parent == home.key_file.parent  # beside the home's own key
    assert not HAS_FILE_MODES or stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    own_id = load_or_create_identity(key_file).agent_id
    assert own_id != home_id and app.hubs.entry(second.url).bridge.agent_id == own_id
    assert load_settings(home.settings_file).settings.hub_key_files == {second.url: str(key_file)}
    assert f"Your agent id here: {own_id[:8]}…" in room_row(app, None, second.url).data(Qt.ItemDataRole.ToolTipRole)
    join(qtbot, qloop, app, second.url, bob, "ops")

    post(qtbot, app, second.url, "ops", "from the human on hub 2")
    assert author_of(qtbot, qloop, bob, "ops", "from the human on hub 2") == own_id
    post(qtbot, app, first.url, "team", "from the human on hub 1")
    assert author_of(qtbot, qloop, alice, "team", "from the human on hub 1") == home_id

    sent = run_coroutine(qtbot, qloop, run_cli(home.config_dir.parent, "send", "--hub", second.url, "--room", "ops", "from a script"), timeout=30)
    assert sent.status == 0, sent.stderr
    assert author_of(qtbot, qloop, bob, "ops", "from a script") == own_id
    window = app.window
    click_row(app, "ops", second.url)  # the window shows it as the human's: the script used its store and outbox
    qtbot.waitUntil(lambda: window.timeline_model.room == "ops" and [window.timeline_model.entry(r).text for r in range(window.timeline_model.rowCount())][-1:] == ["from a script"], timeout=10_000)
    assert window.timeline_model.entry(window.timeline_model.rowCount() - 1).mine

    box = app.hub_choices.remove(app.hubs.entry(second.url))  # removed, then added again: its key file is found
    QTest.mouseClick(next(b for b in box.buttons() if b.text() == "Remove"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.hubs.entry(second.url) is None, timeout=10_000)
    assert key_file.exists()
    fill_and_connect(qtbot, hub_dialog(qtbot, app, "Add a hub…"), second.url, "An identity of its own")
    qtbot.waitUntil(lambda: app.hubs.entry(second.url) is not None and app.hubs.entry(second.url).bridge.is_live, timeout=15_000)
    assert app.hubs.entry(second.url).bridge.agent_id == own_id
    stop(qtbot, app, running)

    app, running = start(qtbot, qloop, home, live=2)  # the same home again
    assert app.hubs.entry(first.url).bridge.agent_id == home_id and app.hubs.entry(second.url).bridge.agent_id == own_id
    qtbot.waitUntil(lambda: app.hubs.entry(second.url).rooms.summary("ops") is not None, timeout=10_000)
    post(qtbot, app, second.url, "ops", "after the restart")
    assert author_of(qtbot, qloop, bob, "ops", "after the restart") == own_id
    stop(qtbot, app, running)
    for agent in (alice, bob):
        run_coroutine(qtbot, qloop, agent.close())


def write_key_file(path: Path, content: str, mode: int = 0o600) -> str:
    path.write_text(content)
    path.chmod(mode)
    return str(path)


def test_a_key_file_is_checked_before_it_is_taken_and_one_an_agent_tool_made_is_used(qtbot, qloop, tmp_path, hub_factory, caplog):
    first, second = hub_factory(), hub_factory()
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(first.url,)))
    app, running = start(qtbot, qloop, home, live=1)
    tool = Identity.generate()  # what the reference agent tools keep in ~/.parler/config.json
    document = {"hub_url": second.url, "id": tool.agent_id, "seed": tool.seed, "name": "boss-bot"}
    mistyped_seed = tool.seed[:-1] + ("A" if tool.seed[-1] != "A" else "B")
    bad = {
        "is not valid JSON": write_key_file(tmp_path / "notes.json", "seed: SU…"),
        "holds an unusable seed": write_key_file(tmp_path / "typo.json", json.dumps({**document, "seed": mistyped_seed})),
        "does not exist": str(tmp_path / "nowhere.json"),
    }
    if HAS_FILE_MODES:
        bad["is accessible by other users (mode 644)"] = write_key_file(tmp_path / "shared.json", json.dumps(document), 0o644)
    dialog = hub_dialog(qtbot, app, "Add a hub…")
    problem = dialog.problem
    for words, path in bad.items():
        fill_and_connect(qtbot, dialog, second.url, "A key file", path)
        qtbot.waitUntil(lambda words=words: problem.isVisible() and words in problem.text(), timeout=5000)
        assert problem.text().startswith("Cannot use that key file: it ") and dialog.isVisible()
        assert tool.seed[:20] not in problem.text() and mistyped_seed[:20] not in problem.text()
    assert app.hubs.entry(second.url) is None  # nothing added meanwhile

    good = write_key_file(tmp_path / "config.json", json.dumps(document))
    fill_and_connect(qtbot, dialog, second.url, "A key file", good)
    qtbot.waitUntil(lambda: app.hubs.entry(second.url) is not None and app.hubs.entry(second.url).bridge.is_live, timeout=15_000)
    assert app.hubs.entry(second.url).bridge.agent_id == tool.agent_id
    assert load_settings(home.settings_file).settings.hub_key_files == {second.url: good}
    stop(qtbot, app, running)
    assert tool.seed[:20] not in caplog.text and mistyped_seed[:20] not in caplog.text


@pytest.mark.parametrize(("entry", "words"), [(42, "no usable key file"), ("/nowhere/key.json", "does not exist")])
def test_a_key_file_the_settings_name_but_cannot_be_used_stops_its_hub_alone(qtbot, qloop, tmp_path, hub_factory, entry, words):
    """Not connected as the home's identity instead (that would post as someone else), in the
    window and from a script; the other hub stays live."""
    first, second = hub_factory(), hub_factory()
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(first.url, second.url)))
    written = json.loads(home.settings_file.read_text())
    home.settings_file.write_text(json.dumps({**written, "hub_key_files": {second.url: entry}}))
    app, running = start(qtbot, qloop, home, live=1)
    qtbot.waitUntil(lambda: words in heading_state(app.window, second.url).heading, timeout=10_000)
    assert heading_state(app.window, second.url).heading.startswith("Could not connect: ")
    assert app.hubs.entry(second.url).bridge.session is None and app.hubs.entry(first.url).bridge.is_live
    sent = run_coroutine(qtbot, qloop, run_cli(home.config_dir.parent, "send", "--hub", second.url, "--room", "ops", "hi"), timeout=30)
    assert sent.status == 1 and words in sent.stderr
    stop(qtbot, app, running)
    assert not home.store_path(second.url, load_or_create_identity(home.key_file).agent_id).exists()
