"""Qt settings read from the environment once, so they are made before the QApplication.

Qt's raster engine hands every fill of 96 lines or more (a scroll bar, a panel's background) to a
GUI thread pool and waits for it. On a laptop's two busy cores the hand-off costs far more than the
fill: repainting the timeline's scroll bar took 3 ms with the pool and 0.23 ms without it
(``bench/bench_push.py``'s window, Fusion style), and the frame with a new message waited for it.
Fills stay on the thread that paints. A value already set in the environment is kept.
"""

from __future__ import annotations

import os


def prepare_qt_environment() -> None:
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")
