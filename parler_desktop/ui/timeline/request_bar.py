"""The current message's request actions as real buttons, in a bar under the timeline.

A card's Reply / Hand back / Done are painted (no widget per message), so neither Tab nor a
screen reader finds them in the row. When the current message (chosen by click or by the arrow
keys, or selected by a screen reader) is a request the human has not answered, this bar says
whose request it is and offers the same actions as buttons: reachable with Tab, and real
accessible buttons a screen reader can press. They go through the delegate's ``requestAction``, as a click on the card does, so
``RequestActions`` posts each answer once. The bar hides when the current row offers nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from parler_desktop.app.timeline.cards import REQUEST_ACTIONS
from parler_desktop.app.timeline.message_reading import shown_name, spoken
from parler_desktop.ui.hubs.connection_bar import ElidedLabel
from parler_desktop.ui.timeline.message_rows_view import MessageRowsView

AFTER_PRESS_MS = 50  # while a mouse button is down, the bar looks again this often


class RequestBar(QWidget):
    def __init__(self, view: MessageRowsView, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="requestBar", accessibleName="Request")
        self._view = view
        self._row = QPersistentModelIndex()
        self.label = ElidedLabel("requestAsks")  # plain text: names and subjects come off the wire
        self.buttons: dict[str, QPushButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(self.label, 1)
        for action in REQUEST_ACTIONS:
            button = QPushButton(action, objectName=f"request{action.replace(' ', '')}")
            button.clicked.connect(lambda _checked=False, action=action: self._act(action))
            layout.addWidget(button)
            self.buttons[action] = button
        self.hide()
        self._after_press = QTimer(self, singleShot=True, interval=AFTER_PRESS_MS)
        self._after_press.timeout.connect(self.refresh)
        model = view.model()
        view.selectionModel().currentChanged.connect(self.refresh)
        view.selectionModel().selectionChanged.connect(self.refresh)
        view.cardActionsChanged.connect(self.refresh)
        for changed in (model.modelReset, model.rowsRemoved, model.dataChanged):
            changed.connect(self.refresh)

    def refresh(self, *_change: object) -> None:
        """Show the current row's actions not taken yet, or hide; while a mouse button is down,
        once it is up: the bar changes the timeline's height, and a press on a card's Done
        (which makes its row current) must be released over the same button."""
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton:
            self._after_press.start()
            return
        selected = self._view.selectionModel().selectedIndexes()  # (a screen reader may select without moving the current row)
        index = selected[0] if selected else self._view.currentIndex()
        actions = self._view.card_actions(index) if index.isValid() else []
        entry = self._view.model().entry(index.row()) if actions else None
        if entry is None:
            self._row = QPersistentModelIndex()
            self.hide()
            return
        self._row = QPersistentModelIndex(index)
        layout = self._view.row_layout(index)
        asks = "; ".join(spoken(card.card.title) for card in (layout.cards if layout is not None else []) if card.actions)
        self.label.set_full_text(f"{shown_name(entry)} asks you: {asks}")
        for action, button in self.buttons.items():
            button.setVisible(action in actions)
            button.setAccessibleDescription(f"{action}: {shown_name(entry)}'s request")
        self.show()

    def _act(self, action: str) -> None:
        if self._row.isValid():
            self._view.message_delegate.requestAction.emit(QModelIndex(self._row), action)
