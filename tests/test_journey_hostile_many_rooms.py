"""Journey: a hub that lists 100,000 rooms (issue 47, item 4: the window froze ~11.5 s, stayed
"Catching up…" for hours, and a post typed meanwhile never went out). The window stays
responsive while it lists and syncs them, and a post typed during that catch-up reaches the
real room. The window is pointed at the hostile hub fixture (on its own thread) in front of a
real hub; the made-up rooms' pulls are answered by the fixture with empty pages."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt, QTimer

from parler_desktop.app.room_list.busiest_rooms import SHOWN_ROOMS_MAX
from parler_desktop.client.sync import ROOMS_PER_PASS
from parler_desktop.store import LocalStore
from support.desktop_fixtures import click_room, start_desktop, stop_desktop
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.peer_ops import hub_history, say
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

pytestmark = pytest.mark.timeout(120)

MADE_UP = 99_990
STALL_MAX_SECS = 1.0  # the longest the window may stop answering while it lists the rooms


class ManyRooms(Misbehaviour):
    """Once ``listing``: every ``rooms`` reply lists the real rooms and ``MADE_UP`` made-up ones
    (one unread each); a pull of a made-up room goes to the hub as a ``ping`` (so its answer
    keeps its turn among the others) and its ``pong`` comes back as an empty page."""

    def __init__(self, made_up: int = MADE_UP, unread: int = 1) -> None:
        self.listing = False
        self.made_up = [{"name": f"r{n:05d}", "kind": "channel", "members": 2, "unread": unread} for n in range(made_up)]
        self.names = {room["name"] for room in self.made_up}

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") == "pull" and frame.get("room") in self.names:
            link.state[id(frame)] = frame["room"]
            frame.clear()
            frame["op"] = "ping"
        return None

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if request is not None and id(request) in link.state:
            return [{"type": "pulled", "room": link.state.pop(id(request)), "messages": [], "cursor": 0}]
        if self.listing and reply.get("type") == "rooms":
            return [{**reply, "rooms": [*reply["rooms"], *self.made_up]}]
        return [reply]


class StallMeter:
    """The longest gap between ticks of a 10 ms timer on the Qt thread: how long the window
    stopped answering, counted as the CPU this process spent in it (at most the gap): on a
    machine whose cores other processes hold, the thread also waits for a core, which is not
    the window's doing (``longest_gap``, the wall clock's, says how long that was)."""

    def __init__(self) -> None:
        self.longest = self.longest_gap = 0.0
        self._last, self._last_cpu = time.monotonic(), time.process_time()
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        now, cpu = time.monotonic(), time.process_time()
        gap = now - self._last
        self.longest_gap = max(self.longest_gap, gap)
        self.longest = max(self.longest, min(gap, cpu - self._last_cpu))
        self._last, self._last_cpu = now, cpu

    def said(self) -> str:
        return f"the window stopped answering for {self.longest:.2f} s of its own work ({self.longest_gap:.2f} s by the clock)"

    def stop(self) -> None:
        self._timer.stop()


def reached(qtbot, qloop, bot: RawAgent, text: str) -> Callable[[], bool]:
    """Whether the hub keeps ``text`` in 'team', for ``waitUntil``: asked once a second at most
    (each ask spends the bot's budget)."""
    asked = [0.0]

    def check() -> bool:
        if time.monotonic() - asked[0] < 1.0:
            return False
        asked[0] = time.monotonic()
        return text in [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(bot))]

    return check


def test_a_hub_listing_100000_rooms_leaves_the_window_responsive_and_a_post_goes_out(qtbot, qloop, tmp_path, hub):
    lie = ManyRooms()
    proxy = HostileHub.in_thread(hub.url, lie)
    bot = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bot"))
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    meter: StallMeter | None = None
    try:
        invited = run_coroutine(qtbot, qloop, bot.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))
        run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
        qtbot.waitUntil(lambda: "team" in desktop.window.rooms.room_names(), timeout=10_000)
        click_room(qtbot, desktop, "team")  # no message in it: listed because it is open
        lie.listing = True
        meter = StallMeter()
        desktop.bridge.notify_wake()  # a full reconciliation: the hub now lists 100,000 rooms
        more = desktop.window.room_panel.more_rooms
        qtbot.waitUntil(lambda: more.isVisible() and "more rooms not listed" in more.text(), timeout=60_000)
        assert more.text().startswith(f"{MADE_UP + 1 - SHOWN_ROOMS_MAX:,} more rooms not listed")  # none silently
        assert "team" in desktop.window.rooms.room_names()  # the open room stays listed
        composer = desktop.window.composer.edit
        qtbot.keyClicks(composer, "typed while it lists")
        qtbot.keyClick(composer, Qt.Key.Key_Return)
        qtbot.waitUntil(reached(qtbot, qloop, bot, "typed while it lists"), timeout=30_000)
        assert meter.longest < STALL_MAX_SECS, meter.said()
    finally:
        if meter is not None:
            meter.stop()
        stop_desktop(qtbot, qloop, desktop)
        run_coroutine(qtbot, qloop, bot.close())
        proxy.stop()


