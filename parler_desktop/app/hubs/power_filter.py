"""Windows: the resume message reaches Qt's windows as ``WM_POWERBROADCAST``; a native event
filter on the application sees it before Qt drops it (``platform/wake/power_broadcast.py`` reads
the message). It only looks: every event goes on to Qt unchanged."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractNativeEventFilter, QByteArray, QCoreApplication

from parler_desktop.platform.wake.power_broadcast import is_resume_event


class PowerBroadcastFilter(QAbstractNativeEventFilter):
    def __init__(self, on_wake: Callable[[], None]) -> None:
        super().__init__()
        self._on_wake = on_wake

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
            self._on_wake()
        return False, 0
