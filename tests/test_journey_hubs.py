"""Several hubs in one window, as a supervisor uses it: the embedded hub and two others, each
with its own live session; the sidebar groups each hub's rooms under its heading with its own
connection line and counts; a hub killed and restarted comes back on its own while the others
keep counting; a room of the same name on two hubs stays two rooms; a post goes exactly once
to the hub of the room the human clicked."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from support.damaged_store import fill_and_damage, set_aside
from support.desktop_fixtures import click_action, click_row, row_menu
from support.peer_ops import hub_history, invite_code, say
from support.private_bus import bus_address, server  # noqa: F401 - fixtures
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

from parler_desktop.app import roles
from parler_desktop.app.hubs.connection_status import Tone
from parler_desktop.app.search.search_model import HIT_PLACE
from parler_desktop.client.message_link import message_link
from parler_desktop.identity import load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, load_settings, save_settings
from parler_desktop.ui.attention.tray import Tray
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(120)


def rows(window) -> list[tuple[str, str | None, int]]:
    """The sidebar as shown: (hub, room or None for a heading, unread)."""
    proxy = window.room_panel.proxy
    shown = []
    for row in range(proxy.rowCount()):
        index = proxy.index(row, 0)
        room = None if index.data(roles.HUB_HEADER) else index.data(roles.ROOM_NAME)
        shown.append((index.data(roles.HUB_URL), room, index.data(roles.ROOM_UNREAD) or 0))
    return shown


def question(qtbot, window, title: str) -> QMessageBox:
    """The box titled ``title`` that ``window`` shows now (other tests' windows may linger)."""
    found: list[QMessageBox] = []

    def shown() -> bool:
        found[:] = [w for w in window.findChildren(QMessageBox) if w.isVisible() and w.windowTitle() == title]
        return bool(found)

    qtbot.waitUntil(shown, timeout=5000)
    return found[0]


def heading_state(window, hub: str):
    model = window.room_panel.model
    return model.heading_index(hub).data(roles.HUB_STATE)


@pytest.fixture
def three_hubs(qtbot, qloop, tmp_path, hub_factory, hub_process_factory):
    """A window run as the app runs (``DesktopApp.run``) on a home whose settings hold the
    embedded hub, an in-process hub and a hub in a process of its own (killable); a peer on
    each of the two others made room ``team`` and the window joined it."""
    shared = hub_factory()
    killable = hub_process_factory()
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=("", shared.url, killable.url)))
    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    window = app.window
    qtbot.waitUntil(lambda: len(app.hubs.entries) == 3 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
    run_coroutine(qtbot, qloop, app.hubs.entry("").bridge.invite("channel", "notes"))  # the window opens it, first
    qtbot.waitUntil(lambda: window.timeline_model.room == "notes" and window.shown_hub is app.hubs.entry(""), timeout=10_000)
    peers = {}
    for hub in (shared, killable):
        peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice"))
        code = run_coroutine(qtbot, qloop, invite_code(peer, "team"))
        run_coroutine(qtbot, qloop, app.hubs.entry(hub.url).bridge.session.redeem(code))
        peers[hub.url] = peer
    qtbot.waitUntil(lambda: sum(1 for _hub, room, _n in rows(window) if room == "team") == 2, timeout=10_000)
    yield app, shared, killable, peers
    for peer in peers.values():
        run_coroutine(qtbot, qloop, peer.close())
    app.quit()
    qtbot.waitUntil(running.done, timeout=20_000)


def test_three_hubs_count_apart_survive_a_killed_hub_and_post_where_the_human_clicked(qtbot, qloop, three_hubs):
    app, shared, killable, peers = three_hubs
    window = app.window
    headings = [(hub, room) for hub, room, _n in rows(window) if room is None]
    assert headings == [("", None), (shared.url, None), (killable.url, None)]  # in the settings' order
    assert rows(window)[1] == ("", "notes", 0)  # open, so read
    for text in ("a1", "a2", "a3"):
        run_coroutine(qtbot, qloop, say(peers[shared.url], "team", text))
    for text in ("b1", "b2"):
        run_coroutine(qtbot, qloop, say(peers[killable.url], "team", text))
    qtbot.waitUntil(lambda: (shared.url, "team", 3) in rows(window) and (killable.url, "team", 2) in rows(window), timeout=10_000)
    assert ("", None, 0) in rows(window) and (shared.url, None, 3) in rows(window)  # each heading counts its own
    qtbot.waitUntil(lambda: window.windowTitle() == "Parler — 5 unread", timeout=5000)

    run_coroutine(qtbot, qloop, peers[killable.url].close())
    killable.kill()  # kill -9: the window's line to it dies without a goodbye
    killed = app.hubs.entry(killable.url)
    qtbot.waitUntil(lambda: not killed.bridge.is_live, timeout=60_000)
    qtbot.waitUntil(lambda: "Retrying in " in heading_state(window, killable.url).heading, timeout=15_000)  # (after "Offline. " when so)
    run_coroutine(qtbot, qloop, say(peers[shared.url], "team", "a4"))  # the others keep counting
    qtbot.waitUntil(lambda: (shared.url, "team", 4) in rows(window), timeout=10_000)
    assert app.hubs.entry(shared.url).bridge.is_live and app.hubs.entry("").bridge.is_live

    killable.restart()
    peers[killable.url] = run_coroutine(qtbot, qloop, RawAgent.connect(killable.url, identity=peers[killable.url].identity, name="alice"))
    run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "b3"))
    click_action(qtbot, row_menu(qtbot, app, None, killable.url), "Retry now")  # its heading's, rather than wait out the backoff
    qtbot.waitUntil(lambda: killed.bridge.is_live and (killable.url, "team", 3) in rows(window), timeout=30_000)
    assert heading_state(window, killable.url).heading == "Live as boss"
    qtbot.waitUntil(lambda: window.windowTitle() == "Parler — 7 unread", timeout=5000)

    click_row(app, "team", killable.url)  # the killed-and-back hub's "team", not the other's
    qtbot.waitUntil(lambda: window.shown_hub is killed and window.timeline_model.rowCount() == 3, timeout=10_000)
    assert [window.timeline_model.entry(row).text for row in range(3)] == ["b1", "b2", "b3"]
    assert window.room_title.text().startswith("team  ·  channel") and window.room_title.text().endswith(f"  ·  {killed.label}")  # which "team"
    qtbot.keyClicks(window.composer.edit, "to the restarted hub")
    QTest.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peers[killable.url], "team"))][-1:]
        == ["to the restarted hub"], timeout=10_000,
    )
    texts_b = [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peers[killable.url], "team"))]
    texts_a = [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peers[shared.url], "team"))]
    assert texts_b.count("to the restarted hub") == 1 and "to the restarted hub" not in texts_a

    click_row(app, "team", shared.url)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(shared.url) and window.timeline_model.rowCount() == 4, timeout=10_000)
    assert [window.timeline_model.entry(row).text for row in range(4)] == ["a1", "a2", "a3", "a4"]
    assert app.hubs.entry(killable.url).bridge.is_live  # switching hubs closes nothing


