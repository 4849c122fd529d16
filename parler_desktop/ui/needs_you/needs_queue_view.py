"""The Needs you queue in the centre column: a header ("3 agents waiting on you · longest 14 min"),
filters (hub, kind, agent), the items oldest first, and under them the selected item: its
instruction or question rendered as Markdown (``markdown_document``: no HTML, no resources), the
few messages before it (expandable, plain text), an inline composer and the buttons.

Keyboard first (``keys``): ↑/↓ or J/K move, Enter opens the message in its room, R replies, D
done, B hands back, A approves, X denies, S snoozes; the buttons do the same for the mouse.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QLabel, QSizePolicy, QLineEdit, QListView, QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton, QTextEdit, QToolButton,
    QVBoxLayout, QWidget,
)

from parler_desktop.app.needs_you.hub_needs import HubItem
from parler_desktop.app.needs_you.needs_rules import NeedKind
from parler_desktop.app.needs_you.queue_model import NeedsQueueModel
from parler_desktop.ui.timeline.markdown import markdown_document

TICK_MS = 30_000  # "waiting N min" kept current
KEYS = {  # key -> the action it does (the buttons' names)
    Qt.Key.Key_Return: "open", Qt.Key.Key_Enter: "open", Qt.Key.Key_R: "reply", Qt.Key.Key_D: "done",
    Qt.Key.Key_B: "hand back", Qt.Key.Key_A: "approve", Qt.Key.Key_X: "deny", Qt.Key.Key_S: "snooze",
}
BUTTONS = (("open", "&Open"), ("reply", "&Reply"), ("done", "&Done"), ("hand back", "Hand &back"),
           ("approve", "&Approve"), ("deny", "Deny (&X)"), ("snooze", "&Snooze…"))


class NeedsQueueView(QWidget):
    actionRequested = Signal(str, object)  # action name, HubItem
    replyRequested = Signal(str, object)  # text, HubItem
    contextWanted = Signal(object)  # HubItem: the view wants the messages before it (set_context)
    digestOpened = Signal(object)  # DigestLine: open its message
    digestDismissed = Signal()

    def __init__(self, model: NeedsQueueModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # In the centre stack beside the timeline: its buttons must not set how narrow the window may be.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.model = model
        self.header = QLabel(textFormat=Qt.TextFormat.PlainText, objectName="needsHeader")
        self.header.setAccessibleName("Needs you summary")
        self.today_button = QPushButton("&Today…")
        self.today_button.setAccessibleName("Time to unblock today")
        self.hub_filter, self.kind_filter, self.agent_filter = QComboBox(), QComboBox(), QComboBox()
        for combo, name in ((self.hub_filter, "Filter by hub"), (self.kind_filter, "Filter by kind"), (self.agent_filter, "Filter by agent")):
            combo.setAccessibleName(name)
            combo.activated.connect(self._filter)
        self.digest_box = QWidget(visible=False)
        self.digest_title = QLabel("Since you last looked", textFormat=Qt.TextFormat.PlainText)
        self.digest = QListWidget()
        self.digest.setAccessibleName("Since you last looked")
        self.digest.itemActivated.connect(lambda line: self.digestOpened.emit(line.data(Qt.ItemDataRole.UserRole)))
        self.digest_dismiss = QPushButton("D&ismiss")
        self.digest_dismiss.setAccessibleName("Dismiss the digest")
        self.digest_dismiss.clicked.connect(self.digestDismissed)
        digest_top = QHBoxLayout()
        digest_top.addWidget(self.digest_title, 1)
        digest_top.addWidget(self.digest_dismiss)
        digest_layout = QVBoxLayout(self.digest_box)
        digest_layout.setContentsMargins(0, 0, 0, 0)
        digest_layout.addLayout(digest_top)
        digest_layout.addWidget(self.digest)
        self.list = QListView(objectName="needsList")
        self.list.setModel(model)
        self.list.setAccessibleName("Needs you queue")
        self.list.setUniformItemSizes(True)
        self.list.installEventFilter(self)
        self.detail = QTextEdit(readOnly=True)
        self.detail.setAccessibleName("The selected item's message")
        self.context_toggle = QToolButton(text="Show the messages before it", checkable=True)
        self.context = QPlainTextEdit(readOnly=True, visible=False)
        self.context.setAccessibleName("The messages before it")
        self.context_toggle.toggled.connect(self.context.setVisible)
        self.composer = QLineEdit(visible=False, placeholderText="Reply — Enter sends, Esc cancels")
        self.composer.setAccessibleName("Reply to the selected item")
        self.composer.installEventFilter(self)
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in BUTTONS:
            button = self.buttons[name] = QPushButton(text)
            button.setAccessibleName(name.capitalize())
            button.clicked.connect(lambda _checked=False, n=name: self.act(n))
            row.addWidget(button)
        filters = QHBoxLayout()
        for combo in (self.hub_filter, self.kind_filter, self.agent_filter):
            filters.addWidget(combo)
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.today_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.digest_box)
        layout.addLayout(filters)
        layout.addWidget(self.list, 2)
        layout.addWidget(self.detail, 1)
        layout.addWidget(self.context_toggle)
        layout.addWidget(self.context, 1)
        layout.addWidget(self.composer)
        layout.addLayout(row)
        self._selected_key: tuple[str, str] | None = None
        self._selected_row = 0
        self._stale = False  # changed while hidden (``_hidden``)
        model.modelAboutToBeReset.connect(self._remember)
        model.modelReset.connect(self._restore)
        self.list.selectionModel().currentChanged.connect(lambda current, _previous: self._show(current.row()))
        self._tick = QTimer(self, interval=TICK_MS, timeout=self.refresh_times)
        self._tick.start()
        self._restore()

    # -- showing --------------------------------------------------------------------------------
    def selected(self) -> HubItem | None:
        return self.model.item(self.list.currentIndex().row())

    def focus_first(self) -> None:
        if self.model.rowCount():
            self.list.setCurrentIndex(self.model.index(0))
        self.list.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def select_next(self) -> None:
        """After an action: the item after this one (the one that takes its place if it left)."""
        row = self.list.currentIndex().row()
        nxt = self.model.item(row + 1)
        self._selected_key = nxt.key if nxt is not None else None
        self._selected_row = row + 1 if nxt is not None else row
        if nxt is not None:
            self.list.setCurrentIndex(self.model.index(row + 1))

    def refresh_times(self) -> None:
        self.model.tick()
        self.header.setText(self.model.header())

    def set_digest(self, lines: list) -> None:
        """The digest's lines (plain text: room names come off the wire), hidden when none."""
        self.digest.clear()
        for line in lines:
            row = QListWidgetItem(line.text)
            row.setData(Qt.ItemDataRole.UserRole, line)
            self.digest.addItem(row)
        self.digest.setFixedHeight(min(len(lines), 6) * self.digest.sizeHintForRow(0) + 4 if lines else 0)
        self.digest_box.setVisible(bool(lines))

    def _remember(self) -> None:
        found = self.selected()
        if found is not None and self._selected_key is None:
            self._selected_key = found.key
            self._selected_row = self.list.currentIndex().row()

    def _restore(self) -> None:
        row = self.model.row_of(self._selected_key) if self._selected_key is not None else -1
        if row < 0:
            row = min(self._selected_row, self.model.rowCount() - 1)
        self._selected_key = None
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        self._show(row)
        self._summarise()

    def showEvent(self, event: QShowEvent) -> None:
        """What changed while the queue was hidden is shown now (``_hidden``)."""
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self._show(self.list.currentIndex().row())
            self._summarise()

    def _hidden(self) -> bool:
        """The queue is not on screen: the selected item, the header and the filters wait until it
        shows (a wake changes the items ten times a second, and each would render the item's
        Markdown and read its context from the store)."""
        self._stale = self._stale or not self.isVisible()
        return not self.isVisible()

    def _summarise(self) -> None:
        if not self._hidden():
            self.header.setText(self.model.header())
            self._fill_filters()

    def _show(self, row: int) -> None:
        if self._hidden():
            return
        found = self.model.item(row)
        self.detail.setDocument(markdown_document(found.item.text if found else "", self.detail.font()))
        self.context.clear()
        for name, button in self.buttons.items():
            button.setEnabled(found is not None and name in actions_for(found.item.kind))
        if found is not None:
            self.detail.setAccessibleDescription(self.model.line(found))
            self.contextWanted.emit(found)

    def set_context(self, found: HubItem, lines: list[str]) -> None:
        if self.selected() == found:
            self.context.setPlainText("\n".join(lines))

    def _fill_filters(self) -> None:
        items = self.model.needs.items()
        for combo, everything, values in (
            (self.hub_filter, "Every hub", sorted({(f.entry.label, f.entry.url) for f in items})),
            (self.kind_filter, "Every kind", [(k.label, k) for k in NeedKind if any(f.item.kind is k for f in items)]),
            (self.agent_filter, "Every agent", sorted({(f.item.agent_name, f.item.agent_name) for f in items})),
        ):
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, None)
            for label, value in values:
                combo.addItem(label, value)
            combo.setCurrentIndex(max(0, combo.findData(chosen)) if chosen is not None else 0)
            combo.blockSignals(False)

    def _filter(self) -> None:
        self.model.set_filter(self.hub_filter.currentData(), self.kind_filter.currentData(), self.agent_filter.currentData())

    # -- acting ---------------------------------------------------------------------------------
    def act(self, name: str) -> None:
        found = self.selected()
        if found is None or name not in actions_for(found.item.kind):
            return
        if name == "reply":
            self.composer.clear()
            self.composer.show()
            self.composer.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return
        self.actionRequested.emit(name, found)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return super().eventFilter(watched, event)
        key = QKeyEvent.key(event)  # type: ignore[arg-type]
        if watched is self.composer:
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                found = self.selected()
                if found is not None and self.composer.text().strip():
                    self.replyRequested.emit(self.composer.text().strip(), found)
                    self._close_composer()
                    self.select_next()
                return True
            if key == Qt.Key.Key_Escape:
                self._close_composer()
                return True
            return False
        if key in (Qt.Key.Key_J, Qt.Key.Key_K):
            row = self.list.currentIndex().row() + (1 if key == Qt.Key.Key_J else -1)
            if 0 <= row < self.model.rowCount():
                self.list.setCurrentIndex(self.model.index(row))
            return True
        if key in KEYS:
            self.act(KEYS[key])
            return True
        return super().eventFilter(watched, event)

    def _close_composer(self) -> None:
        self.composer.hide()
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)


def actions_for(kind: NeedKind) -> frozenset[str]:
    """What can be done about an item of ``kind`` (its other buttons are off, its keys do nothing)."""
    if kind is NeedKind.JOIN:
        return frozenset({"approve", "deny", "snooze"})
    common = {"open", "reply", "done", "snooze"}
    if kind in (NeedKind.HANDOFF, NeedKind.QUESTION):
        common.add("hand back")
    return frozenset(common)
