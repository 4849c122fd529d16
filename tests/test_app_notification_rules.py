"""Which messages notify, rule by rule: the notifier over a real store, its alerts shown through
the real D-Bus client on a private bus, counted on a fake notification server."""

from __future__ import annotations

import dataclasses

import pytest
from support.private_bus import FakeNotificationServer, bus_address, needs_dbus, notifications_settled  # noqa: F401
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import ALICE, ME, add_messages, bridge, message, session, store, store_call  # noqa: F401

from parler_desktop.app.attention.attention_notifier import AttentionNotifier
from parler_desktop.app.attention.attention_rules import RuleError, parse_rules
from parler_desktop.app.attention.attention_settings import AttentionSettings, Level
from parler_desktop.app.attention.desktop_notifications import DesktopNotifications
from parler_desktop.client.events import ConnectionState, RoomsChanged, StateChanged
from parler_desktop.protocol.values import EndpointRef, RoomInfo, StoredMessage
from parler_desktop.store import LocalStore

pytestmark = needs_dbus
HUB = "ws://hub.example:7070/ws"  # the notifier's hub, as the settings name it
NOISY = EndpointRef(id="UNOISY", name="noisy", role="worker")


def handoff(to: str) -> dict:
    return {"kind": "com.parler.handoff", "next": "review the patch", "to": to}


def task(status: str) -> dict:
    return {"kind": "com.parler.task", "status": status, "task": "migrate"}


class Harness:
    """The notifier on a stand-in session, showing its alerts through the real D-Bus client."""

    def __init__(self, qtbot, qloop, session, bridge, server, bus: str) -> None:
        self.qtbot, self.qloop, self.session, self.bridge, self.server = qtbot, qloop, session, bridge, server
        self.settings = AttentionSettings()
        self.shown_room: str | None = None
        self.notifier = AttentionNotifier(
            bridge,
            lambda: HUB,
            lambda: self.settings,
            lambda room: room,
            lambda room: room == self.shown_room,
            quiet_ms=50,
            max_wait_ms=200,
        )
        self.desktop = DesktopNotifications(bridge.tasks, bus)
        assert run_coroutine(qtbot, qloop, self.desktop.start())
        self.notifier.alert.connect(self.desktop.show)
        self.seq = 0
        session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, ME.id))

    def room_kinds(self, **kinds: str) -> None:
        self.session.emit(RoomsChanged(tuple(RoomInfo(name=n, kind=k, members=2, unread=0) for n, k in kinds.items())))

    def post(self, room: str, text: str = "", sender: EndpointRef = ALICE, parts: tuple = (), **fields) -> None:
        add_messages(self.qtbot, self.qloop, self.session, [self.made(room, text, sender, parts, **fields)])

    def post_together(self, room: str, *texts: str, **fields) -> None:
        """Several messages stored at once: one batch, however slow the machine (two posts one
        after the other are two batches when the second comes after the quiet time)."""
        add_messages(self.qtbot, self.qloop, self.session, [self.made(room, text, ALICE, (), **fields) for text in texts])

    def made(self, room: str, text: str, sender: EndpointRef, parts: tuple, **fields) -> StoredMessage:
        self.seq += 1
        made = message(self.seq, room, text or f"message {self.seq}", sender, **fields)
        return dataclasses.replace(made, parts=made.parts + parts)

    def notified(self) -> list[str]:
        """Once all is announced: the rooms with a notification on screen, sorted."""
        self.qtbot.waitUntil(lambda: notifications_settled(self.notifier, self.bridge.tasks), timeout=5000)
        return sorted(shown.summary.split(" in ")[-1] for shown in self.server.shown.values())


@pytest.fixture
def harness(qtbot, qloop, session, bridge, bus_address):
    server = run_coroutine(qtbot, qloop, FakeNotificationServer().start(bus_address))
    made = Harness(qtbot, qloop, session, bridge, server, bus_address)
    yield made
    run_coroutine(qtbot, qloop, made.desktop.stop())
    run_coroutine(qtbot, qloop, server.stop())


def test_the_default_rules_keep_mentions_handoffs_to_me_waiting_or_failed_tasks_and_dms(harness):
    harness.room_kinds(
        **{
            name: "channel"
            for name in (
                "plain",
                "mention",
                "at-name",
                "to-me",
                "to-role",
                "to-carol",
                "failed",
                "awaiting",
                "working",
                "mine",
            )
        },
        dm="dm",
    )
    harness.post("plain", "just chatting")
    harness.post("mention", "have a look", mentions=("boss",))
    harness.post("at-name", "@boss have a look")
    harness.post("to-me", "yours", parts=(handoff("boss"),))
    harness.post("to-role", "yours", parts=(handoff("supervisor"),))
    harness.post("to-carol", "not yours", parts=(handoff("carol"),))
    harness.post("failed", "broke", parts=(task("failed"),))
    harness.post("awaiting", "need input", parts=(task("awaiting"),))
    harness.post("working", "busy", parts=(task("working"),))
    harness.post("mine", "@boss my own words", sender=ME)
    harness.post("dm", "hello there")
    assert harness.notified() == ["at-name", "awaiting", "dm", "failed", "mention", "to-me", "to-role"]
    assert harness.server.notify_calls == 7