def test_a_room_clicked_while_another_hub_is_being_opened_is_the_one_shown(qtbot, qloop, three_hubs):
    """A room opened for the human (a notification's Open, the newest room at launch) on another
    hub switches hubs at once, the old hub's drafts handed to its store without waiting for it
    (it took a moment, and a room the human clicked meanwhile had to win over it); a room the
    human clicks right after is the one shown."""
    app, shared, killable, _peers = three_hubs
    window = app.window
    embedded = app.hubs.entry("")
    run_coroutine(qtbot, qloop, embedded.bridge.invite("channel", "plans"))
    qtbot.waitUntil(lambda: "plans" in embedded.rooms.room_names(), timeout=10_000)
    click_row(app, "plans", "")
    qtbot.waitUntil(lambda: window.timeline_model.room == "plans", timeout=10_000)
    for clicked_hub, clicked in (("", "notes"), (killable.url, "team")):  # a room of the hub shown, or of a third
        window.show_room(shared.url, "team")
        assert window.shown_hub is app.hubs.entry(shared.url) and window.timeline_model.room == "team"
        click_row(app, clicked, clicked_hub)  # the human's click, right after
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(clicked_hub) and window.timeline_model.room == clicked, timeout=10_000)
        assert window.room_panel.shown_room == (clicked_hub, clicked)


