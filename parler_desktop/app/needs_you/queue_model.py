"""NeedsQueueModel: the Needs you queue as a list model, oldest first, filtered by hub, kind and
agent; each row reads as one line of plain text (for the list and for screen readers), and says
"answer queued" while the human's answer is in the outbox and "waiting 14 min" from the clock,
before the message's first line (which the list cuts to fit)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from parler_desktop.app.needs_you.hub_needs import HubItem, HubNeeds
from parler_desktop.app.needs_you.needs_rules import NeedKind
from parler_desktop.app.needs_you.waiting_words import first_line, waited


class NeedsQueueModel(QAbstractListModel):
    def __init__(self, needs: HubNeeds, parent: Any = None) -> None:
        super().__init__(parent)
        self.needs = needs
        self.hub: str | None = None  # filters: None lets every one through
        self.kind: NeedKind | None = None
        self.agent: str | None = None
        self._rows: list[HubItem] = []
        needs.changed.connect(self.reload)
        self.reload()

    def set_filter(self, hub: str | None = None, kind: NeedKind | None = None, agent: str | None = None) -> None:
        self.hub, self.kind, self.agent = hub, kind, agent
        self.reload()

    def reload(self) -> None:
        rows = [
            found for found in self.needs.items()
            if self.hub in (None, found.entry.url) and self.kind in (None, found.item.kind)
            and self.agent in (None, found.item.agent_name)
        ]
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def tick(self) -> None:
        """The clock moved: every "waiting N min" again."""
        if self._rows:
            self.dataChanged.emit(self.index(0), self.index(len(self._rows) - 1), [Qt.ItemDataRole.DisplayRole])

    def item(self, row: int) -> HubItem | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, key: tuple[str, str]) -> int:
        return next((row for row, found in enumerate(self._rows) if found.key == key), -1)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        found = self.item(index.row())
        if found is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.line(found)
        return None

    def line(self, found: HubItem) -> str:
        item = found.item
        role = f" ({item.agent_role})" if item.agent_role else ""
        state = "answer queued" if self.needs.is_queued(found) else waited(self.needs.clock() - item.since)
        return (  # the wait before the text: a row too long for the list is cut at its end
            f"{item.kind.label} · {item.agent_name}{role} · {found.entry.label} / {found.entry.rooms.label(item.room)} · "
            f"{state} · {first_line(item.text)}"
        )

    def header(self) -> str:
        """"3 agents waiting on you · longest 14 min" (every item, whatever the filters)."""
        items = self.needs.items()
        if not items:
            return "Nothing waits on you"
        agents = len({(found.entry.url, found.item.agent_id) for found in items})
        longest = max(self.needs.clock() - found.item.since for found in items)
        return f"{agents} agent{'s' if agents != 1 else ''} waiting on you · longest {waited(longest).split(' ', 1)[1]}"
