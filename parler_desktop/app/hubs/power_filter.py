"""Windows: the resume message reaches Qt's windows as ``WM_POWERBROADCAST``; a native event
filter on the application sees it before Qt drops it (``platform/wake/power_broadcast.py`` reads
the message). It only looks: every event goes on to Qt unchanged.

Windows sends the message to every top-level window, and Qt keeps a native one for the main
window, each dialog, and each menu or tooltip once shown: the copies that arrive within
``COALESCE_SECS`` of the first are the same resume, so ``on_wake`` runs once for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QAbstractNativeEventFilter, QByteArray, QCoreApplication

from parler_desktop.platform.wake.power_broadcast import is_resume_event

COALESCE_SECS = 2.0  # the windows hear it in one pass of the broadcast; a machine is awake longer between resumes


class PowerBroadcastFilter(QAbstractNativeEventFilter):
    def __init__(self, on_wake: Callable[[], None], clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._on_wake = on_wake
        self._clock = clock
        self._last_resume: float | None = None

    def install(self) -> bool:
        application = QCoreApplication.instance()
        if application is None:
            return False
        application.installNativeEventFilter(self)
        return True

    def remove(self) -> None:
        application = QCoreApplication.instance()
        if application is not None:
            application.removeNativeEventFilter(self)

    def nativeEventFilter(self, eventType: QByteArray | bytes, message: int) -> tuple[bool, int]:  # noqa: N802, N803 - Qt's names
        if is_resume_event(bytes(eventType), int(message)):
            now = self._clock()
            if self._last_resume is None or now - self._last_resume >= COALESCE_SECS:
                self._last_resume = now
                self._on_wake()
        return False, 0