def test_a_window_reopened_on_a_hub_listing_100000_rooms_goes_live_and_a_post_typed_meanwhile_goes_out(qtbot, qloop, tmp_path, hub):
    """The catch-up of a (re)connection pulls the busiest rooms and goes live; the others are
    pulled in later passes (it stayed "Catching up…" for the ~3.5 h of 100,000 pulls)."""
    lie = ManyRooms()
    proxy = HostileHub.in_thread(hub.url, lie)
    bot = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bot"))
    home = tmp_path / "home"
    try:
        desktop = start_desktop(qtbot, qloop, home, proxy.url)
        try:
            invited = run_coroutine(qtbot, qloop, bot.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))
            run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
            qtbot.waitUntil(lambda: "team" in desktop.window.rooms.room_names(), timeout=10_000)
            click_room(qtbot, desktop, "team")
        finally:
            stop_desktop(qtbot, qloop, desktop)
        run_coroutine(qtbot, qloop, say(bot, "team", "while the window was closed"))
        lie.listing = True
        desktop = start_desktop(qtbot, qloop, home, proxy.url, live=False)  # reopens on 'team'
        meter = StallMeter()
        try:
            qtbot.waitUntil(lambda: desktop.window.timeline_model.room == "team", timeout=10_000)
            composer = desktop.window.composer.edit
            qtbot.keyClicks(composer, "typed while it catches up")
            qtbot.keyClick(composer, Qt.Key.Key_Return)
            qtbot.waitUntil(reached(qtbot, qloop, bot, "typed while it catches up"), timeout=30_000)
            qtbot.waitUntil(lambda: desktop.bridge.is_live, timeout=30_000)
            qtbot.waitUntil(lambda: "while the window was closed" in [
                desktop.window.timeline_model.entry(row).text for row in range(desktop.window.timeline_model.rowCount())
            ], timeout=10_000)
            assert meter.longest < STALL_MAX_SECS, meter.said()
        finally:
            meter.stop()
            stop_desktop(qtbot, qloop, desktop)
    finally:
        run_coroutine(qtbot, qloop, bot.close())
        proxy.stop()


def test_the_rooms_a_pass_leaves_are_pulled_by_the_passes_that_follow(qtbot, qloop, tmp_path, hub):
    """More rooms than a pass pulls (``ROOMS_PER_PASS``): every one is pulled and settled soon
    after the window is live, without waiting for the next full reconciliation."""
    lie = ManyRooms(made_up=ROOMS_PER_PASS + 20, unread=0)  # (an unread claim never settles: no message backs it)
    lie.listing = True
    proxy = HostileHub.in_thread(hub.url, lie)
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    try:
        def settled() -> int:
            return len(run_coroutine(qtbot, qloop, desktop.bridge.store.call(LocalStore.settled_unread)))

        qtbot.waitUntil(lambda: settled() == ROOMS_PER_PASS + 20, timeout=15_000)  # the next full pass: in 20 s
    finally:
        stop_desktop(qtbot, qloop, desktop)
        proxy.stop()


def test_the_filter_finds_any_room_the_hub_listed_and_opens_it(qtbot, qloop, tmp_path, hub):
    """The sidebar lists a hub's ``SHOWN_ROOMS_MAX`` busiest rooms; typing in the filter finds
    every room the hub listed (it searched only those shown: 97,991 of these could not be found),
    also when typed before the hub listed them, a bounded number at a time (searched on a worker
    thread), and Enter opens the one found, which stays listed."""
    from parler_desktop.app.room_list.room_search import FOUND_ROOMS_MAX
    from support.desktop_fixtures import listed_rooms

    lie = ManyRooms()
    proxy = HostileHub.in_thread(hub.url, lie)
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    try:
        window = desktop.window
        qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(window.room_panel.filter, "r9876")  # typed before the hub lists them
        lie.listing = True
        desktop.bridge.notify_wake()  # a full reconciliation: the hub now lists 100,000 rooms
        more = window.room_panel.more_rooms
        qtbot.waitUntil(lambda: more.isVisible() and "more rooms not listed" in more.text(), timeout=60_000)
        qtbot.waitUntil(lambda: len(listed_rooms(desktop)) == 10, timeout=10_000)  # r98760 … r98769
        assert set(listed_rooms(desktop)) == {f"r9876{n}" for n in range(10)}
        qtbot.keyClicks(window.room_panel.filter, "5")
        qtbot.waitUntil(lambda: listed_rooms(desktop) == ["r98765"], timeout=10_000)
        qtbot.keyClick(window.room_panel.filter, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: window.timeline_model.room == "r98765", timeout=10_000)
        assert window.room_panel.filter.text() == "" and "r98765" in listed_rooms(desktop)  # open: it stays listed
        qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(window.room_panel.filter, "r9")  # 9,990 rooms match: a bounded number are shown
        qtbot.waitUntil(lambda: "type more of the name" in more.text(), timeout=10_000)
        qtbot.waitUntil(lambda: len(listed_rooms(desktop)) >= FOUND_ROOMS_MAX, timeout=10_000)  # (added over a few turns)
        found = listed_rooms(desktop)
        assert FOUND_ROOMS_MAX <= len(found) <= FOUND_ROOMS_MAX + 1 and all(name.startswith("r9") for name in found)
    finally:
        stop_desktop(qtbot, qloop, desktop)
        proxy.stop()
