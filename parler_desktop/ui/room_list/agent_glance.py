"""Agents at a glance: a dot on each room in the room list for its most urgent agent state
(waiting on you, failed, working; none when idle), each hub's rooms by their own hub's agents,
and warning lines above the open room's timeline (of the hub shown): what waits on the human
there and who went silent on the human's work (the Needs you queue's items, design.md §4b), and
two agents that seem to be in a loop."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QAbstractItemView, QLabel, QStyle, QStyleOptionViewItem, QWidget

from parler_desktop.app import roles
from parler_desktop.app.needs_you.hub_needs import HubNeeds
from parler_desktop.app.needs_you.waiting_words import room_warnings
from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.app.room_list.room_list_model import RoomRow
from parler_desktop.ui.appearance.theme import follow_style, theme
from parler_desktop.ui.room_list.room_list_view import TEXT_LEFT, RoomBadgeDelegate, repaint_rows

DOT_SIZE = 6
TICK_MS = 30_000  # "waiting N min" kept current


def dot_rect(row: QRect, line: int) -> QRect:
    """Where a row's dot goes: in the margin left of the room's name, centred on its line."""
    return QRect(row.left() + (TEXT_LEFT - DOT_SIZE) // 2, row.top() + 6 + (line + 2 - DOT_SIZE) // 2, DOT_SIZE, DOT_SIZE)


def repaint_rooms(view: QAbstractItemView, rooms: set[tuple[str, str]]) -> None:
    """Repaint the rows of ``rooms`` ((hub, room)) alone: a wake changes which rooms wait on the
    human several times a second, and a repaint of every row cost the sidebar more than Needs
    you's work."""
    repaint_rows(view, lambda index: (index.data(roles.HUB_URL), index.data(roles.ROOM_NAME)) in rooms)


class AgentDotDelegate(RoomBadgeDelegate):
    """The room list's rows with the agents' dot in the left margin."""

    def __init__(self, agents: HubAgentWatches, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._agents = agents

    def row_look(self, row: RoomRow) -> Hashable:
        return self._agents.state(row.hub, row.name)

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
    """The open room's warnings (plain text: agent names come off the wire), hidden when none:
    its Needs you items, then a loop. Its owner calls ``refresh`` when the window shows another
    hub too."""

    def __init__(
        self, agents: HubAgentWatches, needs: HubNeeds, model: TimelineModel, shown_hub: Callable[[], str | None],
        parent: QWidget | None = None,
    ) -> None:
        """``model`` is the timeline of the hub ``shown_hub()`` names (None: none shown yet)."""
        super().__init__(parent, objectName="roomHints")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        follow_style(self, lambda colours: f"background: {colours.hint_ground}; color: {colours.hint_text}; padding: 4px 8px;")
        self._agents = agents
        self._needs = needs
        self._model = model
        self._shown_hub = shown_hub
        agents.changed.connect(self.refresh)
        needs.changed.connect(self.refresh)
        model.modelReset.connect(self.refresh)
        self._tick = QTimer(self, interval=TICK_MS, timeout=self.refresh)
        self._tick.start()
        self.refresh()

    def refresh(self, *_changed: object) -> None:
        room, hub = self._model.room, self._shown_hub()
        lines = []
        if room and hub is not None:
            lines = room_warnings(self._needs.in_room(hub, room), self._needs.clock())
            lines += [hint.text for hint in self._agents.hints(hub, room)]
        self.setText("\n".join(f"⚠ {line}" for line in lines))
        self.setVisible(bool(lines))
