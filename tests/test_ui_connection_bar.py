"""The connection line never widens the window: a long status is elided, whole in its tooltip."""

from __future__ import annotations

import html

import pytest
from PySide6.QtCore import QPoint
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.hubs.connection_bar import ElidedLabel

pytestmark = pytest.mark.timeout(60)


def right_edge_in(window, widget) -> int:
    return widget.mapTo(window, QPoint(widget.width(), 0)).x()


def test_a_long_status_is_elided_and_the_buttons_stay_in_the_window(qtbot, qloop, tmp_path):
    home = Home.resolve(tmp_path / "home")
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    app = DesktopApp(home)
    window, bar = app.window, app.window.connection_bar
    window.resize(1000, 700)
    window.show()
    long_path = "/".join(f"segment-{n}" for n in range(200))
    hub_url = f"ws://127.0.0.1:99999/{long_path}/ws"  # a long address with a port out of range
    try:
        assert not run_coroutine(qtbot, qloop, app.connect(hub_url))
        assert bar.text.startswith("Could not connect: not a hub address") and hub_url in bar.text
        qtbot.waitUntil(lambda: bar.label.text().endswith("…"), timeout=5000)
        assert window.width() == 1000 and window.minimumSizeHint().width() < 1000
        assert bar.retry.isVisible() and right_edge_in(window, bar.retry) <= window.width()
        assert right_edge_in(window, bar.connect_button) <= window.width()
        # the text as text, cut where any notice is (a hub's error could be megabytes)
        assert html.escape(display_text(bar.text, NOTICE_CHARS)) in bar.label.toolTip()
    finally:
        run_coroutine(qtbot, qloop, app.shutdown())
        window.close()
        window.deleteLater()


def test_an_elided_label_given_the_same_text_again_changes_nothing(qtbot):
    """The room title is set again at every reload of the shown hub's rooms (several a second
    while agents talk fast: issue 42 item 3); the same text is neither elided nor told to screen
    readers again."""

    class CountingLabel(ElidedLabel):
        def __init__(self) -> None:
            super().__init__("countingLabel")
            self.set_texts = 0

        def setText(self, text: str) -> None:
            self.set_texts += 1
            super().setText(text)

    label = CountingLabel()
    qtbot.addWidget(label)
    label.resize(400, 30)
    label.set_full_text("team  ·  channel  ·  3 members")
    assert (label.set_texts, label.text(), label.accessibleName()) == (1, "team  ·  channel  ·  3 members", "team · channel · 3 members")
    label.set_full_text("team  ·  channel  ·  3 members")
    assert label.set_texts == 1
    label.set_full_text("team  ·  channel  ·  4 members")
    assert (label.set_texts, label.text()) == (2, "team  ·  channel  ·  4 members")
