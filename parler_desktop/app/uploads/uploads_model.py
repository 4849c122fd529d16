"""UploadsModel: the files the human is sending, one row each, with progress and what went wrong.

``send(paths, room)`` starts one ``FileUpload`` (client/uploads.py) per file on the session of
the moment they were chosen; a row leaves the list once its post is in the outbox (the timeline
shows it from then on) and stays, with one sentence, when the hub or the disk refused it, until
dismissed (``TransferRows``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge, why_not_posted
from parler_desktop.app.transfer_rows import TransferRows
from parler_desktop.client.errors import ConnectionLost, HubRefused, SessionClosed
from parler_desktop.client.uploads import FileUpload, UploadCancelled, refusal_sentence
from parler_desktop.protocol.part_text import human_size
from parler_desktop.store import StoreError

Index = QModelIndex | QPersistentModelIndex


@dataclass
class UploadRow:
    transfer: FileUpload
    problem: str = ""  # the sentence when it failed
    shown_fraction: float = -1.0

    @property
    def fraction(self) -> float:
        upload = self.transfer
        return upload.sent / upload.size if upload.size else (1.0 if upload.sending else 0.0)


class UploadsModel(TransferRows):
    posted = Signal(str)  # the sentence the window shows once a file's post is in the outbox

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._tasks: dict[str, Any] = {}  # client id -> the task running it

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row, value = self._row_data(index, role)
        if row is None or role != Qt.ItemDataRole.DisplayRole:
            return value
        upload = row.transfer
        if row.problem:
            return row.problem
        where = f"{display_text(upload.name)} to {display_text(upload.room)}"
        if not upload.sha256:
            return f"{where}: reading…"
        again = f" (try {upload.attempts})" if upload.attempts > 1 else ""
        return f"{where}: {human_size(upload.sent)} of {human_size(upload.size)}{again}"

    def upload(self, row: int) -> FileUpload:
        return self._rows[row].transfer

    def subject(self, row: int) -> str:
        """What the row's Cancel stops, for its accessible name."""
        return f"sending {self._rows[row].transfer.name}"

    def send(self, paths: Iterable[str], room: str | None) -> None:
        """Start sending each file to ``room`` of the session shown now."""
        session = self._bridge.session
        if room is None or session is None:
            return
        for path in paths:
            upload = FileUpload(Path(path), room)
            self._append(UploadRow(upload))
            self._tasks[upload.client_id] = self._bridge.tasks.spawn("send file", self._run(session, upload))

    def cancel(self, row: int) -> None:
        """Stop the upload on ``row`` and take its row away at once (its message is ended in the
        background); a failed row is dismissed. Once its post is being written, it goes out."""
        upload = self._rows[row].transfer
        task = self._tasks.get(upload.client_id)
        if upload.posting and task is not None:
            return
        if upload.cancel() and task is not None:
            task.cancel()
        self._remove(upload)

    async def _run(self, session: Any, upload: FileUpload) -> None:
        try:
            await upload.run(session, self._progress)
        except UploadCancelled:
            self._remove(upload)
        except HubRefused as error:
            self._fail(upload, refusal_sentence(upload, error))
        except ConnectionLost:
            self._fail(upload, f"{upload.name} was not sent: the line to the hub kept dropping.")
        except SessionClosed:
            self._fail(upload, f"{upload.name} was not sent: not connected to the hub.")
        except OSError as error:
            self._fail(upload, f"{upload.name} could not be read: {error.strerror or error}.")
        except (StoreError, ValueError) as error:
            self._fail(upload, f"{upload.name}: {why_not_posted(error)}")
        else:
            self._remove(upload)
            self.posted.emit(display_text(f"Sent {upload.name} ({human_size(upload.size)}).", NOTICE_CHARS))
        finally:
            self._tasks.pop(upload.client_id, None)