def test_a_heading_folds_its_hub_and_ctrl_alt_n_goes_to_hub_n(qtbot, qloop, three_hubs):
    app, shared, killable, peers = three_hubs
    window = app.window
    click_row(app, None, shared.url)  # the heading: fold
    qtbot.waitUntil(lambda: (shared.url, "team", 0) not in rows(window), timeout=5000)
    assert (killable.url, "team", 0) in rows(window) and window.room_panel.model.heading_index(shared.url).data(roles.HUB_COLLAPSED)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(shared.url) and window.timeline_model.room == "team", timeout=10_000)
    assert (shared.url, "team", 0) in rows(window)  # unfolded to show where it went
    QTest.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(killable.url), timeout=10_000)


def test_added_and_removed_hubs_are_kept_in_the_settings(qtbot, qloop, three_hubs):
    app, shared, killable, _peers = three_hubs
    window = app.window
    click_row(app, "team", killable.url)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(killable.url), timeout=10_000)
    box = app.hub_choices.remove()
    remove = next(button for button in box.buttons() if button.text() == "Remove")
    QTest.mouseClick(remove, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.hubs.entry(killable.url) is None and window.shown_hub is not None, timeout=10_000)
    assert load_settings(app.home.settings_file).settings.hubs == ("", shared.url)
    assert all(hub != killable.url for hub, _room, _n in rows(window))



def test_a_hub_not_shown_notifies_naming_itself_and_open_shows_its_message(qtbot, qloop, server, three_hubs):
    """Through the desktop's notification service (a private session bus): the alert of a hub
    the window does not show names that hub, and its Open shows the message on it."""
    app, shared, killable, peers = three_hubs
    window = app.window
    entry = app.hubs.entry(killable.url)
    assert app.attention.desktop.available
    seq = run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "hey @boss, can you approve the deploy?"))
    qtbot.waitUntil(lambda: len(server.shown) == 1, timeout=10_000)
    heading = window.room_panel.model.heading_index(killable.url)
    assert (heading.data(roles.ROOM_UNREAD), heading.data(roles.ROOM_MENTIONS)) == (1, 1)  # the hub's heading counts it
    (shown,) = server.shown.values()
    assert (shown.summary, shown.body) == (f"alice in team · {entry.label}", "hey @boss, can you approve the deploy?")
    assert window.shown_hub is app.hubs.entry("")  # the embedded hub's room stays on screen meanwhile
    run_coroutine(qtbot, qloop, server.invoke(shown.id, "default"))  # the human clicks it
    qtbot.waitUntil(lambda: window.shown_hub is entry and window.timeline_model.room == "team"
                    and window.timeline_model.newest_seq == seq, timeout=10_000)


def test_an_invite_link_for_a_hub_not_held_adds_it_and_the_first_hub_stays(qtbot, qloop, desktop, hub_factory):
    """The link names a hub the window does not hold: the question says joining adds it; Join
    adds it beside the first (still live), joins the room there and opens it."""
    other = hub_factory()
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(other.url, name="alice"))
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "ops"}, "invited"))
    first = desktop.window.shown_hub
    desktop.links.open(invited["url"])
    box = question(qtbot, desktop.window, "Join with an invite link")
    assert f"does not hold {other.url.split('/')[2]} yet: joining adds it" in box.text()
    QTest.mouseClick(next(b for b in box.buttons() if b.text() == "Join"), Qt.MouseButton.LeftButton)
    added = None

    def joined() -> bool:
        nonlocal added
        added = desktop.hubs.entry(other.url)
        return added is not None and desktop.window.shown_hub is added and desktop.window.timeline_model.room == "ops"

    qtbot.waitUntil(joined, timeout=15_000)
    assert first in desktop.hubs.entries and first.bridge.is_live
    assert other.url in load_settings(desktop.home.settings_file).settings.hubs
    run_coroutine(qtbot, qloop, peer.close())


