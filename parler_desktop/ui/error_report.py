"""Shows each logged failure once, in a non-modal box that points at the log.

Every unhandled exception ends up in the log with its trace (``logs.py``; supervised tasks log
their own); this handler watches for those records and tells the user instead of letting the
failure pass silently. A box never blocks the window (it is shown, not exec'd), the same failure
is shown only once, and one box serves them all: later failures update it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from parler_desktop.app.display_text import NOTICE_CHARS, display_text

TITLE = "Parler: something went wrong"


def open_folder(folder: Path) -> bool:
    """Open ``folder`` in the desktop's file manager (made first if it is missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return False
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


class _Relay(QObject):
    failed = Signal(str)  # emitted from any thread; delivered on the window's


class ErrorReport(logging.Handler):
    """A logging handler for records that carry a trace; attach with ``install()``."""

    def __init__(self, window: QWidget, log_dir: Path, open_log_folder: Callable[[], None]) -> None:
        """``open_log_folder`` is the box's Open log folder (Help's: it says so when it cannot)."""
        super().__init__(logging.ERROR)
        self._window = window
        self._log_dir = log_dir
        self._open_log_folder = open_log_folder
        self._relay = _Relay(window)
        self._relay.failed.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self._shown: set[str] = set()
        self.box: QMessageBox | None = None

    def install(self) -> None:
        logging.getLogger().addHandler(self)

    def uninstall(self) -> None:
        logging.getLogger().removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            self._relay.failed.emit(f"{type(error).__name__}: {error}")

    def _show(self, summary: str) -> None:
        if summary in self._shown:
            return
        self._shown.add(summary)
        if self.box is None:
            self.box = QMessageBox(QMessageBox.Icon.Warning, TITLE, "", QMessageBox.StandardButton.Close, self._window)
            self.box.setTextFormat(Qt.TextFormat.PlainText)  # the error may quote the hub
            self.box.setWindowModality(Qt.WindowModality.NonModal)
            logs = self.box.addButton("Open log folder", QMessageBox.ButtonRole.ActionRole)
            logs.clicked.connect(self._open_log_folder)
        count = len(self._shown)
        more = f"\n\n({count} different errors so far.)" if count > 1 else ""
        self.box.setText(
            f"{display_text(summary, NOTICE_CHARS)}\n\nThe app keeps running, but this is a bug. The full trace is in the log in "
            f"{self._log_dir}; please attach it to a bug report.{more}"
        )
        self.box.show()
