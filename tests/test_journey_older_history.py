"""Journey: a room with more history than a first sync reads (issue 47: a hub claiming endless
history filled the disk) opens on its newest messages, and scrolling up brings the older ones
from the hub, in the real window."""

from __future__ import annotations

import pytest
from support.desktop_fixtures import activate, click_room, join_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.client.sync import FIRST_SYNC_MESSAGES
from parler_desktop.hub.config import HubLimits
from parler_desktop.ui.timeline.timeline_view import LOAD_OLDER_PX

pytestmark = pytest.mark.timeout(90)

MESSAGES = FIRST_SYNC_MESSAGES + 700  # two pages read and dropped, then the newest page (< 500)


@pytest.fixture
def hub(hub_factory):
    return hub_factory(limits=HubLimits().relaxed())  # the peer posts 1,700 messages at once


def test_a_long_room_opens_on_its_newest_messages_and_scrolling_up_reads_older_ones(qtbot, qloop, desktop, peer):
    async def post_history() -> list[int]:
        await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
        frame = {"op": "send", "target": {"kind": "room", "room": "team"}}
        return [(await peer.ok({**frame, "parts": [{"kind": "text", "text": f"line {n}"}]}, "sent"))["seq"] for n in range(MESSAGES)]

    seqs = run_coroutine(qtbot, qloop, post_history())
    team = join_room(qtbot, qloop, desktop, peer, "team")
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    view, model = desktop.window.timeline, desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=15_000)
    first_shown = model.entry(0).seq
    assert first_shown > seqs[FIRST_SYNC_MESSAGES]  # the newest messages, not the oldest
    bar = view.verticalScrollBar()

    def scrolled_up_to_the_first_message() -> bool:
        bar.setValue(bar.minimum() + LOAD_OLDER_PX + 1)  # a little down, and up to the top again
        bar.setValue(bar.minimum())
        loaded = [model.entry(row).seq for row in range(model.rowCount())]
        return loaded == seqs[:len(loaded)]  # every message from the first, in order, once

    qtbot.waitUntil(scrolled_up_to_the_first_message, timeout=30_000)
