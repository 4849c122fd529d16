"""The always-visible connection line: what the link to the hub is doing, and Retry now."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from parler_desktop.app.connection_status import NOT_CONNECTED, StatusView, Tone

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


class ConnectionBar(QWidget):
    retryRequested = Signal()
    connectRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("connectionState")
        self.label = QLabel(objectName="connectionText", textFormat=Qt.TextFormat.PlainText)  # may quote the hub
        self.label.setWordWrap(True)  # a long reason (a certificate problem) wraps instead of widening the window
        self.retry = QPushButton("Retry now", objectName="retryNow")
        self.retry.clicked.connect(self.retryRequested)
        self.connect_button = QPushButton("Connect…", objectName="connectButton")
        self.connect_button.clicked.connect(self.connectRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.retry)
        layout.addWidget(self.connect_button)
        self.setAutoFillBackground(True)
        self.show_status(NOT_CONNECTED)

    def show_status(self, view: StatusView) -> None:
        self.label.setText(view.text)
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        style = (DARK_TONE_STYLES if dark else TONE_STYLES)[view.tone]
        self.setStyleSheet(f"#connectionState {{ {style} }} QLabel {{ {style} }}")
        self.retry.setVisible(view.can_retry)

    @property
    def text(self) -> str:
        return self.label.text()
