"""The human's post takes its place by seq among the agents' messages at once, not only after a
busy room falls quiet."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from support.desktop_fixtures import join_room, open_room
from support.peer_ops import say
from support.qt_loop import qloop  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def hub(hub_factory):
    from parler_desktop.hub import HubLimits

    return hub_factory(limits=HubLimits().relaxed())  # the agent talks faster than 240 a minute


def test_my_post_is_placed_by_seq_while_agents_keep_talking(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    model = desktop.window.timeline_model
    talking = True

    def shown(text: str) -> bool:
        return any(model.entry(row).text == text for row in range(max(0, model.rowCount() - 5), model.rowCount()))

    async def chatter() -> int:
        """A busy room, never quiet for the session's quiet_secs (2 s): the agent says the next
        thing as soon as the window shows the last."""
        said = 0
        while talking or said < 10:
            await say(peer, team, f"agent {said}")
            while not shown(f"agent {said}"):
                await asyncio.sleep(0.005)
            said += 1
        return said

    flood = qloop.create_task(chatter())
    qtbot.waitUntil(lambda: model.rowCount() >= 5, timeout=10_000)
    composer = desktop.window.composer
    qtbot.keyClicks(composer.edit, "human here")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)

    def mine_is_stored() -> bool:
        return any(e.mine and e.outbox is None and e.text == "human here" for e in map(model.entry, range(model.rowCount())))

    try:
        qtbot.waitUntil(mine_is_stored, timeout=10_000)
        assert not flood.done()  # the room never fell quiet meanwhile
        qtbot.waitUntil(lambda: model.entry(model.rowCount() - 1).text != "human here" or flood.done(), timeout=5000)
        seqs = [model.entry(row).seq for row in range(model.rowCount())]
        assert None not in seqs and seqs == sorted(seqs)
    finally:
        talking = False
        qtbot.waitUntil(flood.done, timeout=20_000)
