"""FileSavesModel: the shared files the human is saving, one row each, with progress and what
went wrong (``client/blob_save.py`` streams, checks and renames each).

A row leaves the list once its file is in place (the window says where) or the human cancels it
(the transfer stops and the partial file goes); it stays, with one sentence, when the hub sent
other than the message announced, the line failed or the disk refused, until dismissed
(``TransferRows``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.transfer_rows import TransferRows
from parler_desktop.client.blob_save import BlobSave
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.part_text import human_size

Index = QModelIndex | QPersistentModelIndex


@dataclass
class SaveRow:
    transfer: BlobSave
    task: Any = None
    problem: str = ""  # the sentence when it failed
    shown_fraction: float = -1.0

    @property
    def fraction(self) -> float:
        save = self.transfer
        return min(save.received / save.size, 1.0) if save.size else 0.0


class FileSavesModel(TransferRows):
    saved = Signal(str)  # the sentence the window shows once a file is in place

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row, value = self._row_data(index, role)
        if row is None or role != Qt.ItemDataRole.DisplayRole:
            return value
        if row.problem:
            return row.problem
        save = row.transfer
        total = f" of {human_size(save.size)}" if save.size is not None else ""
        return f"Saving {display_text(save.name)}: {human_size(save.received)}{total}"

    def subject(self, row: int) -> str:
        """What the row's Cancel stops, for its accessible name."""
        return f"saving {self._rows[row].transfer.name}"

    def save(self, blob_id: str, size: int | None, target: Path) -> None:
        """Start saving the blob ``blob_id`` (``size`` bytes, as its message said) to ``target``,
        on the session of the moment."""
        row = SaveRow(BlobSave(blob_id, size, target))
        self._append(row)
        row.task = self._bridge.tasks.spawn("save file", self._run(row.transfer, self._bridge.session))

    def cancel(self, row: int) -> None:
        """Stop the save on ``row`` (its partial file goes with it: ``BlobSave.run``) and take the
        row away; a failed row is dismissed."""
        save_row = self._rows[row]
        if save_row.task is not None and not save_row.task.done():
            save_row.task.cancel()
        self._remove(save_row.transfer)

    async def _run(self, save: BlobSave, session: Any) -> None:
        try:
            if session is None:
                raise SessionClosed("not connected to a hub")
            await save.run(session, self._progress)
        except (BadReply, ConnectionLost, HubRefused, SessionClosed) as error:
            self._fail(save, f"{save.name} was not saved: {error}.")
        except OSError as error:
            self._fail(save, f"{save.name} could not be written: {error.strerror or error}.")
        else:
            self._remove(save)
            self.saved.emit(display_text(f"Saved {save.target} ({human_size(save.received)}).", NOTICE_CHARS))
