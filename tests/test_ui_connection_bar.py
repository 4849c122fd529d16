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
