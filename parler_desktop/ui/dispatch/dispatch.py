"""Queue work for a role (issue 43): *Hub → Dispatch to role…* in a service room posts the work
with a ``com.parler.dispatch`` part through the outbox, and a list above the timeline shows each
dispatched item's state as the room's log tells it (``app/dispatch/``)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from parler_desktop.app.dispatch.dispatch_model import SERVICE_PREFIX, DispatchModel, is_service_room
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge, why_not_posted
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.client.errors import SessionClosed
from parler_desktop.protocol.parts import Dispatch
from parler_desktop.store import StoreError
from parler_desktop.ui.dispatch.dispatch_dialog import DispatchDialog

PANEL_ROWS = 5


class DispatchPanel(QListView):
    """The shown service room's dispatched work, newest last; hidden while there is none."""

    def __init__(self, model: DispatchModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dispatchList")
        self.setAccessibleName("Dispatched work")
        self.setModel(model)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setUniformItemSizes(True)
        self.setWordWrap(False)
        model.modelReset.connect(self._fit)
        self._fit()

    def _fit(self) -> None:
        rows = self.model().rowCount()
        self.setVisible(rows > 0)
        if rows:
            self.setFixedHeight(self.sizeHintForRow(0) * min(rows, PANEL_ROWS) + 2 * self.frameWidth() + 2)
            self.scrollToBottom()


class RoleDispatch(QObject):
    statusMessage = Signal(str)

    def __init__(self, bridge: SessionBridge, timeline_model: TimelineModel, parent: QWidget) -> None:
        """``action`` goes in a menu, ``panel`` above the timeline."""
        super().__init__(parent)
        self._bridge = bridge
        self._timeline = timeline_model
        self._window = parent
        self.model = DispatchModel(bridge, self)
        self.panel = DispatchPanel(self.model)
        self.action = QAction("Di&spatch to role…", self)
        self.action.triggered.connect(self.open_dialog)
        self.action.setEnabled(False)
        self.dialog: DispatchDialog | None = None
        timeline_model.modelReset.connect(self._follow_room)

    def _follow_room(self) -> None:
        room = self._timeline.room
        if room != self.model.room:
            self.model.set_room(room)
        self.action.setEnabled(is_service_room(room))

    def open_dialog(self) -> DispatchDialog | None:
        room = self._timeline.room
        if not is_service_room(room):
            return None
        dialog = self.dialog = DispatchDialog(room.removeprefix(SERVICE_PREFIX), self._window)
        session = self._bridge.session  # the hub shown now, as a post takes the session of its Enter
        dialog.accepted.connect(lambda: self._dispatch(session, room, dialog))
        dialog.open()
        return dialog

    def _dispatch(self, session: object, room: str, dialog: DispatchDialog) -> None:
        role, text = dialog.role.text().strip(), dialog.task.toPlainText().strip()
        self._bridge.tasks.spawn("dispatch", self._post(session, room, role, text))

    async def _post(self, session: object, room: str, role: str, text: str) -> None:
        try:
            await self._bridge.post(room, text, extra_parts=[Dispatch(role=role).to_part()], session=session)
        except (StoreError, ValueError, SessionClosed) as error:
            self.statusMessage.emit(display_text(why_not_posted(error), NOTICE_CHARS))
            return
        self.statusMessage.emit(display_text(f"Dispatched to {role}: it waits in the queue for a worker.", NOTICE_CHARS))
