"""Agents at a glance: a dot on each room in the room list for its most urgent agent state
(waiting on you, failed, working; none when idle), each hub's rooms by their own hub's agents,
and a warning line above the open room's timeline (of the hub shown) when an agent seems stuck
or two agents seem to be in a loop."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QLabel, QStyle, QStyleOptionViewItem, QWidget

from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.app.room_list.room_list_model import RoomRow
from parler_desktop.ui.appearance.theme import follow_style, theme
from parler_desktop.ui.room_list.room_list_view import TEXT_LEFT, RoomBadgeDelegate

DOT_SIZE = 6


def dot_rect(row: QRect, line: int) -> QRect:
    """Where a row's dot goes: in the margin left of the room's name, centred on its line."""
    return QRect(row.left() + (TEXT_LEFT - DOT_SIZE) // 2, row.top() + 6 + (line + 2 - DOT_SIZE) // 2, DOT_SIZE, DOT_SIZE)


class AgentDotDelegate(RoomBadgeDelegate):
    """The room list's rows with the agents' dot in the left margin."""

    def __init__(self, agents: HubAgentWatches, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._agents = agents

    def paint_room(self, painter: QPainter, option: QStyleOptionViewItem, row: RoomRow) -> None:
        super().paint_room(painter, option, row)
        colour = theme.colours.agent_dots.get(self._agents.state(row.hub, row.name))
        if colour is not None:
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            selected = option.state & QStyle.StateFlag.State_Selected  # on the highlight: ringed to stand out
            painter.setPen(QColor(theme.colours.highlighted_text) if selected else Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colour))
            painter.drawEllipse(dot_rect(option.rect, option.fontMetrics.height()))
            painter.restore()


class RoomHintBar(QLabel):
    """The open room's warnings (plain text: agent names come off the wire), hidden when none.
    Its owner calls ``refresh`` when the window shows another hub too."""

    def __init__(
        self, agents: HubAgentWatches, model: TimelineModel, shown_hub: Callable[[], str | None], parent: QWidget | None = None
    ) -> None:
        """``model`` is the timeline of the hub ``shown_hub()`` names (None: none shown yet)."""
        super().__init__(parent, objectName="roomHints")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        follow_style(self, lambda colours: f"background: {colours.hint_ground}; color: {colours.hint_text}; padding: 4px 8px;")
        self._agents = agents
        self._model = model
        self._shown_hub = shown_hub
        agents.changed.connect(self.refresh)
        model.modelReset.connect(self.refresh)
        self.refresh()

    def refresh(self, *_changed: object) -> None:
        room, hub = self._model.room, self._shown_hub()
        hints = self._agents.hints(hub, room) if room and hub is not None else ()
        self.setText("\n".join(f"⚠ {hint.text}" for hint in hints))
        self.setVisible(bool(hints))
