"""The always-visible connection line: what the link to the hub is doing, Retry now, and — when
the local cache is damaged — Start with a fresh cache.

The line never widens the window: a text longer than the bar is elided, and the whole text is
in its tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPalette, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from parler_desktop.app.hubs.connection_status import NOT_CONNECTED, StatusView, Tone
from parler_desktop.app.tooltips import plain_tooltip

TONE_STYLES = {
    Tone.OK: "background: #e8f5e9; color: #1b5e20;",
    Tone.BUSY: "background: #e3f2fd; color: #0d47a1;",
    Tone.WARN: "background: #fff8e1; color: #8d6e00;",
    Tone.ERROR: "background: #ffebee; color: #b71c1c;",
}
DARK_TONE_STYLES = {  # the same tones for a dark theme: dark grounds, light text
    Tone.OK: "background: #1b3a1f; color: #c8e6c9;",
    Tone.BUSY: "background: #0d2a47; color: #bbdefb;",
    Tone.WARN: "background: #3e3100; color: #ffecb3;",
    Tone.ERROR: "background: #4a1111; color: #ffcdd2;",
}


class ElidedLabel(QLabel):
    """A one-line plain-text label that shows as much of its text as fits, ending in "…"."""

    def __init__(self, objectName: str) -> None:  # noqa: N803 - Qt's spelling
        super().__init__(objectName=objectName, textFormat=Qt.TextFormat.PlainText)  # may quote the hub
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self.setToolTip(plain_tooltip(text, wrap=True) if text else "")
        # A screen reader reads the whole text, never the tooltip's markup (its fallback description).
        self.setAccessibleName(" ".join(text.split()))
        self.setAccessibleDescription(self.accessibleName())
        self._elide()

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        one_line = " ".join(self.full_text.split())
        self.setText(self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, self.width()))


class ConnectionBar(QWidget):
    retryRequested = Signal()
    connectRequested = Signal()
    freshCacheRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("connectionState")
        self.setAccessibleName("Connection")
        self.label = ElidedLabel("connectionText")
        self.retry = QPushButton("Retry now", objectName="retryNow", accessibleDescription="Reconnect now instead of waiting")
        self.retry.clicked.connect(self.retryRequested)
        self.fresh_cache = QPushButton("Start with a fresh cache", objectName="freshCache")
        self.fresh_cache.setToolTip("Move the damaged cache aside (kept, not deleted), reload from the hub, send what was waiting")
        self.fresh_cache.clicked.connect(self.freshCacheRequested)
        self.fresh_cache.hide()
        self.connect_button = QPushButton(
            "Connect…", objectName="connectButton", accessibleDescription="Choose this hub's address and identity"
        )
        self.connect_button.clicked.connect(self.connectRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.retry)
        layout.addWidget(self.fresh_cache)
        layout.addWidget(self.connect_button)
        self.setAutoFillBackground(True)
        self.show_status(NOT_CONNECTED)

    def show_status(self, view: StatusView) -> None:
        self.label.set_full_text(view.text)
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        style = (DARK_TONE_STYLES if dark else TONE_STYLES)[view.tone]
        self.setStyleSheet(f"#connectionState {{ {style} }} QLabel {{ {style} }}")
        self.retry.setVisible(view.can_retry)

    def offer_fresh_cache(self, offered: bool) -> None:
        self.fresh_cache.setVisible(offered)

    @property
    def text(self) -> str:
        return self.label.full_text
