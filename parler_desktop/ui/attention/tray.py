"""The tray icon: the line's health and the unread count at a glance, a menu (Show, Pause
notifications, Quit), and the balloon that stands in for desktop notifications where the
platform has no notification service. Clicking it (or the balloon) shows the window."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QSystemTrayIcon

from parler_desktop.app.appearance.palettes import TRAY_BADGE, TRAY_GROUND, TRAY_INK, TRAY_TONES
from parler_desktop.app.attention.attention_notifier import Alert
from parler_desktop.app.attention.attention_preferences import AttentionPreferences
from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.connection_status import Tone
from parler_desktop.app.hubs.hub_list import HubList
from parler_desktop.app.needs_you.hub_needs import HubNeeds
from parler_desktop.ui.timeline.message_jump import bring_forward
from parler_desktop.ui.attention.notifications_menu import add_pause_action

TONE_ORDER = [Tone.OK, Tone.BUSY, Tone.WARN, Tone.ERROR]  # the tray shows the worst hub's
ICON_SIZE = 64


def tray_icon(base: QIcon, tone: Tone, unread: int) -> QIcon:
    """The app icon with a health dot (bottom left) and the unread count (top right)."""
    pixmap = base.pixmap(ICON_SIZE, ICON_SIZE) if not base.isNull() else QPixmap(ICON_SIZE, ICON_SIZE)
    if base.isNull():
        pixmap.fill(QColor(TRAY_GROUND))
    with QPainter(pixmap) as painter:  # ended even if drawing raises: a painted pixmap must not be destroyed
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QColor(TRAY_INK))
        painter.setBrush(QColor(TRAY_TONES[tone]))
        painter.drawEllipse(2, ICON_SIZE - 26, 24, 24)
        if unread:
            label = str(unread) if unread < 100 else "99+"
            font = QFont()
            font.setPixelSize(22)
            font.setBold(True)
            painter.setFont(font)
            width = max(28, painter.fontMetrics().horizontalAdvance(label) + 10)
            badge = QRect(ICON_SIZE - width, 0, width, 28)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(TRAY_BADGE))
            painter.drawRoundedRect(badge, 14, 14)
            painter.setPen(QColor(TRAY_INK))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, label)
    return QIcon(pixmap)


class Tray(QSystemTrayIcon):
    openRequested = Signal(str, int, str)  # room, seq, hub of the balloon's message
    quitRequested = Signal()

    def __init__(self, window: QMainWindow, hubs: HubList, preferences: AttentionPreferences, needs: HubNeeds | None = None) -> None:
        """The icon shows how many items need the human (``needs``, every hub), else every hub's
        unread total, and the worst hub's health; the tooltip a line per hub while there are several."""
        super().__init__(QApplication.windowIcon(), window)
        self._window = window
        self._preferences = preferences
        self._tone = Tone.BUSY
        self._health = "Not connected"
        self._unread = 0
        self._need = 0
        self._balloon: Alert | None = None
        self.menu = QMenu()
        self.menu.addAction("&Show Parler", self.show_window)
        self.pause_action = add_pause_action(self.menu, preferences)
        self.menu.addSeparator()
        self.menu.addAction("&Quit", self.quitRequested.emit)
        self.setContextMenu(self.menu)
        self.activated.connect(self._activated)
        self.messageClicked.connect(self._balloon_clicked)
        self._hubs = hubs
        hubs.totalUnreadChanged.connect(self._unread_changed)
        if needs is not None:
            needs.countChanged.connect(self._need_changed)
            self._need = needs.count()
        for entry in hubs.entries:
            entry.status.changed.connect(self._status_changed)
        hubs.added.connect(lambda entry: entry.status.changed.connect(self._status_changed) or self._status_changed())
        hubs.removed.connect(self._status_changed)
        preferences.changed.connect(self._preferences_changed)
        self._preferences_changed(preferences.current())
        self._status_changed()

    def show_alert(self, alert: Alert) -> None:
        self._balloon = alert
        self.showMessage(alert.title, alert.body, QSystemTrayIcon.MessageIcon.Information, 8000)

    def show_window(self) -> None:
        bring_forward(self._window)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.show_window()

    def _balloon_clicked(self) -> None:
        if self._balloon is not None:
            self.openRequested.emit(self._balloon.room, self._balloon.seq, self._balloon.hub)
        else:
            self.show_window()

    def _preferences_changed(self, settings: AttentionSettings) -> None:
        self.pause_action.setChecked(settings.paused)
        self._refresh()

    def _unread_changed(self, unread: int) -> None:
        self._unread = unread
        self._refresh()

    def _need_changed(self, need: int) -> None:
        self._need = need
        self._refresh()

    def _status_changed(self, *_changed: object) -> None:
        views = [(entry.label, entry.status.view) for entry in self._hubs.entries]
        self._tone = max((view.tone for _label, view in views), key=TONE_ORDER.index, default=Tone.BUSY)
        if len(views) == 1:
            self._health = views[0][1].text
        else:
            self._health = "\n".join(f"{label}: {view.heading}" for label, view in views)
        self._refresh()

    def _refresh(self) -> None:
        self.setIcon(tray_icon(QApplication.windowIcon(), self._tone, self._need or self._unread))
        lines = ["Parler", self._health]
        if self._need:
            lines.append(f"{self._need} need you")
        if self._unread:
            lines.append(f"{self._unread} unread")
        if self._preferences.current().paused:
            lines.append("Notifications paused")
        # Plain text (native tray tooltips are; Qt's takes it as such, its first line being "Parler"),
        # each line of hub names and what hubs said as display_text shows a notice.
        self.setToolTip("\n".join(display_text(line, NOTICE_CHARS) for line in "\n".join(lines).split("\n")))