def test_a_slow_catch_up_waits_for_the_live_line_and_ends_in_one_summary_per_room(qtbot, harness):
    harness.session.emit(StateChanged(ConnectionState.CATCHING_UP, harness.session.hub_url, ME.id))
    for page in range(3):  # pages far apart: the quiet timer runs out between them
        with qtbot.waitSignal(harness.notifier._quiet.timeout, timeout=2000):
            for room in ("a", "b"):
                harness.post(room, f"@boss page {page}" if page == 1 else f"page {page}")
    assert harness.server.notify_calls == 0 and harness.notifier.pending_rooms == ["a", "b"]
    harness.session.emit(StateChanged(ConnectionState.LIVE, harness.session.hub_url, ME.id))
    qtbot.waitUntil(lambda: harness.server.notify_calls == 2, timeout=5000)
    assert harness.notified() == ["a", "b"]
    assert {shown.body for shown in harness.server.shown.values()} == {"alice: 3 new, 1 for you"}


def test_messages_read_meanwhile_are_left_out(qtbot, qloop, harness):
    harness.post("a", "@boss first")
    harness.post("a", "@boss second")
    store_call(qtbot, qloop, harness.session.store, LocalStore.set_cursor, "a", 1)
    assert harness.notified() == ["a"]
    (shown,) = harness.server.shown.values()
    assert (shown.summary, shown.body) == ("alice in a", "@boss second")


def test_room_levels_override_the_rules(harness):
    harness.settings = AttentionSettings(
        levels={(HUB, "loud"): Level.ALL, (HUB, "muted"): Level.NONE, (HUB, "focused"): Level.FOR_ME, ("elsewhere", "loud"): Level.NONE}
    )  # (a level of a same-named room on another hub is not this room's)
    harness.post("loud", "chatter")
    harness.post("muted", "@boss even this", mentions=("boss",))
    harness.post_together("focused", "chatter", "@boss this one")
    assert harness.notified() == ["focused", "loud"]
    (focused,) = [shown for shown in harness.server.shown.values() if "focused" in shown.summary]
    assert focused.body == "alice: 2 new, 1 for you"


def test_do_not_disturb_pause_and_the_room_on_screen_show_nothing(harness):
    harness.settings = AttentionSettings(quiet_until=4_000_000_000.0)
    harness.post("a", "@boss during dnd", mentions=("boss",))
    harness.settings = AttentionSettings(paused=True)
    harness.post("b", "@boss while paused", mentions=("boss",))
    harness.settings = AttentionSettings(quiet_until=1.0)  # a DND that ended long ago
    harness.shown_room = "c"
    harness.post("c", "@boss seen as it came in", mentions=("boss",))
    harness.post("e", "@boss on screen by the time the burst ends", mentions=("boss",))
    harness.shown_room = "e"
    harness.post("d", "@boss after dnd", mentions=("boss",))
    assert harness.notified() == ["d"]


def test_custom_rules_first_match_wins(harness):
    harness.settings = AttentionSettings(
        rules=parse_rules(
            [
                {"action": "drop", "when": {"author": "noisy"}},
                {"action": "keep", "when": {"text_prefix": "urgent"}},
                {"action": "keep", "when": {"room": "ops-*", "part_kind": "file"}},
                {"action": "keep", "when": {"author_role": "planner", "text_contains": ["deploy", "rollback"]}},
            ]
        )
    )
    harness.post("noise", "URGENT from noisy", sender=NOISY)
    harness.post("urgent", "Urgent: disk full")
    harness.post(
        "ops-files", "a log", parts=({"kind": "com.parler.file", "blob": "b" * 64, "name": "x.log", "size": 3},)
    )
    harness.post("files", "a log", parts=({"kind": "com.parler.file", "blob": "b" * 64, "name": "x.log", "size": 3},))
    harness.post("deploys", "starting the Rollback now")
    harness.post("other", "nothing special")
    assert harness.notified() == ["deploys", "ops-files", "urgent"]


def test_open_still_works_after_the_notification_service_restarts(qtbot, qloop, harness, bus_address):
    harness.post("a", "@boss first")
    harness.notified()
    run_coroutine(qtbot, qloop, harness.server.stop())  # the desktop's notification daemon restarts
    restarted = run_coroutine(qtbot, qloop, FakeNotificationServer().start(bus_address))
    try:
        harness.post("b", "@boss second")
        qtbot.waitUntil(lambda: restarted.notify_calls == 1, timeout=5000)
        (shown,) = restarted.shown.values()
        with qtbot.waitSignal(harness.desktop.opened, timeout=5000) as opened:
            run_coroutine(qtbot, qloop, restarted.invoke(shown.id, "default"))
        assert opened.args == ["b", harness.seq, ""]
    finally:
        run_coroutine(qtbot, qloop, restarted.stop())


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        ({"action": "keep"}, "must be a list"),
        (["keep"], "Rule 1 is not an object"),
        ([{"action": "keep", "when": {}}, {"action": "maybe"}], 'Rule 2: "action" must be "keep" or "drop"'),
        ([{"action": "keep", "when": {"auther": "x"}}], "Rule 1: unknown condition 'auther'"),
        ([{"action": "keep", "when": {"task_state": "stuck"}}], "task_state 'stuck' is not one of"),
        ([{"action": "keep", "when": {"mentions_me": "yes"}}], "mentions_me must be true or false"),
        ([{"action": "keep", "when": {"room": ""}}], "room must be a non-empty text"),
    ],
)
def test_invalid_rules_say_which_rule_and_what_is_wrong(rules, problem):
    with pytest.raises(RuleError, match=problem.replace("(", "\\(")):
        parse_rules(rules)