def test_a_rooms_menu_acts_on_its_own_hub_and_a_headings_menu_on_that_hub(qtbot, qloop, three_hubs):
    """Mark as read on "team" of a hub not shown moves that hub's cursor, not the same-named
    room's on the other hub; a heading's menu retries, folds and removes that hub."""
    app, shared, killable, peers = three_hubs
    window = app.window
    for hub in (shared, killable):
        run_coroutine(qtbot, qloop, say(peers[hub.url], "team", "unread"))
    qtbot.waitUntil(lambda: (shared.url, "team", 1) in rows(window) and (killable.url, "team", 1) in rows(window), timeout=10_000)
    click_action(qtbot, row_menu(qtbot, app, "team", killable.url), "Mark as read")
    qtbot.waitUntil(lambda: (killable.url, "team", 0) in rows(window), timeout=10_000)
    assert (shared.url, "team", 1) in rows(window)  # the same-named room on the other hub is still unread

    menu = row_menu(qtbot, app, None, killable.url)
    assert [a.text() for a in menu.actions() if a.text()] == ["Retry now", "Fold its rooms", "Rename…", "Sort rooms", "Keep messages…", "Remove this hub…"]
    click_action(qtbot, menu, "Fold its rooms")
    qtbot.waitUntil(lambda: (killable.url, "team", 0) not in rows(window), timeout=5000)
    click_action(qtbot, row_menu(qtbot, app, None, killable.url), "Remove this hub…")
    box = question(qtbot, window, "Remove this hub")
    assert f"Remove {app.hubs.entry(killable.url).label} from this window?" in box.text()
    QTest.mouseClick(next(b for b in box.buttons() if b.text() == "Remove"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.hubs.entry(killable.url) is None, timeout=10_000)
    assert window.shown_hub is app.hubs.entry("")  # the hub shown was not the one removed


def test_a_message_link_opens_on_its_own_hub_and_one_for_a_hub_not_held_offers_to_add_it(qtbot, qloop, three_hubs, hub_factory):
    app, shared, killable, peers = three_hubs
    window = app.window
    seq = run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "the message linked to"))
    qtbot.waitUntil(lambda: (killable.url, "team", 1) in rows(window), timeout=10_000)
    app.message_links.open(message_link(killable.url, "team", seq))
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(killable.url) and window.timeline_model.room == "team"
                    and window.timeline_model.newest_seq == seq, timeout=10_000)
    elsewhere = hub_factory()
    box = app.message_links.open(message_link(elsewhere.url, "plans", 7))
    host = elsewhere.url.split("/")[2]
    assert box is not None and f"on {host}, a hub this window does not hold" in box.text()
    assert app.hubs.entry(elsewhere.url) is None  # nothing added before the yes
    said: list[str] = []  # every status line (a later one, e.g. a hub going live, may replace it)
    window.statusBar().messageChanged.connect(said.append)
    QTest.mouseClick(next(b for b in box.buttons() if b.text() == "Add hub"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.hubs.entry(elsewhere.url) is not None and app.hubs.entry(elsewhere.url).bridge.is_live, timeout=15_000)
    qtbot.waitUntil(lambda: "You are not a member of plans" in said, timeout=10_000)
    asked_again = [b for b in window.findChildren(QMessageBox) if b.isVisible()]  # (another hub's rooms read meanwhile)
    assert not asked_again, [b.text() for b in asked_again]


def test_search_all_rooms_finds_on_every_hub_names_the_hub_and_opens_there(qtbot, qloop, three_hubs):
    app, shared, killable, peers = three_hubs
    window = app.window
    run_coroutine(qtbot, qloop, say(peers[shared.url], "team", "the billing deploy is green"))
    wanted = run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "the billing deploy failed"))
    qtbot.waitUntil(lambda: (shared.url, "team", 1) in rows(window) and (killable.url, "team", 1) in rows(window), timeout=10_000)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = app.search.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    qtbot.keyClicks(dialog.query, "billing")
    model = dialog.results.model()
    qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=10_000)
    places = [model.index(row).data(HIT_PLACE) for row in range(2)]
    assert places == [f"team  ·  {app.hubs.entry(killable.url).label}", f"team  ·  {app.hubs.entry(shared.url).label}"]  # newest first
    QTest.keyClick(dialog.query, Qt.Key.Key_Return)  # the first (newest) result
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(killable.url) and window.timeline_model.room == "team"
                    and window.timeline_model.newest_seq == wanted, timeout=10_000)
    dialog.close()  # (a dialog outlives its window's close in a test: the app would have quit)


def run_app(qtbot, qloop, home: Home):
    """The window as the app runs it; (app, its run task)."""
    app = DesktopApp(home)
    return app, qloop.create_task(app.run())


def quit_app(qtbot, app, running) -> None:
    app.quit()
    qtbot.waitUntil(running.done, timeout=20_000)


