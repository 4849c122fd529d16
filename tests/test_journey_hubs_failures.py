"""Failures stay on their own hub (issue 34 item 3): a hub nobody answers on, a hub at capacity and
a full disk under one hub's session each show on that hub's heading, and never stop the others
from counting and posting; after a night asleep every hub comes back on its own schedule and each
room, on each hub, is summed up in one notification."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.desktop_fixtures import activate, click_action, click_row, row_menu
from support.fault_proxy import FaultProxy
from support.peer_ops import hub_history, invite_code, say
from support.private_bus import bus_address, look_away, server, settled  # noqa: F401 - fixtures
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_hubs import heading_state, quit_app, rows, run_app

from parler_desktop.client import lifecycle
from parler_desktop.client.message_link import message_link
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings

pytestmark = pytest.mark.timeout(120)


def home_holding(path, *hubs: str) -> Home:
    home = Home.resolve(path).ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=hubs))
    return home


def joined(qtbot, qloop, app, peer: RawAgent, hub_url: str, room: str) -> None:
    """The window, on ``hub_url``, joins ``room`` (``peer``'s, made now) and lists it."""
    code = run_coroutine(qtbot, qloop, invite_code(peer, room))
    run_coroutine(qtbot, qloop, app.hubs.entry(hub_url).bridge.session.redeem(code))
    qtbot.waitUntil(lambda: any(hub == hub_url and name == room for hub, name, _n in rows(app.window)), timeout=10_000)


def test_an_unreachable_hub_and_a_hub_at_capacity_say_so_on_their_headings_while_a_third_counts_and_posts(
    qtbot, qloop, tmp_path, hub_factory, refused_port
):
    live, full = hub_factory(), hub_factory(limits={"max_connections": 1})
    squatter = run_coroutine(qtbot, qloop, RawAgent.connect(full.url, name="squatter"))  # holds its only place
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(live.url, name="alice"))
    nowhere = f"ws://127.0.0.1:{refused_port}/ws"
    app, running = run_app(qtbot, qloop, home_holding(tmp_path / "home", live.url, nowhere, full.url))
    try:
        window = app.window
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 3 and app.hubs.entry(live.url).bridge.is_live, timeout=30_000)
        qtbot.waitUntil(lambda: "Can't reach 127.0.0.1:" in heading_state(window, nowhere).heading, timeout=15_000)
        qtbot.waitUntil(lambda: "at capacity" in heading_state(window, full.url).heading, timeout=15_000)
        full_headings = [heading_state(window, full.url).heading]  # each line it shows from here on
        window.room_panel.model.dataChanged.connect(lambda *_: full_headings.append(heading_state(window, full.url).heading))
        for waiting in (nowhere, full.url):  # (after a few attempts, "Offline. Retrying in …")
            assert heading_state(window, waiting).heading.removeprefix("Offline. ").startswith("Retrying ")
        box = app.message_links.open(message_link("ws://192.0.2.7:7070/ws", "plans", 7))  # a hub held by none
        assert box is not None and "192.0.2.7:7070, a hub this window does not hold" in box.text()  # not kept waiting for those two
        box.close()
        said: list[str] = []
        window.statusBar().messageChanged.connect(said.append)
        assert app.message_links.open(message_link(nowhere, "team", 3)) is None  # a held hub, down: the link waits
        assert said == [f"That message opens once 127.0.0.1:{refused_port} is connected"]  # not a click that does nothing
        assert heading_state(window, live.url).heading == "Live as boss"

        joined(qtbot, qloop, app, peer, live.url, "team")
        for text in ("one", "two"):
            run_coroutine(qtbot, qloop, say(peer, "team", text))
        qtbot.waitUntil(lambda: (live.url, "team", 2) in rows(window) or window.timeline_model.room == "team", timeout=10_000)
        click_row(app, "team", live.url)
        activate(qtbot, app)
        qtbot.waitUntil(lambda: window.timeline_model.room == "team" and window.timeline_model.rowCount() == 2, timeout=10_000)
        qtbot.keyClicks(window.composer.edit, "still here")
        QTest.keyClick(window.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peer, "team"))][-1:] == ["still here"], timeout=10_000)
        assert [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peer, "team"))].count("still here") == 1
        click_action(qtbot, row_menu(qtbot, app, None, full.url), "Retry now")  # still full: tried, and refused again
        qtbot.waitUntil(lambda: any(line.startswith("Retrying now — ") for line in full_headings), timeout=15_000)
        qtbot.waitUntil(lambda: full_headings[-1].removeprefix("Offline. ").startswith("Retrying in "), timeout=15_000)
        assert all("at capacity" in line for line in full_headings)  # its line tells the same story all along

        run_coroutine(qtbot, qloop, squatter.close())  # a place is free: Retry now on its heading gets in
        click_action(qtbot, row_menu(qtbot, app, None, full.url), "Retry now")
        qtbot.waitUntil(lambda: app.hubs.entry(full.url).bridge.is_live, timeout=15_000)
        assert heading_state(window, full.url).heading == "Live as boss"
        assert "Can't reach" in heading_state(window, nowhere).heading and app.hubs.entry(live.url).bridge.is_live
    finally:
        quit_app(qtbot, app, running)
        run_coroutine(qtbot, qloop, peer.close())


