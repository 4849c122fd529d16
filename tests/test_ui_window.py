"""The whole window against a real embedded hub, a real session and raw-wire peers.

Shows what the supervisor relies on: a peer's message appears in the open timeline and bumps
another room's badge; a post from the composer reaches the peer exactly once; a badge drops only
once the room has been seen in an active window.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QListView, QMessageBox, QToolTip, QWidget
from support.fault_proxy import FaultProxy
from support.private_ca import make_private_ca
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.desktop_fixtures import join_room, open_room, post_as, start_desktop, stop_desktop, unread
from support.raw_agent import RawAgent

from parler_desktop.app import roles
from parler_desktop.app.room_list.agent_activity import AgentState
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.client.events import ConnectionState
from parler_desktop.paths import Home
from parler_desktop.protocol.parts import FileRef
from parler_desktop.settings import Settings, load_settings, save_settings
from parler_desktop.app.timeline.cards import card_for
from parler_desktop.ui.dialogs.connect_dialog import ConnectChoice
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(60)


def test_main_widgets_carry_their_object_names(desktop):
    window = desktop.window
    for name in ("roomList", "timeline", "composer", "connectionState", "rosterView"):
        assert window.findChild(object, name) is not None, name
    assert isinstance(window.findChild(QListView, "roomList"), QListView)
    assert "Connected to" in window.connection_bar.text and "boss" in window.connection_bar.text


def test_peer_message_shows_in_open_timeline_and_badges_the_other_room(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    open_room(qtbot, desktop, team)
    model = desktop.window.timeline_model
    post_as(qtbot, qloop, peer, team, "**build** is green")
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=5000)
    entry = model.entry(0)
    assert entry.text == "**build** is green" and entry.sender_name == "alice" and not entry.mine
    post_as(qtbot, qloop, peer, ops, "deploy @boss?", mentions=["boss"])
    qtbot.waitUntil(lambda: unread(desktop, ops) == 1, timeout=5000)
    assert desktop.window.rooms.summary(ops).mentions_unread == 1
    assert model.rowCount() == 1  # the other room's message stays out of this timeline
    assert "unread" in desktop.window.windowTitle()


def test_composer_post_reaches_the_peer_exactly_once(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    composer = desktop.window.composer
    composer.set_names(["alice"])
    qtbot.keyClicks(composer.edit, "ship it @al")
    assert composer.edit.completer.popup().isVisible()
    qtbot.keyClick(composer.edit.completer.popup(), Qt.Key.Key_Return)  # takes the completion
    assert composer.edit.toPlainText() == "ship it @alice "
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert composer.edit.toPlainText() == "ship it @alice \n"
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: composer.edit.toPlainText() == "", timeout=5000)  # once it is in the outbox
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["room"] == team and delivered["parts"][0] == {"kind": "text", "text": "ship it @alice"}
    assert delivered["mentions"] == ["alice"] and delivered["from"]["id"] == desktop.bridge.agent_id
    model = desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).seq == delivered["seq"] and model.entry(0).outbox is None, timeout=10_000)
    assert model.entry(0).mine
    pulled = run_coroutine(qtbot, qloop, peer.ok({"op": "pull", "room": team, "since": 0}, "pulled"))
    assert [m["seq"] for m in pulled["messages"]] == [delivered["seq"]]
    with pytest.raises(asyncio.TimeoutError):
        run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=0.5))


def test_alt_down_moves_to_the_next_room_with_unread_messages(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    join_room(qtbot, qloop, desktop, peer, "quiet")
    post_as(qtbot, qloop, peer, ops, "needs you")
    qtbot.waitUntil(lambda: unread(desktop, ops) == 1, timeout=5000)
    open_room(qtbot, desktop, team)
    window = desktop.window
    qtbot.keyClick(window.timeline, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.timeline_model.room == ops, timeout=5000)
    qtbot.keyClick(window.timeline, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.room_panel.filter.hasFocus()


def test_unread_badge_drops_only_after_the_room_is_seen_in_an_active_window(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    other = QWidget()  # another window takes the focus
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not window.isActiveWindow(), timeout=5000)
    open_room(qtbot, desktop, team)
    post_as(qtbot, qloop, peer, team, "one")
    post_as(qtbot, qloop, peer, team, "two")
    qtbot.waitUntil(lambda: unread(desktop, team) == 2 and window.timeline_model.rowCount() == 2, timeout=5000)
    assert not window.read_tracker.may_read()  # unfocused: no acknowledgement is even scheduled
    run_coroutine(qtbot, qloop, desktop.bridge.session.refresh_rooms())
    assert [room.unread for room in desktop.bridge.session.rooms if room.name == team] == [2]  # hub agrees
    assert unread(desktop, team) == 2
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)
    run_coroutine(qtbot, qloop, desktop.bridge.session.refresh_rooms())
    assert [room.unread for room in desktop.bridge.session.rooms if room.name == team] == [0]  # the hub agrees
    assert "unread" not in window.windowTitle()


@pytest.mark.timeout(90)
def test_state_counts_down_while_the_hub_is_down_and_is_connected_once_it_is_back(
    qtbot, qloop, tmp_path: Path, hub_process_factory
):
    hub = hub_process_factory()
    home = Home.resolve(tmp_path / "home")
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    app = DesktopApp(home, hub.url)
    app.window.show()
    bar = app.window.connection_bar
    model = app.window.timeline_model
    try:
        assert run_coroutine(qtbot, qloop, app.connect(hub.url))
        qtbot.waitUntil(lambda: bar.text.startswith("Connected to"), timeout=15_000)
        run_coroutine(qtbot, qloop, app.bridge.session.invite("channel", "notes"))
        qtbot.waitUntil(lambda: "notes" in app.window.rooms.room_names(), timeout=10_000)
        open_room(qtbot, app, "notes")
        qtbot.waitUntil(lambda: app.window.roster.rowCount() == 1, timeout=10_000)
        hub.kill()
        qtbot.waitUntil(lambda: "Retrying in" in bar.text, timeout=20_000)
        assert bar.retry.isVisible() and "attempt" not in bar.text  # a count read as a fault
        qtbot.waitUntil(lambda: f"Can't reach 127.0.0.1:{hub.port} — is the hub running?" in bar.text, timeout=20_000)
        assert "Errno" not in bar.text and "refused" not in bar.text.lower()  # words, not the exception
        attempts = app.bridge.last_state.attempt
        qtbot.mouseClick(bar.retry, Qt.MouseButton.LeftButton)  # Retry now while the hub is still down…
        qtbot.waitUntil(lambda: app.bridge.last_state.retry_at is not None and "Retrying in" in bar.text, timeout=10_000)
        assert app.bridge.last_state.attempt == attempts  # …does not make the next wait longer
        qtbot.keyClicks(app.window.composer.edit, "written while the hub was down")
        qtbot.keyClick(app.window.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).is_pending, timeout=5000)
        assert app.window.timeline.row_layout(model.index(0)).status_text == "Waiting for connection"
        members = app.window.roster
        assert members.index(0).data(roles.MEMBER_AS_OF).startswith("as of ")  # presence as last known
        hub.start()
        qtbot.mouseClick(bar.retry, Qt.MouseButton.LeftButton)  # Retry now: no need to wait out the backoff
        qtbot.waitUntil(lambda: bar.text.startswith("Connected to"), timeout=20_000)
        assert app.bridge.last_state.state is ConnectionState.LIVE
        assert members.index(0).data(roles.MEMBER_AS_OF) == ""  # live again
        qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).seq is not None, timeout=10_000)
        assert model.entry(0).text == "written while the hub was down" and model.entry(0).mine
    finally:
        run_coroutine(qtbot, qloop, app.shutdown())
        app.window.close()
        app.window.deleteLater()


def test_typing_in_the_room_filter_does_not_open_other_rooms(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    open_room(qtbot, desktop, team)
    panel = desktop.window.room_panel
    qtbot.keyClicks(panel.filter, "op")
    assert panel.proxy.rowCount() == 1 and desktop.window.timeline_model.room == team
    qtbot.keyClick(panel.filter, Qt.Key.Key_Return)  # Enter opens the first match
    qtbot.waitUntil(lambda: desktop.window.timeline_model.room == ops, timeout=5000)
    panel.filter.clear()
    assert panel.current_room() == ops


def test_new_room_shows_a_code_that_lets_an_agent_in(qtbot, qloop, desktop, peer):
    window = desktop.window
    invited = run_coroutine(qtbot, qloop, window.room_actions.invite_agents("design"))
    assert invited is not None and invited.room == "design"
    box = window.findChild(QMessageBox)
    assert box is not None and invited.code in box.text()
    box.close()
    qtbot.waitUntil(lambda: "design" in window.rooms.room_names(), timeout=10_000)
    run_coroutine(qtbot, qloop, peer.ok({"op": "redeem", "code": invited.code}, "joined"))
    open_room(qtbot, desktop, "design")
    post_as(qtbot, qloop, peer, "design", "hello from the agent")
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)


def test_a_shared_file_is_saved_after_its_checksum_is_checked(qtbot, qloop, desktop, peer, tmp_path: Path):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    data = b"quarterly numbers\n" * 100
    digest = hashlib.sha256(data).hexdigest()
    target = {"kind": "room", "room": team}
    run_coroutine(qtbot, qloop, peer.ok({"op": "put_blob", "sha256": digest, "size": len(data), "target": target}, "blob_ready"))
    run_coroutine(qtbot, qloop, peer.send_bytes(data))
    assert run_coroutine(qtbot, qloop, peer.recv())["type"] == "blob_stored"
    part = FileRef(blob=digest, name="../q3.txt", size=len(data)).to_part()
    card = card_for(part, "boss", None)
    saved = tmp_path / card.file_name
    desktop.window.saves.model.save(card.blob_id, card.file_size, saved)
    qtbot.waitUntil(saved.exists, timeout=10_000)
    assert saved.read_bytes() == data and card.file_name == "q3.txt"


def test_a_rejected_join_secret_says_what_to_fix(qtbot, qloop, tmp_path: Path, hub_factory):
    hub = hub_factory(join_secret="s3cret")
    home = Home.resolve(tmp_path / "home")
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    app = DesktopApp(home, hub.url)
    app.window.show()
    try:
        assert run_coroutine(qtbot, qloop, app.connect(hub.url))
        bar = app.window.connection_bar
        qtbot.waitUntil(lambda: bar.text.startswith("Credentials rejected"), timeout=15_000)
        assert "join secret" in bar.text and app.bridge.last_state.state is ConnectionState.AUTH_FAILED
    finally:
        run_coroutine(qtbot, qloop, app.shutdown())
        app.window.close()
        app.window.deleteLater()


def rows_shown(desktop: DesktopApp) -> list[tuple[str, str]]:
    """(label, hub room name) of every row the room list shows, in order."""
    proxy = desktop.window.room_panel.proxy
    return [(proxy.index(row, 0).data(), proxy.index(row, 0).data(roles.ROOM_NAME)) for row in range(proxy.rowCount())]


def test_a_dm_is_named_after_the_other_member_and_a_service_after_its_service(qtbot, qloop, desktop, peer):
    window = desktop.window
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "dm"}, "invited"))
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
    dm = invited["room"]
    assert dm.startswith("dm.")
    qtbot.waitUntil(lambda: (window.rooms.label(dm), dm) in rows_shown(desktop) and window.rooms.label(dm) == "alice", timeout=10_000)
    service = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "service", "room": "review"}, "invited"))
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(service["code"]))
    qtbot.waitUntil(lambda: ("review (service)", "svc.review") in rows_shown(desktop), timeout=10_000)
    dm_row = next(row for row in range(window.rooms.rowCount()) if window.rooms.index(row).data(roles.ROOM_NAME) == dm)
    assert dm in window.rooms.index(dm_row).data(Qt.ItemDataRole.ToolTipRole)  # the real name stays at hand

    panel = window.room_panel
    qtbot.keyClicks(panel.filter, "ALI")  # the filter matches the member's name…
    assert rows_shown(desktop) == [("alice", dm)]
    panel.filter.setText(dm)  # …and the hub's room name
    assert rows_shown(desktop) == [("alice", dm)]
    panel.filter.setText("review")
    assert rows_shown(desktop) == [("review (service)", "svc.review")]
    panel.filter.clear()

    open_room(qtbot, desktop, dm)
    assert window.room_title.text().startswith(f"alice  ·  {dm}  ·  dm") and window.room_title.toolTip() == plain_tooltip(dm)


def link_point(view, row: int, href: str) -> QPoint:
    """A viewport point over the link to ``href`` in ``row`` (scanning the row like a pointer would)."""
    rect = view.visualRect(view.model().index(row))
    for y in range(rect.top(), rect.bottom(), 2):
        for x in range(rect.left(), rect.right(), 3):
            if view.link_at(QPoint(x, y)) == href:
                return QPoint(x, y)
    raise AssertionError(f"no link to {href} in row {row}")


def test_links_open_in_the_browser_only_for_web_and_mail(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    window = desktop.window
    view = window.timeline
    opened: list[str] = []
    view.open_url = lambda url: opened.append(url.toString()) or True  # stands in for the OS browser launcher
    post_as(qtbot, qloop, peer, team, "read [the guide](https://docs.example/guide) or [my notes](file:///etc/passwd)")
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    guide = link_point(view, 0, "https://docs.example/guide")

    qtbot.mouseMove(view.viewport(), guide)
    qtbot.waitUntil(lambda: view.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor, timeout=2000)
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, guide, view.viewport().mapToGlobal(guide)))
    assert QToolTip.text() == plain_tooltip("https://docs.example/guide")  # the address, not the words "the guide"
    QToolTip.hideText()

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=guide)
    assert opened == ["https://docs.example/guide"]
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=guide)  # pressed on the link, let go elsewhere
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(view.model().index(0)).topLeft() + QPoint(2, 2))
    assert opened == ["https://docs.example/guide"]

    notes = link_point(view, 0, "file:///etc/passwd")
    with qtbot.waitSignal(view.linkRefused, timeout=2000) as refused:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=notes)
    assert refused.args == ["file:///etc/passwd"] and opened == ["https://docs.example/guide"]
    assert window.statusBar().currentMessage().startswith("Not opened: file:///etc/passwd")


def test_a_member_name_that_looks_like_html_stays_text(qtbot, qloop, desktop):
    name = "<b>eve</b>"
    eve = run_coroutine(qtbot, qloop, RawAgent.connect(desktop.bridge.hub_url, name=name))
    try:
        invited = run_coroutine(qtbot, qloop, eve.ok({"op": "invite", "kind": "dm"}, "invited"))
        run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
        rooms = desktop.window.rooms
        qtbot.waitUntil(lambda: rooms.label(invited["room"]) == name, timeout=10_000)
        open_room(qtbot, desktop, invited["room"])
        title = desktop.window.room_title
        assert title.text().startswith(name) and title.textFormat() == Qt.TextFormat.PlainText
        row = next(r for r in range(rooms.rowCount()) if rooms.index(r).data(roles.ROOM_NAME) == invited["room"])
        assert rooms.index(row).data(Qt.ItemDataRole.ToolTipRole) == plain_tooltip(rooms.description(invited["room"]))
        assert "&lt;b&gt;eve&lt;/b&gt;" in rooms.index(row).data(Qt.ItemDataRole.ToolTipRole)
    finally:
        run_coroutine(qtbot, qloop, eve.close())


def test_a_hub_chosen_with_connect_is_saved_then_connected_to(qtbot, qloop, desktop, hub):
    first = desktop.bridge.session
    settings = load_settings(desktop.home.settings_file).settings
    run_coroutine(qtbot, qloop, desktop.hub_choices.switch(settings, ConnectChoice(hub.url, None, "chief")))
    saved = load_settings(desktop.home.settings_file).settings
    assert (saved.hub_url, saved.display_name) == (hub.url, "chief")
    assert desktop.bridge.session is not first and desktop.hub_override is None
    qtbot.waitUntil(lambda: desktop.bridge.is_live, timeout=15_000)


def test_a_wss_hub_with_a_private_ca_is_explained_then_trusted_through_connect(qtbot, qloop, desktop, hub, tmp_path):
    ca = make_private_ca(tmp_path)
    proxy = run_coroutine(qtbot, qloop, FaultProxy("127.0.0.1", hub.port, tls=ca.server_context).start())
    try:
        settings = load_settings(desktop.home.settings_file).settings
        run_coroutine(qtbot, qloop, desktop.hub_choices.switch(settings, ConnectChoice(proxy.url, None, "boss")))
        status = desktop.window.findChild(QWidget, "connectionState")
        qtbot.waitUntil(lambda: "not trusted" in status.text, timeout=15_000)
        assert "CA file" in status.text
        settings = load_settings(desktop.home.settings_file).settings
        run_coroutine(qtbot, qloop, desktop.hub_choices.switch(settings, ConnectChoice(proxy.url, None, "boss", str(ca.ca_file))))
        qtbot.waitUntil(lambda: desktop.bridge.is_live, timeout=15_000)
        assert status.text.startswith(f"Connected to {proxy.url}")
        assert load_settings(desktop.home.settings_file).settings.hub_ca_files == {proxy.url: str(ca.ca_file)}
    finally:
        run_coroutine(qtbot, qloop, desktop.shutdown())
        run_coroutine(qtbot, qloop, proxy.close())


def test_agent_states_come_back_from_the_cache_after_a_restart(qtbot, qloop, hub, peer, tmp_path):
    """A working agent's dot is read from the cached history when the window starts again, not
    only from what arrives after."""
    first = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    room = join_room(qtbot, qloop, first, peer, "work")
    part = {"kind": "com.parler.task", "status": "working", "task": "migrate-db"}
    post_as(qtbot, qloop, peer, room, "on it", parts=[{"kind": "text", "text": "on it"}, part])
    qtbot.waitUntil(lambda: first.attention.agents.state(hub.url, room) is AgentState.WORKING, timeout=5000)
    stop_desktop(qtbot, qloop, first)
    again = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    try:
        qtbot.waitUntil(lambda: again.attention.agents.state(hub.url, room) is AgentState.WORKING, timeout=5000)
    finally:
        stop_desktop(qtbot, qloop, again)