def test_a_damaged_cache_on_one_hub_shows_on_its_heading_and_the_others_stay_live(qtbot, qloop, tmp_path, hub_factory):
    shared, damaged_hub = hub_factory(), hub_factory()
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=("", shared.url, damaged_hub.url)))
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(damaged_hub.url, name="alice"))
    app, running = run_app(qtbot, qloop, home)
    qtbot.waitUntil(lambda: len(app.hubs.entries) == 3 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
    code = run_coroutine(qtbot, qloop, invite_code(peer, "team"))
    run_coroutine(qtbot, qloop, app.hubs.entry(damaged_hub.url).bridge.session.redeem(code))
    run_coroutine(qtbot, qloop, say(peer, "team", "before the damage"))
    qtbot.waitUntil(lambda: (damaged_hub.url, "team", 1) in rows(app.window), timeout=10_000)
    quit_app(qtbot, app, running)
    agent_id = load_or_create_identity(home.key_file).agent_id
    fill_and_damage(home.store_path(damaged_hub.url, agent_id), "truncated")

    app, running = run_app(qtbot, qloop, home)
    try:
        qtbot.waitUntil(lambda: app.hubs.entry(damaged_hub.url) is not None and app.hubs.entry(damaged_hub.url).damaged_store is not None, timeout=30_000)
        entry = app.hubs.entry(damaged_hub.url)
        assert "damaged" in heading_state(app.window, damaged_hub.url).heading
        qtbot.waitUntil(lambda: app.hubs.entry("").bridge.is_live and app.hubs.entry(shared.url).bridge.is_live, timeout=30_000)
        click_action(qtbot, row_menu(qtbot, app, None, damaged_hub.url), "Start with a fresh cache")
        qtbot.waitUntil(lambda: entry.bridge.is_live and (damaged_hub.url, "team", 1) in rows(app.window), timeout=30_000)
        assert entry.damaged_store is None and app.hubs.entry(shared.url).bridge.is_live
        assert len(set_aside(home.store_path(damaged_hub.url, agent_id))) == 1  # kept, not deleted
    finally:
        quit_app(qtbot, app, running)
        run_coroutine(qtbot, qloop, peer.close())


def test_the_tray_counts_every_hub_and_shows_the_worst_hubs_health(qtbot, qloop, three_hubs):
    app, shared, killable, peers = three_hubs
    tray = Tray(app.window, app.hubs, app.attention.preferences)  # (offscreen Qt has no tray: made by hand)
    run_coroutine(qtbot, qloop, say(peers[shared.url], "team", "one"))
    run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "two"))
    qtbot.waitUntil(lambda: "2 unread" in tray.toolTip(), timeout=10_000)
    assert tray._tone is Tone.OK
    run_coroutine(qtbot, qloop, peers[killable.url].close())
    killable.kill()
    label = app.hubs.entry(killable.url).label
    qtbot.waitUntil(lambda: f"{label}: " in tray.toolTip() and "Retrying in " in tray.toolTip(), timeout=30_000)
    assert tray._tone is Tone.WARN and "This computer: Live as boss" in tray.toolTip()


def test_the_other_hubs_open_and_go_live_while_the_shown_hubs_session_is_still_opening(qtbot, qloop, tmp_path, hub_factory, monkeypatch):
    """At launch every hub's session opens at once (identity, store, cached rooms): the others
    went live only once the shown hub's had opened, so a slow first hub held every hub's catch-up."""
    from parler_desktop.client.session import HubSession

    shown, other = hub_factory(), hub_factory()
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(shown.url, other.url)))
    held = asyncio.Event()
    real_open = HubSession.open.__func__

    async def open_held(cls, home, hub_url, **kwargs):  # the shown hub's open waits until released
        if hub_url == shown.url:
            await held.wait()
        return await real_open(cls, home, hub_url, **kwargs)

    monkeypatch.setattr(HubSession, "open", classmethod(open_held))
    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    qtbot.waitUntil(lambda: len(app.hubs.entries) == 2, timeout=10_000)
    qtbot.waitUntil(lambda: app.hubs.entry(other.url).bridge.is_live, timeout=15_000)
    assert app.hubs.entry(shown.url).bridge.session is None  # still opening
    held.set()
    qtbot.waitUntil(lambda: app.hubs.entry(shown.url).bridge.is_live, timeout=15_000)
    app.quit()
    qtbot.waitUntil(running.done, timeout=20_000)
