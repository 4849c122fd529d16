"""While the human is away, one summary per room once the line goes quiet; nothing while looking."""

from __future__ import annotations

from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import ME, add_messages, bridge, message, session, store  # noqa: F401

from parler_desktop.app.unseen_tally import UnseenTally


def test_one_summary_per_room_after_the_burst(qtbot, qloop, session, bridge):
    # The quiet window is far longer than two store writes take even on a busy machine, so both
    # batches always land in one burst.
    tally = UnseenTally(bridge, quiet_ms=1500)
    summaries = []
    tally.summary.connect(lambda room, count, _for_me: summaries.append((room, count)))
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 6)])
    add_messages(qtbot, qloop, session, [message(10, "ops"), message(11, "team"), message(12, "team", sender=ME)])
    qtbot.waitUntil(lambda: len(summaries) == 2, timeout=10000)
    assert summaries == [("ops", 1), ("team", 6)]  # the human's own message is not news


def test_nothing_is_tallied_while_the_window_is_active(qtbot, qloop, session, bridge):
    tally = UnseenTally(bridge, quiet_ms=100)
    summaries = []
    tally.summary.connect(lambda room, count, _for_me: summaries.append((room, count)))
    add_messages(qtbot, qloop, session, [message(1, "team")])
    tally.set_window_active(True)  # came back before the summary: it is dropped
    add_messages(qtbot, qloop, session, [message(2, "team")])
    tally.set_window_active(False)  # away again: only what arrives from now on is news
    add_messages(qtbot, qloop, session, [message(3, "team")])
    qtbot.waitUntil(lambda: bool(summaries), timeout=10000)
    assert summaries == [("team", 1)]