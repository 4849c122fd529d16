"""The Agents view (View → Agents, Ctrl+Shift+A): every agent of every hub in one list, with a
search, a filter (Alt+S) and a grouping (Alt+G), the cost of their work, and the way to an
agent's card (Enter or a double-click on its row).

A window of its own beside the main one (Esc closes it), over ``FleetModel``: one list view,
never a widget per agent. Names come off the wire: the list draws them as plain text, and the
labels here are plain-text labels.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QTableView, QVBoxLayout, QWidget,
)

from parler_desktop.app.agents.cost_totals import PERIODS, Totals
from parler_desktop.app.agents.fleet_model import AGENT_KEY, COLUMNS, FILTERS, GROUPS, FleetModel
from parler_desktop.ui.dialogs.save_as import ask_save_path

CSV_NAME = "agents-cost.csv"


def plain_label(text: str = "", name: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    if name:
        label.setAccessibleName(name)
    return label


class AgentList(QTableView):
    """The rows; Enter or a double-click on an agent opens its card."""

    cardRequested = Signal(object)  # (hub, id)

    def __init__(self, model: FleetModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fleet = model
        self.setObjectName("agentList")
        self.setAccessibleName("Agents")
        self.setModel(model)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # one height: no row is measured
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setHighlightSections(False)
        for column, width in enumerate((150, 80, 110, 140, 220, 80, 55, 120, 110)):
            self.setColumnWidth(column, width)
        model.modelReset.connect(self._span_headings)
        self.doubleClicked.connect(self._open)

    def _span_headings(self) -> None:
        """A group's heading across the row (a table's spans cost ~4 µs each: 500 rooms, 2 ms)."""
        self.clearSpans()
        for row in self.fleet.heading_rows:
            self.setSpan(row, 0, 1, len(COLUMNS))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self._open(self.currentIndex())
            return
        super().keyPressEvent(event)

    def _open(self, index: QModelIndex) -> None:
        key = index.siblingAtColumn(0).data(AGENT_KEY)
        if key is not None:
            self.cardRequested.emit(key)

    def select_key(self, key: tuple[str, str] | None) -> bool:
        """Make the agent's (first) row current (``None``: the first agent's)."""
        row = self.fleet.row_of(key)
        if row is None:
            return False
        self.setCurrentIndex(self.fleet.index(row, 0))
        return True


class AgentsView(QWidget):
    cardRequested = Signal(object)  # (hub, id)

    def __init__(self, model: FleetModel, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("agentsView")
        self.setWindowTitle("Agents")
        self.resize(1100, 560)
        self.model = model
        self._selected: tuple[str, str] | None = None

        self.search = QLineEdit(placeholderText="Find an agent by name, role or id")
        self.search.setAccessibleName("Find an agent")
        self.search.setClearButtonEnabled(True)
        self.filter = QComboBox()
        self.filter.addItems(FILTERS)
        self.filter.setAccessibleName("Show")
        self.group = QComboBox()
        self.group.addItems(GROUPS)
        self.group.setAccessibleName("Group by")
        show_label, group_label = QLabel("&Show"), QLabel("&Group by")
        show_label.setBuddy(self.filter)
        group_label.setBuddy(self.group)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(show_label)
        top.addWidget(self.filter)
        top.addWidget(group_label)
        top.addWidget(self.group)

        self.list = AgentList(model)
        self.costs = plain_label(name="Cost of the agents' work")
        self.export_button = QPushButton("&Export costs as CSV…")
        self.export_button.setAccessibleName("Export costs as CSV")
        self.status = plain_label(name="Agents view status")
        bottom = QHBoxLayout()
        bottom.addWidget(self.costs, 1)
        bottom.addWidget(self.export_button)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        layout.addLayout(bottom)
        layout.addWidget(self.status)

        self.search.textChanged.connect(lambda text: model.set_view(search=text.strip()))
        self.search.returnPressed.connect(self._to_list)
        self.filter.currentTextChanged.connect(lambda text: model.set_view(filter=text))
        self.group.currentTextChanged.connect(lambda text: model.set_view(group=text))
        self.list.cardRequested.connect(self.cardRequested)
        self.export_button.clicked.connect(self.export_csv)
        model.modelAboutToBeReset.connect(self._remember_selection)
        model.modelReset.connect(self._restore_selection)
        model.feed.costsChanged.connect(self.show_costs)
        model.feed.loaded.connect(self.show_costs)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close)
        self.show_costs()

    def open_view(self) -> None:
        """Show (or raise) the view, the search field focused; the model reads what it lacks."""
        self.model.rebuild()
        self.show()
        self.raise_()
        self.activateWindow()
        self.search.setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.model.feed.set_watching(True)  # (reads what it lacks, and the directories now and then)

    def hideEvent(self, event: object) -> None:  # noqa: D102
        self.model.feed.set_watching(False)
        super().hideEvent(event)  # type: ignore[arg-type]

    def _to_list(self) -> None:
        if self.list.select_key(None):
            self.list.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Down and self.search.hasFocus():
            self._to_list()
            return
        super().keyPressEvent(event)

    def _remember_selection(self) -> None:
        """The agent selected as the rows change (kept while a filter hides it: it is selected
        again when it shows)."""
        selected = self.list.currentIndex().siblingAtColumn(0).data(AGENT_KEY)
        if selected is not None:
            self._selected = selected

    def _restore_selection(self) -> None:
        """The agent selected before the rows changed is selected again, and scrolled into sight
        (a reset keeps the scroll, not the rows under it, and selecting the row then does not scroll)."""
        if self._selected is not None and self.list.select_key(self._selected):
            self.list.scrollTo(self.list.currentIndex())

    def show_costs(self) -> None:
        """Every hub's totals, today, for 7 days and in all."""
        parts = []
        for period in PERIODS:
            summed = Totals()
            for entry in self.model.hubs.entries:
                summed.add(self.model.costs.totals("hub", entry.url, "", period))
            parts.append(f"{period.capitalize() if period != '7 days' else 'Last 7 days'}: {summed.summary()}")
        self.costs.setText("\n".join(parts))

    def export_csv(self) -> None:
        ask_save_path(self, "Export costs", CSV_NAME, self.write_csv)

    def write_csv(self, target: Path) -> None:
        try:
            target.write_text(self.model.costs.csv_text(self._csv_label), encoding="utf-8")
        except OSError as error:
            self.status.setText(f"Could not write {target}: {error.strerror or error}")
            return
        self.status.setText(f"Saved {target}")

    def _csv_label(self, scope: str, hub: str, name: str) -> str:
        if scope == "hub":
            return self.model.hub_label(hub)
        if scope == "room":
            return self.model.room_label(hub, name)
        record = self.model.record((hub, name))
        return f"{self.model.name_of(record)} ({name})" if record is not None else name
