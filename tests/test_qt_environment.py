"""The app's Qt paints on the painting thread: no GUI thread pool hand-off for a big fill."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts /proc threads")]

FILL = """
import os, sys
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter
from parler_desktop.cli.gui_command import _application
app = _application() if sys.argv[1] == "app" else __import__("PySide6.QtWidgets").QtWidgets.QApplication([])
before = len(os.listdir("/proc/self/task"))
image = QImage(400, 1200, QImage.Format.Format_ARGB32_Premultiplied)
painter = QPainter(image)
gradient = QLinearGradient(0, 0, 400, 0)
gradient.setColorAt(0, QColor("white"))
gradient.setColorAt(1, QColor("navy"))
for _ in range(20):
    painter.fillRect(image.rect(), gradient)  # 1,200 lines: Qt would hand this to its GUI thread pool
painter.end()
print(len(os.listdir("/proc/self/task")) - before)
"""


def threads_added_by_a_big_fill(how: str) -> int:
    environment = {name: value for name, value in os.environ.items() if name != "QT_NO_GUI_THREADPOOL"}
    environment["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run([sys.executable, "-c", FILL, how], env=environment, capture_output=True, text=True, timeout=50)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_the_window_fills_on_its_own_thread():
    assert threads_added_by_a_big_fill("plain Qt") > 0  # what Qt does unless told
    assert threads_added_by_a_big_fill("app") == 0
