"""The always-visible connection line: what the link to the hub is doing, Retry now, and — when
the local cache is damaged — Start with a fresh cache.

The line never widens the window: a text longer than the bar is elided, and the whole text is
in its tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.connection_status import NOT_CONNECTED, StatusView
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.ui.appearance.theme import theme


class ElidedLabel(QLabel):
    """A one-line plain-text label that shows as much of its text as fits, ending in "…"."""

    def __init__(self, objectName: str) -> None:  # noqa: N803 - Qt's spelling
        super().__init__(objectName=objectName, textFormat=Qt.TextFormat.PlainText)  # may quote the hub
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        """Show ``text`` (the same text again changes nothing: the room title is set again at each
        reload of the room lists, and each setting re-elided it and told screen readers)."""
        if text == self.full_text:
            return
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
        one_line = display_text(self.full_text, NOTICE_CHARS)
        self.setText(self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, self.contentsRect().width()))  # inside its padding


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
        self._tone = NOT_CONNECTED.tone
        theme.changed.connect(self._restyle)
        self.show_status(NOT_CONNECTED)

    def show_status(self, view: StatusView) -> None:
        self.label.set_full_text(view.text)
        self._tone = view.tone
        self._restyle()
        self.retry.setVisible(view.can_retry)

    def _restyle(self) -> None:
        """The line in its tone's ground and text colours, of the scheme shown."""
        ground, text = theme.colours.connection_tones[self._tone]
        style = f"background: {ground}; color: {text};"
        self.setStyleSheet(f"#connectionState {{ {style} }} QLabel {{ {style} }}")

    def offer_fresh_cache(self, offered: bool) -> None:
        self.fresh_cache.setVisible(offered)

    @property
    def text(self) -> str:
        return self.label.full_text
