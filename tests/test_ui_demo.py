"""The demo offered on the empty first-run screen: one click and scripted agents bring the
supervisor into their rooms, in the real window on a real hub."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.demo.script import BUILD, PLANNING, REVIEW


def test_the_empty_screen_offers_the_demo_and_one_click_fills_three_rooms(qtbot, qloop, desktop):  # noqa: F811
    window = desktop.window
    offer = window.demo_offer
    qtbot.waitUntil(offer.isVisible, timeout=5000)
    assert "No rooms yet" in window.timeline.placeholder and offer.text().startswith("Watch a demo")
    area = window.timeline.viewport().rect()
    assert area.contains(offer.geometry()) and offer.y() > area.center().y()  # below the text, inside the view
    window.resize(window.width() + 160, window.height() + 100)  # it stays centred under the text
    centred = lambda: abs(offer.geometry().center().x() - window.timeline.viewport().rect().center().x()) <= 1  # noqa: E731
    qtbot.waitUntil(lambda: window.timeline.viewport().width() > area.width(), timeout=5000)
    QCoreApplication.processEvents()
    assert centred()

    qtbot.mouseClick(offer, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: {PLANNING, BUILD, REVIEW} <= set(window.rooms.room_names()), timeout=15_000)
    assert not offer.isVisible()
    qtbot.waitUntil(lambda: window.timeline_model.room is not None and window.timeline_model.rowCount() > 0, timeout=15_000)
    first = window.timeline_model.entry(0)
    assert first.sender_name == "planner" and "Invite links should open the desktop app" in first.text

    qtbot.mouseClick(offer, Qt.MouseButton.LeftButton)  # hidden and already running: no second cast
    assert len([t for t in desktop.bridge.tasks.tasks if t.get_name().endswith(":demo")]) == 1
    run_coroutine(qtbot, qloop, desktop.shutdown())  # stops the agents with the window
    assert desktop.errors.box is None
