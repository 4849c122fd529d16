"""Issue 47, items 1 and 2, through the real window: a hub that answers out of turn is said so
in the connection line (never a bug dialog), and the human's post never disappears. The window
is pointed at the hostile hub fixture (on a thread of its own) in front of a real hub; each test
failed before its fix."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from support.desktop_fixtures import click_room, start_desktop, stop_desktop
from support.hostile_hub import HostileHub
from support.hub_lies import AnotherAuthorsSeq, Lie, PageOfAnotherRoom, PongForSend, SentButNotStored
from support.peer_ops import hub_history
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def bot(qtbot, qloop, hub) -> Any:
    agent = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bot"))
    yield agent
    run_coroutine(qtbot, qloop, agent.close())


@pytest.fixture
def hostile(hub) -> Any:
    """``hostile(lie)`` → a HostileHub telling ``lie`` in front of ``hub``, on its own thread."""
    started: list[HostileHub] = []

    def start(lie: Lie) -> HostileHub:
        started.append(HostileHub.in_thread(hub.url, lie))
        return started[-1]

    yield start
    for proxy in started:
        proxy.stop()


def say(qtbot, qloop, bot: RawAgent, text: str) -> dict:
    frame = {"op": "send", "target": {"kind": "room", "room": "team"}, "parts": [{"kind": "text", "text": text}]}
    return run_coroutine(qtbot, qloop, bot.ok(frame, "sent"))


def join_team(qtbot, qloop, desktop: Any, bot: RawAgent, *texts: str) -> None:
    """bot makes 'team' and says ``texts`` in it; then the window's human joins it."""
    invited = run_coroutine(qtbot, qloop, bot.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))
    for text in texts:
        say(qtbot, qloop, bot, text)
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
    qtbot.waitUntil(lambda: "team" in desktop.window.rooms.room_names(), timeout=10_000)


def out_of_turn_shown(qtbot, desktop: Any) -> None:
    """The connection line says so, in one line; then Retry now, as the human would."""
    bar = desktop.window.connection_bar
    qtbot.waitUntil(lambda: "answered out of turn; reconnecting" in bar.text, timeout=20_000)
    assert bar.text.startswith("The hub at 127.0.0.1:") and "\n" not in bar.text


def retry_now(qtbot, desktop: Any) -> None:
    """Retry now, while the session waits to try again (on a busy machine its own next attempt
    may have got in first)."""
    bar = desktop.window.connection_bar
    qtbot.waitUntil(lambda: bar.retry.isVisible() or desktop.bridge.is_live, timeout=5000)
    if bar.retry.isVisible():
        qtbot.mouseClick(bar.retry, Qt.MouseButton.LeftButton)


def texts_shown(desktop: Any) -> list[tuple[str, str]]:
    """(text, status line) of every row of the open room's timeline."""
    view, model = desktop.window.timeline, desktop.window.timeline_model
    return [(model.entry(row).text, view.row_layout(model.index(row)).status_text) for row in range(model.rowCount())]


def test_a_page_of_another_room_never_leaves_team_empty(qtbot, qloop, tmp_path, hub, bot, hostile):
    lie = PageOfAnotherRoom(times=None)
    proxy = hostile(lie)
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    try:
        join_team(qtbot, qloop, desktop, bot, *(f"team {n}" for n in range(5)))
        out_of_turn_shown(qtbot, desktop)
        lie.stop()
        retry_now(qtbot, desktop)
        qtbot.waitUntil(lambda: desktop.bridge.is_live, timeout=15_000)
        click_room(qtbot, desktop, "team")
        qtbot.waitUntil(lambda: desktop.window.timeline_model.rowCount() == 5, timeout=10_000)
        assert [text for text, _status in texts_shown(desktop)] == [f"team {n}" for n in range(5)]
        assert "other" not in desktop.window.rooms.room_names()
        assert desktop.errors.box is None  # no "this is a bug" dialog
    finally:
        stop_desktop(qtbot, qloop, desktop)


def post(qtbot, desktop: Any, text: str) -> None:
    composer = desktop.window.composer.edit
    qtbot.keyClicks(composer, text)
    qtbot.keyClick(composer, Qt.Key.Key_Return)


