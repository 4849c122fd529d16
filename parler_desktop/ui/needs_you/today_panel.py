"""The Today panel: time to unblock since midnight per hub, agent and room (items answered,
agent-minutes spent waiting on you, median and worst time to unblock), and its CSV export.
Opened with open(), never exec(); names from the wire are plain table text."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from parler_desktop.app.needs_you.hub_needs import HubNeeds
from parler_desktop.app.needs_you.unblock_stats import CSV_HEADER, csv_text
from parler_desktop.ui.dialogs.save_as import ask_save_path


class TodayPanel(QDialog):
    def __init__(self, needs: HubNeeds, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Time to unblock today")
        self.needs = needs
        self.table = QTableWidget(0, len(CSV_HEADER))
        self.table.setHorizontalHeaderLabels([title.capitalize() for title in CSV_HEADER])
        self.table.setAccessibleName("Time to unblock today, per hub, agent and room")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.summary = QLabel()
        self.export = QPushButton("&Export CSV…")
        self.export.clicked.connect(self._ask_where)
        close = QPushButton("&Close")
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.summary, 1)
        buttons.addWidget(self.export)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.resize(760, 360)
        self.refresh()

    def refresh(self) -> None:
        rows = self.needs.today()
        self.table.setRowCount(len(rows))
        for number, row in enumerate(rows):
            cells = (row.hub, row.agent, row.room, str(row.answered), f"{row.waiting_minutes:.1f}",
                     f"{row.median_minutes:.1f}", f"{row.worst_minutes:.1f}")
            for column, text in enumerate(cells):
                self.table.setItem(number, column, QTableWidgetItem(text))  # plain text, never markup
        answered = sum(row.answered for row in rows)
        self.summary.setText(f"{answered} answered today" if answered else "Nothing answered yet today")

    def _ask_where(self) -> None:
        ask_save_path(self, "Export time to unblock", "time-to-unblock.csv", self.write_csv)

    def write_csv(self, target: Path) -> None:
        text = csv_text(self.needs.today())
        task = asyncio.ensure_future(asyncio.to_thread(target.write_text, text, encoding="utf-8"))
        task.add_done_callback(lambda done: self.summary.setText(
            f"Saved {target}" if done.exception() is None else f"Could not save {target}: {done.exception()}"
        ))
