"""How fast the timeline takes new messages and new widths: a message in a quiet room is in the
model and laid out in the same turn it was stored; a burst goes in a frame's worth at a time; an
append lays out only the new row; a new width lays out the rows on screen first, the rest later.
(Speed itself is measured by bench/bench_push.py and bench/bench_ui.py.)"""

from __future__ import annotations

from PySide6.QtCore import QPoint
from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import add_messages, bridge, message, session, store, store_call  # noqa: F401 - fixtures

from parler_desktop.app.append_pacer import FIRST_ROWS, MAX_ROWS, MIN_ROWS
from parler_desktop.store import LocalStore
from parler_desktop.ui import message_layout
from test_ui_timeline import at_bottom, make_view

LONG = "\n\n".join(f"paragraph {n}: " + "words that wrap " * 12 for n in range(4))


def opened(qtbot, qloop, session, bridge, count: int, text: str = ""):
    add_messages(qtbot, qloop, session, [message(seq, "team", text) for seq in range(1, count + 1)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", count)
    view = make_view(qtbot, bridge)
    qtbot.waitUntil(lambda: at_bottom(view) and not view.message_delegate.sizes.stale, timeout=5000)
    view.doItemsLayout()  # settled at the width the scroll bar leaves, and painted
    view.viewport().repaint()
    return view


def counting_layouts(monkeypatch) -> list[str]:
    """The key of every row laid out from now on (the real layout runs)."""
    laid_out: list[str] = []
    compute = message_layout.LayoutCache._compute

    def counted(self, entry, *args):  # noqa: ANN001, ANN202
        laid_out.append(entry.key)
        return compute(self, entry, *args)

    monkeypatch.setattr(message_layout.LayoutCache, "_compute", counted)
    return laid_out


def test_a_message_in_a_quiet_room_is_shown_in_the_turn_it_was_stored(qtbot, qloop, session, bridge):
    view = opened(qtbot, qloop, session, bridge, 30)
    model = view.model()
    seen_at_announce: list[int] = []
    bridge.messagesStored.connect(lambda room, messages, live: seen_at_announce.append(model.newest_seq))
    add_messages(qtbot, qloop, session, [message(100, "team", "now")])
    assert seen_at_announce == [100]  # appended before the announcement reached anyone after the model
    assert at_bottom(view)


def test_a_burst_goes_in_a_frame_at_a_time_and_all_of_it_arrives(qtbot, qloop, session, bridge):
    view = opened(qtbot, qloop, session, bridge, 30)
    model = view.model()
    inserts: list[int] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserts.append(last - first + 1))
    burst = 8 * MAX_ROWS
    add_messages(qtbot, qloop, session, [message(1000 + n, "team") for n in range(burst)])
    assert inserts == [FIRST_ROWS]  # the first slice at once, the rest in later frames
    qtbot.waitUntil(lambda: model.newest_seq == 1000 + burst - 1, timeout=10_000)
    assert sum(inserts) == burst and len(inserts) > 1 and all(MIN_ROWS <= n <= MAX_ROWS for n in inserts[:-1])
    assert [model.entry(row).seq for row in range(model.rowCount())][-burst:] == list(range(1000, 1000 + burst))
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)


def test_an_append_lays_out_only_the_new_row(qtbot, qloop, session, bridge, monkeypatch):
    view = opened(qtbot, qloop, session, bridge, 150)
    laid_out = counting_layouts(monkeypatch)
    looked_up: list[str] = []
    get = message_layout.LayoutCache.get
    monkeypatch.setattr(message_layout.LayoutCache, "get", lambda self, entry, *a: looked_up.append(entry.key) or get(self, entry, *a))
    add_messages(qtbot, qloop, session, [message(200, "team", "one more")])
    qtbot.waitUntil(lambda: view.model().newest_seq == 200, timeout=5000)
    view.viewport().repaint()
    assert laid_out == ["m200"]
    assert len(looked_up) < 40  # the rows painted; Qt's relayout of all 151 rows asked no layout


def test_a_new_width_lays_out_the_rows_on_screen_first_and_the_rest_later(qtbot, qloop, session, bridge, monkeypatch):
    view = opened(qtbot, qloop, session, bridge, 120, LONG)
    model, delegate = view.model(), view.message_delegate
    laid_out = counting_layouts(monkeypatch)
    view.resize(450, 400)
    view.doItemsLayout()
    on_screen = {view.indexAt(QPoint(0, y)).row() for y in range(0, view.viewport().height(), 10)} - {-1}
    assert on_screen and {f"m{row + 1}" for row in on_screen} <= set(laid_out)
    assert len(laid_out) < model.rowCount() // 2 and delegate.sizes.stale  # the rest waits
    qtbot.waitUntil(lambda: not delegate.sizes.stale, timeout=10_000)
    assert len(set(laid_out)) == model.rowCount()
    view.doItemsLayout()
    width = delegate.row_width()
    for row in range(model.rowCount()):  # every row is now placed with its height at the new width
        exact = delegate.layouts.get(model.entry(row), width, model.row_context(row), view.font()).height
        assert view.visualRect(model.index(row)).height() == exact
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