@pytest.mark.parametrize("layout", ["alone", "beside an honest hub"])
def test_a_pong_for_a_post_says_out_of_turn_and_the_post_goes_out(qtbot, qloop, tmp_path, hub, hub_factory, bot, hostile, layout):
    lie = PongForSend(times=None)
    proxy = hostile(lie)
    honest = hub_factory().url if layout != "alone" else None
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url, beside=honest)
    try:
        join_team(qtbot, qloop, desktop, bot)
        click_room(qtbot, desktop, "team")
        post(qtbot, desktop, "hello")
        out_of_turn_shown(qtbot, desktop)
        assert texts_shown(desktop)[-1][0] == "hello"  # still there, waiting
        if honest is not None:  # the other hub carries on, live
            assert desktop.hubs.entry(honest).bridge.is_live
        lie.stop()
        retry_now(qtbot, desktop)
        model = desktop.window.timeline_model
        qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).message is not None, timeout=15_000)
        assert texts_shown(desktop) == [("hello", "")]
        assert [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(bot))] == ["hello"]
        assert desktop.errors.box is None
    finally:
        stop_desktop(qtbot, qloop, desktop)


@pytest.mark.parametrize("claim", ["never stored", "another author's seq"])
def test_a_post_the_hub_did_not_keep_stays_with_send_again(qtbot, qloop, tmp_path, hub, bot, hostile, claim):
    desktop = None
    lie: Lie
    if claim == "never stored":
        lie = SentButNotStored(times=None)
    else:
        lie = AnotherAuthorsSeq(0, "", times=None)
    proxy = hostile(lie)
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    try:
        join_team(qtbot, qloop, desktop, bot, "bot's own")
        if isinstance(lie, AnotherAuthorsSeq):
            bots = run_coroutine(qtbot, qloop, hub_history(bot))[0]
            lie.claim.update(seq=bots["seq"], id=bots["id"])
        click_room(qtbot, desktop, "team")
        qtbot.waitUntil(lambda: desktop.window.timeline_model.rowCount() == 1, timeout=10_000)
        post(qtbot, desktop, "mine")
        qtbot.waitUntil(lambda: ("mine", "The hub did not keep this") in texts_shown(desktop), timeout=15_000)
        assert [text for text, _status in texts_shown(desktop)] == ["bot's own", "mine"]
        view, model = desktop.window.timeline, desktop.window.timeline_model
        row = model.index(model.rowCount() - 1)
        layout = view.row_layout(row)
        lie.stop()
        top_left = view.visualRect(row).topLeft()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=top_left + layout.buttons["retry"].center())
        qtbot.waitUntil(lambda: model.rowCount() == 2 and model.entry(1).message is not None, timeout=15_000)
        assert texts_shown(desktop) == [("bot's own", ""), ("mine", "")]
        assert model.entry(1).mine
        history = run_coroutine(qtbot, qloop, hub_history(bot))
        assert [m["parts"][0]["text"] for m in history] == ["bot's own", "mine"]  # once: the same clientId
    finally:
        stop_desktop(qtbot, qloop, desktop)


def test_a_page_that_never_advances_leaves_the_window_live_and_quiet(qtbot, qloop, tmp_path, hub_factory):
    """Issue 47, item 4a: team's second page is its first again. The window shows what came,
    says why the rest did not, stays live, and asks again only after a pause (it asked 478
    times in 45 s)."""
    from parler_desktop.hub import HubLimits
    from support.hub_lies import StuckPage

    roomy = hub_factory(limits=HubLimits().relaxed())  # 501 messages from one agent
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(roomy.url, name="bot"))
    lie = StuckPage()
    proxy = HostileHub.in_thread(roomy.url, lie)
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
    try:
        invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))
        for n in range(501):
            say(qtbot, qloop, peer, f"team {n}")
        run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
        status = desktop.window.statusBar()
        qtbot.waitUntil(lambda: "does not advance" in status.currentMessage(), timeout=15_000)
        assert status.currentMessage().startswith("Could not read room team:")
        asked = lie.team_pulls
        rooms_calls = proxy.requests["rooms"]
        qtbot.waitUntil(lambda: proxy.requests["rooms"] > rooms_calls, timeout=30_000)  # a reconciliation since
        assert lie.team_pulls == asked and desktop.bridge.is_live
        click_room(qtbot, desktop, "team")
        assert desktop.window.timeline_model.rowCount() > 0  # the first page is there
    finally:
        stop_desktop(qtbot, qloop, desktop)
        proxy.stop()
        run_coroutine(qtbot, qloop, peer.close())
