"""Queue work for a role (issue 43): *Hub → Dispatch to role…* posts the work with a
``com.parler.dispatch`` part through the outbox, and a list above the timeline of the service
room shows each dispatched item's state as the room's log tells it (``app/dispatch/``).

In a service room the work is posted there (for the room's service by default). From any other
room it goes, as ``parler send --role R`` sends it, to the service of the role typed (a
``service`` target, protocol.md §7.4: the sending joins the human to ``svc.R``, no invite), whose
room opens once listed; a hub with no such service refuses it, said in the status bar."""

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
from parler_desktop.protocol.values import ServiceTarget, service_room
from parler_desktop.store import StoreError
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus
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
        self.dialog: DispatchDialog | None = None
        self._to_services: dict[str, str] = {}  # client id -> role, of work sent to a service from elsewhere
        timeline_model.modelReset.connect(self._follow_room)
        bridge.outboxChanged.connect(self._outbox_changed)

    def _follow_room(self) -> None:
        room = self._timeline.room
        if room != self.model.room:
            self.model.set_room(room)

    def open_dialog(self) -> DispatchDialog | None:
        room = self._timeline.room
        session = self._bridge.session  # the hub shown now, as a post takes the session of its Enter
        if session is None:
            self.statusMessage.emit("Not dispatched: no hub is connected.")
            return None
        in_service = room if is_service_room(room) else None
        proposed = in_service.removeprefix(SERVICE_PREFIX) if in_service else ""
        dialog = self.dialog = DispatchDialog(proposed, self._window, in_service_room=in_service is not None)
        dialog.accepted.connect(lambda: self._dispatch(session, in_service, dialog))
        dialog.open()
        return dialog

    def _dispatch(self, session: object, room: str | None, dialog: DispatchDialog) -> None:
        role, text = dialog.role.text().strip(), dialog.task.toPlainText().strip()
        self._bridge.tasks.spawn("dispatch", self._post(session, room, role, text))

    async def _post(self, session: object, room: str | None, role: str, text: str) -> None:
        """Into ``room`` (a service room), or with no room to the role's service."""
        target = None if room is not None else ServiceTarget(role)
        posted_to = room or service_room(role)
        try:
            item = await self._bridge.post(
                posted_to, text, extra_parts=[Dispatch(role=role).to_part()], session=session, target=target
            )
        except (StoreError, ValueError, SessionClosed) as error:
            self.statusMessage.emit(display_text(why_not_posted(error), NOTICE_CHARS))
            return
        if target is not None:
            self._to_services[item.client_id] = role
            if session is self._bridge.session:
                self._window.opener.open_when_listed(posted_to)  # its service room, once the sending joined it
        self.statusMessage.emit(display_text(f"Dispatched to {role}: it waits in the queue for a worker.", NOTICE_CHARS))

    def _outbox_changed(self, item: OutboxItem) -> None:
        """Work sent to a service the hub refused (there is no such service): said, as its room
        is not the human's to show it in."""
        role = self._to_services.get(item.client_id)
        if role is not None and item.status is not OutboxStatus.PENDING:
            del self._to_services[item.client_id]
            if item.status is OutboxStatus.FAILED:
                self.statusMessage.emit(display_text(f"Not dispatched to {role}: {item.error or 'the hub refused it'}", NOTICE_CHARS))