def test_a_full_disk_takes_one_hubs_session_offline_on_its_heading_and_the_other_stays_live(
    qtbot, qloop, small_disk, hub_factory, monkeypatch
):
    """The home is on a small disk; the disk fills; the first hub's next write is refused: its
    heading says the disk is full, the second hub stays live. Once space is freed the first comes
    back by itself with what was said meanwhile."""
    monkeypatch.setattr(lifecycle, "DISK_ROOM_CHECK_SECS", 0.2)  # looked for often, so the test is quick
    first, second = hub_factory(), hub_factory()
    alice = run_coroutine(qtbot, qloop, RawAgent.connect(first.url, name="alice"))
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(second.url, name="bob"))
    app, running = run_app(qtbot, qloop, home_holding(small_disk.path / "home", first.url, second.url))
    try:
        window = app.window
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 2 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
        joined(qtbot, qloop, app, alice, first.url, "team")
        joined(qtbot, qloop, app, bob, second.url, "ops")
        look_away(qtbot, app)  # what comes in stays unread
        small_disk.fill()
        app.hubs.entry(first.url).bridge.session.watch_roster(["team"])  # refreshed now: its save is refused
        qtbot.waitUntil(lambda: heading_state(window, first.url).heading == "Offline. The disk is full: free some space.", timeout=10_000)
        assert app.hubs.entry(second.url).bridge.is_live and heading_state(window, second.url).heading == "Live as boss"

        run_coroutine(qtbot, qloop, say(alice, "team", "while you were full"))
        small_disk.free()
        qtbot.waitUntil(lambda: app.hubs.entry(first.url).bridge.is_live and (first.url, "team", 1) in rows(window), timeout=15_000)
        run_coroutine(qtbot, qloop, say(bob, "ops", "and here"))
        qtbot.waitUntil(lambda: (second.url, "ops", 1) in rows(window), timeout=10_000)
        assert app.hubs.entry(second.url).bridge.is_live
    finally:
        quit_app(qtbot, app, running)
        for agent in (alice, bob):
            run_coroutine(qtbot, qloop, agent.close())


def test_after_a_night_asleep_each_hub_comes_back_on_its_own_and_each_room_is_one_summary(
    qtbot, qloop, tmp_path, server, hub_factory
):
    """Two hubs, each with rooms "team" and "ops" (the same names on both), behind proxies. The
    lid closes (the lines stall), 40 messages land in each room, the lines die. On waking the
    first hub answers at once and the second only later (its network is still coming up): each
    hub's rooms are counted and summed up as its line comes back, one notification per room
    with something for the human, naming its hub; the rooms without stay quiet."""
    hubs = [hub_factory(), hub_factory()]
    proxies = [run_coroutine(qtbot, qloop, FaultProxy("127.0.0.1", hub.port).start()) for hub in hubs]
    urls = [proxy.url for proxy in proxies]
    agents = [run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice")) for hub in hubs]
    app, running = run_app(qtbot, qloop, home_holding(tmp_path / "home", *urls))
    try:
        window = app.window
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 2 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
        assert app.attention.desktop.available
        for url, agent in zip(urls, agents):
            for room in ("team", "ops"):
                joined(qtbot, qloop, app, agent, url, room)
        look_away(qtbot, app)
        qtbot.waitUntil(lambda: settled(app), timeout=10_000)
        before = server.notify_calls

        for proxy in proxies:
            proxy.stall()  # the lid closes: the sockets stay open and carry nothing
        for n in range(40):
            for agent in agents:
                for room in ("team", "ops"):
                    mention = n == 30 and room == "team"
                    text = "@boss the deploy needs your approval" if mention else f"progress {n}"
                    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": text}]}
                    run_coroutine(qtbot, qloop, agent.ok({**frame, **({"mentions": ["boss"]} if mention else {})}, "sent"))
        for proxy in proxies:
            proxy.cut()  # the lines died while asleep
        proxies[0].resume()
        proxies[1].stall()  # the second hub's route is still down on waking: connections open and hang
        first, second = (app.hubs.entry(url) for url in urls)
        for entry in (first, second):
            entry.bridge.notify_wake()  # what each hub's SleepWatch does when logind says the machine woke

        qtbot.waitUntil(lambda: (urls[0], "team", 40) in rows(window) and (urls[0], "ops", 40) in rows(window), timeout=30_000)
        qtbot.waitUntil(lambda: server.notify_calls == before + 1 and settled(app), timeout=15_000)
        assert not second.bridge.is_live
        proxies[1].resume()
        second.bridge.reconnect_now()  # (or its own backoff, later)
        qtbot.waitUntil(lambda: (urls[1], "team", 40) in rows(window) and (urls[1], "ops", 40) in rows(window), timeout=30_000)
        qtbot.waitUntil(lambda: server.notify_calls == before + 2 and settled(app), timeout=15_000)
        summaries = sorted((shown.summary, shown.body) for shown in server.shown.values() if "new" in shown.body)
        assert summaries == sorted((f"team · {entry.label}", "alice: 40 new, 1 for you") for entry in (first, second))
        assert window.windowTitle() == "Parler — 2 need you · 160 unread"  # each hub's mention waits on the human
    finally:
        quit_app(qtbot, app, running)
        for agent in agents:
            run_coroutine(qtbot, qloop, agent.close())
        for proxy in proxies:
            run_coroutine(qtbot, qloop, proxy.close())
